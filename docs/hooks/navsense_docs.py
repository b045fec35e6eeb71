"""MkDocs hooks of navsense's documentation site (mkdocs.yml ``hooks:``).

- The reference pages that must not drift from the code are generated at build time: a page's
  marker ``<!-- navsense:config-keys -->`` becomes the table of every configuration key, walked
  from :data:`navsense.config.keys.SCHEMA` (type, allowed values, where the range comes from)
  with its default from :func:`navsense.config.load_config` (the Maxxum's, which has no vehicle
  overlay, and the Polaris's where its overlay differs); ``<!-- navsense:cli -->`` becomes every
  command's ``--help``, from the argparse parsers of :func:`navsense.cli.build_parser`.
- Links to the repository's files outside docs/ (read on GitHub) become their paths in code.
- The navigation gets a section for each of ``docs/guide/`` and ``docs/changes/`` listing their
  pages (titled by their first heading), so a page added there is on the site without an edit of
  mkdocs.yml.

``tests/userdocs/test_site.py`` checks the generated text against the schema and the parsers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

# folder under docs/ -> its section's title in the navigation
NAV_FOLDERS = {"guide": "Guides", "changes": "Changes"}
CONFIG_MARKER = "<!-- navsense:config-keys -->"
CLI_MARKER = "<!-- navsense:cli -->"
HELP_WIDTH = "100"


def _value_at(cfg: dict, key: str) -> object:
    node: object = cfg
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _shown(value: object) -> str:
    text = json.dumps(value, separators=(", ", ": "))
    if len(text) > 60:
        text = text[:57] + "..."
    return "`" + text.replace("|", "\\|") + "`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def config_keys_markdown() -> str:
    """Every configuration key as Markdown tables, one per top-level section."""
    from navsense.config import load_config
    from navsense.config.schema import describe_keys

    plain = load_config(vehicle="maxxum")
    polaris = load_config(vehicle="polaris")
    rows = describe_keys()
    out: list[str] = [
        f"All {len(rows)} keys, generated from the table of keys (`navsense.config.keys.SCHEMA`) "
        "when this site was built, as `navsense config keys` prints them. *Default* is the "
        "value without a vehicle overlay (the Maxxum's); *Polaris* is given where the "
        "Polaris's overlay (`sensors_polaris.json`, the default vehicle) sets another.",
        "",
    ]
    section = None
    for row in rows:
        key = row["key"]
        top = key.split(".")[0] if "." in key else "top level"
        if top != section:
            section = top
            out += [
                "",
                f"### `{top}`" if top != "top level" else "### Top level",
                "",
                "| key | type | allowed | default | Polaris | range from |",
                "|---|---|---|---|---|---|",
            ]
        default = _value_at(plain, key)
        vehicle = _value_at(polaris, key)
        out.append(
            "| `{}` | {} | {} | {} | {} | {} |".format(
                key,
                _cell(row["type"]),
                _cell(row["allowed"]),
                _shown(default),
                _shown(vehicle) if vehicle != default else "",
                _cell(row["range_from"]),
            )
        )
    return "\n".join(out) + "\n"


def _subparsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, child in action.choices.items():
                if id(child) in seen:  # an alias (--gnss-outage's kind) is shown once
                    continue
                seen.add(id(child))
                found.append((name, child))
    return found


def cli_markdown() -> str:
    """Every command's and sub-command's ``--help``, as argparse prints it, 100 columns."""
    from navsense.cli import build_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        out: list[str] = []

        def walk(parser: argparse.ArgumentParser, depth: int) -> None:
            out.extend(
                ["", f"{'#' * depth} `{parser.prog}`", "", "```text", parser.format_help().rstrip()]
            )
            out.append("```")
            for _name, child in _subparsers(parser):
                walk(child, depth + 1)

        walk(build_parser(), 3)
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    return "\n".join(out) + "\n"


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].replace("`", "").strip()  # the navigation shows no Markdown
    return path.stem.replace("-", " ").capitalize()


def folder_nav(docs_dir: Path) -> list[dict]:
    """The navigation sections of docs/guide/ and docs/changes/: one entry a page, by file name."""
    sections = []
    for folder, title in NAV_FOLDERS.items():
        pages = sorted((docs_dir / folder).glob("*.md"))
        index = [p for p in pages if p.name in ("index.md", "README.md")]
        pages = index + [p for p in pages if p not in index]
        if pages:
            sections.append({title: [{_title(p): f"{folder}/{p.name}"} for p in pages]})
    return sections


def on_config(config, **kwargs):
    """Adds the guide/ and changes/ sections to the navigation (before "Python API")."""
    nav = config["nav"]
    extra = folder_nav(Path(config["docs_dir"]))
    if nav is not None and extra:
        names = [next(iter(item)) if isinstance(item, dict) else item for item in nav]
        where = names.index("Python API") if "Python API" in names else len(nav)
        config["nav"] = nav[:where] + extra + nav[where:]
    return config


_GENERATED = {CONFIG_MARKER: config_keys_markdown, CLI_MARKER: cli_markdown}
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")
_FENCE = re.compile(r"^(```|~~~)", re.M)


def repository_links(markdown: str, page_dir: Path, docs_dir: Path) -> str:
    """A page's links to files of the repository outside docs/ (a module, an example), which
    read on GitHub but are no page of the site, become the file's repository path in code:
    ``[imu_presets.py](../../src/navsense/config/imu_presets.py)`` ->
    ``imu_presets.py (`src/navsense/config/imu_presets.py`)``. A link whose target does not
    exist is left for mkdocs to report; fenced code is left as it is."""
    repo = docs_dir.resolve().parent

    def rewrite(m: re.Match) -> str:
        text, target = m.group(1), m.group(2)
        if "://" in target or target.startswith(("/", "mailto:")):
            return m.group(0)
        path = (page_dir / target).resolve()
        if path.is_relative_to(docs_dir.resolve()) or not path.exists():
            return m.group(0)
        if not path.is_relative_to(repo):
            return m.group(0)
        shown = f"`{path.relative_to(repo).as_posix()}`"
        return (
            shown if text.strip("`") == path.relative_to(repo).as_posix() else f"{text} ({shown})"
        )

    parts = _FENCE.split(markdown)
    # split keeps the fence markers: text, marker, code, marker, text, ...
    out, inside = [], False
    for part in parts:
        if part in ("```", "~~~"):
            inside = not inside
            out.append(part)
        else:
            out.append(part if inside else _LINK.sub(rewrite, part))
    return "".join(out)


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    """Replaces each generator's marker with what it generates, and links to the repository's
    files outside docs/ with their paths (:func:`repository_links`)."""
    for marker, generate in _GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    docs_dir = Path(config["docs_dir"])
    page_dir = (docs_dir / page.file.src_uri).parent
    return repository_links(markdown, page_dir, docs_dir)

"""The README and the documentation site (issue 32): a short README whose set-up commands are
the ones CI runs, links that lead to pages, reference pages generated from the schema and the
parsers so they cannot drift, the navigation of docs/guide/ and docs/changes/, and, where the
``docs`` extra is installed, ``mkdocs build --strict`` itself."""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys

import pytest

from navsense.cli import build_parser
from navsense.config import load_config
from navsense.config.schema import describe_keys
from userdocs.tutorial_pages import DOCS, REPO, user_env

_spec = importlib.util.spec_from_file_location("navsense_docs", DOCS / "hooks/navsense_docs.py")
assert _spec is not None and _spec.loader is not None
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short_and_its_install_commands_are_cis():
    assert len(README.splitlines()) <= 300
    installs = [
        re.sub(r"^\s*(\$ )?", "", line)
        for line in README.splitlines()
        if re.match(r"^\s*(\$ )?pip install", line)
    ]
    assert installs == [
        "pip install '.[report]' && navsense simulate",
        "pip install '.[test]' && pytest",
    ]
    ci = (REPO / ".ci/run").read_text()
    assert installs[-1] in ci
    lines = ci.splitlines()
    build = [i for i, line in enumerate(lines) if "mkdocs build --strict" in line]
    docs_extra = [i for i, line in enumerate(lines) if "pip install" in line and ".[docs]" in line]
    assert build and docs_extra and docs_extra[0] < build[0]
    assert build[0] < lines.index(installs[-1])  # the tests stay the last step


def test_every_relative_link_of_the_readme_leads_to_a_file():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert len(local) > 20
    for link in local:
        assert (REPO / link).is_file(), link


def _value_at(cfg: dict, key: str):
    for part in key.split("."):
        cfg = cfg[part]
    return cfg


def test_the_key_reference_has_every_schema_key_with_its_defaults():
    text = hooks.config_keys_markdown()
    plain, polaris = load_config(vehicle="maxxum"), load_config(vehicle="polaris")
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([^`]+)` \|.*$", text, re.M)}
    keys = [row["key"] for row in describe_keys()]
    assert list(rows) == keys and len(keys) > 100
    for row in describe_keys():
        cells = rows[row["key"]].split(" | ")
        assert cells[1] == row["type"].replace("|", "\\|")
        default = json.dumps(_value_at(plain, row["key"]), separators=(", ", ": "))
        assert cells[3].strip("`").rstrip(".") in default.replace("|", "\\|")
        if _value_at(polaris, row["key"]) == _value_at(plain, row["key"]):
            assert cells[4] == ""
        else:
            assert cells[4] != ""
    assert "| `ins.utm_zone` |" in text and "| `gnss.nmea.sentences` |" in text


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in set(action.choices.values()):
                yield from _parsers(child)


def test_the_command_line_reference_has_every_command_and_option():
    text = hooks.cli_markdown()
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 12
    for parser in parsers:
        assert f"`{parser.prog}`" in text, parser.prog
        for action in parser._actions:
            for option in action.option_strings:
                assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text), (
                    parser.prog,
                    option,
                )


def test_pages_under_guide_and_changes_get_a_navigation_section(tmp_path):
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide/receivers.md").write_text("# Receivers\n\ntext\n")
    (tmp_path / "guide/orbits.md").write_text("no heading\n")
    nav = hooks.folder_nav(tmp_path)
    assert nav == [{"Guides": [{"Orbits": "guide/orbits.md"}, {"Receivers": "guide/receivers.md"}]}]
    config = {
        "nav": [{"Home": "index.md"}, {"Python API": "reference/api.md"}],
        "docs_dir": tmp_path,
    }
    assert hooks.on_config(config)["nav"] == [
        {"Home": "index.md"},
        *nav,
        {"Python API": "reference/api.md"},
    ]


def test_the_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings_handlers.python")
    env = user_env()
    env["NO_MKDOCS_2_WARNING"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    keys = (tmp_path / "site/reference/config-keys/index.html").read_text(encoding="utf-8")
    assert "gnss.corrections.baseline_km" in keys
    api = (tmp_path / "site/reference/api/index.html").read_text(encoding="utf-8")
    assert "SensorStream" in api and "prepare_run" in api


def test_links_to_repository_files_outside_docs_become_their_paths(tmp_path):
    docs = REPO / "docs"
    page_dir = docs / "guide"
    text = (
        "see [imu_presets.py](../../src/navsense/config/imu_presets.py) and "
        "[`examples/site.json`](../../examples/site.json#L1), "
        "[a page](../reference/nmea.md), [gone](../../no/such/file.py)\n"
        "```\n[code](../../src/navsense/cli.py)\n```\n"
    )
    out = hooks.repository_links(text, page_dir, docs)
    assert "imu_presets.py (`src/navsense/config/imu_presets.py`)" in out
    assert "`examples/site.json`," in out
    assert "[a page](../reference/nmea.md)" in out  # a page of the site stays a link
    assert "[gone](../../no/such/file.py)" in out  # left for mkdocs to report
    assert "[code](../../src/navsense/cli.py)" in out  # fenced code is left alone

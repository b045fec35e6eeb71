"""The house's import rules (DESIGN.md "Data flows one way", CONTRACTS.md "The house").

Walks every module of the package and fails on an import that crosses a wall: a sensor model
never imports a layout or writer, and nothing that lays out, writes or reads a run imports a
sensor model; model and geodesy code hold no process machinery.
"""

import ast
from pathlib import Path

import navsense

PACKAGE = Path(navsense.__file__).parent

# (modules whose name starts with ..., may not import modules starting with ...)
RULES = [
    (
        "navsense.sensors",
        (
            "navsense.output",
            "navsense._runtime",
            "navsense.simulate",
            "navsense.stream",
            "navsense.ins_stream",
            "navsense.cli",
            "navsense.live",
        ),
    ),
    ("navsense.geo", ("navsense.output", "navsense.sensors", "navsense._runtime")),
    ("navsense.sky", ("navsense.output", "navsense.sensors", "navsense._runtime")),
    ("navsense.output", ("navsense.sensors",)),
    ("navsense.stats", ("navsense.sensors",)),
    ("navsense.score", ("navsense.sensors",)),
]
# a command line may use the writers' file checks
EXEMPT = {"navsense.geo.cli_geo"}


def _module_name(path: Path) -> str:
    parts = ["navsense", *path.relative_to(PACKAGE).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def _violations() -> list[str]:
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        if module in EXEMPT:
            continue
        for owner, forbidden in RULES:
            if module != owner and not module.startswith(owner + "."):
                continue
            for target in sorted(_imports(path, module)):
                if any(target == f or target.startswith(f + ".") for f in forbidden):
                    bad.append(f"{module} imports {target}")
    return bad


def test_no_import_crosses_a_wall():
    assert _violations() == []


def test_the_walk_sees_imports():
    """The walker itself: the simulate module does import the layouts and the models."""
    imports = _imports(PACKAGE / "simulate.py", "navsense.simulate")
    assert any(t.startswith("navsense.output") for t in imports)
    assert any(t.startswith("navsense.") for t in imports)

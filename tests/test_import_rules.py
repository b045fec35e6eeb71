"""The house's import rules (DESIGN.md "Data flows one way", CONTRACTS.md "The house").

Walks every module of the package, its imports at module level and inside functions (lazy
imports obey the same rules), and fails on an import that crosses a wall: a sensor model never
imports a layout or writer, and nothing that lays out, writes or reads a run imports a sensor
model; model and geodesy code hold no process machinery. The libraries at the bottom of the
house import only what their row of CONTRACTS.md names (ALLOWED). And no module imports itself
back through others: the graph of navsense modules and their imports (module level and lazy;
``if TYPE_CHECKING:`` blocks left out, they do not run) has no cycle.
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
    # output holds the layouts and writers: of navsense.runs only the Episode and the column
    # kinds (the readers of a finished run import output, never the other way)
    (
        "navsense.output",
        (
            "navsense.sensors",
            "navsense.runs.reader",
            "navsense.runs.jsonl",
            "navsense.runs.parquet",
            "navsense.runs.ins_frames",
            "navsense.runs.stats",
            "navsense.runs.truth",
            "navsense.runs.report",
            "navsense.runs.report_draw",
            "navsense.runs.report_kit",
            "navsense.runs.report_plots",
            "navsense.runs.report_sky",
            "navsense.runs.export_mcap",
        ),
    ),
    ("navsense.runs", ("navsense.sensors",)),
    ("navsense.score", ("navsense.sensors",)),
    ("navsense.allan", ("navsense.sensors", "navsense._runtime", "navsense.simulate")),
]
# a command line may use the writers' file checks
EXEMPT: set[str] = set()

#: CONTRACTS.md's "may import" column for the libraries at the bottom of the house: the navsense
#: modules each may import (besides its own package), module level or lazily. A command line
#: (``cli_*``) inside one of them may import anything.
_LEAVES = ("navsense.utc", "navsense.progress", "navsense.clock", "navsense.jsonfile")
_BASE = ("navsense.errors", "navsense.constants")
ALLOWED = {
    "navsense.config": (*_BASE, "navsense.utc", "navsense.jsonfile", "navsense.suite"),
    "navsense.suite": (),  # the standard library only (navsense.suite names, never imports)
    "navsense.sensors": (
        *_BASE,
        "navsense.config.typed",
        "navsense.geo",
        "navsense.sky",
        "navsense.rng",
        "navsense.gauss_markov",
        "navsense.rotation",
        "navsense.clock",
        "navsense.site",
        "navsense.truth.states",
        "navsense.vehicles",
        "navsense.kernels",  # a model's own arithmetic as a kernel (the IMU's)
    ),
    "navsense.geo": (
        *_BASE,
        "navsense.utc",
        "navsense.rotation",
        "navsense.kernels",
        "navsense.config.typed.datum",  # a typed datum; never the configuration's loader
    ),
    "navsense.sky": (
        *_BASE,
        "navsense.rng",
        "navsense.rotation",
        "navsense.site",
        "navsense.utc",
        "navsense.geo",
        "navsense.kernels",  # the constellation's lines of sight
        "navsense.jsonfile",  # an input file's kind (a navigation file that is a FIFO)
    ),
    "navsense.site": (*_BASE, "navsense.jsonfile", "navsense.geo", "navsense.config.typed.datum"),
    "navsense.mapdata": (
        *_BASE,
        "navsense.jsonfile",
        "navsense.site",
        "navsense.geo",
        "navsense.config.defaults",
        "navsense.output.outfiles",  # the site command's --out
    ),
    "navsense._runtime": (*_BASE, "navsense.truth.states", "navsense.cli"),
    "navsense.rotation": ("navsense.kernels",),
    "navsense.kernels": (),  # numpy's array expressions, numba (lazily)
    "navsense.rng": (),
    "navsense.gauss_markov": ("navsense.kernels",),  # one epoch of the unit process
    "navsense.vehicles": _BASE,
    **{leaf: _BASE for leaf in _LEAVES},
    "navsense.errors": (),
    "navsense.constants": (),
}

#: Import cycles known and owned: (sorted modules of the cycle) -> who removes it. Empty: every
#: cycle of issue 28 is gone. An entry is a debt with its owner named, never a silent pass.
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}


def _module_name(path: Path) -> str:
    parts = ["navsense", *path.relative_to(PACKAGE).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.dump(node.test)


def _import_nodes(tree: ast.AST, runtime: bool = False):
    """Every Import and ImportFrom of ``tree``, at module level and inside functions; with
    ``runtime``, not those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif runtime and isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _from_target(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a from-import imports from (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports_of_source(
    source: str, module: str, is_package: bool = False, runtime: bool = False
) -> set[str]:
    """The dotted names ``source`` imports: each target, and target.name for a from-import."""
    found: set[str] = set()
    for node in _import_nodes(ast.parse(source), runtime):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        target = _from_target(node, module, is_package)
        found.add(target)
        found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def _imports(path: Path, module: str, runtime: bool = False) -> set[str]:
    source = path.read_text(encoding="utf-8")
    return _imports_of_source(source, module, path.name == "__init__.py", runtime)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _violations() -> list[str]:
    bad = []
    for module, path in _modules().items():
        if module in EXEMPT:
            continue
        for owner, forbidden in RULES:
            if not _within(module, owner):
                continue
            for target in sorted(_imports(path, module)):
                if any(_within(target, f) for f in forbidden):
                    bad.append(f"{module} imports {target}")
    return bad


def _not_allowed() -> list[str]:
    modules = _modules()
    bad = []
    for module, path in modules.items():
        owner = next((o for o in ALLOWED if _within(module, o)), None)
        if owner is None or module.rpartition(".")[2].startswith("cli"):
            continue
        for target in sorted(_imports(path, module)):
            if not _within(target, "navsense") or target == "navsense" or _within(target, owner):
                continue
            if target.rpartition(".")[0] == "navsense" and target not in modules:
                continue  # "from navsense import x": x's own entry (navsense.x) is checked
            if not any(_within(target, a) for a in ALLOWED[owner]):
                bad.append(f"{module} imports {target}")
    return bad


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the navsense modules it imports at run time (``from a import b`` names the
    module a.b if there is one, else a; a name not a module is its nearest module)."""

    def nearest(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph = {}
    for module, path in modules.items():
        edges = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _import_nodes(tree, runtime=True):
            if isinstance(node, ast.Import):
                targets = [nearest(alias.name) for alias in node.names]
            else:
                base = _from_target(node, module, path.name == "__init__.py")
                targets = [nearest(f"{base}.{alias.name}") for alias in node.names]
            edges.update(t for t in targets if t and t != module)
        graph[module] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return sorted(found)


def test_no_import_crosses_a_wall():
    assert _violations() == []


def test_the_bottom_of_the_house_imports_only_what_contracts_names():
    assert _not_allowed() == []


def test_no_import_cycle():
    cycles = _cycles(_graph(_modules()))
    unknown = [c for c in cycles if c not in KNOWN_CYCLES]
    assert unknown == [], "import cycles (module level or lazy): " + "; ".join(
        " <-> ".join(c) for c in unknown
    )
    fixed = [c for c in KNOWN_CYCLES if c not in cycles]
    assert fixed == [], f"cycles gone: remove them from KNOWN_CYCLES: {fixed}"


def test_the_walk_sees_imports():
    """The walker itself: the simulate module does import the layouts and the models."""
    imports = _imports(PACKAGE / "simulate.py", "navsense.simulate")
    assert any(t.startswith("navsense.output") for t in imports)
    assert any(t.startswith("navsense.") for t in imports)


def test_the_walk_sees_lazy_imports_and_skips_type_checking():
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from navsense.output import x\n"
        "def f():\n    if True:\n        from navsense.sensors.gnss import y\n"
        "class C:\n    def g(self):\n        import navsense.live\n"
    )
    seen = _imports_of_source(source, "navsense.m")
    assert {"navsense.sensors.gnss.y", "navsense.live", "navsense.output.x"} <= seen
    at_run_time = _imports_of_source(source, "navsense.m", runtime=True)
    assert "navsense.output.x" not in at_run_time and "navsense.live" in at_run_time


def test_the_cycle_finder_finds_a_lazy_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(graph) == [("a", "b", "c")]
    # the cycles issue 28 named, as they were: config.defaults <-> config.load (lazy)
    assert _cycles({"d": {"l"}, "l": {"d"}}) == [("d", "l")]

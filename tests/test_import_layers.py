"""The package's layers only import downwards, and no modules import each other in a circle.

Every module of the installed package (the folders of setup.py's
``package_dirs``) is parsed with :mod:`ast`; every ``import`` and ``from ...
import`` statement, at module level or inside a function, is resolved to an
absolute ``slagwerk.*`` module name. The layers, lowest first (a module may
import from its own layer and the layers below it), follow the folders:

1. base (``base/``): ``slagwerk`` itself and its modules (kernel cache, safe
   files, numba set-up, errors), and the engine's shared modules
   (:data:`ENGINE_BASE`);
2. the game packages ``slagwerk.engine.<game>``: a game imports the base and
   its own package, never another game;
3. the registry and its dispatch (:data:`ENGINE_REGISTRY`, the ``slagwerk.engine``
   package itself, and :mod:`slagwerk.engine.records`, which makes games by name);
4. the engine's generic users (:data:`ENGINE_SEARCH`) and ``slagwerk.search``;
5. ``slagwerk.envs``: the games as PettingZoo and OpenSpiel environments;
6. ``slagwerk.agents`` (OpenSpiel's bots play through ``slagwerk.envs``);
7. ``slagwerk.experiments.harness``: tournaments, ratings, SPRT, results folders;
8. what runs on the harness: ``slagwerk.experiments`` (``bench``, ``studies``, ``tuning``);
9. the top: the command line ``slagwerk.cli`` (and ``python -m slagwerk``) and the
   web page's server ``slagwerk.web``.

A new module must be given a layer here (the test names it). Dynamic imports
(``importlib.import_module``: the registry's games, the CLI's commands) are
not imports this test sees; they are the way a lower layer is meant to reach
a higher one by name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from paths import PACKAGE_DIRS, REPO

LAYERS = ("base", "game", "registry", "search", "envs", "agents", "harness", "experiments", "top")

ENGINE_BASE = frozenset({"bits", "cards", "state", "common", "views", "spec", "game",
                         "strict_json", "replay", "encoding", "seeds", "view_schema"})
"""Modules of ``slagwerk.engine`` every game builds on."""

ENGINE_REGISTRY = frozenset({"registry", "dispatch", "contract", "records"})
"""Modules of ``slagwerk.engine`` that know the games (by name or id)."""

ENGINE_SEARCH = frozenset({"playout", "conformance", "history"})
"""Modules of ``slagwerk.engine`` that run any game through the dispatch."""

TOP = frozenset({"slagwerk.__main__"})
"""Modules of ``base/`` that belong to the top: ``python -m slagwerk`` runs the command line."""

SUBTREES = (
    ("slagwerk.search", "search"),
    ("slagwerk.envs", "envs"),
    ("slagwerk.agents", "agents"),
    ("slagwerk.experiments.harness", "harness"),
    ("slagwerk.experiments", "experiments"),
    ("slagwerk.cli", "top"),
    ("slagwerk.web", "top"),
)


# -- the package's modules ---------------------------------------------------


def _modules() -> dict[str, Path]:
    """Every module of the package by its absolute name (a package by its own name)."""
    modules: dict[str, Path] = {}
    for package, folder in PACKAGE_DIRS.items():
        root = REPO / folder
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            # only files in package folders (an __init__.py all the way down)
            if not all((root.joinpath(*parts[:i]) / "__init__.py").exists() for i in range(len(parts))):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


MODULES = _modules()
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}
GAMES = frozenset(name.split(".")[2] for name in PACKAGES if name.count(".") == 2 and ".engine." in name)


def layer_of(module: str) -> tuple[int, str | None]:
    """The module's layer (an index into :data:`LAYERS`) and its game (for a game package)."""
    if module in TOP:
        return LAYERS.index("top"), None
    if module == "slagwerk" or MODULES[module].parent == REPO / PACKAGE_DIRS["slagwerk"]:
        return LAYERS.index("base"), None
    if module == "slagwerk.engine":
        return LAYERS.index("registry"), None
    for prefix, layer in SUBTREES:
        if module == prefix or module.startswith(prefix + "."):
            return LAYERS.index(layer), None
    if module.startswith("slagwerk.engine."):
        parts = module.split(".")
        if parts[2] in GAMES:
            return LAYERS.index("game"), parts[2]
        if len(parts) == 3:
            engine = {"base": ENGINE_BASE, "registry": ENGINE_REGISTRY, "search": ENGINE_SEARCH}
            for layer, names in engine.items():
                if parts[2] in names:
                    return LAYERS.index(layer), None
    raise LookupError(module)


# -- the imports -------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    in_function: bool

    def where(self) -> str:
        return f"{MODULES[self.source].relative_to(REPO)}:{self.line}"

    def __str__(self) -> str:
        level = "function-level" if self.in_function else "module-level"
        return f"{self.where()}: {self.source} imports {self.target} ({level})"


def _resolve(module: str, relative: str | None, level: int) -> str:
    """The absolute name of ``from <level dots><relative> import ...`` in ``module``."""
    if level == 0:
        return relative or ""
    package = module if module in PACKAGES else module.rpartition(".")[0]
    base = package.split(".")
    if level > 1:
        base = base[: -(level - 1)]
    return ".".join(base + ([relative] if relative else []))


def _known(name: str) -> str | None:
    """``name`` or its longest prefix that is a module of the package (None outside it)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str):
        self.module = module
        self.depth = 0
        self.imports: dict[Import, None] = {}  # in order, each once

    def _add(self, name: str, line: int) -> None:
        target = _known(name)
        if target is not None and target != self.module:
            self.imports[Import(self.module, target, line, self.depth > 0)] = None

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_If(self, node: ast.If) -> None:
        # `if TYPE_CHECKING:` imports are for type checkers only: never run
        test = node.test
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        source = _resolve(self.module, node.module, node.level)
        for alias in node.names:
            # `from package import submodule` imports the submodule; a name
            # defined in the package's __init__ is an import of the package
            submodule = f"{source}.{alias.name}"
            self._add(submodule if submodule in MODULES else source, node.lineno)


def _imports() -> list[Import]:
    found = []
    for module, path in MODULES.items():
        collector = _Collector(module)
        collector.visit(ast.parse(path.read_text(), filename=str(path)))
        found.extend(collector.imports)
    return found


IMPORTS = _imports()


# -- the tests ---------------------------------------------------------------


def test_the_package_is_found():
    assert {"slagwerk", "slagwerk.engine", "slagwerk.engine.game", "slagwerk.cli"} <= set(MODULES)
    assert {"coins", "koetsieren", "kozel", "aluette"} <= GAMES
    assert any(i.source == "slagwerk" and i.target == "slagwerk.kernel_cache" for i in IMPORTS)


def test_every_module_has_a_layer():
    missing = []
    for module in sorted(MODULES):
        try:
            layer_of(module)
        except LookupError:
            missing.append(f"{MODULES[module].relative_to(REPO)} ({module})")
    assert not missing, "give these modules a layer in tests/test_import_layers.py: " + ", ".join(missing)


def _violation(imp: Import) -> str | None:
    source_layer, source_game = layer_of(imp.source)
    target_layer, target_game = layer_of(imp.target)
    if target_layer > source_layer:
        return f"{imp}: layer {LAYERS[source_layer]!r} imports from the higher layer {LAYERS[target_layer]!r}"
    if target_game is not None and source_game is not None and target_game != source_game:
        return f"{imp}: game {source_game!r} imports another game's package {target_game!r}"
    return None


def test_the_rules_catch_what_they_are_meant_to():
    def imp(source, target, in_function=False):
        return Import(source, target, 1, in_function)

    assert _violation(imp("slagwerk.engine.coins.game", "slagwerk.engine.registry")) is not None
    assert _violation(imp("slagwerk.engine.game", "slagwerk.engine.kozel.kernels", True)) is not None
    assert _violation(imp("slagwerk.engine.kozel.game", "slagwerk.engine.coins")) is not None
    assert _violation(imp("slagwerk.search.tree", "slagwerk.agents.base")) is not None
    assert _violation(imp("slagwerk.kernel_cache", "slagwerk.engine")) is not None
    assert _violation(imp("slagwerk.engine.kozel.kernels", "slagwerk.engine.kozel")) is None
    assert _violation(imp("slagwerk.engine.records", "slagwerk.engine")) is None
    assert _violation(imp("slagwerk.cli.bench", "slagwerk.experiments.bench.suite", True)) is None
    harness, study = "slagwerk.experiments.harness.runner", "slagwerk.experiments.studies.budget"
    assert _violation(imp(harness, study)) is not None
    assert _violation(imp("slagwerk.errors", "slagwerk.cli")) is not None
    assert _violation(imp("slagwerk.__main__", "slagwerk.cli")) is None
    a, b = "slagwerk.experiments.bench.suite", "slagwerk.experiments.bench.search"
    c = "slagwerk.experiments.bench.timing"
    assert _cycles([imp(a, b, True), imp(b, c)]) == []
    assert [len(cycle) for cycle in _cycles([imp(a, b, True), imp(b, c), imp(c, a)])] == [3]
    assert _resolve("slagwerk.engine.coins.kernels", None, 1) == "slagwerk.engine.coins"
    assert _resolve("slagwerk.engine.coins", "spec", 2) == "slagwerk.engine.spec"
    assert _resolve("slagwerk.experiments.tuning.run", "engine.bits", 3) == "slagwerk.engine.bits"


def test_imports_only_go_down_the_layers():
    violations = [v for v in map(_violation, IMPORTS) if v is not None]
    assert not violations, "imports against the layers:\n  " + "\n  ".join(violations)


def _cycles(imports: list[Import]) -> list[list[Import]]:
    """One cycle (as its import statements) for every strongly connected group of modules."""
    graph: dict[str, dict[str, Import]] = {}
    for imp in imports:
        graph.setdefault(imp.source, {}).setdefault(imp.target, imp)

    # Tarjan's strongly connected components
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, {}):
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            connect(node)

    cycles = []
    for group in groups:
        start = min(group)
        # breadth-first from start back to start, inside the group: a shortest cycle
        paths = {start: []}
        frontier = [start]
        cycle = None
        while frontier and cycle is None:
            nxt = []
            for node in frontier:
                for succ, imp in sorted(graph.get(node, {}).items()):
                    if succ not in group:
                        continue
                    if succ == start:
                        cycle = paths[node] + [imp]
                        break
                    if succ not in paths:
                        paths[succ] = paths[node] + [imp]
                        nxt.append(succ)
                if cycle is not None:
                    break
            frontier = nxt
        cycles.append(cycle)
    return cycles


def _describe(cycle: list[Import]) -> str:
    return " -> ".join([cycle[0].source] + [i.target for i in cycle]) + "".join(
        f"\n      {imp}" for imp in cycle
    )


def test_no_import_cycles_at_module_level():
    cycles = _cycles([imp for imp in IMPORTS if not imp.in_function])
    found = "\n  ".join(map(_describe, cycles))
    assert not cycles, f"modules that import each other when imported:\n  {found}"


def test_no_modules_import_each_other_even_inside_functions():
    """A function-level import that closes a circle only hides it; the one
    allowed: :mod:`slagwerk.kernel_cache` reads ``slagwerk.__version__``."""
    allowed = {("slagwerk.kernel_cache", "slagwerk")}
    cycles = _cycles([imp for imp in IMPORTS if (imp.source, imp.target) not in allowed])
    found = "\n  ".join(map(_describe, cycles))
    assert not cycles, f"modules that import each other:\n  {found}"


def test_the_drawing_of_the_parts_points_only_down():
    """docs/images/layers.png (docs/make_layers_drawing.py) puts each part a row above every part
    it imports: that is possible because the parts import each other in no circle."""
    import sys

    sys.path.insert(0, str(REPO / "docs"))
    try:
        import make_layers_drawing as drawing
    finally:
        sys.path.remove(str(REPO / "docs"))
    found = drawing.edges()
    level = drawing.levels(found)
    assert all(level[source] > level[target] for source, target in found)
    assert level["cli/"] == max(level.values()) and level["base/"] == 0
    assert {"engine/coins/", "experiments/harness/", "web/"} <= set(level)

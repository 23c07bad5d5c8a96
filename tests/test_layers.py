"""The package is seven wings in a fixed order, each importing only wings below it:
``model`` < ``reader`` < ``proof`` < ``pack`` < ``search`` < ``explain`` < ``mcp``, with
``cli`` on top. Only ``mcp/`` imports the SDK, only ``cli`` prints, nothing below the edge
reads the environment; no import cycle, no long function; tests mirror modules."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "ledger_context"
TESTS = Path(__file__).resolve().parent
WINGS = ("model", "reader", "proof", "pack", "search", "explain", "mcp")
TOP = ("cli",)
"""Lowest first: a module may import its own wing and the wings before it."""


def _modules() -> dict[str, Path]:
    """Every module by its dotted name below the package (``pack.budget``, ``cli``)."""
    found = {p.stem: p for p in PACKAGE.glob("*.py")}
    for wing in WINGS:
        found.update({f"{wing}.{p.stem}": p for p in (PACKAGE / wing).glob("*.py")})
    return found


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _absolute(name: str, node: ast.ImportFrom) -> list[str]:
    """The package modules a relative ``from`` import in module ``name`` names."""
    parts = name.split(".")
    package = parts[:-1]  # a wing's __init__ is named wing.__init__, so this holds for it too
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    if node.module:
        return [".".join([*base, *node.module.split(".")])]
    return [".".join([*base, alias.name]) for alias in node.names]


def _package_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            for target in _absolute(name, node):
                while target and target not in modules and f"{target}.__init__" not in modules:
                    target = target.rpartition(".")[0]
                if target:
                    found.add(target)
    return found - {name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _package_imports(name, path, modules) for name, path in modules.items()}


def _rank(name: str) -> int:
    wing = name.split(".")[0]
    if wing in WINGS and "." in name:
        return WINGS.index(wing)
    return len(WINGS)  # cli, __main__, __init__ and wing __init__ files sit on top


def _third_party(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_wing_imports_a_higher_one() -> None:
    upward = sorted(
        f"{name} imports {target}"
        for name, targets in _graph().items()
        if not name.endswith("__init__") and "." in name
        for target in targets
        if _rank(target) > _rank(name)
    )
    assert "pack.build" in _graph() and "model.kinds" in _graph()["pack.select"]  # really read
    assert upward == []


def test_only_the_mcp_wing_imports_mcp() -> None:
    importers = {name for name, path in _modules().items() if {"mcp", "mcp_types"} & _third_party(path)}
    assert "mcp.server" in importers
    assert all(name.startswith("mcp.") for name in importers), importers


def test_only_the_cli_prints() -> None:
    printers = sorted(
        name
        for name, path in _modules().items()
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    )
    assert set(printers) == {"cli"}


EDGE = ("cli", "__main__")
"""The edge: the modules that read flags and environment variables, into one Settings."""

CHILD_ENVIRONMENT = {"proof.provenance", "proof.history"}
"""Modules that hand the environment on whole to git (``dict(os.environ, LC_ALL="C")``):
a child process's environment, not a setting read."""


def _environment_uses(path: Path) -> tuple[list[int], list[int]]:
    """Lines that read ``os.environ`` / ``os.getenv`` (or import them), and lines that pass
    ``os.environ`` on whole as the base of a ``dict(...)``."""
    tree = _tree(path)
    passed = {
        id(node.args[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and node.args
    }
    names = {"environ", "environb", "getenv", "getenvb"}
    reads: list[int] = []
    passes: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in names:
            if isinstance(node.value, ast.Name) and node.value.id == "os":
                (passes if id(node) in passed and node.attr == "environ" else reads).append(node.lineno)
        elif (
            isinstance(node, ast.ImportFrom) and node.module == "os" and {a.name for a in node.names} & names
        ):
            reads.append(node.lineno)
    return reads, passes


def test_no_module_below_the_edge_reads_the_environment() -> None:
    reads: list[str] = []
    passers: set[str] = set()
    for name, path in sorted(_modules().items()):
        found, passes = _environment_uses(path)
        if name not in EDGE:
            reads += [f"{name}:{line}" for line in found]
        if passes:
            passers.add(name)
    assert _environment_uses(PACKAGE / "cli.py")[0]  # the edge does read it: the check sees reads
    assert reads == []
    assert passers == CHILD_ENVIRONMENT


def test_the_package_has_no_import_cycle() -> None:
    graph = {name: targets for name, targets in _graph().items() if not name.endswith("__init__")}
    cycles: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "open"
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == "open":
                cycles.append([*trail[trail.index(imported) :], imported])
            elif imported not in state:
                visit(imported, [*trail, imported])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []
    assert graph["mcp.server"] >= {"mcp.tools", "mcp.resources"}  # the graph is really read


FLOORS = 11
"""The longest import chain between the package's modules (``docs/decisions.md``,
"Floors"): a ratchet, so that no change adds a floor unnoticed."""


def _longest_chain(graph: dict[str, set[str]]) -> list[str]:
    chains: dict[str, list[str]] = {}

    def chain(module: str) -> list[str]:
        if module not in chains:
            below = [chain(imported) for imported in sorted(graph[module]) if imported in graph]
            chains[module] = [module, *max(below, key=len, default=[])]
        return chains[module]

    return max((chain(module) for module in sorted(graph)), key=len)


def test_the_import_graph_has_at_most_its_floors() -> None:
    longest = _longest_chain(_graph())
    assert longest[0] == "__main__" and longest[1] == "cli"  # the entry sits on top
    assert len(longest) <= FLOORS, " -> ".join(longest)
    assert _longest_chain({"a": {"b"}, "b": {"c"}, "c": set()}) == ["a", "b", "c"]


def test_no_function_is_longer_than_70_lines() -> None:
    long = [
        f"{name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for name, path in sorted(_modules().items())
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > 70
    ]
    assert long == []


def test_every_module_has_its_mirrored_test_file_and_no_test_file_is_over_900_lines() -> None:
    modules = [name for name in _modules() if "." in name and not name.endswith("__init__")]
    missing = sorted(
        f"tests/{wing}/test_{stem}.py"
        for wing, stem in (name.split(".") for name in modules)
        if not (TESTS / wing / f"test_{stem}.py").is_file()
    )
    long = sorted(
        f"{p.relative_to(TESTS)} ({lines} lines)"
        for p in [*TESTS.rglob("test_*.py"), TESTS / "conftest.py"]
        if (lines := len(p.read_text(encoding="utf-8").splitlines())) > 900
    )
    assert "reader.cache" in modules and "mcp.tools" in modules  # the package is really read
    assert (missing, long) == ([], [])


def test_no_two_modules_or_test_files_share_a_name() -> None:
    # pytest imports test files by their base name (no packages): two test_x.py in two
    # folders stop the whole suite at collection, so their modules must differ too.
    stems = [p.name for p in TESTS.rglob("test_*.py") if ".venv" not in p.parts]
    shared = sorted({name for name in stems if stems.count(name) > 1})
    modules = [name.split(".")[-1] for name in _modules() if "." in name and not name.endswith("__init__")]
    assert len(stems) > 50 and "test_layers.py" in stems  # the tests are really read
    assert shared == [] and sorted({m for m in modules if modules.count(m) > 1}) == []


def _defined(path: Path) -> set[str]:
    """The names a module binds itself at its top level (in ``if``/``try`` too), not the
    names it imports: ``import x as x`` re-exports, it does not define."""
    names: set[str] = set()
    pending: list[ast.AST] = list(_tree(path).body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)  # its body's names are its own, not the module's
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return names


def test_every_name_is_imported_from_the_module_that_defines_it() -> None:
    # A name imported through a module that only re-exports it hides the real dependency
    # (``pack.context`` took ``Document`` through ``reader.ledger``, a floor too high).
    modules = _modules()
    relayed = sorted(
        f"{name} takes {alias.name} through {target}"
        for name, path in modules.items()
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.ImportFrom) and node.level >= 1 and node.module
        for target in _absolute(name, node)
        if target in modules and not target.endswith("__init__")
        for alias in node.names
        if alias.name not in _defined(modules[target]) and f"{target}.{alias.name}" not in modules
    )
    assert "Document" in _defined(modules["model.document"])
    assert "lacks_frontmatter" not in _defined(modules["reader.ledger"])  # imported there: not its own
    assert relayed == []

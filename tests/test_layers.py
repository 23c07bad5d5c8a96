"""The core is pure: only the adapter modules (``mcp_server.py``, ``mcp_*.py``) import mcp,
and only cli prints; the package has no import cycle and no long function; tests mirror
modules."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "ledger_context"


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_mcp_adapters_import_mcp() -> None:
    importers = {p.name for p in PACKAGE.glob("*.py") if {"mcp", "mcp_types"} & _imports(p)}
    assert "mcp_server.py" in importers
    assert all(name == "mcp_server.py" or name.startswith("mcp_") for name in importers), importers


def test_only_the_cli_prints() -> None:
    printers = sorted(
        p.name
        for p in PACKAGE.glob("*.py")
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    )
    assert set(printers) == {"cli.py"}


def _package_imports(path: Path) -> set[str]:
    """The package modules ``path`` imports (relative imports, one level)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                names.add(node.module.split(".")[0])
            else:  # from . import x
                names.update(alias.name for alias in node.names)
    return {name for name in names if (PACKAGE / f"{name}.py").exists()}


def test_the_package_has_no_import_cycle() -> None:
    graph = {p.stem: _package_imports(p) - {"__init__"} for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
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
    assert graph["mcp_server"] >= {"mcp_tools", "mcp_resources"}  # the graph is really read


def test_no_function_is_longer_than_70_lines() -> None:
    long = [
        f"{p.name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for p in sorted(PACKAGE.glob("*.py"))
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > 70
    ]
    assert long == []


TESTS = Path(__file__).resolve().parent


def test_every_module_has_its_mirrored_test_file_and_no_test_file_is_over_900_lines() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    missing = sorted(f"tests/test_{m}.py" for m in modules if not (TESTS / f"test_{m}.py").is_file())
    long = sorted(
        f"{p.name} ({lines} lines)"
        for p in TESTS.glob("*.py")
        if (lines := len(p.read_text(encoding="utf-8").splitlines())) > 900
    )
    assert "cache" in modules and "mcp_tools" in modules  # the package is really read
    assert (missing, long) == ([], [])

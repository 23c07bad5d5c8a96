"""The core is pure: only the adapter imports mcp, and only cli prints."""

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


def test_only_the_mcp_adapter_imports_mcp() -> None:
    importers = sorted(p.name for p in PACKAGE.glob("*.py") if {"mcp", "mcp_types"} & _imports(p))
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

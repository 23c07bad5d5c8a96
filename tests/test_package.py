"""The package itself: its public names (``__init__``) and ``python -m ledger_context`` (``__main__``)."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import ledger_context
from conftest import FIXTURES, REPO


def test_the_public_names_are_the_documented_ones() -> None:
    assert sorted(ledger_context.__all__) == [
        "BYTES_PER_TOKEN",
        "CLASSES",
        "ContextBuild",
        "ContextBuilder",
        "DEFAULT_CAP_TOKENS",
        "InvalidArgumentError",
        "LedgerContextError",
        "Problem",
        "Settings",
        "SpaceNotFoundError",
        "__version__",
        "build_context",
        "find_space",
        "make_settings",
        "tokens",
    ]
    for name in ledger_context.__all__:
        assert hasattr(ledger_context, name), name


def test_the_version_is_the_one_in_pyproject() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert ledger_context.__version__ == project["version"]


def test_python_dash_m_runs_the_command_line_and_passes_on_its_exit_code() -> None:
    demo = str(FIXTURES / "demo")
    pack = subprocess.run(
        [sys.executable, "-m", "ledger_context", "pack", "--space", demo],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert pack.returncode == 0 and pack.stdout == ledger_context.build_context(demo).pack.encode("utf-8")
    refused = subprocess.run(
        [sys.executable, "-m", "ledger_context", "pack", "--space", demo, "--max-data-class", "secret"],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert refused.returncode == 2 and refused.stdout == b""

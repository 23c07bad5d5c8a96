"""Issue 23: `make test` runs on a machine with Python 3.11+, make and git alone. Tests that
need chromium or Node skip, naming the make target that installs them; under CI they fail.
`make test` never installs a system package."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import REPO

BIN = Path(sys.executable).parent
BROWSER_TEST = "tests/explain/test_page.py::test_the_file_page_shows_the_pack_and_loads_nothing"
BUNDLE_TEST = "tests/test_bundle.py::test_make_bundle_packs_a_bundle_that_starts_as_its_manifest_says"


def _pytest(test: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``test`` alone in a new pytest, on a PATH holding this venv only (no node, no npx)."""
    environment = {k: v for k, v in os.environ.items() if k != "CI"} | {"PATH": str(BIN)} | env
    return subprocess.run(
        # A private --basetemp: the shared one may hold folders another run left behind.
        [
            sys.executable,
            "-m",
            "pytest",
            "-rs",
            "-p",
            "no:cacheprovider",
            f"--basetemp={tempfile.mkdtemp()}",
            test,
        ],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_make_test_installs_nothing_but_the_venv() -> None:
    planned = subprocess.run(
        ["make", "-n", "test"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    assert "pytest" in planned
    assert "apt-get" not in planned and "npx" not in planned and "npm" not in planned


@pytest.mark.parametrize(
    ("test", "env", "reason"),
    [
        (BUNDLE_TEST, {}, "needs Node.js 18+ and npx (make bundle runs @anthropic-ai/mcpb): run 'make node'"),
        (
            BROWSER_TEST,
            {"LEDGER_CONTEXT_CHROMIUM": "/nonexistent/chromium"},
            "needs headless chromium at /nonexistent/chromium: run 'make browser'",
        ),
    ],
)
def test_a_test_needing_what_is_missing_skips_with_the_make_target(
    test: str, env: dict[str, str], reason: str
) -> None:
    ran = _pytest(test, **env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 skipped" in ran.stdout
    assert reason in ran.stdout


@pytest.mark.parametrize(
    ("test", "env"), [(BUNDLE_TEST, {}), (BROWSER_TEST, {"LEDGER_CONTEXT_CHROMIUM": "/nonexistent/chromium"})]
)
def test_under_ci_a_missing_tool_fails_the_test(test: str, env: dict[str, str]) -> None:
    ran = _pytest(test, CI="true", **env)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "1 failed" in ran.stdout or "1 error" in ran.stdout  # a fixture's failure is an error
    assert "(required when CI is set)" in ran.stdout

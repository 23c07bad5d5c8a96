"""Shared helpers: small ledgers written into pytest's tmp_path."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "ledger_fixtures"

Files = Mapping[str, str | bytes]

# Servers the tests start keep their audit log in the user state folder: point HOME (which
# MCP clients pass on to servers) at a private folder, so no test writes to the real one.
_HOME = tempfile.mkdtemp(prefix="ledger-context-tests-home-")
atexit.register(shutil.rmtree, _HOME, True)
os.environ["HOME"] = _HOME
for _name in ("XDG_STATE_HOME", "LEDGER_AUDIT"):
    os.environ.pop(_name, None)


def write_ledger(space: Path, files: Files) -> Path:
    """Write ``files`` ({path below .ledger: text or bytes}) into ``space/.ledger``; returns ``space``."""
    root = space / ".ledger"
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
    return space


def doc(**fields: str) -> str:
    """A document whose frontmatter holds ``fields`` in order, then a short body."""
    lines = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return f"---\n{lines}---\nBody text.\n"


@pytest.fixture
def ledger(tmp_path: Path) -> Callable[[Files], Path]:
    """``ledger(files)`` writes a fresh space under tmp_path and returns it."""
    counter = iter(range(1_000_000))

    def make(files: Files) -> Path:
        return write_ledger(tmp_path / f"space{next(counter)}", files)

    return make


LINEAR_LIMIT_S = 5.0
"""Generous bound for one hostile input: linear code takes milliseconds, a quadratic
pattern takes minutes on the same 100 KB input."""


def assert_linear(call: Callable[[], object]) -> None:
    """Fail if ``call()`` takes longer than :data:`LINEAR_LIMIT_S` (a regression bound)."""
    import time

    started = time.perf_counter()
    call()
    elapsed = time.perf_counter() - started
    assert elapsed < LINEAR_LIMIT_S, f"took {elapsed:.1f} s"


PURE_YAML = os.environ.get("LEDGER_CONTEXT_YAML", "").strip().casefold() == "python"
"""True when the suite runs with PyYAML's pure-Python loader (``make pytest-pure-yaml``)."""

libyaml_only = pytest.mark.xfail(
    PURE_YAML,
    strict=True,
    reason="PyYAML's pure-Python scanner differs from libyaml here (a tab after ':' or at a "
    "line end, error marks); the pack follows libyaml, the spec's loader",
)
"""For a test of behaviour where the two loaders disagree: expected to fail under the
pure-Python loader, and flagged if it starts passing."""

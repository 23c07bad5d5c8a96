"""Shared helpers: small ledgers written into pytest's tmp_path."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import tempfile
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "ledger_fixtures"

Files = Mapping[str | bytes, str | bytes]
"""A ledger's files: {path below ``.ledger``: text or bytes}; a ``bytes`` path is a file
name that is not valid UTF-8."""

# Servers the tests start keep their audit log in the user state folder: point HOME (which
# MCP clients pass on to servers) at a private folder, so no test writes to the real one.
_HOME = tempfile.mkdtemp(prefix="ledger-context-tests-home-")
atexit.register(shutil.rmtree, _HOME, True)
os.environ["HOME"] = _HOME
for _name in ("XDG_STATE_HOME", "LEDGER_AUDIT"):
    os.environ.pop(_name, None)


def write_ledger(space: Path, files: Files) -> Path:
    """Write ``files`` into ``space/.ledger``; returns ``space``.

    The one builder of test ledgers. Text is written as UTF-8; bytes are written as they
    are, and a ``bytes`` path names a file whose name is not valid UTF-8.
    """
    root = os.fsencode(space / ".ledger")
    os.makedirs(root, exist_ok=True)
    for name, content in files.items():
        path = os.path.join(root, name if isinstance(name, bytes) else os.fsencode(name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(content if isinstance(content, bytes) else content.encode("utf-8"))
    return space


def sparse_document(path: Path, size: int) -> None:
    """A valid document padded with NUL bytes (valid UTF-8) to exactly ``size`` bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(b"---\nstatus: active\n---\n")
        handle.truncate(size)


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


# Expected pack text and problem lookups, as the spec words them (§1, §5). "§" numbers
# refer to sections of docs/spec.md.

MiB = 1024 * 1024
LIMIT = 10 * MiB

H = ".ledger/harnesses/"
EV = ".ledger/evals/"
F = ".ledger/findings/"
D = ".ledger/decisions/"
X = ".ledger/experiments/"


def fm(text: str) -> str:
    """A document made of the frontmatter ``text`` between fences, and a short body."""
    return f"---\n{text}\n---\nBody.\n"


def fence(frontmatter: str) -> str:
    """The fenced frontmatter of a block (§5): an empty text gives the two fences only."""
    return f"---\n{frontmatter}\n---\n" if frontmatter else "---\n---\n"


def titled(label: str, title: str, path: str, frontmatter: str) -> str:
    """A group 2–5 block (§5)."""
    return f"## {label}: {title} ({path})\n" + fence(frontmatter)


def harness(title: str, path: str, frontmatter: str) -> str:
    return titled("Harness", title, path, frontmatter)


def pack_of(*blocks: str) -> str:
    """Blocks joined with one ``\\n`` (§5)."""
    return "\n".join(blocks)


def problems_at(result, path: str, severity: str | None = None) -> list:
    return [
        p for p in result.ledger.problems if p.path == path and (severity is None or p.severity == severity)
    ]


def doc_paths(result) -> list[str]:
    return [d.path for d in result.ledger.documents]


def assert_skipped(result, path: str) -> list:
    """``path`` is not a document, and an ``error`` problem names it; returns those problems."""
    assert path not in doc_paths(result)
    errors = problems_at(result, path, "error")
    assert errors, f"no error problem for {path!r}: {result.ledger.problems!r}"
    return errors


def assert_clean_text(text: str) -> None:
    """Printable on one line: valid UTF-8, no Cc character, no U+2028/U+2029."""
    text.encode("utf-8")  # raises on a lone surrogate
    for char in text:
        assert unicodedata.category(char) != "Cc", f"raw control character in {text!r}"
        assert char not in "\u2028\u2029", f"line separator in {text!r}"


def mentions_number(message: str, number: int) -> bool:
    import re

    return re.search(rf"(?<!\d){number}(?!\d)", message) is not None


class Hung(BaseException):
    """Raised by :func:`deadline`; a BaseException so no ``except OSError`` swallows it."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging (a blocking open of a FIFO, an endless walk)."""

    def fire(signum, frame):
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check(space: Path, capsys, *extra: str) -> tuple[int, str]:
    """Run ``ledger-context check`` on ``space``: its exit status and its output."""
    from ledger_context.cli import main  # after HOME is set above

    status = main(["check", "--space", str(space), *extra])
    return status, capsys.readouterr().out


def check_json(space: Path, capsys) -> tuple[int, dict]:
    status, out = check(space, capsys, "--json")
    return status, json.loads(out)


ACTIVE_HARNESS = fm("status: active")

"""Packs of ledgers built to be slow: the figures issue 10 asks the benchmark to print.

Two ledgers, each packed in-process (a cold build, no cache) and as a whole
``ledger-context pack`` process:

- a current finding whose body holds one 100 KB heading line, ``# a`` then 100,000
  spaces then ``b``, and no frontmatter title, so the title comes from the H1 scan;
- a decision at the bottom of a chain of 2,000 nested folders below ``decisions/``.

The target for each is "well under a second"; the report shows the time and PASS when it
is under 1 s. Run alone: ``python bench/hostile_packs.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ledger_context import build_context

HEADING_SPACES = 100_000
CHAIN_DEPTH = 2_000
LIMIT_SECONDS = 1.0


@dataclass(frozen=True)
class HostileResult:
    """One hostile ledger: its name, the cold in-process build and the whole process, in s."""

    name: str
    build_s: float
    process_s: float
    pack_bytes: int


def _heading_ledger(space: Path) -> None:
    findings = space / ".ledger" / "findings"
    findings.mkdir(parents=True)
    body = "# a" + " " * HEADING_SPACES + "b\n\nText.\n"
    (findings / "wide.md").write_text(f"---\nstatus: current\nupdated_at: 2026-01-01\n---\n{body}", "utf-8")


def _chain_ledger(space: Path) -> None:
    folder = space / ".ledger" / "decisions"
    folder.mkdir(parents=True)
    # Walk down by relative steps: the full path of the bottom is longer than a path may be.
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(CHAIN_DEPTH):
            os.mkdir("c", dir_fd=fd)
            inner = os.open("c", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        doc = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(doc, b"---\nstatus: accepted\nupdated_at: 2026-01-01\n---\n")
        os.close(doc)
    finally:
        os.close(fd)


def _time_build(space: Path) -> tuple[float, int]:
    start = time.perf_counter()
    build = build_context(space)
    return time.perf_counter() - start, build.budgeted.pack_bytes


def _time_process(space: Path) -> float:
    command = [sys.executable, "-m", "ledger_context", "pack", "--space", str(space)]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def bench_hostile() -> list[HostileResult]:
    """Build both ledgers in a temporary folder and time them."""
    results = []
    for name, make in (
        (f"100 KB heading line ({HEADING_SPACES:,} spaces)", _heading_ledger),
        (f"{CHAIN_DEPTH:,}-deep folder chain", _chain_ledger),
    ):
        space = Path(tempfile.mkdtemp(prefix="ledger-context-hostile-"))
        try:
            make(space)
            build_s, size = _time_build(space)
            results.append(HostileResult(name, build_s, _time_process(space), size))
        finally:  # rm, not shutil.rmtree: Python 3.11's recursion cannot go 2,000 folders deep
            subprocess.run(["rm", "-rf", str(space)], check=False)
    return results


def hostile_lines(results: list[HostileResult]) -> list[str]:
    """The report's section: one row per hostile ledger."""
    lines = [
        "## Inputs built to be slow (issue 10)",
        "",
        "| ledger | cold build | `ledger-context pack` process | pack bytes | target | result |",
        "|:--|--:|--:|--:|:--|:--|",
    ]
    for r in results:
        verdict = "PASS" if r.build_s < LIMIT_SECONDS else "MISS"
        lines.append(
            f"| {r.name} | {r.build_s * 1000:.1f} ms | {r.process_s * 1000:.0f} ms | {r.pack_bytes} "
            f"| build < {LIMIT_SECONDS:g} s | {verdict} |"
        )
    return lines


if __name__ == "__main__":
    print("\n".join(hostile_lines(bench_hostile())))

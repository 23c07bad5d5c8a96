"""Start-up: whole ``pack`` processes on an empty and a 100-document ledger beside
``python -c pass``, ``python -c "import yaml"`` and the naive reader (issue 29).

Small ledgers are the common case (the pre-commit hook packs one on every commit), and
there the interpreter's start and the imports are most of the time. Every command runs
once per round, in turn, after an untimed round (``processes.run_in_turn``); the report
gives medians and ratios from that one run. The empty ledger is a ``.ledger/`` holding
only a one-line ``agents.md`` (the naive reader needs one); the 100-document ledger is
the documentation-site ledger of that size (``doc_ledgers.py``). A further row imports
only the standard modules the package is written with (dataclasses, pathlib, typing,
argparse): the floor no lazy import of the package's own can go below.

Run alone: ``python bench/startup.py [RUNS]``.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from doc_ledgers import generate_doc_space
from machine import log
from processes import IMPORT_YAML, NAIVE, PACK, PASS, check_printed_pack, command, run_in_turn
from spaces import DEFAULT_SPACES_DIR, wait_until
from timing import Timing, fmt_ratio, fmt_time

STDLIB = 'python -c "import dataclasses, pathlib, typing, argparse"'
EMPTY_LIMIT = 1.5
"""Issue 29: ``pack`` on an empty ledger within 1.5× ``python -c "import yaml"``."""
SMALL_DOCUMENTS = 100


@dataclass
class StartupResult:
    times: dict[str, Timing]
    runs: int

    def median(self, name: str) -> float:
        return self.times[name].median


def _empty_space(root: Path) -> Path:
    (root / ".ledger").mkdir(parents=True)
    (root / ".ledger" / "agents.md").write_text("# Agents\n", encoding="utf-8")
    return root


def bench_startup(spaces_dir: Path, runs: int) -> StartupResult:
    """``runs`` rounds of every start-up command, in turn."""
    log(f"start-up: pack on an empty and a {SMALL_DOCUMENTS}-document ledger ({runs} rounds)")
    small = generate_doc_space(spaces_dir, SMALL_DOCUMENTS)
    wait_until(small.ready_at)
    with tempfile.TemporaryDirectory(prefix="ledger-bench-empty-") as scratch:
        empty = _empty_space(Path(scratch))
        for space in (empty, small.path):
            check_printed_pack(space)
        commands = {
            PASS: command(PASS, empty),
            IMPORT_YAML: command(IMPORT_YAML, empty),
            STDLIB: [sys.executable, "-c", "import dataclasses, pathlib, typing, argparse"],
            "pack, empty ledger": command(PACK, empty),
            "naive, empty ledger": command(NAIVE, empty),
            f"pack, {SMALL_DOCUMENTS} documents": command(PACK, small.path),
            f"naive, {SMALL_DOCUMENTS} documents": command(NAIVE, small.path),
        }
        return StartupResult(run_in_turn(commands, runs), runs)


def startup_lines(result: StartupResult) -> list[str]:
    """The report's section: each command's median, over ``python -c pass`` and ``import yaml``."""
    base, yaml = result.median(PASS), result.median(IMPORT_YAML)
    lines = [
        "## Start-up (issue 29)",
        "",
        f"Whole processes, {result.runs} rounds in turn after one untimed round; medians. "
        "The empty ledger holds only a one-line agents.md; the "
        f"{SMALL_DOCUMENTS}-document one is the documentation-site ledger.",
        "",
        "| command | median | spread (min–max) | over `pass` | / `import yaml` |",
        "|:--|--:|--:|--:|--:|",
    ]
    for name, timing in result.times.items():
        spread = f"{fmt_time(min(timing.times))}–{fmt_time(max(timing.times))}"
        lines.append(
            f"| `{name}` | {fmt_time(timing.median)} | {spread} "
            f"| {fmt_time(max(timing.median - base, 0.0))} | {fmt_ratio(timing.median / yaml)} |"
        )
    empty = result.median("pack, empty ledger") / yaml
    small = result.median(f"pack, {SMALL_DOCUMENTS} documents") / result.median(
        f"naive, {SMALL_DOCUMENTS} documents"
    )
    floor = result.median(STDLIB) / yaml
    lines += [
        "",
        f"- `pack` on an empty ledger / `import yaml`: {fmt_ratio(empty)} (target ≤ {EMPTY_LIMIT:g}×: "
        f"{'PASS' if empty <= EMPTY_LIMIT else 'MISS'}); the standard modules alone: {fmt_ratio(floor)}.",
        f"- `pack` / naive on {SMALL_DOCUMENTS} documents: {fmt_ratio(small)} (target ≤ 1×: "
        f"{'PASS' if small <= 1 else 'MISS'}).",
    ]
    return lines


if __name__ == "__main__":
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    print("\n".join(startup_lines(bench_startup(DEFAULT_SPACES_DIR, rounds))))

#!/usr/bin/env python3
"""Whole-process ``pack`` of two versions of the package, beside the naive reader, in turn.

    git worktree add /tmp/before 90fae04
    python bench/compare.py /tmp/before findings-2500,experiments-2500 [RUNS]

Each run starts ``python -m ledger_context pack`` with the old tree's ``server/`` first on
``PYTHONPATH``, then with this tree's, then ``python bench/naive.py``, so the three see the
same machine load; it prints the medians and stops with an error if the two versions give
different packs (a speed change must not change a byte). Ledgers are those kept in
``bench/.spaces`` by ``make bench``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import BENCH_DIR

HERE = BENCH_DIR.parent


def _run(command: list[str], tree: Path | None) -> tuple[float, bytes]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree / "server")
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=True)
    return time.perf_counter() - started, done.stdout


def compare(before: Path, space: Path, runs: int) -> str:
    """One line: the medians of ``runs`` runs of each, and the ratios."""
    pack = [sys.executable, "-m", "ledger_context", "pack", "--space", str(space)]
    naive = [sys.executable, str(BENCH_DIR / "naive.py"), str(space)]
    times: dict[str, list[float]] = {"before": [], "after": [], "naive": []}
    packs: dict[str, bytes] = {}
    for _ in range(runs):
        for which, command, tree in (("before", pack, before), ("after", pack, HERE), ("naive", naive, None)):
            seconds, packs[which] = _run(command, tree)
            times[which].append(seconds)
    if packs["before"] != packs["after"]:
        raise SystemExit(f"{space.name}: the two versions give different packs")
    b, a, n = (statistics.median(times[k]) for k in ("before", "after", "naive"))
    return (
        f"{space.name}: before {b * 1e3:.0f} ms, after {a * 1e3:.0f} ms, naive {n * 1e3:.0f} ms; "
        f"naive ÷ pack {n / b:.2f}× → {n / a:.2f}×; after is {b / a:.2f}× faster"
    )


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        raise SystemExit(__doc__)
    runs = int(argv[3]) if len(argv) > 3 else 3
    for name in argv[2].split(","):
        print(compare(Path(argv[1]).resolve(), BENCH_DIR / ".spaces" / name, runs), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

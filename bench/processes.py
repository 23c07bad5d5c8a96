"""Whole-process times: commands run in turn as fresh interpreters, stdout to ``/dev/null``.

Each round runs every command once, one after the other, so a change in the machine's
load weighs on all of them alike; the first round is an untimed warm-up. A process
starts with no parse cache (there is none across processes) but a warm OS page cache.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from ledgers import Space
from machine import BENCH_DIR, child_env, log
from timing import Timing

PACK = "python -m ledger_context pack --space SPACE"
CHECK = "python -m ledger_context check --space SPACE"
EXPLAIN_FULL = "python -m ledger_context explain --full --space SPACE"
NAIVE = "python bench/naive.py SPACE"
IMPORT_YAML = 'python -c "import yaml"'
PASS = "python -c pass"

CHECK_EXIT_CODES = (0, 1, 2)
"""``check`` exits 1 for warnings and 2 for skipped documents: both are answers, not failures."""


def command(name: str, space: Path) -> list[str]:
    """The argument list of the command called ``name`` (one of the names above) on ``space``."""
    cli = [sys.executable, "-m", "ledger_context"]
    return {
        PACK: [*cli, "pack", "--space", str(space)],
        CHECK: [*cli, "check", "--space", str(space)],
        EXPLAIN_FULL: [*cli, "explain", "--full", "--space", str(space)],
        NAIVE: [sys.executable, str(BENCH_DIR / "naive.py"), str(space)],
        IMPORT_YAML: [sys.executable, "-c", "import yaml"],
        PASS: [sys.executable, "-c", "pass"],
    }[name]


def run_in_turn(
    commands: Mapping[str, Sequence[str]], runs: int, *, warmup: bool = True
) -> dict[str, Timing]:
    """Times of ``runs`` timed rounds of ``commands``, after one untimed round if ``warmup``.

    Big ledgers skip the warm-up round: their in-process measurements just read every file.
    """
    times: dict[str, list[float]] = {name: [] for name in commands}
    for rep in range(0 if warmup else 1, runs + 1):
        for name, argv in commands.items():
            allowed: Collection[int] = CHECK_EXIT_CODES if name == CHECK else (0,)
            started = time.perf_counter()
            done = subprocess.run(argv, stdout=subprocess.DEVNULL, env=child_env())
            elapsed = time.perf_counter() - started
            if done.returncode not in allowed:
                raise RuntimeError(f"{name} exited with status {done.returncode}")
            if rep:  # the first round is an untimed warm-up
                times[name].append(elapsed)
    return {name: Timing(samples) for name, samples in times.items()}


def check_printed_pack(space: Path) -> bytes:
    """``ledger-context pack``'s output, checked against an in-process build of ``space``."""
    from ledger_context.pack.build import ContextBuilder

    printed = subprocess.run(command(PACK, space), capture_output=True, check=True, env=child_env())
    if printed.stdout != ContextBuilder(space).build().pack.encode("utf-8"):
        raise RuntimeError("ledger-context pack printed another pack than the in-process build")
    return printed.stdout


def bench_process(
    space: Space, runs: int, names: Sequence[str] = (PACK, IMPORT_YAML, PASS)
) -> dict[str, Timing]:
    """Whole-process times of ``ledger-context pack`` beside reference commands on ``space``."""
    check_printed_pack(space.path)
    log(f"  whole-process runs ({runs} each, in turn)")
    return run_in_turn({name: command(name, space.path) for name in names}, runs)

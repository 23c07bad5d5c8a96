"""The in-process measurements of one short-body space: floors, naive, cold, warm, one file touched.

cold
    ``ContextBuilder(space).build()`` on a fresh builder (empty cache), in process.
warm
    A second ``.build()`` on the last cold builder with nothing changed.
one touched
    Rewrite one experiment (its ``run_id`` changes, the file stays valid), set its mtime via
    ``os.utime`` to a distinct time more than 2 s in the past (the cache never trusts a file
    modified within the last second), then ``.build()`` on the same builder; the write is
    not timed. The same file is touched in every repetition, so each build re-reads exactly
    one file. Its bytes and times are restored afterwards.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floors import io_floor, list_documents, stat_floor
from ledgers import Space, wait_until_ready
from machine import log
from mcp_calls import McpResult
from naive import naive_pack
from spaces import TRUST_DELAY
from timing import Timing, measure


@dataclass
class SizeResult:
    """Everything measured on one space."""

    space: Space
    stat: Timing
    io: Timing
    naive: Timing
    cold: Timing
    warm: Timing
    touched: Timing
    documents: int
    problems: int
    pack_bytes: int
    naive_pack_bytes: int
    rss_kib: int = 0
    child_cold: float = 0.0

    def per_experiment(self, timing: Timing) -> float:
        return timing.median / self.space.experiments


@contextmanager
def touched_file(path: Path) -> Iterator[Callable[[int], None]]:
    """Yields ``touch(rep)``: rewrite ``path`` (run_id changed) with an old, distinct mtime.

    The original bytes and times are restored on exit.
    """
    original = path.read_bytes()
    times = path.stat()
    marker = b"\nrun_id: run-"
    if marker not in original:
        raise RuntimeError(f"{path} has no run_id line to change")

    def touch(rep: int) -> None:
        path.write_bytes(original.replace(marker, marker + b"t%02d-" % rep, 1))
        past = time.time_ns() - (10 + rep) * 1_000_000_000
        os.utime(path, ns=(past, past))

    try:
        yield touch
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))


def bench_size(space: Space, reps: tuple[int, int, int]) -> SizeResult:
    """The in-process measurements of one space (floors, naive, cold, warm, one touched)."""
    from ledger_context.pack.build import ContextBuilder

    slow, fast, floors = reps
    wait_until_ready(space)
    paths = list_documents(space.path)
    io_floor(space.path)  # warm the page cache; untimed
    log(f"  floors ({floors} reps each)")
    stat, _ = measure(lambda: stat_floor(paths), floors)
    io, _ = measure(lambda: io_floor(space.path), floors)

    log(f"  naive python-frontmatter baseline ({slow} reps)")
    naive, naive_text = measure(lambda: naive_pack(space.path), slow)

    log(f"  cold builds ({slow} reps)")
    builders: list[Any] = []

    def cold_build() -> Any:
        builders[:] = [ContextBuilder(space.path)]
        return builders[0].build()

    cold, cold_result = measure(cold_build, slow)
    builder = builders[0]
    if cold_result.ledger.read["experiment"] != space.experiments:
        raise RuntimeError(
            f"read {cold_result.ledger.read['experiment']} experiments, not {space.experiments}"
        )

    log(f"  warm builds ({fast} reps)")
    warm, warm_result = measure(builder.build, fast)
    if warm_result.pack != cold_result.pack:
        raise RuntimeError("the warm build's pack differs from the cold build's")

    log(f"  one-file-touched builds ({fast} reps)")
    experiments = sorted(p for p in paths if f"{os.sep}experiments{os.sep}" in p)
    with touched_file(Path(experiments[len(experiments) // 2])) as touch:
        touched, _ = measure(builder.build, fast, before=touch)
    result = SizeResult(
        space=space,
        stat=stat,
        io=io,
        naive=naive,
        cold=cold,
        warm=warm,
        touched=touched,
        documents=len(paths),
        problems=len(cold_result.ledger.problems),
        pack_bytes=cold_result.budgeted.pack_bytes,
        naive_pack_bytes=len(naive_text.encode("utf-8")),
    )
    builders.clear()
    del builder, cold_result, warm_result
    gc.collect()
    time.sleep(TRUST_DELAY)  # the restored file is trusted by the cache again before the next measurement
    return result


@dataclass
class ShortRun:
    """The short-body suite's results: per size, the MCP round trips, the whole processes."""

    sizes: dict[int, SizeResult]
    mcp: list[McpResult]
    process: dict[str, Timing] | None
    """``pack`` beside the reference interpreters, on 100 experiments."""
    whole: dict[int, dict[str, Timing]]
    """Per size: whole-process ``pack`` and the naive reader."""
    baseline_rss: int

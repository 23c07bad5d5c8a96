"""The targets: each a ratio (or a size) measured side by side in one run, printed PASS or MISS.

Nothing here fails the run: a target whose ledger was not run reads "not run".
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
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


def short_targets(
    sizes: dict[int, SizeResult],
    mcp: list[McpResult],
    process: dict[str, Timing] | None,
    whole: Mapping[int, dict[str, Timing]],
) -> list[Target]:
    """The targets on the short-body experiment ledgers (the first benchmark's, kept as they were)."""
    found: list[Target] = []

    def add(name: str, limit: str, ready: bool, measured: Callable[[], tuple[str, float, bool]]) -> None:
        if not ready:
            found.append(Target(name, "not run", limit, None, None))
            return
        text, ratio, ok = measured()
        found.append(Target(name, text, limit, ratio, ok))

    ten = sizes.get(10_000)
    hundred = sizes.get(100_000)

    def ratio_at_10k(
        name: str, numerator: str, denominator: str, limit: float, at_least: bool = False
    ) -> None:
        """A target on the ratio of two timings of the 10,000-experiment space."""

        def measured() -> tuple[str, float, bool]:
            assert ten is not None
            top, bottom = getattr(ten, numerator).median, getattr(ten, denominator).median
            ratio = top / bottom
            return (
                f"{fmt_time(top)} vs {fmt_time(bottom)}",
                ratio,
                ratio >= limit if at_least else ratio <= limit,
            )

        add(name, f"{'≥' if at_least else '≤'} {limit:g}×", ten is not None, measured)

    ratio_at_10k("10,000 experiments: cold build ÷ I/O floor", "cold", "io", 3)
    ratio_at_10k("10,000 experiments: naive ÷ cold build", "naive", "cold", 3, at_least=True)
    ratio_at_10k("10,000 experiments: warm build ÷ stat floor", "warm", "stat", 2)
    ratio_at_10k("10,000 experiments: one file touched ÷ stat floor", "touched", "stat", 3)
    small_mcp = next((m for m in mcp if m.experiments == 100), None)
    add(
        "100 experiments: get_context round trip p50",
        "≤ 5 ms",
        small_mcp is not None,
        lambda: (
            fmt_time(statistics.median(small_mcp.times["get_context"])),
            statistics.median(small_mcp.times["get_context"]) / 0.005,
            statistics.median(small_mcp.times["get_context"]) <= 0.005,
        ),
    )
    pack_name, yaml_name = PACK, IMPORT_YAML
    add(
        '`ledger-context pack` whole process ÷ `python -c "import yaml"`',
        "≤ 4×",
        process is not None,
        lambda: (
            f"{fmt_time(process[pack_name].median)} vs {fmt_time(process[yaml_name].median)}",
            process[pack_name].median / process[yaml_name].median,
            process[pack_name].median <= 4 * process[yaml_name].median,
        ),
    )
    add(
        "100,000 experiments: peak RSS of a cold build",
        "≤ 300 MB",
        hundred is not None,
        lambda: (
            f"{hundred.rss_kib * 1024 / 1e6:.0f} MB ({hundred.rss_kib / 1024:.0f} MiB)",
            hundred.rss_kib * 1024 / 300e6,
            hundred.rss_kib * 1024 <= 300e6,
        ),
    )
    add(
        "cold build per experiment, 100,000 ÷ 10,000",
        "≤ 1.00× (linear)",
        ten is not None and hundred is not None,
        lambda: (
            f"{hundred.per_experiment(hundred.cold) * 1e6:.1f} µs"
            f" vs {ten.per_experiment(ten.cold) * 1e6:.1f} µs",
            hundred.per_experiment(hundred.cold) / ten.per_experiment(ten.cold),
            hundred.per_experiment(hundred.cold) <= ten.per_experiment(ten.cold),
        ),
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
        peak = r.child.peak_kib * 1024
        found.append(
            Target(
                f"{r.space.name}: peak RSS of a cold build",
                f"{peak / 1e6:.0f} MB ({r.child.peak_kib / 1024:.0f} MiB)",
                "≤ 300 MB",
                peak / MEMORY_LIMIT,
                peak <= MEMORY_LIMIT,
            )
        )
    return found

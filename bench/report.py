"""The Markdown report: one table per kind of figure, then every target with PASS or MISS."""

from __future__ import annotations

import statistics

from builds import ShortRun
from long_builds import LongResult
from processes import CHECK, EXPLAIN_FULL, IMPORT_YAML, NAIVE, PACK
from targets import cause_of, long_targets, short_targets
from timing import fmt_ratio, fmt_time, percentile


def table(header: list[str], rows: list[list[str]], align: str) -> list[str]:
    """A Markdown table; ``align`` has one ``l`` or ``r`` per column."""
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def report(
    header: str, argv: list[str], short: ShortRun, long: list[LongResult], elapsed: float, load_end: str
) -> str:
    """The whole report as Markdown."""
    lines = [
        "# ledger-context benchmark",
        "",
        header,
        "",
        f"Command: `python bench/run.py{' ' + ' '.join(argv) if argv else ''}` · "
        f"total {elapsed / 60:.1f} min, load average {load_end} at the end. "
        "Medians of the repetitions shown; warm page cache. "
        "How each figure is measured: the docstring of `bench/run.py` and the modules it names.",
        "",
    ]
    lines += _short_sections(short)
    lines += _long_sections(long)
    lines += ["", "## Targets (informational: never fails the run)", ""]
    targets = short_targets(short.sizes, short.mcp, short.process, short.whole) + long_targets(long)
    rows = [
        [
            t.name,
            t.measured,
            "—" if t.ratio is None else fmt_ratio(t.ratio),
            t.limit,
            "not run" if t.passed is None else "PASS" if t.passed else "MISS",
        ]
        for t in targets
    ]
    lines += table(["target", "measured", "ratio", "limit", "result"], rows, "llrll")
    missed = [t.name for t in targets if t.passed is False]
    if missed:
        lines += ["", "Why the misses miss:", ""]
        causes: dict[str, list[str]] = {}
        for name in missed:
            causes.setdefault(cause_of(name), []).append(name)
        lines += [f"- {'; '.join(names)}: {cause}." for cause, names in causes.items()]
    return "\n".join(lines) + "\n"


def _short_sections(short: ShortRun) -> list[str]:
    """The sections of the short-body experiment ledgers (as the first benchmark printed them)."""
    sizes, mcp, process, baseline_rss = short.sizes, short.mcp, short.process, short.baseline_rss
    lines: list[str] = []
    if sizes:
        lines += ["## Spaces", ""]
        rows = [
            [
                f"{r.space.experiments:,}",
                f"{r.documents:,}",
                f"{r.space.bytes / 1e6:.1f} MB",
                f"{r.problems:,}",
                f"{r.pack_bytes:,}",
                f"{r.naive_pack_bytes:,}",
            ]
            for r in sizes.values()
        ]
        lines += table(
            ["experiments", "documents", "size", "problems reported", "pack bytes", "naive pack bytes"],
            rows,
            "rrrrrr",
        )
        lines += ["", "## Build times (in process)", ""]
        rows = []
        for r in sizes.values():
            for name, timing in (
                ("stat floor", r.stat),
                ("I/O floor", r.io),
                ("naive (python-frontmatter)", r.naive),
                ("cold build", r.cold),
                ("warm build", r.warm),
                ("one file touched", r.touched),
            ):
                rows.append(
                    [
                        f"{r.space.experiments:,}",
                        name,
                        fmt_time(timing.median),
                        str(timing.reps),
                        f"{timing.median / r.space.experiments * 1e6:.2f} µs",
                        fmt_ratio(timing.median / r.naive.median),
                        fmt_ratio(timing.median / r.io.median),
                        fmt_ratio(timing.median / r.stat.median),
                    ]
                )
        lines += table(
            [
                "experiments",
                "measure",
                "median",
                "reps",
                "per experiment",
                "× naive",
                "× I/O floor",
                "× stat floor",
            ],
            rows,
            "rlrrrrrr",
        )
        lines += ["", "## Peak memory (cold build in a fresh process)", ""]
        rows = [["import only", f"{baseline_rss / 1024:.0f} MiB", "—", "—"]]
        rows += [
            [
                f"{r.space.experiments:,}",
                f"{r.rss_kib / 1024:.0f} MiB",
                f"{(r.rss_kib - baseline_rss) / 1024:.0f} MiB",
                fmt_time(r.child_cold),
            ]
            for r in sizes.values()
        ]
        lines += table(["experiments", "peak RSS", "above import", "cold build in child"], rows, "rrrr")
    if mcp:
        lines += ["", "## MCP round trip (stdio subprocess, MCP SDK client)", ""]
        rows = [
            [
                f"{m.experiments:,}",
                tool,
                str(len(samples)),
                fmt_time(statistics.median(samples)),
                fmt_time(percentile(samples, 0.95)),
                fmt_time(max(samples)),
            ]
            for m in mcp
            for tool, samples in m.times.items()
        ]
        lines += table(["experiments", "tool", "calls", "p50", "p95", "max"], rows, "rlrrrr")
    if process:
        lines += ["", "## Whole process (100 experiments)", ""]
        yaml_median = process[IMPORT_YAML].median
        rows = [
            [f"`{name}`", str(timing.reps), fmt_time(timing.median), fmt_ratio(timing.median / yaml_median)]
            for name, timing in process.items()
        ]
        lines += table(["command", "runs", "median", '× `python -c "import yaml"`'], rows, "lrrr")
    if short.whole:
        lines += ["", "## Whole process: `pack` beside the naive reader", ""]
        rows = [
            [
                f"{size:,}",
                str(timings[PACK].reps),
                fmt_time(timings[PACK].median),
                fmt_time(timings[NAIVE].median),
                fmt_ratio(timings[NAIVE].median / timings[PACK].median),
            ]
            for size, timings in short.whole.items()
        ]
        lines += table(["experiments", "runs", "`pack`", "naive", "naive ÷ `pack`"], rows, "rrrrr")
    return lines


def _long_sections(long: list[LongResult]) -> list[str]:
    """The sections of the long-body ledgers."""
    if not long:
        return []
    lines = ["", "## Long-body ledgers", ""]
    rows = [
        [
            r.space.shape,
            f"{r.space.documents:,}",
            " / ".join(f"{r.space.kinds[kind]:,}" for kind in ("finding", "decision", "experiment")),
            f"{r.space.bytes / 1e6:.0f} MB",
            f"{r.space.bytes / r.space.documents / 1e3:.1f} KB",
            f"{r.problems:,} ({r.skipped:,} skipped)",
            f"{r.pack_bytes:,}",
        ]
        for r in long
    ]
    lines += table(
        [
            "shape",
            "documents",
            "findings / decisions / experiments",
            "size",
            "mean file",
            "problems",
            "pack bytes",
        ],
        rows,
        "lrrrrrr",
    )
    lines += ["", "## Long-body ledgers: in process", ""]
    rows = []
    for r in long:
        measures = [
            ("stat floor", r.stat),
            ("I/O floor", r.io),
            ("read-and-decode floor", r.decode),
            ("naive (python-frontmatter)", r.naive),
            ("cold build", r.cold),
            ("warm build", r.warm),
        ]
        for name, timing in measures:
            if timing is None:
                continue
            rows.append(
                [
                    r.space.name,
                    name,
                    fmt_time(timing.median),
                    str(timing.reps),
                    f"{r.per_document(timing) * 1e6:.2f} µs",
                    fmt_ratio(timing.median / r.decode.median),
                    fmt_ratio(timing.median / r.io.median),
                    fmt_ratio(timing.median / r.stat.median),
                    "—" if r.naive is None else fmt_ratio(timing.median / r.naive.median),
                ]
            )
    lines += table(
        [
            "ledger",
            "measure",
            "median",
            "reps",
            "per document",
            "× decode floor",
            "× I/O floor",
            "× stat floor",
            "× naive",
        ],
        rows,
        "llrrrrrrr",
    )
    lines += ["", "## Long-body ledgers: whole process", ""]
    rows = []
    for r in long:
        pack = r.process[PACK].median
        for name in (PACK, CHECK, EXPLAIN_FULL, NAIVE):
            timing = r.process[name]
            rows.append(
                [
                    r.space.name,
                    f"`{name}`",
                    str(timing.reps),
                    fmt_time(timing.median),
                    fmt_ratio(timing.median / pack),
                    fmt_ratio(timing.median / r.decode.median),
                ]
            )
    lines += table(["ledger", "command", "runs", "median", "× `pack`", "× decode floor"], rows, "llrrrr")
    lines += ["", "## Long-body ledgers: peak memory and the server's warm call", ""]
    rows = [
        [
            r.space.name,
            f"{r.child.peak_kib / 1024:.0f} MiB",
            f"{r.child.maxrss_kib / 1024:.0f} MiB",
            fmt_time(r.child.seconds),
            "—" if r.mcp is None else f"{len(r.mcp)}",
            "—" if r.mcp is None else fmt_time(statistics.median(r.mcp)),
            "—" if r.mcp is None else fmt_time(percentile(r.mcp, 0.95)),
            fmt_time(r.stat.median),
        ]
        for r in long
    ]
    lines += table(
        [
            "ledger",
            "peak RSS (VmHWM)",
            "ru_maxrss",
            "cold build in child",
            "get_context calls",
            "p50",
            "p95",
            "stat floor",
        ],
        rows,
        "lrrrrrrr",
    )
    return lines

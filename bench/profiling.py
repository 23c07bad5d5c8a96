"""cProfile of one cold build, with each function's share of the build's time."""

from __future__ import annotations

import cProfile
import gc
import pstats
import time
from pathlib import Path

from floors import io_floor


def _name(key: tuple[str, int, str]) -> str:
    path, line, function = key
    return function if path == "~" else f"{Path(path).name}:{line}({function})"


def profile_build(space: Path, title: str, top: int = 15) -> str:
    """The profile of one cold build of ``space`` as Markdown: top functions by own and by total time."""
    from ledger_context.pack.build import ContextBuilder

    io_floor(space)  # warm the page cache
    gc.collect()
    started = time.perf_counter()
    ContextBuilder(space).build()
    plain = time.perf_counter() - started
    gc.collect()
    profiler = cProfile.Profile()
    profiler.enable()
    ContextBuilder(space).build()
    profiler.disable()
    stats = pstats.Stats(profiler)
    entries = stats.stats  # type: ignore[attr-defined]  # {key: (calls, prim, own, cumulative, callers)}
    total = max(cumulative for _, _, _, cumulative, _ in entries.values())
    lines = [
        f"cProfile of one cold build, {title}: {total:.2f} s under the profiler ({plain:.2f} s without it).",
        "",
    ]
    for heading, column in (("own time", 2), ("total time (callees included)", 3)):
        ranked = sorted(entries.items(), key=lambda item: item[1][column], reverse=True)[:top]
        lines += [
            f"Top {top} by {heading}:",
            "",
            "| function | calls | seconds | share |",
            "|:---|---:|---:|---:|",
        ]
        lines += [
            f"| `{_name(key)}` | {value[0]:,} | {value[column]:.3f} | {value[column] / total:.0%} |"
            for key, value in ranked
        ]
        lines.append("")
    return "\n".join(lines)

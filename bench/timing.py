"""Wall-clock timings of repeated measurements, and how they are printed."""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class Timing:
    """Repeated wall-clock times of one measurement, in seconds."""

    times: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def reps(self) -> int:
        return len(self.times)


def measure(
    action: Callable[[], T], reps: int, before: Callable[[int], None] | None = None
) -> tuple[Timing, T]:
    """Run ``action`` ``reps`` times (``before(rep)`` untimed first); its times and last result."""
    times: list[float] = []
    result: Any = None
    for rep in range(reps):
        if before is not None:
            before(rep)
        result = None  # the last result must not weigh on this repetition's memory and GC
        gc.collect()
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return Timing(times), result


def measure_in_turn(actions: dict[str, Callable[[], object]], reps: int) -> dict[str, Timing]:
    """Run every one of ``actions`` once per repetition, in turn, so that a ratio of two is
    taken of times the machine gave in the same moment (:func:`ratio_in_turn`); their times
    by name. What an action returns is freed after its time is taken: a new process never
    frees what it built before it answers (the CLI ends without freeing it)."""
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _rep in range(reps):
        for name, action in actions.items():
            gc.collect()
            started = time.perf_counter()
            result = action()
            times[name].append(time.perf_counter() - started)
            del result  # freed after the timer, as measure() frees its results
    return {name: Timing(samples) for name, samples in times.items()}


def ratio_in_turn(numerator: Timing, denominator: Timing) -> float:
    """The median of the ratios of two measurements taken in turn (:func:`measure_in_turn`),
    repetition by repetition: steadier on a shared machine than a ratio of two medians."""
    return statistics.median(n / d for n, d in zip(numerator.times, denominator.times, strict=True))


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (``fraction`` in 0..1)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(value: float) -> str:
    return f"{value:.2f}×" if value < 10 else f"{value:.1f}×" if value < 100 else f"{value:.0f}×"

"""Peak memory of a cold build, measured in a fresh interpreter.

The child reports ``VmHWM`` from ``/proc/self/status`` where there is one, beside its own
``ru_maxrss``: on Linux a child's ``ru_maxrss`` (and ``RUSAGE_CHILDREN``) also counts the
memory of the parent at the moment it forked, so after a big in-process build it reports
the parent's peak, not the child's. Without ``/proc``, ``ru_maxrss`` is the peak.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from machine import child_env

_RSS_CODE = """\
import json, resource, sys, time
from pathlib import Path
from ledger_context.pack.build import ContextBuilder
started = time.perf_counter()
build = ContextBuilder(Path(sys.argv[1])).build() if sys.argv[1] else None
seconds = time.perf_counter() - started
maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
maxrss = maxrss // 1024 if sys.platform == "darwin" else maxrss
try:
    with open("/proc/self/status", encoding="ascii") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = maxrss
print(json.dumps({"peak_kib": peak, "maxrss_kib": maxrss, "seconds": seconds}))
"""


class ChildBuild(NamedTuple):
    peak_kib: int
    """``VmHWM`` of the child (``ru_maxrss`` without ``/proc``)."""
    maxrss_kib: int
    seconds: float


def child_cold_build(space: Path | None) -> ChildBuild:
    """Peak RSS and build time of a cold build (cache on) in a fresh interpreter; no build if None."""
    done = subprocess.run(
        [sys.executable, "-c", _RSS_CODE, str(space) if space else ""],
        capture_output=True,
        text=True,
        check=True,
        env=child_env(),
    )
    info = json.loads(done.stdout)
    return ChildBuild(int(info["peak_kib"]), int(info["maxrss_kib"]), float(info["seconds"]))

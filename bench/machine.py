"""The machine a run happens on: progress logging, load, child environment, the header line."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def log(message: str) -> None:
    """Progress goes to stderr, so stdout holds only the report."""
    print(message, file=sys.stderr, flush=True)


def load_average() -> str:
    """The 1-minute load average, or ``n/a``: other work on the machine skews every figure."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "n/a"


def child_env() -> dict[str, str]:
    """The environment for child interpreters: ours (so PYTHONPATH, if set, still finds the
    package), without PYTHONDONTWRITEBYTECODE (an installed package has its bytecode cached,
    and compiling every module in every child would time the compiler instead), and with the
    ledger index off: these figures measure a start without it, and no run writes into the
    user's cache. ``index.py`` measures the index, in its own folder."""
    env = {**os.environ, "LEDGER_INDEX": "off"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def git_revision() -> str:
    """The checked-out commit, ``-dirty`` when the work tree has changes; ``unknown`` without git."""
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"],
            cwd=BENCH_DIR,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return done.stdout.strip() or "unknown"


def machine_line(started_at: dt.datetime, load: str, generators: str) -> str:
    import yaml

    import ledger_context
    from ledger_context.reader.frontmatter import libyaml_available

    return (
        f"{started_at:%Y-%m-%d %H:%M %Z} · {os.cpu_count()} cores (load average {load} at start) · "
        f"Python {platform.python_version()} ({platform.python_implementation()}) · "
        f"{platform.system()} {platform.release()} {platform.machine()} · "
        f"ledger-context {ledger_context.__version__} at {git_revision()} · PyYAML {yaml.__version__} "
        f"({'libyaml' if libyaml_available() else 'no libyaml'}) · {generators}"
    )

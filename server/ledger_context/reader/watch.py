"""Noticing that a ledger may have changed: file-system events, else polling, and a heartbeat.

:func:`ledger_changes` yields a reason each time the folder may hold something new. It
uses the operating system's file events through watchfiles; if they cannot be had (an
inotify watch limit, a file system without events) it polls with watchfiles, and if even
that fails, it only ticks. Either way a ``"heartbeat"`` comes at least every
``heartbeat`` seconds, so a stalled or blind watcher (a linked folder outside the watched
tree, a lost event) can delay a change by at most that long. The caller rebuilds and
compares: events are hints, the build is the truth.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Literal

import anyio
from watchfiles import awatch

from .space import display_path

logger = logging.getLogger("ledger_context")
logging.getLogger("watchfiles").setLevel(logging.WARNING)  # it logs every change at INFO

HEARTBEAT_SECONDS = 15.0
"""The longest a change can go unnoticed when no file event arrives."""

POLL_MS = 500
"""How often the polling fallback looks at the files."""

Reason = Literal["ready", "change", "heartbeat"]

WatchState = Literal["starting", "running", "polling", "failed", "stopped"]
"""How changes are being noticed: not yet (``starting``: the watcher is not live yet), by
file events (``running``), by polling the files (``polling``), by the heartbeat's rescan
alone (``failed``), or not at all (``stopped``: not watching, or no folder to watch)."""

_TICK_MS = 250  # how often the watcher thread looks up: readiness and heartbeat counting


async def ledger_changes(
    directory: Path,
    *,
    heartbeat: float = HEARTBEAT_SECONDS,
    on_state: Callable[[WatchState], None] | None = None,
) -> AsyncIterator[Reason]:
    """Yield ``"ready"`` once the watcher is live (a change from before then may have been
    missed: look once more), ``"change"`` soon after files under ``directory`` change, and
    ``"heartbeat"`` whenever ``heartbeat`` seconds pass without one. Runs until the caller
    stops it; ends when ``directory`` goes away or cannot be watched at all (then after
    one heartbeat), so the caller can look again. ``on_state`` hears each watcher that
    goes live: ``running``, ``polling`` or ``failed``."""
    tell = on_state if on_state is not None else _ignore
    tick_ms = max(1, min(_TICK_MS, int(heartbeat * 1000)))
    ticks_per_heartbeat = max(1, round(heartbeat * 1000 / tick_ms))
    for force_polling in (False, True):
        ready, ticks = False, 0
        try:
            async for changes in awatch(
                directory,
                watch_filter=None,  # every file counts: the build decides what matters
                debounce=400,
                step=50,
                rust_timeout=tick_ms,
                yield_on_timeout=True,
                force_polling=force_polling,
                poll_delay_ms=POLL_MS,
                ignore_permission_denied=True,
            ):
                if not ready:
                    tell("polling" if force_polling else "running")
                if changes:
                    ready, ticks = True, 0
                    yield "change"
                elif not ready:
                    ready = True
                    yield "ready"
                elif (ticks := ticks + 1) >= ticks_per_heartbeat:
                    ticks = 0
                    yield "heartbeat"
            return  # the watcher stopped by itself (the folder went away)
        except Exception as exc:  # e.g. a path watchfiles cannot take: never end the server
            how = "polling" if force_polling else "file events"
            logger.warning("ledger-context: watching %s by %s failed (%s)", display_path(directory), how, exc)
    logger.warning("ledger-context: only the %g s heartbeat will notice changes", heartbeat)
    tell("failed")
    yield "ready"
    await anyio.sleep(heartbeat)
    yield "heartbeat"  # then end: the caller tries file events again (the folder may be back)


def _ignore(state: WatchState) -> None:
    """No one listens for the watcher's state."""

"""What the stdio channel and the stop while starting both ask of a pipe: how much a write
may take at once, whether it is ready, and how much of it is unread. No SDK."""

from __future__ import annotations

import select
import sys
from typing import Final

READ_CHUNK: Final = 1 << 16
WRITE_CHUNK: Final = getattr(select, "PIPE_BUF", 4096)
"""Bytes per write: at most what a pipe takes at once (4 KiB on Linux). A pipe that polls
writable takes that much without blocking, and a client that takes that much is making
progress, at a slow reader's pace."""


def ready(fd: int, events: int, seconds: float | None) -> bool:
    """Whether ``fd`` has ``events`` (``select.POLLIN``, ``select.POLLOUT``) within
    ``seconds`` (``None``: wait for them). Where pipes cannot be polled (Windows), True:
    the read or write that follows waits instead."""
    if not hasattr(select, "poll"):
        return True
    poll = select.poll()
    poll.register(fd, events)
    try:
        return bool(poll.poll(None if seconds is None else max(0, int(seconds * 1000))))
    except OSError:
        return True  # let the read or write that follows say what is wrong


def unread(fd: int) -> int | None:
    """Bytes written to the pipe at ``fd`` and not yet read (``FIONREAD``), ``None`` where
    it cannot tell (not a pipe, another system): a pipe frees room for a write a page at a
    time, so only this shows a client that reads less than a page between two checks."""
    try:
        import fcntl
        import termios

        answer = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    except (ImportError, OSError):
        return None
    return int.from_bytes(answer, sys.byteorder, signed=True)

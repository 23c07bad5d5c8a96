"""Logging to stderr that can never block the caller.

A full stderr pipe (a client that never reads it) must not freeze the server: records go
through a bounded queue to one writer thread; when the queue is full (the writer is stuck
on a full pipe) records are dropped and counted, and the count is written once a write
gets through again. Every record is cut to a bounded size, and long string arguments
(which may come from the client) are cut before the message is even formatted.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from typing import Final

MAX_LINE_CHARS: Final = 1000
"""Longest line of a record (a record may have several: a traceback)."""
MAX_RECORD_LINES: Final = 40
MAX_ARGUMENT_CHARS: Final = 200
"""Longest string argument of a log call, cut before formatting."""
QUEUE_RECORDS: Final = 1000


def cut(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} chars)"


def bounded_record(text: str) -> str:
    """``text`` with every line cut to :data:`MAX_LINE_CHARS` and at most
    :data:`MAX_RECORD_LINES` lines (the last ones kept: a traceback's end says most)."""
    lines = text.splitlines() or [""]
    if len(lines) > MAX_RECORD_LINES:
        tail = MAX_RECORD_LINES - 3
        lines = [*lines[:2], f"… ({len(lines) - 2 - tail} lines cut)", *lines[-tail:]]
    return "\n".join(cut(line, MAX_LINE_CHARS) for line in lines)


class _CutArguments(logging.Filter):
    """Cuts long string arguments (and a long message) before the record is formatted."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and len(record.msg) > MAX_LINE_CHARS:
            record.msg = cut(record.msg, MAX_LINE_CHARS)
        if isinstance(record.args, tuple):
            record.args = tuple(cut(a, MAX_ARGUMENT_CHARS) if isinstance(a, str) else a for a in record.args)
        return True


class NonBlockingStderrHandler(logging.Handler):
    """A handler whose ``emit`` never blocks: a bounded queue, one daemon writer thread."""

    def __init__(self, fd: int = 2, capacity: int = QUEUE_RECORDS) -> None:
        super().__init__()
        self.fd = fd
        self.addFilter(_CutArguments())
        self._queue: queue.Queue[bytes] = queue.Queue(capacity)
        self._lock = threading.Lock()
        self._dropped = 0
        self._broken = False
        self._thread = threading.Thread(target=self._write_loop, name="stderr-log", daemon=True)
        self._thread.start()

    @property
    def dropped(self) -> int:
        """Records dropped and not yet reported."""
        with self._lock:
            return self._dropped

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = bounded_record(self.format(record))
        except Exception:
            self.handleError(record)
            return
        data = text.encode("utf-8", "backslashreplace") + b"\n"
        try:
            self._queue.put_nowait(data)
        except queue.Full:
            with self._lock:
                self._dropped += 1

    def drain(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the queued records to be written; True if they were."""
        deadline = time.monotonic() + timeout
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._queue.all_tasks_done.wait(remaining)
        return True

    def _write_loop(self) -> None:
        while True:
            data = self._queue.get()
            try:
                self._write(data)
                with self._lock:
                    dropped, self._dropped = self._dropped, 0
                if dropped:
                    note = f"WARNING ledger_context: {dropped} log line(s) dropped: stderr was full\n"
                    self._write(note.encode())
            finally:
                self._queue.task_done()

    def _write(self, data: bytes) -> None:
        if self._broken:
            return
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fd, view) :]
        except OSError:  # stderr closed or gone: nothing more can be said there
            self._broken = True


def configure_logging(level: str = "info", fd: int = 2) -> NonBlockingStderrHandler:
    """Route every log record to stderr without blocking. The MCP SDK's own loggers stay at
    WARNING unless ``level`` is ``"debug"``. Returns the handler (to drain it at exit)."""
    handler = NonBlockingStderrHandler(fd)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    numeric = logging.getLevelName(level.upper())
    root.setLevel(numeric)
    sdk_level = logging.DEBUG if numeric == logging.DEBUG else logging.WARNING
    for name in ("mcp", "mcp_types"):
        logging.getLogger(name).setLevel(sdk_level)
    return handler

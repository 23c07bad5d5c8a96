"""A stop asked for while the stdio server starts: every request already sent is answered.

Starting takes about a second (the SDK's import, the server, the tokenizer's vocabulary),
and a client sends ``initialize`` at once, often more. A SIGINT or SIGTERM then used to end
the process with those requests unanswered. :func:`answer_unread` answers each request
the pipe holds with an error naming the signal, as the channel does for a request read
after a signal, within a bounded time, and knows nothing of the SDK (it runs before it is
imported).
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from collections.abc import Iterable
from typing import Final

from .jsonrpc_lines import INTERNAL_ERROR, Fault, LineSplitter, parse_line, request_id
from .pipes import READ_CHUNK, WRITE_CHUNK, ready

STOP_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop a stdio server as its client would: ^C, a service manager, the
terminal it runs in closing. Each answers every request read, then ends with status 0."""

STOP_SECONDS: Final = 1.0
"""The longest the answers may take: a client that writes on, or never reads, cannot hold
the stop."""
_AGAIN: Final = "while starting; send it again to a new server"


def _write(fd: int, data: bytes, deadline: float) -> bool:
    """Write ``data`` whole by :data:`WRITE_CHUNK`, each once the pipe has room for it,
    before ``deadline``; whether it was."""
    for start in range(0, len(data), WRITE_CHUNK):
        left = deadline - time.monotonic()
        if left <= 0 or not ready(fd, select.POLLOUT, left):
            return False
        piece = data[start : start + WRITE_CHUNK]
        while piece:
            piece = piece[os.write(fd, piece) :]
    return True


def stop_answers(lines: Iterable[bytes | Fault], signal_name: str) -> list[bytes]:
    """The answers to ``lines``: an error naming the signal for each request, the fault's
    own answer for a line that is not a message."""
    answers: list[bytes] = []
    for line in lines:
        item = line if isinstance(line, Fault) else parse_line(line)
        if item is not None and not isinstance(item, Fault):
            if "method" not in item or "id" not in item:
                continue  # a notification or a response: nothing to answer
            stopped = f"the server was stopped ({signal_name}) {_AGAIN}"
            item = Fault(INTERNAL_ERROR, stopped, request_id(item))
        if item is not None:
            answers.append(json.dumps(item.response(), separators=(",", ":")).encode("utf-8") + b"\n")
    return answers


def answer_unread(signal_name: str, stdin_fd: int = 0, stdout_fd: int = 1) -> int:
    """Answer every request in what ``stdin_fd`` holds now on ``stdout_fd``, and in the
    rest of a line the client is still writing, within :data:`STOP_SECONDS`; how many
    lines were written. Never raises for the pipes' sake: a stop must not fail."""
    if not hasattr(select, "poll"):  # Windows: its pipes cannot be polled
        return 0
    deadline = time.monotonic() + STOP_SECONDS
    splitter = LineSplitter()
    written = 0
    try:
        while True:
            # Between messages, only what is there now; inside one, its rest (a line
            # longer than the pipe arrives as the client's write goes on).
            wait = max(0.0, deadline - time.monotonic()) if splitter.pending else 0.0
            if not ready(stdin_fd, select.POLLIN, wait):
                break
            chunk = os.read(stdin_fd, READ_CHUNK)
            last = None if chunk else splitter.finish()  # the end: a last line without newline
            lines = splitter.feed(chunk) if chunk else [last] if last is not None else []
            for answer in stop_answers(lines, signal_name):
                if not _write(stdout_fd, answer, deadline):
                    return written
                written += 1
            if not chunk or time.monotonic() >= deadline:
                break
    except OSError:
        pass
    return written

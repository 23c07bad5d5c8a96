"""What the stdio channel asks of a pipe: whether it is ready, and how much is unread."""

from __future__ import annotations

import os
import select
import time

from ledger_context.mcp.pipes import WRITE_CHUNK, ready, unread


def test_ready_says_when_a_pipe_has_input_and_room_and_waits_at_most_as_asked() -> None:
    r, w = os.pipe()
    try:
        started = time.monotonic()
        assert not ready(r, select.POLLIN, 0.05)
        assert 0.04 <= time.monotonic() - started < 2
        assert ready(w, select.POLLOUT, 0)
        os.write(w, b"abc")
        assert ready(r, select.POLLIN, None)
        assert unread(r) == 3
    finally:
        os.close(r)
        os.close(w)


def test_a_pipe_that_polls_writable_takes_a_whole_write_chunk() -> None:
    r, w = os.pipe()
    os.set_blocking(w, False)  # a write that would block raises instead of hanging the test
    try:
        written = 0
        while ready(w, select.POLLOUT, 0):
            written += os.write(w, b"x" * WRITE_CHUNK)
        assert written % WRITE_CHUNK == 0 and written > 0
        assert unread(r) == written
    finally:
        os.close(r)
        os.close(w)


def test_unread_is_none_where_it_cannot_tell() -> None:
    r, w = os.pipe()
    os.close(r)
    os.close(w)
    assert unread(r) is None  # a closed descriptor

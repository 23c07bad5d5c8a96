"""A stop while the stdio server starts answers every request the client has sent."""

from __future__ import annotations

import contextlib
import json
import os
import select
import threading
import time

from ledger_context.mcp.early_stop import answer_unread, stop_answers
from ledger_context.mcp.jsonrpc_lines import LineSplitter


def _sent(fd: int) -> None:
    """Wait until the client's first bytes are in the pipe, as they are when a signal comes."""
    poll = select.poll()
    poll.register(fd, select.POLLIN)
    assert poll.poll(5000)


def test_each_request_gets_an_error_naming_the_signal_and_nothing_else_is_answered() -> None:
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "a", "result": {}},
        {"jsonrpc": "2.0", "id": "p", "method": "ping"},
    ]
    chunk = b"".join(json.dumps(line).encode() + b"\n" for line in lines) + b"not json\n" + b'{"jsonrpc"'
    answers = [json.loads(a) for a in stop_answers(LineSplitter().feed(chunk), "SIGTERM")]
    assert [a["id"] for a in answers] == [0, "p", None]  # the half line waits for its end
    assert all("SIGTERM" in a["error"]["message"] for a in answers[:2])
    assert answers[2]["error"]["code"] == -32700


def test_answer_unread_answers_what_the_pipe_holds_and_returns() -> None:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    try:
        os.write(stdin_w, b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(50)))
        assert answer_unread("SIGINT", stdin_r, stdout_w) == 50  # the writer stays open: no EOF
        os.close(stdout_w)
        got = b""
        while chunk := os.read(stdout_r, 1 << 16):
            got += chunk
        assert [json.loads(line)["id"] for line in got.splitlines()] == list(range(50))
    finally:
        for fd in (stdin_r, stdin_w, stdout_r):
            os.close(fd)


def test_a_client_that_never_reads_cannot_hold_the_stop() -> None:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    try:
        request = b'{"jsonrpc":"2.0","id":"%s","method":"ping"}\n' % (b"x" * 60_000)

        def feed() -> None:
            with contextlib.suppress(OSError):  # the pipe is closed under it at the end
                os.write(stdin_w, request * 20)

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()  # 1.2 MB of requests, 60 KB of answer each: the 64 KiB stdout pipe fills
        _sent(stdin_r)
        written = answer_unread("SIGTERM", stdin_r, stdout_w)  # ends by STOP_SECONDS
        assert 0 < written < 20
    finally:
        for fd in (stdin_r, stdin_w, stdout_r, stdout_w):
            os.close(fd)


def _answers_to(*writes: bytes, close: bool) -> list[object]:
    """The ids answered for what a client writes (from a thread, 0.2 s between writes; one
    may be larger than the pipe), closing its end after when ``close``."""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()

    def feed() -> None:
        with contextlib.suppress(OSError):
            for i, write in enumerate(writes):
                time.sleep(0.2 if i else 0)
                os.write(stdin_w, write)
            if close:
                os.close(stdin_w)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        _sent(stdin_r)
        answer_unread("SIGTERM", stdin_r, stdout_w)
        os.close(stdout_w)
        got = b""
        while chunk := os.read(stdout_r, 1 << 16):
            got += chunk
        return [json.loads(line)["id"] for line in got.splitlines()]
    finally:
        feeder.join(timeout=5)
        for fd in (stdin_r, stdout_r) if close else (stdin_r, stdin_w, stdout_r):
            os.close(fd)


def test_a_last_line_without_newline_is_answered_when_the_client_closes() -> None:
    # Found by trying to break the product: id 2 went unanswered.
    ping = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}'
    assert _answers_to(ping % 0 + b"\n" + ping % 1 + b"\n" + ping % 2, close=True) == [0, 1, 2]


def test_a_request_longer_than_the_pipe_is_read_to_its_end() -> None:
    # Found by trying to break the product: a 1 MB request written with others was dropped,
    # with the one after it, when the pipe looked empty in the middle of it.
    big = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"%s"}}\n' % (b"y" * 1_000_000)
    first = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    after = b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n'
    assert _answers_to(first + big[:70_000], big[70_000:] + after, close=False) == [1, 2, 3]

"""A stop while the stdio server starts answers every request the client has sent."""

from __future__ import annotations

import contextlib
import json
import os
import threading

from ledger_context.mcp.early_stop import answer_unread, stop_answers
from ledger_context.mcp.jsonrpc_lines import LineSplitter


def test_each_request_gets_an_error_naming_the_signal_and_nothing_else_is_answered() -> None:
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "a", "result": {}},
        {"jsonrpc": "2.0", "id": "p", "method": "ping"},
    ]
    chunk = b"".join(json.dumps(line).encode() + b"\n" for line in lines) + b"not json\n" + b'{"jsonrpc"'
    answers = [json.loads(a) for a in stop_answers(chunk, LineSplitter(), "SIGTERM")]
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
        written = answer_unread("SIGTERM", stdin_r, stdout_w)  # ends by STOP_SECONDS
        assert 0 < written < 20
    finally:
        for fd in (stdin_r, stdin_w, stdout_r, stdout_w):
            os.close(fd)

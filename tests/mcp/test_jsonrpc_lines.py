"""Framing and first checks of stdio lines: what is passed on, what is answered with which code."""

from __future__ import annotations

import json

from ledger_context.mcp.jsonrpc_lines import (
    INVALID_REQUEST,
    MAX_DEPTH,
    OVERLONG,
    PARSE_ERROR,
    Fault,
    LineSplitter,
    parse_line,
)


def test_lines_are_split_across_chunks_and_the_last_line_needs_no_newline() -> None:
    splitter = LineSplitter(max_bytes=10)
    assert splitter.feed(b'{"a"') == []
    assert splitter.feed(b":1}\n{}\r\n[") == [b'{"a":1}', b"{}\r"]
    assert splitter.finish() == b"["
    assert splitter.finish() is None


def test_an_overlong_line_is_dropped_as_it_arrives_and_the_next_line_is_kept() -> None:
    splitter = LineSplitter(max_bytes=1000)
    assert splitter.feed(b"x" * 600) == []
    for _ in range(1000):  # a megabyte without a newline is never kept
        assert splitter.feed(b"y" * 1000) == []
        assert splitter._size == 0 and splitter._parts == []
    assert splitter.feed(b"tail\nnext\n") == [OVERLONG, b"next"]
    assert splitter.feed(b"z" * 1000 + b"\n") == [b"z" * 1000]
    assert splitter.feed(b"z" * 1001 + b"\n") == [OVERLONG]


def test_a_valid_message_passes_unchanged() -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_context", "arguments": {}},
    }
    assert parse_line(json.dumps(message).encode()) == message
    assert parse_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}') == {
        "jsonrpc": "2.0",
        "method": "notifications/initialized",
    }


def test_a_lone_surrogate_escape_is_json_and_passes() -> None:
    parsed = parse_line(b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"\\ud800"}}')
    assert parsed == {"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"s": "\ud800"}}


def test_faults_carry_the_json_rpc_code_and_the_id_when_one_can_be_trusted() -> None:
    cases = {
        b"\xc3(": (PARSE_ERROR, None),
        b"{": (PARSE_ERROR, None),
        b"Infinity": (PARSE_ERROR, None),
        b"[]": (INVALID_REQUEST, None),
        b"true": (INVALID_REQUEST, None),
        b'{"jsonrpc":"2.0","id":3,"method":"m","params":[]}': (INVALID_REQUEST, 3),
        b'{"jsonrpc":"2.0","id":true,"method":"m"}': (INVALID_REQUEST, None),
        b'{"jsonrpc":"2.0","id":null,"method":"m"}': (INVALID_REQUEST, None),
        b'{"id":"a","method":"m"}': (INVALID_REQUEST, "a"),
        b'{"jsonrpc":"2.0","id":5,"result":{},"params":1}': (
            INVALID_REQUEST,
            None,
        ),  # a response: no id echoed
        b"[" * 5000 + b"]" * 5000: (INVALID_REQUEST, None),
    }
    for line, (code, rid) in cases.items():
        fault = parse_line(line)
        assert isinstance(fault, Fault), line[:40]
        assert (fault.code, fault.id) == (code, rid), line[:40]
        assert fault.response() == {
            "jsonrpc": "2.0",
            "id": rid,
            "error": {"code": code, "message": fault.message},
        }


def test_nesting_is_bounded_at_max_depth() -> None:
    def nested(depth: int) -> bytes:
        inner = "[" * (depth - 1) + "]" * (depth - 1)
        return ('{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":' + inner + "}}").encode()

    assert isinstance(parse_line(nested(MAX_DEPTH - 1)), dict)
    fault = parse_line(nested(MAX_DEPTH + 1))
    assert isinstance(fault, Fault) and fault.code == INVALID_REQUEST and fault.id == 1
    # Many brackets side by side are wide, not deep.
    wide = (
        '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[' + ",".join(["[]"] * 10_000) + "]}}"
    ).encode()
    assert isinstance(parse_line(wide), dict)


def test_a_blank_line_is_no_message() -> None:
    assert parse_line(b"") is None
    assert parse_line(b"  \r") is None

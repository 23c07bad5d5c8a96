"""The SDK's bare -32602 answers, each with its reason and what to send instead, over the
wire as a client sees them; never quoting what the client sent."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from conftest import FIXTURES, RawServer
from ledger_context.mcp.protocol_errors import METHODS, NOT_INITIALIZED, UNKNOWN_RESOURCE, invalid_params
from ledger_context.mcp.server import create_server

DEMO = FIXTURES / "demo"


def _error(server: RawServer, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = server.request(method, params)["error"]
    return error


def test_a_request_before_initialize_says_to_initialize_first() -> None:
    server = RawServer("--space", str(DEMO), "--no-audit")
    assert _error(server, "tools/list") == {
        "code": -32602,
        "message": NOT_INITIALIZED.format(method="tools/list"),
    }
    assert _error(server, "tools/call", {"name": "get_context"})["message"].startswith(
        "initialize first: send initialize, then the notification notifications/initialized, before tools/call"
    )
    server.initialize()  # and the server serves once it is done
    assert "get_context" in {tool["name"] for tool in server.request("tools/list")["result"]["tools"]}
    assert server.close()[0] == 0


def test_params_of_the_wrong_type_name_the_field_and_what_it_should_be() -> None:
    server = RawServer("--space", str(DEMO), "--no-audit")
    server.initialize()
    assert _error(server, "tools/call", {"name": "get_context", "arguments": "x"}) == {
        "code": -32602,
        "message": "invalid params of tools/call: params.arguments: Input should be a valid dictionary",
    }
    assert _error(server, "tools/call", {"name": 5}) == {
        "code": -32602,
        "message": "invalid params of tools/call: params.name: Input should be a valid string",
    }
    assert _error(server, "tools/call", {}) == {
        "code": -32602,
        "message": "invalid params of tools/call: params.name: Field required",
    }
    assert server.close()[0] == 0


def test_an_unknown_resource_names_the_resources_there_are() -> None:
    server = RawServer("--space", str(DEMO), "--no-audit")
    server.initialize()
    for uri in ("ledger://nope", "file:///etc/passwd"):
        assert _error(server, "resources/read", {"uri": uri}) == {
            "code": -32602,
            "message": UNKNOWN_RESOURCE + uri,
            "data": {"uri": uri},
        }
    assert "ledger://pack" in UNKNOWN_RESOURCE and "ledger://document/<path>" in UNKNOWN_RESOURCE
    assert server.close()[0] == 0


class _Four(BaseModel):
    a: int
    b: int
    c: int
    d: int


def test_invalid_params_says_three_fields_and_counts_the_rest_without_the_input() -> None:
    with pytest.raises(ValidationError) as raised:
        _Four.model_validate({"a": "secret-a", "b": "secret-b", "c": "secret-c", "d": "secret-d"})
    said = invalid_params("tools/call", raised.value)
    assert said == (
        "invalid params of tools/call: a: Input should be a valid integer, unable to parse string as an "
        "integer; b: Input should be a valid integer, unable to parse string as an integer; c: Input "
        "should be a valid integer, unable to parse string as an integer (and 1 more)"
    )
    assert "secret" not in said


def test_an_unknown_method_names_the_methods_there_are() -> None:
    server = RawServer("--space", str(DEMO), "--no-audit")
    server.initialize()
    error = _error(server, "tools/lst")
    assert error["code"] == -32601
    assert error["message"] == (
        "unknown method 'tools/lst': this server answers initialize, ping, tools/list, tools/call, "
        "resources/list, resources/templates/list, resources/read, resources/subscribe, "
        "resources/unsubscribe, prompts/list, prompts/get, server/discover, subscriptions/listen"
    )
    assert server.close()[0] == 0


def test_the_methods_named_are_the_ones_the_server_answers() -> None:
    handlers = create_server(DEMO)._lowlevel_server._request_handlers
    assert sorted(METHODS) == sorted([*handlers, "initialize"])


def test_a_long_or_unprintable_method_or_uri_comes_back_short_and_escaped() -> None:
    server = RawServer("--space", str(DEMO), "--no-audit")
    server.initialize()
    method = "x\x1b]0;PWN\x07\u202e" + "m" * 100_000
    error = _error(server, method)
    assert error["message"].startswith('unknown method "x\\u001b]0;PWN\\u0007\\u202emmm')
    assert len(error["message"]) < 500 and len(error["data"]) <= 80 and "\x1b" not in error["data"]
    uri = "ledger://\x1b[2J\u202e" + "u" * 5000
    error = _error(server, "resources/read", {"uri": uri})
    assert error["message"].startswith(UNKNOWN_RESOURCE + '"ledger://\\u001b[2J\\u202euuu')
    assert len(error["message"]) < 600 and len(error["data"]["uri"]) <= 300
    assert not any(c in error["message"] + error["data"]["uri"] for c in "\x1b\u202e")
    assert server.close()[0] == 0


class _Counts(BaseModel):
    counts: dict[str, int]


def test_a_field_named_by_the_client_is_said_back_short_and_escaped() -> None:
    with pytest.raises(ValidationError) as raised:
        _Counts.model_validate({"counts": {"\x1b[2J" + "k" * 100: "x"}})
    said = invalid_params("tools/call", raised.value)
    assert said.startswith('invalid params of tools/call: counts."\\u001b[2Jkkk')
    assert "\x1b" not in said and len(said) < 200

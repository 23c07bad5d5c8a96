"""One JSON-RPC message per HTTP request: a batch gets the stdio answer, -32600; any other
body reaches the app whole."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ledger_context.mcp.jsonrpc_lines import INVALID_REQUEST
from ledger_context.mcp.limits import TOO_LARGE
from ledger_context.mcp.one_message import NO_BATCHES, OneMessage

pytestmark = pytest.mark.anyio


async def _post(body: list[bytes], content_type: bytes = b"application/json") -> tuple[int, bytes]:
    sent: list[dict[str, Any]] = []
    parts = iter(body)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": message["body"]})

    async def receive() -> dict[str, Any]:
        part = next(parts)
        return {"type": "http.request", "body": part, "more_body": bool(part)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "headers": [(b"content-type", content_type)]}
    await OneMessage(app, max_body=100)(scope, receive, send)
    start, answer = sent
    return start["status"], answer["body"]


async def test_a_batch_gets_400_and_the_invalid_request_error_stdio_gives() -> None:
    status, body = await _post([b' \n [{"jsonrpc":"2.0",', b'"id":1,"method":"ping"}]', b""])
    assert status == 400
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": INVALID_REQUEST, "message": NO_BATCHES},
    }


async def test_one_message_reaches_the_app_whole() -> None:
    one = [b'{"jsonrpc":"2.0",', b'"id":1,"method":"ping"}', b""]
    assert await _post(one) == (200, b'{"jsonrpc":"2.0","id":1,"method":"ping"}')


async def test_a_body_longer_than_the_limit_is_refused_as_too_large() -> None:
    status, body = await _post([b"{" + b" " * 100, b""])
    assert status == 413 and json.loads(body)["error"]["code"] == TOO_LARGE


@pytest.mark.parametrize("key", ["id", "\\u0069d"])
@pytest.mark.parametrize("rid", ['{"x":1}', "true", "1.5", "null", "[1]"])
async def test_a_request_whose_id_is_no_string_or_integer_gets_the_stdio_answer(rid: str, key: str) -> None:
    # Found by breaking the product: the SDK answered 202 and an empty body (a tools/call
    # was silently dropped); stdio answers -32600. The key may be written escaped.
    body = '{"jsonrpc":"2.0","' + key + '":' + rid + ',"method":"ping"}'
    status, body = await _post([body.encode(), b""])
    assert status == 400
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": INVALID_REQUEST, "message": 'invalid request: "id" must be a string or an integer'},
    }


async def test_a_response_or_notification_reaches_the_app_whatever_its_id() -> None:
    for one in (
        b'{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}',
        b'{"jsonrpc":"2.0","method":"n"}',
    ):
        assert await _post([one, b""]) == (200, one)

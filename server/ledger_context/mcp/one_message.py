"""One JSON-RPC message per HTTP request: a batch, or a request whose id is no string or
integer, is refused as over stdio.

MCP has no batches. The SDK's HTTP transport answers a JSON array with -32602 and
pydantic's dump of the array; over stdio it is -32600 saying what to send. This ASGI
middleware, behind :class:`~ledger_context.mcp.limits.Limits` (so the body is at most
``--max-body``), gives HTTP the stdio answer.
"""

from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from .jsonrpc_lines import INVALID_REQUEST, request_id
from .limits import read_within, refuse, refuse_too_large, replay_body

NO_BATCHES = "invalid request: no batches (MCP has none); send one message per request"
BAD_ID = 'invalid request: "id" must be a string or an integer'
_WHITESPACE = b" \t\r\n"


class OneMessage:
    """ASGI middleware: a POST whose body is a JSON array, or a request whose id is no
    string or integer, gets 400 and -32600."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = await read_within(receive, self.max_body)
        if body is None:
            await refuse_too_large(send, self.max_body)
            return
        if "json" in Headers(scope=scope).get("content-type", ""):
            fault = _fault(body)
            if fault is not None:
                await refuse(send, 400, INVALID_REQUEST, fault)
                return
        await self.app(scope, replay_body(body, receive), send)


def _fault(body: bytes) -> str | None:
    """Why ``body`` is refused as stdio refuses it, or ``None``: a batch, or a request whose
    id is no string or integer (the SDK answered 202, empty, and dropped the request). Any
    other body, readable or not, is the SDK's to answer."""
    start = body.lstrip(_WHITESPACE)[:1]
    if start == b"[":
        return NO_BATCHES
    if start != b"{":
        return None
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(message, dict) and "method" in message and "id" in message and request_id(message) is None:
        return BAD_ID
    return None

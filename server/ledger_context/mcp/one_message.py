"""One JSON-RPC message per HTTP request: a batch is refused as over stdio.

MCP has no batches. The SDK's HTTP transport answers a JSON array with -32602 and
pydantic's dump of the array; over stdio it is -32600 saying what to send. This ASGI
middleware, behind :class:`~ledger_context.mcp.limits.Limits` (so the body is at most
``--max-body``), gives HTTP the stdio answer.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from .jsonrpc_lines import INVALID_REQUEST
from .limits import read_within, refuse, refuse_too_large, replay_body

NO_BATCHES = "invalid request: no batches (MCP has none); send one message per request"
_WHITESPACE = b" \t\r\n"


class OneMessage:
    """ASGI middleware: a POST whose body is a JSON array gets 400 and -32600."""

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
        if body.lstrip(_WHITESPACE)[:1] == b"[" and "json" in Headers(scope=scope).get("content-type", ""):
            await refuse(send, 400, INVALID_REQUEST, NO_BATCHES)
            return
        await self.app(scope, replay_body(body, receive), send)

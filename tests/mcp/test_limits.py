"""Body size and rate per identity: clear 413 and 429 answers with JSON-RPC bodies."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from ledger_context.mcp.limits import (
    MAX_IDENTITIES,
    RATE_LIMITED,
    TOO_LARGE,
    Limits,
    TokenBuckets,
    identity_key,
)

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_allowed_then_one_request_per_refill() -> None:
    clock = Clock()
    buckets = TokenBuckets(per_minute=60, burst=3, clock=clock)
    assert [buckets.take(("a",)) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take(("a",)) == pytest.approx(1.0)
    assert buckets.take(("b",)) == 0.0  # another identity has its own bucket
    clock.now = 1.0
    assert buckets.take(("a",)) == 0.0
    assert buckets.take(("a",)) > 0.0


def test_the_table_of_identities_stays_bounded() -> None:
    clock = Clock()
    buckets = TokenBuckets(per_minute=60, burst=1, clock=clock)
    for i in range(MAX_IDENTITIES + 50):
        buckets.take((str(i),))
    assert len(buckets._buckets) <= MAX_IDENTITIES


def test_identities_are_the_token_principal_else_the_peer() -> None:
    token = AccessToken(token="t", client_id="c", scopes=[], subject="s", claims={"iss": "https://i/"})
    assert identity_key({"user": AuthenticatedUser(token)}) == ("token", "https://i/", "s", "c")
    assert identity_key({"client": ("127.0.0.1", 5000)}) == ("address", "127.0.0.1")


async def _answer(limits: Limits, headers: list[tuple[bytes, bytes]]) -> tuple[int, dict[str, str], Any]:
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    limits.app = app
    scope = {"type": "http", "headers": headers, "client": ("127.0.0.1", 1)}
    await limits(scope, receive, send)
    start, body = sent
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, json.loads(body["body"])


async def test_over_the_rate_a_request_gets_429_with_retry_after_and_a_jsonrpc_error() -> None:
    limits = Limits(None, TokenBuckets(per_minute=30, burst=1), max_body=100)  # type: ignore[arg-type]
    assert (await _answer(limits, []))[0] == 200
    status, headers, body = await _answer(limits, [])
    assert status == 429
    assert headers["retry-after"] == "2"
    assert body["error"]["code"] == RATE_LIMITED
    assert body["error"]["message"] == ("rate limit: at most 30 requests a minute per identity; retry in 2 s")


async def test_a_body_declared_over_the_limit_gets_413_naming_the_limit() -> None:
    limits = Limits(None, TokenBuckets(per_minute=60, burst=5), max_body=100)  # type: ignore[arg-type]
    status, _, body = await _answer(limits, [(b"content-length", b"101")])
    assert status == 413
    assert body == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": TOO_LARGE, "message": "request body too large: 101 bytes, at most 100"},
    }
    assert (await _answer(limits, [(b"content-length", b"100")]))[0] == 200


async def _chunked(limits: Limits, chunks: list[bytes]) -> tuple[int, bytes]:
    """A chunked body (no content-length) through ``limits``: the status and the body
    answered, or what the app read of the body."""
    sent: list[dict[str, Any]] = []
    parts = iter(chunks)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        read = b""
        while True:
            message = await receive()
            read += message.get("body", b"")
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": read})

    async def receive() -> dict[str, Any]:
        part = next(parts, None)
        if part is None:
            return {"type": "http.disconnect"}
        return {"type": "http.request", "body": part, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    limits.app = app
    headers = [(b"transfer-encoding", b"chunked")]
    scope = {"type": "http", "method": "POST", "headers": headers, "client": ("127.0.0.1", 1)}
    await limits(scope, receive, send)
    start, body = sent
    return start["status"], body["body"]


async def test_a_chunked_body_over_the_limit_gets_the_same_413_and_one_within_reaches_the_app() -> None:
    limits = Limits(None, TokenBuckets(per_minute=60, burst=5), max_body=100)  # type: ignore[arg-type]
    status, body = await _chunked(limits, [b"x" * 60, b"y" * 41])
    assert status == 413
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": TOO_LARGE, "message": "request body too large: over 100 bytes, at most 100"},
    }
    assert await _chunked(limits, [b"x" * 60, b"y" * 40, b""]) == (200, b"x" * 60 + b"y" * 40)

"""Team mode's limits, in front of every HTTP route: the request body's size, and a rate
per identity (a token bucket each).

An identity is the bearer token's issuer, subject and client where the SDK authenticated
one, else the peer address (no authorization: loopback only; the socket's own address,
never a forwarded one). With authorization a request without a valid token counts against
no one: the route answers it ``401`` (or it asks for the public metadata), and behind a
proxy every such request comes from one address, so a bucket of its own would let anyone
lock everyone out of sign-in; throttle anonymous traffic at the proxy. A body declared over the
limit gets ``413``; over the rate, ``429`` with ``Retry-After``; both with a JSON-RPC error
body saying what to do, so HTTP and MCP clients alike see why. (A chunked body that grows
past the limit is cut by the SDK's own check, set to the same size.) The table of buckets
is bounded: idle identities are forgotten first.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

RATE_LIMITED = -32029
"""The JSON-RPC error code of a request over the rate limit (server-defined range)."""

TOO_LARGE = -32028
"""The JSON-RPC error code of a request body over the size limit."""

MAX_IDENTITIES = 10_000


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


class TokenBuckets:
    """``per_minute`` requests a minute per key, in bursts of up to ``burst``."""

    def __init__(self, per_minute: int, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._clock = clock
        self._buckets: dict[tuple[str, ...], _Bucket] = {}

    def take(self, key: tuple[str, ...]) -> float:
        """Take one request for ``key``: ``0.0`` if allowed, else the seconds until one is."""
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_IDENTITIES:
                self._forget_idle(now)
            bucket = self._buckets[key] = _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate

    def _forget_idle(self, now: float) -> None:
        refill = self.burst / self.rate
        idle = [key for key, b in self._buckets.items() if now - b.at >= refill]
        for key in idle or list(self._buckets)[: len(self._buckets) // 2]:
            del self._buckets[key]


def identity_key(scope: Scope) -> tuple[str, ...]:
    """Whom a request counts against: the token's principal, else the peer address."""
    user = scope.get("user")
    if isinstance(user, AuthenticatedUser):
        token = user.access_token
        issuer = str((token.claims or {}).get("iss", ""))
        return ("token", issuer, token.subject or "", token.client_id)
    client = scope.get("client")
    return ("address", str(client[0]) if client else "")


class Limits:
    """ASGI middleware: ``413`` for a body declared over ``max_body`` bytes, ``429`` once an
    identity's bucket is empty, then ``413`` for a chunked body that grows past
    ``max_body`` (read here, at most that much, and handed on whole); anything else goes
    on to ``app``. Each refusal is a JSON-RPC error body saying what to do."""

    def __init__(self, app: ASGIApp, buckets: TokenBuckets, max_body: int, authorized: bool = False) -> None:
        self.app = app
        self.buckets = buckets
        self.max_body = max_body
        self.authorized = authorized

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
            message = f"request body too large: {int(declared)} bytes, at most {self.max_body}"
            await refuse(send, 413, TOO_LARGE, message)
            return
        key = identity_key(scope)
        wait = 0.0 if self.authorized and key[0] == "address" else self.buckets.take(key)
        if wait > 0.0:
            seconds = max(1, math.ceil(wait))
            message = (
                f"rate limit: at most {round(self.buckets.rate * 60)} requests a minute per "
                f"identity; retry in {seconds} s"
            )
            await refuse(send, 429, RATE_LIMITED, message, [(b"retry-after", str(seconds).encode())])
            return
        if declared is None and "chunked" in Headers(scope=scope).get("transfer-encoding", "").lower():
            body = await read_within(receive, self.max_body)
            if body is None:
                await refuse_too_large(send, self.max_body)
                return
            receive = replay_body(body, receive)
        await self.app(scope, receive, send)


async def refuse_too_large(send: Send, max_body: int) -> None:
    """413 for a body that grew past ``max_body`` bytes as it was read."""
    await refuse(send, 413, TOO_LARGE, f"request body too large: over {max_body} bytes, at most {max_body}")


async def read_within(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or ``None`` as soon as it passes ``limit`` bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away: the app meets it on its next receive
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(parts)


def replay_body(body: bytes, receive: Receive) -> Receive:
    """``receive`` with ``body`` given first, whole."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def refuse(
    send: Send, status: int, code: int, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

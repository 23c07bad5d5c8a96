"""Who a request is from (mcp/caller.py): none outside a request, and each concurrent
request sees only its own identity, so one token's ceiling never applies to another's call."""

from __future__ import annotations

import anyio
import pytest

from ledger_context.mcp.caller import IDENTITY, Identity

pytestmark = pytest.mark.anyio


async def test_concurrent_requests_each_see_only_their_own_identity() -> None:
    seen: dict[str, str | None] = {}

    async def request(subject: str, ceiling: str | None, wait: float) -> None:
        IDENTITY.set(Identity(subject, "client", ceiling))
        await anyio.sleep(wait)  # the other request sets its identity meanwhile
        identity = IDENTITY.get()
        assert identity is not None
        seen[subject] = identity.ceiling

    assert IDENTITY.get() is None
    async with anyio.create_task_group() as group:
        group.start_soon(request, "alice", "confidential", 0.05)
        group.start_soon(request, "bob", "public", 0.0)
    assert seen == {"alice": "confidential", "bob": "public"}
    assert IDENTITY.get() is None  # nothing leaks out of a request

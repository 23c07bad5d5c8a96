"""End to end over real stdio: the server as a subprocess, driven by the SDK client. The
channel's own rules (every line answered, clean exits) are in test_stdio_channel.py; each
tool, resource and error over stdio is in the test file of its module."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from conftest import FIXTURES, server, text_of
from ledger_context import build_context

pytestmark = pytest.mark.anyio
DEMO = FIXTURES / "demo"


async def test_fifty_concurrent_calls_give_fifty_identical_packs() -> None:
    async with Client(server("--space", str(DEMO)), mode="legacy") as client:
        packs: list[str] = []

        async def call() -> None:
            packs.append(text_of(await client.call_tool("get_context", {})))

        async with anyio.create_task_group() as group:
            for _ in range(50):
                group.start_soon(call)
    assert len(packs) == 50
    assert set(packs) == {build_context(DEMO).pack}

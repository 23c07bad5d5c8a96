"""The server as create_server and serve put it together (mcp_server.py): its instructions
and its stdio entry point. Each tool, resource, error and record has its own test file."""

from __future__ import annotations

import sys

import pytest
from mcp import Client, StdioServerParameters

from conftest import FIXTURES, text_of
from ledger_context.mcp.server import create_server
from ledger_context.model.kinds import pack_contents
from ledger_context.pack.settings import make_settings

pytestmark = pytest.mark.anyio
DEMO = FIXTURES / "demo"
DECISION = ".ledger/decisions/0005-tool-calling-router.md"


async def test_read_document_over_stdio_returns_the_file() -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_context", "serve", "--space", str(DEMO)]
    )
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("read_document", {"path": DECISION})
        assert "read_document" in (client.instructions or "")
    assert text_of(result).encode("utf-8") == (DEMO / DECISION).read_bytes()


# Regression: a bug found by trying to break the product.
@pytest.mark.anyio
async def test_instructions_state_the_cap_in_force_and_bad_details_are_not_echoed_whole() -> None:
    async with Client(create_server(FIXTURES / "demo", make_settings(1000)), mode="legacy") as client:
        assert "capped at 1000 tokens" in (client.instructions or "")
        result = await client.call_tool("get_context", {"detail": "x" * 100_000})
        assert result.is_error and len(result.content[0].text) < 200  # type: ignore[union-attr]


async def test_every_description_of_the_pack_states_the_kind_table() -> None:
    contents = pack_contents()
    async with Client(create_server(DEMO), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        prompt = await client.get_prompt("start-task", {"task": "t"})
        assert f"— {contents}, as title lines" in (client.instructions or "")
    assert f"bytes): {contents} (title lines" in (tools["get_context"].description or "")
    assert f"experiment ledger: {contents}. Follow" in prompt.messages[0].content.text  # type: ignore[union-attr]

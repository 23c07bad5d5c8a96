"""A tool is one registration (mcp/registry.py): a body registered with the registry gets
its schema from its own signature, its answer recorded in the audit log and its errors
turned into tool errors, without calling either itself."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Annotated

import pytest
from mcp import Client
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from conftest import FIXTURES, text_of
from ledger_context.mcp.registry import Answer, ToolRegistry
from ledger_context.mcp.server import LedgerServer, create_server
from ledger_context.model.errors import InvalidArgumentError
from ledger_context.proof import audit
from ledger_context.proof.audit import AuditLog

DEMO = FIXTURES / "demo"


class Echo(BaseModel):
    word: str


def _server_with_echo(log: AuditLog | None) -> LedgerServer:
    """The demo server with one more tool, ``echo``, registered as any new tool would be."""
    server = create_server(DEMO, audit=log)
    tools = ToolRegistry(server, server.recorder)

    @tools.tool(name="echo", title="Echo", description="Says the word back.", output=Echo)
    async def echo(ctx: Context, word: Annotated[str, Field(description="A word")]) -> Answer:
        if word == "refuse":
            raise InvalidArgumentError("invalid word: say anything but 'refuse'")
        if word == "crash":
            raise KeyError(word)
        build = server.ledgers.build(server.ledgers.space(None))
        result = CallToolResult(
            content=[TextContent(type="text", text=word)], structured_content={"word": word}
        )
        return Answer(result, build, {"word": word})

    return server


@pytest.mark.anyio
async def test_a_registered_body_is_answered_recorded_and_its_errors_mapped(
    tmp_path: Path, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    log = AuditLog(tmp_path / "audit.sqlite3")
    async with Client(_server_with_echo(log), mode=mode) as client:  # type: ignore[arg-type]
        tool = {t.name: t for t in (await client.list_tools()).tools}["echo"]
        answered = await client.call_tool("echo", {"word": "hello"})
        refused = await client.call_tool("echo", {"word": "refuse"})
        with caplog.at_level(logging.ERROR, logger="ledger_context"):
            crashed = await client.call_tool("echo", {"word": "crash"})
    assert tool.input_schema == {  # no ctx, no roots; shaped like every tool's (catalogue.py)
        "properties": {"word": {"description": "A word", "type": "string"}},
        "required": ["word"],
        "type": "object",
    }
    assert tool.output_schema == {
        "properties": {"word": {"type": "string"}},
        "required": ["word"],
        "type": "object",
    }
    assert tool.annotations is not None and tool.annotations.read_only_hint is True
    assert (answered.is_error, text_of(answered), answered.structured_content) == (
        False,
        "hello",
        {"word": "hello"},
    )
    assert (refused.is_error, text_of(refused)) == (True, "invalid word: say anything but 'refuse'")
    assert (crashed.is_error, text_of(crashed)) == (
        True,
        "echo failed (KeyError); the server log has the details",
    )
    assert [r.getMessage() for r in caplog.records] == ["echo failed"]
    assert log.flush()
    log.close()
    rows = audit.list_calls(tmp_path / "audit.sqlite3")
    hello = hashlib.sha256(b"hello").hexdigest()
    assert [(r.call, r.arguments, r.refused) for r in rows] == [  # refusals too, with their reason
        # an answer's row holds the digest of its text: "hello", 5 bytes
        ("echo", json.dumps({"answer": {"bytes": 5, "sha256": hello}, "word": "hello"}), None),
        ("echo", '{"word": "refuse"}', "invalid word: say anything but 'refuse'"),
        ("echo", '{"word": "crash"}', "echo failed (KeyError); the server log has the details"),
    ]
    assert rows[0].client_name == "mcp"
    assert rows[0].protocol == ("2025-11-25" if mode == "legacy" else "2026-07-28")


def test_a_body_without_a_context_parameter_is_refused_at_registration() -> None:
    server = create_server(DEMO)
    tools = ToolRegistry(server, server.recorder)

    async def blind(word: str) -> Answer:
        raise AssertionError("never called")

    with pytest.raises(TypeError, match="tool blind: the body needs a parameter annotated Context"):
        tools.tool(name="blind", title="Blind", description="-")(blind)

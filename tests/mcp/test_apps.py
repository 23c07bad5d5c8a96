"""Issue 15: explain_budget's MCP Apps view, its `path` argument and its bounded brief over MCP."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from conftest import FIXTURES
from ledger_context.explain.page import budget_view
from ledger_context.explain.readout import MAX_BRIEF_TEXT_BYTES
from ledger_context.mcp.apps import VIEW_URI
from ledger_context.mcp.server import create_server

pytestmark = pytest.mark.anyio


async def test_explain_budget_points_at_its_view_and_the_view_is_served() -> None:
    async with Client(create_server(FIXTURES / "demo"), mode="legacy") as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "explain_budget")
        assert (tool.meta or {})["ui"] == {"resourceUri": VIEW_URI}
        assert "large" in (tool.description or "")
        read = await client.read_resource(VIEW_URI)
        content = read.contents[0]
        assert content.mime_type == "text/html;profile=mcp-app"
        assert content.text == budget_view()  # type: ignore[union-attr]
    # The extension is advertised where the protocol has extension capabilities (2026-07-28).
    async with Client(create_server(FIXTURES / "demo"), mode="auto") as client:
        caps = client.server_capabilities
        assert caps is not None and (caps.extensions or {}) == {"io.modelcontextprotocol/ui": {}}


async def test_explain_budget_answers_for_one_path_and_refuses_a_bad_one() -> None:
    async with Client(create_server(FIXTURES / "overflow"), mode="legacy") as client:
        path = ".ledger/decisions/0006-route-address-changes.md"
        result = await client.call_tool("explain_budget", {"path": path})
        assert result.is_error is False
        data = result.structured_content or {}
        assert (data["detail"], data["path"], data["outcome"], data["kept_bytes"]) == (
            "path",
            path,
            "dropped",
            0,
        )
        assert len(result.content[0].text.encode()) < 1024  # type: ignore[union-attr]
        for bad in ("", 7, ["x"]):
            result = await client.call_tool("explain_budget", {"path": bad})
            assert result.is_error is True
            assert result.content[0].text.startswith("invalid path")  # type: ignore[union-attr]


async def test_the_default_brief_is_bounded_and_the_full_result_is_complete() -> None:
    async with Client(create_server(FIXTURES / "overflow"), mode="legacy") as client:
        brief = await client.call_tool("explain_budget", {})
        full = await client.call_tool("explain_budget", {"detail": "full"})
    structured = json.dumps(brief.structured_content, separators=(",", ":"), ensure_ascii=False)
    assert len(brief.content[0].text.encode()) <= MAX_BRIEF_TEXT_BYTES  # type: ignore[union-attr]
    assert len(structured.encode()) <= 4096
    assert (brief.structured_content or {})["detail"] == "brief"
    assert len((full.structured_content or {})["blocks"]) == 77

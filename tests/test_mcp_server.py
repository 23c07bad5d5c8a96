"""The read_document tool, driven by the SDK client in both protocol generations."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import ListRootsResult, Root

from conftest import FIXTURES, write_ledger
from ledger_context.mcp_server import PAGE_KEY, create_server

pytestmark = pytest.mark.anyio
DEMO = FIXTURES / "demo"
DECISION = ".ledger/decisions/0005-tool-calling-router.md"
WITHHELD = ".ledger/decisions/0004-redact-pii-before-model.md"  # data_class: restricted


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def only_text(result: Any) -> str:
    assert len(result.content) == 1
    text: str = result.content[0].text
    return text


async def test_an_accepted_document_comes_back_exactly(mode: str) -> None:
    async with Client(create_server(DEMO), mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("read_document", {"path": DECISION})
        by_uri = await client.call_tool("read_document", {"path": "ledger://document/" + DECISION})
    assert result.is_error is False
    assert result.structured_content is None
    assert only_text(result).encode("utf-8") == (DEMO / DECISION).read_bytes()
    size = len((DEMO / DECISION).read_bytes())
    assert (result.meta or {})[PAGE_KEY] == {
        "offset": 0,
        "next_offset": None,
        "bytes": size,
        "total_bytes": size,
    }
    assert only_text(by_uri) == only_text(result)


async def test_the_tool_is_plain_text_read_only_idempotent_and_closed_world() -> None:
    async with Client(create_server(DEMO), mode="legacy") as client:
        tool = {t.name: t for t in (await client.list_tools()).tools}["read_document"]
    assert tool.output_schema is None
    assert tool.annotations is not None
    assert (tool.annotations.read_only_hint, tool.annotations.idempotent_hint) == (True, True)
    assert tool.annotations.open_world_hint is False
    assert tool.input_schema["required"] == ["path"]
    assert tool.input_schema["properties"]["offset"]["default"] == 0
    assert tool.input_schema["properties"]["offset"]["minimum"] == 0


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../README.md", "'../README.md' is not a ledger document path"),
        (".ledger/../../etc/passwd", "is not a ledger document path"),
        ("/etc/passwd", "'/etc/passwd' is not a ledger document path"),
        (".ledger/decisions/0099-nope.md", "no ledger document at '.ledger/decisions/0099-nope.md'"),
        ("README.md", "no ledger document at 'README.md'"),
        (WITHHELD, f"{WITHHELD} is withheld by the data-class ceiling internal"),
    ],
)
async def test_traversal_unknown_and_withheld_paths_are_errors(mode: str, path: str, message: str) -> None:
    async with Client(create_server(DEMO, max_data_class="internal"), mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("read_document", {"path": path})
    assert result.is_error is True
    assert message in only_text(result)
    if "withheld" not in message:  # every refusal names a path that works
        example = only_text(result).rsplit("e.g. ", 1)[1]
        async with Client(create_server(DEMO, max_data_class="internal"), mode="legacy") as client:
            assert (await client.call_tool("read_document", {"path": example})).is_error is False


async def test_the_resource_refuses_the_same_paths() -> None:
    from mcp.shared.exceptions import MCPError

    async with Client(create_server(DEMO, max_data_class="internal"), mode="legacy") as client:
        with pytest.raises(MCPError, match="withheld by the data-class ceiling internal"):
            await client.read_resource("ledger://document/" + WITHHELD)


async def test_a_long_multibyte_document_comes_in_pages_that_join_exactly(tmp_path: Path, mode: str) -> None:
    body = "".join(f"Zeile {i}: Größe é€😀 naïve\n" for i in range(4_000))  # ~130 KB, 1-4 byte characters
    text = f"---\ntitle: Long\nstatus: accepted\nupdated_at: 2026-01-01\n---\n{body}"
    space = write_ledger(tmp_path / "space", {"decisions/0001-long.md": text})
    pages: list[bytes] = []
    offset = 0
    async with Client(create_server(space), mode=mode) as client:  # type: ignore[arg-type]
        while True:
            result = await client.call_tool(
                "read_document", {"path": ".ledger/decisions/0001-long.md", "offset": offset}
            )
            assert result.is_error is False
            page_text = only_text(result).encode("utf-8")
            assert len(page_text) <= 40_000
            meta = (result.meta or {})[PAGE_KEY]
            assert (meta["offset"], meta["total_bytes"]) == (offset, len(text.encode()))
            pages.append(page_text[: meta["bytes"]])
            if meta["next_offset"] is None:
                assert len(page_text) == meta["bytes"]  # the last page is only text
                break
            last_line = page_text.decode().rsplit("\n", 1)[1]
            assert last_line == (
                f"[read_document: this page ends at byte {meta['next_offset']} of {meta['total_bytes']}; "
                f"to continue, call read_document with path '.ledger/decisions/0001-long.md' and offset {meta['next_offset']}]"
            )
            offset = meta["next_offset"]
        inside = text.encode("utf-8").index("é".encode()) + 1  # the middle of a character
        bad = await client.call_tool(
            "read_document", {"path": ".ledger/decisions/0001-long.md", "offset": inside}
        )
    assert len(pages) == 4
    assert b"".join(pages) == text.encode("utf-8")
    assert bad.is_error is True
    assert f"offset {inside} is not the start of a page" in only_text(bad)


async def test_read_document_over_stdio_returns_the_file() -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_context", "serve", "--space", str(DEMO)]
    )
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("read_document", {"path": DECISION})
        assert "read_document" in (client.instructions or "")
    assert only_text(result).encode("utf-8") == (DEMO / DECISION).read_bytes()


# Regression: a bug found by trying to break the product.
@pytest.mark.anyio
async def test_resources_and_prompt_follow_the_space_the_roots_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = write_ledger(tmp_path / "cwd", {"agents.md": "the working directory's ledger\n"})
    chosen = write_ledger(tmp_path / "root", {"agents.md": "the root's ledger\n"})
    monkeypatch.chdir(here)

    async def roots(_: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=chosen.as_uri(), name="project")])  # type: ignore[arg-type]

    async with Client(create_server(), mode="legacy", list_roots_callback=roots) as client:
        assert (await client.call_tool("get_context", {})).content[0].text == "the root's ledger\n"  # type: ignore[union-attr]
        pack = await client.read_resource("ledger://pack")
        assert pack.contents[0].text == "the root's ledger\n"  # type: ignore[union-attr]
        prompt = await client.get_prompt("start-task", {"task": "go\ud800"})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "the root's ledger" in text and text.startswith("Task: go\ufffd\n")


# Regression: a bug found by trying to break the product.
@pytest.mark.anyio
async def test_instructions_state_the_cap_in_force_and_bad_details_are_not_echoed_whole() -> None:
    async with Client(create_server(FIXTURES / "demo", cap_tokens=1000), mode="legacy") as client:
        assert "capped at 1000 tokens" in (client.instructions or "")
        result = await client.call_tool("get_context", {"detail": "x" * 100_000})
        assert result.is_error and len(result.content[0].text) < 200  # type: ignore[union-attr]

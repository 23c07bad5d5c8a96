"""The server as create_server and serve put it together (mcp_server.py): its instructions
and its stdio entry point. Each tool, resource, error and record has its own test file."""

from __future__ import annotations

import sys

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from conftest import FIXTURES, RawServer, text_of
from ledger_context.mcp.protocol_errors import READ_NEEDS_URI
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
        assert contents not in (client.instructions or "")  # said once, where get_context is
    assert f"context pack ({contents}), at most" in (tools["get_context"].description or "")
    assert f"experiment ledger: {contents}. Follow" in prompt.messages[0].content.text  # type: ignore[union-attr]


# Issue 23: the SDK's own messages, rewritten in the project's words.
@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (
            "read_document",
            {"path": DECISION, "offset": -1},
            'invalid offset -1 for read_document: allowed values: a whole number from 0, e.g. "offset": 0',
        ),
        (
            "read_document",
            {"path": 5},
            'invalid path 5 for read_document: allowed values: a string, e.g. "path": '
            '".ledger/decisions/0007-use-jwt.md"',
        ),
        (
            "read_document",
            {},
            'read_document needs the argument path (a string), e.g. "path": ".ledger/decisions/0007-use-jwt.md"',
        ),
        *(  # coerced by pydantic's lax mode before (found by breaking the product)
            (
                "read_document",
                {"path": DECISION, "offset": offset},
                f"invalid offset {shown} for read_document: allowed values: a whole number from 0, "
                'e.g. "offset": 0',
            )
            for offset, shown in ((True, "true"), ("40", '"40"'), (1.0, "1.0"))
        ),
        (
            "read_document",
            {"path": DECISION, "offset": "x" * 100},
            'invalid offset "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... for read_document: allowed values: '
            'a whole number from 0, e.g. "offset": 0',
        ),
    ],
)
async def test_refused_arguments_name_the_argument_the_allowed_values_and_an_example(
    tool: str, arguments: dict[str, object], message: str
) -> None:
    async with Client(create_server(DEMO), mode="legacy") as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error is True
    assert text_of(result) == message


async def test_an_unknown_tool_is_a_protocol_error_naming_the_tools() -> None:
    # Names the tools the server lists, sorted; which tools those are is test_tools.py's.
    async with Client(create_server(DEMO), mode="legacy") as client:
        listed = sorted(tool.name for tool in (await client.list_tools()).tools)
        with pytest.raises(MCPError) as raised:
            await client.call_tool("get_contex", {})
    assert raised.value.error.code == -32602
    assert "get_context" in listed and len(listed) > 1
    assert raised.value.error.message == f"unknown tool 'get_contex': the tools are {', '.join(listed)}"


def test_a_read_without_a_uri_says_what_to_send() -> None:
    server = RawServer("--space", str(DEMO))
    server.initialize()
    for params in ({}, None, {"uri": 5}):
        assert server.request("resources/read", params)["error"] == {
            "code": -32602,
            "message": READ_NEEDS_URI,
        }
    assert "ledger://pack" in READ_NEEDS_URI and "ledger://document/<path>" in READ_NEEDS_URI
    code, _ = server.close()
    assert code == 0


def test_initialize_is_answered_before_a_large_ledger_is_read(tmp_path) -> None:
    # Issue 26 item 5: the first build runs in the background (the change notifier's first
    # check), so initialize never waits for it; get_context then waits for what is left.
    import json
    import subprocess
    import time

    from conftest import doc, write_ledger
    from ledger_context import build_context

    files = {f"experiments/e{i:05d}.md": doc(updated_at=f"2026-01-{1 + i % 28:02d}") for i in range(20_000)}
    space = write_ledger(tmp_path / "space", files)
    started = time.perf_counter()
    pack = build_context(space).pack
    cold = time.perf_counter() - started
    process = subprocess.Popen(
        [sys.executable, "-m", "ledger_context", "serve", "--no-index", "--no-audit", "--space", str(space)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    try:
        while b"serving over stdio" not in process.stderr.readline():  # just before stdin is read
            pass
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        sent = time.perf_counter()
        process.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}).encode()
        )
        process.stdin.write(b"\n")
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        initialized = time.perf_counter() - sent
        assert answer["id"] == 0 and "result" in answer
        call = {"name": "get_context", "arguments": {}}
        lines = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
        lines.append({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
        process.stdin.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        process.stdin.flush()
        while (message := json.loads(process.stdout.readline())).get("id") != 1:
            pass
        assert message["result"]["content"][0]["text"] == pack
    finally:
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            stream.close()
    # Generous: answering after the build would take at least the whole cold build.
    assert initialized < max(cold / 2, 0.2), f"initialize took {initialized:.2f} s, a cold build {cold:.2f} s"

"""Core errors become MCP errors in one place (mcp_errors.py): a JSON-RPC error with the
code of the error's class for resources and the prompt, an error result for tools; the
message is the core's own, and the server keeps answering."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from conftest import FIXTURES, RawServer, modern_request, write_ledger
from ledger_context.mcp.error_map import mcp_error, tool_error
from ledger_context.model.errors import (
    AuditError,
    DocumentNotFoundError,
    DocumentWithheldError,
    InvalidArgumentError,
    LedgerContextError,
    SpaceNotFoundError,
)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InvalidArgumentError, -32602),
        (DocumentNotFoundError, -32602),
        (DocumentWithheldError, -32602),
        (SpaceNotFoundError, -32603),
        (AuditError, -32603),
    ],
)
def test_a_core_error_becomes_the_json_rpc_error_of_its_class(
    error: type[LedgerContextError], code: int
) -> None:
    mapped = mcp_error(error("what to do next"))
    assert (mapped.code, mapped.message) == (code, "what to do next")


def test_a_new_core_error_takes_the_code_of_its_nearest_mapped_class() -> None:
    class Gone(DocumentNotFoundError):
        pass

    class Other(LedgerContextError):
        pass

    assert mcp_error(Gone("gone")).code == -32602
    assert mcp_error(Other("other")).code == -32603


def test_a_tool_error_carries_the_core_message_and_names_any_other_fault(
    caplog: pytest.LogCaptureFixture,
) -> None:
    core = tool_error(SpaceNotFoundError("No .ledger directory found in /x"))
    assert core.is_error is True
    assert [c.text for c in core.content] == ["No .ledger directory found in /x"]  # type: ignore[union-attr]
    with caplog.at_level(logging.ERROR, logger="ledger_context"):
        fault = tool_error(KeyError("k"), doing="reading the document")
    assert fault.is_error is True
    assert [c.text for c in fault.content] == [  # type: ignore[union-attr]
        "reading the document failed (KeyError); the server log has the details"
    ]
    assert [r.getMessage() for r in caplog.records] == ["reading the document failed"]


def test_error_codes_follow_the_spec_and_code_zero_is_never_used() -> None:
    space = FIXTURES / "demo"
    withheld = "ledger://document/.ledger/decisions/0004-redact-pii-before-model.md"
    cases: list[tuple[str, dict[str, Any] | None, int, str]] = [
        (
            "resources/read",
            {"uri": "ledger://document/.ledger/decisions/nope.md"},
            -32602,
            "unknown document",
        ),
        ("resources/read", {"uri": withheld}, -32602, "withheld document"),
        (
            "resources/read",
            {"uri": "ledger://nothing"},
            -32602,
            "unknown resource (the resources are ledger://pack",
        ),
        ("resources/read", {}, -32602, "resources/read needs params.uri, the URI of a resource"),
        ("tools/call", {"name": "nope"}, -32602, "unknown tool 'nope': the tools are explain_budget,"),
        ("prompts/get", {"name": "start-task"}, -32602, "'task'"),
        ("prompts/get", {"name": "start-task", "arguments": {}}, -32602, "'task'"),
        ("prompts/get", {"name": "nope"}, -32602, "unknown prompt 'nope'"),
        ("prompts/get", {}, -32602, "invalid params of prompts/get: params.name: Field required"),
        ("tools/call", {}, -32602, "invalid params of tools/call: params.name: Field required"),
        ("no/such/method", {}, -32601, ""),
    ]
    for modern in (False, True):
        server = RawServer("--space", str(space), "--max-data-class", "internal")
        if not modern:
            server.initialize()
        for method, params, code, text in cases:
            response = modern_request(server, method, params) if modern else server.request(method, params)
            assert response["error"]["code"] == code, (modern, method, params, response)
            assert text in response["error"]["message"]
        exit_code, err = server.close()
        assert exit_code == 0
        assert b"Traceback" not in err, err.decode()[-2000:]
        assert all(json.loads(line).get("error", {}).get("code") != 0 for line in server.stdout)


# Regression: a bug found by trying to break the product.
@pytest.mark.anyio
async def test_the_server_keeps_answering_when_the_space_path_is_not_utf8(tmp_path: Path) -> None:
    missing = os.fsdecode(os.fsencode(tmp_path) + b"/gone\xe9")
    write_ledger(Path(missing), {"agents.md": "hi\n"})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_context", "serve", "--space", missing]
    )
    async with Client(params, mode="legacy") as client:
        shutil.rmtree(missing)  # gone after the start: every call says so, cleanly
        result = await client.call_tool("get_context", {})
        assert result.is_error and "gone\\xe9" in result.content[0].text  # type: ignore[union-attr]
        assert (await client.call_tool("explain_budget", {})).is_error
        assert (await client.list_tools()).tools  # still answering

"""The resources ledger://pack and ledger://document/{+path}, and the prompt start-task
(mcp_resources.py): what they list and serve, and what they refuse."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from conftest import FIXTURES, server, text_of
from ledger_context import build_context
from ledger_context.mcp.server import create_server
from ledger_context.pack.settings import make_settings

pytestmark = pytest.mark.anyio
DEMO = FIXTURES / "demo"
WITHHELD = ".ledger/decisions/0004-redact-pii-before-model.md"  # data_class: restricted


async def test_resources_pack_and_documents(mode: str) -> None:
    async with Client(server("--space", str(DEMO), "--max-data-class", "internal"), mode=mode) as client:  # type: ignore[arg-type]
        listed = [str(r.uri) for r in (await client.list_resources()).resources]
        assert "ui://ledger-context/explain-budget.html" in listed  # the MCP Apps view
        listed = [uri for uri in listed if not uri.startswith("ui://")]
        assert listed[0] == "ledger://pack"
        assert "ledger://document/.ledger/agents.md" in listed
        assert len(listed) == 1 + len(build_context(DEMO, max_data_class="internal").sources())
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        assert templates == ["ledger://document/{+path}"]

        pack = await client.read_resource("ledger://pack")
        assert pack.contents[0].text == build_context(DEMO, max_data_class="internal").pack  # type: ignore[union-attr]
        path = ".ledger/decisions/0007-use-jwt.md"
        document = await client.read_resource(f"ledger://document/{path}")
        assert document.contents[0].text == (DEMO / path).read_text(encoding="utf-8")  # type: ignore[union-attr]

        bad = [
            "ledger://document/.ledger/decisions/nope.md",
            "ledger://document/.ledger/../../etc/passwd",
            "ledger://document/%2Fetc%2Fpasswd",
            "ledger://document/.ledger/decisions/0004-redact-pii-before-model.md",  # restricted: withheld
            "ledger://nothing",
        ]
        for uri in bad:
            with pytest.raises(MCPError):
                await client.read_resource(uri)
        assert (await client.call_tool("get_context", {})).is_error is False


async def test_start_task_prompt_hands_over_the_pack(mode: str) -> None:
    async with Client(server("--space", str(DEMO)), mode=mode) as client:  # type: ignore[arg-type]
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        assert prompts == ["start-task"]
        result = await client.get_prompt("start-task", {"task": "Add a retry eval"})
        text = result.messages[0].content.text  # type: ignore[union-attr]
        assert text.startswith("Task: Add a retry eval\n")
        assert build_context(DEMO).pack in text


async def test_the_resource_refuses_the_same_paths() -> None:
    from mcp.shared.exceptions import MCPError

    async with Client(create_server(DEMO, make_settings(max_data_class="internal")), mode="legacy") as client:
        with pytest.raises(MCPError, match="withheld by the data-class ceiling internal"):
            await client.read_resource("ledger://document/" + WITHHELD)


async def test_the_prompt_names_its_one_argument_when_given_another() -> None:
    # Found by trying to break the product: an extra argument failed inside the prompt
    # (-32603, "the server log has the details").
    async with Client(create_server(DEMO), mode="legacy") as client:
        for arguments in ({"task": "x", "other": "y"}, {"Task": "x", "task": "x"}):
            with pytest.raises(MCPError) as refused:
                await client.get_prompt("start-task", arguments)
            assert refused.value.error.code == -32602
            name = "other" if "other" in arguments else "Task"
            assert (
                refused.value.error.message
                == f"prompt start-task has no argument {name!r}: its arguments are 'task'"
            )


async def test_the_prompt_keeps_its_pack_and_says_why_when_a_document_changed_since_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by trying to break the product: a document rewritten during the call failed
    # with -32603 and "the server log has the details". The pack still stands (what the
    # build read and classified); only the hits, read again, cannot be given this time.
    from conftest import write_ledger
    from ledger_context.mcp import resources

    path = tmp_path / "space/.ledger/decisions/0001-a.md"
    write_ledger(tmp_path / "space", {"decisions/0001-a.md": "---\nstatus: accepted\n---\n# Retry budget\n"})
    real = resources.task_search

    rewrites: list[int] = []

    def rewritten_first(*args: object) -> object:  # the file changes after each build read it
        rewrites.append(1)
        path.write_text(f"---\nstatus: proposed\n---\n# Retry budget {len(rewrites)}\n", encoding="utf-8")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(resources, "task_search", rewritten_first)
    async with Client(create_server(tmp_path / "space"), mode="legacy") as client:
        prompt = await client.get_prompt("start-task", {"task": "retry budget"})
        pack = text_of(await client.call_tool("get_context", {}))
    text = prompt.messages[0].content.text  # type: ignore[union-attr]
    assert "<context-pack>\n" in text and "<search-hits>" not in text
    assert text.endswith(
        "</context-pack>\n\n(no search hits this time: .ledger/decisions/0001-a.md changed since "
        "the pack was built; call again)"
    )
    assert len(rewrites) == 2  # searched again once, on a fresh build, which changed again
    assert "status: accepted" not in text and "status: accepted" not in pack  # the fresh build's pack


async def test_a_document_read_by_a_dotted_path_is_recorded_as_that_document(tmp_path: Path) -> None:
    # The resource served "./.ledger/…" (the gate names the path as the build does) but
    # looked the path up as given for the audit row, found nothing, and recorded the
    # read as if the pack had been served: a row that proved the wrong bytes.
    from ledger_context.proof import audit
    from ledger_context.proof.audit import AuditLog

    path = ".ledger/decisions/0007-use-jwt.md"
    log = AuditLog(tmp_path / "audit.sqlite3")
    async with Client(create_server(DEMO, audit=log)) as client:
        document = await client.read_resource(f"ledger://document/./{path}")
    assert document.contents[0].text == (DEMO / path).read_text(encoding="utf-8")  # type: ignore[union-attr]
    assert log.flush()
    log.close()
    [row] = audit.list_calls(tmp_path / "audit.sqlite3")
    data = (DEMO / path).read_bytes()
    assert (row.served, row.document_sha256, row.document_bytes) == (
        path,
        hashlib.sha256(data).hexdigest(),
        len(data),
    )


async def test_every_read_is_recorded_as_the_client_asked_unknown_resources_too(tmp_path: Path) -> None:
    # A tester: a resources/read of a URI no resource matches left no row (unknown tools
    # and prompts did), and read_document recorded "./path" as the path it named, so the
    # row's arguments were not what the client sent.
    from ledger_context.proof import audit
    from ledger_context.proof.audit import AuditLog

    path = ".ledger/decisions/0007-use-jwt.md"
    log = AuditLog(tmp_path / "audit.sqlite3")
    async with Client(create_server(DEMO, audit=log)) as client:
        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("ledger://document//etc/passwd")
        read = await client.call_tool("read_document", {"path": f"././{path}"})
        assert read.is_error is False
    assert log.flush()
    log.close()
    unknown, document = audit.list_calls(tmp_path / "audit.sqlite3")
    assert (unknown.call, json.loads(unknown.arguments)) == (
        "unknown resource",
        {"uri": "ledger://document//etc/passwd"},
    )
    assert unknown.refused is not None and unknown.refused.startswith("unknown resource (")
    assert unknown.document_sha256 is None and unknown.sha256 is None
    assert json.loads(document.arguments)["path"] == f"././{path}"
    assert document.served == path

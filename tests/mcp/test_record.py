"""Every answered call goes into the audit log with the client that asked (mcp_record.py):
the exact bytes served can be shown back, and recording never fails the call it records."""

from __future__ import annotations

import hashlib
import json
import logging
import tempfile
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, ClientSession, stdio_client
from mcp.shared.exceptions import MCPError

from conftest import FIXTURES, doc, server, write_ledger
from ledger_context import build_context
from ledger_context.cli import main
from ledger_context.mcp.caller import IDENTITY, Identity
from ledger_context.mcp.record import Recorder
from ledger_context.proof import audit
from ledger_context.proof.audit import AuditLog

DEMO = FIXTURES / "demo"


def _receipt(result: Any) -> dict[str, Any]:
    receipt: dict[str, Any] = result.meta["ledger-context/receipt"]
    return receipt


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_call_is_recorded_and_show_gives_the_exact_bytes_served_over_stdio(
    tmp_path: Path, mode: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    space = write_ledger(
        tmp_path / "space", {"agents.md": "Agents: é ✓\n", "findings/f.md": doc(status="current")}
    )
    log = tmp_path / "audit.sqlite3"
    async with Client(server("--space", str(space), "--audit", str(log)), mode=mode) as client:  # type: ignore[arg-type]
        first = await client.call_tool("get_context", {})
        (space / ".ledger" / "findings" / "f.md").write_text(
            doc(status="current", title="Edited"), encoding="utf-8"
        )
        second = await client.call_tool("get_context", {"detail": "full"})
        explained = await client.call_tool("explain_budget", {})
        resource = await client.read_resource("ledger://pack")
        if mode == "legacy":
            prompt = await client.get_prompt("start-task", {"task": "fix the bug"})
    served = [first.content[0].text, second.content[0].text]  # type: ignore[union-attr]
    assert served[0] != served[1]
    assert resource.contents[0].text == served[1]  # type: ignore[union-attr]
    assert explained.structured_content is not None and explained.structured_content["audit"] == "ok"
    assert "Audit log: ok" in explained.content[0].text  # type: ignore[union-attr]

    assert main(["audit", "list", "--json", "--audit", str(log)]) == 0
    records = json.loads(capsysbinary.readouterr().out)
    calls = ["get_context", "get_context", "explain_budget", "resource ledger://pack"]
    assert [r["call"] for r in records] == calls + (["prompt start-task"] if mode == "legacy" else [])
    assert [r["sha256"] for r in records[:2]] == [_receipt(first)["sha256"], _receipt(second)["sha256"]]
    # every tool row holds the digest of the text its client got: the proof of an answer
    # that is not the pack (found by breaking the product: a search row held only its hits)
    answers = [first, second, explained]
    for record, answer in zip(records, answers, strict=False):
        text = "".join(c.text for c in answer.content).encode()  # type: ignore[union-attr]
        digest = {"sha256": hashlib.sha256(text).hexdigest(), "bytes": len(text)}
        assert json.loads(record["arguments"])["answer"] == digest
    assert json.loads(records[1]["arguments"]).keys() == {"detail", "answer"}
    if mode == "legacy":
        text = prompt.messages[0].content.text.encode()  # type: ignore[union-attr]
        digest = {"sha256": hashlib.sha256(text).hexdigest(), "bytes": len(text)}
        assert json.loads(records[-1]["arguments"])["answer"] == digest
    for r in records:
        assert r["space"] == str(space) and r["cap_tokens"] == 6000 and r["ceiling"] is None
        assert r["client_name"] == "mcp" and r["client_version"]
        assert r["protocol"] == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        assert (r["commit"], r["dirty"]) == (None, None)  # not in a git work tree
        assert r["fingerprint"] == _receipt(second if r is not records[0] else first)["fingerprint"]
    for text in served:
        sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
        assert main(["audit", "show", "--audit", str(log), sha256]) == 0
        assert capsysbinary.readouterr().out == text.encode("utf-8")


@pytest.mark.anyio
async def test_an_unwritable_log_never_fails_a_call(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    params = server("--space", str(DEMO), "--audit", str(blocker / "audit.sqlite3"))
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write_stream),
            ClientSession(read, write_stream) as session,
        ):
            await session.initialize()
            for _ in range(3):
                result = await session.call_tool("get_context", {})
                assert result.is_error is False and result.content[0].text.startswith("---")  # type: ignore[union-attr]
            explained = await session.call_tool("explain_budget", {"detail": "full"})
            brief = await session.call_tool("explain_budget", {})
        errlog.seek(0)
        stderr = errlog.read()
    assert brief.structured_content is not None  # the brief cuts the reason, keeping its ends
    assert brief.structured_content["audit"].startswith("failing: cannot open ")
    assert brief.structured_content["audit"].endswith(" records not written)")
    assert explained.structured_content is not None
    assert explained.structured_content["audit"].startswith("failing: cannot open ")
    assert f"{blocker} is not a folder" in explained.structured_content["audit"]
    assert stderr.count("audit log") >= 1 and "is failing" in stderr


@pytest.mark.anyio
async def test_no_audit_means_off_and_no_file(tmp_path: Path) -> None:
    log = tmp_path / "never.sqlite3"
    async with Client(
        server("--space", str(DEMO), "--audit", str(log), "--no-audit"), mode="legacy"
    ) as client:
        explained = await client.call_tool("explain_budget", {})
    assert explained.structured_content is not None and explained.structured_content["audit"] == "off"
    assert not log.exists()


def test_a_call_without_a_request_context_is_recorded_without_a_client(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    recorder = Recorder(AuditLog(path))
    build = build_context(DEMO)
    recorder.record(call="resource ledger://pack", arguments={}, build=build, ctx=None)
    assert recorder.log is not None and recorder.log.flush()
    assert (recorder.state, Recorder(None).state) == ("ok", "off")
    recorder.log.close()
    (row,) = audit.list_calls(path)
    assert (row.client_name, row.client_version, row.protocol) == (None, None, None)
    assert (row.call, row.arguments, row.cap_tokens, row.ceiling) == (
        "resource ledger://pack",
        "{}",
        6000,
        None,
    )
    assert (row.sha256, row.bytes) == (build.budgeted.sha256, build.budgeted.pack_bytes)


def test_a_huge_client_name_and_version_are_cut_in_every_row(tmp_path: Path) -> None:
    # Were stored whole in every row: a 3 MB clientInfo grew the log by 6 MB a call.
    from types import SimpleNamespace

    from ledger_context.mcp.record import CLIENT_TEXT_CHARS

    info = SimpleNamespace(name="n" * 3_000_000, version="1." + "9" * 3_000_000)
    params = SimpleNamespace(client_info=info)
    ctx = SimpleNamespace(session=SimpleNamespace(client_params=params), protocol_version="2025-11-25")
    path = tmp_path / "audit.sqlite3"
    recorder = Recorder(AuditLog(path))
    recorder.record(call="resource ledger://pack", arguments={}, build=build_context(DEMO), ctx=ctx)  # type: ignore[arg-type]
    assert recorder.log is not None and recorder.log.flush()
    recorder.log.close()
    (row,) = audit.list_calls(path)
    assert row.client_name == "n" * (CLIENT_TEXT_CHARS - 1) + "…"
    assert row.client_version is not None and len(row.client_version) == CLIENT_TEXT_CHARS
    assert path.stat().st_size < 1_000_000


def test_recording_never_fails_the_call_it_records(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log = AuditLog(tmp_path / "audit.sqlite3")
    with caplog.at_level(logging.ERROR, logger="ledger_context"):
        Recorder(log).record(call="get_context", arguments={}, build=object(), ctx=None)  # type: ignore[arg-type]
    log.close()
    assert [r.getMessage() for r in caplog.records] == [
        "ledger-context: could not record get_context in the audit log"
    ]
    assert (log.written, log.dropped) == (0, 0)  # nothing half-written


@pytest.mark.anyio
async def test_document_reads_show_the_document_and_refused_reads_their_reason(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    finding = doc(status="current", data_class="public")
    space = write_ledger(
        tmp_path / "space",
        {
            "agents.md": "Agents\n",
            "findings/f.md": finding,
            "findings/secret.md": doc(status="current", data_class="restricted"),
        },
    )
    log = tmp_path / "audit.sqlite3"
    args = ("--space", str(space), "--audit", str(log), "--max-data-class", "internal")
    async with Client(server(*args), mode="legacy") as client:  # type: ignore[arg-type]
        context = await client.call_tool("get_context", {})
        await client.call_tool("read_document", {"path": ".ledger/findings/f.md"})
        await client.read_resource("ledger://document/.ledger/findings/f.md")
        for path in (".ledger/findings/secret.md", ".ledger/none.md", "../etc/passwd"):
            refused = await client.call_tool("read_document", {"path": path})
            assert refused.is_error
        with pytest.raises(MCPError):
            await client.read_resource("ledger://document/.ledger/findings/secret.md")
    rows = audit.list_calls(log)
    assert [(r.call, r.served) for r in rows] == [
        ("get_context", "pack"),
        ("read_document", ".ledger/findings/f.md"),
        ("resource ledger://document/{+path}", ".ledger/findings/f.md"),
        ("read_document", None),
        ("read_document", None),
        ("read_document", None),
        ("resource ledger://document/{+path}", None),
    ]
    digest = hashlib.sha256(finding.encode()).hexdigest()
    for row in rows[1:3]:
        assert (row.document_sha256, row.document_bytes) == (digest, len(finding.encode()))
    assert rows[3].refused == (
        "withheld document: .ledger/findings/secret.md is withheld by the data-class ceiling "
        "internal; the documents in the pack can be read; e.g. .ledger/findings/f.md"
    )
    assert rows[4].refused is not None and rows[4].refused.startswith("unknown document: no ledger document")
    assert rows[5].refused is not None and "no '..'" in rows[5].refused
    for row in rows[3:]:  # a refusal carries no pack figure and no digest
        assert (row.sha256, row.bytes, row.fingerprint, row.document_sha256) == (None, None, None, None)
    assert _receipt(context)["audit_head"] == rows[0].row_hash
    assert audit.verify(log) == (1, [])
    assert main(["audit", "list", "--audit", str(log)]) == 0
    table = capsysbinary.readouterr().out.decode().splitlines()
    assert table[0].split() == ["time", "client", "call", "sha256", "bytes", "commit", "dirty", "served"]
    assert table[2].split()[3:6] == ["read_document", digest[:16], str(len(finding.encode()))]
    assert table[3].split()[3] == "resource" and table[3].split()[4] == "ledger://document/{+path}"
    assert table[4].endswith("refused: " + rows[3].refused)


def test_each_row_carries_the_measured_tokens_counted_for_its_pack(tmp_path: Path) -> None:
    from ledger_context.pack.measure import measure

    path = tmp_path / "audit.sqlite3"
    recorder = Recorder(AuditLog(path))
    overflow = build_context(FIXTURES / "overflow")
    b = overflow.budgeted
    (o200k, *_) = measure(b.pack, b.tokens, sha256=b.sha256)  # what get_context counts
    recorder.record(call="get_context", arguments={}, build=overflow, ctx=None)
    assert recorder.log is not None and recorder.log.flush()
    recorder.log.close()
    (row,) = audit.list_calls(path)
    assert json.loads(row.measured or "") == {
        "o200k_base": {"tokens": o200k.tokens, "drift": o200k.drift, "library": o200k.library}
    }
    assert o200k.tokens == 6100


def test_a_log_written_before_measured_tokens_gains_the_column(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    schema = audit._SCHEMA.replace(",\n    measured TEXT", "")
    old.executescript(schema + "PRAGMA user_version = 1;")
    old.close()
    log = AuditLog(path)
    Recorder(log).record(call="get_context", arguments={}, build=build_context(DEMO), ctx=None)
    assert log.flush()
    log.close()
    (row,) = audit.list_calls(path)
    assert row.call == "get_context"


def test_a_call_with_an_identity_records_its_subject_client_and_ceiling(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    recorder = Recorder(AuditLog(path))
    build = build_context(DEMO, max_data_class="internal")
    token = IDENTITY.set(Identity(subject="carol@example.test", client_id="carol-ide", ceiling="internal"))
    try:
        recorder.record(call="get_context", arguments={}, build=build, ctx=None)
    finally:
        IDENTITY.reset(token)
    recorder.record(call="get_context", arguments={}, build=build_context(DEMO), ctx=None)
    assert recorder.log is not None and recorder.log.flush()
    recorder.log.close()
    rows = [(r.subject, r.client_id, r.ceiling) for r in audit.list_calls(path)]
    assert rows == [("carol@example.test", "carol-ide", "internal"), (None, None, None)]


@pytest.mark.anyio
async def test_a_search_with_many_hits_is_recorded_whole(tmp_path: Path) -> None:
    # Was cut at 1,024 bytes of its JSON: hits sort before the query, so a search of ten
    # hits lost its query and some hits, and the field was not JSON.
    log = tmp_path / "audit.sqlite3"
    task = "router " * 700
    async with Client(server("--space", str(DEMO), "--audit", str(log)), mode="legacy") as client:  # type: ignore[arg-type]
        found = await client.call_tool("search_ledger", {"query": "ticket router queue eval", "limit": 10})
        await client.get_prompt("start-task", {"task": task})
    hits = [(hit["path"], hit["sha256"]) for hit in _hits(found)]
    assert len(hits) >= 8
    search_row, prompt_row = audit.list_calls(log)
    recorded = json.loads(search_row.arguments)
    assert recorded["query"] == "ticket router queue eval" and recorded["limit"] == 10
    assert [(h["path"], h["sha256"]) for h in recorded["hits"]] == hits
    assert search_row.arguments_bytes == len(search_row.arguments.encode()) > audit.ARGUMENTS_PREFIX_BYTES
    assert json.loads(prompt_row.arguments)["task"] == task
    assert audit.verify(log)[1] == []
    assert audit.pack_body(log, search_row.arguments_sha256) == search_row.arguments.encode()


def _hits(result: Any) -> list[dict[str, str]]:
    """Each hit's path and the SHA-256 of the document, from the structured result and the build."""
    documents = {d.path: d.sha256 for d in build_context(DEMO).ledger.documents}
    return [
        {"path": hit["path"], "sha256": documents[hit["path"]]} for hit in result.structured_content["hits"]
    ]


@pytest.mark.anyio
async def test_a_search_query_is_recorded_as_sent(tmp_path: Path) -> None:
    # Was recorded cleaned (a NUL as a space, a lone surrogate as U+FFFD), so different
    # queries recorded alike; the log stores any string (a lone surrogate as its escape).
    log = tmp_path / "audit.sqlite3"
    async with Client(server("--space", str(DEMO), "--audit", str(log)), mode="legacy") as client:  # type: ignore[arg-type]
        await client.call_tool("search_ledger", {"query": "jwt\tweb\x00hooks "})
    (row,) = audit.list_calls(log)
    assert json.loads(row.arguments)["query"] == "jwt\tweb\x00hooks "


@pytest.mark.anyio
async def test_requests_refused_before_any_tool_or_prompt_ran_are_recorded(tmp_path: Path) -> None:
    # The README says serve records every call it refuses; these got their -32602 and no row.
    log = tmp_path / "audit.sqlite3"
    async with Client(server("--space", str(DEMO), "--audit", str(log)), mode="legacy") as client:  # type: ignore[arg-type]
        assert (await client.call_tool("read_document", {})).is_error
        assert (await client.call_tool("read_document", {"path": "x.md", "offset": -1})).is_error
        with pytest.raises(MCPError):
            await client.call_tool("no_such_tool", {"a": 1})
        for arguments in ({}, {"task": "t", "extra": "x"}):
            with pytest.raises(MCPError):
                await client.get_prompt("start-task", arguments)
    rows = audit.list_calls(log)
    assert [(r.call, r.refused is not None, r.sha256) for r in rows] == [
        ("read_document", True, None),
        ("read_document", True, None),
        ("unknown tool", True, None),
        ("prompt start-task", True, None),
        ("prompt start-task", True, None),
    ]
    assert rows[2].refused is not None and rows[2].refused.startswith(
        "unknown tool 'no_such_tool': the tools are"
    )
    assert json.loads(rows[2].arguments) == {"arguments": {"a": 1}, "name": "no_such_tool"}
    assert audit.verify(log)[1] == []
    # Each names the space it was refused on: `audit list --space` hid every refusal (found
    # by breaking the product), and with it any probing of the server.
    assert [r.space for r in rows] == [str(DEMO)] * 5
    assert len(audit.list_calls(log, space=str(DEMO))) == 5

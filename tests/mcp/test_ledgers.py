"""Which ledger a request reads, one builder per space, and how a request reaches its build
(mcp/ledgers.py): --space, else the client's roots (a 2025-11-25 client only), else the
upward search; resources and the prompt follow the space the roots chose; no ledger is a
tool error, not a server that cannot start."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import ListRootsResult, Root

from conftest import FIXTURES, doc, server, text_of, write_ledger
from ledger_context import build_context
from ledger_context.mcp.caller import IDENTITY, Identity
from ledger_context.mcp.in_flight import InFlight
from ledger_context.mcp.ledgers import Ledgers, document_uris
from ledger_context.mcp.server import create_server
from ledger_context.pack.settings import Settings, make_settings
from ledger_context.reader.index import IndexOptions, index_path

pytestmark = pytest.mark.anyio


async def test_no_space_is_a_tool_error_and_the_server_still_answers(tmp_path: Path, mode: str) -> None:
    env = {"PATH": os.environ.get("PATH", "")}
    async with Client(server(cwd=tmp_path, env=env), mode=mode) as client:  # type: ignore[arg-type]
        assert "get_context" in {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("get_context", {})
        assert result.is_error is True
        assert str(tmp_path) in text_of(result) and "--space" in text_of(result)


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


def test_each_space_keeps_its_own_builder_and_warm_build() -> None:
    # The fixtures' files changed long ago: the real cache reuses them (a fresh file would
    # be re-read for a second, the recently-changed-file rule).
    demo, floor = FIXTURES / "demo", FIXTURES / "floor"
    ledgers = Ledgers(None, Settings(cap_tokens=100))
    first = ledgers.build(demo)
    assert (first.pack, first.budgeted.cap_tokens) == (build_context(demo, 100).pack, 100)
    assert ledgers.build(demo) is first  # the same builder: its warm build, not a rebuild
    assert ledgers.build(floor).pack == build_context(floor, 100).pack
    assert ledgers.build(demo) is first  # the other space's builder did not replace it


def test_document_uris_name_the_packs_sources_quoted(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "space",
        {
            "agents.md": "hi\n",
            "decisions/a b#1.md": doc(status="accepted"),
            "decisions/x.md": "no frontmatter",
        },
    )
    build = Ledgers(space, Settings()).build(space)
    assert document_uris(build) == (
        "ledger://document/.ledger/agents.md",
        "ledger://document/.ledger/decisions/a%20b%231.md",
    )


def test_the_requests_identity_picks_the_ceiling_and_its_own_builder() -> None:
    demo = FIXTURES / "demo"
    ledgers = Ledgers(None, Settings())
    unfiltered = ledgers.build(demo)
    token = IDENTITY.set(Identity(subject="bob", client_id="cli", ceiling="internal"))
    try:
        internal = ledgers.build(demo)
    finally:
        IDENTITY.reset(token)
    assert (unfiltered.ceiling, internal.ceiling) == (None, "internal")
    assert internal.pack == build_context(demo, max_data_class="internal").pack != unfiltered.pack
    assert ledgers.build(demo) is unfiltered  # no identity again: the server's own builder


def test_builds_without_an_identity_get_the_unidentified_settings() -> None:
    ledgers = Ledgers(None, Settings())
    ledgers.unidentified = Settings(ceiling="public")
    assert ledgers.build(FIXTURES / "demo").ceiling == "public"


# Regression: a bug found by trying to break the product (the receipt's built_at moved when
# only a withheld document was edited: a client learnt when a document it may not see changed).
def test_an_edit_of_a_withheld_document_alone_keeps_the_build_date(tmp_path: Path) -> None:
    from ledger_context.pack.settings import make_settings

    space = write_ledger(
        tmp_path,
        {
            "findings/open.md": doc(status="current", title="Open"),
            "findings/secret.md": doc(status="current", title="Secret", data_class="restricted"),
        },
    )
    ledgers = Ledgers(space, make_settings(max_data_class="internal"))
    first = ledgers.build(space)
    (space / ".ledger/findings/secret.md").write_text(
        doc(status="current", title="Secret 2", data_class="restricted")
    )
    second = ledgers.build(space)
    assert second.ledger.documents != first.ledger.documents  # really built again
    assert second.built_at == first.built_at and second.pack == first.pack
    (space / ".ledger/findings/open.md").write_text(doc(status="current", title="Open 2"))
    third = ledgers.build(space)
    assert third.built_at > first.built_at


def test_a_root_whose_path_the_system_refuses_is_passed_over(tmp_path: Path) -> None:
    # Found by trying to break the product: a root of 300 characters in one name raised
    # ENAMETOOLONG from the check for .ledger, and every tool call failed.
    from ledger_context.pack.settings import make_settings

    space = write_ledger(tmp_path / "project", {"agents.md": "from the root\n"})
    roots = ListRootsResult(
        roots=[Root(uri="file:///" + "a" * 300, name="long"), Root(uri=space.as_uri(), name="ok")]  # type: ignore[arg-type]
    )
    assert Ledgers(None, make_settings()).space(roots) == space


async def test_a_server_writes_the_ledger_index_after_its_answer_and_at_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    space = Path(shutil.copytree(FIXTURES / "demo", tmp_path / "space"))
    options = IndexOptions(tmp_path / "cache")
    written = index_path(options, space)
    async with Client(create_server(space, make_settings(index=options)), mode="legacy") as client:
        await client.call_tool("get_context", {})
        with anyio.fail_after(10):  # once the server is quiet
            while not written.exists():
                await anyio.sleep(0.01)
    written.unlink()

    async def never_quiet(_self: InFlight) -> bool:
        await anyio.sleep_forever()
        return False

    monkeypatch.setattr(InFlight, "quiet", never_quiet)
    async with Client(create_server(space, make_settings(index=options)), mode="legacy") as client:
        await client.call_tool("get_context", {})
        await anyio.sleep(0.3)
        assert not written.exists()  # never quiet: not written while the session lasts
    assert written.exists()  # but at its end


async def test_space_comes_from_the_first_client_root_holding_a_ledger(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    space = write_ledger(tmp_path / "project", {"agents.md": "from the root\n"})

    async def roots(_: Any) -> ListRootsResult:
        return ListRootsResult(
            roots=[Root(uri=empty.as_uri(), name="empty"), Root(uri=space.as_uri(), name="project")]  # type: ignore[arg-type]
        )

    env = {"PATH": os.environ.get("PATH", "")}
    async with Client(server(cwd=Path("/"), env=env), mode="legacy", list_roots_callback=roots) as client:
        result = await client.call_tool("get_context", {})
        assert text_of(result) == "from the root\n"
        explanation = (await client.call_tool("explain_budget", {})).structured_content
        assert explanation is not None and explanation["space"] == str(space)


async def test_a_2026_client_is_never_asked_for_roots(tmp_path: Path) -> None:
    # Roots are deprecated in 2026-07-28: --space, LEDGER_SPACE or the working directory choose.
    space = write_ledger(tmp_path / "project", {"agents.md": "from the root\n"})
    asked: list[str] = []

    async def roots(_: Any) -> ListRootsResult:
        asked.append("roots")
        return ListRootsResult(roots=[Root(uri=space.as_uri(), name="project")])  # type: ignore[arg-type]

    env = {"PATH": os.environ.get("PATH", "")}
    async with Client(server(cwd=tmp_path, env=env), mode="auto", list_roots_callback=roots) as client:
        result = await client.call_tool("get_context", {})
    assert result.is_error is True and str(tmp_path) in text_of(result)  # no ledger at the cwd
    assert asked == []


async def test_roots_the_client_cannot_give_fall_back_to_the_working_directory(tmp_path: Path) -> None:
    # Found by trying to break the product: an error answer to roots/list came back as the
    # tool call's own error, and a root that is no file URL failed every call with a bare
    # "Error executing tool" (and no audit row). The README's order goes on to the upward search.
    from mcp_types import ErrorData

    space = write_ledger(tmp_path / "cwd", {"agents.md": "from the working directory\n"})
    other = write_ledger(tmp_path / "other", {"agents.md": "from a later root\n"})

    async def refuses(_: Any) -> ErrorData:
        return ErrorData(code=-32601, message="Method not found")

    async def not_file_urls(_: Any) -> ListRootsResult:
        bad = Root.model_construct(uri="http://example.com/repo", name="web")
        return ListRootsResult.model_construct(roots=[bad, Root(uri=other.as_uri(), name="ok")])  # type: ignore[arg-type]

    env = {"PATH": os.environ.get("PATH", "")}
    for callback in (refuses, not_file_urls):
        async with Client(server(cwd=space, env=env), mode="legacy", list_roots_callback=callback) as client:
            result = await client.call_tool("get_context", {})
        assert (result.is_error, text_of(result)) == (False, "from the working directory\n"), callback


@pytest.mark.slow
async def test_a_client_that_never_answers_roots_gets_its_answer_after_the_wait(tmp_path: Path) -> None:
    import time

    import anyio

    from ledger_context.mcp.ledgers import ROOTS_SECONDS

    space = write_ledger(tmp_path / "cwd", {"agents.md": "from the working directory\n"})

    async def silent(_: Any) -> ListRootsResult:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    env = {"PATH": os.environ.get("PATH", "")}
    async with Client(server(cwd=space, env=env), mode="legacy", list_roots_callback=silent) as client:
        started = time.monotonic()
        first = await client.call_tool("get_context", {})
        waited = time.monotonic() - started
        started = time.monotonic()
        second = await client.call_tool("get_context", {})
        again = time.monotonic() - started
    assert text_of(first) == text_of(second) == "from the working directory\n"
    assert ROOTS_SECONDS - 0.5 <= waited < ROOTS_SECONDS + 5 and again < ROOTS_SECONDS - 1  # asked once

"""Change notifications with the SDK client: subscribers of both protocol generations
hear a pack change within 2 s and nothing after an edit that leaves the pack alone."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning

from conftest import FIXTURES
from ledger_context import build_context
from ledger_context.mcp.server import PACK_URI, LedgerServer, create_server
from ledger_context.pack.context import ContextBuild

pytestmark = pytest.mark.anyio
FINDING = ".ledger/findings/2026-08-temperature-zero.md"  # status current: in the pack
NEW_FINDING = ".ledger/findings/2026-12-new.md"


@pytest.fixture
def space(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / "demo", tmp_path / "space"))


class Heard:
    """What one client heard: (method, uri) pairs, with an event per arrival."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str | None]] = []
        self.arrived = anyio.Event()

    def add(self, method: str, uri: str | None) -> None:
        self.items.append((method, uri))
        self.arrived.set()
        self.arrived = anyio.Event()

    async def until(self, count: int) -> list[tuple[str, str | None]]:
        with anyio.fail_after(2):  # the bound: an update within 2 s of the edit
            while len(self.items) < count:
                await self.arrived.wait()
        return self.items


@pytest.fixture(params=["legacy", "auto"])
async def connected(request: pytest.FixtureRequest, space: Path) -> AsyncIterator[tuple[LedgerServer, Heard]]:
    """A server on ``space`` and a client subscribed to the pack (and the list) the way
    its protocol generation does it; yields once the server is watching."""
    server, heard = create_server(space), Heard()
    if request.param == "legacy":

        async def on_message(message: Any) -> None:
            if hasattr(message, "method"):
                heard.add(message.method, getattr(message.params, "uri", None))

        async with Client(server, mode="legacy", message_handler=on_message) as client:
            with pytest.warns(MCPDeprecationWarning):
                await client.subscribe_resource(PACK_URI)
            await server.notifier.watching.wait()
            yield server, heard
        return
    async with (
        Client(server, mode="auto") as client,
        client.listen(resource_subscriptions=[PACK_URI], resources_list_changed=True) as stream,
        anyio.create_task_group() as tasks,
    ):

        async def collect() -> None:
            async for event in stream:
                name = type(event).__name__
                method = {"ResourceUpdated": "notifications/resources/updated"}.get(
                    name, "notifications/resources/list_changed"
                )
                heard.add(method, getattr(event, "uri", None))

        tasks.start_soon(collect)
        await server.notifier.watching.wait()
        yield server, heard
        tasks.cancel_scope.cancel()


def edit(space: Path, path: str, change: Callable[[str], str]) -> int:
    file = space / path
    text = change(file.read_text(encoding="utf-8"))
    file.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


async def checked_with(server: LedgerServer, path: str, size: int) -> ContextBuild:
    """Wait for the watcher's check that saw ``path`` at ``size`` bytes."""
    with anyio.fail_after(2):
        while True:
            build = await server.notifier.next_check()
            if build is not None and any(d.path == path and d.size == size for d in build.ledger.documents):
                return build


async def test_a_pack_change_is_heard_and_an_unrendered_edit_is_not(
    connected: tuple[LedgerServer, Heard], space: Path
) -> None:
    server, heard = connected
    sha = server.notifier.seen.sha256 if server.notifier.seen else None

    size = edit(space, FINDING, lambda text: text + "\nA new paragraph the pack does not render.\n")
    build = await checked_with(server, FINDING, size)
    assert build.budgeted.sha256 == sha  # the body is not in the pack...
    assert heard.items == []  # ...so nobody is told anything

    edit(space, FINDING, lambda text: text.replace("title: ", "title: Revised: ", 1))
    assert await heard.until(1) == [("notifications/resources/updated", PACK_URI)]


async def test_a_new_document_changes_the_list(connected: tuple[LedgerServer, Heard], space: Path) -> None:
    server, heard = connected
    (space / NEW_FINDING).write_text(
        "---\ntitle: A new finding\nstatus: current\nupdated_at: 2026-12-01\n---\nBody.\n", encoding="utf-8"
    )
    assert sorted(await heard.until(2)) == [
        ("notifications/resources/list_changed", None),
        ("notifications/resources/updated", PACK_URI),
    ]
    assert "ledger://document/" + NEW_FINDING in (
        server.notifier.seen.listing if server.notifier.seen else ()
    )


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_capabilities_say_exactly_what_is_sent(mode: str) -> None:
    async with Client(create_server(FIXTURES / "demo"), mode=mode) as client:  # type: ignore[arg-type]
        caps = client.server_capabilities
    assert caps.resources is not None and caps.tools is not None and caps.prompts is not None
    assert (caps.resources.subscribe, caps.resources.list_changed) == (True, True)
    assert (caps.tools.list_changed, caps.prompts.list_changed) == (False, False)


async def test_cache_hints_are_true_on_2026_07_28_and_absent_before() -> None:
    async with Client(create_server(FIXTURES / "demo"), mode="auto", cache=None) as client:
        fixed = [
            await client.list_tools(),
            await client.list_prompts(),
            await client.list_resource_templates(),
        ]
        live = [await client.list_resources(), await client.read_resource(PACK_URI)]
    assert [(r.ttl_ms, r.cache_scope) for r in fixed] == [(3_600_000, "public")] * 3
    assert [(r.ttl_ms, r.cache_scope) for r in live] == [(0, "private")] * 2
    async with Client(create_server(FIXTURES / "demo"), mode="legacy") as client:
        legacy = [await client.list_tools(), await client.read_resource(PACK_URI)]
    assert ["ttl_ms" in r.model_fields_set for r in legacy] == [False, False]


async def test_over_stdio_the_capabilities_are_the_same() -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_context", "serve", "--space", str(FIXTURES / "demo")]
    )
    for mode in ("legacy", "auto"):
        async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
            caps = client.server_capabilities
        assert caps.resources is not None and caps.tools is not None
        assert (caps.resources.subscribe, caps.resources.list_changed, caps.tools.list_changed) == (
            True,
            True,
            False,
        )


async def test_a_ledger_that_goes_away_and_comes_back_is_heard_both_times(tmp_path: Path) -> None:
    space = Path(shutil.copytree(FIXTURES / "demo", tmp_path / "space"))
    server, heard = create_server(space), Heard()
    server.notifier.heartbeat = 0.3  # the folder's return is noticed by the heartbeat's rescan

    async def on_message(message: Any) -> None:
        if hasattr(message, "method"):
            heard.add(message.method, getattr(message.params, "uri", None))

    async with Client(server, mode="legacy", message_handler=on_message) as client:
        with pytest.warns(MCPDeprecationWarning):
            await client.subscribe_resource(PACK_URI)
        await server.notifier.watching.wait()
        shutil.move(space / ".ledger", tmp_path / "away")
        gone = sorted(await heard.until(2))
        assert server.notifier.seen is not None and server.notifier.seen.sha256 is None  # no pack now
        shutil.move(tmp_path / "away", space / ".ledger")
        back = sorted((await heard.until(4))[2:])
    both = [("notifications/resources/list_changed", None), ("notifications/resources/updated", PACK_URI)]
    assert (gone, back) == (both, both)
    assert (
        server.notifier.seen is not None
        and server.notifier.seen.sha256 == build_context(space).budgeted.sha256
    )


@pytest.mark.anyio
async def test_subscriptions_are_bounded_in_count_and_uri_length() -> None:
    from mcp.shared.exceptions import MCPError

    from ledger_context.mcp.notifications import MAX_SUBSCRIPTIONS, MAX_URI_CHARS

    async with Client(create_server(FIXTURES / "demo"), mode="legacy") as client:
        with pytest.warns(MCPDeprecationWarning):
            with pytest.raises(MCPError, match=f"subscribe to at most {MAX_URI_CHARS} characters"):
                await client.subscribe_resource("ledger://x/" + "a" * (1 << 20))
            for n in range(MAX_SUBSCRIPTIONS):
                await client.subscribe_resource(f"ledger://x/{n}")
            with pytest.raises(MCPError, match=f"already holds {MAX_SUBSCRIPTIONS} subscriptions"):
                await client.subscribe_resource(PACK_URI)
            await client.subscribe_resource("ledger://x/0")  # held already: no new room taken
            await client.unsubscribe_resource("ledger://x/0")
            await client.subscribe_resource(PACK_URI)


@pytest.mark.anyio
async def test_listen_streams_are_bounded_in_uris_and_in_number_per_identity() -> None:
    # A tester's finding: one low-ceiling person opened 200 listen streams of 5,000 URIs each
    # and took 600 MB; the 2025 path's bounds did not hold on the 2026-07-28 one.
    from contextlib import AsyncExitStack

    from mcp.shared.exceptions import MCPError

    from ledger_context.mcp.notifications import MAX_LISTEN_STREAMS, MAX_SUBSCRIPTIONS, MAX_URI_CHARS

    async with Client(create_server(FIXTURES / "demo"), mode="auto") as client:
        many = [f"ledger://x/{n}" for n in range(MAX_SUBSCRIPTIONS + 1)]
        with pytest.raises(MCPError, match=f"at most {MAX_SUBSCRIPTIONS} resource URIs"):
            async with client.listen(resource_subscriptions=many):
                pass
        with pytest.raises(MCPError, match=f"at most {MAX_URI_CHARS} characters"):
            async with client.listen(resource_subscriptions=["ledger://x/" + "a" * MAX_URI_CHARS]):
                pass
        async with AsyncExitStack() as streams:
            for _ in range(MAX_LISTEN_STREAMS):
                await streams.enter_async_context(
                    client.listen(resource_subscriptions=many[:MAX_SUBSCRIPTIONS])
                )
            with pytest.raises(MCPError, match=f"already holds {MAX_LISTEN_STREAMS} listen streams"):
                async with client.listen(resources_list_changed=True):
                    pass
        async with client.listen(resource_subscriptions=[PACK_URI]):  # closed ones give their room back
            pass

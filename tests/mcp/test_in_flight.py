"""Requests in flight: background work waits for a quiet moment, and never for long."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from mcp import Client

from conftest import FIXTURES
from ledger_context.mcp.in_flight import InFlight
from ledger_context.mcp.notifications import ChangeNotifier
from ledger_context.mcp.server import PACK_URI, create_server

pytestmark = pytest.mark.anyio


def _ctx(method: str, request_id: int | None = 1) -> Any:
    return SimpleNamespace(method=method, request_id=request_id)


async def test_a_request_is_in_flight_until_answered_and_settles_after() -> None:
    in_flight, release, answered = InFlight(), anyio.Event(), []

    async def handler(_ctx: Any) -> str:
        await release.wait()
        return "answer"

    async def call() -> None:
        answered.append(await in_flight.track(_ctx("tools/call"), handler))

    assert in_flight.settled()  # a new server: nothing was ever asked
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(call)
        await anyio.sleep(0.05)
        assert in_flight.count == 1 and not in_flight.settled(0)
        assert await in_flight.quiet(at_most=0.1) is False  # waited its most, then gave up
        release.set()
    assert answered == ["answer"] and in_flight.count == 0
    assert not in_flight.settled(10)  # just answered: not yet quiet for 10 s
    assert await in_flight.quiet(settle=0.02, at_most=1) is True


async def test_notifications_and_listen_streams_are_never_in_flight() -> None:
    in_flight, seen = InFlight(), []

    async def handler(ctx: Any) -> None:
        seen.append(in_flight.count)

    await in_flight.track(_ctx("notifications/initialized", request_id=None), handler)
    await in_flight.track(_ctx("subscriptions/listen"), handler)  # lasts as long as its client
    await in_flight.track(_ctx("ping"), handler)
    assert seen == [0, 0, 1]


async def test_a_notifier_is_settled_only_after_its_first_check_and_a_quiet_moment(tmp_path: Path) -> None:
    space = Path(shutil.copytree(FIXTURES / "demo", tmp_path / "space"))
    server, quiet_asked, allow = create_server(space), anyio.Event(), anyio.Event()

    async def quiet() -> None:
        quiet_asked.set()
        await allow.wait()

    ledgers = server.ledgers
    notifier = ChangeNotifier(
        lambda: space, ledgers.build, lambda _b: (), server.notifier._bus, PACK_URI, quiet=quiet
    )
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(notifier.run)
        with anyio.fail_after(10):
            await quiet_asked.wait()
        assert notifier.first_checked.is_set() and not notifier.settled.is_set()
        assert notifier.watcher == "starting"  # not watching yet (a walk), and says so
        allow.set()
        with anyio.fail_after(10):
            await notifier.watching.wait()
        assert notifier.settled.is_set()
        tasks.cancel_scope.cancel()


async def test_a_server_counts_its_requests(tmp_path: Path) -> None:
    space = Path(shutil.copytree(FIXTURES / "demo", tmp_path / "space"))
    server = create_server(space)
    async with Client(server, mode="legacy") as client:
        await client.call_tool("get_context", {})
        assert server.in_flight.count == 0 and not server.in_flight.settled(10)  # it saw the call end

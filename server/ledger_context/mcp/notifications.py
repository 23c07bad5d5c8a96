"""Change notifications: watch the served space, tell subscribers when the pack changes.

A :class:`ChangeNotifier` runs for the server's lifetime. On every hint from
:func:`~ledger_context.reader.watch.ledger_changes` (a file event, or the heartbeat's full
rescan) it builds the pack and compares it with the last build it saw:

- the pack's SHA-256 changed: ``notifications/resources/updated`` for ``ledger://pack``;
- the documents listed by ``resources/list`` changed: ``notifications/resources/list_changed``.

Both protocol generations hear it: 2026-07-28 ``subscriptions/listen`` streams through
the server's subscription bus (the SDK filters per stream), and 2025 connections through
their session (``resources/subscribe`` for updates; every initialized connection for the
list). An edit that leaves the pack's bytes alone (a document body the pack does not
render) sends nothing.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ResourcesListChanged, ResourceUpdated, SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    EmptyResult,
    NotificationParams,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    UnsubscribeRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..model.errors import LedgerContextError
from ..pack.context import ContextBuild
from ..reader.space import LEDGER_DIR
from ..reader.watch import HEARTBEAT_SECONDS, WatchState, ledger_changes
from .caller import IDENTITY

logger = logging.getLogger("ledger_context")

MAX_SUBSCRIPTIONS = 100
"""URIs one connection may subscribe to at once: a client cannot grow the server without bound."""
MAX_URI_CHARS = 2048
"""The longest URI ``resources/subscribe`` accepts (the pack's is 13 characters)."""
MAX_LISTEN_STREAMS = 16
"""``subscriptions/listen`` streams one identity (over stdio: the client) holds open at once."""

ListenHandler = Callable[[ServerRequestContext[Any, Any], Any], Awaitable[Any]]
"""A request handler as the SDK holds one (its params and result erased)."""


def bounded_listen(listen: ListenHandler, pack_uri: str) -> ListenHandler:
    """``listen`` (the SDK's ``subscriptions/listen`` handler) within the bounds the 2025
    path keeps: at most :data:`MAX_SUBSCRIPTIONS` resource URIs a stream, each at most
    :data:`MAX_URI_CHARS` long, and at most :data:`MAX_LISTEN_STREAMS` open streams per
    identity; more is an error saying so, before the stream is acknowledged."""
    open_streams: dict[object, int] = {}

    async def on_listen(ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams) -> Any:
        uris = params.notifications.resource_subscriptions or []
        if len(uris) > MAX_SUBSCRIPTIONS:
            raise MCPError(
                INVALID_PARAMS,
                f"a listen stream follows at most {MAX_SUBSCRIPTIONS} resource URIs, not {len(uris)} "
                f"(only {pack_uri} ever changes)",
            )
        if any(len(str(uri)) > MAX_URI_CHARS for uri in uris):
            raise MCPError(
                INVALID_PARAMS, f"a resource URI may be at most {MAX_URI_CHARS} characters, e.g. {pack_uri}"
            )
        who = IDENTITY.get()
        key = None if who is None else (who.subject, who.client_id)
        if open_streams.get(key, 0) >= MAX_LISTEN_STREAMS:
            raise MCPError(
                INVALID_REQUEST,
                f"this identity already holds {MAX_LISTEN_STREAMS} listen streams, the most it may: "
                "close one first",
            )
        open_streams[key] = open_streams.get(key, 0) + 1
        try:
            return await listen(ctx, params)
        finally:
            if open_streams[key] == 1:
                del open_streams[key]
            else:
                open_streams[key] -= 1

    return on_listen


@dataclass(frozen=True, slots=True)
class Seen:
    """What subscribers are told about: the pack's SHA-256 (``None``: no pack can be
    built) and the document URIs ``resources/list`` names."""

    sha256: str | None
    listing: tuple[str, ...]


@dataclass(slots=True)
class _Client:
    """A 2025-era connection: a session to send on and the URIs it subscribed to."""

    session: ServerSession
    uris: set[str]


class ChangeNotifier:
    """Watches the space ``space()`` names and notifies subscribers of changes.

    ``build(space)`` is the server's own build (same cache, same lock); ``listing(build)``
    the document URIs ``resources/list`` gives for it; ``pack_uri`` the pack resource.
    """

    def __init__(
        self,
        space: Callable[[], Path],
        build: Callable[[Path], ContextBuild],
        listing: Callable[[ContextBuild], tuple[str, ...]],
        bus: SubscriptionBus,
        pack_uri: str,
        *,
        heartbeat: float = HEARTBEAT_SECONDS,
        quiet: Callable[[], Awaitable[object]] | None = None,
        after_check: Callable[[], None] | None = None,
    ) -> None:
        self._space = space
        self._quiet = quiet
        self._after_check = after_check
        self._build = build
        self._listing = listing
        self._bus = bus
        self.pack_uri = pack_uri
        self.heartbeat = heartbeat
        # 2025-era connections: every initialized one hears list changes; the URIs each
        # subscribed to hear updates. An entry leaves when its connection closes.
        self._clients: dict[Connection, _Client] = {}
        self.seen: Seen | None = None
        self.last_build: ContextBuild | None = None
        self._checked = anyio.Event()
        self.first_checked = threading.Event()
        """Set once the first check is done (a build, or none): a thread may wait for it."""
        self.settled = threading.Event()
        """Set once, after the first check, the server was quiet (``quiet()`` returned): the
        moment background work may start without slowing an answer (the first call, often
        waiting on that check)."""
        self.watching = anyio.Event()
        """Set once file changes are being watched (a change from then on is noticed)."""
        self.watcher: WatchState = "stopped"
        """How changes are being noticed now; receipts report it."""

    # -- 2025 handlers: notifications/initialized, resources/subscribe, resources/unsubscribe

    async def on_initialized(self, ctx: ServerRequestContext, params: NotificationParams) -> None:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._client(ctx.session)

    async def on_subscribe(self, ctx: ServerRequestContext, params: SubscribeRequestParams) -> EmptyResult:
        """Any URI may be subscribed to (as with ``subscriptions/listen``); only the pack's
        fires. At most :data:`MAX_SUBSCRIPTIONS` URIs a connection, each at most
        :data:`MAX_URI_CHARS` long: more is an invalid-params error saying so."""
        uri = str(params.uri)
        uris = self._client(ctx.session).uris
        if len(uri) > MAX_URI_CHARS:
            raise MCPError(
                INVALID_PARAMS,
                f"the URI is {len(uri)} characters long; subscribe to at most {MAX_URI_CHARS} "
                f"characters, e.g. {self.pack_uri}",
            )
        if uri not in uris and len(uris) >= MAX_SUBSCRIPTIONS:
            raise MCPError(
                INVALID_PARAMS,
                f"this connection already holds {MAX_SUBSCRIPTIONS} subscriptions, the most it may: "
                f"unsubscribe from one first (only {self.pack_uri} ever changes)",
            )
        uris.add(uri)
        return EmptyResult()

    async def on_unsubscribe(
        self, ctx: ServerRequestContext, params: UnsubscribeRequestParams
    ) -> EmptyResult:
        self._client(ctx.session).uris.discard(str(params.uri))
        return EmptyResult()

    def _client(self, session: ServerSession) -> _Client:
        # SDK 2.3 hands low-level handlers a per-request session and no public way to its
        # connection; the session's standalone channel outlives the request.
        connection: Connection = session._connection
        client = self._clients.get(connection)
        if client is None:
            client = self._clients[connection] = _Client(session, set())
            connection.exit_stack.callback(self._clients.pop, connection, None)
        return client

    # -- watching ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Watch until cancelled; follows the space when the served one changes."""
        try:
            await self._run()
        finally:
            self.watcher = "stopped"

    def _on_state(self, state: WatchState) -> None:
        self.watcher = state

    async def _run(self) -> None:
        self.watcher = "starting"  # about to watch: after the first check and a quiet moment
        await self.check()
        if self._quiet is not None:  # watching walks again: not while the first call is answered
            await self._quiet()
        self.settled.set()
        await self._after()
        while True:
            watched = self._watched()
            if watched is None:
                self.watcher = "stopped"
                await anyio.sleep(self.heartbeat)  # no space yet: look again later
                await self.check()
                continue
            self.watcher, reasons = "starting", 0
            async for reason in ledger_changes(watched, heartbeat=self.heartbeat, on_state=self._on_state):
                reasons += 1
                await self.check()
                await self._after()
                if reason == "ready":
                    self.watching.set()
                if self._watched() != watched:
                    break  # the client's roots chose another space
            else:
                self.watcher = "stopped"  # the folder went away: until it is watched again
                if reasons <= 1:  # the watcher ended at once: do not spin
                    await anyio.sleep(self.heartbeat)

    async def _after(self) -> None:
        """``after_check`` in a worker thread (the server writes its ledger index there)."""
        if self._after_check is None:
            return
        try:
            await anyio.to_thread.run_sync(self._after_check)
        except Exception:  # a watcher must outlive any one failure
            logger.exception("ledger-context: after the check for change notifications")

    def _watched(self) -> Path | None:
        try:
            return self._space() / LEDGER_DIR
        except LedgerContextError:
            return None

    async def check(self) -> None:
        """Build now, compare with the last build seen, notify what changed."""
        build: ContextBuild | None
        try:
            build = await anyio.to_thread.run_sync(self._build, self._space())
        except LedgerContextError:
            build = None
        except Exception:  # a watcher must outlive any one bad build
            logger.exception("ledger-context: building the pack for change notifications failed")
            build = None
        now = Seen(None, ()) if build is None else Seen(build.budgeted.sha256, self._listing(build))
        before, self.seen, self.last_build = self.seen, now, build
        if before is not None:
            if now.sha256 != before.sha256:
                await self._updated()
            if now.listing != before.listing:
                await self._list_changed()
        self._checked.set()
        self._checked = anyio.Event()
        self.first_checked.set()

    async def next_check(self) -> ContextBuild | None:
        """Wait for the next check to finish; its build (``None``: no pack)."""
        await self._checked.wait()
        return self.last_build

    # -- sending ----------------------------------------------------------------------------

    async def _updated(self) -> None:
        logger.info("ledger-context: the pack changed; notifying subscribers")
        await self._bus.publish(ResourceUpdated(uri=self.pack_uri))
        for client in list(self._clients.values()):
            if self.pack_uri in client.uris:
                await _send(client.session.send_resource_updated(self.pack_uri))

    async def _list_changed(self) -> None:
        await self._bus.publish(ResourcesListChanged())
        for client in list(self._clients.values()):
            await _send(client.session.send_resource_list_changed())


async def _send(sending: Awaitable[None]) -> None:
    # A client that is leaving: its connection's teardown drops it.
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        await sending

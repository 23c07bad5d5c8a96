"""The MCP server: a thin adapter over the core; only the ``mcp`` wing imports the SDK.

This module is the entry point: :func:`create_server` puts together the pieces, each in
a module named for its job, and :func:`serve` and :func:`serve_http` run it over a
transport:

- :mod:`~ledger_context.mcp.tools`: ``get_context``, ``explain_budget``, ``read_document``;
- :mod:`~ledger_context.mcp.search_tool`: ``search_ledger``;
- :mod:`~ledger_context.mcp.registry`: a tool is one registration (recording, errors);
- :mod:`~ledger_context.mcp.resources`: ``ledger://pack``, ``ledger://document/{+path}``
  and the prompt ``start-task``;
- :mod:`~ledger_context.mcp.ledgers`: the space of a request and one builder per space;
- :mod:`~ledger_context.mcp.record`: every answered call into the audit log;
- :mod:`~ledger_context.mcp.error_map`: core errors to tool and JSON-RPC errors;
- :mod:`~ledger_context.mcp.notifications`: subscribers hear when the pack changes;
- :mod:`~ledger_context.mcp.stdio`: the stdio channel;
- :mod:`~ledger_context.mcp.http`: the Streamable HTTP app (team mode).

The command line checks the cap, the ceiling and the YAML switches once, into the
:class:`~ledger_context.pack.settings.Settings` :func:`serve` and :func:`create_server` take.
Logs go to stderr only and never block (:mod:`ledger_context.mcp.stderr_log`); capabilities
are :data:`CAPABILITIES`, exactly what is delivered.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server import CacheHint
from mcp.server.caching import CacheableMethod
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError, UnexpectedToolError
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    NotificationParams,
    PromptsCapability,
    ResourcesCapability,
    ServerCapabilities,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    ToolsCapability,
    UnsubscribeRequestParams,
)
from mcp_types import Resource as MCPResource
from pydantic import ValidationError

from .. import __version__
from ..model.errors import LedgerContextError
from ..pack.measure import preload
from ..pack.settings import DEFAULT_SETTINGS, Settings
from ..proof.audit import AuditLog
from ..reader.space import display_path
from .apps import budget_apps
from .arguments import argument_error
from .error_map import ERROR_CODES, mcp_error
from .in_flight import InFlight
from .ledgers import DOCUMENT_PREFIX, Ledgers, document_uris, serve_document
from .notifications import ChangeNotifier, bounded_listen
from .protocol_errors import explain_protocol_errors, unknown_resource
from .record import REQUEST, Recorder
from .registry import RECEIPT_KEY, ToolRegistry
from .resources import DOCUMENT_TEMPLATE, PACK_URI, register_prompt, register_resources
from .search_tool import register_search
from .stderr_log import configure_logging, cut
from .stdio import on_hard_exit, serve_stdio
from .tools import PAGE_KEY, receipt, register_tools

if TYPE_CHECKING:
    from .auth import AuthOptions
    from .http import HttpOptions

__all__ = [
    "CACHE_HINTS",
    "CAPABILITIES",
    "DOCUMENT_PREFIX",
    "DOCUMENT_TEMPLATE",
    "ERROR_CODES",
    "PACK_URI",
    "PAGE_KEY",
    "RECEIPT_KEY",
    "LedgerServer",
    "create_server",
    "initialization_options",
    "mcp_error",
    "receipt",
    "serve",
    "serve_document",
    "serve_http",
]

logger = logging.getLogger("ledger_context")

_INSTRUCTIONS = """\
ledger-context serves this repository's experiment ledger (.ledger/).
- Start every task with get_context: the context pack, capped at {cap_tokens} tokens.
- Something missing? explain_budget with its path says where it went and why.
- search_ledger finds documents beyond the pack by a few words of the task, ranked.
- read_document gives a document in full, by the path in brackets in a title line."""


# What results may be cached for (2026-07-28 ``ttlMs``/``cacheScope``; the SDK strips
# them for older clients): tools, prompts, templates and the discovery result never
# change while the server runs and are the same for every caller; the pack, the
# documents and their list change whenever the ledger does, and follow each client's
# roots, so they are stale at once and private.
_FIXED = CacheHint(ttl_ms=3_600_000, scope="public")
_LIVE = CacheHint(ttl_ms=0, scope="private")
CACHE_HINTS: dict[CacheableMethod, CacheHint] = {
    "tools/list": _FIXED,
    "prompts/list": _FIXED,
    "resources/templates/list": _FIXED,
    "server/discover": _FIXED,
    "resources/list": _LIVE,
    "resources/read": _LIVE,
}

CAPABILITIES = ServerCapabilities(
    tools=ToolsCapability(list_changed=False),
    prompts=PromptsCapability(list_changed=False),
    resources=ResourcesCapability(subscribe=True, list_changed=True),
)
"""What the server advertises on both protocol generations: the tool and prompt lists
never change; resource updates (the pack) and resource-list changes are sent."""


def initialization_options(server: MCPServer) -> InitializationOptions:
    """The SDK's initialization options; their capabilities are :data:`CAPABILITIES`
    (``_serve_changes`` puts them in place of the SDK's guess)."""
    # MCPServer keeps its low-level server private; its own run_stdio_async uses it the same way.
    return server._lowlevel_server.create_initialization_options()


class LedgerServer(MCPServer):
    """MCPServer whose resource list also names the documents in the current pack, and
    whose prompts refuse an unknown name or a missing argument with -32602."""

    ledgers: Ledgers
    recorder: Recorder
    notifier: ChangeNotifier
    in_flight: InFlight

    async def read_resource(self, uri: Any, context: Context | None = None) -> Any:
        """Read a resource with its request context at hand, for the audit log."""
        token = REQUEST.set(context)
        try:
            return await super().read_resource(uri, context)
        except ResourceNotFoundError:  # no body ran to record it: recorded here, as asked
            self._refused("unknown resource", {"uri": str(uri)}, context, unknown_resource(str(uri)))
            raise
        finally:
            REQUEST.reset(token)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Call a tool; an unknown name is -32602 naming the tools (what clients expect of
        tools/call), and arguments the input schema refuses get a sentence in the
        project's words (:mod:`~ledger_context.mcp.arguments`), not pydantic's dump."""
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            names = sorted(t.name for t in self._tool_manager.list_tools())
            message = f"unknown tool {cut(name, 80)!r}: the tools are {', '.join(names)}"
            self._refused("unknown tool", {"name": name, "arguments": arguments}, context, message)
            raise MCPError(code=INVALID_PARAMS, message=message)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            refused = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(refused, ValidationError):
                raise  # a fault of the tool, not of the arguments
            message = argument_error(name, tool.parameters, refused)
            self._refused(name, arguments, context, message)
            # The same cause, so the SDK still logs the field names only.
            raise ToolError(message) from refused

    def _refused(
        self, call: str, arguments: dict[str, Any], context: Context[Any, Any] | None, why: str
    ) -> None:
        """Record a request refused before any tool or prompt body ran (no build, no pack)."""
        self.recorder.record(call=call, arguments=arguments, build=None, ctx=context, refused=why)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        prompts = {p.name: p for p in await self.list_prompts()}
        prompt = prompts.get(name)
        given = arguments or {}
        if prompt is None:
            message = f"unknown prompt {cut(name, 80)!r}: the prompts are {', '.join(sorted(prompts))}"
            self._refused("unknown prompt", {"name": name, "arguments": given}, context, message)
            raise MCPError(code=INVALID_PARAMS, message=message)
        declared = prompt.arguments or []
        for argument in declared:
            if argument.required and argument.name not in given:
                what = argument.description or "a string"
                message = f"prompt {name} needs the argument {argument.name!r} ({what})"
                self._refused(f"prompt {name}", given, context, message)
                raise MCPError(code=INVALID_PARAMS, message=message)
        unknown = sorted(set(given) - {argument.name for argument in declared})
        if unknown:
            allowed = ", ".join(repr(argument.name) for argument in declared) or "none"
            message = f"prompt {name} has no argument {cut(unknown[0], 40)!r}: its arguments are {allowed}"
            self._refused(f"prompt {name}", given, context, message)
            raise MCPError(code=INVALID_PARAMS, message=message)
        try:
            return await super().get_prompt(name, arguments, context)
        except MCPError:
            raise
        except Exception:  # the SDK wraps every failure in ValueError: a bug of ours
            logger.exception("prompt %s failed", name)
            raise MCPError(
                code=INTERNAL_ERROR, message=f"prompt {name} failed; the server log has the details"
            ) from None

    async def list_resources(self) -> list[MCPResource]:
        """The pack resource, then one resource per document in the pack (bounded by the
        pack, not by the ledger's size)."""
        listed = await super().list_resources()
        try:
            space = self.ledgers.space(None)
            build = await anyio.to_thread.run_sync(self.ledgers.build, space)
        except LedgerContextError:
            return listed
        for source, uri in zip(build.sources(), document_uris(build), strict=True):
            listed.append(
                MCPResource(
                    uri=uri,
                    name=source.path,
                    description="A ledger document in the current pack (full text)",
                    mime_type="text/markdown",
                )
            )
        return listed


def _serve_changes(server: LedgerServer, notifier: ChangeNotifier) -> None:
    """Serve 2025-era subscriptions and advertise exactly the notifications sent, on both
    protocol generations (the SDK's own guess would claim tool and prompt list changes on
    2026-07-28 and no resource list changes on 2025-11-25)."""
    lowlevel = server._lowlevel_server
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, notifier.on_subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, notifier.on_unsubscribe)
    listen = lowlevel.get_request_handler("subscriptions/listen")
    if listen is not None:
        lowlevel.add_request_handler(
            "subscriptions/listen", SubscriptionsListenRequestParams, bounded_listen(listen.handler, PACK_URI)
        )
    lowlevel.add_notification_handler(
        "notifications/initialized", NotificationParams, notifier.on_initialized
    )
    derived = lowlevel.get_capabilities

    def capabilities(*args: Any, **kwargs: Any) -> ServerCapabilities:
        return derived(*args, **kwargs).model_copy(
            update={
                "tools": CAPABILITIES.tools,
                "prompts": CAPABILITIES.prompts,
                "resources": CAPABILITIES.resources,
            }
        )

    lowlevel.get_capabilities = capabilities  # type: ignore[method-assign]


def create_server(
    explicit_space: Path | None = None, settings: Settings = DEFAULT_SETTINGS, audit: AuditLog | None = None
) -> LedgerServer:
    """An MCP server over the core. ``explicit_space`` is ``--space`` / ``LEDGER_SPACE``;
    ``settings`` were checked at the edge (:func:`~ledger_context.pack.settings.make_settings`);
    every answered call is recorded in ``audit`` (``None``: no audit log).

    The space is found per request (so the server starts, and answers ``initialize``
    and ``tools/list``, even when there is none yet).
    """
    ledgers = Ledgers(explicit_space, settings)
    bus = InMemorySubscriptionBus()  # ours, so the watcher can publish outside a request
    in_flight = InFlight()
    notifier = ChangeNotifier(
        lambda: ledgers.space(None),
        ledgers.build,
        document_uris,
        bus,
        PACK_URI,
        quiet=in_flight.quiet,
        after_check=ledgers.write_indexes,
    )

    @asynccontextmanager
    async def watching(_server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(notifier.run)
            yield {}
            tasks.cancel_scope.cancel()
        # What the last builds left for the ledger index: a session may end before the
        # server was ever quiet (the index then costs the next start time, never bytes).
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(ledgers.write_indexes)

    server = LedgerServer(
        name="ledger-context",
        version=__version__,
        instructions=_INSTRUCTIONS.format(cap_tokens=settings.cap_tokens),
        cache_hints=CACHE_HINTS,
        subscriptions=bus,
        lifespan=watching,
        extensions=[budget_apps()],
        middleware=[in_flight.track, explain_protocol_errors],
    )
    recorder = Recorder(audit, ledgers.space_named, lambda: ledgers.settings_now().ceiling)
    server.ledgers, server.recorder, server.notifier = ledgers, recorder, notifier
    server.in_flight = in_flight
    _serve_changes(server, notifier)
    tools = ToolRegistry(server, server.recorder)
    register_tools(tools, ledgers, lambda: notifier.watcher)
    register_search(tools, ledgers)
    register_resources(server, ledgers, server.recorder)
    register_prompt(server, ledgers, server.recorder)
    return server


def start_measuring(server: LedgerServer) -> None:
    """Load the tokenizers in the background once the server's first build is done and no
    request is being answered (both transports): a vocabulary takes about a second of the
    interpreter to load, never on a request's path, and its load would otherwise slow the
    first build and the first answer, which often waits on that build."""
    preload(after=server.notifier.settled)


def serve(
    explicit_space: Path | None = None,
    settings: Settings = DEFAULT_SETTINGS,
    audit: AuditLog | None = None,
    log_level: str = "info",
) -> None:
    """Serve over stdio until stdin closes, the client goes away, or SIGINT/SIGTERM,
    recording in ``audit`` (``None``: off). Raises InvalidArgumentError before serving."""
    # Before MCPServer(): its constructor calls logging.basicConfig(); stdout is JSON-RPC only.
    log = configure_logging(log_level)
    server = create_server(explicit_space, settings, audit)
    logger.info(
        "ledger-context %s serving over stdio (space: %s, cap %d tokens, ceiling %s, audit log %s)",
        __version__,
        display_path(explicit_space) if explicit_space else "chosen per request",
        settings.cap_tokens,
        settings.ceiling or "none",
        display_path(audit.path) if audit is not None else "off",
    )
    if audit is not None:  # a signal's forced exit still writes what the log has queued
        on_hard_exit(lambda: audit.close(0.5))

    def drain_log() -> None:
        log.drain(0.2)

    on_hard_exit(drain_log)
    start_measuring(server)
    try:
        serve_stdio(server._lowlevel_server, initialization_options(server))
    finally:
        if audit is not None:
            audit.close()
        log.drain(0.5)


def serve_http(
    explicit_space: Path,
    settings: Settings,
    audit: AuditLog | None,
    options: HttpOptions,
    auth: AuthOptions | None = None,
    log_level: str = "info",
) -> None:
    """Serve the ledger of ``explicit_space`` over Streamable HTTP (one ledger: a client's
    roots never choose it) until SIGINT/SIGTERM, then answer what is in flight and end.
    Raises :class:`InvalidArgumentError` before serving."""
    from .http import check_http_options, http_app, listen, run_app  # here: stdio never loads uvicorn

    check_http_options(options, auth)
    log = configure_logging(log_level)
    server = create_server(explicit_space, audit=audit, settings=settings)
    sock = listen(options)
    port = sock.getsockname()[1]
    bound = replace(options, port=port)  # port 0 asked for a free one: the Host checks need it
    try:
        app = http_app(server._lowlevel_server, server.ledgers, bound, auth)
        logger.info(
            "ledger-context %s serving over HTTP at %s (listening on %s:%d; space: %s, cap %d tokens, "
            "ceiling %s, authorization %s, audit log %s)",
            __version__,
            bound.url,
            options.host,
            port,
            display_path(explicit_space),
            settings.cap_tokens,
            settings.ceiling or "none",
            f"issuer {auth.issuer}" if auth is not None else "off (loopback only)",
            display_path(audit.path) if audit is not None else "off",
        )
        start_measuring(server)
        run_app(app, sock)
    finally:
        sock.close()
        if audit is not None:
            audit.close()
        log.drain(0.5)

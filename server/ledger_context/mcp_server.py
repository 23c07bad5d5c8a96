"""The MCP stdio server: a thin adapter over the core, the only module that imports ``mcp``.

Tools: ``get_context`` (the pack as plain text, a receipt in ``_meta``),
``explain_budget`` (the breakdown as structured output) and ``read_document`` (one
document's text, in pages). Resources: ``ledger://pack`` and ``ledger://document/{+path}``;
subscribers hear when they change (:mod:`~ledger_context.mcp_watch`). Prompt:
``start-task``. Logs go to stderr only. Every call answered is put in the audit log
through :meth:`Recorder.record`.
Logs never block (:mod:`ledger_context.stderr_log`); the stdio channel is
:mod:`ledger_context.mcp_stdio`. Core errors become JSON-RPC errors in :func:`mcp_error`;
capabilities are :data:`CAPABILITIES`, exactly what is delivered.
"""

from __future__ import annotations

import contextvars
import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, unquote, urlparse
from urllib.request import url2pathname

import anyio
import anyio.to_thread
from mcp.server import CacheHint
from mcp.server.caching import CacheableMethod
from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    ListRootsResult,
    NotificationParams,
    PromptsCapability,
    ResourcesCapability,
    ServerCapabilities,
    SubscribeRequestParams,
    TextContent,
    ToolAnnotations,
    ToolsCapability,
    UnsubscribeRequestParams,
)
from mcp_types import Resource as MCPResource
from pydantic import ConfigDict, Field, RootModel

from . import __version__
from .audit import AuditLog, CallRecord, arguments_json, utc_now
from .brief import Brief
from .budget import DEFAULT_CAP_TOKENS
from .context import ContextBuild, ContextBuilder
from .errors import (
    DocumentNotFoundError,
    DocumentWithheldError,
    InvalidArgumentError,
    LedgerContextError,
    SpaceNotFoundError,
)
from .explain import DETAILS, Explanation, explain
from .explain_path import PathAnswer, explain_path
from .fields import clean_text
from .mcp_apps import VIEW_META, budget_apps
from .mcp_stdio import on_hard_exit, serve_stdio
from .mcp_watch import ChangeNotifier
from .paging import PAGE_BYTES, Page, page_of
from .readout import brief_readout, budget_text, path_text
from .served import served_text
from .space import display_path, find_space, holds_ledger
from .stderr_log import configure_logging, cut

logger = logging.getLogger("ledger_context")

RECEIPT_KEY = "ledger-context/receipt"
"""``_meta`` key of ``get_context``'s receipt: the figures ``explain_budget`` reports."""

PAGE_KEY = "ledger-context/page"
"""``_meta`` key of ``read_document``'s page: offset, next_offset (``None`` on the last
page), bytes and total_bytes, all in bytes of the UTF-8 text."""

PACK_URI = "ledger://pack"
DOCUMENT_TEMPLATE = "ledger://document/{+path}"
DOCUMENT_PREFIX = "ledger://document/"

_INSTRUCTIONS = """\
ledger-context serves this repository's experiment ledger (.ledger/: agents.md, harnesses, \
evals, findings, decisions, experiments).
- At the start of every task, call get_context once: it returns the context pack, a \
deterministic digest of the ledger capped at {cap_tokens} tokens (1 token = 4 UTF-8 bytes) — \
agents.md, active harnesses and evals, current findings, accepted decisions and the 10 \
latest experiments, as title lines and frontmatter.
- If something you expected seems missing, call explain_budget with its path: it says \
where that document went and why (kept, truncated, dropped, withheld, not selected, \
skipped). Without a path it gives a short summary of the budget; detail "full" lists \
every block, but can be large.
- To read a document in full, call read_document with the path shown in brackets in the \
pack's title lines (e.g. .ledger/decisions/0007-use-jwt.md). A long document comes in \
pages; the last line of a page says how to continue. (Clients that read resources can \
also read ledger://document/<path>.)"""


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

_READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
_DETAIL_SCHEMA = {"type": "string", "enum": list(DETAILS), "default": "brief"}
DetailArg = Annotated[
    Any,
    Field(
        description="'brief' or 'full'. get_context returns the same pack for both (ADR-0028); "
        "explain_budget lists every block and problem with 'full'.",
        json_schema_extra=_DETAIL_SCHEMA,
    ),
]


ExplainPathArg = Annotated[
    Any,
    Field(
        description="A ledger path, e.g. .ledger/decisions/0007-use-jwt.md: answers for that one "
        "document (where it went and why) instead of the whole budget; detail is then ignored.",
        json_schema_extra={"type": "string"},
    ),
]


class ExplainResult(RootModel[Brief | Explanation | PathAnswer]):
    """explain_budget's structured output: a brief, a full explanation or a path answer
    (told apart by ``detail``)."""

    model_config = ConfigDict(json_schema_extra={"type": "object"})


class _Ledgers:
    """Chooses the space for a request and keeps one builder (and its cache) per space."""

    def __init__(self, explicit_space: Path | None, cap_tokens: int, max_data_class: str | None) -> None:
        self.explicit_space = explicit_space
        self.cap_tokens = cap_tokens
        self.max_data_class = max_data_class
        self._builders: dict[Path, ContextBuilder] = {}
        self._lock = threading.Lock()
        self._logged: Path | None = None
        self.from_roots: Path | None = None

    def space(self, roots: ListRootsResult | None) -> Path:
        """The space: --space/LEDGER_SPACE, else the first client root holding .ledger,
        else the upward search from the working directory. Raises SpaceNotFoundError.

        ``roots`` is ``None`` where the SDK cannot ask the client (resources, the prompt):
        those then use the space the client's roots chose last, so every reader of one
        session serves the same ledger once a tool has been called.
        """
        space: Path | None = None
        if self.explicit_space is not None:
            space = find_space(self.explicit_space)
        elif roots is None:
            space = self.from_roots
        else:
            self.from_roots = None
            for root in roots.roots:
                candidate = _root_path(str(root.uri))
                if candidate is not None and holds_ledger(candidate):
                    space = self.from_roots = candidate
                    break
        if space is None:
            space = find_space(None)
        if space != self._logged:
            logger.info("ledger-context: using the space %s", display_path(space))
            self._logged = space
        return space

    def build(self, space: Path) -> ContextBuild:
        """Build the pack of ``space`` now; one build at a time per server."""
        with self._lock:
            builder = self._builders.get(space)
            if builder is None:
                builder = ContextBuilder(space, self.cap_tokens, self.max_data_class)
                self._builders[space] = builder
            build = builder.build()
            build.provenance()  # git is asked here, in the worker thread, never on the event loop
            return build


class Recorder:
    """Puts every answered call into the audit log (``log`` ``None``: the log is off).

    The one function every tool, resource and prompt calls; it never raises and never
    waits for the disk (see :class:`~ledger_context.audit.AuditLog`).
    """

    def __init__(self, log: AuditLog | None) -> None:
        self.log = log

    @property
    def state(self) -> str:
        """``ok``, ``off`` or ``failing: <reason>``."""
        return "off" if self.log is None else self.log.state

    def record(
        self,
        *,
        call: str,
        arguments: dict[str, Any],
        build: ContextBuild,
        ctx: Context | None,
        document_sha256: str | None = None,
    ) -> None:
        """Record ``call`` with ``arguments``, answered from ``build``, for the client of ``ctx``."""
        if self.log is None:
            return
        try:
            name, version, protocol = _client_of(ctx)
            origin = build.provenance(refresh=False)
            b = build.budgeted
            record = CallRecord(
                time=utc_now(),
                client_name=name,
                client_version=version,
                protocol=protocol,
                call=call,
                arguments=arguments_json(arguments),
                space=display_path(build.ledger.space),
                cap_tokens=b.cap_tokens,
                ceiling=build.ceiling,
                sha256=b.sha256,
                bytes=b.pack_bytes,
                tokens=b.tokens,
                truncated=b.truncated,
                dropped_blocks=b.dropped,
                commit=origin.commit,
                dirty=origin.dirty,
                fingerprint=origin.fingerprint,
                document_sha256=document_sha256,
                pid=_PID,
            )
            self.log.record(record, build.pack)
        except Exception:  # recording must never fail the call it records
            logger.exception("ledger-context: could not record %s in the audit log", call)


_PID = os.getpid()

_REQUEST: contextvars.ContextVar[Context | None] = contextvars.ContextVar("ledger_request", default=None)
"""The request context of a resource read (static resources get none from the SDK)."""


def _client_of(ctx: Context | None) -> tuple[str | None, str | None, str | None]:
    """The client's name, version and protocol version for ``ctx``, where known."""
    if ctx is None:
        return None, None, None
    try:
        params = ctx.session.client_params
        info = params.client_info if params is not None else None
        return (
            info.name if info is not None else None,
            info.version if info is not None else None,
            ctx.protocol_version,
        )
    except Exception:  # outside a request, or a session without those facts
        return None, None, None


def _root_path(uri: str) -> Path | None:
    """The local directory of a ``file:`` root URI (``None`` for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(url2pathname(parsed.path))


def _document_uris(build: ContextBuild) -> tuple[str, ...]:
    """The ``ledger://document/…`` URIs ``resources/list`` names: the pack's sources."""
    return tuple(DOCUMENT_PREFIX + quote(source.path, safe="/") for source in build.sources())


async def served_document(build: ContextBuild, path: str) -> str:
    """The text of the document ``build`` accepted at ``path``, for the resource and the tool:
    the bytes that build read and classified (:func:`~ledger_context.served.served_text`)."""
    return await anyio.to_thread.run_sync(served_text, build, path)


def _page_result(path: str, text: str, offset: int) -> CallToolResult:
    """One page of ``text``; a page that is not the last ends with a line on how to go on,
    and the whole page stays within :data:`PAGE_BYTES`."""
    page = page_of(text, offset)
    if page.next_offset is not None:
        reserve = len(_continue_line(path, page.total, page.total).encode("utf-8"))
        page = page_of(text, offset, max(PAGE_BYTES - reserve, 4))
    body = page.text if page.next_offset is None else page.text + _continue_line(path, page.end, page.total)
    return CallToolResult(content=[TextContent(type="text", text=body)], _meta={PAGE_KEY: _page_meta(page)})


def _continue_line(path: str, end: int, total: int) -> str:
    return (
        f"\n[read_document: this page ends at byte {end} of {total}; to continue, call "
        f"read_document with path {clean_text(path)!r} and offset {end}]"
    )


def _page_meta(page: Page) -> dict[str, int | None]:
    return {
        "offset": page.offset,
        "next_offset": page.next_offset,
        "bytes": page.end - page.offset,
        "total_bytes": page.total,
    }


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _check_detail(detail: Any) -> str | None:
    if isinstance(detail, str) and detail in DETAILS:
        return None
    shown = repr(detail)  # ASCII-safe for odd strings; cut so a huge value is not echoed
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"invalid detail {shown}: allowed values are 'brief' and 'full'"


def receipt(build: ContextBuild) -> dict[str, Any]:
    """The receipt ``get_context`` carries in ``_meta``: the same figures as ``explain_budget``."""
    b = build.budgeted
    origin = build.provenance(refresh=False)
    return {
        "bytes": b.pack_bytes,
        "tokens": b.tokens,
        "cap_tokens": b.cap_tokens,
        "cap_bytes": b.cap_bytes,
        "truncated": b.truncated,
        "dropped_blocks": b.dropped,
        "sha256": b.sha256,
        "commit": origin.commit,
        "dirty": origin.dirty,
        "fingerprint": origin.fingerprint,
    }


_ERROR_CODES: dict[type[LedgerContextError], int] = {
    InvalidArgumentError: INVALID_PARAMS,  # the request named something unknown or refused
    DocumentNotFoundError: INVALID_PARAMS,  # SEP-2164: an unknown resource is -32602
    DocumentWithheldError: INVALID_PARAMS,
    SpaceNotFoundError: INTERNAL_ERROR,  # the server has no ledger: not the request's fault
}


def mcp_error(exc: LedgerContextError) -> MCPError:
    """The JSON-RPC error for a core error raised while serving a resource or a prompt:
    the code of its nearest class in ``_ERROR_CODES`` (add new core errors there), else
    -32603; the message is the core's, which says what to do."""
    code = next((_ERROR_CODES[c] for c in type(exc).__mro__ if c in _ERROR_CODES), INTERNAL_ERROR)
    return MCPError(code=code, message=str(exc))


def initialization_options(server: MCPServer) -> InitializationOptions:
    """The SDK's initialization options; their capabilities are :data:`CAPABILITIES`
    (``_serve_changes`` puts them in place of the SDK's guess)."""
    # MCPServer keeps its low-level server private; its own run_stdio_async uses it the same way.
    return server._lowlevel_server.create_initialization_options()


class LedgerServer(MCPServer):
    """MCPServer whose resource list also names the documents in the current pack, and
    whose prompts refuse an unknown name or a missing argument with -32602."""

    ledgers: _Ledgers
    recorder: Recorder
    notifier: ChangeNotifier

    async def read_resource(self, uri: Any, context: Context | None = None) -> Any:
        """Read a resource with its request context at hand, for the audit log."""
        token = _REQUEST.set(context)
        try:
            return await super().read_resource(uri, context)
        finally:
            _REQUEST.reset(token)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        prompts = {p.name: p for p in await self.list_prompts()}
        prompt = prompts.get(name)
        if prompt is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"unknown prompt {cut(name, 80)!r}: the prompts are {', '.join(sorted(prompts))}",
            )
        given = arguments or {}
        for argument in prompt.arguments or []:
            if argument.required and argument.name not in given:
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"prompt {name} needs the argument {argument.name!r} "
                    f"({argument.description or 'a string'})",
                )
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
        for source, uri in zip(build.sources(), _document_uris(build), strict=True):
            listed.append(
                MCPResource(
                    uri=uri,
                    name=source.path,
                    description="A ledger document in the current pack (full text)",
                    mime_type="text/markdown",
                )
            )
        return listed


async def _client_roots(ctx: Context) -> ListRoots | ListRootsResult:
    server = ctx.mcp_server
    caps = ctx.client_capabilities
    if (
        (isinstance(server, LedgerServer) and server.ledgers.explicit_space is not None)
        or caps is None
        or caps.roots is None
    ):
        return ListRootsResult(roots=[])
    return ListRoots()


RootsArg = Annotated[ListRootsResult, Resolve(_client_roots)]
PathArg = Annotated[
    str,
    Field(
        description="The document's path as shown in brackets in a pack title line, relative "
        "to the space, e.g. .ledger/decisions/0007-use-jwt.md (a ledger://document/ URI works too)"
    ),
]
OffsetArg = Annotated[
    int,
    Field(ge=0, description="Byte offset to start at: 0, or the offset a previous page named"),
]


def _serve_changes(server: LedgerServer, notifier: ChangeNotifier) -> None:
    """Serve 2025-era subscriptions and advertise exactly the notifications sent, on both
    protocol generations (the SDK's own guess would claim tool and prompt list changes on
    2026-07-28 and no resource list changes on 2025-11-25)."""
    lowlevel = server._lowlevel_server
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, notifier.on_subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, notifier.on_unsubscribe)
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
    explicit_space: Path | None = None,
    cap_tokens: int = DEFAULT_CAP_TOKENS,
    max_data_class: str | None = None,
    audit: AuditLog | None = None,
) -> LedgerServer:
    """An MCP server over the core. ``explicit_space`` is ``--space`` / ``LEDGER_SPACE``;
    every answered call is recorded in ``audit`` (``None``: no audit log).

    The space is found per request (so the server starts, and answers ``initialize``
    and ``tools/list``, even when there is none yet). Raises
    :class:`~ledger_context.errors.InvalidArgumentError` for a bad cap or ceiling.
    """
    ledgers = _Ledgers(explicit_space, cap_tokens, max_data_class)
    ContextBuilder(Path("."), cap_tokens, max_data_class, cache=False)  # validates both now
    instructions = _INSTRUCTIONS.format(cap_tokens=cap_tokens)
    bus = InMemorySubscriptionBus()  # ours, so the watcher can publish outside a request
    notifier = ChangeNotifier(lambda: ledgers.space(None), ledgers.build, _document_uris, bus, PACK_URI)

    @asynccontextmanager
    async def watching(_server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(notifier.run)
            yield {}
            tasks.cancel_scope.cancel()

    server = LedgerServer(
        name="ledger-context",
        version=__version__,
        instructions=instructions,
        cache_hints=CACHE_HINTS,
        subscriptions=bus,
        lifespan=watching,
        extensions=[budget_apps()],
    )
    server.ledgers = ledgers
    recorder = server.recorder = Recorder(audit)
    server.notifier = notifier
    _serve_changes(server, notifier)

    async def build_for(roots: ListRootsResult | None) -> ContextBuild:
        space = ledgers.space(roots)
        return await anyio.to_thread.run_sync(ledgers.build, space)

    async def checked_build(roots: ListRootsResult | None, detail: Any) -> ContextBuild | CallToolResult:
        """The build for a tool call, or the error result a bad ``detail`` or no space gives."""
        if (fault := _check_detail(detail)) is not None:
            return _error(fault)
        return await tool_build(roots)

    async def tool_build(roots: ListRootsResult | None) -> ContextBuild | CallToolResult:
        try:
            return await build_for(roots)
        except LedgerContextError as exc:
            return _error(str(exc))
        except Exception as exc:  # say what failed, not a bare "Error executing tool"
            logger.exception("building the pack failed")
            return _error(f"building the pack failed ({type(exc).__name__}); the server log has the details")

    @server.tool(
        name="get_context",
        title="Get the ledger context pack",
        description=(
            "Call once at the start of a task. Returns the context pack of the experiment "
            f"ledger as plain text: at most {cap_tokens} tokens (1 token = 4 UTF-8 bytes): "
            "agents.md, active harnesses and evals, current findings, accepted decisions and "
            "the 10 latest experiments (title lines and frontmatter). Deterministic: the same "
            "ledger gives the same bytes. _meta carries a receipt (bytes, tokens, sha256)."
        ),
        annotations=_READ_ONLY,
        structured_output=False,
    )
    async def get_context(ctx: Context, roots: RootsArg, detail: DetailArg = "brief") -> CallToolResult:
        build = await checked_build(roots, detail)
        if isinstance(build, CallToolResult):
            return build
        recorder.record(call="get_context", arguments={"detail": detail}, build=build, ctx=ctx)
        return CallToolResult(
            content=[TextContent(type="text", text=build.pack)],
            _meta={RECEIPT_KEY: receipt(build)},
        )

    @server.tool(
        name="explain_budget",
        title="Explain the context pack's budget",
        description=(
            "Call when something seems missing from get_context's pack. detail='brief' (the "
            "default, under 2 KB of text and 4 KB of data for any ledger): the 4-bytes-per-token "
            "rule and the cap, pack totals and SHA-256, one line per group, documents per kind, "
            "the blocks not kept per group, problem counts, the data classes and what a ceiling "
            "withheld. path='<ledger path>': where that one document went and why (under 1 KB). "
            "detail='full': every block, source, withheld source and problem; it can be large "
            "(hundreds of KB on a big ledger). Contains no document text."
        ),
        annotations=_READ_ONLY,
        meta=VIEW_META,
    )
    async def explain_budget(
        ctx: Context, roots: RootsArg, detail: DetailArg = "brief", path: ExplainPathArg = None
    ) -> Annotated[CallToolResult, ExplainResult]:
        build = await checked_build(roots, detail)
        if isinstance(build, CallToolResult):
            return build
        recorder.record(
            call="explain_budget", arguments={"detail": detail, "path": path}, build=build, ctx=ctx
        )
        data: Brief | Explanation | PathAnswer
        if path is not None:
            try:
                data = explain_path(build, path)
            except LedgerContextError as exc:
                return _error(str(exc))
            text = path_text(data)
        else:
            full = explain(build, "full").model_copy(update={"audit": recorder.state})
            if detail == "full":
                data, text = full, budget_text(full)
            else:
                data, text = brief_readout(full)
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=data.model_dump(mode="json"),
            _meta={RECEIPT_KEY: receipt(build)},
        )

    @server.tool(
        name="read_document",
        title="Read a ledger document",
        description=(
            "Returns the full text of one ledger document the reader accepted, as plain text: "
            "call it with the path shown in brackets in a pack title line when the frontmatter "
            "is not enough. A document over 40,000 bytes comes in pages: a page that is not "
            "the last ends with a line saying which offset to call next; _meta carries the "
            "page's offset, next_offset and total_bytes. Documents withheld by the data-class "
            "ceiling and paths outside the ledger are refused."
        ),
        annotations=_READ_ONLY,
        structured_output=False,
    )
    async def read_document(
        roots: RootsArg, ctx: Context, path: PathArg, offset: OffsetArg = 0
    ) -> CallToolResult:
        build = await tool_build(roots)
        if isinstance(build, CallToolResult):
            return build
        if path.startswith(DOCUMENT_PREFIX):
            path = unquote(path[len(DOCUMENT_PREFIX) :])
        try:
            result = _page_result(path, await served_document(build, path), offset)
        except LedgerContextError as exc:
            return _error(str(exc))
        accepted = next(d for d in build.ledger.documents if d.path == path)
        recorder.record(
            call="read_document",
            arguments={"path": path, "offset": offset},
            build=build,
            ctx=ctx,
            document_sha256=accepted.sha256,
        )
        return result

    @server.resource(
        PACK_URI,
        name="pack",
        title="Context pack",
        description="The context pack, exactly what get_context returns",
        mime_type="text/markdown",
    )
    async def pack_resource() -> str:
        try:
            build = await build_for(None)
        except LedgerContextError as exc:
            raise mcp_error(exc) from None
        recorder.record(call=f"resource {PACK_URI}", arguments={}, build=build, ctx=_REQUEST.get())
        return build.pack

    @server.resource(
        DOCUMENT_TEMPLATE,
        name="document",
        title="Ledger document",
        description=(
            "The full text of one ledger document the reader accepted. <path> is the path in "
            "a pack title line, relative to the space, e.g. .ledger/decisions/0007-use-jwt.md."
        ),
        mime_type="text/markdown",
    )
    async def document_resource(path: str, ctx: Context) -> str:
        try:
            build = await build_for(None)
            text = await served_document(build, path)
        except LedgerContextError as exc:
            raise mcp_error(exc) from None
        accepted = next(d for d in build.ledger.documents if d.path == path)
        recorder.record(
            call=f"resource {DOCUMENT_TEMPLATE}",
            arguments={"path": path},
            build=build,
            ctx=ctx,
            document_sha256=accepted.sha256,
        )
        return text

    @server.prompt(
        name="start-task",
        title="Start a task with the ledger's context",
        description="Hands the model the context pack and asks it to use it for the task.",
    )
    async def start_task(
        task: Annotated[str, Field(description="The task, in one line")],
        ctx: Context,
    ) -> str:
        try:
            build = await build_for(None)
        except LedgerContextError as exc:
            pack = f"(no context pack: {exc})"
        else:
            recorder.record(call="prompt start-task", arguments={"task": task}, build=build, ctx=ctx)
            pack = build.pack
        return (
            f"Task: {clean_text(task)}\n\n"
            "Below is the context pack of this repository's experiment ledger: agents.md, "
            "active harnesses and evals, current findings, accepted decisions and the latest "
            "experiments. Follow agents.md, respect accepted decisions, build on current "
            "findings, and read a document in full with the tool read_document (the path in "
            "its title line) when its frontmatter is not enough.\n\n"
            f"<context-pack>\n{pack}</context-pack>"
        )

    return server


def serve(
    explicit_space: Path | None = None,
    cap_tokens: int = DEFAULT_CAP_TOKENS,
    max_data_class: str | None = None,
    audit: AuditLog | None = None,
    log_level: str = "info",
) -> None:
    """Serve over stdio until stdin closes, the client goes away, or SIGINT/SIGTERM,
    recording in ``audit`` (``None``: off). Raises InvalidArgumentError before serving."""
    # Before MCPServer(): its constructor calls logging.basicConfig(); stdout is JSON-RPC only.
    log = configure_logging(log_level)
    server = create_server(explicit_space, cap_tokens, max_data_class, audit)
    logger.info(
        "ledger-context %s serving over stdio (space: %s, cap %d tokens, ceiling %s, audit log %s)",
        __version__,
        display_path(explicit_space) if explicit_space else "chosen per request",
        cap_tokens,
        max_data_class or "none",
        display_path(audit.path) if audit is not None else "off",
    )
    if audit is not None:  # a signal's forced exit still writes what the log has queued
        on_hard_exit(lambda: audit.close(0.5))

    def drain_log() -> None:
        log.drain(0.2)

    on_hard_exit(drain_log)
    try:
        serve_stdio(server._lowlevel_server, initialization_options(server))
    finally:
        if audit is not None:
            audit.close()
        log.drain(0.5)

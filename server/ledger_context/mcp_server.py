"""The MCP stdio server: a thin adapter over the core, the only module that imports ``mcp``.

Tools: ``get_context`` (the pack as plain text, a receipt in ``_meta``) and
``explain_budget`` (the breakdown as structured output). Resources: ``ledger://pack``
and ``ledger://document/{+path}``. Prompt: ``start-task``. Logs go to stderr only, never
blocking (:mod:`ledger_context.stderr_log`); the stdio channel is :mod:`ledger_context.mcp_stdio`.
Core errors become JSON-RPC errors in :func:`mcp_error`; capabilities follow the
``*_DELIVERED`` switches.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlparse
from urllib.request import url2pathname

import anyio
import anyio.to_thread
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    ListRootsResult,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Resource as MCPResource
from pydantic import Field

from . import __version__
from .budget import DEFAULT_CAP_TOKENS
from .context import ContextBuild, ContextBuilder
from .errors import InvalidArgumentError, LedgerContextError, SpaceNotFoundError
from .explain import DETAILS, Explanation, explain
from .fields import clean_text
from .ledger import document_text
from .mcp_stdio import serve_stdio
from .readout import budget_text
from .space import display_path, find_space, holds_ledger
from .stderr_log import configure_logging, cut

logger = logging.getLogger("ledger_context")

RECEIPT_KEY = "ledger-context/receipt"
"""``_meta`` key of ``get_context``'s receipt: the figures ``explain_budget`` reports."""

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
- If something you expected seems missing, call explain_budget: it lists every block \
kept, dropped or truncated and why, the data class of each source, and what a data-class \
ceiling withheld.
- To read a document in full, read the resource ledger://document/<path>, where <path> is \
the path shown in brackets in the pack's title lines (e.g. \
ledger://document/.ledger/decisions/0007-use-jwt.md)."""

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
            return builder.build()


def _root_path(uri: str) -> Path | None:
    """The local directory of a ``file:`` root URI (``None`` for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(url2pathname(parsed.path))


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
    return {
        "bytes": b.pack_bytes,
        "tokens": b.tokens,
        "cap_tokens": b.cap_tokens,
        "cap_bytes": b.cap_bytes,
        "truncated": b.truncated,
        "dropped_blocks": b.dropped,
        "sha256": b.sha256,
    }


# What the server delivers: the one source of the capabilities it advertises, in the
# initialize result (2025-11-25) and in server/discover (2026-07-28). Switch one on only
# together with the notifications it promises.
SUBSCRIPTIONS_DELIVERED = False
"""resources/subscribe (2025-11-25) and subscriptions/listen (2026-07-28) served."""
LIST_CHANGED_DELIVERED = False
"""notifications/{tools,resources,prompts}/list_changed sent."""

_ERROR_CODES: dict[type[LedgerContextError], int] = {
    InvalidArgumentError: INVALID_PARAMS,  # the request named something unknown or refused
    SpaceNotFoundError: INTERNAL_ERROR,  # the server has no ledger: not the request's fault
}


def mcp_error(exc: LedgerContextError) -> MCPError:
    """The JSON-RPC error for a core error raised while serving a resource or a prompt:
    the code of its nearest class in ``_ERROR_CODES`` (add new core errors there), else
    -32603; the message is the core's, which says what to do."""
    code = next((_ERROR_CODES[c] for c in type(exc).__mro__ if c in _ERROR_CODES), INTERNAL_ERROR)
    return MCPError(code=code, message=str(exc))


def initialization_options(server: MCPServer) -> InitializationOptions:
    """The SDK's initialization options, capabilities from the ``*_DELIVERED`` switches."""
    notifications = NotificationOptions(
        prompts_changed=LIST_CHANGED_DELIVERED,
        resources_changed=LIST_CHANGED_DELIVERED,
        tools_changed=LIST_CHANGED_DELIVERED,
    )
    # MCPServer keeps its low-level server private; its own run_stdio_async uses it the same way.
    return server._lowlevel_server.create_initialization_options(notifications)


class LedgerServer(MCPServer):
    """MCPServer whose resource list also names the documents in the current pack, and
    whose prompts refuse an unknown name or a missing argument with -32602."""

    ledgers: _Ledgers

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
        for source in build.sources():
            listed.append(
                MCPResource(
                    uri=DOCUMENT_PREFIX + quote(source.path, safe="/"),
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


def create_server(
    explicit_space: Path | None = None,
    cap_tokens: int = DEFAULT_CAP_TOKENS,
    max_data_class: str | None = None,
) -> LedgerServer:
    """An MCP server over the core. ``explicit_space`` is ``--space`` / ``LEDGER_SPACE``.

    The space is found per request (so the server starts, and answers ``initialize``
    and ``tools/list``, even when there is none yet). Raises
    :class:`~ledger_context.errors.InvalidArgumentError` for a bad cap or ceiling.
    """
    ledgers = _Ledgers(explicit_space, cap_tokens, max_data_class)
    ContextBuilder(Path("."), cap_tokens, max_data_class, cache=False)  # validates both now
    instructions = _INSTRUCTIONS.format(cap_tokens=cap_tokens)
    server = LedgerServer(
        name="ledger-context",
        version=__version__,
        instructions=instructions,
        subscriptions=None if SUBSCRIPTIONS_DELIVERED or LIST_CHANGED_DELIVERED else False,
    )
    server.ledgers = ledgers

    async def build_for(roots: ListRootsResult | None) -> ContextBuild:
        space = ledgers.space(roots)
        return await anyio.to_thread.run_sync(ledgers.build, space)

    async def checked_build(roots: ListRootsResult | None, detail: Any) -> ContextBuild | CallToolResult:
        """The build for a tool call, or the error result a bad ``detail`` or no space gives."""
        if (fault := _check_detail(detail)) is not None:
            return _error(fault)
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
    async def get_context(roots: RootsArg, detail: DetailArg = "brief") -> CallToolResult:
        build = await checked_build(roots, detail)
        if isinstance(build, CallToolResult):
            return build
        return CallToolResult(
            content=[TextContent(type="text", text=build.pack)],
            _meta={RECEIPT_KEY: receipt(build)},
        )

    @server.tool(
        name="explain_budget",
        title="Explain the context pack's budget",
        description=(
            "Call when something seems missing from get_context's pack. Returns the breakdown "
            "of that pack as data: the 4-bytes-per-token rule and the cap, pack totals and "
            "SHA-256, one line per group, every block dropped or truncated and why (every "
            "block with detail='full'), documents read and selected per kind, the data class "
            "of each source by path, the effective class, and what a ceiling withheld. "
            "Contains no document text."
        ),
        annotations=_READ_ONLY,
    )
    async def explain_budget(
        roots: RootsArg, detail: DetailArg = "brief"
    ) -> Annotated[CallToolResult, Explanation]:
        build = await checked_build(roots, detail)
        if isinstance(build, CallToolResult):
            return build
        explanation = explain(build, detail)
        return CallToolResult(
            content=[TextContent(type="text", text=budget_text(explanation))],
            structured_content=explanation.model_dump(mode="json"),
            _meta={RECEIPT_KEY: receipt(build)},
        )

    @server.resource(
        PACK_URI,
        name="pack",
        title="Context pack",
        description="The context pack, exactly what get_context returns",
        mime_type="text/markdown",
    )
    async def pack_resource() -> str:
        try:
            return (await build_for(None)).pack
        except LedgerContextError as exc:
            raise mcp_error(exc) from None

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
    async def document_resource(path: str) -> str:
        try:
            build = await build_for(None)
            accepted = {d.path: d for d in build.ledger.documents}
            if path not in accepted:
                raise InvalidArgumentError(
                    f"unknown document: no ledger document at {cut(path, 200)!r}; use a path from "
                    "the pack's title lines, e.g. .ledger/decisions/0007-use-jwt.md"
                )
            if any(d.path == path for d in build.selection.withheld):
                raise InvalidArgumentError(
                    f"withheld document: {path} is withheld by the data-class ceiling {build.ceiling}"
                )
        except LedgerContextError as exc:
            raise mcp_error(exc) from None
        try:
            return await anyio.to_thread.run_sync(document_text, build.ledger.space, path)
        except (OSError, ValueError) as exc:
            raise MCPError(code=INTERNAL_ERROR, message=f"{path} cannot be read now: {exc}") from None

    @server.prompt(
        name="start-task",
        title="Start a task with the ledger's context",
        description="Hands the model the context pack and asks it to use it for the task.",
    )
    async def start_task(
        task: Annotated[str, Field(description="The task, in one line")],
    ) -> str:
        try:
            pack = (await build_for(None)).pack
        except LedgerContextError as exc:
            pack = f"(no context pack: {exc})"
        return (
            f"Task: {clean_text(task)}\n\n"
            "Below is the context pack of this repository's experiment ledger: agents.md, "
            "active harnesses and evals, current findings, accepted decisions and the latest "
            "experiments. Follow agents.md, respect accepted decisions, build on current "
            "findings, and read a document in full with the resource "
            "ledger://document/<path> when its frontmatter is not enough.\n\n"
            f"<context-pack>\n{pack}</context-pack>"
        )

    return server


def serve(
    explicit_space: Path | None = None,
    cap_tokens: int = DEFAULT_CAP_TOKENS,
    max_data_class: str | None = None,
    log_level: str = "info",
) -> None:
    """Serve over stdio until stdin closes, the client goes away, or SIGINT/SIGTERM.
    Raises InvalidArgumentError before serving."""
    # Before MCPServer(): its constructor calls logging.basicConfig(); stdout is JSON-RPC only.
    log = configure_logging(log_level)
    server = create_server(explicit_space, cap_tokens, max_data_class)
    logger.info(
        "ledger-context %s serving over stdio (space: %s, cap %d tokens, ceiling %s)",
        __version__,
        display_path(explicit_space) if explicit_space else "chosen per request",
        cap_tokens,
        max_data_class or "none",
    )
    serve_stdio(server._lowlevel_server, initialization_options(server))
    log.drain(0.5)

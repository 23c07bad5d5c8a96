"""The MCP stdio server: a thin adapter over the core, the only module that imports ``mcp``.

Tools: ``get_context`` (the pack as plain text, a receipt in ``_meta``) and
``explain_budget`` (the breakdown as structured output). Resources: ``ledger://pack``
and ``ledger://document/{+path}``. Prompt: ``start-task``. Logs go to stderr only.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlparse
from urllib.request import url2pathname

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ResourceError
from mcp_types import CallToolResult, ListRootsResult, TextContent, ToolAnnotations
from mcp_types import Resource as MCPResource
from pydantic import ConfigDict, Field, RootModel

from . import __version__
from .brief import Brief
from .budget import DEFAULT_CAP_TOKENS
from .context import ContextBuild, ContextBuilder
from .errors import LedgerContextError
from .explain import DETAILS, Explanation, explain
from .explain_path import PathAnswer, explain_path
from .fields import clean_text
from .ledger import document_text
from .mcp_apps import VIEW_META, budget_apps
from .readout import brief_readout, budget_text, path_text
from .space import display_path, find_space, holds_ledger

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
- If something you expected seems missing, call explain_budget with its path: it says \
where that document went and why (kept, truncated, dropped, withheld, not selected, \
skipped). Without a path it gives a short summary of the budget; detail "full" lists \
every block, but can be large.
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


PathArg = Annotated[
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


class LedgerServer(MCPServer):
    """MCPServer whose resource list also names the documents in the current pack."""

    ledgers: _Ledgers

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
        name="ledger-context", version=__version__, instructions=instructions, extensions=[budget_apps()]
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
        roots: RootsArg, detail: DetailArg = "brief", path: PathArg = None
    ) -> Annotated[CallToolResult, ExplainResult]:
        build = await checked_build(roots, detail)
        if isinstance(build, CallToolResult):
            return build
        data: Brief | Explanation | PathAnswer
        if path is not None:
            try:
                data = explain_path(build, path)
            except LedgerContextError as exc:
                return _error(str(exc))
            text = path_text(data)
        elif detail == "full":
            data = explain(build, "full")
            text = budget_text(data)
        else:
            data, text = brief_readout(explain(build, "full"))
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=data.model_dump(mode="json"),
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
            raise ResourceError(str(exc)) from None

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
        except LedgerContextError as exc:
            raise ResourceError(str(exc)) from None
        accepted = {d.path: d for d in build.ledger.documents}
        if path not in accepted:
            raise ResourceError(
                f"no ledger document at {path!r}: use a path from the pack's title lines, "
                "e.g. .ledger/decisions/0007-use-jwt.md"
            )
        if any(d.path == path for d in build.selection.withheld):
            raise ResourceError(f"{path} is withheld by the data-class ceiling {build.ceiling}")
        try:
            return await anyio.to_thread.run_sync(document_text, build.ledger.space, path)
        except (OSError, ValueError) as exc:
            raise ResourceError(f"{path} cannot be read now: {exc}") from None

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


def _configure_logging() -> None:
    # Before MCPServer(): its constructor calls logging.basicConfig(); stdout is JSON-RPC only.
    reconfigure = getattr(sys.stderr, "reconfigure", None)
    if reconfigure is not None:
        # A console that cannot encode a path (PYTHONIOENCODING=cp1252) escapes it instead.
        reconfigure(errors="backslashreplace")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


def serve(
    explicit_space: Path | None = None,
    cap_tokens: int = DEFAULT_CAP_TOKENS,
    max_data_class: str | None = None,
) -> None:
    """Serve over stdio until stdin closes. Raises InvalidArgumentError before serving."""
    _configure_logging()
    server = create_server(explicit_space, cap_tokens, max_data_class)
    logger.info(
        "ledger-context %s serving over stdio (space: %s, cap %d tokens, ceiling %s)",
        __version__,
        display_path(explicit_space) if explicit_space else "chosen per request",
        cap_tokens,
        max_data_class or "none",
    )
    server.run()

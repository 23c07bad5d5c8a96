"""The three tools: ``get_context`` (the pack, a receipt in ``_meta``), ``explain_budget``
(the breakdown as structured output) and ``read_document`` (one document, in pages).

Each tool checks its arguments with the core (:mod:`~ledger_context.pack.settings`), builds,
records the call and answers; every error becomes a tool error in
:func:`~ledger_context.mcp.error_map.tool_error`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any
from urllib.parse import unquote

import anyio.to_thread
from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp_types import CallToolResult, ListRootsResult, TextContent, ToolAnnotations
from pydantic import ConfigDict, Field, RootModel

from ..explain.brief import Brief
from ..explain.full import Explanation, explain, explanation_data
from ..explain.path import PathAnswer, explain_path
from ..explain.readout import brief_readout, budget_text, path_text
from ..model.errors import LedgerContextError
from ..model.fields import clean_text
from ..model.kinds import pack_contents
from ..pack.build import ContextBuild
from ..pack.paging import PAGE_BYTES, Page, page_of
from ..pack.served import served_text
from ..pack.settings import DETAILS, check_detail
from .apps import VIEW_META
from .error_map import tool_error
from .ledgers import DOCUMENT_PREFIX, Ledgers
from .record import Recorder

RECEIPT_KEY = "ledger-context/receipt"
"""``_meta`` key of ``get_context``'s receipt: the figures ``explain_budget`` reports."""

PAGE_KEY = "ledger-context/page"
"""``_meta`` key of ``read_document``'s page: offset, next_offset (``None`` on the last
page), bytes and total_bytes, all in bytes of the UTF-8 text."""

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


async def _client_roots(ctx: Context) -> ListRoots | ListRootsResult:
    ledgers = getattr(ctx.mcp_server, "ledgers", None)
    caps = ctx.client_capabilities
    if (
        (isinstance(ledgers, Ledgers) and ledgers.explicit_space is not None)
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


async def build_for(ledgers: Ledgers, roots: ListRootsResult | None) -> ContextBuild:
    """The build of the space ``roots`` choose (``None``: the last one chosen), made in a
    worker thread."""
    space = ledgers.space(roots)
    return await anyio.to_thread.run_sync(ledgers.build, space)


async def _tool_build(ledgers: Ledgers, roots: ListRootsResult | None, detail: Any = "brief") -> ContextBuild:
    """The build for a tool call; raises for a bad ``detail`` (checked first) or no space."""
    check_detail(detail)
    return await build_for(ledgers, roots)


async def served_document(build: ContextBuild, path: str) -> str:
    """The text of the document ``build`` accepted at ``path``, for the resource and the tool:
    the bytes that build read and classified (:func:`~ledger_context.pack.served.served_text`)."""
    return await anyio.to_thread.run_sync(served_text, build, path)


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


def _explanation(
    build: ContextBuild, detail: str, path: Any, audit_state: str
) -> tuple[Brief | Explanation | PathAnswer, str]:
    """explain_budget's data and text: the path answer, the full breakdown or the brief."""
    if path is not None:
        answer = explain_path(build, path)
        return answer, path_text(answer)
    full = replace(explain(build, "full"), audit=audit_state)
    if detail == "full":
        return full, budget_text(full)
    return brief_readout(full)


def register_tools(server: MCPServer, ledgers: Ledgers, recorder: Recorder) -> None:
    """Register ``get_context``, ``explain_budget`` and ``read_document`` on ``server``."""
    _register_get_context(server, ledgers, recorder)
    _register_explain_budget(server, ledgers, recorder)
    _register_read_document(server, ledgers, recorder)


def _register_get_context(server: MCPServer, ledgers: Ledgers, recorder: Recorder) -> None:
    @server.tool(
        name="get_context",
        title="Get the ledger context pack",
        description=(
            "Call once at the start of a task. Returns the context pack of the experiment "
            f"ledger as plain text: at most {ledgers.settings.cap_tokens} tokens (1 token = 4 UTF-8 "
            f"bytes): {pack_contents()} (title lines and frontmatter). Deterministic: the same "
            "ledger gives the same bytes. _meta carries a receipt (bytes, tokens, sha256)."
        ),
        annotations=_READ_ONLY,
        structured_output=False,
    )
    async def get_context(ctx: Context, roots: RootsArg, detail: DetailArg = "brief") -> CallToolResult:
        try:
            build = await _tool_build(ledgers, roots, detail)
        except Exception as exc:
            return tool_error(exc)
        recorder.record(call="get_context", arguments={"detail": detail}, build=build, ctx=ctx)
        return CallToolResult(
            content=[TextContent(type="text", text=build.pack)],
            _meta={RECEIPT_KEY: receipt(build)},
        )


def _register_explain_budget(server: MCPServer, ledgers: Ledgers, recorder: Recorder) -> None:
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
        try:
            build = await _tool_build(ledgers, roots, detail)
        except Exception as exc:
            return tool_error(exc)
        recorder.record(
            call="explain_budget", arguments={"detail": detail, "path": path}, build=build, ctx=ctx
        )
        try:
            data, text = _explanation(build, detail, path, recorder.state)
        except LedgerContextError as exc:
            return tool_error(exc)
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=(
                explanation_data(data) if isinstance(data, Explanation) else data.model_dump(mode="json")
            ),
            _meta={RECEIPT_KEY: receipt(build)},
        )


def _register_read_document(server: MCPServer, ledgers: Ledgers, recorder: Recorder) -> None:
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
        try:
            build = await build_for(ledgers, roots)
        except Exception as exc:
            return tool_error(exc)
        if path.startswith(DOCUMENT_PREFIX):
            path = unquote(path[len(DOCUMENT_PREFIX) :])
        try:
            result = _page_result(path, await served_document(build, path), offset)
        except LedgerContextError as exc:
            return tool_error(exc)
        accepted = build.document(path)
        recorder.record(
            call="read_document",
            arguments={"path": path, "offset": offset},
            build=build,
            ctx=ctx,
            document_sha256=accepted.sha256 if accepted is not None else None,
        )
        return result

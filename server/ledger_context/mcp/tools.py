"""The three tools: ``get_context`` (the pack, a receipt in ``_meta``), ``explain_budget``
(the breakdown as structured output) and ``read_document`` (one document, in pages).

Each tool checks its arguments with the core (:mod:`~ledger_context.pack.settings`), builds
and answers; :class:`~ledger_context.mcp.registry.ToolRegistry` records the answer and turns
every error into a tool error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, replace
from datetime import UTC, datetime
from typing import Annotated, Any
from urllib.parse import unquote

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ListRootsResult, TextContent
from pydantic import ConfigDict, Field, RootModel

from ..explain.breakdown import Explanation, explanation_data
from ..explain.brief import Brief
from ..explain.full import explain
from ..explain.path import PathAnswer, explain_path
from ..explain.readout import brief_readout, budget_text, path_text
from ..model.fields import clean_text
from ..model.kinds import pack_contents
from ..pack.changes import check_since, since_receipt, unchanged_line
from ..pack.context import ContextBuild
from ..pack.measure import Measured, measure
from ..pack.paging import PAGE_BYTES, Page, page_of
from ..pack.settings import DETAILS, check_detail
from ..reader.watch import WatchState
from .apps import VIEW_META
from .ledgers import DOCUMENT_PREFIX, Ledgers, RootsArg, build_for, serve_document
from .registry import RECEIPT_KEY, Answer, ToolRegistry

PAGE_KEY = "ledger-context/page"
"""``_meta`` key of ``read_document``'s page: offset, next_offset (``None`` on the last
page), bytes and total_bytes, all in bytes of the UTF-8 text."""

# The catalogue is budgeted (mcp/catalogue.py): descriptions say when to call what, once.
_DETAIL_SCHEMA = {"type": "string", "enum": list(DETAILS), "default": "brief"}
DetailArg = Annotated[Any, Field(description="The same pack either way", json_schema_extra=_DETAIL_SCHEMA)]
ExplainDetailArg = Annotated[
    Any, Field(description="'full' lists every block and problem", json_schema_extra=_DETAIL_SCHEMA)
]
SinceArg = Annotated[
    Any,
    Field(
        description="The receipt sha256 of the pack you hold: if unchanged, a one-line answer",
        json_schema_extra={"type": "string"},
    ),
]
ExplainPathArg = Annotated[
    Any,
    Field(
        description="A ledger path, e.g. .ledger/decisions/0007-use-jwt.md: that document alone",
        json_schema_extra={"type": "string"},
    ),
]


class ExplainResult(RootModel[Brief | Explanation | PathAnswer]):
    """explain_budget's structured output: a brief, a full explanation or a path answer
    (told apart by ``detail``)."""

    model_config = ConfigDict(json_schema_extra={"type": "object"})


PathArg = Annotated[
    str, Field(description="A pack title line's path, e.g. .ledger/decisions/0007-use-jwt.md, or its URI")
]
OffsetArg = Annotated[int, Field(ge=0, strict=True, description="0, or the offset a page named")]


async def _tool_build(ledgers: Ledgers, roots: ListRootsResult | None, detail: Any = "brief") -> ContextBuild:
    """The build for a tool call; raises for a bad ``detail`` (checked first) or no space."""
    check_detail(detail)
    return await build_for(ledgers, roots)


def receipt(
    build: ContextBuild, watcher: WatchState = "stopped", measured: tuple[Measured, ...] = ()
) -> dict[str, Any]:
    """The receipt ``get_context`` carries in ``_meta``: the same figures as ``explain_budget``;
    how fresh they are: when the build read the files (``built_at``, UTC), how long ago
    (``build_age_ms``), and how the server notices changes (``watcher``); and ``measured``:
    real tokenizers' counts beside the rule (spec §9)."""
    b = build.budgeted
    origin = build.provenance(refresh=False)
    now = time.time()
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
        "built_at": datetime.fromtimestamp(build.built_at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "build_age_ms": max(0, round((now - build.built_at) * 1000)),
        "watcher": watcher,
        "measured": [asdict(m) for m in measured],
    }


async def measured_of(build: ContextBuild) -> tuple[Measured, ...]:
    """The pack's measured tokens, counted in a worker thread (once per pack: counts are
    kept by SHA-256); a tokenizer still loading is not waited for."""
    b = build.budgeted
    return await anyio.to_thread.run_sync(lambda: measure(b.pack, b.tokens, sha256=b.sha256, wait=False))


def _page_result(path: str, text: str, offset: int, sha256: str) -> CallToolResult:
    """One page of ``text`` (whose bytes have digest ``sha256``); a page that is not the last
    ends with a line on how to go on, and the whole page stays within :data:`PAGE_BYTES`."""
    page = page_of(text, offset)
    if page.next_offset is not None:
        reserve = len(_continue_line(path, page.total, page.total).encode("utf-8"))
        page = page_of(text, offset, max(PAGE_BYTES - reserve, 4))
    body = page.text if page.next_offset is None else page.text + _continue_line(path, page.end, page.total)
    meta = {PAGE_KEY: _page_meta(page, sha256)}
    return CallToolResult(content=[TextContent(type="text", text=body)], _meta=meta)


def _continue_line(path: str, end: int, total: int) -> str:
    return (
        f"\n[read_document: this page ends at byte {end} of {total}; to continue, call "
        f"read_document with path {clean_text(path)!r} and offset {end}]"
    )


def _page_meta(page: Page, sha256: str) -> dict[str, int | str | None]:
    # The digest lets a client see that pages read across an edit come from two versions.
    return {
        "offset": page.offset,
        "next_offset": page.next_offset,
        "bytes": page.end - page.offset,
        "total_bytes": page.total,
        "sha256": sha256,
    }


def _explanation(
    build: ContextBuild, detail: str, path: Any, audit_state: str
) -> tuple[Brief | Explanation | PathAnswer, str]:
    """explain_budget's data and text: the path answer, the full breakdown or the brief."""
    if path is not None:
        answer = explain_path(build, path)
        return answer, path_text(answer)
    full = replace(explain(build, "full", wait=False), audit=audit_state)
    if detail == "full":
        return full, budget_text(full)
    return brief_readout(full)


Watcher = Callable[[], WatchState]
"""How the server notices changes right now (the change notifier's state)."""


def register_tools(tools: ToolRegistry, ledgers: Ledgers, watcher: Watcher) -> None:
    """Register ``get_context``, ``explain_budget`` and ``read_document``, answered from
    ``ledgers``; their receipts report ``watcher()``."""
    _register_get_context(tools, ledgers, watcher)
    _register_explain_budget(tools, ledgers, watcher)
    _register_read_document(tools, ledgers)


def _register_get_context(tools: ToolRegistry, ledgers: Ledgers, watcher: Watcher) -> None:
    @tools.tool(
        name="get_context",
        title="Get the ledger context pack",
        description=(
            "Call at the start of every task: the ledger's context pack "
            f"({pack_contents()}), at most {ledgers.settings.cap_tokens} tokens. _meta holds its "
            "receipt (sha256, size, freshness); pass since=<sha256> later to check it cheaply."
        ),
    )
    async def get_context(
        ctx: Context, roots: RootsArg, detail: DetailArg = "brief", since: SinceArg = None
    ) -> Answer:
        check_detail(detail)
        held = check_since(since)
        build = await build_for(ledgers, roots)
        budgeted, arguments = build.budgeted, {"detail": detail}
        meta = receipt(build, watcher(), await measured_of(build))
        if held is not None:  # the pack's bytes never depend on since; the answer may
            meta["since"] = since_receipt(held, budgeted, ledgers.served(build.ledger.space).blocks(held))
            arguments["since"] = held
        ledgers.served(build.ledger.space).remember(budgeted)
        text = unchanged_line(budgeted) if held == budgeted.sha256 else build.pack
        result = CallToolResult(content=[TextContent(type="text", text=text)], _meta={RECEIPT_KEY: meta})
        return Answer(result, build, arguments)


def _register_explain_budget(tools: ToolRegistry, ledgers: Ledgers, watcher: Watcher) -> None:
    recorder = tools.recorder

    @tools.tool(
        name="explain_budget",
        title="Explain the context pack's budget",
        description=(
            "Call when something seems missing from the pack. With path: where that document "
            "went and why. Without: a bounded summary (rule, totals, groups, what was not kept "
            "or withheld); detail='full' lists every block (can be large). No document text."
        ),
        output=ExplainResult,
        meta=VIEW_META,
    )
    async def explain_budget(
        ctx: Context, roots: RootsArg, detail: ExplainDetailArg = "brief", path: ExplainPathArg = None
    ) -> Answer:
        build = await _tool_build(ledgers, roots, detail)
        # In a worker thread: the path search and the full breakdown grow with the ledger.
        data, text = await anyio.to_thread.run_sync(_explanation, build, detail, path, recorder.state)
        result = CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=(
                explanation_data(data) if isinstance(data, Explanation) else data.model_dump(mode="json")
            ),
            _meta={RECEIPT_KEY: receipt(build, watcher())},
        )
        return Answer(result, build, {"detail": detail, "path": path})


def _register_read_document(tools: ToolRegistry, ledgers: Ledgers) -> None:
    @tools.tool(
        name="read_document",
        title="Read a ledger document",
        description=(
            "The full text of one ledger document, when its frontmatter is not enough. A long "
            "document comes in pages; a page's last line names the offset to call next. "
            "Withheld documents are refused."
        ),
    )
    async def read_document(roots: RootsArg, ctx: Context, path: PathArg, offset: OffsetArg = 0) -> Answer:
        build = await build_for(ledgers, roots)
        asked = {"path": path, "offset": offset}  # recorded as the client sent it
        if path.startswith(DOCUMENT_PREFIX):
            path = unquote(path[len(DOCUMENT_PREFIX) :])
        accepted, text = await serve_document(build, path)
        result = _page_result(accepted.path, text, offset, accepted.sha256)
        return Answer(result, build, asked, accepted)

"""The ``search_ledger`` tool: the documents a task needs, ranked and explained (spec §10).

The body asks the core (:func:`~ledger_context.search.result.search`) with the index the
server keeps for the space; the audit log gets the query and each hit's path and SHA-256.
"""

from __future__ import annotations

from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent
from pydantic import Field

from ..model.document import KINDS
from ..model.errors import DocumentChangedError
from ..search.result import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    SearchResult,
    recorded_hits,
    search,
    search_data,
    search_text,
)
from .ledgers import Ledgers, RootsArg, build_for
from .registry import Answer, ToolRegistry

QueryArg = Annotated[Any, Field(json_schema_extra={"type": "string"})]
KindArg = Annotated[Any, Field(json_schema_extra={"type": "string", "enum": list(KINDS)})]
LimitArg = Annotated[
    Any,
    Field(
        json_schema_extra={"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}
    ),
]


def register_search(tools: ToolRegistry, ledgers: Ledgers) -> None:
    """Register ``search_ledger``, answered from ``ledgers``."""

    @tools.tool(
        name="search_ledger",
        title="Search",
        # Short: the catalogue has a byte budget; the README and the output say the rest.
        description="Ranked ledger documents for the task's words: path, matches, in_pack, excerpt.",
        output=SearchResult,
    )
    async def search_ledger(
        ctx: Context, roots: RootsArg, query: QueryArg, kind: KindArg = None, limit: LimitArg = DEFAULT_LIMIT
    ) -> Answer:
        build = await build_for(ledgers, roots)
        index = ledgers.search_index(build.ledger.space)
        try:
            result = await anyio.to_thread.run_sync(lambda: search(build, query, kind, limit, index))
        except DocumentChangedError:
            # A document changed after the build read it (search reads each again): one
            # fresh build reads the change; a second change in between still says "call again".
            build = await build_for(ledgers, roots)
            result = await anyio.to_thread.run_sync(lambda: search(build, query, kind, limit, index))
        answer = CallToolResult(
            content=[TextContent(type="text", text=search_text(result))],
            structured_content=search_data(result),
        )
        arguments = {
            "query": query,  # as sent: the log stores any string (lone surrogates escaped)
            "kind": kind,
            "limit": limit,
            "hits": recorded_hits(build, result),
        }
        return Answer(answer, build, arguments)

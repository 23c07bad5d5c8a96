"""How a request reaches a build: the space the client's roots choose, the build made in a
worker thread, the bytes of one document as that build read them, and what a search is
recorded as. Shared by the tools, the resources and the prompt, which sit side by side.
"""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from mcp.server.mcpserver import Context, ListRoots, Resolve
from mcp_types import ListRootsResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..pack.build import ContextBuild
from ..pack.served import served_text
from ..search.result import SearchResult
from .ledgers import Ledgers


async def _client_roots(ctx: Context) -> ListRoots | ListRootsResult:
    """The client's roots, asked only as a fallback and only of a 2025-11-25 client: roots
    are deprecated in 2026-07-28, where ``--space``, ``LEDGER_SPACE`` or the working
    directory choose (asking would cost every call a round trip)."""
    ledgers = getattr(ctx.mcp_server, "ledgers", None)
    caps = ctx.client_capabilities
    if (
        (isinstance(ledgers, Ledgers) and ledgers.explicit_space is not None)
        or caps is None
        or caps.roots is None
        or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
    ):
        return ListRootsResult(roots=[])
    return ListRoots()


RootsArg = Annotated[ListRootsResult, Resolve(_client_roots)]


async def build_for(ledgers: Ledgers, roots: ListRootsResult | None) -> ContextBuild:
    """The build of the space ``roots`` choose (``None``: the last one chosen), made in a
    worker thread."""
    space = ledgers.space(roots)
    return await anyio.to_thread.run_sync(ledgers.build, space)


async def served_document(build: ContextBuild, path: str) -> str:
    """The text of the document ``build`` accepted at ``path``, for the resource and the tool:
    the bytes that build read and classified (:func:`~ledger_context.pack.served.served_text`)."""
    return await anyio.to_thread.run_sync(served_text, build, path)


def searched(build: ContextBuild, result: SearchResult) -> list[dict[str, str]]:
    """Each hit's path and the SHA-256 of the bytes it was ranked from, for the audit log."""
    documents = {document.path: document for document in build.ledger.documents}
    return [{"path": hit.path, "sha256": documents[hit.path].sha256} for hit in result.hits]

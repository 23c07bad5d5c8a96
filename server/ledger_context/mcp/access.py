"""How a request reaches a build: the space the client's roots choose, the build made in a
worker thread, the bytes of one document as that build read them, and what a search is
recorded as. Shared by the tools, the resources and the prompt, which sit side by side.
"""

from __future__ import annotations

import logging
from typing import Annotated

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, Resolve
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ListRootsRequest, ListRootsResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from ..pack.context import ContextBuild
from ..pack.served import served_text
from ..search.result import SearchResult
from .ledgers import Ledgers

logger = logging.getLogger("ledger_context")


ROOTS_SECONDS = 5.0
"""How long a client may take to answer roots/list; one that does not is not asked again."""
_NO_ROOTS = ListRootsResult(roots=[])


async def _client_roots(ctx: Context) -> ListRootsResult:
    """The client's roots, asked only as a fallback and only of a 2025-11-25 client: roots
    are deprecated in 2026-07-28, where ``--space``, ``LEDGER_SPACE`` or the working
    directory choose (asking would cost every call a round trip). Roots the client cannot
    give (an error, no answer within :data:`ROOTS_SECONDS`, a root that is no URI the
    types accept) are no roots: the upward search from the working directory chooses, and
    the server log says why."""
    ledgers = getattr(ctx.mcp_server, "ledgers", None)
    caps = ctx.client_capabilities
    if (
        not isinstance(ledgers, Ledgers)
        or ledgers.explicit_space is not None
        or ledgers.roots_unanswered
        or caps is None
        or caps.roots is None
        or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
    ):
        return _NO_ROOTS
    try:
        with anyio.fail_after(ROOTS_SECONDS):
            roots: ListRootsResult = await ctx.session.send_request(
                ListRootsRequest(),
                ListRootsResult,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
            )
            return roots
    except TimeoutError:
        ledgers.roots_unanswered = True
        why = f"no answer to roots/list within {ROOTS_SECONDS:g} s (not asked again)"
    except MCPError as exc:
        why = f"the client answered roots/list with an error ({exc.error.code})"
    except ValidationError:
        why = "the client's roots/list answer holds a root that is not a file URI"
    except Exception as exc:  # e.g. no channel back to the client: asking failed, not the call
        why = f"roots/list could not be asked ({type(exc).__name__})"
    logger.warning("ledger-context: %s; the space is found from the working directory", why)
    return _NO_ROOTS


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

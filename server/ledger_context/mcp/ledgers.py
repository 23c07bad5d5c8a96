"""Which ledger a request reads, one builder (with its warm cache) per space, and how a
request reaches its build.

The space is chosen per request (``--space``, else the client's roots, else the upward
search), so the server starts and answers ``initialize`` even where there is no ledger yet.
The build is made in a worker thread, and a document's bytes are served as that build read
them; the tools, the resources and the prompt share these and sit side by side.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Annotated
from urllib.parse import quote, urlparse
from urllib.request import url2pathname

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, Resolve
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ListRootsRequest, ListRootsResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from ..model.document import Document
from ..model.errors import LedgerContextError
from ..pack.build import ContextBuilder
from ..pack.changes import ServedPacks
from ..pack.context import ContextBuild
from ..pack.served import serve
from ..pack.settings import Settings
from ..reader.indexed import is_fault
from ..reader.space import display_path, find_space, holds_ledger
from ..search.inverted import SearchIndex
from .caller import IDENTITY

logger = logging.getLogger("ledger_context")

DOCUMENT_PREFIX = "ledger://document/"


class Ledgers:
    """Chooses the space for a request and keeps one builder (and its cache) per space."""

    def __init__(self, explicit_space: Path | None, settings: Settings) -> None:
        self.explicit_space = explicit_space
        self.settings = settings
        self.unidentified = settings
        """What a build without an identity gets (team mode sets the lowest ceiling, so
        change notifications never follow a document some identity may not see)."""
        self._builders: dict[tuple[Path, str | None], ContextBuilder] = {}
        self._indexes: dict[tuple[Path, str | None], SearchIndex] = {}
        self._lock = threading.Lock()
        self._logged: Path | None = None
        self._index_said: dict[Path, str] = {}
        self.from_roots: Path | None = None
        self.roots_unanswered = False
        """The client left roots/list unanswered once: it is not asked again."""
        self._served: dict[tuple[Path, str | None], ServedPacks] = {}
        self._shown: dict[tuple[Path, str | None], tuple[tuple[object, ...], float]] = {}

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

    def space_named(self) -> Path | None:
        """The space a request is taken to be about before it is built (a refused call's,
        for the audit log): the one chosen last, else ``--space``; ``None`` if neither."""
        if self._logged is not None:
            return self._logged
        if self.explicit_space is None:
            return None
        try:
            return find_space(self.explicit_space)
        except LedgerContextError:
            return None

    def settings_now(self) -> Settings:
        """The settings of the request being answered: the server's cap, and the ceiling of
        its :data:`IDENTITY` (none: :attr:`unidentified`)."""
        identity = IDENTITY.get()
        if identity is None:
            return self.unidentified
        return self.settings._replace(ceiling=identity.ceiling)

    def build(self, space: Path) -> ContextBuild:
        """Build the pack of ``space`` now, under the ceiling of the request's identity; one
        build at a time per server, one builder (and cache) per space and ceiling."""
        settings = self.settings_now()
        with self._lock:
            builder = self._builders.get((space, settings.ceiling))
            if builder is None:
                builder = ContextBuilder(space, settings=settings, write_index_later=True)
                self._builders[(space, settings.ceiling)] = builder
            build = builder.build()
            origin = build.provenance()  # git is asked here, in the worker thread, never on the event loop
            self._say_index(space, build.index)
            shown = (build.budgeted.sha256, origin.commit, origin.dirty, origin.fingerprint)
            return self._dated((space, settings.ceiling), build, shown)

    def write_indexes(self) -> None:
        """Write the ledger index as each builder's last build left it: after the answer,
        never before it (:meth:`ChangeNotifier.run` calls this once the server is quiet, and
        after each later check)."""
        with self._lock:
            for (space, _ceiling), builder in list(self._builders.items()):
                self._say_index(space, builder.write_index())

    def _say_index(self, space: Path, report: str | None) -> None:
        """Log a fault of the ledger index of ``space`` (rebuilt, not written) once, not on
        every build."""
        if is_fault(report) and self._index_said.get(space) != report:
            self._index_said[space] = report or ""
            logger.warning("ledger-context: the ledger index of %s: %s", display_path(space), report)

    def _dated(
        self, key: tuple[Path, str | None], build: ContextBuild, shown: tuple[object, ...]
    ) -> ContextBuild:
        """``build``, dated when what its receipt shows last changed: a rebuild after an edit
        of a withheld document alone keeps the earlier ``built_at``, which would otherwise
        tell a client when a document it may not see was edited."""
        last = self._shown.get(key)
        if last is not None and last[0] == shown and last[1] < build.built_at:
            build = build.built_earlier(last[1])
        self._shown[key] = (shown, build.built_at)
        return build

    def served(self, space: Path) -> ServedPacks:
        """The packs served of ``space`` under the request's ceiling (bounded), for
        ``get_context(since=...)``: one memory per ceiling, so a pack served under a higher
        ceiling is never known to a lower one (its digest would confirm a guess, spec §8)."""
        key = (space, self.settings_now().ceiling)
        with self._lock:
            return self._served.setdefault(key, ServedPacks())

    def search_index(self, space: Path) -> SearchIndex:
        """The search index of ``space`` under the request's ceiling (one per ceiling: a
        withheld document is never indexed), kept while the server runs so that a search
        after an edit re-reads only the postings of the documents that changed."""
        key = (space, self.settings_now().ceiling)
        with self._lock:
            return self._indexes.setdefault(key, SearchIndex())


def _root_path(uri: str) -> Path | None:
    """The local directory of a ``file:`` root URI (``None`` for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(url2pathname(parsed.path))


def document_uris(build: ContextBuild) -> tuple[str, ...]:
    """The ``ledger://document/…`` URIs ``resources/list`` names: the pack's sources."""
    return tuple(DOCUMENT_PREFIX + quote(source.path, safe="/") for source in build.sources())


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


async def serve_document(build: ContextBuild, path: str) -> tuple[Document, str]:
    """The document ``build`` accepted at ``path`` and its text, for the resource and the
    tool, read in a worker thread: the bytes that build read and classified, and the
    document the audit log records them as (:func:`~ledger_context.pack.served.serve`)."""
    return await anyio.to_thread.run_sync(serve, build, path)

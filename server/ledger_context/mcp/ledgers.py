"""Which ledger a request reads, and one builder (with its warm cache) per space.

The space is chosen per request (``--space``, else the client's roots, else the upward
search), so the server starts and answers ``initialize`` even where there is no ledger yet.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from urllib.parse import quote, urlparse
from urllib.request import url2pathname

from mcp_types import ListRootsResult

from ..pack.build import ContextBuild, ContextBuilder
from ..pack.changes import ServedPacks
from ..pack.settings import Settings
from ..reader.space import display_path, find_space, holds_ledger

logger = logging.getLogger("ledger_context")

DOCUMENT_PREFIX = "ledger://document/"


class Ledgers:
    """Chooses the space for a request and keeps one builder (and its cache) per space."""

    def __init__(self, explicit_space: Path | None, settings: Settings) -> None:
        self.explicit_space = explicit_space
        self.settings = settings
        self._builders: dict[Path, ContextBuilder] = {}
        self._lock = threading.Lock()
        self._logged: Path | None = None
        self.from_roots: Path | None = None
        self.served = ServedPacks()
        """The packs served since the server started (bounded), for ``get_context(since=...)``."""

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
                builder = ContextBuilder(space, settings=self.settings)
                self._builders[space] = builder
            build = builder.build()
            build.provenance()  # git is asked here, in the worker thread, never on the event loop
            return build


def _root_path(uri: str) -> Path | None:
    """The local directory of a ``file:`` root URI (``None`` for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(url2pathname(parsed.path))


def document_uris(build: ContextBuild) -> tuple[str, ...]:
    """The ``ledger://document/…`` URIs ``resources/list`` names: the pack's sources."""
    return tuple(DOCUMENT_PREFIX + quote(source.path, safe="/") for source in build.sources())

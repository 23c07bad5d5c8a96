"""The context build: a built pack with everything needed to explain it.

What a build *is*, apart from how it is made (:mod:`~ledger_context.pack.build`: the cache,
the ledger index, warm builds): every surface that serves or explains a pack (served
reads, the explanations, search, the MCP tools) stands on this value and never on the
builder's machinery.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..model.classify import Source, effective_class, is_withheld
from ..model.document import Document
from ..model.values import cycles_uncollected
from ..reader.ledger import Ledger
from .budget import Budgeted
from .select import Selection
from .settings import Settings

if TYPE_CHECKING:
    from ..proof.provenance import HeadSource, Provenance
    from ..reader.walk import SourceFile


class ContextBuild:
    """A built pack with everything needed to explain it, and the settings it was built
    with; ``budgeted.pack`` is the pack text.

    Every surface (the selection, serving, the explanations, the MCP tools) asks the
    build which document is at a path (:meth:`document`) and whether it is withheld
    (:meth:`is_withheld`), so the answer is the one the selection gave.

    ``git`` is where HEAD is learnt, ``None`` when the build was made without provenance;
    ``built_at`` when the files were read (seconds since the epoch: a warm build is given
    again while every file keeps its identity, so a reused build is older than the call
    that checked it); ``index`` what became of the ledger index in this build (``used
    (…)``, ``rebuilt (why)``…), ``None`` when the index is off, never part of the pack.
    A plain class, not a dataclass: the ``pack`` command imports no ``dataclasses``
    (with ``inspect``, a quarter of its start-up).
    """

    __slots__ = ("_memo", "budgeted", "built_at", "git", "index", "ledger", "selection", "settings")

    def __init__(
        self,
        ledger: Ledger,
        selection: Selection,
        budgeted: Budgeted,
        settings: Settings,
        git: HeadSource | None = None,
        *,
        index: str | None = None,
        built_at: float | None = None,
        memo: dict[str, Any] | None = None,
    ) -> None:
        self.ledger = ledger
        self.selection = selection
        self.budgeted = budgeted
        self.settings = settings
        self.git = git
        self.index = index
        self.built_at = time.time() if built_at is None else built_at
        self._memo: dict[str, Any] = {} if memo is None else memo

    def __repr__(self) -> str:
        return f"ContextBuild({self.ledger.space!r}, {self.budgeted.pack_bytes} bytes, index={self.index!r})"

    def built_earlier(self, built_at: float) -> ContextBuild:
        """This build, said to have been made at ``built_at`` (what it holds is shared)."""
        return ContextBuild(
            self.ledger, self.selection, self.budgeted, self.settings, self.git,
            index=self.index, built_at=built_at, memo=self._memo,
        )  # fmt: skip

    @property
    def undeclared_class(self) -> str | None:
        """The class undeclared sources are read as for the ceiling (``None``: they pass)."""
        return self.settings.undeclared_class

    def withholds(self, data_class: str | None) -> bool:
        """True if this build's ceiling keeps a source of ``data_class`` out (spec §7)."""
        return is_withheld(data_class, self.ceiling, self.undeclared_class)

    @property
    def pack(self) -> str:
        """The pack text, exactly what ``get_context`` returns (spec §5–6)."""
        return self.budgeted.pack

    @property
    def ceiling(self) -> str | None:
        """The canonical data-class ceiling, ``None`` for none (spec §7)."""
        return self.settings.ceiling

    def document(self, path: str) -> Document | None:
        """The document the reader accepted at ``path`` (relative to the space), or ``None``."""
        by_path: dict[str, Document] | None = self._memo.get("by_path")
        if by_path is None:
            by_path = self._memo["by_path"] = {d.path: d for d in self.ledger.documents}
        return by_path.get(path)

    def changed(self, path: str) -> None:
        """Tell the builder that ``path`` no longer holds what this build read, or never
        did (an index entry signed by a holder of the key): its next build reads the file
        again instead of trusting what it kept of it."""
        hook = self._memo.get("on_changed")
        if hook is not None:
            hook(path)

    def source_file(self, path: str) -> SourceFile | None:
        """The file the walk found at ``path`` (relative to the space), or ``None``."""
        by_path: dict[str, SourceFile] | None = self._memo.get("sources_by_path")
        if by_path is None:
            files = self.ledger.walk.files if self.ledger.walk is not None else ()
            by_path = self._memo["sources_by_path"] = {s.path: s for s in files}
        return by_path.get(path)

    def is_withheld(self, path: str) -> bool:
        """Whether the ceiling withheld the document at ``path``: as the selection decided."""
        withheld: frozenset[str] | None = self._memo.get("withheld")
        if withheld is None:
            withheld = self._memo["withheld"] = frozenset(d.path for d in self.selection.withheld)
        return path in withheld

    def servable(self) -> tuple[Document, ...]:
        """Every document this build accepted that its ceiling lets through, in path order:
        what may be served, searched or counted (a withheld one never is)."""
        servable: tuple[Document, ...] | None = self._memo.get("servable")
        if servable is None:
            documents = self.ledger.documents
            servable = self._memo["servable"] = tuple(
                d for d in documents if not self.withholds(d.data_class)
            )
        return servable

    def in_pack(self, path: str) -> bool:
        """Whether the pack holds at least one byte of the document at ``path``."""
        paths: frozenset[str] | None = self._memo.get("in_pack")
        if paths is None:
            kept = (o.block.document.path for o in self.budgeted.blocks if o.kept_bytes > 0)
            paths = self._memo["in_pack"] = frozenset(kept)
        return path in paths

    def sources(self) -> list[Source]:
        """Every source that reached the pack (at least one kept byte), in pack order,
        with its declared class (spec §7)."""
        return [
            Source(outcome.block.document.path, outcome.block.document.data_class)
            for outcome in self.budgeted.blocks
            if outcome.kept_bytes > 0
        ]

    def effective_class(self) -> str | None:
        """The strictest class over :meth:`sources`, ``None`` if none declared one."""
        return effective_class(self.sources())

    def provenance(self, *, refresh: bool = True) -> Provenance:
        """Commit, dirty and fingerprint of this build (spec §8), with HEAD as it is now.

        Git is asked here, not while building, and again only when HEAD moved; with
        ``refresh`` False the last answer is given without asking (one call's receipt and
        record then agree). A build made without provenance reports no commit and no
        blob ids.
        """
        cached = self._memo.get("provenance")
        if not refresh and cached is not None:
            last: Provenance = cached[1]
            return last
        head = self.git.head() if self.git is not None else None
        if cached is not None and cached[0] is head:
            result: Provenance = cached[1]
            return result
        from ..proof.provenance import provenance

        # Every document's digest (made from the index on a warm start) and their sorted
        # pairs: many small objects, each full collection meanwhile walking a server's heap.
        with cycles_uncollected():
            result = provenance(
                self.ledger, head, self.is_withheld if self.selection.withheld else None, self.withholds
            )
        self._memo["provenance"] = (head, result)
        return result

"""One call builds the pack and its accounting: the core both the CLI and MCP read.

``ledger-context pack`` and ``get_context`` both call :meth:`ContextBuilder.build`,
so they cannot disagree; ``explain_budget`` reads the same :class:`ContextBuild`.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Mapping
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model.classify import Source, effective_class, is_withheld
from ..model.document import FileResult, lacks_frontmatter
from ..model.tokens import DEFAULT_CAP_TOKENS
from ..model.values import cycles_uncollected
from ..reader.cache import DocumentCache, WarmBuild
from ..reader.ledger import Document, Ledger, read_ledger
from ..reader.walk import SourceFile, Walk, walk_ledger
from .budget import Budgeted, apply_budget
from .select import Block, Selection, render, select
from .settings import DEFAULT_SETTINGS, Settings, make_settings

if TYPE_CHECKING:  # provenance asks git: imported when a build asks it (pack never does)
    from ..proof.provenance import HeadSource, Provenance
    from ..reader.indexed import IndexUse, SummaryKey


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

        result = provenance(self.ledger, head, self.is_withheld if self.selection.withheld else None)
        self._memo["provenance"] = (head, result)
        return result


class ContextBuilder:
    """Builds packs of one space, reusing parsed files that did not change.

    ``cache`` is True (a fresh :class:`~ledger_context.reader.cache.DocumentCache`), False, or
    a cache to use. With ``provenance`` (the default) documents inside a git work tree
    get their git blob ids and builds can tell their commit; ``git`` replaces the work
    tree (a build from a revision). ``settings`` were checked at the edge
    (:func:`~ledger_context.pack.settings.make_settings`). With ``settings.index`` the
    first build starts from the ledger index (a cache is then always kept).
    """

    def __init__(
        self,
        space: Path,
        settings: Settings = DEFAULT_SETTINGS,
        *,
        cache: bool | DocumentCache = True,
        provenance: bool = True,
        git: HeadSource | None = None,
    ) -> None:
        self.space = space
        self.settings = settings
        if isinstance(cache, DocumentCache):
            self._cache: DocumentCache | None = cache
        else:
            self._cache = DocumentCache() if cache or settings.index is not None else None
        self._warm: WarmBuild[Walk, ContextBuild] = WarmBuild()
        if git is None and provenance:
            from ..proof.provenance import WorkTree

            git = WorkTree(space)
        self.git = git
        self._index: IndexUse | None = None
        self._listings: Mapping[str, Any] | None = None
        self._changed: set[str] = set()
        """Paths a served read found changed since a build (ContextBuild.changed)."""

    def build(self) -> ContextBuild:
        """Read the ledger as it is now and build its pack (spec §1–7).

        With the cache on, a ledger whose files all kept their identity since the last
        build gives that build again (the same object).
        """
        with cycles_uncollected():
            if self._changed:
                self._forget_changed()
            walk = walk_ledger(self.space, self._listed())
            self._listings = walk.listings
            if (warm := self._warm.get(walk)) is not None:
                return warm
            # Blob ids cost a hash of every file: only where a work tree can use them.
            blob_hash = self.git.object_format() if self.git is not None and self.git.found else None
            ledger, selection, budgeted, index = self._read_select_budget(walk, blob_hash)
            build = ContextBuild(
                ledger, selection, budgeted, self.settings, self.git,
                index=index, memo={"on_changed": self._changed.add},
            )  # fmt: skip
            self._warm.put(walk, build, ledger.cached)
            return build

    def _forget_changed(self) -> None:
        """Read again, in this build, every file a served read found changed: the last
        build is not given again, and the cache forgets what it kept of those files. Where
        the index gave that file's entry and no read had confirmed it, the index is not
        trusted for any other file either: one that lied once (an entry signed by a holder
        of the key) would otherwise cost a "call again" per file it lies about."""
        self._warm = WarmBuild()
        cache, index = self._cache, self._index
        while self._changed:
            path = self._changed.pop()
            if cache is None:
                continue
            if index is not None and index.gave(path):
                index.distrust(cache, "a served read contradicted an entry")
            cache.forget(path)

    def _read_select_budget(
        self, walk: Walk, blob_hash: str | None
    ) -> tuple[Ledger, Selection, Budgeted, str | None]:
        """Read the ledger (from the index where it is trusted), select its blocks and
        apply the budget; every document whose bytes the pack holds (a kept or truncated
        block) that came from the index is read afresh first, and where one disagrees the
        pack is made again (spec §1: what is served is what was read). A dropped block
        serves no byte: like every document not selected, its entry is trusted while its
        file keeps its identity."""
        settings = self.settings
        cache = self._cache
        index = self._index_use()
        if index is None or cache is None:
            return (*self._select_budget(walk, blob_hash, cache, None), None)
        key = (settings.ceiling, settings.undeclared_class, blob_hash)
        if (summarized := self._from_summary(walk, blob_hash, cache, index, key)) is not None:
            return (*summarized, index.report)
        index.prime(cache, walk, blob_hash)
        try:
            ledger, selection, budgeted = self._select_budget(walk, blob_hash, cache, index)
        except (LookupError, ValueError, TypeError, AttributeError):
            # A value no read gives (an entry signed by a holder of the key) met a table or
            # an order: the index is dropped and every file read, as without one. A fault
            # of the build itself raises again.
            if not index.taken:
                raise
            index.distrust(cache)
            ledger, selection, budgeted = self._select_budget(walk, blob_hash, cache, index)
        blocks = [(block.group, block.document.path) for block in selection.blocks]
        index.save(cache, ledger, key, blocks, [d.path for d in selection.withheld])
        return ledger, selection, budgeted, index.report

    def _index_use(self) -> IndexUse | None:
        """The index as this builder uses it, made on first need; ``None`` when it is off."""
        cache = self._cache
        if self._index is None and self.settings.index is not None and cache is not None:
            from ..reader.indexed import IndexUse  # here: a build with the index off never loads it

            self._index = IndexUse(self.settings.index, self.space, self.settings.yaml, cache.racy_ns)
        return self._index

    def _listed(self) -> Mapping[str, Any] | None:
        """The folder listings the last walk kept, or on the first build those the index
        kept: a folder whose stamp is the same is not listed again (the walk checks)."""
        if self._listings is not None:
            return self._listings
        index = self._index_use()
        return index.listings() if index is not None else None

    def _from_summary(
        self, walk: Walk, blob_hash: str | None, cache: DocumentCache, index: IndexUse, key: SummaryKey
    ) -> tuple[Ledger, Selection, Budgeted] | None:
        """A new builder's first build, when the index summarizes the last build of this
        very walk with these settings: its selection as kept, every document it serves
        read afresh first (spec §1); ``None`` (and nothing kept of the attempt) when there
        is no such summary, a fresh read disagrees, or it holds a value no read gives."""
        summary = index.summary(walk, key)
        if summary is None:
            return None
        settings, fresh = self.settings, dict[str, FileResult]()
        try:
            # The summary's documents, selected again (a few dozen): its order, groups and
            # withheld list must be what the rule makes of them, so a summary signed by a
            # holder of the key can only change which documents are picked, as a forged
            # entry can; what is served is read afresh below.
            chosen = [document for _, document in summary.blocks] + summary.withheld
            selection = select(chosen, settings.ceiling, settings.undeclared_class)
            withheld = [d.path for d in summary.withheld]  # in path order, as the walk's
            if (
                [(b.group, b.document.path) for b in selection.blocks]
                != [(group, document.path) for group, document in summary.blocks]
                or [d.path for d in selection.withheld] != withheld
                or withheld != sorted(set(withheld))
                or len({d.path for d in chosen}) != len(chosen)
            ):
                raise ValueError("a summary the rule does not make of its own documents")
            blocks = selection.blocks
            lacking = [block.document for block in blocks if lacks_frontmatter(block.document)]
            if not index.verify(lacking, walk, cache, fresh, blob_hash):
                selection = _completed_selection(selection, index.completed)
                budgeted = apply_budget(selection.blocks, settings.cap_tokens)
                served = [outcome.block.document for outcome in budgeted.blocks if outcome.kept_bytes]
                if not index.verify(served, walk, cache, fresh, blob_hash):
                    chosen = [block.document for block in selection.blocks] + selection.withheld
                    ledger = index.summarized_ledger(self.space, walk, summary, chosen, blob_hash)
                    return ledger, selection, budgeted
        except (LookupError, ValueError, TypeError, AttributeError):
            pass  # a value no read gives: the build is made from the entries, which say so
        index.drop_summary(cache)
        return None

    def _select_budget(
        self, walk: Walk, blob_hash: str | None, cache: DocumentCache | None, index: IndexUse | None
    ) -> tuple[Ledger, Selection, Budgeted]:
        settings = self.settings
        fresh: dict[str, FileResult] = {}
        if index is not None:
            index.completed.clear()
        while True:
            ledger = read_ledger(
                self.space, cache, walk, blob_hash=blob_hash, yaml=settings.yaml, known=fresh
            )
            selection = select(ledger.documents, settings.ceiling, settings.undeclared_class)
            if index is not None and cache is not None:
                # A block whose document the index gave without its frontmatter text is
                # rendered from a fresh read (spec §5), one that gives the same fields.
                lacking = [block.document for block in selection.blocks if lacks_frontmatter(block.document)]
                if index.verify(lacking, walk, cache, fresh, blob_hash):
                    continue
                if lacking:
                    ledger, selection = _completed(ledger, selection, index.completed)
            budgeted = apply_budget(selection.blocks, settings.cap_tokens)
            if index is None or cache is None:
                return ledger, selection, budgeted
            served = [outcome.block.document for outcome in budgeted.blocks if outcome.kept_bytes]
            if not index.verify(served, walk, cache, fresh, blob_hash):
                return ledger, selection, budgeted


def _completed(ledger: Ledger, selection: Selection, fresh: dict[str, Document]) -> tuple[Ledger, Selection]:
    """``ledger`` and ``selection`` with the documents the index gave without their
    frontmatter text replaced by their ``fresh`` reads, and their blocks rendered again."""
    selection = _completed_selection(selection, fresh)
    documents = list(ledger.documents)  # in path order: each fresh read found by bisection
    for path, document in fresh.items():
        at = bisect_left(documents, path, key=_path_of)
        if at < len(documents) and documents[at].path == path and lacks_frontmatter(documents[at]):
            documents[at] = document
    return ledger._replace(documents=documents), selection


def _completed_selection(selection: Selection, fresh: dict[str, Document]) -> Selection:
    """``selection`` with the blocks whose document the index gave without its frontmatter
    text made from its ``fresh`` read, rendered again."""
    blocks = []
    for block in selection.blocks:
        document = fresh.get(block.document.path) if lacks_frontmatter(block.document) else None
        blocks.append(block if document is None else Block(block.group, document, render(document)))
    return Selection(blocks, selection.withheld)


_path_of = attrgetter("path")


def build_context(
    space: Path, cap_tokens: int = DEFAULT_CAP_TOKENS, max_data_class: str | None = None
) -> ContextBuild:
    """Build the pack of ``space`` once, without a cache (spec §1–7): the public entry
    that takes loose arguments, checked here into one :class:`Settings`.

    ``space`` is the directory holding ``.ledger``. Raises
    :class:`~ledger_context.model.errors.InvalidArgumentError` for a cap below 1 or an
    unknown ceiling; a broken document is reported in ``ledger.problems``, never raised.
    """
    return ContextBuilder(space, make_settings(cap_tokens, max_data_class), cache=False).build()

"""One call builds the pack and its accounting: the core both the CLI and MCP read.

``ledger-context pack`` and ``get_context`` both call :meth:`ContextBuilder.build`,
so they cannot disagree; ``explain_budget`` reads the same
:class:`~ledger_context.pack.context.ContextBuild`. This module is how a build is made
(the cache, the ledger index, warm builds); what a build is lives in
:mod:`~ledger_context.pack.context`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model.document import Document, FileResult, lacks_frontmatter
from ..model.tokens import DEFAULT_CAP_TOKENS
from ..model.values import cycles_uncollected
from ..reader.cache import DocumentCache, WarmBuild
from ..reader.ledger import Ledger, read_ledger
from ..reader.walk import Walk, walk_ledger
from .budget import Budgeted, apply_budget
from .context import ContextBuild
from .select import Block, Selection, render, select
from .settings import DEFAULT_SETTINGS, Settings, make_settings

if TYPE_CHECKING:  # provenance asks git: imported when a build asks it (pack never does)
    from ..proof.provenance import HeadSource
    from ..reader.indexed import IndexUse, SummaryKey


class ContextBuilder:
    """Builds packs of one space, reusing parsed files that did not change.

    ``cache`` is True (a fresh :class:`~ledger_context.reader.cache.DocumentCache`), False, or
    a cache to use. With ``provenance`` (the default) documents inside a git work tree
    get their git blob ids and builds can tell their commit; ``git`` replaces the work
    tree (a build from a revision). ``settings`` were checked at the edge
    (:func:`~ledger_context.pack.settings.make_settings`). With ``settings.index`` the
    first build starts from the ledger index (a cache is then always kept); a build writes
    the index as it leaves it, or with ``write_index_later`` leaves that to
    :meth:`write_index` (a server: once its answer is made).
    """

    def __init__(
        self,
        space: Path,
        settings: Settings = DEFAULT_SETTINGS,
        *,
        cache: bool | DocumentCache = True,
        provenance: bool = True,
        git: HeadSource | None = None,
        write_index_later: bool = False,
    ) -> None:
        self.space = space
        self._write_index_later = write_index_later
        self._unwritten: Callable[[], None] | None = None
        """The index write the last build left (``write_index_later``)."""
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
                self._unwritten = None  # the cache changes now: this build leaves its own write
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
        withheld = [d.path for d in selection.withheld]
        self._unwritten = lambda: index.save(cache, ledger, key, blocks, withheld)
        if not self._write_index_later:
            self.write_index()
        return ledger, selection, budgeted, index.report

    def write_index(self) -> str | None:
        """Write the ledger index as the last build left it (once); what the index says
        then (:attr:`ContextBuild.index`, with why it was not written), or ``None`` when no
        build left a write. Not while a build of this builder runs: the caller keeps the
        two apart (a server holds its builders' lock)."""
        write, self._unwritten = self._unwritten, None
        if write is None or self._index is None:
            return None
        write()
        return self._index.report

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

"""One builder's use of its ledger's index: prime the cache, check what is served, save.

The index decides what to select, never what is served. :meth:`IndexUse.prime` puts every
trusted entry (:func:`~ledger_context.reader.index.trusted`) into the builder's
:class:`~ledger_context.reader.cache.DocumentCache`, as if those files had just been read;
:meth:`IndexUse.verify` then reads afresh, through the reader's own checks, every
document the selection would serve that came from the index, and gives back those whose
fresh read disagrees, so that the build is made again before anything is served. A file
read afresh is never taken from the index again in that build, so the loop ends.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from operator import attrgetter
from pathlib import Path
from typing import Any

from ..model.document import Document, FileResult, lacks_frontmatter
from ..model.problems import Problem
from ..model.values import Record
from .cache import DocumentCache
from .frontmatter import YamlOptions
from .identity import RACY_NS
from .index import (
    _UNPARSABLE,
    IndexOptions,
    Loaded,
    decode_rows,
    entry_row,
    load_index,
    save_index,
    trusted,
    version_key,
)
from .ledger import DeferredLedger, Ledger, read_file_safely, read_ledger, root_real_path
from .walk import Listing, SourceFile, Walk

_path_of = attrgetter("path")

_BLOB_LENGTH = {"sha1": 40, "sha256": 64}
"""Hex digits of a git object id of each object format."""


def _agrees(fresh: FileResult, entry: FileResult, blob_hash: str | None) -> bool:
    """Whether a fresh read gave what the index entry holds: every field of the document
    and every problem (a blob id the build did not ask for is not compared; nor the body,
    nor a frontmatter text the entry does not keep: the SHA-256 of the bytes stands for
    them)."""
    if fresh.problems != entry.problems:
        return False
    document = entry.document
    if blob_hash is None and document is not None and document.git_blob is not None:
        document = document._replace(git_blob=None)
    read = fresh.document
    if read is not None and document is not None:
        body = None if document.body is None else read.body
        frontmatter = None if lacks_frontmatter(document) else read.frontmatter
        read = read._replace(body=body, frontmatter=frontmatter)
    return read == document


def _unwritten(report: str, fault: str) -> str:
    """The report of a build whose index could not be written: one that was neither created
    nor rebuilt says so ("none", "not usable"), and a fault already said is not repeated."""
    if report.startswith("created"):
        return f"none; not written ({fault})"
    if report == f"rebuilt ({fault})":
        return f"not usable; not written ({fault})"
    if report.startswith("rebuilt ("):
        return f"not usable {report.removeprefix('rebuilt ')}; not written ({fault})"
    return f"{report}; not written ({fault})"


MAX_SUMMARIES = 8
"""Builds summarized in one index: one per settings key (ceiling, undeclared class, git
object format) last used on its walk; the CLI and a server often differ."""

SUMMARY_SHARE = 0.25
"""A summary is kept only when its documents (candidate blocks and withheld ones) are at
most this share of the ledger's files: a documentation ledger whose findings are nearly all
current selects 68 % of its files, and its warm start from a summary was 17 % slower than
from the entries, with an index three times the size (bench/index.py, docs-10000)."""

SummaryKey = tuple[str | None, str | None, str | None]
"""What a build's selection depends on beyond its files: the ceiling, the class undeclared
sources are read as, and the git object format of its blob ids."""


class Summary(Record):
    """The last build of a walk, as the index kept it: its candidate blocks as (group,
    document), the documents the ceiling withheld, and the ledger's own figures; what a
    warm start selects from without decoding every entry (the build reads afresh all it
    serves, as ever)."""

    __slots__ = ("blocks", "bytes_read", "problems", "read", "skipped", "withheld")

    def __init__(
        self,
        blocks: list[tuple[int, Document]],
        withheld: list[Document],
        problems: list[Problem],
        read: Counter[str],
        skipped: Counter[str],
        bytes_read: int,
    ) -> None:
        self.blocks = blocks
        self.withheld = withheld
        self.problems = problems
        self.read = read
        self.skipped = skipped
        self.bytes_read = bytes_read


def _walk_data(walk: Walk) -> list[Any]:
    """A walk as plain data, compared with a later walk as it is (tuples compare with the
    walk's named tuples), as :class:`~ledger_context.reader.walk.Walk` compares: by the
    files as met. One pass over tuples was quicker than comparing columns (paths,
    identities…), and the files as met quicker than in path order: they lie in memory in
    the order the walk made them."""
    return [[tuple(f) for f in walk.found], [tuple(p) for p in walk.problems], list(walk.skipped.items())]


def _same_walk(data: Any, walk: Walk) -> bool:
    found, problems, skipped = data
    return bool(found == walk.found and problems == walk.problems and skipped == list(walk.skipped.items()))


def _all_safe(walk: Walk, written_ns: int, racy_ns: int) -> bool:
    """Whether every file of ``walk`` changed at least ``racy_ns`` before ``written_ns``:
    the racy rule holds for all of them, so an equal walk later may trust every entry."""
    safe_before = written_ns - racy_ns
    return all(f.identity[3] <= safe_before and f.identity[4] <= safe_before for f in walk.files)


def _lacks(kept: Any, listings: dict[str, Listing]) -> bool:
    """Whether an index that keeps the folder listings ``kept`` lacks one of a walk's
    ``listings``, or holds it otherwise (a folder that settled since it was written)."""
    if not isinstance(kept, dict):
        return bool(listings)
    return any(kept.get(folder) != listing for folder, listing in listings.items())


def is_fault(report: str | None) -> bool:
    """Whether an index report names a fault (the index was rebuilt or could not be written),
    which ``check`` shows; ``used`` and ``created`` go unsaid there."""
    return report is not None and (report.startswith("rebuilt") or "not written" in report)


class IndexUse:
    """The index of ``space`` as one builder uses it; ``report`` says what happened to it
    (for ``check`` and ``explain``, never for the pack)."""

    def __init__(
        self,
        options: IndexOptions,
        space: Path,
        yaml: YamlOptions | None,
        racy_ns: int = RACY_NS,
    ) -> None:
        self.options = options
        self.space = space
        self.yaml = yaml
        self.racy_ns = racy_ns
        self.version = version_key(yaml)
        self.report = "not read yet"
        self.loaded: Loaded | None = None
        self.primed = False
        """Whether the loaded entries went into the cache (a warm start from a summary
        puts none there until a later build needs them)."""
        self._summary_asked = False
        """Whether :meth:`summary` was asked (once: only a builder's first build may start
        from the summary)."""
        self._summarized_start = False
        """Whether the first build was made from the summary (its documents then came from
        the index, undecoded, and only those in :attr:`_read_afresh` were confirmed)."""
        self._read_afresh: set[str] = set()
        self._summarized: tuple[Walk, set[SummaryKey]] | None = None
        """The walk the file on disk summarizes builds of, and their keys."""
        self._primed: dict[str, FileResult] = {}
        self._in_step: int | None = None
        """``cache.changes`` when the cache last held exactly the entries on disk."""
        self._load_fault: str | None = None
        self.refreshed = 0
        """Documents whose fresh read disagreed with the index (the build was made again)."""
        self.taken = 0
        """How many entries the index gave the cache."""
        self.completed: dict[str, Document] = {}
        """Fresh reads, in the current build, of documents the index gave without their
        frontmatter text, by path: the same fields, with the text their blocks show (emptied
        by the build at its start: a file may change between builds)."""

    def prime(self, cache: DocumentCache, walk: Walk, blob_hash: str | None) -> None:
        """Load the index once (the builder's first build) and put its trusted entries into
        ``cache``; entries the walk does not confirm, or whose git blob id is of another
        object format than ``blob_hash``, are left out, to be read."""
        if self.primed:
            return
        self.primed = True
        loaded = self._load()
        used = self._take(cache, walk, loaded, _BLOB_LENGTH.get(blob_hash or ""))
        self._load_fault = loaded.fault
        if loaded.fault is None:
            self.report = f"used ({used} of {len(walk.files)} files from the index)"
        elif loaded.fault == "missing":
            self.report = "created (there was none)"
        else:
            self.report = f"rebuilt ({loaded.fault})"

    def listings(self) -> dict[Any, Any]:
        """The folder listings kept with the index (the :attr:`Walk.listings
        <ledger_context.reader.walk.Walk.listings>` of the walk it was last written after),
        for a builder's first walk, which checks them: a listing whose folder kept its
        stamp saves listing that folder again, nothing more."""
        loaded = self._load()
        listings = loaded.build.get("listings") if isinstance(loaded.build, dict) else None
        return listings if loaded.fault is None and isinstance(listings, dict) else {}

    def _load(self) -> Loaded:
        """The index file, read once (its entries decoded when first asked)."""
        if self.loaded is None:
            self.loaded = load_index(self.options, self.space, self.version, lazy=True)
        return self.loaded

    def summary(self, walk: Walk, key: SummaryKey) -> Summary | None:
        """The summary of the last build of ``walk`` with ``key``, when this is the
        builder's first build and the index holds one: ``walk`` is then the very walk the
        index was written after (files, identities, problems), every file of it older
        than the index by the racy rule, so every entry is trusted and the selection is
        that build's. Its documents are put in :attr:`_primed`, to be read afresh by
        :meth:`verify` before anything is served."""
        if self._summary_asked:
            return None
        self._summary_asked = True
        loaded = self._load()
        if loaded.fault is not None or not isinstance(loaded.build, dict) or "walk" not in loaded.build:
            return None
        if _lacks(loaded.build.get("listings"), walk.listings):
            return None  # started from the entries, this build writes what it listed
        try:
            if not _same_walk(loaded.build["walk"], walk):
                return None
            builds = loaded.build["builds"]
            if not isinstance(builds, dict):
                return None
            # Until it proves usable, this key's summary counts as not on disk: one that
            # fails is written anew by this build, not met again by every later one.
            self._summarized = (walk, set(builds) - {key})
            if key not in builds:
                return None
            blocks, withheld, rows, (problems, read, skipped, bytes_read) = builds[key]
            entries = decode_rows(rows)
            documents = {p: d for p, (_, result) in entries.items() if (d := result.document) is not None}
            if any(type(group) is not int for group, _ in blocks):
                return None
            summary = Summary(
                [(group, documents[path]) for group, path in blocks],
                [documents[path] for path in withheld],
                [Problem._make(p) for p in problems],
                Counter(dict(read)),
                Counter(dict(skipped)),
                int(bytes_read),
            )
            files = walk.files
            for path, (identity, _) in entries.items():
                at = bisect_left(files, path, key=_path_of)
                if at == len(files) or files[at].path != path or files[at].identity != identity:
                    return None
        except _UNPARSABLE:
            return None
        self._primed = {path: result for path, (_, result) in entries.items()}
        self._summarized = (walk, set(builds))
        self._summarized_start = True
        self.report = f"used ({len(walk.files)} of {len(walk.files)} files from the index)"
        return summary

    def summarized_ledger(
        self,
        space: Path,
        walk: Walk,
        summary: Summary,
        chosen: Iterable[Document],
        blob_hash: str | None,
    ) -> Ledger:
        """The ledger of a build made from ``summary``: its figures as kept, its documents
        made on first use from the entries, with the ``chosen`` ones (those its selection
        holds, as read afresh) in their place. Entries that cannot be decoded (only a
        holder of the key could have written them) give way to reading every file."""
        loaded, yaml = self._load(), self.yaml
        chosen_by_path = {d.path: d for d in chosen}

        def documents() -> list[Document]:
            entries = loaded.entries
            try:
                made = []
                for source in walk.files:
                    document = chosen_by_path.get(source.path) or entries[source.path][1].document
                    if document is not None:
                        made.append(document)
                return made
            except KeyError:
                return read_ledger(space, None, walk, blob_hash=blob_hash, yaml=yaml).documents

        fields = (summary.problems, summary.read, summary.skipped, summary.bytes_read, walk, True)
        return DeferredLedger(documents, space, *fields)

    def drop_summary(self, cache: DocumentCache) -> None:
        """Forget what a warm start from the summary did (a fresh read disagreed with it,
        or it held a value no read gives): the build is made again from the entries."""
        cache.keep_only(set())
        self._primed = {}
        if self._summarized is not None and self._summarized_start:  # written anew by this build
            self._summarized = (self._summarized[0], set())
        self._summarized_start = False
        self.completed.clear()
        self.refreshed = 0
        self.report = "not read yet"

    def _take(self, cache: DocumentCache, walk: Walk, loaded: Loaded, blob_length: int | None) -> int:
        entries = loaded.entries
        if not entries:
            return 0
        taken = trusted(loaded, walk.files, self.racy_ns)
        if blob_length is not None:  # a git blob id of another object format is not used
            for path, (_, result) in list(taken.items()):
                blob = result.document.git_blob if result.document is not None else None
                if blob is not None and len(blob) != blob_length:
                    del taken[path]
        cache.put_trusted(taken)  # each already checked by the racy rule, as of the index's writing
        self.taken += len(taken)
        self._primed = {path: entry[1] for path, entry in taken.items()}
        if len(taken) == len(entries) == len(cache):
            self._in_step = cache.changes
        return len(taken)

    def verify(
        self,
        documents: Iterable[Document],
        walk: Walk,
        cache: DocumentCache,
        fresh: dict[str, FileResult],
        blob_hash: str | None,
    ) -> bool:
        """Read afresh each of ``documents`` that came from the index and was not checked
        yet in this build; a fresh result that differs from the entry goes into ``fresh``
        and ``cache``, one that agrees with an entry without its frontmatter text into
        :attr:`completed`. Returns whether any differed (then the build must be made again)."""
        pending = [d for d in documents if self._unchecked(d)]
        if not pending:
            return False
        files = walk.files  # in path order
        root_real = root_real_path(self.space)
        differed = False
        for document in pending:
            source: SourceFile = files[bisect_left(files, document.path, key=_path_of)]
            entry = self._primed.pop(document.path, None)
            if entry is None or entry.document is not document:
                entry = cache.get(source)  # an entry kept since an earlier build
            read_at = time.time_ns()
            result = read_file_safely(self.space, source, root_real, blob_hash, self.yaml)
            self._read_afresh.add(document.path)
            if entry is not None and entry.document is document and _agrees(result, entry, blob_hash):
                if result.document is not None and lacks_frontmatter(document):
                    self.completed[document.path] = result.document
                continue
            differed = True
            self.refreshed += 1
            fresh[document.path] = result
            cache.put(source, result, read_at)  # dropped from the cache when racy
        return differed

    def _unchecked(self, document: Document) -> bool:
        """Whether ``document`` came from the index unread (a primed entry), or lacks its
        frontmatter text and was not read for it in this build."""
        if (primed := self._primed.get(document.path)) is not None and primed.document is document:
            return True
        return lacks_frontmatter(document) and document.path not in self.completed

    def gave(self, path: str) -> bool:
        """Whether the index gave the entry of ``path`` and no read has confirmed it yet
        (after a warm start from the summary, every document not read afresh)."""
        if self._summarized_start and not self.primed:
            return path not in self._read_afresh
        return path in self._primed

    def distrust(
        self, cache: DocumentCache, why: str = "an entry held a value no read of its file gives"
    ) -> None:
        """Forget every entry the index gave (a build met one holding a value no read
        gives, or a served read contradicted one): every file is read again, and the index
        written anew."""
        cache.keep_only(set())
        self.primed = True  # nothing more is taken from the index
        self._primed = {}
        self.completed.clear()
        self._in_step = None
        self.taken = 0
        self.report = f"rebuilt ({why})"

    def save(
        self,
        cache: DocumentCache,
        ledger: Ledger,
        key: SummaryKey,
        blocks: list[tuple[int, str]],
        withheld: list[str],
    ) -> None:
        """Write the index when the cache holds other entries than the file on disk (another
        file, identity or result: a file read again, for its git blob id or because its
        entry was stale), or when the file does not summarize this build of this walk.
        The summary (``blocks`` as (group, path), ``withheld`` paths, the ledger's
        figures) is kept only when every file of the walk has its entry and all are older
        than the moment of writing by the racy rule, and when its documents are at most
        :data:`SUMMARY_SHARE` of the files: where most documents are candidates (or
        withheld), selecting from a summary saves nothing, and it would double the index."""
        walk = ledger.walk
        summarized = self._summarized
        paths = [path for _, path in blocks] + withheld
        wanted = walk is not None and ledger.cached and len(paths) <= SUMMARY_SHARE * len(walk.files)
        fresh_summary = wanted and not (
            summarized is not None and key in summarized[1] and summarized[0] == walk
        )
        on_disk = self.loaded.build if self.loaded is not None and isinstance(self.loaded.build, dict) else {}
        listings = walk.listings if walk is not None else {}
        fresh_listings = _lacks(on_disk.get("listings"), listings)
        if self._in_step == cache.changes and not fresh_summary and not fresh_listings:
            return
        written_ns = time.time_ns()
        build: dict[str, Any] = {}
        if walk is not None and ledger.cached and _all_safe(walk, written_ns, cache.racy_ns):
            kept = {}
            if summarized is not None and summarized[0] == walk and on_disk:
                kept = dict(on_disk.get("builds", {}))
            kept.pop(key, None)
            if wanted:
                rows = [entry_row(path, *entry) for path in paths if (entry := cache.entry(path)) is not None]
                figures = ([tuple(p) for p in ledger.problems], list(ledger.read.items()),
                           list(ledger.skipped.items()), ledger.bytes_read)  # fmt: skip
                kept[key] = ([list(b) for b in blocks], withheld, rows, figures)
            if kept:
                build = {"walk": _walk_data(walk), "builds": dict(list(kept.items())[-MAX_SUMMARIES:])}
        if listings:
            build["listings"] = listings
        items = cache.items()
        fault = save_index(self.options, self.space, self.version, items, written_ns, build or None)
        if self.refreshed:
            self.report += f"; {self.refreshed} stale entries refreshed"
            self.refreshed = 0
        if fault is None:
            self._in_step = cache.changes
            if self.loaded is not None:
                self.loaded.build = build or None
            self._summarized = None if "builds" not in build or walk is None else (walk, set(build["builds"]))
        elif "not written" not in self.report:
            self.report = _unwritten(self.report, fault)

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
from collections.abc import Iterable
from operator import attrgetter
from pathlib import Path

from ..model.document import Document, FileResult, lacks_frontmatter
from .cache import DocumentCache
from .frontmatter import YamlOptions
from .identity import RACY_NS
from .index import IndexOptions, Loaded, load_index, save_index, trusted, version_key
from .ledger import read_file_safely, root_real_path
from .walk import SourceFile, Walk

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
        self.loaded = False
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
        if self.loaded:
            return
        self.loaded = True
        loaded = load_index(self.options, self.space, self.version)
        self._load_fault = loaded.fault
        used = self._take(cache, walk, loaded, _BLOB_LENGTH.get(blob_hash or ""))
        if loaded.fault is None:
            self.report = f"used ({used} of {len(walk.files)} files from the index)"
        elif loaded.fault == "missing":
            self.report = "created (there was none)"
        else:
            self.report = f"rebuilt ({loaded.fault})"

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
        """Whether the index gave the entry of ``path`` and no read has confirmed it yet."""
        return path in self._primed

    def distrust(
        self, cache: DocumentCache, why: str = "an entry held a value no read of its file gives"
    ) -> None:
        """Forget every entry the index gave (a build met one holding a value no read
        gives, or a served read contradicted one): every file is read again, and the index
        written anew."""
        cache.keep_only(set())
        self._primed = {}
        self.completed.clear()
        self._in_step = None
        self.taken = 0
        self.report = f"rebuilt ({why})"

    def save(self, cache: DocumentCache) -> None:
        """Write the index when the cache holds other entries than the file on disk: another
        file, identity or result (a file read again, for its git blob id or because its
        entry was stale)."""
        if self._in_step == cache.changes:
            return
        items = cache.items()
        fault = save_index(self.options, self.space, self.version, items)
        if self.refreshed:
            self.report += f"; {self.refreshed} stale entries refreshed"
            self.refreshed = 0
        if fault is None:
            self._in_step = cache.changes
        elif "not written" not in self.report:
            self.report = _unwritten(self.report, fault)

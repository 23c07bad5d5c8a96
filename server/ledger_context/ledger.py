"""Reading a ledger: every document decoded, its frontmatter loaded, its fields read.

This is spec §1–3 end to end: :func:`read_ledger` walks the ledger
(:mod:`~ledger_context.walk`), reads each file once, and returns the valid documents
plus every problem met. A broken document is skipped and reported; the rest is read.

A :class:`DocumentCache` lets a long-running server skip files that did not change:
an entry is reused only while the file's identity (device, inode, size, mtime and
ctime in ns) is unchanged, and a file modified within the last second is never cached,
because two writes inside one file-system clock tick can leave the same identity.
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .document import DATED_KINDS, KINDS, Document, FileResult
from .frontmatter import decode_text
from .parse import parse_document
from .problems import Problem, problem_sort_key
from .walk import MAX_FILE_BYTES, FileIdentity, SourceFile, Walk, walk_ledger

__all__ = ["DATED_KINDS", "KINDS", "Document", "DocumentCache", "FileResult", "Ledger", "read_ledger"]

_RACY_NS = 1_000_000_000


@dataclass(slots=True)
class Ledger:
    """A ledger as read: valid documents in path order, problems, and counts per kind.

    ``read`` counts the files of each kind that were read, ``skipped`` those of them
    that were not valid; ``bytes_read`` is the total size of the files read, in bytes.
    """

    space: Path
    documents: list[Document]
    problems: list[Problem]
    read: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    bytes_read: int = 0
    walk: Walk | None = None
    """What the walk saw: the files with their identities, and its problems."""
    cached: bool = False
    """True when every file's result is in the cache, so a later walk that sees the same
    files with the same identities would read exactly this ledger again."""


class _NotRegularFile(OSError):
    pass


def _read_bytes(fs_path: str) -> bytes:
    """Read a regular file of at most :data:`MAX_FILE_BYTES` bytes without blocking on FIFOs."""
    fd = os.open(fs_path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _NotRegularFile("not a regular file")
        size = info.st_size
        if size > MAX_FILE_BYTES:  # it grew since the walk: never read it whole
            raise OverflowError(size)
        data = os.read(fd, size + 1)
        if len(data) <= size:  # a regular file reads short only at its end
            return data
        chunks = [data]  # it grew since fstat: read on, bounded
        total = len(data)
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
            total += len(chunk)
            if total > MAX_FILE_BYTES:
                raise OverflowError(total)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_source(space: Path, path: str) -> tuple[bytes | None, Problem | None]:
    """The file's bytes, or the problem that kept them from being read."""
    try:
        return _read_bytes(os.path.join(space, path)), None
    except FileNotFoundError:
        message = "file disappeared while reading; skipped"
    except _NotRegularFile:
        message = "not a regular file; skipped"
    except OverflowError:
        message = f"file grew over the {MAX_FILE_BYTES}-byte limit while reading; skipped"
    except OSError as exc:
        message = f"cannot read ({exc.strerror or exc}); skipped (check permissions)"
    return None, Problem(path, "error", message)


def read_file(space: Path, source: SourceFile) -> FileResult:
    """Read one file of ``space`` and parse it (spec §2–3); never raises for a broken file."""
    data, unreadable = _read_source(space, source.path)
    if data is None:
        return FileResult(None, (unreadable,) if unreadable else (), 0)
    return parse_document(source.kind, source.path, data)


def _read_file_safely(space: Path, source: SourceFile) -> FileResult:
    """:func:`read_file`, with any fault it did not foresee turned into a skip: one file
    never takes the pack down."""
    try:
        return read_file(space, source)
    except Exception as exc:  # the one place that must catch everything
        message = f"unexpected failure while reading ({type(exc).__name__}); skipped"
        return FileResult(None, (Problem(source.path, "error", message),), 0)


class DocumentCache:
    """Parsed files of one space, reused while each file's identity is unchanged.

    Keyed by path relative to the space, so one cache serves one space only. A file whose
    mtime or ctime is less than ``racy_ns`` nanoseconds old is not cached (tests set 0).

    Not thread-safe: one builder owns it. Entries for files that vanished are dropped
    on the next read.
    """

    def __init__(self, racy_ns: int = _RACY_NS) -> None:
        self._entries: dict[str, tuple[FileIdentity, FileResult]] = {}
        self._racy_ns = racy_ns

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, source: SourceFile) -> FileResult | None:
        """The cached result for ``source`` if its identity and location are unchanged."""
        entry = self._entries.get(source.path)
        if entry is None or entry[0] != source.identity:
            return None
        return entry[1]

    def put(self, source: SourceFile, result: FileResult, now_ns: int) -> bool:
        """Remember ``result`` unless the file changed too recently to trust its identity;
        returns whether it was remembered."""
        if now_ns - source.identity[3] < self._racy_ns or now_ns - source.identity[4] < self._racy_ns:
            self._entries.pop(source.path, None)
            return False
        self._entries[source.path] = (source.identity, result)
        return True

    def keep_only(self, paths: set[str]) -> None:
        """Forget every entry whose path is not in ``paths``."""
        for path in [p for p in self._entries if p not in paths]:
            del self._entries[path]


def read_ledger(space: Path, cache: DocumentCache | None = None, walk: Walk | None = None) -> Ledger:
    """Read every document of ``space``'s ledger (spec §1–3).

    ``space`` is the directory holding ``.ledger``; ``walk`` is its walk if already
    made. With a ``cache``, unchanged files are not read again. Returns a
    :class:`Ledger`; raises nothing for broken documents.
    """
    if walk is None:
        walk = walk_ledger(space)
    problems = list(walk.problems)
    documents: list[Document] = []
    read: Counter[str] = Counter(walk.skipped)  # documents the walk skipped were read, and skipped
    skipped: Counter[str] = Counter(walk.skipped)
    bytes_read = 0
    now_ns = time.time_ns()
    cached = cache is not None
    for source in walk.files:
        result = cache.get(source) if cache is not None else None
        if result is None:
            result = _read_file_safely(space, source)
            if cache is not None:
                cached = cache.put(source, result, now_ns) and cached
        read[source.kind] += 1
        bytes_read += result.size
        problems.extend(result.problems)
        if result.document is None:
            skipped[source.kind] += 1
        else:
            documents.append(result.document)
    if cache is not None:
        cache.keep_only({source.path for source in walk.files})
    problems.sort(key=problem_sort_key)
    return Ledger(space, documents, problems, read, skipped, bytes_read, walk, cached)


def document_text(space: Path, path: str) -> str:
    """The decoded text of the document at ``path`` (relative to ``space``, ``/`` separators).

    Only call with a path the reader accepted. Raises ``OSError`` or
    :class:`~ledger_context.frontmatter.DecodeError` if the file changed since.
    """
    return decode_text(_read_bytes(os.path.join(space, *path.split("/"))))

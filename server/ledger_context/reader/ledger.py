"""Reading a ledger: every document decoded, its frontmatter loaded, its fields read.

This is spec §1–3 end to end: :func:`read_ledger` walks the ledger
(:mod:`~ledger_context.reader.walk`), reads each file once, and returns the valid documents
plus every problem met. A broken document is skipped and reported; the rest is read.
Which files need not be read again (identity, the recently-changed-file rule) is
:mod:`~ledger_context.reader.cache`'s to say.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from _thread import allocate_lock  # threading's own lock, without importing threading
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

from ..model.document import Document, FileResult, lacks_frontmatter
from ..model.errors import DocumentChangedError
from ..model.problems import Problem, problem_sort_key
from ..model.values import Record, cycles_uncollected
from .cache import DocumentCache
from .frontmatter import YamlOptions, decode_text
from .identity import FileIdentity, is_same_file, is_unchanged
from .parse import parse_document
from .paths import fs_path, printable_path
from .space import LEDGER_DIR
from .walk import MAX_FILE_BYTES, SourceFile, Walk, walk_ledger


class Ledger(Record):
    """A ledger as read: valid documents in path order, problems, and counts per kind.

    ``read`` counts the files of each kind that were read, ``skipped`` those of them
    that were not valid; ``bytes_read`` is the total size of the files read, in bytes.
    """

    __slots__ = ("bytes_read", "cached", "documents", "problems", "read", "skipped", "space", "walk")

    def __init__(
        self,
        space: Path,
        documents: list[Document],
        problems: list[Problem],
        read: Counter[str],
        skipped: Counter[str],
        bytes_read: int = 0,
        walk: Walk | None = None,
        cached: bool = False,
    ) -> None:
        self.space = space
        self.documents = documents
        self.problems = problems
        self.read = read
        self.skipped = skipped
        self.bytes_read = bytes_read
        self.walk = walk
        """What the walk saw: the files with their identities, and its problems."""
        self.cached = cached
        """True when every file's result is in the cache, so a later walk that sees the same
        files with the same identities would read exactly this ledger again."""


class DeferredLedger(Ledger):
    """A ledger whose documents are made on first use: a warm start from the ledger
    index's summary of its last build selects without them, and most commands (``pack``)
    never ask (issue 26). Everything else is as read; once made, it is a plain ledger's."""

    __slots__ = ("_documents", "_lock", "_make")

    def __init__(self, make: Callable[[], list[Document]], *fields: Any) -> None:
        self._make = make
        self._lock = allocate_lock()  # a server's threads may ask at once: made once
        super().__init__(fields[0], [], *fields[1:])
        self._documents: list[Document] | None = None

    @property
    def documents(self) -> list[Document]:
        documents = self._documents
        if documents is None:
            with self._lock, cycles_uncollected():
                if self._documents is None:
                    self._documents = self._make()
                documents = self._documents
        return documents

    @documents.setter
    def documents(self, value: list[Document]) -> None:
        self._documents = value

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in Ledger.__slots__)

    def _replace(self, **changes: Any) -> Ledger:  # type: ignore[override]
        values = {name: getattr(self, name) for name in Ledger.__slots__} | changes
        return Ledger(**values)


CHANGED_WHILE_READING = "changed while being read; skipped (run again)"


def _inside(fd: int, root_real: bytes) -> bool:
    """True if the open file ``fd`` lies inside the ledger root's real path ``root_real``.

    Asked of the descriptor, not of a path, so a link or folder swapped at any moment
    cannot lead outside (Linux ``/proc``, macOS ``F_GETPATH``). Elsewhere the device and
    inode check against the walk is the guard.
    """
    try:
        where = os.readlink(b"/proc/self/fd/%d" % fd)
    except OSError:
        get_path = getattr(fcntl, "F_GETPATH", None) if fcntl is not None else None
        if get_path is None:
            return True
        try:
            where = fcntl.fcntl(fd, get_path, bytes(1024)).rstrip(b"\0")
        except OSError:
            return True
    return where.startswith(root_real + os.sep.encode())


class _Read(Record):
    """What reading a file gave: its bytes and whether its whole identity was still the
    walk's (so the result may be cached), or, with ``data`` ``None``, why it was not read."""

    __slots__ = ("data", "fault", "unchanged")

    def __init__(
        self,
        data: bytes | None,
        unchanged: bool = False,
        fault: str = "",
    ) -> None:
        self.data = data
        self.unchanged = unchanged
        self.fault = fault


_GREW = _Read(None, fault=f"file grew over the {MAX_FILE_BYTES}-byte limit while reading; skipped")


def _read_bytes(fs_path: bytes, identity: FileIdentity, root_real: bytes) -> _Read:
    """Read the file the walk saw as ``identity``, at most :data:`MAX_FILE_BYTES` bytes.

    The descriptor is checked, not the path: the file opened must be a regular file with
    the walk's device and inode, inside the ledger root (spec §1), else it is not read.
    Never blocks on a FIFO swapped in. Raises :class:`OSError` only for the system's own
    faults (opening, reading).
    """
    fd = os.open(fs_path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not is_same_file(info, identity) or not _inside(fd, root_real):
            return _Read(None, fault=CHANGED_WHILE_READING)
        size = info.st_size
        if size > MAX_FILE_BYTES:  # it grew since the walk: never read it whole
            return _GREW
        unchanged = is_unchanged(info, identity)
        data = os.read(fd, size + 1)
        if len(data) <= size:  # a regular file reads short only at its end
            return _Read(data, unchanged)
        chunks = [data]  # it grew since fstat: read on, bounded
        total = len(data)
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
            total += len(chunk)
            if total > MAX_FILE_BYTES:
                return _GREW
        return _Read(b"".join(chunks))
    finally:
        os.close(fd)


_FIX = {
    errno.EACCES: "check permissions",
    errno.EPERM: "check permissions",
    errno.ENAMETOOLONG: "shorten its folder names",
}


def _read_source(
    space: Path, source: SourceFile, root_real: bytes
) -> tuple[bytes | None, bool, Problem | None]:
    """The file's bytes and whether they may be cached, or the problem that kept them
    from being read."""
    try:
        read = _read_bytes(fs_path(space, source.path), source.identity, root_real)
    except FileNotFoundError:
        read = _Read(None, fault="file disappeared while reading; skipped")
    except OSError as exc:
        # Never cached (nor kept in the ledger index, for other processes): no read error
        # is known to last while the file's identity does. A name too long depends on how
        # the space's path was spelt; EACCES may come from a folder on the way, whose
        # chmod leaves the file's identity as it was; EIO, EMFILE and the like pass. An
        # unreadable file costs a failed open per build, nothing more.
        fix = _FIX.get(exc.errno or 0, "run again")
        message = f"cannot read ({exc.strerror or exc}); skipped ({fix})"
        return None, False, Problem(source.path, "error", message)
    if read.data is None:
        return None, False, Problem(source.path, "error", read.fault)
    return read.data, read.unchanged, None


def root_real_path(space: Path) -> bytes:
    """The ledger root's real path, as bytes: what every opened file must lie inside."""
    return os.path.realpath(fs_path(space, LEDGER_DIR))


def git_blob_id(data: bytes, algorithm: str = "sha1") -> str:
    """The id git gives ``data`` as a blob (``git hash-object --no-filters``): the hash of
    ``b"blob <size>\\0"`` followed by the bytes; ``algorithm`` is the repository's object
    format, ``sha1`` or ``sha256``."""
    digest = hashlib.new(algorithm, b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def read_file(
    space: Path,
    source: SourceFile,
    root_real: bytes | None = None,
    blob_hash: str | None = None,
    yaml: YamlOptions | None = None,
) -> FileResult:
    """Read one file of ``space`` and parse it (spec §2–3); never raises for a broken file.

    ``root_real`` is :func:`root_real_path` of ``space``, if already known. With
    ``blob_hash`` (``sha1`` or ``sha256``) the document also gets its ``git_blob``;
    ``yaml`` says how frontmatter is loaded.
    """
    if root_real is None:
        root_real = root_real_path(space)
    data, unchanged, unreadable = _read_source(space, source, root_real)
    if data is None:
        return FileResult(None, (unreadable,) if unreadable else (), 0, unchanged)
    git_blob = git_blob_id(data, blob_hash) if blob_hash else None
    result = parse_document(source.kind, source.path, data, git_blob, yaml=yaml, keep_body=False)
    return FileResult(result.document, result.problems, result.size, unchanged)


def read_file_safely(
    space: Path, source: SourceFile, root_real: bytes, blob_hash: str | None, yaml: YamlOptions | None
) -> FileResult:
    """:func:`read_file`, with any fault it did not foresee turned into a skip: one file
    never takes the pack down."""
    try:
        return read_file(space, source, root_real, blob_hash, yaml)
    except Exception as exc:  # the one place that must catch everything
        message = f"unexpected failure while reading ({type(exc).__name__}); skipped"
        return FileResult(None, (Problem(source.path, "error", message),), 0, False)


def read_ledger(
    space: Path,
    cache: DocumentCache | None = None,
    walk: Walk | None = None,
    *,
    blob_hash: str | None = None,
    yaml: YamlOptions | None = None,
    known: Mapping[str, FileResult] | None = None,
) -> Ledger:
    """Read every document of ``space``'s ledger (spec §1–3).

    ``space`` is the directory holding ``.ledger``; ``walk`` is its walk if already
    made. With a ``cache``, unchanged files are not read again. With ``blob_hash``
    (``sha1`` or ``sha256``) every document gets its git blob id; ``yaml`` says how
    frontmatter is loaded (the reader's default when ``None``). ``known`` holds results
    of files read afresh during this build (they are not read again, and cached only by
    whoever read them). Returns a :class:`Ledger`; raises nothing for broken documents.
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
    root_real = root_real_path(space) if walk.files else b""
    for source in walk.files:
        result = known.get(source.path) if known else None
        if result is not None:
            cached = cached and cache is not None and cache.get(source) is result
        else:
            result = cache.get(source) if cache is not None else None
        if result is not None and blob_hash and result.document and result.document.git_blob is None:
            result = None  # cached without its blob id: read it again
        if result is None:
            result = read_file_safely(space, source, root_real, blob_hash, yaml)
            if cache is not None:
                cached = cache.put(source, result, now_ns) and cached
        read[source.kind] += 1
        bytes_read += result.size
        problems.extend(result.problems)
        if result.document is None:
            skipped[source.kind] += 1
        else:
            documents.append(result.document)
    # Every file of the walk has its entry (cached) and there are no more: none to forget.
    if cache is not None and not (cached and len(cache) == len(walk.files)):
        cache.keep_only({source.path for source in walk.files})
    problems.sort(key=problem_sort_key)
    return Ledger(space, documents, problems, read, skipped, bytes_read, walk, cached)


def read_again(space: Path, source: SourceFile, document: Document, yaml: YamlOptions | None = None) -> str:
    """The text of ``source`` as a build read it into ``document``, read again to serve it
    (spec §1).

    The file opened must still be the one the build read (device, inode, type, inside
    the ledger root), its bytes must hash to the build's digest, and parsed again (with
    ``yaml``) they must give the document the build selected and classified from: what is
    served is provably what that build read and classified, whatever a cache or the ledger
    index said about it. Raises :class:`~ledger_context.model.errors.DocumentChangedError`
    otherwise.
    """
    return decode_text(_read_same(space, source, document, yaml)[1])


def parse_again(
    space: Path, source: SourceFile, document: Document, yaml: YamlOptions | None = None
) -> Document:
    """``document`` parsed again from ``source``'s bytes, read again with the checks of
    :func:`read_again`: the same document, its body included (a document taken from the
    ledger index has none)."""
    return _read_same(space, source, document, yaml)[0]


def _read_same(
    space: Path, source: SourceFile, document: Document, yaml: YamlOptions | None
) -> tuple[Document, bytes]:
    try:
        data = _read_bytes(fs_path(space, source.path), source.identity, root_real_path(space)).data
    except OSError:
        data = None
    if data is not None and hashlib.sha256(data).hexdigest() == document.sha256:
        fresh = parse_document(source.kind, source.path, data, document.git_blob, yaml=yaml).document
        if fresh is not None and _same_reading(fresh, document):
            return fresh, data
    raise DocumentChangedError(f"{printable_path(source.path)} changed since the pack was built; call again")


def _same_reading(fresh: Document, held: Document) -> bool:
    """True if ``fresh`` (parsed now) says what ``held`` said of the same bytes: what
    selection, classification and every readout take from a document (the body and the
    frontmatter text too, unless ``held`` came from the ledger index without them)."""
    fields = ("kind", "path", "status", "updated", "title", "data_class", "metrics")
    same = all(getattr(fresh, name) == getattr(held, name) for name in fields)
    if not lacks_frontmatter(held):
        same = same and fresh.frontmatter == held.frontmatter
    return same and (held.body is None or fresh.body == held.body)

"""Warm builds: what lets a long-running server skip the files that did not change, by the
file identity and the recently-changed-file rule of :mod:`~ledger_context.reader.identity`.

A file's identity is (device, inode, size, mtime and ctime in ns). A parsed file is
reused only while its identity is unchanged (:class:`DocumentCache`), and a file modified
within the last second is never cached, because two writes inside one file-system clock
tick can leave the same identity (:func:`is_racy`). When every file of a walk is cached
and a later walk sees the same files with the same identities, the last build is given
again (:class:`WarmBuild`).
"""

from __future__ import annotations

from collections.abc import ItemsView
from typing import Generic, Protocol, TypeVar

from ..model.document import FileResult
from .identity import RACY_NS, FileIdentity, is_racy


class Located(Protocol):
    """A file as a walk saw it (:class:`~ledger_context.reader.walk.SourceFile`)."""

    @property
    def path(self) -> str: ...

    @property
    def identity(self) -> FileIdentity: ...


class DocumentCache:
    """Parsed files of one space, reused while each file's identity is unchanged.

    Keyed by path relative to the space, so one cache serves one space only. A file whose
    mtime or ctime is less than ``racy_ns`` nanoseconds old is not cached (tests set 0).

    Not thread-safe: one builder owns it. Entries for files that vanished are dropped
    on the next read.
    """

    def __init__(self, racy_ns: int = RACY_NS) -> None:
        self._entries: dict[str, tuple[FileIdentity, FileResult]] = {}
        self._racy_ns = racy_ns
        self.changes = 0
        """How many times an entry was put or dropped: equal counts, equal entries."""

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def racy_ns(self) -> int:
        """How recently a file may have changed and still be cached (ns)."""
        return self._racy_ns

    def get(self, source: Located) -> FileResult | None:
        """The cached result for ``source`` if its identity and location are unchanged."""
        entry = self._entries.get(source.path)
        if entry is None or entry[0] != source.identity:
            return None
        return entry[1]

    def entry(self, path: str) -> tuple[FileIdentity, FileResult] | None:
        """The entry of ``path`` as (identity, result), whatever the file is now."""
        return self._entries.get(path)

    def put(self, source: Located, result: FileResult, now_ns: int) -> bool:
        """Remember ``result`` unless the file changed too recently to trust its identity,
        or while it was read; returns whether it was remembered."""
        if not result.cacheable or is_racy(source.identity, now_ns, self._racy_ns):
            if self._entries.pop(source.path, None) is not None:
                self.changes += 1
            return False
        self.changes += 1
        self._entries[source.path] = (source.identity, result)
        return True

    def forget(self, path: str) -> None:
        """Drop the entry of ``path``, if any: the next read of it reads the file."""
        if self._entries.pop(path, None) is not None:
            self.changes += 1

    def put_trusted(self, entries: dict[str, tuple[FileIdentity, FileResult]]) -> None:
        """Remember ``entries`` (path: (identity, result)), which the caller has already
        found trustworthy by the racy rule (the ledger index, as of its writing)."""
        self.changes += 1
        self._entries.update(entries)

    def entries(self) -> ItemsView[str, tuple[FileIdentity, FileResult]]:
        """Every entry as (path, (identity, result)), in no order."""
        return self._entries.items()

    def items(self) -> list[tuple[str, FileIdentity, FileResult]]:
        """Every entry as (path, identity, result), in path order: what the index keeps."""
        return [(path, entry[0], entry[1]) for path, entry in sorted(self._entries.items())]

    def keep_only(self, paths: set[str]) -> None:
        """Forget every entry whose path is not in ``paths``."""
        for path in [p for p in self._entries if p not in paths]:
            self.changes += 1
            del self._entries[path]


W = TypeVar("W")
B = TypeVar("B")


class WarmBuild(Generic[W, B]):
    """The last build and the walk it was made from: given again while a new walk equals
    that one (the same files with the same identities), if every file was cached."""

    def __init__(self) -> None:
        self._last: tuple[W, B] | None = None

    def get(self, walk: W) -> B | None:
        """The last build if ``walk`` sees exactly what its walk saw, else ``None``."""
        last = self._last
        return last[1] if last is not None and last[0] == walk else None

    def put(self, walk: W, build: B, cached: bool) -> None:
        """Remember ``build`` of ``walk`` if ``cached`` (every file's result in the cache)."""
        self._last = (walk, build) if cached else None

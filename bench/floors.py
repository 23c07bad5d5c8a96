"""The floors every build is compared with: the least any reader of the ledger must do.

stat floor
    ``os.stat`` of every document, with the paths listed beforehand: the least a reader
    that trusts a cache must do to notice a change (what a warm call is held to).
walk floor
    List ``.ledger`` with ``os.scandir``, ``lstat`` every ``.md`` file found and sort the
    paths: the least a reader that trusts a cache does in Python when it lists every
    folder to notice a new file. A warm build lists again only the folders whose stamp
    moved (``reader/walk.py``), so it may go under it.
I/O floor
    Walk ``.ledger`` with ``os.scandir`` and read every ``.md`` file's bytes: the least a
    reader without a cache must do.
read-and-decode floor
    The I/O floor plus a strict UTF-8 decode of every file: the least a reader must do
    that, as spec §2 asks, rejects a file that is not UTF-8.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from operator import itemgetter
from pathlib import Path

_first = itemgetter(0)


def _documents(space: Path) -> Iterator[os.DirEntry[str]]:
    """Every ``.md`` file below ``.ledger``, as ``os.scandir`` lists it."""
    stack = [os.path.join(space, ".ledger")]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith(".md"):
                    yield entry


def list_documents(space: Path) -> list[str]:
    """Every ``.md`` file below ``.ledger``, found with ``os.scandir``."""
    return [entry.path for entry in _documents(space)]


def stat_floor(paths: list[str]) -> None:
    """``os.stat`` every path of a list made beforehand."""
    for path in paths:
        os.stat(path)


def walk_floor(space: Path) -> int:
    """List ``.ledger`` with ``os.scandir`` and ``lstat`` every ``.md`` file (its identity,
    as a warm build keeps it), then sort by path; returns the files found. The cycle
    collector is paused meanwhile, as a build pauses it."""
    found: list[tuple[str, tuple[int, int, int, int, int]]] = []
    collecting = gc.isenabled()
    gc.disable()
    try:
        for entry in _documents(space):
            st = entry.stat(follow_symlinks=False)
            found.append((entry.path, (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)))
        found.sort(key=_first)
    finally:
        if collecting:
            gc.enable()
    return len(found)


def io_floor(space: Path) -> int:
    """Walk ``.ledger`` with ``os.scandir`` and read every ``.md`` file; returns the bytes read."""
    total = 0
    for path in list_documents(space):
        with open(path, "rb") as handle:
            total += len(handle.read())
    return total


def decode_floor(space: Path) -> int:
    """The I/O floor, each file also decoded as strict UTF-8; returns the characters decoded."""
    total = 0
    for path in list_documents(space):
        with open(path, "rb") as handle:
            total += len(handle.read().decode("utf-8"))
    return total

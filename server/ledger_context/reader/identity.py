"""A file's identity and the recently-changed-file rule ("racy git"): what tells whether a
file may still hold the bytes read from it before, without reading it.

A file's identity is (device, inode, size, mtime and ctime in ns). A file modified within
the last second is never trusted by its identity alone, because two writes inside one
file-system clock tick can leave the same identity (:func:`is_racy`). A leaf of the reader,
so the walk, the cache and the ledger index share it without importing each other.
"""

from __future__ import annotations

import os

FileIdentity = tuple[int, int, int, int, int]
"""(device, inode, size in bytes, mtime in ns, ctime in ns) of a file, links followed."""

RACY_NS = 1_000_000_000
"""How recently (ns) a file may have changed and still be cached: one second."""


def identity_of(st: os.stat_result) -> FileIdentity:
    """The identity of the file ``st`` describes."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def is_same_file(st: os.stat_result, identity: FileIdentity) -> bool:
    """True if ``st`` is the file (device and inode) that had ``identity``."""
    return (st.st_dev, st.st_ino) == identity[:2]


def is_unchanged(st: os.stat_result, identity: FileIdentity) -> bool:
    """True if ``st`` still has ``identity``'s size and times: its content may be cached."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns) == identity[2:]


def is_racy(identity: FileIdentity, now_ns: int, racy_ns: int = RACY_NS) -> bool:
    """True if the file changed (mtime or ctime) less than ``racy_ns`` before ``now_ns``:
    its identity cannot yet tell a later write apart."""
    return now_ns - identity[3] < racy_ns or now_ns - identity[4] < racy_ns

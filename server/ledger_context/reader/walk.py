"""Walking the ledger root: which files are documents, of which kind (spec §1).

The walk only lists and stats; reading and parsing are :mod:`ledger_context.reader.ledger`'s
job. Every file or link it passes over for a reason a person could fix is reported.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections import Counter
from collections.abc import Mapping
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from ..model.problems import Problem, Severity
from ..model.values import Record
from .identity import RACY_NS, FileIdentity, identity_of
from .paths import fs_path, is_clean_name, name_text, path_fault, printable_path
from .space import LEDGER_DIR

AGENTS_FILE = "agents.md"
MAX_FILE_BYTES = 10 * 1024 * 1024
"""Files larger than this many bytes (10 MiB) are skipped (spec §1)."""

KIND_FOLDERS: dict[str, str] = {
    "harnesses": "harness",
    "evals": "eval",
    "findings": "finding",
    "decisions": "decision",
    "experiments": "experiment",
}
"""Kind folder name → document kind (spec §1)."""

_GROUP_OF = {kind: folder for folder, kind in KIND_FOLDERS.items()} | {"agents": "agents.md"}

MAX_DIRECTORY_VISITS = 10_000
"""Bound on folders entered below each kind folder, so links that multiply paths cannot
make a walk endless (and one kind folder cannot use up another's)."""


class SourceFile(NamedTuple):
    """A document the walk found: its kind, its path relative to the space, its identity,
    and whether that path goes through a symbolic link.

    The path, joined to the space, is also where to open it (links are followed there);
    the reader checks that the file it opens has this identity (spec §1).

    A named tuple, so a whole walk compares as fast as tuples do (the warm build's check).
    """

    kind: str
    path: str
    identity: FileIdentity
    linked: bool = False


Stamp = tuple[int, int, int, int]
"""(device, inode, mtime in ns, ctime in ns) of a folder: its entries are those it had
while the stamp stays the same (POSIX updates a folder's times on every create, link,
unlink and rename in it; ctime cannot be set back)."""

Listing = tuple[Stamp, tuple[str, ...]]
"""A folder's stamp and the names of its documents as listed then, in that order."""


class Walk(Record):
    """What a walk found: documents in path order (code points), and problems.

    Walks compare by the files as met (:attr:`found`), the problems and the skipped counts:
    equal, they give the same :attr:`files`. Two walks of the same files met in another
    order (a folder whose entries its file system reordered) are not equal, which costs a
    build, never a wrong one. :attr:`listings` says how to walk faster next time; it does
    not take part.
    """

    __slots__ = ("files", "found", "listings", "problems", "skipped")

    def __init__(
        self,
        files: list[SourceFile],
        problems: list[Problem],
        skipped: Counter[str],
        found: list[SourceFile] | None = None,
        listings: dict[str, Listing] | None = None,
    ) -> None:
        self.files = files
        self.problems = problems
        self.skipped = skipped
        """Documents (``*.md``) skipped by the walk itself, per kind: bad names, size, links,
        non-regular files. They count as read and skipped in the explanation."""
        self.found = files if found is None else found
        """Every file as the walk met it, in that order, links to a file met before
        included (:attr:`files` is made of it): its files lie in memory in this order, so
        a later walk compares with it two to three times faster than in path order
        (a warm start's check that the files are those the index summarized)."""
        self.listings = {} if listings is None else listings
        """The plain folders met, by path (those holding only regular documents, listed
        through a descriptor), each with its stamp and documents, when the stamp was
        settled (:data:`SETTLED_NS`): a later walk given them stats those documents
        instead of listing the folder again while its stamp is the same."""

    def _values(self) -> tuple[Any, ...]:
        return (self.found, self.problems, self.skipped)


DirIdentity = tuple[int, int]
"""(device, inode) of a folder, links followed."""

SETTLED_NS = RACY_NS
"""How long before a walk starts a folder's stamp must be, for its listing to be given to
a later walk: a change in the same file-system clock tick as the listing could otherwise
leave the stamp as it was (the racy rule, for folders)."""

COARSE_NS = 1_000_000
"""A folder whose ctime is a whole number of these (1 ms) is on a file system with coarse
times, and its listing is not kept: FAT keeps times to 2 s and its ctime follows an mtime
set back, exFAT to 10 ms, HFS+ and some network file systems to 1 s. A fine ctime is a
whole millisecond once in a million: one listing more."""


class _Chain(Record):
    """The folders on the way from the ledger root down to a folder, innermost first: a
    linked list, so entering a folder costs the same at any depth."""

    __slots__ = ("identity", "parent")

    def __init__(
        self,
        identity: DirIdentity,
        parent: _Chain | None,
    ) -> None:
        self.identity = identity
        self.parent = parent

    def holds(self, identity: DirIdentity) -> bool:
        chain: _Chain | None = self
        while chain is not None:
            if chain.identity == identity:
                return True
            chain = chain.parent
        return False


class _Pending(NamedTuple):
    """A folder to list: where it is, its path, its kind, the folders down to it (itself
    included), whether its path goes through a link and whether it is clean text."""

    full: bytes
    rel: str
    kind: str
    chain: _Chain
    linked: bool
    clean: bool
    anchor: _Anchor | None
    from_anchor: bytes


class _Anchor:
    """An open folder that deeper folders are opened from, so no open resolves more than
    a few dozen path components: walking stays linear whatever the depth. Closed when no
    folder waiting to be listed needs it any more."""

    __slots__ = ("fd", "users")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.users = 0

    def release(self) -> None:
        self.users -= 1
        if self.users == 0:
            os.close(self.fd)


_ANCHOR_EVERY = 32
"""Folders below an anchor before the next one (and at most 1,024 bytes of path)."""


_UTF8_NAMES = sys.getfilesystemencoding() == "utf-8"
"""Whether a name the OS gave is already its bytes read as UTF-8 when it is printable (it
then holds no surrogate): true on Linux and macOS, and on Windows, where names are text."""

_LIST_BY_DESCRIPTOR = (
    os.scandir in os.supports_fd and os.stat in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")
)
"""Folders are listed through a checked descriptor where the platform allows (not Windows)."""


class _Walker:
    def __init__(self, space: Path, listed: Mapping[str, Any]) -> None:
        self.settled_before = time.time_ns() - SETTLED_NS
        """A folder whose stamp is no later than this has its listing kept (taken before
        anything is listed: a change after the listing then lands in a later tick)."""
        self.listed = listed
        self.listings: dict[str, Listing] = {}
        self.root = fs_path(space, LEDGER_DIR)
        self.root_real = os.path.realpath(self.root)
        self.problems: list[Problem] = []
        self.skipped: Counter[str] = Counter()
        self.files: list[SourceFile] = []
        """The walk's result, once :meth:`dedupe` has made it of :attr:`found`."""
        self.found: list[SourceFile] = []
        self.visits = 0
        self.may_repeat = False
        self.pending: list[_Pending] = []
        self.anchor: _Anchor | None = None
        """The anchor and the path from it of the folder being listed."""
        self.from_anchor = b""

    def report(self, path: str, severity: Severity, message: str, kind: str | None = None) -> None:
        """Record a problem; an error about a document of ``kind`` counts it as skipped."""
        self.problems.append(Problem(printable_path(path), severity, message))
        if kind is not None and severity == "error" and path.endswith(".md"):
            self.skipped[kind] += 1

    def inside_root(self, real: bytes) -> bool:
        return real == self.root_real or real.startswith(self.root_real + os.sep.encode())

    def resolve(self, full: bytes, rel: str, lst: os.stat_result, kind: str) -> os.stat_result | None:
        """Follow a symbolic link if spec §1 allows it; ``None`` when it is skipped.

        The only ``realpath`` of the walk: folders on the way are known by identity.
        """
        if not stat.S_ISLNK(lst.st_mode):
            return lst
        # A skipped link that stands for documents is an error: something is missing.
        severity: Severity = "error" if rel.lower().endswith(".md") else "warning"
        try:
            real = os.path.realpath(full)
            st = os.stat(full)
        except OSError:
            self.report(
                rel, severity, "symbolic link is dangling or loops; skipped (fix or remove the link)", kind
            )
            return None
        if not self.inside_root(real):
            if stat.S_ISDIR(st.st_mode):
                severity = "error"
            self.report(
                rel,
                severity,
                "symbolic link points outside the ledger; skipped (move the target into .ledger/ or copy it)",
                kind,
            )
            return None
        self.may_repeat = True
        return st

    def walk(self) -> Walk:
        try:
            root = _Chain(_dir_identity(os.stat(self.root)), None)
            with os.scandir(self.root) as listing:  # closed even when listing fails midway
                entries = sorted(listing, key=lambda e: e.name)
            if _LIST_BY_DESCRIPTOR:
                self.anchor = _Anchor(os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
                self.anchor.users = 1  # the walk's own hold, released at the end
        except OSError as exc:
            self.report(LEDGER_DIR, "error", f"cannot list the ledger ({exc.strerror})")
            return self.result()
        try:
            self.walk_top(entries, root)
        finally:
            if self.anchor is not None:
                self.anchor.release()
        self.dedupe()
        return self.result()

    def result(self) -> Walk:
        return Walk(self.files, self.problems, self.skipped, self.found, self.listings)

    def walk_top(self, entries: list[os.DirEntry[bytes]], root: _Chain) -> None:
        top_anchor = self.anchor
        for entry in entries:
            name = name_text(entry.name)
            if name.startswith("."):
                continue
            rel = f"{LEDGER_DIR}/{name}"
            if name == AGENTS_FILE or name in KIND_FOLDERS:
                # Each kind folder has its own budget (one cannot starve another); the kind
                # folder itself is not one of the folders below it.
                self.visits = -1
                kind = KIND_FOLDERS.get(name, "agents")
                try:
                    lst = entry.stat(follow_symlinks=False)
                except OSError as exc:
                    self.report(rel, "error", f"cannot read ({exc.strerror}); skipped", kind)
                    continue
                self.anchor, self.from_anchor = top_anchor, b""
                self.visit(entry.path, rel, name, kind, root, False, lst, True)
                # Folders are walked from a list, not by recursion: any depth is fine.
                while self.pending:
                    self.enter(self.pending.pop())
            else:
                self.report(
                    rel,
                    "warning",
                    "unexpected entry at the top of .ledger, ignored; expected agents.md and "
                    "the folders harnesses/, evals/, findings/, decisions/, experiments/",
                )

    def visit(
        self,
        full: bytes,
        rel: str,
        name: str,
        kind: str,
        chain: _Chain,
        linked: bool,
        lst: os.stat_result,
        clean: bool,
    ) -> None:
        """Look at one entry that is not a plain regular file: ``lst`` is its own stat,
        ``chain`` holds its folder, ``clean`` says whether its path is clean text."""
        st = self.resolve(full, rel, lst, kind)
        if st is None:
            return
        is_link = st is not lst
        top_level = rel.count("/") == 1
        if stat.S_ISDIR(st.st_mode):
            if kind == "agents":
                self.report(rel, "warning", "agents.md is a directory, not a file; ignored")
                return
            identity = _dir_identity(st)
            if is_link and chain.holds(identity):
                # Spec §1: a link to the root or to a folder on the way down to it.
                self.report(
                    rel,
                    "warning",
                    "symbolic link loop (a link to a folder that contains it); skipped (remove the link)",
                )
                return
            anchor = self.anchor
            if anchor is not None:
                anchor.users += 1
            raw = full.rsplit(b"/", 1)[-1]
            self.pending.append(
                _Pending(
                    full,
                    rel,
                    kind,
                    _Chain(identity, chain),
                    linked or is_link,
                    clean,
                    anchor,
                    self.from_anchor + raw,
                )
            )
        elif top_level and kind != "agents":
            self.report(rel, "warning", f"{name} should be a folder; ignored")
        elif stat.S_ISREG(st.st_mode):
            self.consider_file(rel, name, kind, st, linked or is_link)
        elif name.endswith(".md"):
            self.report(
                rel,
                "error",
                "not a regular file (a FIFO, socket or device); skipped (replace it with a file)",
                kind,
            )

    def enter(self, folder: _Pending) -> None:
        anchor = folder.anchor
        try:
            self.enter_from(folder, anchor)
        finally:
            if anchor is not None:
                anchor.release()

    def enter_from(self, folder: _Pending, anchor: _Anchor | None) -> None:
        rel = folder.rel
        self.visits += 1
        if self.visits > MAX_DIRECTORY_VISITS:
            if self.visits == MAX_DIRECTORY_VISITS + 1:
                top = "/".join(rel.split("/")[:2])
                self.report(
                    rel,
                    "error",
                    f"more than {MAX_DIRECTORY_VISITS} folders below {top}/ (or links that multiply "
                    "paths); the rest of that folder was not read",
                )
            return
        if anchor is None:
            self.anchor = None
            self.list_folder(folder.full, folder)
            return
        # Listed through a descriptor, opened from an anchor a few folders up and checked
        # against the identity seen before: a folder swapped for a link meanwhile is not
        # listed, and no lookup walks the whole depth again.
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (0 if folder.linked else os.O_NOFOLLOW)
        try:
            fd = os.open(folder.from_anchor, flags, dir_fd=anchor.fd)
        except OSError as exc:
            self.report(rel, "error", f"cannot list the folder ({exc.strerror}); skipped")
            return
        own = _Anchor(fd)
        own.users = 1  # held while listing
        try:
            st = os.fstat(fd)
            if _dir_identity(st) != folder.chain.identity:
                self.report(rel, "error", "folder changed while being read; skipped (run again)")
                return
            deep = folder.from_anchor.count(b"/") >= _ANCHOR_EVERY or len(folder.from_anchor) > 1024
            if deep:
                self.anchor, self.from_anchor = own, b""
            else:
                self.anchor, self.from_anchor = anchor, folder.from_anchor + b"/"
            stamp = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
            if not (folder.clean and self.relist(fd, folder, stamp)):
                self.list_folder(fd, folder, stamp)
        finally:
            own.release()

    def relist(self, fd: int, folder: _Pending, stamp: Stamp) -> bool:
        """Stat the documents a listing given to the walk names, instead of listing the
        folder, when the folder's stamp is the listing's: its entries are then those
        listed. Each must still be a plain document (a regular file with one link, under
        the size limit), else nothing is kept of the attempt and the folder is listed.
        Returns whether the listing was used."""
        listing = self.listed.get(folder.rel)
        if listing is None:
            return False
        try:
            listed_stamp, names = listing  # anything an index holds: checked here
        except (TypeError, ValueError):
            return False
        if listed_stamp != stamp or not _plain_names(names):
            return False
        found = self.found
        start = len(found)
        kind, prefix, linked = folder.kind, folder.rel + "/", folder.linked
        try:
            for name in names:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if st.st_mode & 0o170000 != 0o100000 or st.st_size > MAX_FILE_BYTES or st.st_nlink != 1:
                    break  # no longer a plain document: the listing says how
                identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                found.append(_new_source(SourceFile, (kind, prefix + name, identity, linked)))
            else:
                self.listings[folder.rel] = (stamp, names)
                return True
        except OSError:
            pass
        del found[start:]
        return False

    def list_folder(self, where: int | bytes, folder: _Pending, stamp: Stamp | None = None) -> None:
        """List a folder and look at each entry; a folder listed through a descriptor
        (``stamp`` given) whose entries are all plain documents has its listing kept."""
        full, rel, kind, chain, linked, clean_folder = folder[:6]
        try:
            # Listed by descriptor, names come as str decoded by the file-system encoding;
            # os.fsencode gives their bytes back exactly, to be decoded as UTF-8 here.
            with os.scandir(where) as listing:  # closed even when listing fails midway
                entries: list[os.DirEntry[Any]] = list(listing)
        except OSError as exc:
            self.report(rel, "error", f"cannot list the folder ({exc.strerror}); skipped")
            return
        others = []
        found = self.found
        start = len(found)
        plain = stamp is not None and clean_folder
        prefix = rel + "/"
        for entry in entries:
            # Regular files named *.md, the bulk of a ledger, take one lstat (cached by
            # scandir) and the fewest steps; their order does not matter, the result is
            # sorted once. Everything else goes the careful way.
            name = entry.name
            printable = _UTF8_NAMES and name.isprintable()  # then clean too (is_clean_name)
            if not printable:
                plain = False  # a kept listing holds printable names only
                name = name_text(os.fsencode(name))  # its bytes, read as UTF-8
            if name[0] == ".":
                continue
            if not entry.is_file(follow_symlinks=False):
                others.append(entry)
                continue
            if not name.endswith(".md"):
                plain = False
                _misnamed(self, prefix + name, name)  # no stat needed: never read
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                plain = False
                self.report(prefix + name, "error", f"cannot read ({exc.strerror}); skipped", kind)
                continue
            if (
                clean_folder
                and st.st_size <= MAX_FILE_BYTES
                and st.st_nlink == 1
                and (printable or is_clean_name(name))
            ):
                # cache.identity_of, inlined: this is the hot loop of a cold walk
                identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                found.append(_new_source(SourceFile, (kind, prefix + name, identity, linked)))
                continue
            plain = False
            if st.st_ino == 0:  # Windows: DirEntry.stat() has no inode, os.stat() has
                st = os.stat(os.path.join(full, os.fsencode(entry.name)))
            self.consider_file(prefix + name, name, kind, st, linked)
        if plain and not others and stamp is not None and len(found) > start:
            self.keep_listing(rel, stamp, [source.path for source in found[start:]])
        for entry in sorted(others, key=lambda e: os.fsencode(e.name), reverse=True):
            raw = os.fsencode(entry.name)
            name = name_text(raw)
            try:
                lst = entry.stat(follow_symlinks=False)
            except OSError as exc:
                self.report(prefix + name, "error", f"cannot read ({exc.strerror}); skipped", kind)
                continue
            entry_clean = clean_folder and is_clean_name(name)
            self.visit(os.path.join(full, raw), prefix + name, name, kind, chain, linked, lst, entry_clean)

    def keep_listing(self, rel: str, stamp: Stamp, paths: list[str]) -> None:
        """Keep a plain folder's listing for a later walk, when its stamp is settled and
        its file system keeps fine times (:data:`COARSE_NS`)."""
        settled = stamp[2] <= self.settled_before and stamp[3] <= self.settled_before
        if settled and stamp[3] % COARSE_NS:
            cut = len(rel) + 1
            self.listings[rel] = (stamp, tuple(path[cut:] for path in paths))

    def consider_file(self, rel: str, name: str, kind: str, st: os.stat_result, linked: bool) -> None:
        if not name.endswith(".md"):
            _misnamed(self, rel, name)
            return
        fault = path_fault(rel)
        if fault is not None:
            self.report(rel, "error", f"{fault}; skipped (rename the file)", kind)
            return
        if st.st_size > MAX_FILE_BYTES:
            self.report(
                rel,
                "error",
                f"file is {st.st_size} bytes, over the {MAX_FILE_BYTES}-byte limit; skipped "
                "(keep large data out of the ledger)",
                kind,
            )
            return
        if st.st_nlink > 1:
            self.may_repeat = True
        self.found.append(SourceFile(kind, rel, identity_of(st), linked))

    def dedupe(self) -> None:
        """Read a file reached by several paths once (spec §1): under its own path, the one
        with no symbolic link in it, when there is one; among several such paths (hard
        links), or when every path goes through a link, the first in code-point order."""
        if not self.may_repeat:  # no link followed, no hard link: every file is met once
            self.files = sorted(self.found, key=_path_of)
            return
        by_file: dict[tuple[int, int], list[SourceFile]] = {}
        for source in self.found:
            by_file.setdefault(source.identity[:2], []).append(source)
        files: list[SourceFile] = []
        for group in by_file.values():
            group.sort(key=lambda s: (s.linked, s.path))
            first = group[0]
            files.append(first)
            for other in group[1:]:
                if other.kind == first.kind:
                    self.report(other.path, "info", f"same file as {first.path}; read once, under that path")
                else:
                    self.report(
                        other.path,
                        "warning",
                        f"same file as {first.path}, read once there with the {_GROUP_OF[first.kind]}, "
                        f"not with the {_GROUP_OF[other.kind]} (remove the link, or copy the file)",
                    )
        files.sort(key=_path_of)
        self.files = files


def _dir_identity(st: os.stat_result) -> DirIdentity:
    return (st.st_dev, st.st_ino)


_path_of = itemgetter(1)
"""A source file's path, fetched in C: the walk sorts every file by it."""

# tuple.__new__ builds a named tuple without the Python-level __new__: the walk makes one
# per file, and this is the warm build's hot loop.
_new_source = tuple.__new__


def _misnamed(walker: _Walker, rel: str, name: str) -> None:
    """Warn about a file that looks like a document but is not named ``*.md`` (spec §1)."""
    lowered = name.lower()
    if lowered.endswith(".md") or lowered.endswith(".markdown"):
        walker.report(
            rel,
            "warning",
            "ignored: only names ending in .md (lower case) are ledger documents; rename the file",
        )


def _plain_names(names: Any) -> bool:
    """Whether ``names`` (from a listing an index kept) is a tuple of distinct printable
    names of documents, none hidden and none with a separator: names a listing keeps, so
    a stat by one never leaves its folder. Checked on one joined string, in C."""
    if type(names) is not tuple or not names:
        return False
    try:
        joined = "/".join(names)
    except TypeError:
        return False
    count = len(names)
    return (
        joined.count("/") == count - 1  # no name holds a separator
        and joined.count(".md/") == count - 1  # every name but the last ends in .md ...
        and joined.endswith(".md")  # ... and so does the last
        and not joined.startswith(".")
        and "/." not in joined  # none hidden, none "." or ".."
        and joined.isprintable()
        and len(set(names)) == count
    )


def walk_ledger(space: Path, listed: Mapping[str, Any] | None = None) -> Walk:
    """List the documents of ``space``'s ledger (spec §1).

    Returns a :class:`Walk`: the files in path order (code points), each with its kind
    (``agents``, ``harness``, ``eval``, ``finding``, ``decision``, ``experiment``), and
    the problems met: unexpected entries, misnamed files, links skipped, loops, unclean
    names, files over 10 MiB. Raises nothing for a broken ledger.

    ``listed`` holds the :attr:`Walk.listings` of an earlier walk (as an index kept them,
    checked here): a folder whose stamp is the same is not listed again.
    """
    return _Walker(space, listed if listed is not None and _UTF8_NAMES else {}).walk()

"""Builds from history: the ledger as committed at a revision, from git objects.

:func:`checkout` writes the ledger's subtree of a commit into a private temporary folder
— folders, files and symbolic links exactly as a checkout would leave them — and the
very same reader then builds from it, so the §1 rules (links, loops, read-once) are not
written twice. Only the ledger is written; a link that leaves it gets the folders and
links its resolution passes through, and a stand-in for what it points at, so the walk
sees what it would see in a checkout. Files other than ``*.md`` that no link points at
are written empty (their bytes are never read), files over the reader's size limit are
written sparse at their size.

Git objects are read through one ``git cat-file --batch`` process: the git CLI reads
every repository git can (packs, alternates, partial clones, SHA-256 object format)
with no compiled or extra dependency; dulwich would be a slower pure-Python
reimplementation, pygit2 a binary wheel tied to one libgit2 version.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..model.errors import RevisionError, SpaceNotFoundError
from ..reader.space import LEDGER_DIR
from ..reader.walk import MAX_FILE_BYTES
from .provenance import FixedHead, Head, TreeEntry, git

MAX_LINK_HOPS = 40
"""Links followed while resolving one path, as the kernel allows (then: a loop)."""

_TREE, _LINK, _GITLINK = "40000", "120000", "160000"

OUTSIDE_TARGET = b".ledger-context: this link leaves the commit"
"""What a link whose target leaves the committed tree points at once written: a name that
does not exist beside it, so the walk reports it dangling and nothing on disk is read."""


@dataclass(frozen=True, slots=True)
class Revision:
    """A ledger written out from a commit.

    ``space`` is the temporary space to build from; ``shown`` the space as a reader
    should see it (``<work tree path>@<commit>``); ``head`` the commit with the blob ids
    of the files written.
    """

    space: Path
    shown: str
    commit: str
    head: FixedHead


class _Objects:
    """One ``git cat-file --batch`` process: object bytes by id, in request order."""

    def __init__(self, repo: str) -> None:
        env = dict(os.environ, LC_ALL="C", GIT_TERMINAL_PROMPT="0")
        self.proc = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=repo,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.stdout = self.proc.stdout

    def close(self) -> None:
        # Stop git first: a request thread blocked on a full pipe (git waiting for us to
        # read an answer we will never read) holds stdin's lock until its write fails.
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        with suppress(OSError, ValueError):
            self.stdin.close()
        self.stdout.close()

    def _header(self, oid: str) -> tuple[str, int]:
        line = self.stdout.readline()
        parts = line.split()
        if len(parts) != 3:
            raise RevisionError(
                f"git object {oid} is missing from the repository or cannot be read (a shallow or "
                "partial clone, or a corrupt object): fetch it, or build from another revision"
            )
        return parts[1].decode("ascii"), int(parts[2])

    def read(self, oid: str) -> tuple[str, bytes]:
        """The type and bytes of object ``oid``."""
        self.stdin.write(oid.encode("ascii") + b"\n")
        self.stdin.flush()
        kind, size = self._header(oid)
        data = self.stdout.read(size + 1)[:-1]
        return kind, data

    def stream(self, oids: list[str]) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        """For each id in ``oids``, in order: its id, size and its bytes in chunks (each
        must be consumed before the next). Requests are written by a thread, so a long
        list never fills both pipes."""

        def request() -> None:
            try:
                self.stdin.write(b"".join(oid.encode("ascii") + b"\n" for oid in oids))
                self.stdin.flush()
            except (OSError, ValueError):  # the reader stopped and closed the pipe
                pass

        writer = threading.Thread(target=request, daemon=True)
        writer.start()
        for oid in oids:
            _, size = self._header(oid)
            yield oid, size, self._chunks(size)
        writer.join()

    def _chunks(self, size: int) -> Iterator[bytes]:
        left = size
        while left:
            chunk = self.stdout.read(min(left, 1 << 16))
            if not chunk:
                raise RevisionError("git cat-file stopped early")
            left -= len(chunk)
            yield chunk
        self.stdout.read(1)  # the newline after each object


def _parse_tree(data: bytes, oid_bytes: int) -> dict[bytes, TreeEntry]:
    """A raw tree object as ``{name: (mode, oid hex)}``."""
    entries: dict[bytes, TreeEntry] = {}
    i = 0
    while i < len(data):
        space = data.index(b" ", i)
        nul = data.index(b"\0", space)
        mode = data[i:space].decode("ascii")
        name = data[space + 1 : nul]
        entries[name] = (mode, data[nul + 1 : nul + 1 + oid_bytes].hex())
        i = nul + 1 + oid_bytes
    return entries


class _Tree:
    """A commit's tree, read folder by folder on demand."""

    def __init__(self, objects: _Objects, root: str) -> None:
        self.objects = objects
        self.oid_bytes = len(root) // 2
        self.cache: dict[str, dict[bytes, TreeEntry]] = {}
        self.root = root

    def folder(self, oid: str) -> dict[bytes, TreeEntry]:
        entries = self.cache.get(oid)
        if entries is None:
            kind, data = self.objects.read(oid)
            if kind != "tree":
                raise RevisionError(f"git object {oid} is a {kind}, not a tree")
            entries = self.cache[oid] = _parse_tree(data, self.oid_bytes)
        return entries

    def entry(self, parts: tuple[bytes, ...]) -> TreeEntry | None:
        """The entry at ``parts`` (no link followed), ``None`` if there is none."""
        entry: TreeEntry = (_TREE, self.root)
        for part in parts:
            if not _is_tree(entry[0]):
                return None
            found = self.folder(entry[1]).get(part)
            if found is None:
                return None
            entry = found
        return entry


class _Writer:
    """Writes entries of a commit's tree under ``root``, never through a link: every
    folder above a written path was made here, and links are only ever leaves."""

    def __init__(self, tree: _Tree, root: bytes) -> None:
        self.tree = tree
        self.root = root
        self.written: dict[tuple[bytes, ...], TreeEntry] = {}
        """Every entry below the ledger's real folder, by path in the tree."""
        self.folders: set[tuple[bytes, ...]] = {()}
        self.links: set[tuple[bytes, ...]] = set()
        self.files: dict[tuple[bytes, ...], TreeEntry] = {}
        """Files still to write."""
        self.pending_links: list[tuple[tuple[bytes, ...], str]] = []
        """Links below the ledger, with their blob ids, still to write."""

    def fs(self, parts: tuple[bytes, ...]) -> bytes:
        return os.path.join(self.root, *parts) if parts else self.root

    def folder(self, parts: tuple[bytes, ...]) -> None:
        """Make the folder ``parts`` and each above it (all are folders in the tree)."""
        for depth in range(1, len(parts) + 1):
            here = parts[:depth]
            if here not in self.folders:
                os.mkdir(self.fs(here), 0o755)
                self.folders.add(here)

    def link(self, parts: tuple[bytes, ...], target: bytes) -> None:
        """Write the link ``parts`` (its target checked by :meth:`_Resolver.link`)."""
        if parts not in self.links:
            self.folder(parts[:-1])
            os.symlink(target, self.fs(parts))
            self.links.add(parts)

    def subtree(self, parts: tuple[bytes, ...], oid: str) -> None:
        """Make the folders below ``parts`` and note its files and links."""
        pending = [(parts, oid)]
        while pending:
            here, tree_oid = pending.pop()
            self.folder(here)
            for name, (mode, entry_oid) in self.tree.folder(tree_oid).items():
                if name in (b"", b".", b"..") or b"/" in name or b"\0" in name:
                    raise RevisionError(f"the tree holds an entry named {name!r}, which no checkout writes")
                child = (*here, name)
                self.written[child] = (mode, entry_oid)
                if _is_tree(mode):
                    pending.append((child, entry_oid))
                elif mode == _GITLINK:
                    self.folder(child)  # a submodule not checked out: an empty folder
                elif mode == _LINK:
                    self.pending_links.append((child, entry_oid))
                else:
                    self.files[child] = (mode, entry_oid)


def _is_tree(mode: str) -> bool:
    return mode in ("40000", "040000")


class _Resolver:
    """Resolves paths in a commit's tree as the kernel resolves them in a checkout."""

    def __init__(self, tree: _Tree, writer: _Writer) -> None:
        self.tree = tree
        self.writer = writer
        self.targets: dict[str, bytes] = {}
        self.checking: set[tuple[bytes, ...]] = set()
        self.outside: list[str] = []
        """Links (paths in the tree) whose target leaves the commit: written dangling."""

    def link(self, parts: tuple[bytes, ...], target: bytes) -> None:
        """Write the link ``parts`` to ``target``, or to :data:`OUTSIDE_TARGET` when its
        resolution leaves the committed tree: on disk it would lead out of the private
        copy, to files that were never committed."""
        if parts in self.writer.links or parts in self.checking:
            return
        self.checking.add(parts)
        try:
            leaves = self._walk(parts[:-1], target)[1]
        finally:
            self.checking.discard(parts)
        if leaves:
            self.outside.append("/".join(map(os.fsdecode, parts)))
        self.writer.link(parts, OUTSIDE_TARGET if leaves else target)

    def link_target(self, oid: str) -> bytes:
        target = self.targets.get(oid)
        if target is None:
            target = self.targets[oid] = self.tree.objects.read(oid)[1]
        return target

    def resolve(self, start: tuple[bytes, ...], target: bytes) -> tuple[tuple[bytes, ...], TreeEntry] | None:
        """Follow ``target`` from the folder ``start``; the real path reached and its
        entry, or ``None`` (dangling, a loop, or out of the repository). Every folder
        and link passed is written, so the same resolution works on disk."""
        return self._walk(start, target)[0]

    def _walk(
        self, start: tuple[bytes, ...], target: bytes
    ) -> tuple[tuple[tuple[bytes, ...], TreeEntry] | None, bool]:
        """:meth:`resolve`, and whether the resolution left the tree (absolute, or ``..``
        above its root)."""
        if target.startswith(b"/"):
            return None, True
        here = list(start)
        queue = [p for p in target.split(b"/")]
        hops = 0
        entry: TreeEntry = (_TREE, "")
        while queue:
            part = queue.pop(0)
            if part in (b"", b"."):
                continue
            if part == b"..":
                if not here:
                    return None, True
                here.pop()
                continue
            found = self.tree.entry((*here, part))
            if found is None:
                return None, False
            if found[0] == _LINK:
                hops += 1
                if hops > MAX_LINK_HOPS:
                    return None, False
                link_target = self.link_target(found[1])
                self.link((*here, part), link_target)
                if link_target.startswith(b"/"):
                    return None, True
                queue = [*link_target.split(b"/"), *queue]
                continue
            if _is_tree(found[0]):
                here.append(part)
                self.writer.folder(tuple(here))
                entry = found
                continue
            if any(p not in (b"", b".") for p in queue):
                return None, False  # a file used as a folder
            here.append(part)
            entry = found
        return (tuple(here), entry), False


def _rev_parse(rev: str, repo: str) -> str:
    out = git(["rev-parse", "-q", "--verify", "--end-of-options", f"{rev}^{{commit}}"], repo)
    if out is None:
        raise RevisionError(
            f"unknown revision {rev!r} in the git repository {repo}: give a commit, branch or tag"
        )
    return out.decode("ascii").strip()


def _repository(start: Path) -> str:
    """The real path of the work tree holding ``start`` (its nearest existing folder)."""
    folder = start
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    out = git(["rev-parse", "--show-toplevel"], folder)
    if out is None:
        raise RevisionError(
            f"{start} is not inside a git repository, so there is no history to build from "
            "(--rev needs the space's repository)"
        )
    return os.path.realpath(os.fsdecode(out.rstrip(b"\n")))


def _parts(relative: str) -> tuple[bytes, ...]:
    return tuple(os.fsencode(p) for p in relative.split("/") if p not in ("", "."))


def _find_space(tree: _Tree, start: tuple[bytes, ...]) -> tuple[bytes, ...] | None:
    """The nearest folder from ``start`` upward whose tree entry holds ``.ledger``."""
    for depth in range(len(start), -1, -1):
        if tree.entry((*start[:depth], b".ledger")) is not None:
            return start[:depth]
    return None


@contextmanager
def checkout(rev: str, explicit_space: str | None, cwd: Path | None = None) -> Iterator[Revision]:
    """The ledger as committed at ``rev``, written into a temporary folder for the
    length of the ``with`` block.

    The space is ``explicit_space`` (``--space``; it need not hold a ledger now), else
    the nearest folder from ``cwd`` upward whose committed tree holds ``.ledger``.
    Raises :class:`RevisionError` naming the path or revision that is wrong.
    """
    given = os.path.expanduser(explicit_space) if explicit_space else (cwd or Path.cwd())
    start = Path(os.path.abspath(given))
    if explicit_space and start.name == LEDGER_DIR:
        start = start.parent
    repo = _repository(start)
    commit = _rev_parse(rev, repo)
    real_start = os.path.realpath(start)
    relative = os.path.relpath(real_start, repo).replace(os.sep, "/")
    if relative == ".." or relative.startswith("../"):
        raise RevisionError(f"{start} is outside the git repository {repo}")
    objects = _Objects(repo)
    temporary = tempfile.mkdtemp(prefix="ledger-context-rev-")
    try:
        _, data = objects.read(commit)
        tree_oid = data.split(b"\n", 1)[0].split(b" ")[1].decode("ascii")
        tree = _Tree(objects, tree_oid)
        wanted = _parts(relative)
        space_parts = wanted if explicit_space else _find_space(tree, wanted)
        if space_parts is None or tree.entry((*space_parts, b".ledger")) is None:
            where = os.path.join(repo, *map(os.fsdecode, space_parts if space_parts is not None else wanted))
            raise SpaceNotFoundError(f"no .ledger in {where} at revision {rev} ({commit[:12]})")
        root = os.path.realpath(temporary)
        writer = _Writer(tree, os.fsencode(root))
        resolver = _Resolver(tree, writer)
        try:
            _materialise(tree, writer, resolver, space_parts)
        except OSError as exc:  # a full disk, or links this system cannot make
            raise RevisionError(
                f"cannot write the ledger of {rev} into {temporary}: {exc.strerror or exc}"
            ) from None
        space = Path(root, *map(os.fsdecode, space_parts))
        shown_space = os.path.join(repo, *map(os.fsdecode, space_parts))
        blobs = {"/".join(map(os.fsdecode, parts)): entry for parts, entry in writer.written.items()}
        ledger_entry = tree.entry((*space_parts, b".ledger"))
        if ledger_entry is not None and ledger_entry[0] == _LINK:  # provenance.dirty asks the link
            blobs["/".join(map(os.fsdecode, (*space_parts, b".ledger")))] = ledger_entry
        object_format = "sha256" if len(commit) == 64 else "sha1"
        head = FixedHead(Head(root, commit, blobs), object_format)
        yield Revision(space, f"{shown_space}@{commit}", commit, head)
    finally:
        objects.close()
        shutil.rmtree(temporary, ignore_errors=True)


def _materialise(tree: _Tree, writer: _Writer, resolver: _Resolver, space: tuple[bytes, ...]) -> None:
    """Write the ledger of ``space`` and what its links need."""
    ledger = root = (*space, b".ledger")
    writer.folder(space)
    entry = tree.entry(ledger)
    assert entry is not None
    if entry[0] == _LINK:
        target = resolver.link_target(entry[1])
        resolver.link(ledger, target)
        if resolver.outside:
            raise RevisionError(
                f"{os.fsdecode(b'/'.join(ledger))} is a symbolic link to {os.fsdecode(target)!r}, which "
                "leaves the committed tree: --rev reads the commit only, never files on disk"
            )
        resolved = resolver.resolve(space, target)
        if resolved is None or not _is_tree(resolved[1][0]):
            return  # not a folder in this commit: finding the space says so
        root = resolved[0]
        writer.subtree(root, resolved[1][1])
    elif _is_tree(entry[0]):
        writer.subtree(ledger, entry[1])
    else:  # a file named .ledger: finding the space says so
        writer.written[ledger] = writer.files[ledger] = entry
    for link, oid in writer.pending_links:
        resolver.link(link, resolver.link_target(oid))
    needed: set[tuple[bytes, ...]] = set()
    for link, oid in writer.pending_links:
        resolved = resolver.resolve(link[:-1], resolver.link_target(oid))
        if resolved is None:
            continue
        real, real_entry = resolved
        if real[: len(root)] == root:  # outside the ledger the walk skips it: a stand-in will do
            needed.add(real)
        if real not in writer.written and real not in writer.folders and real not in writer.links:
            if _is_tree(real_entry[0]):
                writer.folder(real)  # outside the ledger: never listed by the walk
            else:
                writer.files[real] = real_entry
    _write_files(tree, writer, needed, root)


def _write_files(
    tree: _Tree, writer: _Writer, needed: set[tuple[bytes, ...]], root: tuple[bytes, ...]
) -> None:
    """Write each file: ``*.md`` in the ledger and link targets there with their bytes,
    others empty (a file outside the ledger is never read: its bytes never leave git)."""
    with_bytes: list[tuple[tuple[bytes, ...], TreeEntry]] = []
    for parts, entry in sorted(writer.files.items()):
        if (parts[-1].endswith(b".md") and parts[: len(root)] == root) or parts in needed:
            with_bytes.append((parts, entry))
        else:
            _create(writer, parts, entry[0]).close()
    oids = [entry[1] for _, entry in with_bytes]
    for (parts, entry), (_, size, chunks) in zip(with_bytes, tree.objects.stream(oids), strict=True):
        with _create(writer, parts, entry[0]) as f:
            if size > MAX_FILE_BYTES:  # never read by the reader: only its size matters
                for _ in chunks:
                    pass
                f.truncate(size)
            else:
                for chunk in chunks:
                    f.write(chunk)


def _create(writer: _Writer, parts: tuple[bytes, ...], mode: str) -> BinaryIO:
    writer.folder(parts[:-1])
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(writer.fs(parts), flags, 0o755 if mode == "100755" else 0o644)
    return os.fdopen(fd, "wb")

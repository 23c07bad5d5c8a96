"""Walking the ledger root: which files are documents, of which kind (spec §1).

The walk only lists and stats; reading and parsing are :mod:`ledger_context.ledger`'s
job. Every file or link it passes over for a reason a person could fix is reported.
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .problems import Problem, Severity
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

_BAD_PATH_CHAR = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")

FileIdentity = tuple[int, int, int, int, int]
"""(device, inode, size in bytes, mtime in ns, ctime in ns) of a file, links followed."""


class SourceFile(NamedTuple):
    """A document the walk found: its kind, its path relative to the space, its identity.

    The path, joined to the space, is also where to open it (links are followed there).

    A named tuple, so a whole walk compares as fast as tuples do (the warm build's check).
    """

    kind: str
    path: str
    identity: FileIdentity


@dataclass(slots=True)
class Walk:
    """What a walk found: documents in path order (code points), and problems."""

    files: list[SourceFile] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    """Documents (``*.md``) skipped by the walk itself, per kind: bad names, size, links,
    non-regular files. They count as read and skipped in the explanation."""


def printable_path(path: str) -> str:
    r"""``path`` with every character that is not clean text written as an escape.

    Bytes that were not valid UTF-8 (surrogate-escaped by the file system layer) appear
    as ``\xNN``; control characters and line separators as ``\xNN`` or ``\uNNNN``.
    """

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        if 0xDC80 <= code <= 0xDCFF:
            return f"\\x{code - 0xDC00:02x}"
        return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"

    return _BAD_PATH_CHAR.sub(escape, path)


def path_fault(path: str) -> str | None:
    """Why ``path`` cannot be written into a title line (spec §1), or ``None`` if clean."""
    match = _BAD_PATH_CHAR.search(path)
    if match is None:
        return None
    if 0xD800 <= ord(match.group()) <= 0xDFFF:
        return "its name is not valid UTF-8"
    return "its name holds a control character or line separator"


def _identity(st: os.stat_result) -> FileIdentity:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class _Walker:
    def __init__(self, space: Path) -> None:
        self.root = os.path.join(space, LEDGER_DIR)
        self.root_real = os.path.realpath(self.root)
        self.result = Walk()
        self.found: list[SourceFile] = []
        self.visits = 0
        self.may_repeat = False
        self.pending: list[tuple[str, str, str, frozenset[str]]] = []

    def report(self, path: str, severity: Severity, message: str, kind: str | None = None) -> None:
        """Record a problem; an error about a document of ``kind`` counts it as skipped."""
        self.result.problems.append(Problem(printable_path(path), severity, message))
        if kind is not None and severity == "error" and path.endswith(".md"):
            self.result.skipped[kind] += 1

    def inside_root(self, real: str) -> bool:
        return real == self.root_real or real.startswith(self.root_real + os.sep)

    def resolve(self, full: str, rel: str, lst: os.stat_result, kind: str) -> os.stat_result | None:
        """Follow a symbolic link if spec §1 allows it; ``None`` when it is skipped."""
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
            entries = sorted(os.scandir(self.root), key=lambda e: e.name)
        except OSError as exc:
            self.report(LEDGER_DIR, "error", f"cannot list the ledger ({exc.strerror})")
            return self.result
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = f"{LEDGER_DIR}/{name}"
            if name == AGENTS_FILE or name in KIND_FOLDERS:
                self.visits = 0  # each kind folder has its own budget: one cannot starve another
                self.visit(entry.path, rel, name, KIND_FOLDERS.get(name, "agents"), frozenset())
                # Folders are walked from a list, not by recursion: any depth is fine.
                while self.pending:
                    self.enter(*self.pending.pop())
            else:
                self.report(
                    rel,
                    "warning",
                    "unexpected entry at the top of .ledger, ignored; expected agents.md and "
                    "the folders harnesses/, evals/, findings/, decisions/, experiments/",
                )
        self.dedupe()
        return self.result

    def visit(self, full: str, rel: str, name: str, kind: str, stack: frozenset[str]) -> None:
        try:
            lst = os.lstat(full)
        except OSError as exc:
            self.report(rel, "error", f"cannot read ({exc.strerror}); skipped", kind)
            return
        st = self.resolve(full, rel, lst, kind)
        if st is None:
            return
        top_level = rel.count("/") == 1
        if stat.S_ISDIR(st.st_mode):
            if kind == "agents":
                self.report(rel, "warning", "agents.md is a directory, not a file; ignored")
                return
            self.pending.append((full, rel, kind, stack))
        elif top_level and kind != "agents":
            self.report(rel, "warning", f"{name} should be a folder; ignored")
        elif stat.S_ISREG(st.st_mode):
            self.consider_file(full, rel, name, kind, st)
        elif name.endswith(".md"):
            self.report(
                rel,
                "error",
                "not a regular file (a FIFO, socket or device); skipped (replace it with a file)",
                kind,
            )

    def enter(self, full: str, rel: str, kind: str, stack: frozenset[str]) -> None:
        try:
            real = os.path.realpath(full)
        except OSError as exc:
            self.report(rel, "error", f"cannot read the folder ({exc.strerror}); skipped")
            return
        if real in stack:
            self.report(rel, "warning", "symbolic link loop (a folder that contains itself); skipped")
            return
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
        try:
            entries = list(os.scandir(full))
        except OSError as exc:
            self.report(rel, "error", f"cannot list the folder ({exc.strerror}); skipped")
            return
        others = []
        clean_folder = path_fault(rel) is None
        found = self.found
        prefix = rel + "/"
        for entry in entries:
            # Regular files named *.md, the bulk of a ledger, take one lstat (cached by
            # scandir) and the fewest steps; their order does not matter, the result is
            # sorted once. Everything else goes the careful way.
            name = entry.name
            if name[0] == ".":
                continue
            if not entry.is_file(follow_symlinks=False):
                others.append(entry)
                continue
            if not name.endswith(".md"):
                _misnamed(self, f"{rel}/{name}", name)  # no stat needed: never read
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                self.report(f"{rel}/{name}", "error", f"cannot read ({exc.strerror}); skipped", kind)
                continue
            if (
                clean_folder
                and st.st_size <= MAX_FILE_BYTES
                and st.st_nlink == 1
                and (name.isprintable() if name.isascii() else _BAD_PATH_CHAR.search(name) is None)
            ):
                identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                found.append(_new_source(SourceFile, (kind, prefix + name, identity)))
            else:
                if st.st_ino == 0:  # Windows: DirEntry.stat() has no inode, os.stat() has
                    st = os.stat(entry.path)
                self.consider_file(entry.path, f"{rel}/{name}", name, kind, st)
        inner = stack | {real}
        for entry in sorted(others, key=lambda e: e.name, reverse=True):
            self.visit(entry.path, f"{rel}/{entry.name}", entry.name, kind, inner)

    def consider_file(self, full: str, rel: str, name: str, kind: str, st: os.stat_result) -> None:
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
        self.found.append(SourceFile(kind, rel, _identity(st)))

    def dedupe(self) -> None:
        """Read a file reached by several paths once, under the first path (spec §1)."""
        if not self.may_repeat:  # no link followed, no hard link: every file is met once
            self.found.sort(key=lambda s: s.path)
            self.result.files = self.found
            return
        by_file: dict[tuple[int, int], list[SourceFile]] = {}
        for source in self.found:
            by_file.setdefault(source.identity[:2], []).append(source)
        files: list[SourceFile] = []
        for group in by_file.values():
            group.sort(key=lambda s: s.path)
            files.append(group[0])
            first = group[0]
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
        files.sort(key=lambda s: s.path)
        self.result.files = files


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


def walk_ledger(space: Path) -> Walk:
    """List the documents of ``space``'s ledger (spec §1).

    Returns a :class:`Walk`: the files in path order (code points), each with its kind
    (``agents``, ``harness``, ``eval``, ``finding``, ``decision``, ``experiment``), and
    the problems met: unexpected entries, misnamed files, links skipped, loops, unclean
    names, files over 10 MiB. Raises nothing for a broken ledger.
    """
    return _Walker(space).walk()

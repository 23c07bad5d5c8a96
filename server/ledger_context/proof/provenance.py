"""Where a pack came from: the commit, whether the ledger differs from it, a fingerprint.

Each document carries the SHA-256 of the bytes read and, inside a git work tree, its git
blob id (:mod:`~ledger_context.reader.ledger` hashes them while reading). This module adds what
holds for the whole build (spec §8, provenance):

- ``commit``: the work tree's HEAD, ``None`` outside a work tree or before the first commit;
- ``dirty``: some document read differs from HEAD's version of its file, or is untracked
  (``None`` outside a work tree);
- ``fingerprint``: :func:`fingerprint` over every document read.

Under a ceiling both are taken over the documents it does not withhold only: a digest that
moves with a withheld file would confirm a guess of its content (spec §8).

Git is asked through its command line, lazily: only an explanation or a receipt needs
HEAD, never ``ledger-context pack``. ``git rev-parse`` gives the top level and the git
folders (once), then HEAD; one ``git ls-tree`` gives HEAD's blob ids below the ledger,
cached per commit. The git CLI reads every repository layout (packed refs, reftable, worktrees,
SHA-256 object format) exactly as git does. A server asks again only when git's HEAD or
ref files changed, which costs a few ``stat`` calls instead of a process (about 2 ms).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from ..model.document import Document
from ..model.values import Record
from ..reader.space import LEDGER_DIR
from ..reader.walk import AGENTS_FILE, KIND_FOLDERS, MAX_FILE_BYTES

GIT_TIMEOUT_S = 20.0
"""A git call that takes longer than this is given up (the build then has no commit)."""

TreeEntry = tuple[str, str]
"""(mode, object id) of one path in a git tree, e.g. ``("100644", "8ab6…")``."""

_LINK_MODE = "120000"
_BLOB_MODES = ("100644", "100755")


class ReadLedger(Protocol):
    """What provenance asks of a ledger as read (:class:`~ledger_context.reader.ledger.Ledger`):
    its space and its documents. A protocol, so that proof stands on the model, not on the
    reader that made the ledger."""

    @property
    def space(self) -> Path: ...
    @property
    def documents(self) -> Sequence[Document]: ...


def fingerprint(documents: Iterable[tuple[str, str]]) -> str:
    """SHA-256 (hex) over ``(path, sha256)`` pairs, sorted by path in code-point order.

    Each pair is encoded as ``path`` in UTF-8, a NUL byte, the 64 hex digits of the
    document's SHA-256 and ``\\n``. Paths are clean text (spec §1: no control
    characters), so the encoding is unambiguous. Two ledgers with the same documents at
    the same paths agree, wherever and whenever they were read.
    """
    digest = hashlib.sha256()
    for path, sha256 in sorted(documents):
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + sha256.encode("ascii") + b"\n")
    return digest.hexdigest()


class Head(Record):
    """A commit and its blob ids below the ledger.

    ``toplevel`` is the real path of the work tree root; ``commit`` is ``None`` before
    the first commit; ``tree`` maps paths relative to ``toplevel`` (``/`` separators) to
    their :data:`TreeEntry`, for every path below the ledger's real folder.
    """

    __slots__ = ("commit", "toplevel", "tree")

    def __init__(
        self,
        toplevel: str,
        commit: str | None,
        tree: Mapping[str, TreeEntry],
    ) -> None:
        self.toplevel = toplevel
        self.commit = commit
        self.tree = tree


class Provenance(Record):
    """Where one build came from (spec §8).

    ``in_git`` tells whether documents' ``git_blob`` is published (the space is inside a
    git work tree, or the build is of a revision).
    """

    __slots__ = ("commit", "dirty", "fingerprint", "in_git")

    def __init__(
        self,
        commit: str | None,
        dirty: bool | None,
        fingerprint: str,
        in_git: bool,
    ) -> None:
        self.commit = commit
        self.dirty = dirty
        self.fingerprint = fingerprint
        self.in_git = in_git


def git(args: list[str], cwd: str | os.PathLike[str], stdin: bytes | None = None) -> bytes | None:
    """Run ``git args`` in ``cwd``; its stdout, or ``None`` when it fails or is missing.

    stdout and stderr are captured (never inherited: a server's stdout is JSON-RPC only)
    and stdin is empty unless given; messages are in the C locale.
    """
    import subprocess  # here: ledger-context pack never starts git, nor pays for the import

    env = dict(os.environ, LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    try:
        result = subprocess.run(
            ["git", "--literal-pathspecs", *args],
            cwd=cwd,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            env=env,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


def parse_ls_tree(output: bytes, prefix: str = "") -> dict[str, TreeEntry]:
    """``git ls-tree -z`` output as ``{path: (mode, oid)}``; ``prefix`` is put before each path."""
    entries: dict[str, TreeEntry] = {}
    for record in output.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, _, rest = meta.partition(b" ")
        oid = rest.rpartition(b" ")[2]
        entries[prefix + os.fsdecode(name)] = (mode.decode("ascii"), oid.decode("ascii"))
    return entries


def _find_dot_git(start: str) -> str | None:
    """The nearest folder from ``start`` upward holding ``.git`` (a folder or a file)."""
    directory = start
    while True:
        if os.path.lexists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _stat_key(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class HeadSource(Protocol):
    """Where a builder learns HEAD: a work tree (:class:`WorkTree`) or a fixed revision."""

    @property
    def found(self) -> bool:
        """True when documents should get their git blob ids."""

    def object_format(self) -> str | None:
        """``sha1`` or ``sha256``; ``None`` when git does not accept the repository."""

    def head(self) -> Head | None:
        """The commit and its blob ids below the ledger, ``None`` outside git."""


class FixedHead(Record):
    """A head that never moves: the revision a build from history was read from."""

    __slots__ = ("fixed", "format", "found")

    def __init__(
        self,
        fixed: Head,
        format: str,
        found: bool = True,
    ) -> None:
        self.fixed = fixed
        self.format = format
        self.found = found

    def object_format(self) -> str | None:
        return self.format

    def head(self) -> Head | None:
        return self.fixed


class WorkTree:
    """The git work tree that holds a space, and its HEAD, re-read only when it moves.

    ``found`` is decided without running git: some folder from the space upward holds
    ``.git``. Thread-safe.
    """

    def __init__(self, space: Path) -> None:
        self.space = space
        self.found = _find_dot_git(os.path.realpath(space)) is not None
        self._lock = threading.Lock()
        self._format: str | None = None
        self._dirs: tuple[str, str, str] | None = None  # toplevel, git dir, common dir
        self._key: object = None
        self._head: Head | None = None
        self._trees: dict[tuple[str | None, str | None], dict[str, TreeEntry]] = {}
        self._ledger_real: str | None = None

    def object_format(self) -> str | None:
        """``sha1`` or ``sha256`` (the hash of this repository's object ids), ``None`` if
        the space is not in a work tree git accepts."""
        with self._lock:
            if self._format is None and self.found:
                out = git(["rev-parse", "--show-object-format"], self.space)
                self._format = out.decode("ascii").strip() if out else ""
            return self._format or None

    def _refs_key(self) -> object:
        """What changes whenever HEAD may point elsewhere: HEAD's text, and the files
        git keeps refs in (git replaces a ref file on every update, so its inode moves)."""
        assert self._dirs is not None
        _, git_dir, common = self._dirs
        try:
            with open(os.path.join(git_dir, "HEAD"), "rb") as f:
                head_text = f.read(4096)
        except OSError:
            return object()  # unknown: never equal, so git is asked
        ref = head_text[5:].strip().decode("utf-8", "replace") if head_text.startswith(b"ref: ") else ""
        return (
            head_text,
            _stat_key(os.path.join(common, ref)) if ref else None,
            _stat_key(os.path.join(git_dir, ref)) if ref else None,
            _stat_key(os.path.join(common, "packed-refs")),
            _stat_key(os.path.join(common, "reftable", "tables.list")),
        )

    def head(self) -> Head | None:
        """HEAD and its blob ids below the ledger's real folder, or ``None`` outside a
        work tree (or where git refuses the repository)."""
        if not self.found:
            return None
        with self._lock:
            ledger_real = os.path.realpath(os.path.join(self.space, LEDGER_DIR))  # a link may move
            unmoved = self._dirs is not None and self._head is not None and self._ledger_real == ledger_real
            if unmoved and self._refs_key() == self._key:
                return self._head
            self._ledger_real = ledger_real
            if self._dirs is None:
                folders = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"]
                out = git(folders, self.space)
                if out is None:
                    return None
                lines = os.fsdecode(out).splitlines()
                # --git-common-dir is relative to the folder git ran in, unless absolute.
                common = os.path.normpath(os.path.join(self.space, lines[2]))
                self._dirs = (os.path.realpath(lines[0]), lines[1], common)
            toplevel = self._dirs[0]
            self._key = self._refs_key()  # before HEAD is read: a commit in between is seen next time
            out = git(["rev-parse", "--verify", "-q", "HEAD"], self.space)
            commit = out.decode("ascii").strip() if out else None  # None: no commit yet
            ledger_rel = _relative(ledger_real, toplevel)
            tree = self._trees.get((commit, ledger_rel))
            if tree is None:
                tree = {}
                if commit is not None and ledger_rel is not None:
                    listing = ["ls-tree", "-r", "-z", "--full-tree", commit, "--", ledger_rel or "."]
                    tree = parse_ls_tree(git(listing, toplevel) or b"")
                    link = _ledger_link(self.space, toplevel)
                    if link is not None:  # the commit's own entry for the .ledger link (dirty)
                        tree |= parse_ls_tree(
                            git(["ls-tree", "-z", "--full-tree", commit, "--", link], toplevel) or b""
                        )
                self._trees = {(commit, ledger_rel): tree}  # one commit at a time
            self._head = Head(toplevel, commit, tree)
            return self._head


def _ledger_link(space: Path, toplevel: str) -> str | None:
    """The path of the space's ``.ledger`` relative to ``toplevel`` when it is a link, else
    ``None``: the commit must hold the same link (:func:`dirty`)."""
    at = os.path.join(space, LEDGER_DIR)
    if not os.path.islink(at):
        return None
    folder = _relative(os.path.realpath(space), toplevel)
    return None if folder is None else f"{folder}/{LEDGER_DIR}" if folder else LEDGER_DIR


def _relative(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` with ``/`` separators, ``None`` if outside it."""
    if path == root:
        return ""
    if not path.startswith(root.rstrip(os.sep) + os.sep):
        return None
    return path[len(root.rstrip(os.sep)) + 1 :].replace(os.sep, "/")


def dirty(
    ledger: ReadLedger,
    head: Head,
    documents: Iterable[Document] | None = None,
    withholds: Callable[[str | None], bool] | None = None,
) -> bool:
    """True when the documents read are not ``head``'s: a document shown (``documents``,
    those the ceiling does not withhold) differs from its committed version or is
    untracked, or a committed document is not among them (deleted, renamed, skipped, now
    withheld, a link retargeted) while ``head``'s version of it is a document the build
    would read and not withhold (``withholds``: the build's ceiling, by class). So
    ``False`` means a build of ``head`` holds these very documents.

    A document's file in the tree is its path below the ledger's real folder; where that
    entry is missing or a link (the path goes through a link), its real path decides, and
    a committed link must still name the same target.
    """
    chosen = list(ledger.documents if documents is None else documents)
    ledger_rel = _relative(os.path.realpath(os.path.join(ledger.space, LEDGER_DIR)), head.toplevel)
    if head.commit is None or ledger_rel is None:
        return bool(chosen)
    base = ledger_rel + "/" if ledger_rel else ""
    skip = len(LEDGER_DIR) + 1
    folder = os.path.join(ledger.space, LEDGER_DIR)
    link = _ledger_link(ledger.space, head.toplevel)
    if link is not None and not _same_link(folder, (head.tree.get(link) or ("", ""))[1]):
        return True  # the space's .ledger is a link the commit does not hold, or names another ledger
    for document in chosen:
        rel = document.path[skip:]
        entry = head.tree.get(base + rel)
        if (
            entry is not None
            and entry[0] == _LINK_MODE
            and not _same_link(os.path.join(folder, rel), entry[1])
        ):
            return True  # the committed link named another file
        if entry is None or entry[0] == _LINK_MODE:
            real = _relative(os.path.realpath(os.path.join(ledger.space, document.path)), head.toplevel)
            entry = head.tree.get(real) if real is not None else None
        if entry is None or entry[0] == _LINK_MODE or entry[1] != document.git_blob:
            return True
    shown = {document.path[skip:] for document in chosen}
    read = {document.path[skip:]: document.git_blob for document in ledger.documents}
    lost: dict[str, TreeEntry] = {}
    for path, entry in head.tree.items():
        rel = path[len(base) :]
        if not path.startswith(base) or rel in shown or kind_of(rel) is None:
            continue
        if entry[0] == _LINK_MODE:
            if _same_link(os.path.join(folder, rel), entry[1]):
                continue  # the same link in both: the walk treats it alike
            return True  # retargeted or gone: what it gave is not proven
        if read.get(rel) == entry[1]:
            continue  # read and withheld, unchanged: withheld in ``head`` too
        lost[rel] = entry
    return bool(lost) and _committed_documents_lost(head, lost, withholds)


def _same_link(path: str, oid: str) -> bool:
    """Whether ``path`` is a link whose target git would store as the blob ``oid`` (SHA-1
    or SHA-256, by its length)."""
    try:
        target = os.readlink(path)
    except (OSError, ValueError):
        return False
    data = os.fsencode(target)
    algorithm = "sha256" if len(oid) == 64 else "sha1"
    return hashlib.new(algorithm, b"blob %d\0" % len(data) + data).hexdigest() == oid


def kind_of(rel: str) -> str | None:
    """The kind of the document at ``rel`` below the ledger folder (``/`` separators), as
    the walk reads names (spec §1: none hidden, none unprintable), or ``None`` where no
    document is read."""
    if rel == AGENTS_FILE:
        return "agents"
    folder, _, rest = rel.partition("/")
    hidden = any(part.startswith(".") or not part for part in rest.split("/"))
    if folder not in KIND_FOLDERS or not rest.endswith(".md") or hidden or not rest.isprintable():
        return None
    return KIND_FOLDERS[folder]


_READ_AT_ONCE = 64 * 1024 * 1024
"""The most blob bytes :func:`dirty` holds at once (whole blobs, each within 10 MiB)."""


def _committed_documents_lost(
    head: Head, lost: Mapping[str, TreeEntry], withholds: Callable[[str | None], bool] | None
) -> bool:
    """Whether one of the committed files the build did not read (``lost``: ledger-relative
    path to tree entry, none a link) is, in ``head``, a document the build would read and
    not withhold. Sizes are asked first (``git cat-file --batch-check``); only blobs within
    the reader's size limit are read, in groups of at most :data:`_READ_AT_ONCE` bytes, and
    the first that counts ends the search. A blob git cannot give counts as lost: what it
    would give is not proven."""
    asked = "".join(f"{entry[1]}\n" for entry in lost.values()).encode("ascii")
    sizes = git(["cat-file", "--batch-check"], head.toplevel, stdin=asked)
    if sizes is None or len(lines := sizes.splitlines()) != len(lost):
        return True
    group: dict[str, str] = {}
    held = 0
    for (rel, entry), line in zip(lost.items(), lines, strict=True):
        fields = line.split(b" ")
        if len(fields) != 3 or fields[1] != b"blob":
            return True
        size = int(fields[2])
        if size > MAX_FILE_BYTES:
            continue  # skipped in that commit too (spec §1)
        if group and held + size > _READ_AT_ONCE:
            if _counts(head, group, withholds):
                return True
            group, held = {}, 0
        group[rel], held = entry[1], held + size
    return bool(group) and _counts(head, group, withholds)


def _counts(head: Head, blobs: Mapping[str, str], withholds: Callable[[str | None], bool] | None) -> bool:
    """Whether one of ``blobs`` (ledger-relative path to blob id), read in one ``git
    cat-file --batch``, is a document the build would read and not withhold."""
    from ..reader.parse import parse_document  # here: only a ledger missing a committed file parses one

    asked = "".join(f"{oid}\n" for oid in blobs.values()).encode("ascii")
    out = git(["cat-file", "--batch"], head.toplevel, stdin=asked)
    if out is None:
        return True
    at = 0
    for rel in blobs:
        header_end = out.find(b"\n", at)
        fields = out[at:header_end].split(b" ")
        if header_end < 0 or len(fields) != 3 or fields[1] != b"blob":
            return True
        size = int(fields[2])
        data, at = out[header_end + 1 : header_end + 1 + size], header_end + 2 + size
        kind = kind_of(rel)
        assert kind is not None
        found = parse_document(kind, f"{LEDGER_DIR}/{rel}", data, keep_body=False).document
        if found is not None and not (withholds is not None and withholds(found.data_class)):
            return True
    return False


def provenance(
    ledger: ReadLedger,
    head: Head | None,
    withheld: Callable[[str], bool] | None = None,
    withholds: Callable[[str | None], bool] | None = None,
) -> Provenance:
    """The provenance of a build that read ``ledger``, against ``head`` (``None``: no
    work tree, or git refused it), over the documents whose path ``withheld`` (the build's
    own decision, spec §7) does not name; all of them when ``None``. ``withholds`` is the
    build's ceiling by class, for committed documents it did not read (:func:`dirty`)."""
    documents = ledger.documents
    shown = documents if withheld is None else [d for d in documents if not withheld(d.path)]
    digest = fingerprint((d.path, d.sha256) for d in shown)
    if head is None:
        return Provenance(None, None, digest, False)
    return Provenance(head.commit, dirty(ledger, head, shown, withholds), digest, True)

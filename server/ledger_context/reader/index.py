"""The ledger index: what reading each file gave, kept on disk between processes.

One file per ledger in the user's cache directory (its name is the SHA-256 of the space's
real path), so a new process starts as warm as a server's second build. Per file it keeps
the identity (:data:`~ledger_context.reader.cache.FileIdentity`) and the whole parse result:
the document (fields, class, title, frontmatter, body, SHA-256, git blob id) and its problems.

The index is new state that costs time, never correctness:

- it is trusted only as far as the user's own cache directory: a private folder (0700)
  owned by the user, a regular file (0600, opened with ``O_NOFOLLOW``, checked on the
  descriptor), whose body carries an HMAC-SHA256 under a random per-user key kept in the
  same folder. Anything else (missing, garbage, truncated, a link, foreign version, a MAC
  that does not verify) is ignored, and the index rebuilt;
- its body is :mod:`marshal` data, read only after its MAC verifies: marshal builds
  plain values (never pickle, which runs code), and parses at C speed, about twice as
  fast as JSON both ways (issue 26). Its format is Python's own, so the version key holds
  Python's version and marshal's;
- it is written whole to a temporary file in the same folder, flushed and renamed over
  the old one: readers never see half a file and never lock, and the last writer wins;
- an entry is used only where the walk sees the same identity and the file's times are
  at least :data:`~ledger_context.reader.cache.RACY_NS` older than the moment the index
  was written (the racy rule); its use is the build's affair (:mod:`~ledger_context.pack.build`),
  which reads afresh everything it serves.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import importlib.util
import marshal
import os
import stat
import sys
import time
from _thread import allocate_lock
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from ..model.classify import RANK
from ..model.document import Document, FileResult
from ..model.fields import Timestamp
from ..model.kinds import KIND
from ..model.problems import SEVERITIES, Problem
from ..model.values import Record, cycles_uncollected
from .frontmatter import YamlOptions, resolved
from .identity import FileIdentity
from .paths import fs_path

FORMAT = 6
"""The layout of the index file; any change to it or to what an entry holds bumps it."""

MAGIC = b"ledger-context index\n"
KEY_FILE = "key"
KEY_BYTES = 32
MAX_INDEX_BYTES = 4 << 30
"""An index larger than this (4 GiB) is not read: no ledger's parse results come near."""

POSTINGS_SUFFIX = ".postings"
"""Search's postings of a ledger beside its index (:mod:`~ledger_context.search.stored`)."""

_PARSE_SOURCES = ("model", "reader")
"""The wings whose code decides what a parse gives: their source is part of the version."""


class IndexOptions(Record):
    """Where the indexes live (the edge chooses: ``$XDG_CACHE_HOME/ledger-context`` or the
    platform's equivalent); ``None`` in the settings means no index."""

    __slots__ = ("directory",)

    def __init__(
        self,
        directory: Path,
    ) -> None:
        self.directory = directory


class Loaded:
    """An index read from disk: its entries by path, the moment it was written (ns), the
    summary of the last build it was written by (:attr:`build`, plain data, or ``None``)
    and, when it could not be used, why (``entries`` is then empty).

    The entries are decoded on first use (:attr:`entries`): a warm start whose walk the
    summary describes never needs them (issue 26). A row of the wrong shape found then
    sets :attr:`fault` and gives no entries, as a file refused whole would.
    """

    __slots__ = ("_entries", "_lock", "_rows", "build", "fault", "written_ns")

    def __init__(
        self,
        entries: dict[str, tuple[FileIdentity, FileResult]] | None = None,
        written_ns: int = 0,
        fault: str | None = None,
        *,
        rows: memoryview | None = None,
        build: Any = None,
    ) -> None:
        self._entries = {} if entries is None and rows is None else entries
        self._rows = rows
        self._lock = allocate_lock()
        self.written_ns = written_ns
        self.fault = fault
        self.build = build

    @property
    def entries(self) -> dict[str, tuple[FileIdentity, FileResult]]:
        """Every entry by path (decoded now if it was not yet)."""
        with self._lock, cycles_uncollected():  # a server's threads may ask at once: decoded once
            if self._entries is None:
                try:
                    self._entries = decode_rows(_rows(self._rows or b""))
                except _UNPARSABLE:
                    self._entries, self.fault, self.build = {}, "the index cannot be parsed", None
                self._rows = None
            return self._entries


def version_key(yaml: YamlOptions | None) -> dict[str, Any]:
    """What an index is valid for: the format, Python, the reader's own code and the YAML
    loader. Any difference ignores the index. (Git blob ids are per entry: a build that
    needs them reads again a file whose entry has none, or of another format.) The
    package's version is not asked: the digest of the code that makes an entry already
    changes with any release that could change one, and asking costs a start-up 30 ms
    (``importlib.metadata``)."""
    options = resolved(yaml)
    return {
        "format": FORMAT,
        "python": list(sys.version_info[:2]),
        "marshal": marshal.version,
        "reader": _reader_digest(),
        "yaml": {"quick": options.quick, "pure_python": options.pure_python, "libyaml": _libyaml()},
    }


_DIGESTS: dict[tuple[str, ...], str] = {}


def _reader_digest() -> str:
    """The SHA-256 of the model and reader wings' source: an edited parser (a development
    tree, a patched install) never reads an index made by another."""
    return source_digest(*_PARSE_SOURCES)


def source_digest(*wings: str) -> str:
    """The SHA-256 of the source of the package's ``wings``, read once per process."""
    if wings not in _DIGESTS:
        digest = hashlib.sha256()
        package = Path(__file__).resolve().parents[1]
        for wing in wings:
            for path in sorted((package / wing).glob("*.py")):
                digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        _DIGESTS[wings] = digest.hexdigest()
    return _DIGESTS[wings]


def space_text(space: Path) -> str:
    """The real path of ``space`` as text: what an index and the files beside it are for."""
    return os.fsdecode(os.path.realpath(fs_path(space, "")))


def _libyaml() -> bool:
    """Whether PyYAML's C extension is installed, found without importing PyYAML (which a
    warm start never needs)."""
    spec = importlib.util.find_spec("yaml")
    if spec is None or not spec.submodule_search_locations:
        return False
    return any(
        name.startswith("_yaml.") for where in spec.submodule_search_locations for name in os.listdir(where)
    )


def index_path(options: IndexOptions, space: Path) -> Path:
    """The index file of ``space``: named by the SHA-256 of its real path."""
    real = os.path.realpath(fs_path(space, ""))
    return options.directory / f"{hashlib.sha256(real).hexdigest()}.index"


# -- the private folder and the key ------------------------------------------------------


def _private_folder(directory: Path, create: bool) -> str | None:
    """``None`` if ``directory`` is a folder only the user can write (made 0700 when
    ``create`` and missing), else why it cannot hold an index."""
    try:
        if create:
            os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.lstat(directory)
    except FileNotFoundError:
        return "the cache folder does not exist"
    except OSError as exc:
        return f"the cache folder cannot be made ({exc.strerror or exc})"
    if not stat.S_ISDIR(info.st_mode):
        return "the cache folder is not a folder"
    shared = _not_the_users_alone(info)
    return None if shared is None else f"the cache folder is {shared}"


def _not_the_users_alone(info: os.stat_result) -> str | None:
    """Why a file or folder is not the user's alone (another owner, or others may write
    it), else ``None``."""
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return "owned by another user"
    if info.st_mode & 0o022:
        return "writable by others"
    return None


def _private_file(info: os.stat_result, limit: int) -> str | None:
    """``None`` if the open file of ``info`` (its ``fstat``) is a regular file of the
    user's that no one else may write and at most ``limit`` bytes long, else why it is
    not trusted."""
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    shared = _not_the_users_alone(info)
    if shared is not None:
        return shared
    if info.st_size > limit:
        return f"larger than {limit:,} bytes"
    return None


def _open_private(path: Path, limit: int, sealed: bool = False) -> tuple[bytes | None, str | None]:
    """The bytes of the private file at ``path`` (``None`` and why when it is missing, a
    link, or not private: what follows "the file is"). A ``sealed`` file (:func:`seal`)
    whose first bytes are not :data:`MAGIC`, a MAC in hex and a newline is given as those
    bytes alone (its reader says what it is not), never read whole: 3 GB of garbage in an
    index's place took 23 s and 6.3 GB."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None, "missing"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "a symbolic link in place of the file"
        return None, f"unopenable ({exc.strerror or exc})"
    try:
        info = os.fstat(fd)
        fault = _private_file(info, limit)
        if fault is not None:
            return None, fault
        if sealed:
            if not _sealed_head(head := os.read(fd, _HEAD)):
                return head, None
            os.lseek(fd, 0, os.SEEK_SET)  # read whole below: the head is not copied in
        # One read of the size fstat gave, and no join: a copy of a 5 MB index, and the
        # page faults of its new memory, were 3 ms of a 70 ms warm start (issue 26). A
        # short read (over 2 GiB) goes on, to one byte past that size: a file that grew
        # meanwhile is refused by its MAC (or the key by its length) all the same.
        chunks = [os.read(fd, info.st_size + 1)]
        total = len(chunks[0])
        while total <= info.st_size and (more := os.read(fd, info.st_size + 1 - total)):
            chunks.append(more)
            total += len(more)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks), None
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    except MemoryError:
        return None, "too large to read (out of memory)"
    finally:
        os.close(fd)


_HEAD = len(MAGIC) + 65
"""The fixed start of a sealed file: :data:`MAGIC`, a MAC in hex, a newline."""

_HEX = frozenset(b"0123456789abcdef")


def _sealed_head(head: bytes) -> bool:
    """Whether ``head`` is the fixed start of a sealed file (its MAC still to verify)."""
    return (
        len(head) == _HEAD
        and head.startswith(MAGIC)
        and head[-1:] == b"\n"
        and _HEX.issuperset(head[len(MAGIC) : -1])
    )


def _write_private(directory: Path, prefix: str, data: bytes, durable: bool = True) -> str:
    """Write ``data`` to a new 0600 file in ``directory`` (``O_EXCL``), flushed to disk when
    ``durable``; returns its path. Raises :class:`OSError`."""
    import tempfile  # here: only a write needs it (and shutil with it)

    fd, temporary = tempfile.mkstemp(dir=directory, prefix=prefix, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            if durable:
                os.fsync(out.fileno())
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary


def user_key(directory: Path, create: bool = True) -> tuple[bytes | None, str | None]:
    """The user's index key (:data:`KEY_BYTES` random bytes in ``directory/key``, 0600),
    made when missing and ``create``; or ``None`` and why there is none."""
    path = directory / KEY_FILE
    data, fault = _open_private(path, KEY_BYTES)
    if fault == "missing" and create:
        import secrets  # here: only a new key needs it (with base64 and random)

        try:
            temporary = _write_private(directory, ".key-", secrets.token_bytes(KEY_BYTES))
            try:
                os.link(temporary, path)  # atomic, and never over a key another process made
            except FileExistsError:
                pass
            finally:
                os.unlink(temporary)
        except OSError as exc:
            return None, f"the key cannot be written ({exc.strerror or exc})"
        data, fault = _open_private(path, KEY_BYTES)
    if data is None:
        return None, f"the key is {fault}"
    if len(data) != KEY_BYTES:
        return None, f"the key is not a key (wrong length; remove {path}: a new one is made)"
    return data, None


# -- entries --------------------------------------------------------------------------


def _document_row(d: Document) -> tuple[Any, ...]:
    """The document's fields in their order, less the path (the entry's own), its
    ``updated_at`` as its key and no body: the pack never shows one, and search reads it
    again (spec §1). The frontmatter text is kept only where a block always shows it
    (:func:`~ledger_context.model.document.lacks_frontmatter`): two thirds of an index
    of experiments, read afresh for the ten the pack shows."""
    frontmatter = d.frontmatter if KIND[d.kind].always_chosen(d.status) else None
    updated = d.updated.key if d.updated is not None else None
    return (d.kind, d.size, frontmatter, d.status, updated, *d[6:-1], None)


def entry_row(path: str, identity: FileIdentity, result: FileResult) -> tuple[Any, ...]:
    document = _document_row(result.document) if result.document is not None else None
    return (path, identity, result.size, tuple(map(tuple, result.problems)), document)


_DOCUMENT_FIELDS = 14
_CLASSES = {None, *RANK}
"""What a document's data class can be: undeclared, or a known class or unknown."""

# tuple.__new__ makes a named tuple from its fields without the Python-level __new__: a
# warm start rebuilds one or two per file (issue 26).
_new = tuple.__new__


def decode_rows(rows: list[tuple[Any, ...]]) -> dict[str, tuple[FileIdentity, FileResult]]:
    """The entries back from their rows, by path. Fields are not type-checked one by one:
    the body's MAC says this process's own code wrote it, under the same version key; a
    row of the wrong shape still fails (``TypeError``, ``ValueError``) and the index is
    then not used. One loop, no call per row: a warm start decodes one row per file."""
    entries: dict[str, tuple[FileIdentity, FileResult]] = {}
    kinds, classes, timestamp, document_type, result_type = KIND, _CLASSES, Timestamp, Document, FileResult
    for path, identity, size, problems, fields in rows:
        if type(path) is not str or type(size) is not int or len(identity) != 5:
            raise ValueError("not an entry")
        document = None
        if fields is not None:
            # The values the build looks up in tables: an entry holding one the reader
            # never makes (only a holder of the key could sign it) is refused here.
            if len(fields) != _DOCUMENT_FIELDS or fields[0] not in kinds or fields[7] not in classes:
                raise ValueError("not a document")
            kind, size_read, frontmatter, status, updated = fields[:5]
            moment = None if updated is None else timestamp(updated)
            # Document's fields in their order (_document_row), the path put back
            document = _new(document_type, (kind, path, size_read, frontmatter, status, moment, *fields[5:]))
        kept = _problems(problems) if problems else ()
        entries[path] = (identity, _new(result_type, (document, kept, size, True)))
    return entries


def _problems(rows: tuple[Any, ...]) -> tuple[Problem, ...]:
    kept = tuple([Problem._make(p) for p in rows])
    if any(p.severity not in SEVERITIES or not isinstance(p.path, str) for p in kept):
        raise ValueError("not a problem")
    return kept


# -- the file -------------------------------------------------------------------------


def encode_index(
    key: bytes,
    version: dict[str, Any],
    space: Path,
    written_ns: int,
    entries: list[tuple[str, FileIdentity, FileResult]],
    build: Any = None,
) -> bytes:
    """The bytes of an index (:func:`seal`): a body whose header holds the version, the
    space, the moment of writing and ``build``, the last build's summary
    (:mod:`~ledger_context.reader.indexed`, plain data), followed by the entries' rows."""
    header = {"version": version, "space": space_text(space), "written_ns": written_ns, "build": build}
    return seal(key, join_body(header, marshal.dumps([entry_row(*entry) for entry in entries])))


def join_body(header: dict[str, Any], rows: bytes) -> bytes:
    """An index's body: the length of the marshalled ``header`` in decimal and a newline,
    the header, then ``rows`` (marshalled apart, after it: reading the index decodes the
    header alone, and the rows only when asked, from the very bytes read (:class:`Loaded`)."""
    head = marshal.dumps(header)
    return b"%d\n" % len(head) + head + rows


def split_body(body: memoryview) -> tuple[Any, memoryview]:
    """The header of an index's ``body``, decoded, and its rows, undecoded (a view: not
    copied); ``ValueError`` when the body has no length line."""
    line = bytes(body[:21])  # at most 20 digits and a newline: the search is bounded
    newline = line.find(b"\n")
    if newline < 1 or not line[:newline].isdigit():
        raise ValueError("not an index body")
    end = newline + 1 + int(line[:newline])
    if end > len(body):
        raise ValueError("not an index body")
    return marshal.loads(body[newline + 1 : end]), body[end:]


def seal(key: bytes, body: bytes) -> bytes:
    """A sealed file's bytes: :data:`MAGIC`, the body's HMAC-SHA256 in hex, a newline, the body."""
    return MAGIC + hmac.new(key, body, hashlib.sha256).hexdigest().encode("ascii") + b"\n" + body


def unseal(data: bytes, key: bytes) -> tuple[memoryview | None, str | None]:
    """The body of the sealed ``data`` (a view of it, not a copy), or ``None`` and why: not
    an index, or a MAC that does not verify (tampered or truncated)."""
    if not data.startswith(MAGIC) or len(data) < _HEAD or data[_HEAD - 1 : _HEAD] != b"\n":
        return None, "the file is not an index"
    body = memoryview(data)[_HEAD:]
    expected = hmac.new(key, body, hashlib.sha256).hexdigest().encode("ascii")
    if not hmac.compare_digest(expected, data[len(MAGIC) : _HEAD - 1]):
        return None, "the index's MAC does not verify (truncated or edited)"
    return body, None


def decode_index(
    data: bytes, key: bytes, version: dict[str, Any], space: Path, *, lazy: bool = False
) -> Loaded:
    """The entries of the index ``data``, or why it cannot be used: not an index, a MAC
    that does not verify (tampered or truncated), another version or another ledger.
    With ``lazy`` the entries are decoded on first use (:class:`Loaded`)."""
    body, fault = unseal(data, key)
    if body is None:
        return Loaded({}, fault=fault)
    try:
        parsed, rows = split_body(body)
        if parsed["version"] != version:
            return Loaded({}, fault="the index was made by another version or with other settings")
        if parsed["space"] != space_text(space):
            return Loaded({}, fault="the index was made for another ledger")
        written_ns = parsed["written_ns"]
        if type(written_ns) is not int:
            raise ValueError("not an index")
        loaded = Loaded(written_ns=written_ns, rows=rows, build=parsed.get("build"))
        if not lazy:
            loaded.entries  # noqa: B018 - decoded now: a fault is known on return
        return loaded
    except _UNPARSABLE:
        return Loaded({}, fault="the index cannot be parsed")


_UNPARSABLE = (KeyError, TypeError, ValueError, IndexError, EOFError, RecursionError)
"""What decoding a body of the wrong shape raises (its MAC verified: only a holder of the
key could have written it)."""


def _rows(data: bytes | memoryview) -> list[tuple[Any, ...]]:
    rows = marshal.loads(data)
    if type(rows) is not list:
        raise ValueError("not a list of entries")
    return rows


def load_index(options: IndexOptions, space: Path, version: dict[str, Any], *, lazy: bool = False) -> Loaded:
    """Read the index of ``space`` (never raises): its entries, or why none can be used
    (``missing``, or a clause that names what is wrong: "the index file is …"); with
    ``lazy``, entries decoded on first use."""
    data, key, fault = read_private(options, index_path(options, space))
    if data is None or key is None:
        return Loaded({}, fault=fault)
    return decode_index(data, key, version, space, lazy=lazy)


def read_private(
    options: IndexOptions, path: Path, name: str = "index file"
) -> tuple[bytes | None, bytes | None, str | None]:
    """The bytes of the private file ``path`` in the cache folder and the user's key, or
    why they cannot be had (``missing``, or a clause: "the index file is …", with ``name``)."""
    fault = _private_folder(options.directory, create=False)
    if fault is not None:
        return None, None, "missing" if fault == "the cache folder does not exist" else fault
    data, fault = _open_private(path, MAX_INDEX_BYTES, sealed=True)
    if data is None:
        return None, None, "missing" if fault == "missing" else f"the {name} is {fault}"
    key, fault = user_key(options.directory, create=False)
    return data, key, fault


def write_private(options: IndexOptions, path: Path, body: Callable[[bytes], bytes]) -> str | None:
    """Write ``body(key)`` (the bytes, sealed with the user's key) whole and atomically to
    ``path`` in the cache folder; ``None``, or why it was not written."""
    fault = _private_folder(options.directory, create=True)
    if fault is not None:
        return fault
    key, fault = user_key(options.directory)
    if key is None:
        return fault
    try:
        data = body(key)
        # Not synced to disk: a file a crash tore fails its MAC and is made again, while
        # a lost key would orphan every index (the key is synced).
        temporary = _write_private(options.directory, _temporary_prefix(path), data, durable=False)
        try:
            os.replace(temporary, path)  # replaces a link, never follows it
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc})"
    _remove_temporaries(options.directory, older_than_s=STALE_TEMPORARY_S)
    return None


STALE_TEMPORARY_S = 600
"""A temporary file this old is a write that was killed (a write of 100,000 documents'
entries takes about a second): the next write removes it."""


def _temporary_prefix(path: Path) -> str:
    """The name a temporary file of ``path`` starts with (``.<name>-``): whose it is, so
    that ``index clear`` of one ledger removes that ledger's."""
    return f".{path.name}-"


def _remove_temporaries(directory: Path, prefixes: tuple[str, ...] = (".",), older_than_s: float = 0) -> int:
    """Remove the temporary files (``.*.tmp``) in ``directory`` whose name starts with one
    of ``prefixes`` and that were last changed at least ``older_than_s`` seconds ago, left by
    a write that was killed (SIGKILL, power loss); how many went. What cannot be removed or
    listed stays, as any file would: it costs disk space, never an answer."""
    if _private_folder(directory, create=False) is not None:
        return 0  # a link in the folder's place, or a folder others may write: not ours to sweep
    now, removed = time.time(), 0
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if not (entry.name.startswith(prefixes) and entry.name.endswith(".tmp")):
                    continue
                try:
                    if now - entry.stat(follow_symlinks=False).st_mtime >= older_than_s:
                        os.unlink(entry.path)
                        removed += 1
                except OSError:
                    continue
    except OSError:
        pass
    return removed


def save_index(
    options: IndexOptions,
    space: Path,
    version: dict[str, Any],
    entries: list[tuple[str, FileIdentity, FileResult]],
    written_ns: int | None = None,
    build: Any = None,
) -> str | None:
    """Write the index of ``space`` whole and atomically, with the last ``build``'s
    summary; ``None``, or why it was not written (the build goes on without it)."""
    now = time.time_ns() if written_ns is None else written_ns
    return write_private(
        options,
        index_path(options, space),
        lambda key: encode_index(key, version, space, now, entries, build),
    )


class Seen(Protocol):
    """A file as the walk saw it (:class:`~ledger_context.reader.walk.SourceFile`)."""

    @property
    def path(self) -> str: ...
    @property
    def identity(self) -> FileIdentity: ...


def trusted(
    loaded: Loaded, files: Iterable[Seen], racy_ns: int
) -> dict[str, tuple[FileIdentity, FileResult]]:
    """The entries of ``files``, by path, that the walk saw with the same identity and
    whose file had not changed within ``racy_ns`` of the moment the index was written
    (:func:`~ledger_context.reader.identity.is_racy`, inlined: once per file of a warm start)."""
    safe_before = loaded.written_ns - racy_ns
    found = loaded.entries.get
    taken: dict[str, tuple[FileIdentity, FileResult]] = {}
    for seen in files:
        entry = found(seen.path)
        identity = seen.identity
        if entry is None or entry[0] != identity:
            continue
        if identity[3] <= safe_before and identity[4] <= safe_before:  # mtime, ctime
            taken[seen.path] = entry
    return taken


class Cleared(NamedTuple):
    """What :func:`clear_index` did: how many files went, and each it could not remove as
    (name, why); the name is empty when the folder itself could not be listed."""

    removed: int
    failed: list[tuple[str, str]]


def clear_index(options: IndexOptions, space: Path | None) -> Cleared:
    """Remove the index of ``space`` and the postings beside it (every ledger's when
    ``None``). An empty folder in a file's place goes too (it would keep the index from
    ever being written); what cannot be removed is named, and the rest still goes."""
    if space is not None:
        index = index_path(options, space)
        targets = [index, index.with_suffix(POSTINGS_SUFFIX)]
        temporaries = tuple(_temporary_prefix(target) for target in targets)
    else:
        temporaries = (".",)  # every ledger's, and a key's write that was killed
        try:
            targets = sorted(
                p for p in options.directory.iterdir() if p.suffix in (".index", POSTINGS_SUFFIX)
            )
        except FileNotFoundError:
            return Cleared(0, [])
        except OSError as exc:
            return Cleared(0, [("", f"cannot be listed ({exc.strerror})")])
    removed, failed = _remove_temporaries(options.directory, temporaries), list[tuple[str, str]]()
    for target in targets:
        try:
            _remove(target)
            removed += 1
        except FileNotFoundError:
            pass
        except OSError as exc:
            why = "is a folder that is not empty" if exc.errno == errno.ENOTEMPTY else exc.strerror
            failed.append((target.name, why or "cannot be removed"))
    return Cleared(removed, failed)


def _remove(target: Path) -> None:
    """Unlink ``target``; a folder in its place is removed only when empty."""
    try:
        target.unlink()
    except IsADirectoryError:
        target.rmdir()
    except PermissionError:  # what some systems say for unlink of a folder
        if not stat.S_ISDIR(os.lstat(target).st_mode):
            raise
        target.rmdir()

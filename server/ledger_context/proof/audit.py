"""The audit log: what a server served, to whom, from which ledger state (SQLite).

Three tables: ``calls`` holds one row per call answered or refused (UTC time, client, the
call and its arguments bounded to a digest and a prefix, space, cap, ceiling, the pack's
SHA-256, bytes, tokens, truncated, dropped blocks, commit, dirty, fingerprint, what was
served or why it was refused); ``packs`` holds each distinct pack body once, zlib
compressed, under its SHA-256; ``anchors`` the last row pruned from each chain.

Rows form hash chains (:mod:`~ledger_context.proof.chain`), one per server run: each row
commits to the one before it, so :func:`verify` finds an edited, inserted, reordered or
deleted row, and the receipt of a call carries its row's hash, which no later rewrite of
the log can match. Every text is stored as SQLite can hold it (:func:`storable`), so one
client's odd string never costs another record.

:class:`AuditLog` writes from one thread of its own through a bounded queue: a call only
puts its record on the queue and never waits for the disk; when the queue is full the
record is dropped and counted. SQLite runs in WAL mode with a busy timeout, every batch
in one ``BEGIN IMMEDIATE`` transaction, so several servers can share one log and lose no
rows. The file is created with mode 0600: it holds pack text. A log that cannot be
written is reported once per new reason (logging, to stderr) and through :attr:`AuditLog.state`.

The query side (:func:`list_calls`, :func:`pack_body`, :func:`verify`, :func:`prune`)
is for the command line.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import queue
import re
import secrets
import sqlite3
import stat
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import astuple, dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..model.errors import AuditError
from ..reader.paths import printable_text
from . import chain

logger = logging.getLogger("ledger_context.proof.audit")

AUDIT_ENV = "LEDGER_AUDIT"
DEFAULT_KEEP_DAYS = 90
BUSY_TIMEOUT_MS = 10_000
QUEUE_SIZE = 1000
_SCHEMA_VERSION = 3
ARGUMENTS_PREFIX_BYTES = 1024
"""The most of a call's arguments (as JSON) a row holds; longer ones are in its digest, and
kept whole beside the packs up to :data:`MAX_KEPT_ARGUMENTS_BYTES`."""
MAX_KEPT_ARGUMENTS_BYTES = 32 * 1024
"""Arguments longer than the prefix are kept whole (in ``packs``, under their SHA-256) up to
this size: a search's hits, a long task, a path (at most 4,096 characters).
A larger client argument keeps only its prefix, size and digest, so no client can grow the
log by more than this a call besides the packs, which are stored once each (it was 256 KiB:
a tester grew a log by 5 GB an hour within the rate limit)."""
_REOPEN_AFTER_S = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS packs (
    sha256 TEXT PRIMARY KEY,
    bytes INTEGER NOT NULL,
    body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY,
    time TEXT NOT NULL,
    pid INTEGER NOT NULL,
    client_name TEXT,
    client_version TEXT,
    protocol TEXT,
    call TEXT NOT NULL,
    arguments TEXT NOT NULL,
    space TEXT,
    cap_tokens INTEGER,
    ceiling TEXT,
    sha256 TEXT,
    bytes INTEGER,
    tokens INTEGER,
    truncated INTEGER,
    dropped_blocks INTEGER,
    commit_id TEXT,
    dirty INTEGER,
    fingerprint TEXT,
    document_sha256 TEXT,
    measured TEXT,
    subject TEXT,
    client_id TEXT,
    arguments_bytes INTEGER NOT NULL,
    arguments_sha256 TEXT NOT NULL,
    served TEXT,
    document_bytes INTEGER,
    refused TEXT,
    chain TEXT NOT NULL,
    seq INTEGER NOT NULL,
    prev_hash TEXT NOT NULL,
    row_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_time ON calls (time);
CREATE INDEX IF NOT EXISTS calls_sha256 ON calls (sha256);
CREATE INDEX IF NOT EXISTS calls_chain ON calls (chain, seq);
CREATE TABLE IF NOT EXISTS anchors (
    chain TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    row_hash TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call, answered or refused. ``time`` is UTC, ISO 8601 with microseconds and
    ``Z``; ``arguments`` the first :data:`ARGUMENTS_PREFIX_BYTES` of the call's arguments
    as JSON, ``arguments_bytes`` and ``arguments_sha256`` the size and digest of all of
    it; ``sha256``, ``bytes`` … describe the pack the call was answered from (``None``
    when there was no pack to answer from); ``served`` is ``pack``, the path of the
    document served (then ``document_sha256`` and ``document_bytes`` are its own), or
    ``None`` for a refused call, whose reason is ``refused``. ``chain``, ``seq``,
    ``prev_hash`` and ``row_hash`` place the row in its hash chain (set by the log)."""

    time: str
    client_name: str | None
    client_version: str | None
    protocol: str | None
    call: str
    arguments: str
    space: str | None
    cap_tokens: int | None
    ceiling: str | None
    sha256: str | None
    bytes: int | None
    tokens: int | None
    truncated: bool | None
    dropped_blocks: int | None
    commit: str | None
    dirty: bool | None
    fingerprint: str | None
    document_sha256: str | None = None
    pid: int = 0
    measured: str | None = None
    """Real tokenizers' counts of the pack as JSON, ``{tokenizer: {"tokens", "drift",
    "library"}}`` (spec §9: beside the rule, never instead); ``None``: none counted."""
    subject: str | None = None
    """The bearer token's subject (HTTP with authorization); ``ceiling`` is the one that
    applied to the call."""
    client_id: str | None = None
    arguments_bytes: int = 0
    arguments_sha256: str = ""
    served: str | None = "pack"
    document_bytes: int | None = None
    refused: str | None = None
    chain: str = ""
    seq: int = 0
    prev_hash: str = ""
    row_hash: str = ""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` with every lone surrogate written as its ``\\udXXX`` escape: UTF-8 (and
    so SQLite) cannot hold one, and a valid JSON string may carry it."""
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _storable_fields(record: CallRecord) -> CallRecord:
    changes = {
        f.name: storable(value)
        for f in fields(record)
        if isinstance(value := getattr(record, f.name), str) and _LONE_SURROGATE.search(value)
    }
    return replace(record, **changes) if changes else record  # type: ignore[arg-type]


def utc_now() -> str:
    """The time now, UTC, as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (sorts as text)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def arguments_json(arguments: dict[str, Any]) -> str:
    """``arguments`` as compact JSON with sorted keys; anything JSON cannot hold as text."""
    return storable(json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=repr))


def bounded_arguments(arguments: dict[str, Any]) -> tuple[str, int, str, bytes]:
    """``arguments`` as a record keeps them: (the first :data:`ARGUMENTS_PREFIX_BYTES` of
    their JSON, cut between code points; the JSON's size in bytes; its SHA-256; the whole
    JSON when the prefix is cut and it is at most :data:`MAX_KEPT_ARGUMENTS_BYTES`, else
    empty)."""
    data = arguments_json(arguments).encode("utf-8")
    prefix = data[:ARGUMENTS_PREFIX_BYTES].decode("utf-8", "ignore")
    whole = data if ARGUMENTS_PREFIX_BYTES < len(data) <= MAX_KEPT_ARGUMENTS_BYTES else b""
    return prefix, len(data), hashlib.sha256(data).hexdigest(), whole


def default_path(environ: Mapping[str, str]) -> Path:
    """The log's default place: the platform's user state folder, as ``environ`` (the
    edge passes ``os.environ``) names it.

    Linux and other Unix: ``$XDG_STATE_HOME/ledger-context/audit.sqlite3`` (an unset or
    relative ``XDG_STATE_HOME`` means ``~/.local/state``); macOS: ``~/Library/Application
    Support/ledger-context/``; Windows: ``%LOCALAPPDATA%\\ledger-context\\``.
    """
    if sys.platform == "win32":
        base = Path(environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        state = environ.get("XDG_STATE_HOME", "")
        base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "ledger-context" / "audit.sqlite3"


def log_path(explicit: str | None, environ: Mapping[str, str]) -> Path:
    """``explicit`` (``--audit``), else ``$LEDGER_AUDIT`` in ``environ`` if set and
    non-empty, else the default."""
    chosen = explicit or environ.get(AUDIT_ENV)
    return Path(os.path.abspath(os.path.expanduser(chosen))) if chosen else default_path(environ)


def _placement_fault(path: Path) -> str | None:
    """Why ``path`` can never hold the log (a file where a folder must be), else ``None``;
    a few ``stat`` calls, so a server can say it at startup."""
    if path.is_symlink():  # refused at open too (O_NOFOLLOW): known now, said before any call
        return f"{path} is a symbolic link; give the log's real path"
    if path.is_dir():
        return f"{path} is a folder"
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return None if folder.is_dir() else f"{folder} is not a folder"


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_private(path: Path, create: bool, writable: bool = True) -> tuple[int, int]:
    """Open the log file without following a symbolic link (creating the folder 0700 and
    the file 0600 when ``create``), tighten a loose mode; its (device, inode). Without
    ``writable`` it is opened for reading only, and its mode left as it is.

    A link is refused, never followed: a dangling one would create the log at its target,
    and a linked file would be chmod'ed.
    """
    fault = _placement_fault(path)
    if fault is not None:
        raise NotADirectoryError(errno.ENOTDIR, fault)
    if path.is_symlink():
        raise OSError(errno.ELOOP, f"{path} is a symbolic link; give the log's real path")
    if create:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        # Reading only, a FIFO in the log's place would hold the open until a writer came:
        # non-blocking, it opens at once and is refused as no regular file below.
        access = os.O_RDWR if writable else os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, access | (os.O_CREAT if create else 0) | _NOFOLLOW, 0o600)
    except FileNotFoundError:
        raise FileNotFoundError(f"no audit log at {path}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, f"{path} is a symbolic link; give the log's real path") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, f"{path} is not a regular file")
        if create and os.name != "nt" and st.st_mode & 0o077:
            os.fchmod(fd, 0o600)
        return (st.st_dev, st.st_ino)
    finally:
        os.close(fd)


def connect(path: Path, create: bool) -> sqlite3.Connection:
    """An open log at ``path`` in WAL mode with a busy timeout and the schema in place.

    Raises ``OSError`` or ``sqlite3.Error`` when the file cannot be created or opened, or
    is (or became, while opening) a symbolic link.
    """
    identity = _open_private(path, create)
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        st = os.lstat(path)  # SQLite follows links: the file it opened must be the one checked
        if (st.st_dev, st.st_ino) != identity:
            raise OSError(errno.ELOOP, f"{path} was replaced while it was opened")
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        if db.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA_VERSION:
            with _transaction(db):  # two servers creating it at once take turns
                _set_aside_unchained(db)
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
    except BaseException:
        db.close()
        raise
    return db


def _set_aside_unchained(db: sqlite3.Connection) -> None:
    """A version 1 or 2 log's rows have no chain: they are kept, unlisted, in
    ``calls_v1`` or ``calls_v2``."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version not in (1, 2):
        return
    db.execute("DROP INDEX IF EXISTS calls_time")
    db.execute("DROP INDEX IF EXISTS calls_sha256")
    db.execute(f"ALTER TABLE calls RENAME TO calls_v{version}")


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _insert(db: sqlite3.Connection, record: CallRecord, pack: bytes, arguments: bytes) -> None:
    # The bodies are looked up in the same transaction as the row, so a concurrent prune
    # can never leave a row whose pack is gone.
    _store_body(db, record.sha256, pack)
    _store_body(db, record.arguments_sha256 if arguments else None, arguments)
    row = astuple(record)
    db.execute(f"INSERT INTO calls ({_COLUMNS}) VALUES ({', '.join('?' * len(row))})", row)


def _store_body(db: sqlite3.Connection, sha256: str | None, body: bytes) -> None:
    """Keep ``body`` once under its ``sha256`` (``None``: nothing to keep)."""
    if (
        sha256 is not None
        and db.execute("SELECT 1 FROM packs WHERE sha256 = ?", (sha256,)).fetchone() is None
    ):
        db.execute(
            "INSERT INTO packs (sha256, bytes, body) VALUES (?, ?, ?)",
            (sha256, len(body), zlib.compress(body, 6)),
        )


PRUNE_BATCH = 2000
"""Rows a prune removes per transaction: a server's writes go between two of them."""


def _prune(
    db: sqlite3.Connection, keep_days: int, spared: str = "", waiting: Callable[[], bool] | None = None
) -> tuple[int, int, bool]:
    """Remove the calls older than ``keep_days`` but those of the chain ``spared`` (a
    server's own run: its rows are new, whatever the clock said), :data:`PRUNE_BATCH` at a
    time, then the packs no call (nor a row set aside from an older schema) refers to:
    (calls removed, packs removed, done). While ``waiting()`` says records wait to be
    written it stops between two batches, not done: the rest is left for later."""
    cutoff = (datetime.now(UTC) - timedelta(days=keep_days)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    old = "SELECT id, chain FROM calls WHERE time < ? AND chain != ? ORDER BY id LIMIT ?"
    calls = 0
    while True:
        with _transaction(db):
            # Each chain keeps the hash of its last pruned row, so its first row left still links.
            db.execute(
                "INSERT OR REPLACE INTO anchors (chain, seq, row_hash) SELECT chain, seq, row_hash FROM calls"
                f" WHERE id IN (SELECT MAX(id) FROM ({old}) GROUP BY chain)",
                (cutoff, spared, PRUNE_BATCH),
            )
            removed = db.execute(
                f"DELETE FROM calls WHERE id IN (SELECT id FROM ({old}))", (cutoff, spared, PRUNE_BATCH)
            ).rowcount
        calls += removed
        if removed < PRUNE_BATCH:
            break
        if waiting is not None and waiting():
            return calls, 0, False
    set_aside = [
        name
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('calls_v1', 'calls_v2')"
        )
    ]
    # IS NOT NULL: a refused call has no pack, and NOT IN a list holding NULL is never true.
    kept_by = "".join(
        f" AND sha256 NOT IN (SELECT sha256 FROM {name} WHERE sha256 IS NOT NULL)" for name in set_aside
    )
    with _transaction(db):
        packs = db.execute(
            "DELETE FROM packs WHERE sha256 NOT IN (SELECT sha256 FROM calls WHERE sha256 IS NOT NULL)"
            " AND sha256 NOT IN (SELECT arguments_sha256 FROM calls)" + kept_by
        ).rowcount
    return calls, packs, True


class AuditLog:
    """A log a server writes to without waiting: records go through a bounded queue to a
    writer thread.

    Opening the file, pruning records older than ``keep_days`` (once, after the first
    records are written) and every write happen on that thread. A file that does not exist
    yet is created at the first record.
    """

    def __init__(self, path: Path, keep_days: int = DEFAULT_KEEP_DAYS, queue_size: int = QUEUE_SIZE) -> None:
        self.path = path
        self.keep_days = keep_days
        self.dropped = 0
        """Records not written: the queue was full, or the log was failing."""
        self.written = 0
        self._failure: str | None = None
        self._queue: queue.Queue[tuple[CallRecord, bytes, bytes] | None] = queue.Queue(queue_size)
        self.chain = secrets.token_hex(8)
        """This log's chain: the rows this server run writes, each linked to the one before."""
        self._seq = 0
        self._head = chain.START
        self._chain_lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None  # the open file's, to notice it replaced
        self._retry_at = 0.0  # after a failed open, the next try waits a while
        self._pruned = False
        fault = _placement_fault(path)
        if fault is not None:  # known now: say it before the first call, not after
            self._fail(f"cannot open {path}: {fault}")
            self._retry_at = time.monotonic() + _REOPEN_AFTER_S
        self._thread = threading.Thread(target=self._run, name="ledger-context audit", daemon=True)
        self._thread.start()

    @property
    def state(self) -> str:
        """``ok`` or ``failing: <reason>`` (what ``explain_budget`` shows)."""
        if self._failure is None:
            return "ok"
        return f"failing: {self._failure} ({self.dropped} records not written)"

    def record(self, record: CallRecord, pack: str, arguments: bytes = b"") -> str | None:
        """Queue ``record`` with its pack text (and its whole ``arguments`` JSON, when the
        row holds only a prefix: :func:`bounded_arguments`) as the next row of this log's
        chain; never blocks, never raises. The row's hash (the chain head), or ``None``
        when the record was dropped (the chain then goes on without it)."""
        try:
            return self._link_and_queue(record, pack.encode("utf-8", "surrogatepass"), arguments)
        except Exception:  # the request path: count it, never fail the call
            logger.exception("ledger-context: could not record %s", record.call)
            self.dropped += 1
            return None

    def _link_and_queue(self, record: CallRecord, body: bytes, arguments: bytes) -> str | None:
        if self._failure is not None and self._db is None and time.monotonic() < self._retry_at:
            # The log cannot be opened now: the writer would drop this record, so no receipt
            # may name it (its audit_head is None) and the count says so at once.
            self.dropped += 1
            return None
        with self._chain_lock:  # the chain's order is the queue's order
            linked = replace(
                _storable_fields(record), chain=self.chain, seq=self._seq, prev_hash=self._head, row_hash=""
            )
            linked = replace(linked, row_hash=chain.row_hash(self._head, astuple(linked)[:-1]))
            try:
                self._queue.put_nowait((linked, body, arguments))
            except queue.Full:  # logged once, not per record: this is the request path
                self.dropped += 1
                self._fail("the writer is behind and its queue is full")
                return None
            self._seq += 1
            self._head = linked.row_hash
        return linked.row_hash

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued record is written or dropped; True if it happened in time."""
        pending = self._queue
        deadline = time.monotonic() + timeout
        with pending.all_tasks_done:
            while pending.unfinished_tasks:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                pending.all_tasks_done.wait(remaining)
        return True

    def close(self, timeout: float = 10.0) -> None:
        """Write what is queued (waiting at most ``timeout`` seconds), then stop the writer."""
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(timeout)

    def _fail(self, reason: str) -> None:
        if reason != self._failure:
            logger.error("ledger-context: the audit log %s is failing: %s", self.path, reason)
        self._failure = reason

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if self._db is not None:
            return self._db
        if time.monotonic() < self._retry_at:
            return None
        try:
            self._db = _connect_retrying(self.path, create)
            self._identity = _file_identity(self.path)
        except FileNotFoundError as exc:
            if not create:  # a reader on a log that does not exist yet: nothing to say
                return None
            self._fail(f"cannot open {self.path}: {_reason(exc)}")
            self._retry_at = time.monotonic() + _REOPEN_AFTER_S
            return None
        except (OSError, sqlite3.Error) as exc:
            self._fail(f"cannot open {self.path}: {_reason(exc)}")
            self._retry_at = time.monotonic() + _REOPEN_AFTER_S
            return None
        return self._db

    def _prune_once(self) -> None:
        """Remove what is older than ``keep_days``, once per server: after its first
        records are written and while none waits, a batch at a time, so that a large log's
        prune (seconds on hundreds of thousands of rows) never holds back the rows receipts
        already name; stopped by waiting records, it goes on at the next pause."""
        db = self._open(create=True)
        if db is None:
            return
        try:
            self._pruned = _prune(db, self.keep_days, self.chain, lambda: not self._queue.empty())[2]
        except sqlite3.Error as exc:
            self._pruned = True  # said once; the next server tries again
            self._fail(f"cannot prune: {_reason(exc)}")

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            batch = [item]
            while item is not None and len(batch) < 100:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                batch.append(item)
            records = [entry for entry in batch if entry is not None]
            if records:
                self._write(records)
                if not self._pruned and (None in batch or self._queue.empty()):
                    self._prune_once()
            for _ in batch:
                self._queue.task_done()
            if None in batch:
                if self._db is not None:
                    self._db.close()
                return

    def _write(self, records: list[tuple[CallRecord, bytes, bytes]]) -> None:
        if self._db is not None and _file_identity(self.path) != self._identity:
            # The file was removed or replaced under the server: writing on would go to a
            # file nobody can read. Open (create) the log at its path again.
            with suppress(sqlite3.Error):
                self._db.close()
            self._db = None
            self._fail(f"{self.path} was removed or replaced while serving; created again")
        db = self._open(create=True)
        if db is None:
            self.dropped += len(records)
            return
        lost = 0
        try:
            with _transaction(db):
                for record, pack, arguments in records:
                    lost += _insert_alone(db, record, pack, arguments)
        except Exception as exc:  # the writer thread must outlive any fault, or calls would queue up
            self.dropped += len(records)
            self._fail(f"cannot write: {_reason(exc)}")
            with suppress(sqlite3.Error):
                db.close()
            self._db = None
            return
        self.written += len(records) - lost
        self.dropped += lost
        if self._failure is not None:
            logger.info("ledger-context: the audit log %s is written again", self.path)
            self._failure = None


def _insert_alone(db: sqlite3.Connection, record: CallRecord, pack: bytes, arguments: bytes) -> int:
    """Insert one record in a savepoint, so that a record SQLite refuses costs no other:
    0 when written, 1 when refused (logged)."""
    db.execute("SAVEPOINT one_record")
    try:
        _insert(db, record, pack, arguments)
    except (sqlite3.Error, ValueError) as exc:
        db.execute("ROLLBACK TO one_record")
        db.execute("RELEASE one_record")
        logger.error("ledger-context: the audit log refused the record of %s: %s", record.call, _reason(exc))
        return 1
    db.execute("RELEASE one_record")
    return 0


def _connect_retrying(path: Path, create: bool, attempts: int = 5) -> sqlite3.Connection:
    """:func:`connect`, tried again after a short pause while another server holds the
    file to set it up (switching to WAL or creating the schema takes it whole)."""
    for attempt in range(attempts):
        try:
            return connect(path, create)
        except sqlite3.OperationalError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def _file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of ``path``, or ``None`` when it does not exist."""
    try:
        st = os.lstat(path)  # a link put in its place is a replacement
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return printable_text(str(exc) or type(exc).__name__)  # it may quote an edited cell


def _text(value: bytes) -> str:
    return value.decode("utf-8", "surrogateescape")


def _opened(path: Path, open_log: Any) -> sqlite3.Connection:
    """``open_log(path)``, its faults said as :class:`~ledger_context.model.errors.AuditError`."""
    try:
        db: sqlite3.Connection = open_log(path)
    except FileNotFoundError:
        raise AuditError(f"no audit log at {path} (serve writes one; --audit PATH or LEDGER_AUDIT)") from None
    except (OSError, sqlite3.Error) as exc:
        raise AuditError(f"cannot open the audit log {path}: {_reason(exc)}") from None
    # A text cell edited to bytes that are not UTF-8 reads back as their escapes, so the
    # row is named by its hash (an edit) instead of stopping every reader of the log.
    db.text_factory = _text
    return db


_READ_ONLY_FOLDER = re.compile(r"attempt to write a readonly database|unable to open database file")
"""What SQLite says when a WAL log's folder cannot take its -shm index."""


def _read_only(path: Path, flags: str) -> sqlite3.Connection:
    return sqlite3.connect(
        f"{path.absolute().as_uri()}?{flags}",
        uri=True,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,
    )


def connect_read_only(path: Path) -> sqlite3.Connection:
    """The log at ``path`` opened for reading only: a verifier never changes the evidence
    (no schema set up, no row set aside, no checkpoint; SQLite may refresh the ``-shm``
    index beside it, which holds no row). A log of another schema version is refused, not
    converted. Raises ``OSError`` or ``sqlite3.Error`` as :func:`connect`."""
    identity = _open_private(path, create=False, writable=False)
    db = _read_only(path, "mode=ro")
    try:
        st = os.lstat(path)
        if (st.st_dev, st.st_ino) != identity:
            raise OSError(errno.ELOOP, f"{path} was replaced while it was opened")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.OperationalError as exc:
            # A folder it cannot write: SQLite cannot make the -shm index a WAL log needs.
            # With no -wal beside it every row is in the file, which is then read as
            # immutable; with one, its rows would go unseen, so it is refused. Any other
            # fault (a lock held past the timeout) is said as it is: an immutable read of a
            # log being written could see half a checkpoint.
            if not _READ_ONLY_FOLDER.search(str(exc)):
                raise
            db.close()
            wal = path.with_name(path.name + "-wal")
            if wal.exists() and wal.stat().st_size:
                raise sqlite3.OperationalError(
                    f"its newest rows are in {wal.name}, which SQLite cannot read from a folder it cannot "
                    "write: copy the log with its -wal and -shm files, or into a folder you can write"
                ) from None
            db = _read_only(path, "mode=ro&immutable=1")
            version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0 and db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
            db.close()  # an empty file (a server is setting it up): an empty log, read as one
            db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            db.executescript(_SCHEMA)
            return db
        if version != _SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"it is of schema version {version}, this version reads {_SCHEMA_VERSION} (left unchanged; "
                "a server of this version converts it when it next writes)"
            )
    except BaseException:
        db.close()
        raise
    return db


@contextmanager
def _reading(path: Path) -> Iterator[sqlite3.Connection]:
    """The log at ``path`` open for reading only, closed after; a log whose tables or rows
    are not what this version writes (a dropped column, a value of another type) raises
    :class:`~ledger_context.model.errors.AuditError` naming it, never a traceback."""
    db = _opened(path, connect_read_only)
    try:
        yield db
    except (sqlite3.Error, TypeError, ValueError) as exc:
        raise AuditError(
            f"the audit log {path} is not one this version can read ({_reason(exc)}): it was "
            "damaged or edited, or written by another version; move it aside to start a new one"
        ) from None
    finally:
        db.close()


_FIELDS = tuple(f.name for f in fields(CallRecord))
_COLUMNS = ", ".join("commit_id" if name == "commit" else name for name in _FIELDS)
"""The calls table's columns, in :class:`CallRecord`'s order (``commit`` is a keyword in SQL)."""


def list_calls(path: Path, space: str | None = None, since: str | None = None) -> list[CallRecord]:
    """Every recorded call, oldest first; only those of ``space`` and at or after ``since``
    (UTC text as :func:`utc_now` writes it) when given. A row whose arguments were kept
    whole (:data:`MAX_KEPT_ARGUMENTS_BYTES`) gives them whole, if they still hash to its
    ``arguments_sha256``; otherwise its prefix."""
    with _reading(path) as db:
        query = f"SELECT {_COLUMNS} FROM calls WHERE 1"
        params: list[Any] = []
        if space is not None:
            query += " AND space = ?"
            params.append(space)
        if since is not None:
            query += " AND time >= ?"
            params.append(since)
        rows = db.execute(query + " ORDER BY time, id", params).fetchall()
        return [_whole_arguments(db, _as_recorded(dict(zip(_FIELDS, row, strict=True)))) for row in rows]


def _whole_arguments(db: sqlite3.Connection, record: CallRecord) -> CallRecord:
    if (
        type(record.arguments_bytes) is not int
        or not isinstance(record.arguments, str)
        or record.arguments_bytes <= len(record.arguments.encode("utf-8", "surrogateescape"))
    ):
        return record  # nothing more was kept, or the row was edited (verify names it)
    row = db.execute("SELECT body FROM packs WHERE sha256 = ?", (record.arguments_sha256,)).fetchone()
    data = _decompressed(row[0]) if row is not None else None
    if data is None or hashlib.sha256(data).hexdigest() != record.arguments_sha256:
        return record
    return replace(record, arguments=data.decode("utf-8", "surrogateescape"))


def _as_recorded(values: dict[str, Any]) -> CallRecord:
    """A row read back as the :class:`CallRecord` it was written from (SQLite has no bool)."""
    for name in ("truncated", "dirty"):
        value = values[name]
        if type(value) is int and value in (0, 1):  # as written; an edited value stays as it is,
            values[name] = bool(value)  # so its row's hash names the edit
    return CallRecord(**values)


def _decompressed(body: object) -> bytes | None:
    """A stored body as written, or ``None`` when it is not one this version writes (an
    edited row may hold text, a number, or bytes that are not zlib's)."""
    if not isinstance(body, bytes):
        return None
    try:
        return zlib.decompress(body)
    except zlib.error:
        return None


def pack_body(path: Path, sha256: str) -> bytes:
    """The stored pack whose SHA-256 is ``sha256`` or starts with it (at least 8 hex
    digits, matching one pack only), exactly as served."""
    prefix = sha256.strip().lower()
    if len(prefix) < 8 or len(prefix) > 64 or any(c not in "0123456789abcdef" for c in prefix):
        raise AuditError(f"{sha256[:70]!r} is not a SHA-256: give 8 to 64 hex digits of one")
    with _reading(path) as db:
        rows = db.execute(
            "SELECT sha256, body FROM packs WHERE sha256 >= ? AND sha256 <= ? LIMIT 2",
            (prefix, prefix + "g"),
        ).fetchall()
        read = (
            None
            if rows
            else db.execute(
                "SELECT served FROM calls WHERE document_sha256 >= ? AND document_sha256 <= ? LIMIT 1",
                (prefix, prefix + "g"),
            ).fetchone()
        )
    if read is not None and isinstance(read[0], str):  # audit list shows a document row's own digest
        raise AuditError(
            f"{prefix} is the SHA-256 of {printable_text(read[0])} as a call read it, not of a pack: the log "
            "keeps packs only (the document's bytes are in its file, or in git at the row's commit)"
        )
    if not rows:
        raise AuditError(f"no pack with SHA-256 {prefix} in {path} (ledger-context audit list shows them)")
    if len(rows) > 1:
        raise AuditError(f"{prefix} is the start of more than one pack's SHA-256: give more digits")
    data = _decompressed(rows[0][1])
    if data is None:
        raise AuditError(
            f"the stored pack {rows[0][0]} is damaged: its body was edited (audit verify names it)"
        )
    return data


def verify(path: Path, head: str | None = None) -> tuple[int, list[str]]:
    """Check the whole log: (packs checked, every problem found, each naming its pack or row).

    Every stored pack is re-hashed; every chain is walked (an edited, inserted, reordered
    or deleted row breaks it); every row's bytes and tokens must agree with its stored
    pack; and ``head`` (a receipt's ``audit_head``), if given, must be a row of the log.
    """
    with _reading(path) as db:
        checked, bad = _verify_packs(db)
        bad.extend(_verify_chains(db))
        bad.extend(_verify_counts(db))
        if (
            head is not None
            and db.execute("SELECT 1 FROM calls WHERE row_hash = ?", (head.lower(),)).fetchone() is None
        ):
            bad.append(
                f"no row has the hash {head[:70]}: the row that receipt holds was deleted or rewritten, "
                "or never written (a server killed within a moment of answering, or a log it could not "
                "write: its stderr says so)"
            )
    return checked, bad


def arguments_not_kept(path: Path) -> int:
    """How many rows' arguments are longer than their prefix, small enough to have been kept
    whole, and not in the log: deleted, or recorded before whole arguments were kept (which
    the row cannot tell apart, so :func:`verify` does not call it a mismatch)."""
    with _reading(path) as db:
        (count,) = db.execute(
            "SELECT COUNT(*) FROM calls WHERE arguments_bytes > ? AND arguments_bytes <= ?"
            " AND arguments_sha256 NOT IN (SELECT sha256 FROM packs)",
            (ARGUMENTS_PREFIX_BYTES, MAX_KEPT_ARGUMENTS_BYTES),
        ).fetchone()
    return int(count)


def chain_counts(path: Path) -> tuple[int, int, int]:
    """(rows, chains, chains that start after pruned rows) of the log: what :func:`verify`
    walked. A chain cannot show its newest rows deleted, nor, to whoever can write the
    file, its oldest rows deleted under a forged anchor: receipts can (``--head``)."""
    with _reading(path) as db:
        rows, chains = db.execute("SELECT COUNT(*), COUNT(DISTINCT chain) FROM calls").fetchone()
        (anchored,) = db.execute(
            "SELECT COUNT(*) FROM anchors WHERE chain IN (SELECT DISTINCT chain FROM calls)"
        ).fetchone()
    return int(rows), int(chains), int(anchored)


def _verify_packs(db: sqlite3.Connection) -> tuple[int, list[str]]:
    bad: list[str] = []
    checked = 0
    for sha256, size, body in db.execute("SELECT sha256, bytes, body FROM packs ORDER BY sha256"):
        checked += 1
        data = _decompressed(body)
        if data is None or len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
            bad.append(f"{sha256}{_users(db, sha256)}")
    orphans = db.execute(
        "SELECT DISTINCT sha256 FROM calls "
        "WHERE sha256 IS NOT NULL AND sha256 NOT IN (SELECT sha256 FROM packs)"
    ).fetchall()
    bad.extend(f"{row[0]} (recorded, body missing)" for row in orphans)
    return checked, bad


def _users(db: sqlite3.Connection, sha256: str, shown: int = 5) -> str:
    """`` (rows 3, 7)``: the rows whose pack or whole arguments are the body ``sha256``."""
    rows = [
        str(row[0])
        for row in db.execute(
            "SELECT id FROM calls WHERE sha256 = ? OR arguments_sha256 = ? ORDER BY id LIMIT ?",
            (sha256, sha256, shown + 1),
        )
    ]
    if not rows:
        return " (no row uses it)"
    more = ", …" if len(rows) > shown else ""
    return f" ({'row' if len(rows) == 1 else 'rows'} {', '.join(rows[:shown])}{more})"


def _verify_chains(db: sqlite3.Connection) -> list[str]:
    anchors = {
        name: (seq, digest) for name, seq, digest in db.execute("SELECT chain, seq, row_hash FROM anchors")
    }
    bad: list[str] = []
    links: list[chain.Link] = []
    current: str | None = None
    rows = db.execute(f"SELECT id, {_COLUMNS} FROM calls ORDER BY chain, id")
    for row_id, *values in rows:
        record = dict(zip(_FIELDS, values, strict=True))
        if record["chain"] != current:
            if current is not None:
                bad.extend(chain.breaks(links, anchors.get(current)))
            current, links = record["chain"], []
        stored = _as_recorded(record)
        if type(stored.seq) is not int:
            bad.append(f"row {row_id}: edited (its position in the chain is not a number)")
            continue  # the row after it names the gap too
        links.append(chain.Link(row_id, stored.seq, stored.prev_hash, stored.row_hash, astuple(stored)[:-1]))
    if current is not None:
        bad.extend(chain.breaks(links, anchors.get(current)))
    return bad


def _verify_counts(db: sqlite3.Connection) -> list[str]:
    rows = db.execute(
        "SELECT c.id, c.bytes, c.tokens, p.bytes FROM calls c JOIN packs p ON p.sha256 = c.sha256 "
        "WHERE c.bytes IS NOT p.bytes OR c.tokens IS NOT (p.bytes + 3) / 4 ORDER BY c.id"
    )
    return [
        f"row {row_id}: {size} bytes and {tokens} tokens contradict its stored pack ({stored} bytes)"
        for row_id, size, tokens, stored in rows
    ]


def prune(path: Path, keep_days: int = DEFAULT_KEEP_DAYS) -> tuple[int, int]:
    """Remove calls older than ``keep_days`` days and packs no call refers to any more:
    (calls removed, packs removed)."""
    db = _opened(path, lambda log: connect(log, create=False))
    try:
        return _prune(db, keep_days)[:2]
    except sqlite3.Error as exc:
        raise AuditError(f"cannot prune {path}: {_reason(exc)}") from None
    finally:
        db.close()

"""Reading each file once: special files, links to them and the size limit (spec §1)."""

from __future__ import annotations

import os
import socket

from conftest import (
    ACTIVE_HARNESS,
    LIMIT,
    H,
    MiB,
    X,
    assert_skipped,
    deadline,
    doc,
    harness,
    sparse_document,
    write_ledger,
)
from ledger_context import build_context

# --------------------------------------------------------------------------- file system: special files and size (hostile input)


def test_fifo_is_skipped_and_reported_without_blocking(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    os.makedirs(space / ".ledger" / "experiments")
    os.mkfifo(space / ".ledger" / "experiments" / "pipe.md")
    with deadline(10):
        result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert_skipped(result, X + "pipe.md")


def test_fifo_named_agents_md_is_skipped_without_blocking(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    os.mkfifo(space / ".ledger" / "agents.md")
    with deadline(10):
        result = build_context(space)
    assert result.pack == ""
    assert_skipped(result, ".ledger/agents.md")


def test_link_to_a_fifo_is_skipped_without_blocking(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    os.makedirs(space / ".ledger" / "harnesses")
    os.mkfifo(space / ".ledger" / "harnesses" / "pipe")
    os.symlink("pipe", space / ".ledger" / "harnesses" / "p.md")
    with deadline(10):
        result = build_context(space)
    assert result.pack == ""
    assert_skipped(result, H + "p.md")


def test_fifo_not_named_md_is_ignored_quietly(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    os.mkfifo(space / ".ledger" / "harnesses" / "pipe")
    with deadline(10):
        result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert result.ledger.problems == []


def test_socket_named_md_is_skipped_without_blocking(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    folder = space / ".ledger" / "harnesses"
    folder.mkdir()
    cwd = os.getcwd()
    server = socket.socket(socket.AF_UNIX)
    try:
        os.chdir(folder)  # a short relative name: socket paths are limited to ~100 bytes
        server.bind("s.md")
    finally:
        os.chdir(cwd)
    try:
        with deadline(10):
            result = build_context(space)
    finally:
        server.close()
    assert result.pack == ""
    assert_skipped(result, H + "s.md")


def test_file_over_10_mib_is_skipped_and_reported(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    sparse_document(space / ".ledger" / "harnesses" / "big.md", LIMIT + 1)
    result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert_skipped(result, H + "big.md")


def test_file_of_exactly_10_mib_is_read(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    sparse_document(space / ".ledger" / "harnesses" / "big.md", LIMIT)
    result = build_context(space)
    assert result.pack == harness("big", H + "big.md", "status: active")


def test_agents_md_over_10_mib_is_skipped(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    with open(space / ".ledger" / "agents.md", "wb") as handle:
        handle.write(b"Hello\n")
        handle.truncate(LIMIT + 1)
    result = build_context(space)
    assert result.pack == ""
    assert_skipped(result, ".ledger/agents.md")


def test_link_to_a_file_over_10_mib_is_skipped(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    sparse_document(space / ".ledger" / "store" / "big.md", LIMIT + 1)
    os.makedirs(space / ".ledger" / "harnesses")
    os.symlink("../store/big.md", space / ".ledger" / "harnesses" / "big.md")
    result = build_context(space)
    assert result.pack == ""
    assert_skipped(result, H + "big.md")


# --------------------------------------------------------------------------- file system: the size limit is checked on the open file (hostile input)
def test_a_100_mb_file_is_skipped_without_being_read(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"findings/ok.md": "---\nstatus: current\nupdated_at: 2026-01-01\n---\n"}
    )
    huge = space / ".ledger" / "findings" / "huge.md"
    with open(huge, "wb") as handle:
        handle.truncate(100 * MiB)  # sparse: costs no disk, would cost 100 MB to read
    result = build_context(space)
    (problem,) = [p for p in result.ledger.problems if p.path.endswith("huge.md")]
    assert problem.severity == "error" and str(100 * MiB) in problem.message
    assert result.ledger.bytes_read < 1000


def test_a_file_that_grows_past_the_limit_after_the_walk_is_skipped(tmp_path, monkeypatch):
    from ledger_context.reader import ledger as ledger_module

    space = write_ledger(tmp_path / "space", {"findings/f.md": "---\nstatus: current\n---\n"})
    monkeypatch.setattr(ledger_module, "MAX_FILE_BYTES", 10)  # smaller than the file now
    result = build_context(space)
    (problem,) = [p for p in result.ledger.problems if p.severity == "error"]
    assert "limit" in problem.message and problem.path.endswith("f.md")


def test_a_build_keeps_no_document_bodies(tmp_path):
    # Kept, 50,000 long documents held 2 GB in every build (the pack never shows a body;
    # search parses each again, with its checks, when it indexes).
    space = write_ledger(
        tmp_path,
        {
            "agents.md": "# Agents\n",
            "findings/f.md": doc(status="current", updated_at="2026-01-01") + "A long body.\n" * 1000,
            "decisions/d.md": doc(status="rejected") + "Not selected.\n",
        },
    )
    documents = {d.path: d for d in build_context(space).ledger.documents}
    assert documents[".ledger/findings/f.md"].body is None
    assert documents[".ledger/decisions/d.md"].body is None
    assert documents[".ledger/findings/f.md"].title == "f"  # what the body gives is still read


# --------------------------------------------------------------------------- read errors: which last


def test_a_read_error_is_never_kept(tmp_path, monkeypatch):
    """No read error is cached (nor kept in the ledger index, for other processes): the
    next read reads the file again. Found by testers: a pack run by a long path spelling
    (ENAMETOOLONG) hid the document from runs by a short one, and a folder made
    unsearchable for a moment (EACCES, though the file's own permissions were fine and a
    folder's chmod leaves the file's identity as it was) hid every document in it from
    every later run."""
    import errno

    from ledger_context.reader import ledger as ledger_module
    from ledger_context.reader.cache import DocumentCache
    from ledger_context.reader.walk import walk_ledger

    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    (source,) = walk_ledger(space).files
    real = ledger_module._read_bytes
    for code in (errno.EIO, errno.EMFILE, errno.ENAMETOOLONG, errno.EACCES, errno.EPERM):

        def failing(*args, code=code):  # type: ignore[no-untyped-def]
            raise OSError(code, os.strerror(code))

        monkeypatch.setattr(ledger_module, "_read_bytes", failing)
        result = ledger_module.read_file(space, source)
        assert result.document is None and not result.cacheable, errno.errorcode[code]
        assert os.strerror(code) in result.problems[0].message
        monkeypatch.setattr(ledger_module, "_read_bytes", real)
        cache = DocumentCache(racy_ns=0)
        assert not cache.put(source, result, 2**62)

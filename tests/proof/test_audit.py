"""The audit log: every answered call recorded, packs stored once, exact bytes shown back,
private, pruned, verified, shared by two writers, and never in the way of a call."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from mcp import Client

from conftest import FIXTURES, server, write_ledger
from ledger_context.cli import main
from ledger_context.proof import audit
from ledger_context.proof.audit import AuditLog, CallRecord, utc_now

DEMO = FIXTURES / "demo"


def record(
    pack: str, when: str | None = None, space: str = "/space", call: str = "get_context"
) -> CallRecord:
    return CallRecord(
        time=when or utc_now(),
        client_name="test-client",
        client_version="1.0",
        protocol="2025-11-25",
        call=call,
        arguments=audit.arguments_json({"detail": "brief"}),
        space=space,
        cap_tokens=6000,
        ceiling=None,
        sha256=hashlib.sha256(pack.encode()).hexdigest(),
        bytes=len(pack.encode()),
        tokens=-(-len(pack.encode()) // 4),
        truncated=False,
        dropped_blocks=0,
        commit=None,
        dirty=None,
        fingerprint="f" * 64,
    )


def write(path: Path, *entries: tuple[CallRecord, str]) -> AuditLog:
    log = AuditLog(path)
    for entry, pack in entries:
        log.record(entry, pack)
    assert log.flush()
    return log


def test_calls_are_listed_and_each_pack_body_is_stored_once_compressed(tmp_path: Path) -> None:
    path = tmp_path / "state" / "audit.sqlite3"
    log = write(
        path, (record("pack A"), "pack A"), (record("pack B"), "pack B"), (record("pack A"), "pack A")
    )
    assert (log.state, log.written, log.dropped) == ("ok", 3, 0)
    log.close()
    listed = audit.list_calls(path)
    assert [r.sha256 for r in listed] == [
        hashlib.sha256(p).hexdigest() for p in (b"pack A", b"pack B", b"pack A")
    ]
    assert listed[0].client_name == "test-client" and listed[0].arguments == '{"detail": "brief"}'
    with sqlite3.connect(path) as db:
        bodies = db.execute("SELECT sha256, body FROM packs ORDER BY bytes").fetchall()
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert len(bodies) == 2
    assert {zlib.decompress(body) for _, body in bodies} == {b"pack A", b"pack B"}


def test_the_log_file_and_its_folder_are_private(tmp_path: Path) -> None:
    path = tmp_path / "new" / "audit.sqlite3"
    write(path, (record("p"), "p")).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    loose = tmp_path / "loose.sqlite3"
    loose.touch(mode=0o644)
    os.chmod(loose, 0o644)
    write(loose, (record("p"), "p")).close()
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600


def test_the_default_path_is_the_user_state_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert audit.default_path(os.environ) == tmp_path / "xdg" / "ledger-context" / "audit.sqlite3"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    assert (
        audit.default_path(os.environ) == tmp_path / ".local" / "state" / "ledger-context" / "audit.sqlite3"
    )
    monkeypatch.setattr(sys, "platform", "darwin")
    assert (
        audit.default_path(os.environ)
        == tmp_path / "Library" / "Application Support" / "ledger-context" / "audit.sqlite3"
    )
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert audit.default_path(os.environ) == tmp_path / "Local" / "ledger-context" / "audit.sqlite3"
    monkeypatch.setenv("LEDGER_AUDIT", str(tmp_path / "chosen.sqlite3"))
    assert audit.log_path(None, os.environ) == tmp_path / "chosen.sqlite3"
    assert audit.log_path(str(tmp_path / "flag.sqlite3"), os.environ) == tmp_path / "flag.sqlite3"


_WRITER = """
import sys
from ledger_context.proof.audit import AuditLog
from test_audit import record
log = AuditLog(__import__("pathlib").Path(sys.argv[1]))
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.stdin.readline()  # both start writing at once
for i in range(int(sys.argv[2])):
    pack = f"pack {sys.argv[3]} {i % 7}"
    log.record(record(pack), pack)
    if i % 10 == 0:
        log.flush()  # many small transactions, so the two writers interleave
assert log.flush(60)
log.close()
print(log.written, log.dropped)
"""


def test_two_servers_writing_one_log_at_once_lose_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    count = 300
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in Path(__file__).parents[:2]))
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), str(count), name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        for name in ("one", "two")
    ]
    for writer in writers:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    outputs = [writer.communicate(timeout=120)[0] for writer in writers]
    assert [w.returncode for w in writers] == [0, 0]
    assert outputs == [f"{count} 0\n", f"{count} 0\n"]
    assert len(audit.list_calls(path)) == 2 * count
    assert audit.verify(path) == (14, [])


def test_a_full_queue_drops_and_counts_instead_of_waiting(tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite3"
    write(path, (record("first"), "first")).close()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")  # the writer waits on its busy timeout meanwhile
    log = AuditLog(path, queue_size=1)
    for i in range(5):
        log.record(record(f"p{i}"), f"p{i}")
    assert log.dropped >= 3
    assert (
        log.state
        == f"failing: the writer is behind and its queue is full ({log.dropped} records not written)"
    )
    blocker.execute("ROLLBACK")
    blocker.close()
    assert log.flush(30)
    log.close()
    assert len(audit.list_calls(path)) == 1 + 5 - log.dropped


def test_verify_says_how_many_rows_it_walked_and_how_many_chains_start_after_pruned_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A chain cannot show that its oldest rows were deleted with a forged anchor, or that
    # every row was: the summary says what was left to check, for the operator to weigh.
    path = tmp_path / "audit.sqlite3"
    write(path, (record("a"), "a"), (record("b"), "b"), (record("c"), "c")).close()
    with sqlite3.connect(path) as db:
        chain, seq, row_hash = db.execute("SELECT chain, seq, row_hash FROM calls ORDER BY seq").fetchone()
        db.execute("DELETE FROM calls WHERE seq = ?", (seq,))
        db.execute("INSERT INTO anchors VALUES (?, ?, ?)", (chain, seq, row_hash))
    assert main(["audit", "verify", "--audit", str(path)]) == 0
    out = capsys.readouterr().out
    assert "3 packs and 2 rows in 1 chain checked" in out
    assert "1 chain starts after pruned rows" in out
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM calls")
        db.execute("DELETE FROM anchors")
    assert main(["audit", "verify", "--audit", str(path)]) == 0
    assert "0 rows in 0 chains checked" in capsys.readouterr().out


def test_verify_rehashes_every_pack_and_fails_on_a_corrupted_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "audit.sqlite3"
    write(path, (record("good"), "good"), (record("also good"), "also good")).close()
    assert main(["audit", "verify", "--audit", str(path)]) == 0
    assert "2 packs and 2 rows in 1 chain checked" in capsys.readouterr().out
    with sqlite3.connect(path) as db:
        db.execute("UPDATE packs SET body = ? WHERE bytes = 4", (zlib.compress(b"evil"),))
    assert main(["audit", "verify", "--audit", str(path)]) == 1
    captured = capsys.readouterr()
    assert f"mismatch: {hashlib.sha256(b'good').hexdigest()} (row 1)\n" in captured.err  # names its row
    assert "1 mismatch(es)" in captured.out


@pytest.mark.parametrize("body", ["abc", 7, b"not zlib"])
def test_a_pack_body_of_another_type_is_a_mismatch_naming_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: object
) -> None:
    # Found by trying to break the product: a body stored as text stopped verify (exit 2)
    # before it named the pack or checked the others.
    path = tmp_path / "audit.sqlite3"
    write(path, (record("good"), "good"), (record("also good"), "also good")).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE packs SET body = ? WHERE bytes = 4", (body,))
    assert main(["audit", "verify", "--audit", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"mismatch: {hashlib.sha256(b'good').hexdigest()} (row 1)\n"
    assert "2 packs and 2 rows in 1 chain checked" in captured.out and "1 mismatch(es)" in captured.out
    assert main(["audit", "show", hashlib.sha256(b"good").hexdigest(), "--audit", str(path)]) == 2
    assert capsys.readouterr().err.startswith("Error: the stored pack ")


def test_a_text_cell_that_is_not_utf8_is_an_edited_row_named_and_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by trying to break the product: one such cell stopped verify and list (exit 2),
    # named no row, and put the cell's escape sequences on the terminal.
    path = tmp_path / "audit.sqlite3"
    write(path, (record("good"), "good"), (record("also good"), "also good")).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE calls SET client_name = CAST(x'ff1b5b324a' AS TEXT) WHERE id = 1")
    assert main(["audit", "verify", "--audit", str(path)]) == 1
    captured = capsys.readouterr()
    assert "row 1: edited (its values do not give its hash)" in captured.err
    assert main(["audit", "list", "--audit", str(path)]) == 0
    listed = capsys.readouterr().out
    assert "\x1b" not in listed and "\\udcff\\u001b[2J" in listed


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        ("seq = 'abc'", "row 1: edited (its position in the chain is not a number)"),
        ("seq = X'00'", "row 1: edited (its position in the chain is not a number)"),
        ("truncated = ''", "row 1: edited (its values do not give its hash)"),
        ("truncated = X''", "row 1: edited (its values do not give its hash)"),
        ("arguments_bytes = 'big'", "row 1: edited (its values do not give its hash)"),
        ("call = 'x' || char(27) || '[2J'", "row 1: edited (its values do not give its hash)"),
    ],
)
def test_a_cell_edited_to_another_type_is_named_and_list_still_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str, named: str
) -> None:
    # Found by trying to break the product: a text seq stopped verify (exit 2), an empty
    # truncated passed as 0, a text arguments_bytes stopped list, and an edited call
    # reached the terminal raw.
    path = tmp_path / "audit.sqlite3"
    write(path, (record("good"), "good"), (record("also good"), "also good")).close()
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE calls SET {edit} WHERE id = 1")
    assert main(["audit", "verify", "--audit", str(path)]) == 1
    assert f"mismatch: {named}\n" in capsys.readouterr().err
    assert main(["audit", "list", "--audit", str(path)]) == 0
    listed = capsys.readouterr().out
    assert len(listed.splitlines()) == 3 and "\x1b" not in listed


@pytest.mark.parametrize("command", ["verify", "list"])
def test_a_log_whose_tables_were_changed_is_named_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # Found by trying to break the product: a dropped column crashed verify (exit 1, as a
    # mismatch) and list with a traceback.
    path = tmp_path / "audit.sqlite3"
    write(path, (record("good"), "good")).close()
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE calls DROP COLUMN measured")
    assert main(["audit", command, "--audit", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"Error: the audit log {path} is not one this version can read (no such column: measured): it "
        "was damaged or edited, or written by another version; move it aside to start a new one\n"
    )


def test_prune_removes_old_calls_and_the_packs_only_they_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "audit.sqlite3"
    write(
        path,
        (record("old only", when="2000-01-01T00:00:00.000000Z"), "old only"),
        (record("both", when="2000-01-01T00:00:00.000000Z"), "both"),
        (record("both"), "both"),
    ).close()
    assert main(["audit", "prune", "--audit", str(path), "--audit-keep-days", "30"]) == 0
    assert capsys.readouterr().out == "removed 2 calls and 1 packs older than 30 days\n"
    assert [r.sha256 for r in audit.list_calls(path)] == [hashlib.sha256(b"both").hexdigest()]
    write(path, (record("x", when="2001-01-01T00:00:00.000000Z"), "x")).close()
    AuditLog(path, keep_days=90).close()  # a server that records nothing leaves the log as it is
    assert len(audit.list_calls(path)) == 2
    # A server prunes once its first records are written: a large log's prune (seconds) must
    # not hold back rows that receipts already name (a tester found 3.6-5.6 s on 460k rows).
    write(path, (record("y"), "y")).close()
    assert [r.sha256 for r in audit.list_calls(path)] == [
        hashlib.sha256(p).hexdigest() for p in (b"both", b"y")
    ]


def test_prune_removes_packs_also_when_a_refused_call_is_kept_and_keeps_whole_arguments(
    tmp_path: Path,
) -> None:
    # A refused call has no pack (sha256 NULL), and "NOT IN" a list holding NULL is never
    # true: no pack was ever pruned from a log holding one refusal.
    path = tmp_path / "audit.sqlite3"
    refused = replace(record(""), sha256=None, bytes=None, tokens=None, refused="withheld document: x")
    kept = audit.bounded_arguments({"query": "q", "hits": ["h" * 2000]})
    searched = replace(record("new"), arguments=kept[0], arguments_bytes=kept[1], arguments_sha256=kept[2])
    log = AuditLog(path)
    log.record(record("old", when="2000-01-01T00:00:00.000000Z"), "old")
    log.record(refused, "")
    log.record(searched, "new", kept[3])
    log.close()
    assert audit.prune(path, 30) == (1, 1)
    assert [json.loads(r.arguments)["hits"] for r in audit.list_calls(path)[1:]] == [["h" * 2000]]
    assert audit.verify(path)[1] == []


def test_verify_notes_rows_whose_whole_arguments_are_gone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Deleting a kept arguments body left verify silent and audit list showing a cut prefix.
    path = tmp_path / "audit.sqlite3"
    kept = audit.bounded_arguments({"query": "q", "hits": ["h" * 2000]})
    searched = replace(record("p"), arguments=kept[0], arguments_bytes=kept[1], arguments_sha256=kept[2])
    log = AuditLog(path)
    log.record(searched, "p", kept[3])
    log.close()
    assert main(["audit", "verify", "--audit", str(path)]) == 0
    assert "note:" not in capsys.readouterr().err
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM packs WHERE sha256 = ?", (kept[2],))
    assert main(["audit", "verify", "--audit", str(path)]) == 0
    assert "note: the whole arguments of 1 row are not in the log, only their first 1024 bytes" in (
        capsys.readouterr().err
    )


def test_list_filters_and_show_takes_a_unique_prefix(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = tmp_path / "audit.sqlite3"
    write(
        path,
        (record("early", when="2026-01-01T00:00:00.000000Z", space="/a"), "early"),
        (record("late\n", when="2026-06-01T12:00:00.000000Z", space="/b"), "late\n"),
    ).close()
    assert (
        main(["audit", "list", "--audit", str(path), "--json", "--since", "2026-06-01T13:00:00+02:00"]) == 0
    )
    assert [r["space"] for r in json.loads(capsysbinary.readouterr().out)] == ["/b"]
    assert main(["audit", "list", "--audit", str(path)]) == 0
    lines = capsysbinary.readouterr().out.decode().splitlines()
    assert lines[0].split() == ["time", "client", "call", "sha256", "bytes", "commit", "dirty", "served"]
    assert lines[1].split() == [
        "2026-01-01T00:00:00.000000Z", "test-client", "1.0", "get_context",
        hashlib.sha256(b"early").hexdigest()[:16], "5", "-", "-", "pack",
    ]  # fmt: skip
    late = hashlib.sha256(b"late\n").hexdigest()
    assert main(["audit", "show", "--audit", str(path), late[:8]]) == 0
    assert capsysbinary.readouterr().out == b"late\n"
    assert main(["audit", "show", "--audit", str(path), late[:5]]) == 2
    assert b"give 8 to 64 hex digits" in capsysbinary.readouterr().err
    assert main(["audit", "show", "--audit", str(path), "0" * 64]) == 2
    assert main(["audit", "list", "--audit", str(tmp_path / "none.sqlite3")]) == 2
    assert b"no audit log at" in capsysbinary.readouterr().err


def test_list_escapes_what_a_client_says_of_itself(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Found by trying to break the product: a client named with terminal escapes and a
    newline recoloured the operator's terminal and forged a row of ``audit list``."""
    path = tmp_path / "audit.sqlite3"
    forged = replace(record("p"), client_name="evil\x1b[31mRED\x07\nFAKE\u202e", client_version="1\r")
    # ... and, found by the second attack, bidi marks, C1 controls and invisible characters
    marks = "ok\u200f\u061c\u200e\ufeff\u200d\u00ad\x85\x9b\U000e0041"
    write(path, (forged, "p"), (replace(record("q"), client_name=marks, client_version="1"), "q")).close()
    assert main(["audit", "list", "--audit", str(path)]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert len(out.splitlines()) == 3
    assert all(c.isprintable() for line in out.splitlines() for c in line)
    assert '"evil\\u001b[31mRED\\u0007\\u000aFAKE\\u202e" "1\\u000d"' in out
    assert '"ok\\u200f\\u061c\\u200e\\ufeff\\u200d\\u00ad\\u0085\\u009b\\U000e0041" 1' in out
    assert main(["audit", "list", "--audit", str(path), "--json"]) == 0
    raw = capsysbinary.readouterr().out.decode()
    assert all(c.isprintable() or c == "\n" for c in raw)  # escaped, never raw, in JSON too
    assert {r["client_name"] for r in json.loads(raw)} == {"evil\x1b[31mRED\x07\nFAKE\u202e", marks}
    write(path, (replace(record("r"), client_name="n" * 300, client_version="1"), "r")).close()
    assert main(["audit", "list", "--audit", str(path)]) == 0
    assert f"{'n' * 23}… 1" in capsysbinary.readouterr().out.decode()  # a cut name says so


def test_a_record_sqlite_refuses_is_counted_and_costs_no_other_record(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    log = AuditLog(path)
    broken = record("bad")
    object.__setattr__(broken, "cap_tokens", object())  # sqlite cannot bind it
    log._queue.put((broken, b"bad", b""))  # in one batch with the good ones
    log.record(record("good"), "good")
    log.record(record("good"), "good")
    assert log.flush()
    assert (log.state, log.written, log.dropped) == ("ok", 2, 1)
    log.close()
    assert [r.sha256 for r in audit.list_calls(path)] == [hashlib.sha256(b"good").hexdigest()] * 2


@pytest.mark.anyio
async def test_two_real_servers_sharing_one_log_lose_no_rows(tmp_path: Path) -> None:
    import anyio

    log = tmp_path / "shared.sqlite3"
    calls = 25

    async def serve_calls(space: Path) -> None:
        async with Client(server("--space", str(space), "--audit", str(log)), mode="legacy") as client:
            for _ in range(calls):
                assert (await client.call_tool("get_context", {})).is_error is False

    one = write_ledger(tmp_path / "one", {"agents.md": "one\n"})
    two = write_ledger(tmp_path / "two", {"agents.md": "two\n"})
    async with anyio.create_task_group() as group:
        group.start_soon(serve_calls, one)
        group.start_soon(serve_calls, two)
    records = audit.list_calls(log)
    assert sorted((r.space, r.call) for r in records) == sorted(
        [(str(one), "get_context")] * calls + [(str(two), "get_context")] * calls
    )
    assert len({r.pid for r in records}) == 2


def test_a_record_keeps_the_token_subject_client_and_the_ceiling_that_applied(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    new = replace(record("new pack"), subject="dave", client_id="dave-cli", ceiling="internal")
    write(path, (record("old pack"), "old pack"), (new, "new pack")).close()
    rows = {r.sha256: (r.subject, r.client_id, r.ceiling) for r in audit.list_calls(path)}
    assert rows == {
        new.sha256: ("dave", "dave-cli", "internal"),
        record("old pack").sha256: (None, None, None),
    }
    assert audit.verify(path)[1] == []


def test_lone_surrogates_in_any_field_cost_no_record(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    poisoned = [
        replace(record("p"), client_name="agent\ud800", client_version="1\udfff"),
        replace(record("p"), arguments=audit.arguments_json({"task": "fix \ud800 now"})),
        record("p"),
    ]
    log = write(path, *((entry, "p") for entry in poisoned * 34))
    assert (log.written, log.dropped) == (102, 0)
    log.close()
    rows = audit.list_calls(path)
    assert len(rows) == 102
    assert sum(r.client_name == "agent\\ud800" and r.client_version == "1\\udfff" for r in rows) == 34
    assert sum(r.arguments == '{"task": "fix \\ud800 now"}' for r in rows) == 34
    assert audit.verify(path) == (1, [])


def test_arguments_are_kept_as_a_digest_and_a_capped_prefix() -> None:
    huge = {"path": "é" * 8_000_000}
    shown, size, digest, whole = audit.bounded_arguments(huge)
    assert whole == b""  # over MAX_KEPT_ARGUMENTS_BYTES: prefix, size and digest only
    full = audit.arguments_json(huge).encode("utf-8")
    assert (size, digest) == (len(full), hashlib.sha256(full).hexdigest())
    assert len(shown.encode("utf-8")) <= audit.ARGUMENTS_PREFIX_BYTES
    assert shown.startswith('{"path": "éé') and full.startswith(shown.encode("utf-8"))
    assert len(shown.encode("utf-8")) >= audit.ARGUMENTS_PREFIX_BYTES - 1  # cut between code points


def test_a_call_grows_the_log_by_at_most_32_kib_of_arguments(tmp_path: Path) -> None:
    # A tester's finding: 200 KB arguments were kept whole (up to 256 KiB a call), 5 GB an
    # hour per person within the rate limit. Whole arguments now stop at 32 KiB.
    assert audit.MAX_KEPT_ARGUMENTS_BYTES == 32 * 1024
    for size, kept in ((30_000, True), (40_000, False), (200_000, False)):
        *_, whole = audit.bounded_arguments({"task": "x" * size})
        assert bool(whole) is kept and len(whole) <= audit.MAX_KEPT_ARGUMENTS_BYTES


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_the_log_is_never_opened_through_a_symbolic_link(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.sqlite3"
    dangling = tmp_path / "dangling.sqlite3"
    dangling.symlink_to(target)
    log = write(dangling, (record("p"), "p"))
    assert log.state.startswith("failing: cannot open") and "symbolic link" in log.state
    log.close()
    assert not target.exists()  # a dangling link does not create the log at its target
    real = tmp_path / "real.sqlite3"
    write(real, (record("p"), "p")).close()
    real.chmod(0o644)
    linked = tmp_path / "linked.sqlite3"
    linked.symlink_to(real)
    write(linked, (record("q"), "q")).close()
    assert stat.S_IMODE(real.stat().st_mode) == 0o644  # a linked file is not chmod'ed
    assert len(audit.list_calls(real)) == 1
    with pytest.raises(audit.AuditError, match="symbolic link"):
        audit.list_calls(linked)


# Regression: a bug found by trying to break the product (with the log refused at its path,
# every receipt still named an audit_head, and the count of records not written read 0).
@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_a_log_that_cannot_be_opened_names_no_head_and_counts_each_record_at_once(tmp_path: Path) -> None:
    linked = tmp_path / "linked.sqlite3"
    linked.symlink_to(tmp_path / "elsewhere.sqlite3")
    log = audit.AuditLog(linked)
    try:
        heads = [log.record(record("p"), "p"), log.record(record("q"), "q")]
        assert heads == [None, None]
        assert log.state.endswith("(2 records not written)")
    finally:
        log.close()


def test_show_of_a_documents_digest_says_the_log_keeps_packs_only(tmp_path: Path) -> None:
    # audit list shows a read_document row's own digest; show of it said only "no pack"
    # (found by breaking the product).
    path = tmp_path / "audit.sqlite3"
    digest = hashlib.sha256(b"the document").hexdigest()
    read = dataclasses.replace(
        record("pack A", call="read_document"), served=".ledger/findings/f.md", document_sha256=digest
    )
    write(path, (read, "pack A")).close()
    with pytest.raises(audit.AuditError) as caught:
        audit.pack_body(path, digest[:12])
    assert str(caught.value) == (
        f"{digest[:12]} is the SHA-256 of .ledger/findings/f.md as a call read it, not of a pack: "
        "the log keeps packs only (the document's bytes are in its file, or in git at the row's commit)"
    )
    with pytest.raises(audit.AuditError, match="no pack with SHA-256 00000000"):
        audit.pack_body(path, "00000000")


# Regression (a tester's finding): verify, list and show opened the log for writing, so
# they checkpointed its WAL, converted an older schema (moving every row aside, then
# reporting "0 rows, no mismatch") and could not read evidence on read-only media.
def test_reading_the_log_never_changes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "audit.sqlite3"
    log = write(path, (record("one"), "one"), (record("two"), "two"))  # still open: rows in the WAL
    evidence = {p.name: p.read_bytes() for p in (path, path.with_name(path.name + "-wal"))}
    sha256 = hashlib.sha256(b"one").hexdigest()
    for command in (["verify"], ["list"], ["show", sha256[:12]]):
        assert main(["audit", *command, "--audit", str(path)]) == 0, capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (path, path.with_name(path.name + "-wal"))} == evidence
    log.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 2")
    before = path.read_bytes()
    capsys.readouterr()
    assert main(["audit", "verify", "--audit", str(path)]) == 2
    assert "schema version 2, this version reads 3 (left unchanged" in capsys.readouterr().err
    assert path.read_bytes() == before
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM calls").fetchone() == (2,)  # not set aside


def test_an_empty_file_reads_as_an_empty_log_while_a_server_sets_it_up(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    path.touch(mode=0o600)  # what a reader may meet between the server's open and its schema
    assert audit.list_calls(path) == [] and audit.verify(path) == (0, [])
    assert path.read_bytes() == b""  # still untouched


def test_a_prune_goes_a_batch_at_a_time_and_stops_for_waiting_records(tmp_path: Path) -> None:
    # A tester's finding: on a log of a million old rows the prune held the writer 30 s,
    # and a short session ended with 5 of its 6 receipts' rows never written.
    path = tmp_path / "audit.sqlite3"
    old = "2000-01-01T00:00:00.000000Z"
    log = AuditLog(path, queue_size=3 * audit.PRUNE_BATCH)
    for i in range(2 * audit.PRUNE_BATCH + 10):
        log.record(record(f"p{i}", when=old), f"p{i}")
    assert log.flush()
    log.close()
    db = audit.connect(path, create=False)
    try:
        assert audit._prune(db, 90, waiting=lambda: True) == (audit.PRUNE_BATCH, 0, False)
        assert audit._prune(db, 90)[0::2] == (audit.PRUNE_BATCH + 10, True)
    finally:
        db.close()
    assert audit.list_calls(path) == [] and audit.verify(path)[1] == []


def test_a_prune_keeps_the_packs_of_rows_set_aside_from_an_older_schema(tmp_path: Path) -> None:
    # A tester's finding: after an upgrade set a log's rows aside (calls_v2), the first prune
    # deleted every pack they named, so no receipt from before the upgrade could be shown.
    path = tmp_path / "audit.sqlite3"
    write(path, (record("before the upgrade"), "before the upgrade")).close()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE calls_v2 AS SELECT * FROM calls")
        db.execute("DELETE FROM calls")
    assert audit.prune(path, 90) == (0, 0)
    assert audit.pack_body(path, hashlib.sha256(b"before the upgrade").hexdigest()) == b"before the upgrade"


def test_a_log_in_a_folder_sqlite_cannot_write_is_read_whole_or_refused_naming_its_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tester's finding (as a user who may not write the folder): a copy of a closed log in
    # a read-only folder failed, "attempt to write a readonly database". Root writes anywhere,
    # so the folder's refusal is stood in for: the first, WAL-minded open fails as it does there.
    path = tmp_path / "audit.sqlite3"
    write(path, (record("one"), "one")).close()  # closed: every row in the file, no -wal left
    opened = audit._read_only

    class Refusing(sqlite3.Connection):
        def execute(self, *args: object) -> sqlite3.Cursor:
            raise sqlite3.OperationalError("attempt to write a readonly database")

    def in_a_read_only_folder(log: Path, flags: str) -> sqlite3.Connection:
        return opened(log, flags) if "immutable" in flags else sqlite3.connect(":memory:", factory=Refusing)

    monkeypatch.setattr(audit, "_read_only", in_a_read_only_folder)
    assert [r.sha256 for r in audit.list_calls(path)] == [hashlib.sha256(b"one").hexdigest()]
    path.with_name(path.name + "-wal").write_bytes(b"rows not yet in the file")
    with pytest.raises(audit.AuditError, match=r"its newest rows are in audit\.sqlite3-wal"):
        audit.list_calls(path)


def test_a_fifo_in_place_of_the_log_is_refused_at_once_by_every_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Reading the log opens it O_RDONLY since readers stopped writing: on a FIFO that open
    # waits for a writer for ever, unless it does not block.
    path = tmp_path / "audit.sqlite3"
    os.mkfifo(path)
    done = subprocess.run(
        [sys.executable, "-m", "ledger_context", "audit", "verify", "--audit", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "is not a regular file" in done.stderr, done.stderr

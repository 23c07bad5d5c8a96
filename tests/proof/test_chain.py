"""The audit rows' hash chain: every kind of tampering is found, and named by its row."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import astuple
from pathlib import Path

import pytest
from test_audit import record, write

from ledger_context.cli import main
from ledger_context.proof import audit, chain
from ledger_context.proof.chain import START, Link, breaks, row_hash


def _log(path: Path, count: int = 5) -> list[str]:
    """A log of ``count`` calls in one chain; their row hashes (each a receipt's audit_head)."""
    log = audit.AuditLog(path)
    heads = [log.record(record(f"pack {i}"), f"pack {i}") for i in range(count)]
    assert log.flush()
    log.close()
    assert all(heads)
    return [h for h in heads if h is not None]


def _edit(db: sqlite3.Connection) -> None:
    db.execute("UPDATE calls SET client_name = 'someone-else' WHERE id = 3")


def _insert(db: sqlite3.Connection) -> None:
    columns = [row[1] for row in db.execute("PRAGMA table_info(calls)") if row[1] != "id"]
    db.execute(
        f"INSERT INTO calls ({', '.join(columns)}) SELECT {', '.join(columns)} FROM calls WHERE id = 2"
    )  # a copy of row 2 appended (its hash is valid for its own values)


def _reorder(db: sqlite3.Connection) -> None:
    db.execute("UPDATE calls SET id = 100 WHERE id = 2")
    db.execute("UPDATE calls SET id = 2 WHERE id = 4")
    db.execute("UPDATE calls SET id = 4 WHERE id = 100")


def _delete_middle(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM calls WHERE id = 3")


def _delete_first(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM calls WHERE id = 1")


def _count_against_pack(db: sqlite3.Connection) -> None:
    # A forger who knows the hash format: the chain is re-linked, the pack still says no.
    rows = db.execute(f"SELECT id, {audit._COLUMNS} FROM calls ORDER BY id").fetchall()
    prev = START
    for row_id, *values in rows:
        fields = dict(zip(audit._FIELDS, values, strict=True))
        if row_id == 3:
            fields["bytes"] += 1
        fields["prev_hash"] = prev
        stored = audit._as_recorded(dict(fields))
        prev = row_hash(prev, astuple(stored)[:-1])
        db.execute(
            "UPDATE calls SET bytes = ?, prev_hash = ?, row_hash = ? WHERE id = ?",
            (fields["bytes"], fields["prev_hash"], prev, row_id),
        )


TAMPERINGS: dict[str, tuple[Callable[[sqlite3.Connection], None], str]] = {
    "edited": (_edit, "row 3: edited"),
    "inserted": (_insert, "row 6: position 1 where 5 was due"),
    "reordered": (_reorder, "row 2: position 3 where 1 was due"),
    "deleted in the middle": (_delete_middle, "row 4: position 3 where 2 was due (rows missing)"),
    "deleted first": (_delete_first, "row 2: position 1 where 0 was due (rows missing)"),
    "bytes against the pack": (
        _count_against_pack,
        "row 3: 7 bytes and 2 tokens contradict its stored pack (6 bytes)",
    ),
}


@pytest.mark.parametrize("kind", list(TAMPERINGS))
def test_verify_finds_each_tampering_and_names_its_row(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "audit.sqlite3"
    _log(path)
    assert audit.verify(path) == (5, [])
    tamper, expected = TAMPERINGS[kind]
    with sqlite3.connect(path) as db:
        tamper(db)
    _, problems = audit.verify(path)
    assert any(p.startswith(expected) for p in problems), problems


def test_a_deleted_newest_row_is_found_by_the_receipt_that_holds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "audit.sqlite3"
    heads = _log(path)
    assert main(["audit", "verify", "--audit", str(path), "--head", heads[-1]]) == 0
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM calls WHERE id = 5")
    capsys.readouterr()
    assert audit.verify(path) == (5, [])  # the chain alone is whole: the receipt is the proof
    assert main(["audit", "verify", "--audit", str(path), "--head", heads[-1]]) == 1
    assert f"mismatch: no row has the hash {heads[-1]}" in capsys.readouterr().err


def test_pruning_keeps_the_chain_verifiable(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    old = [(record(f"old {i}", when=f"2001-01-0{i + 1}T00:00:00.000000Z"), f"old {i}") for i in range(3)]
    write(path, *old, (record("new"), "new")).close()
    assert audit.prune(path, 30) == (3, 3)
    assert audit.verify(path) == (1, [])


def test_breaks_start_at_the_anchor() -> None:
    first = row_hash(START, ("a", 0))
    second = row_hash(first, ("b", 1))
    links = [Link(1, 0, START, first, ("a", 0)), Link(2, 1, first, second, ("b", 1))]
    assert breaks(links) == []
    assert breaks(links[1:], (0, first)) == []
    assert breaks(links[1:]) == ["row 2: position 1 where 0 was due (rows missing)"]
    assert chain.breaks([Link(2, 1, "f" * 64, row_hash("f" * 64, ("b", 1)), ("b", 1))], (0, first)) == [
        "row 2: does not follow the row before it (inserted, or one deleted)"
    ]


# Regression: a bug found by trying to break the product (--head zz reported a mismatch).
def test_a_head_that_is_not_a_row_hash_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "audit.sqlite3"
    _log(path)
    with pytest.raises(SystemExit) as ended:
        main(["audit", "verify", "--audit", str(path), "--head", "zz"])
    assert ended.value.code == 2
    assert "'zz' is not a row hash: give the receipt's audit_head, 64 hex digits" in capsys.readouterr().err

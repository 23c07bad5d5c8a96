"""What changed since a pack an agent holds (pack/changes.py): the blocks added, removed
and changed between two packs, a bounded memory of served packs, and a checked ``since``."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from conftest import FIXTURES, doc, write_ledger
from ledger_context import build_context
from ledger_context.model.errors import InvalidArgumentError
from ledger_context.pack.changes import (
    UNCHANGED_BYTES,
    ServedPacks,
    block_digests,
    changes,
    check_since,
    since_receipt,
    unchanged_line,
)

SHA = "ab" * 32


def test_since_is_64_hex_digits_or_nothing() -> None:
    assert check_since(None) is None
    assert check_since(SHA) == SHA
    assert check_since(SHA.upper()) == SHA
    for bad in ("", "ab" * 31, "xy" * 32, SHA + "0", 7, [SHA], " " + SHA[1:]):
        with pytest.raises(InvalidArgumentError, match="64 hex digits"):
            check_since(bad)


def test_the_block_digests_cover_the_pack_in_order() -> None:
    budgeted = build_context(FIXTURES / "overflow").budgeted
    digests = block_digests(budgeted)
    kept = [o for o in budgeted.blocks if o.kept_bytes > 0]
    assert list(digests) == [o.block.document.path for o in kept]
    data, offset = budgeted.pack.encode("utf-8"), 0
    for outcome in kept:  # each digest is of the block's own bytes in the pack
        part = data[offset : offset + outcome.kept_bytes]
        assert digests[outcome.block.document.path] == hashlib.sha256(part).hexdigest()
        offset += outcome.kept_bytes
    assert offset == len(data)


def test_changes_name_added_removed_and_changed_blocks_in_path_order() -> None:
    before = {"b": "1", "a": "1", "c": "1"}
    now = {"c": "2", "a": "1", "d": "1", "e": "1"}
    found = changes(before, now)
    assert (found.added, found.removed, found.changed) == (("d", "e"), ("b",), ("c",))


def test_an_edited_finding_is_the_changed_block(tmp_path: Path) -> None:
    files = {
        "findings/f.md": doc(status="current", title="First", updated_at="2026-01-02"),
        "findings/g.md": doc(status="current", title="Other", updated_at="2026-01-01"),
    }
    space = write_ledger(tmp_path, files)
    before = build_context(space).budgeted
    (space / ".ledger/findings/f.md").write_text(
        doc(status="current", title="Edited", updated_at="2026-01-02")
    )
    now = build_context(space).budgeted
    entry = since_receipt(before.sha256, now, block_digests(before))
    assert entry == {
        "sha256": before.sha256,
        "unchanged": False,
        "known": True,
        "added": [],
        "removed": [],
        "changed": [".ledger/findings/f.md"],
    }
    assert since_receipt(now.sha256, now, None) == {"sha256": now.sha256, "unchanged": True}
    assert since_receipt(SHA, now, None) == {"sha256": SHA, "unchanged": False, "known": False}


def test_the_unchanged_line_is_short_and_names_the_pack() -> None:
    budgeted = build_context(FIXTURES / "demo").budgeted
    line = unchanged_line(budgeted)
    assert budgeted.sha256 in line and str(budgeted.pack_bytes) in line
    assert len(line.encode("utf-8")) <= UNCHANGED_BYTES


def test_served_packs_keep_the_latest_within_their_limit(tmp_path: Path) -> None:
    served = ServedPacks(limit=2)
    builds = []
    for n in range(3):
        space = write_ledger(tmp_path / str(n), {"agents.md": f"Agents {n}\n"})
        builds.append(build_context(space).budgeted)
    served.remember(builds[0])
    served.remember(builds[1])
    served.remember(builds[0])  # served again: the newest now
    served.remember(builds[2])
    assert served.blocks(builds[1].sha256) is None  # the oldest served went
    assert served.blocks(builds[0].sha256) == block_digests(builds[0])
    assert served.blocks(builds[2].sha256) == block_digests(builds[2])

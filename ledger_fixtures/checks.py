"""The property each written space exists for, asserted on the package's own build.

Every number here comes from :mod:`layout` (that is, from ``ledger_context``); the
independent check of those numbers is the reference implementation in
``tests/reference`` and the golden packs in ``tests/golden``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from floor_data import KO_TONE
from layout import CAP_BYTES, Layout, lay_out

from ledger_context.model.kinds import KIND_TABLE


def groups_1_to_3(layout: Layout) -> int:
    return sum(b.size for b in layout.blocks if b.group <= 3)


def check_demo(layout: Layout) -> None:
    """All six groups, 1/1/3/6/5/10 blocks, a pack well under the cap."""
    per_group = layout.per_group()
    assert layout.ledger.read["experiment"] == 100
    assert per_group == {1: 1, 2: 1, 3: 3, 4: 6, 5: 5, 6: 10}, per_group
    assert 11000 <= len(layout.whole) <= 18000, len(layout.whole)
    assert layout.budgeted.pack_bytes == len(layout.whole), "the demo pack fits the cap"


def check_overflow(layout: Layout) -> None:
    """Groups 1-3 fit easily; findings all kept, decisions cut part-way, experiments
    dropped; no truncation."""
    per_group, kept = layout.per_group(), layout.per_group(kept=True)
    assert groups_1_to_3(layout) < CAP_BYTES // 2, groups_1_to_3(layout)
    assert len(layout.whole) > CAP_BYTES * 3 // 2, len(layout.whole)
    assert kept[4] == per_group[4], "every current finding should fit"
    assert 0 < kept[5] < per_group[5], "decisions should be cut part-way"
    assert kept[6] == 0 and per_group[6] == 10, (kept, per_group)
    assert not layout.budgeted.truncated and layout.budgeted.pack_bytes <= CAP_BYTES, "no truncation"


def check_floor(layout: Layout) -> None:
    """Groups 1-3 alone exceed the cap; byte CAP_BYTES is the 3rd byte of a 4-byte
    character in the ko-tone block, so the pack is cut 2 bytes short of the cap."""
    whole, budgeted = layout.whole, layout.budgeted
    assert groups_1_to_3(layout) > CAP_BYTES, groups_1_to_3(layout)
    assert all(o.kept_bytes == 0 for o in budgeted.blocks if o.block.group >= 4)
    assert (whole[CAP_BYTES] & 0xC0) == 0x80, "cut must fall inside a multi-byte character"
    lead = CAP_BYTES
    while (whole[lead] & 0xC0) == 0x80:
        lead -= 1
    assert whole[lead] >= 0xF0, "the character at the cut should be 4 bytes long"
    assert layout.block_at(CAP_BYTES).path == KO_TONE, layout.block_at(CAP_BYTES)
    assert budgeted.truncated and budgeted.pack_bytes == lead == CAP_BYTES - 2, (budgeted.pack_bytes, lead)
    cut = [o.block.document.path for o in budgeted.blocks if o.outcome == "truncated"]
    assert cut == [KO_TONE], cut


CHECKS: dict[str, Callable[[Layout], None]] = {
    "demo": check_demo,
    "overflow": check_overflow,
    "floor": check_floor,
}


def check(name: str, space: Path) -> str:
    """Build ``space``, assert the property of space ``name``, return its summary line."""
    layout = lay_out(space)
    assert not layout.ledger.skipped, f"{name}: skipped documents {dict(layout.ledger.skipped)}"
    CHECKS[name](layout)
    read = layout.ledger.read
    counts = ", ".join(f"{k.folder}={read[k.name]}" for k in KIND_TABLE if k.name != "agents")
    budgeted = layout.budgeted
    after = f"{budgeted.pack_bytes} B{', truncated' if budgeted.truncated else ''}"
    return (
        f"{name}: {counts}; blocks per group {layout.per_group()}; "
        f"groups 1-3 {groups_1_to_3(layout)} B; pack before budget {len(layout.whole)} B; "
        f"after budget {after}, blocks in the pack per group {layout.per_group(kept=True)}"
    )

"""Spec §6: 4 bytes per token, the cap, the drop order and the cut at a code point."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Files, doc
from ledger_context import build_context
from ledger_context.model.document import Document
from ledger_context.pack.budget import apply_budget
from ledger_context.pack.select import Block

Ledger = Callable[[Files], Path]


def _block(group: int, text: str) -> Block:
    kind = {1: "agents", 2: "harness", 3: "eval", 4: "finding", 5: "decision", 6: "experiment"}[group]
    document = Document(kind, f".ledger/{kind}/{len(text)}.md", 0, "", None, None, "s", "t", None)
    return Block(group, document, text)


def test_a_pack_of_exactly_the_cap_fits() -> None:
    blocks = [_block(1, "a" * 7 + "\n"), _block(4, "b" * 7 + "\n")]  # 8 + 9 bytes
    exact = apply_budget(blocks, cap_tokens=5)  # 20 bytes: everything fits
    assert exact.pack_bytes == 17
    assert [b.outcome for b in exact.blocks] == ["kept", "kept"]
    blocks = [_block(1, "a" * 10 + "\n"), _block(4, "b" * 8 + "\n")]  # 11 + 10 = 21 bytes
    assert apply_budget(blocks, cap_tokens=5).pack == "a" * 10 + "\n"
    blocks = [_block(1, "a" * 10 + "\n"), _block(4, "b" * 7 + "\n")]  # 11 + 9 = 20 bytes
    assert apply_budget(blocks, cap_tokens=5).pack == "a" * 10 + "\n\n" + "b" * 7 + "\n"


def test_separator_is_charged_to_the_block_that_follows() -> None:
    result = apply_budget([_block(1, "x\n"), _block(2, "yy\n"), _block(6, "z\n")], cap_tokens=100)
    assert result.pack == "x\n\nyy\n\nz\n"
    assert [b.bytes for b in result.blocks] == [2, 4, 3]
    assert sum(b.kept_bytes for b in result.blocks) == result.pack_bytes == 9


def test_last_block_of_groups_4_to_6_is_dropped_first() -> None:
    blocks = [
        _block(1, "a" * 9 + "\n"),
        _block(4, "f" * 9 + "\n"),
        _block(5, "d" * 9 + "\n"),
        _block(6, "e" * 9 + "\n"),
        _block(6, "g" * 9 + "\n"),
    ]
    result = apply_budget(blocks, cap_tokens=8)  # 32 bytes: 10 + 11 + 11 fits, 43 does not
    assert [b.outcome for b in result.blocks] == ["kept", "kept", "kept", "dropped", "dropped"]
    assert result.pack == "a" * 9 + "\n\n" + "f" * 9 + "\n\n" + "d" * 9 + "\n"
    assert (
        result.blocks[3].reason
        == "dropped to fit the cap: the pack was 11 bytes over it and this was the last block of groups 4-6"
    )
    assert (
        result.blocks[4].reason
        == "dropped to fit the cap: the pack was 22 bytes over it and this was the last block of groups 4-6"
    )
    assert not result.truncated


def test_groups_1_to_3_are_never_dropped_while_a_droppable_block_remains() -> None:
    blocks = [_block(1, "a" * 30 + "\n"), _block(3, "b" * 30 + "\n"), _block(4, "c\n")]
    result = apply_budget(blocks, cap_tokens=10)  # 40 bytes; 31 + 32 + 3 = 66
    assert [b.outcome for b in result.blocks] == ["kept", "truncated", "dropped"]
    assert result.blocks[2].reason.startswith("dropped to fit the cap: the pack was 26 bytes over it")
    assert result.pack_bytes == 40
    assert result.cut_bytes == 23


def test_truncation_inside_a_four_byte_character_backs_off_to_its_start() -> None:
    # 🙂 is F0 9F 99 82; the cap (8 bytes) falls after its second byte.
    text = "abcdef\U0001f642zz\n"
    result = apply_budget([_block(1, text)], cap_tokens=2)
    assert result.pack == "abcdef"
    assert result.pack_bytes == 6
    assert result.cut_bytes == len(text.encode()) - 6
    assert result.blocks[0].outcome == "truncated"
    assert result.tokens == 2


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 5, 6, 7])
def test_every_cut_is_the_longest_prefix_that_is_valid_utf8(cap: int) -> None:
    text = "é" * 3 + "\u20ac" * 3 + "\U0001f642" * 3 + "\n"
    data = text.encode()
    result = apply_budget([_block(2, text)], cap_tokens=cap)
    expected = max(n for n in range(min(len(data), cap * 4) + 1) if _valid(data[:n]))
    assert result.pack.encode() == data[:expected]


def _valid(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_blocks_wholly_past_the_cut_are_dropped_and_a_separator_alone_counts_as_kept() -> None:
    blocks = [_block(1, "a" * 7 + "\n"), _block(2, "bbb\n"), _block(3, "ccc\n")]
    result = apply_budget(blocks, cap_tokens=2)  # 8 bytes: exactly block 1
    assert [(b.outcome, b.kept_bytes) for b in result.blocks] == [("kept", 8), ("dropped", 0), ("dropped", 0)]
    result = apply_budget(blocks, cap_tokens=3)  # 12 bytes: block 1, then "\nbbb"
    assert [(b.outcome, b.kept_bytes) for b in result.blocks] == [
        ("kept", 8),
        ("truncated", 4),
        ("dropped", 0),
    ]


def test_default_cap_is_6000_tokens(ledger: Ledger) -> None:
    space = ledger({"agents.md": "x" * 30000})
    build = build_context(space)
    assert build.budgeted.cap_bytes == 24000
    assert build.budgeted.pack_bytes == 24000
    assert build.budgeted.tokens == 6000


def test_cap_is_configurable(ledger: Ledger) -> None:
    space = ledger(
        {f"findings/{n}.md": doc(status="current", updated_at=f"2026-01-0{n}") for n in range(1, 6)}
    )
    sizes = [b.bytes for b in build_context(space).budgeted.blocks]
    build = build_context(space, cap_tokens=(sizes[0] + sizes[1] + 3) // 4)
    assert [b.outcome for b in build.budgeted.blocks] == ["kept", "kept", "dropped", "dropped", "dropped"]

"""The fixtures' packs, byte for byte, against golden files made by ``make golden``."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from ledger_context import build_context

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = {"demo": ("demo", None), "overflow": ("overflow", None), "floor": ("floor", None)}
CASES["demo-internal"] = ("demo", "internal")


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_pack_matches_its_golden_file(name: str) -> None:
    fixture, ceiling = CASES[name]
    pack = build_context(FIXTURES / fixture, max_data_class=ceiling).pack
    assert pack.encode("utf-8") == (GOLDEN / f"{name}.pack").read_bytes()


def test_demo_is_the_adr_0028_acceptance_case() -> None:
    build = build_context(FIXTURES / "demo")
    assert build.ledger.read["experiment"] == 100
    assert build.budgeted.pack_bytes <= 24000
    assert not build.budgeted.truncated
    assert {b.block.group for b in build.budgeted.blocks if b.outcome == "kept"} == {1, 2, 3, 4, 5, 6}


def test_overflow_drops_blocks_without_truncating() -> None:
    build = build_context(FIXTURES / "overflow")
    assert build.budgeted.dropped > 0
    assert not build.budgeted.truncated
    assert all(b.block.group >= 4 for b in build.budgeted.blocks if b.outcome == "dropped")


def test_floor_cuts_inside_a_multibyte_character() -> None:
    build = build_context(FIXTURES / "floor")
    groups_1_to_3 = [b for b in build.budgeted.blocks if b.block.group <= 3]
    assert sum(b.bytes for b in groups_1_to_3) > 24000
    assert build.budgeted.truncated
    assert build.budgeted.pack_bytes < 24000  # the cut backed off to a code point
    whole = "\n".join(b.block.text for b in groups_1_to_3).encode("utf-8")
    assert whole[build.budgeted.pack_bytes] >= 0xC0  # the cut is at a lead byte
    assert whole[24000] & 0xC0 == 0x80  # byte 24000 is inside that character


def test_same_content_in_another_order_and_with_other_mtimes_gives_the_same_bytes(tmp_path: Path) -> None:
    source = FIXTURES / "demo" / ".ledger"
    files = sorted(p for p in source.rglob("*") if p.is_file())
    random.Random(7).shuffle(files)
    copy = tmp_path / "space" / ".ledger"
    for index, path in enumerate(files):
        target = copy / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        os.utime(target, ns=(index * 1_000_000_007, (len(files) - index) * 1_000_000_007))
    assert build_context(tmp_path / "space").pack == build_context(FIXTURES / "demo").pack

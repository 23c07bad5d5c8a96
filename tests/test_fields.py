"""Spec §3: null forms, clean-up of titles and slugs, statuses and dates."""

from __future__ import annotations

import pytest

from conftest import assert_linear
from ledger_context.fields import clean_text, parse_updated_at

N = 100_000


def test_clean_up_makes_one_line() -> None:
    assert clean_text(" a\t\n b\x00\ud800 ") == "a b \ufffd"


@pytest.mark.parametrize("text", [" \t" * (N // 2) + "x", "\x01 " * (N // 2), "a " * N, "\ud800" * N])
def test_clean_up_is_linear(text: str) -> None:
    assert_linear(lambda: clean_text(text))


@pytest.mark.parametrize("value", ["2026-01-01" + " " * N + "x", "1" * N, "2026-01-01T" + ":" * N, "-" * N])
def test_dates_are_parsed_in_linear_time(value: str) -> None:
    assert_linear(lambda: parse_updated_at(value))

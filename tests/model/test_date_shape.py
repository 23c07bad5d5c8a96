"""The shape of an updated_at that is not ISO 8601, named from a fixed list (issue 29)."""

from __future__ import annotations

import pytest

from ledger_context.model.date_shape import date_shape


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        ("02/10/2026", "MM/DD/YYYY"),
        ("2/1/26", "MM/DD/YY"),
        ("10.02.2026", "DD.MM.YYYY"),
        ("10-02-2026", "MM-DD-YYYY"),
        ("2026/08/11", "YYYY/MM/DD"),
        ("2026-8-11", "YYYY-M-D (a one-digit month or day)"),
        ("2026-02-30", "YYYY-MM-DD with an impossible date, time or offset"),
        ("2026-08-11T25:00", "YYYY-MM-DD with an impossible date, time or offset"),
        ("02/10/2026 10:00 AM", "MM/DD/YYYY followed by a time"),
        ("02/10/2026 (approx)", "MM/DD/YYYY followed by other text"),
        ("Feb 10, 2026", "a date written with a month name (e.g. Aug 11, 2026)"),
        ("10 september 2026", "a date written with a month name (e.g. Aug 11, 2026)"),
        ("2026-08", "YYYY-MM (a month without a day)"),
        ("2026", "a year alone"),
        ("1770681600", "a Unix timestamp"),
        ("1770681600000", "a Unix timestamp"),
        ("42", "a number"),
        ("yesterday", "text without digits"),
        ("v1.2", "text that is not a date"),
        ("  02/10/2026  ", "MM/DD/YYYY"),
    ],
)
def test_a_value_is_named_by_its_shape(value: str, shape: str) -> None:
    assert date_shape(value) == shape


def test_the_shape_never_holds_the_value() -> None:
    assert "0" not in date_shape("02/10/2026") and "secret" not in date_shape("secret 2026")


def test_a_long_hostile_value_is_named_in_one_pass() -> None:
    assert date_shape("1/" * 50_000) == "text that is not a date"
    assert date_shape("9" * 100_000) == "a number"

"""Spec §1's units: 4 UTF-8 bytes a token, rounded up once; the 6000-token cap."""

from __future__ import annotations

from ledger_context import BYTES_PER_TOKEN, DEFAULT_CAP_TOKENS, tokens
from ledger_context.model.tokens import MAX_CAP_TOKENS


def test_tokens_are_bytes_over_four_rounded_up_once() -> None:
    assert [tokens(n) for n in (0, 1, 3, 4, 5, 8, 24000, 24001)] == [0, 1, 1, 1, 2, 2, 6000, 6001]


def test_the_default_cap_is_24000_bytes_and_the_largest_is_exact_in_json() -> None:
    assert (BYTES_PER_TOKEN, DEFAULT_CAP_TOKENS) == (4, 6000)
    assert DEFAULT_CAP_TOKENS * BYTES_PER_TOKEN == 24000
    assert MAX_CAP_TOKENS * BYTES_PER_TOKEN < 2**53  # a JSON number every client reads exactly

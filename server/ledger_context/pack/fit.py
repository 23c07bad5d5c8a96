"""Advice from measured tokens (spec §9): the largest cap whose pack a tokenizer counts
within the cap, found by building packs, never by scaling a guess.

Advice only: nothing here changes a pack. :func:`fitting_cap` re-runs the budget of
§6 on the same candidate blocks at other caps (selection does not depend on the cap)
and counts each pack with the tokenizer; a pack grows with its cap (whole blocks come
back in drop order, then the cut moves later), so the count does too and a bisection
finds the boundary in about log2(cap) builds.
"""

from __future__ import annotations

from collections.abc import Sequence

from .budget import apply_budget
from .measure import CapAdvice, count_with
from .select import Block


def fitting_cap(blocks: Sequence[Block], cap_tokens: int, tokenizer: str) -> int | None:
    """The largest cap ``c <= cap_tokens`` whose pack ``tokenizer`` counts at most
    ``cap_tokens`` tokens; ``None`` if none does or the tokenizer cannot be loaded."""

    def fits(cap: int) -> bool:
        count = count_with(tokenizer, apply_budget(blocks, cap).pack)
        return count is not None and count <= cap_tokens

    low, high = 0, cap_tokens  # fits(low) is taken as true (an empty cap), fits(high) is asked
    if fits(high):
        return high
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low or None


def cap_advice(blocks: Sequence[Block], pack: str, cap_tokens: int, tokenizer: str) -> CapAdvice | None:
    """Advice when ``tokenizer`` counts ``pack`` (built at ``cap_tokens`` from ``blocks``)
    over the cap; ``None`` when it fits or was not measured."""
    measured = count_with(tokenizer, pack)
    if measured is None or measured <= cap_tokens:
        return None
    return CapAdvice(tokenizer, cap_tokens, measured, fitting_cap(blocks, cap_tokens, tokenizer))

"""A written space's pack, laid out by the ledger-context package itself.

The generator models no pack rule: selection, order, rendering, the budget and the cut
all come from :class:`ledger_context.ContextBuilder`. :func:`lay_out` builds the space
once and adds the same candidate blocks under an unlimited cap, so the offsets of the pack
before the budget are the package's too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

try:
    from ledger_context import BYTES_PER_TOKEN, DEFAULT_CAP_TOKENS, ContextBuilder
    from ledger_context.model.tokens import MAX_CAP_TOKENS
    from ledger_context.pack.budget import Budgeted, apply_budget
    from ledger_context.reader.ledger import Ledger
except ImportError as error:  # run by a Python without the package
    raise SystemExit(
        "the fixture generator checks its spaces with the ledger-context package: "
        "run `make fixtures` (or install it with `pip install -e .`)"
    ) from error

CAP_BYTES = DEFAULT_CAP_TOKENS * BYTES_PER_TOKEN
"""The default cap in bytes (24000), the one every fixture is laid out for."""


@dataclass(frozen=True, slots=True)
class Placed:
    """One candidate block of the pack before the budget: ``start`` is the offset of its
    first byte (the ``\\n`` separator charged to it included), ``size`` its bytes."""

    group: int
    path: str
    start: int
    size: int


@dataclass(frozen=True, slots=True)
class Layout:
    """``whole`` is the pack before the budget, ``blocks`` its candidate blocks in pack
    order; ``budgeted`` is the pack under the default cap, with every block's outcome."""

    ledger: Ledger
    whole: bytes
    blocks: tuple[Placed, ...]
    budgeted: Budgeted

    def block_at(self, offset: int) -> Placed:
        """The candidate block that holds byte ``offset`` of :attr:`whole`."""
        return next(b for b in self.blocks if b.start <= offset < b.start + b.size)

    def per_group(self, *, kept: bool = False) -> dict[int, int]:
        """Candidate blocks per group 1-6; with ``kept``, only those with a byte in the pack."""
        counts = dict.fromkeys(range(1, 7), 0)
        for outcome in self.budgeted.blocks:
            if not kept or outcome.kept_bytes > 0:
                counts[outcome.block.group] += 1
        return counts


def lay_out(space: Path) -> Layout:
    """Build ``space`` with the package (default cap, no ceiling) and lay out its pack."""
    build = ContextBuilder(space, cache=False, provenance=False).build()
    unlimited = apply_budget(build.selection.blocks, MAX_CAP_TOKENS)
    placed, start = [], 0
    for outcome in unlimited.blocks:
        block = outcome.block
        placed.append(Placed(block.group, block.document.path, start, outcome.bytes))
        start += outcome.bytes
    whole = unlimited.pack.encode("utf-8")
    assert start == len(whole) and not unlimited.dropped, "an unlimited cap keeps every block"
    return Layout(build.ledger, whole, tuple(placed), build.budgeted)

"""The ADR-0028 budget: 4 bytes per token, the cap, the drop order, the cut (spec §6).

:func:`apply_budget` turns the candidate blocks into the pack and records, for every
block, the bytes it costs and keeps and why, in one pass; the explanation reads that
record and never measures anything again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

from ..model.tokens import BYTES_PER_TOKEN, tokens
from ..model.values import Record
from .select import DROPPABLE_GROUPS, Block

Outcome = Literal["kept", "truncated", "dropped"]


class BlockOutcome(Record):
    """One candidate block as the budget left it.

    ``bytes`` is what the block costs in the pack (its text plus the ``\\n`` separator
    before it, if any); ``kept_bytes`` is how many of those bytes are in the pack.
    """

    __slots__ = ("block", "bytes", "kept_bytes", "outcome", "reason")

    def __init__(
        self,
        block: Block,
        bytes: int,
        kept_bytes: int,
        outcome: Outcome,
        reason: str,
    ) -> None:
        self.block = block
        self.bytes = bytes
        self.kept_bytes = kept_bytes
        self.outcome = outcome
        self.reason = reason


class Budgeted(Record):
    """The pack and its accounting (spec §6, §8).

    ``pack`` is the pack's text; ``pack_bytes`` its size in UTF-8 bytes; ``cut_bytes``
    how many bytes the cut removed (0 when the pack was not truncated).
    """

    __slots__ = ("blocks", "cap_tokens", "cut_bytes", "pack", "pack_bytes", "sha256")

    def __init__(
        self,
        pack: str,
        pack_bytes: int,
        sha256: str,
        cap_tokens: int,
        blocks: tuple[BlockOutcome, ...],
        cut_bytes: int,
    ) -> None:
        self.pack = pack
        self.pack_bytes = pack_bytes
        self.sha256 = sha256
        self.cap_tokens = cap_tokens
        self.blocks = blocks
        self.cut_bytes = cut_bytes

    @property
    def cap_bytes(self) -> int:
        """The cap in bytes: 4 × ``cap_tokens``."""
        return self.cap_tokens * BYTES_PER_TOKEN

    @property
    def tokens(self) -> int:
        """The pack's tokens: ``ceil(pack_bytes / 4)``, taken once over the whole pack."""
        return tokens(self.pack_bytes)

    @property
    def truncated(self) -> bool:
        """True when the pack was cut (spec §6, last step)."""
        return self.cut_bytes > 0

    @property
    def dropped(self) -> int:
        """Blocks with outcome ``dropped``."""
        return sum(1 for b in self.blocks if b.outcome == "dropped")


def apply_budget(blocks: Sequence[Block], cap_tokens: int) -> Budgeted:
    """Build the pack from ``blocks`` (in pack order) under the cap (spec §5–6).

    While the pack is over ``4 × cap_tokens`` bytes the last block of groups 4–6 is
    removed; if it is still over, it is cut to the longest prefix of at most that many
    bytes that does not split a code point. Blocks are joined by ``\\n``, charged to the
    block that follows it. ``cap_tokens`` is a checked cap
    (:func:`~ledger_context.pack.settings.check_cap_tokens`).
    """
    cap_bytes = cap_tokens * BYTES_PER_TOKEN
    encoded = [block.text.encode("utf-8") for block in blocks]
    sizes = [len(data) + (1 if index else 0) for index, data in enumerate(encoded)]
    total = sum(sizes)
    count = len(blocks)
    drop_reasons: list[str] = []
    while total > cap_bytes and count and blocks[count - 1].group in DROPPABLE_GROUPS:
        count -= 1
        drop_reasons.append(
            f"dropped to fit the cap: the pack was {total - cap_bytes} bytes over it and this was "
            "the last block of groups 4-6"
        )
        total -= sizes[count]
    whole = b"\n".join(encoded[:count])
    cut = len(whole)
    if cut > cap_bytes:
        cut = cap_bytes
        while whole[cut] & 0xC0 == 0x80:  # a continuation byte: back off to a code point
            cut -= 1
    data = whole[:cut]

    outcomes: list[BlockOutcome] = []
    offset = 0
    for index in range(count):
        size = sizes[index]
        kept = min(max(cut - offset, 0), size)
        if kept == size:
            outcomes.append(BlockOutcome(blocks[index], size, kept, "kept", "within the cap"))
        elif kept:
            reason = (
                f"groups 1-3 alone exceed the cap; the pack was cut to {cut} bytes, "
                f"{kept} of this block's {size} bytes kept"
            )
            outcomes.append(BlockOutcome(blocks[index], size, kept, "truncated", reason))
        else:
            reason = f"wholly past the cut at {cut} bytes (groups 1-3 alone exceed the cap)"
            outcomes.append(BlockOutcome(blocks[index], size, 0, "dropped", reason))
        offset += size
    for index in range(count, len(blocks)):
        reason = drop_reasons[len(blocks) - 1 - index]
        outcomes.append(BlockOutcome(blocks[index], sizes[index], 0, "dropped", reason))

    return Budgeted(
        pack=data.decode("utf-8"),
        pack_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        cap_tokens=cap_tokens,
        blocks=tuple(outcomes),
        cut_bytes=len(whole) - len(data),
    )

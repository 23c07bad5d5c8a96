"""What changed since a pack an agent holds, block by block (``get_context(since=...)``).

An agent names the pack it holds by its SHA-256. If the pack is still that one, it needs
nothing more; otherwise it gets the whole pack again (its bytes never depend on ``since``),
and, when the server still knows the held pack, which blocks were added, removed and
changed. A block is named by its source's path and compared by the digest of its bytes
in the pack (separator included), so an edit the pack does not show changes nothing.
Only blocks in a pack are known here: a withheld document is never one.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ..model.errors import InvalidArgumentError
from .budget import Budgeted

_SHA256 = re.compile(r"[0-9a-fA-F]{64}")

SERVED_PACKS = 64
"""How many packs' block digests a server keeps, the latest served first to stay."""


def check_since(since: object) -> str | None:
    """``since`` as lowercase hex, or ``None`` when not given; raises
    :class:`~ledger_context.model.errors.InvalidArgumentError` for anything but 64 hex digits."""
    if since is None:
        return None
    if not isinstance(since, str) or _SHA256.fullmatch(since) is None:
        raise InvalidArgumentError(
            "invalid since: give the sha256 of a get_context receipt (64 hex digits), or leave it out"
        )
    return since.lower()


def block_digests(budgeted: Budgeted) -> dict[str, str]:
    """Each block in the pack (at least one kept byte) by its source's path: the SHA-256
    of its bytes in the pack."""
    data = budgeted.pack.encode("utf-8")
    digests: dict[str, str] = {}
    offset = 0
    for outcome in budgeted.blocks:
        if outcome.kept_bytes > 0:
            part = data[offset : offset + outcome.kept_bytes]
            digests[outcome.block.document.path] = hashlib.sha256(part).hexdigest()
            offset += outcome.kept_bytes
    return digests


@dataclass(frozen=True, slots=True)
class Changes:
    """The blocks of a pack against those of an earlier one, each list in path order."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]


def changes(before: dict[str, str], now: dict[str, str]) -> Changes:
    """What ``now``'s blocks are against ``before``'s."""
    return Changes(
        added=tuple(sorted(now.keys() - before.keys())),
        removed=tuple(sorted(before.keys() - now.keys())),
        changed=tuple(sorted(p for p in now.keys() & before.keys() if now[p] != before[p])),
    )


def since_receipt(since: str, budgeted: Budgeted, before: dict[str, str] | None) -> dict[str, Any]:
    """The receipt's ``since`` entry: unchanged; or changed, with the blocks named when the
    pack held (``before``) is known."""
    if since == budgeted.sha256:
        return {"sha256": since, "unchanged": True}
    if before is None:
        return {"sha256": since, "unchanged": False, "known": False}
    found = changes(before, block_digests(budgeted))
    return {
        "sha256": since,
        "unchanged": False,
        "known": True,
        "added": list(found.added),
        "removed": list(found.removed),
        "changed": list(found.changed),
    }


class ServedPacks:
    """The block digests of the last :data:`SERVED_PACKS` packs served, by SHA-256: a
    bounded memory, so a long-running server does not grow with every edit."""

    def __init__(self, limit: int = SERVED_PACKS) -> None:
        self.limit = limit
        self._packs: OrderedDict[str, dict[str, str]] = OrderedDict()

    def remember(self, budgeted: Budgeted) -> None:
        """Note that ``budgeted``'s pack was served."""
        if budgeted.sha256 in self._packs:
            self._packs.move_to_end(budgeted.sha256)
            return
        self._packs[budgeted.sha256] = block_digests(budgeted)
        while len(self._packs) > self.limit:
            self._packs.popitem(last=False)

    def blocks(self, sha256: str) -> dict[str, str] | None:
        """The block digests of the pack ``sha256`` names, if it was served and is still kept."""
        return self._packs.get(sha256)


UNCHANGED_BYTES = 200
"""The unchanged answer is at most this many UTF-8 bytes."""


def unchanged_line(budgeted: Budgeted) -> str:
    """``get_context``'s whole answer when the pack is still the one the agent holds."""
    return (
        f"Unchanged: the pack is still sha256 {budgeted.sha256} ({budgeted.pack_bytes} bytes); "
        "the copy you hold is current.\n"
    )

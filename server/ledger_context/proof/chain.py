"""Hash chains of audit rows: each row commits to the row before it in its chain.

A row's hash is the SHA-256 of the previous row's hash and the row's own values (chain
id and position included) as canonical JSON. Changing, inserting, moving or deleting a
row breaks the link after it; deleting the newest rows leaves the chain whole, which is
why a call's receipt carries its row's hash: the log must still hold that hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

START = "0" * 64
"""The ``prev_hash`` of the first row of a chain."""


def row_hash(prev_hash: str, values: Sequence[object]) -> str:
    """The hash of a row holding ``values`` (every column but the hash) after ``prev_hash``."""
    canonical = json.dumps(list(values), ensure_ascii=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(f"{prev_hash}\n{canonical}".encode("ascii")).hexdigest()


@dataclass(frozen=True, slots=True)
class Link:
    """One stored row as the chain sees it: ``row_id`` (the table's), its place
    (``seq``), the hashes it stores and the values they cover."""

    row_id: int
    seq: int
    prev_hash: str
    row_hash: str
    values: tuple[object, ...]


def breaks(links: Iterable[Link], anchor: tuple[int, str] | None = None) -> list[str]:
    """Every break in one chain's ``links`` (in table order), each naming its row.

    ``anchor`` is (seq, hash) of the last row pruned from the chain: the first row left
    must follow it (without one, the first row must start the chain).
    """
    found: list[str] = []
    expected_seq, expected_prev = (anchor[0] + 1, anchor[1]) if anchor else (0, START)
    for link in links:
        if row_hash(link.prev_hash, link.values) != link.row_hash:
            found.append(f"row {link.row_id}: edited (its values do not give its hash)")
        elif link.seq != expected_seq:
            what = "missing" if link.seq > expected_seq else "out of order"
            found.append(f"row {link.row_id}: position {link.seq} where {expected_seq} was due (rows {what})")
        elif link.prev_hash != expected_prev:
            found.append(f"row {link.row_id}: does not follow the row before it (inserted, or one deleted)")
        expected_seq, expected_prev = link.seq + 1, link.row_hash
    return found

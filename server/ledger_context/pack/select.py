"""Selecting, ordering and rendering the six groups of the pack (spec §4–5).

This module decides *which* documents become candidate blocks and what each block's
text is. Whether a block fits is :mod:`~ledger_context.pack.budget`'s job.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import Any

from ..model.classify import is_withheld
from ..model.document import Document
from ..model.kinds import KIND, KIND_TABLE, Kind
from ..model.values import Record

GROUPS: tuple[tuple[int, str, str], ...] = tuple((k.group, k.group_name, k.name) for k in KIND_TABLE)
"""(group number, group name, document kind), in pack order (spec §4)."""

GROUP_OF_KIND: dict[str, int] = {k.name: k.group for k in KIND_TABLE}
DROPPABLE_GROUPS = frozenset(k.group for k in KIND_TABLE if k.droppable)
"""Groups whose blocks the budget may drop (spec §6)."""


class Block(Record):
    """A candidate block: its group (1–6), its source document, and its text.

    ``text`` ends with ``\\n`` and excludes the ``\\n`` separator that joins it to the
    block before it (spec §5).
    """

    __slots__ = ("document", "group", "text")

    def __init__(
        self,
        group: int,
        document: Document,
        text: str,
    ) -> None:
        self.group = group
        self.document = document
        self.text = text


class Selection(Record):
    """The candidate blocks in pack order, and the sources a data-class ceiling withheld."""

    __slots__ = ("blocks", "withheld")

    def __init__(
        self,
        blocks: list[Block],
        withheld: list[Document],
    ) -> None:
        self.blocks = blocks
        self.withheld = withheld


def by_slug(document: Document) -> tuple[str, str]:
    """Order key of groups 2–3: slug ascending, then path (code points)."""
    return (document.slug, document.path)


def newest_first(document: Document) -> tuple[int, int, str, str]:
    """Order key of groups 4–6: dated before undated, ``updated_at`` descending, slug,
    then path (spec §4)."""
    if document.updated is None:
        return (1, 0, document.slug, document.path)
    return (0, -document.updated.key, document.slug, document.path)


def fenced(frontmatter: str) -> str:
    """The frontmatter text between two ``---`` lines; empty text gives just the fences."""
    return f"---\n{frontmatter}\n---\n" if frontmatter else "---\n---\n"


def render(document: Document) -> str:
    """The text of ``document``'s block, ending with ``\\n`` (spec §5)."""
    kind = document.kind
    if kind == "agents":
        text = document.text or ""
        return text if text.endswith("\n") else text + "\n"
    frontmatter = fenced(document.frontmatter or "")
    if kind == "experiment":
        return frontmatter
    head = f"## {KIND[kind].label}: {document.title} ({document.path})\n"
    if document.metrics:
        return head + frontmatter + "Metrics:\n" + "".join(line + "\n" for line in document.metrics)
    return head + frontmatter


def _group_key(kind: Kind) -> Callable[[Document], tuple[Any, ...]]:
    """The order inside ``kind``'s group: the rank of the status, then slug or newest first."""
    order = by_slug if kind.order == "slug" else newest_first
    if len(kind.statuses) < 2:
        return order
    rank = kind.rank
    return lambda document: (rank(document.status), *order(document))


def select(documents: Iterable[Document], ceiling: str | None, undeclared: str | None = None) -> Selection:
    """Choose and order the candidate blocks of the six groups (spec §4, §7).

    ``documents`` are the valid documents of a ledger; sources stricter than ``ceiling``
    (or of unknown class) are withheld first, as if they did not exist. Undeclared sources
    are read as ``undeclared`` (``None``: they pass).
    """
    withheld: list[Document] = []
    by_kind: dict[str, list[Document]] = {kind.name: [] for kind in KIND_TABLE}
    for document in documents:
        if is_withheld(document.data_class, ceiling, undeclared):
            withheld.append(document)
            continue
        kind = KIND[document.kind]
        if kind.name == "agents":
            if document.text:
                by_kind[kind.name].append(document)
        elif kind.selects(document.status):
            by_kind[kind.name].append(document)

    chosen: list[Document] = []
    for kind in KIND_TABLE:
        candidates = by_kind[kind.name]
        if kind.order == "none":
            chosen += candidates
            continue
        key = _group_key(kind)
        if kind.limit is None:
            chosen += sorted(candidates, key=key)
        else:
            chosen += heapq.nsmallest(kind.limit, candidates, key=key)
    blocks = [Block(GROUP_OF_KIND[d.kind], d, render(d)) for d in chosen]
    return Selection(blocks, withheld)

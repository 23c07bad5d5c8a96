"""The kinds of ledger document and the group each becomes: spec §4 as one table.

Every other module reads the kind vocabulary from here: the walk (which folder holds
which kind), the reader (which kinds are dated, which status selects, which block
carries metrics), the selection (which order), the rendering (the label of a title
line), the budget (which groups may be dropped), and the prose that tells clients what
the pack holds (:func:`pack_contents`).
"""

from __future__ import annotations

from typing import Literal

Order = Literal["none", "slug", "newest"]
"""How a group is ordered: ``slug`` ascending, or ``newest`` ``updated_at`` first."""


class Kind:
    """One row of spec §4.

    ``name`` is the document kind; ``folder`` where its documents live below ``.ledger``
    (for ``agents``, the file ``agents.md``); ``group`` and ``group_name`` the pack group;
    ``label`` the title-line label (empty: no title line); ``statuses`` the statuses that
    select a document, in rank order (empty: any status); ``order`` the order inside the
    group, after the rank of the status; ``limit`` how many the group takes at most
    (``None``: all); ``droppable`` whether the budget may drop its blocks (spec §6);
    ``metrics`` whether a selected document's block carries its metrics list (spec §5).
    One object per row (:data:`KIND_TABLE`): compared by identity.
    """

    __slots__ = (
        "droppable",
        "folder",
        "group",
        "group_name",
        "label",
        "limit",
        "metrics",
        "name",
        "order",
        "statuses",
    )

    def __init__(
        self,
        name: str,
        folder: str,
        group: int,
        group_name: str,
        label: str,
        statuses: tuple[str, ...],
        order: Order,
        limit: int | None,
        droppable: bool,
        metrics: bool = False,
    ) -> None:
        self.name = name
        self.folder = folder
        self.group = group
        self.group_name = group_name
        self.label = label
        self.statuses = statuses
        self.order = order
        self.limit = limit
        self.droppable = droppable
        self.metrics = metrics

    @property
    def dated(self) -> bool:
        """Whether its order uses ``updated_at``, so an undated one is worth reporting (spec §3)."""
        return self.order == "newest"

    def selects(self, status: str | None) -> bool:
        """Whether a document of this kind with ``status`` (stripped, case-folded) is selected."""
        return not self.statuses or status in self.statuses

    def always_chosen(self, status: str | None) -> bool:
        """Whether every document with ``status`` has a block unless it is withheld: its
        kind selects the status and its group takes all (spec §4)."""
        return self.limit is None and self.selects(status)

    def rank(self, status: str | None) -> int:
        """Where a selected ``status`` sorts inside the group: its place in ``statuses``."""
        return self.statuses.index(status) if status in self.statuses else 0

    def titled(self, status: str | None) -> bool:
        """Whether a document with ``status`` is rendered with a title line (spec §4–5)."""
        return bool(self.label) and status in self.statuses

    def renders_metrics(self, status: str | None) -> bool:
        """Whether a document with ``status`` carries its metrics list (spec §5)."""
        return self.metrics and self.titled(status)


EXPERIMENTS_IN_PACK = 10
"""How many experiments group 6 takes (spec §4)."""

KIND_TABLE: tuple[Kind, ...] = (
    Kind("agents", "agents.md", 1, "agents", "", (), "none", None, False),
    Kind("harness", "harnesses", 2, "harnesses", "Harness", ("active",), "slug", None, False),
    Kind("eval", "evals", 3, "evals", "Eval", ("active",), "slug", None, False, metrics=True),
    Kind("finding", "findings", 4, "findings", "Finding", ("current",), "newest", None, True),
    Kind("decision", "decisions", 5, "decisions", "Decision", ("accepted",), "newest", None, True),
    Kind("experiment", "experiments", 6, "experiments", "", (), "newest", EXPERIMENTS_IN_PACK, True),
)
"""Spec §4, in group order."""

KIND: dict[str, Kind] = {kind.name: kind for kind in KIND_TABLE}
"""Kind name → its row."""


def statuses_text(kind: Kind, quote: str = "") -> str:
    """The statuses that select ``kind``, in words: ``accepted``, or ``accepted or superseded``."""
    return " or ".join(f"{quote}{status}{quote}" for status in kind.statuses)


def pack_contents() -> str:
    """What the pack holds, in words, from the table: the prose every description uses.

    Consecutive groups selected by the same statuses share one phrase ("active
    harnesses and evals").
    """
    parts: list[str] = []
    previous: Kind | None = None
    for kind in KIND_TABLE:
        if kind.order == "none":
            parts.append(kind.folder)
        elif kind.limit is not None:
            parts.append(f"the {kind.limit} latest {kind.group_name}")
        elif previous is not None and previous.statuses == kind.statuses and kind.statuses:
            parts[-1] += f" and {kind.group_name}"
        else:
            parts.append(f"{statuses_text(kind)} {kind.group_name}".lstrip())
        previous = kind
    return ", ".join(parts[:-1]) + " and " + parts[-1]

"""The kinds of ledger document and the group each becomes: spec §4 as one table.

Every other module reads the kind vocabulary from here: the walk (which folder holds
which kind), the reader (which kinds are dated), the selection (which status selects,
which order), the rendering (the label of a title line) and the budget (which groups
may be dropped).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Order = Literal["none", "slug", "newest"]
"""How a group is ordered: ``slug`` ascending, or ``newest`` ``updated_at`` first."""


@dataclass(frozen=True, slots=True)
class Kind:
    """One row of spec §4.

    ``name`` is the document kind; ``folder`` where its documents live below ``.ledger``
    (for ``agents``, the file ``agents.md``); ``group`` and ``group_name`` the pack group;
    ``label`` the title-line label (empty: no title line); ``status`` the status that
    selects a document (``None``: any status); ``order`` the order inside the group;
    ``limit`` how many the group takes at most (``None``: all); ``droppable`` whether
    the budget may drop its blocks (spec §6); ``dated`` whether its order uses
    ``updated_at``, so an undated one is worth reporting (spec §3).
    """

    name: str
    folder: str
    group: int
    group_name: str
    label: str
    status: str | None
    order: Order
    limit: int | None
    droppable: bool

    @property
    def dated(self) -> bool:
        return self.order == "newest"


EXPERIMENTS_IN_PACK = 10
"""How many experiments group 6 takes (spec §4)."""

KIND_TABLE: tuple[Kind, ...] = (
    Kind("agents", "agents.md", 1, "agents", "", None, "none", None, False),
    Kind("harness", "harnesses", 2, "harnesses", "Harness", "active", "slug", None, False),
    Kind("eval", "evals", 3, "evals", "Eval", "active", "slug", None, False),
    Kind("finding", "findings", 4, "findings", "Finding", "current", "newest", None, True),
    Kind("decision", "decisions", 5, "decisions", "Decision", "accepted", "newest", None, True),
    Kind("experiment", "experiments", 6, "experiments", "", None, "newest", EXPERIMENTS_IN_PACK, True),
)
"""Spec §4, in group order."""

KIND: dict[str, Kind] = {kind.name: kind for kind in KIND_TABLE}
"""Kind name → its row."""

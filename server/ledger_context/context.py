"""One call builds the pack and its accounting: the core both the CLI and MCP read.

``ledger-context pack`` and ``get_context`` both call :meth:`ContextBuilder.build`,
so they cannot disagree; ``explain_budget`` reads the same :class:`ContextBuild`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .budget import DEFAULT_CAP_TOKENS, Budgeted, apply_budget, check_cap_tokens
from .classify import Source, effective_class, parse_ceiling
from .ledger import DocumentCache, Ledger, read_ledger
from .pack import Selection, select


@dataclass(frozen=True, slots=True)
class ContextBuild:
    """A built pack with everything needed to explain it.

    ``ceiling`` is the canonical data-class ceiling or ``None``; ``budgeted.pack`` is
    the pack text.
    """

    ledger: Ledger
    selection: Selection
    budgeted: Budgeted
    ceiling: str | None

    @property
    def pack(self) -> str:
        """The pack text, exactly what ``get_context`` returns (spec §5–6)."""
        return self.budgeted.pack

    def sources(self) -> list[Source]:
        """Every source that reached the pack (at least one kept byte), in pack order,
        with its declared class (spec §7)."""
        return [
            Source(outcome.block.document.path, outcome.block.document.data_class)
            for outcome in self.budgeted.blocks
            if outcome.kept_bytes > 0
        ]

    def effective_class(self) -> str | None:
        """The strictest class over :meth:`sources`, ``None`` if none declared one."""
        return effective_class(self.sources())


class ContextBuilder:
    """Builds packs of one space, reusing parsed files that did not change.

    ``cap_tokens`` (at least 1) and ``max_data_class`` (a class name or ``None``) are
    checked here: :class:`~ledger_context.errors.InvalidArgumentError` names the
    allowed values.
    """

    def __init__(
        self,
        space: Path,
        cap_tokens: int = DEFAULT_CAP_TOKENS,
        max_data_class: str | None = None,
        *,
        cache: bool = True,
    ) -> None:
        self.space = space
        self.cap_tokens = check_cap_tokens(cap_tokens)
        self.ceiling = parse_ceiling(max_data_class)
        self._cache = DocumentCache() if cache else None

    def build(self) -> ContextBuild:
        """Read the ledger as it is now and build its pack (spec §1–7)."""
        ledger = read_ledger(self.space, self._cache)
        selection = select(ledger.documents, self.ceiling)
        budgeted = apply_budget(selection.blocks, self.cap_tokens)
        return ContextBuild(ledger, selection, budgeted, self.ceiling)


def build_context(
    space: Path, cap_tokens: int = DEFAULT_CAP_TOKENS, max_data_class: str | None = None
) -> ContextBuild:
    """Build the pack of ``space`` once, without a cache (spec §1–7).

    ``space`` is the directory holding ``.ledger``. Raises
    :class:`~ledger_context.errors.InvalidArgumentError` for a cap below 1 or an
    unknown ceiling; a broken document is reported in ``ledger.problems``, never raised.
    """
    return ContextBuilder(space, cap_tokens, max_data_class, cache=False).build()

"""Problems found while reading a ledger: what, where, how bad (spec §1–3).

A problem names a path, and a line and column where known; its message says what is
wrong and how to fix it, and never quotes the document's text.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Severity = Literal["error", "warning", "info"]
"""``error``: the document was skipped; ``warning``: read, or ignored, with a fault;
``info``: worth knowing, nothing wrong with the pack."""

SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


class Problem(NamedTuple):
    """One problem found in a ledger.

    ``path`` is relative to the space with ``/`` separators (spec §1), escaped when the
    name itself is not clean text; ``line`` and ``column`` are 1-based, or ``None``.
    """

    path: str
    severity: Severity
    message: str
    line: int | None = None
    column: int | None = None

    def location(self) -> str:
        """``path``, ``path:line`` or ``path:line:column``, as editors expect."""
        if self.line is None:
            return self.path
        if self.column is None:
            return f"{self.path}:{self.line}"
        return f"{self.path}:{self.line}:{self.column}"


def problem_sort_key(problem: Problem) -> tuple[str, int, int, int, str]:
    """Order problems by path (code points), line, column, severity, message."""
    return (
        problem.path,
        problem.line or 0,
        problem.column or 0,
        SEVERITIES.index(problem.severity),
        problem.message,
    )

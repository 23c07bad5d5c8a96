"""``check``: every problem of a ledger, plus what a pack alone cannot show.

Beyond the reader's problems (spec §1–3) it warns about an ``updated_at`` in the future
(it would pin a document to the top of its group until that date) and about a ledger
read without libyaml. The exit status is 0 when clean, 1 for warnings only, 2 when a
document was skipped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .frontmatter import LIBYAML
from .ledger import Ledger
from .problems import Problem, problem_sort_key

EXIT_CLEAN = 0
EXIT_WARNINGS = 1
EXIT_SKIPPED = 2


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The problems of a ledger, in path order, and the exit status they call for."""

    problems: list[Problem]

    @property
    def exit_status(self) -> int:
        """0 clean (info only), 1 warnings only, 2 a document or file was skipped."""
        severities = {p.severity for p in self.problems}
        if "error" in severities:
            return EXIT_SKIPPED
        return EXIT_WARNINGS if "warning" in severities else EXIT_CLEAN


def check_ledger(ledger: Ledger, now_us: int | None = None) -> CheckReport:
    """Every problem of ``ledger``, plus future ``updated_at`` and libyaml warnings.

    ``now_us`` is the current time in microseconds since the Unix epoch (default: now).
    """
    if now_us is None:
        now_us = time.time_ns() // 1000
    problems = list(ledger.problems)
    for document in ledger.documents:
        if document.updated is not None and document.updated.key > now_us:
            problems.append(
                Problem(
                    document.path,
                    "warning",
                    f"updated_at is in the future ({document.updated.iso}); it pins the "
                    "document to the top of its group until then",
                )
            )
    if not LIBYAML:
        problems.append(
            Problem(
                ".ledger",
                "warning",
                "PyYAML was built without libyaml: frontmatter is read with the slower "
                "pure-Python BaseLoader (install PyYAML wheels with libyaml)",
            )
        )
    problems.sort(key=problem_sort_key)
    return CheckReport(problems)

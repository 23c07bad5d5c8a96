"""``check``: every problem of a ledger, plus what a pack alone cannot show.

Beyond the reader's problems (spec §1–3) it warns about an ``updated_at`` in the future
(it would pin a document to the top of its group until that date) and about a ledger
read without libyaml; the report names the YAML loader (``python`` when
``LEDGER_CONTEXT_YAML=python`` chose the pure-Python one). The exit status is 0 when
clean, 1 for warnings only, 2 when a document was skipped.
"""

from __future__ import annotations

import time
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

from ..model.kinds import KIND
from ..model.problems import Problem, problem_sort_key
from .frontmatter import full_loader, libyaml_available, yaml_env_problem
from .ledger import Ledger

EXIT_CLEAN = 0
EXIT_WARNINGS = 1
EXIT_SKIPPED = 2


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The problems of a ledger, in path order, and the exit status they call for."""

    problems: list[Problem]
    selected: frozenset[str] = field(default_factory=frozenset)
    yaml_loader: str = "libyaml"
    """The loader frontmatter goes to when the quick path declines: libyaml or python."""
    """Paths of the documents whose status selects them (spec §4, groups 2–5)."""

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
    problems.extend(_loader_problems())
    problems.extend(_undeclared(ledger))
    problems.extend(_normalisation_twins(ledger))
    problems.sort(key=problem_sort_key)
    selected = frozenset(d.path for d in ledger.documents if KIND[d.kind].titled(d.status))
    return CheckReport(problems, selected, full_loader())


UNDECLARED_NAMED = 3
"""How many undeclared documents the summary line names."""


def _undeclared(ledger: Ledger) -> list[Problem]:
    """One info line for the documents that declare no ``data_class``: they pass any
    ceiling unless ``--undeclared-class`` names a class for them."""
    paths = sorted(d.path for d in ledger.documents if d.data_class is None)
    if not paths:
        return []
    named = ", ".join(paths[:UNDECLARED_NAMED]) + (
        f" and {len(paths) - UNDECLARED_NAMED} more" if len(paths) > UNDECLARED_NAMED else ""
    )
    return [
        Problem(
            ".ledger",
            "info",
            f"{len(paths)} of {len(ledger.documents)} documents declare no data_class ({named}): they "
            "pass any ceiling; add data_class to each, or serve with --undeclared-class CLASS",
        )
    ]


def _normalisation_twins(ledger: Ledger) -> list[Problem]:
    """Document paths equal after Unicode normalisation (NFC): both are read, as two
    documents, which is rarely meant."""
    by_form: defaultdict[str, list[str]] = defaultdict(list)
    for document in ledger.documents:
        path = document.path
        by_form[path if path.isascii() else unicodedata.normalize("NFC", path)].append(path)
    return [
        Problem(
            path,
            "warning",
            f"{len(paths) - 1} other document path equals this one after Unicode normalisation "
            "(NFC and NFD spellings of one name); both are read as separate documents: "
            "rename or remove one",
        )
        for paths in by_form.values()
        if len(paths) > 1
        for path in paths
    ]


def _loader_problems() -> list[Problem]:
    """Which YAML loader reads frontmatter when it is not libyaml, and a bad switch value."""
    problems: list[Problem] = []
    env_problem = yaml_env_problem()
    if env_problem is not None:
        problems.append(Problem(".ledger", "warning", env_problem))
    if not libyaml_available():
        problems.append(
            Problem(
                ".ledger",
                "warning",
                "PyYAML was built without libyaml: frontmatter is read with the slower "
                "pure-Python BaseLoader (install PyYAML wheels with libyaml)",
            )
        )
    return problems

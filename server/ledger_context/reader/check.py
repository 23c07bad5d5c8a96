"""``check``: every problem of a ledger, plus what a pack alone cannot show.

Beyond the reader's problems (spec §1–3) it warns about an ``updated_at`` in the future
(it would pin a document to the top of its group until that date) and about a ledger
read without libyaml; the report names the YAML loader (``python`` when the options
the ledger was read with, ``LEDGER_CONTEXT_YAML=python`` at the edge, chose the
pure-Python one). The exit status is 0 when
clean, 1 for warnings only, 2 when a document was skipped.
"""

from __future__ import annotations

import os
import time
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

from ..model.kinds import KIND
from ..model.problems import Problem, problem_sort_key
from .frontmatter import YamlOptions, libyaml_available, resolved
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


def check_ledger(ledger: Ledger, now_us: int | None = None, yaml: YamlOptions | None = None) -> CheckReport:
    """Every problem of ``ledger``, plus future ``updated_at`` and libyaml warnings.

    ``now_us`` is the current time in microseconds since the Unix epoch (default: now);
    ``yaml`` the options the ledger was read with (the reader's default when ``None``).
    """
    yaml = resolved(yaml)
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
    problems.extend(_loader_problems(yaml))
    problems.extend(_undeclared(ledger))
    problems.extend(_normalisation_twins(ledger))
    problems.extend(_hard_links(ledger))
    problems.extend(_near_statuses(ledger))
    problems.sort(key=problem_sort_key)
    selected = frozenset(d.path for d in ledger.documents if KIND[d.kind].titled(d.status))
    return CheckReport(problems, selected, yaml.full_loader())


def _hard_links(ledger: Ledger) -> list[Problem]:
    """Documents whose file has more than one hard link: the same bytes live under another
    name, perhaps outside the ledger, and nothing tells which name is the original. They
    are served like any document (docs/decisions.md); ``check`` says so."""
    problems = []
    for document in ledger.documents:
        try:
            links = os.stat(os.path.join(ledger.space, document.path)).st_nlink
        except OSError:  # gone since the build: the next build reports it
            continue
        if links > 1:
            problems.append(
                Problem(
                    document.path,
                    "warning",
                    f"file has {links} hard links: the same file is also reachable by another "
                    "name, possibly outside the ledger, and is served as this document; if it "
                    "is not meant to be shared, replace it with a copy (cp, then mv over it)",
                )
            )
    return problems


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, substitution or swap of two
    neighbouring letters (linear in their length)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    if len(a) == len(b):
        swapped = a[start : start + 2][::-1] == b[start : start + 2] and a[start + 2 :] == b[start + 2 :]
        return swapped or a[start + 1 :] == b[start + 1 :]
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1 :] == shorter[start:]


def _near_statuses(ledger: Ledger) -> list[Problem]:
    """Documents whose status is one edit from a status that selects their kind: most
    likely a misspelling that keeps them out of the pack without a word (spec §4 names
    only the selecting statuses, so a status further away is taken as meant)."""
    problems = []
    for document in ledger.documents:
        kind = KIND[document.kind]
        status = document.status
        if status is None or kind.selects(status) or len(status) < 4:
            continue
        for meant in kind.statuses:
            if _one_edit_apart(status, meant):
                problems.append(
                    Problem(
                        document.path,
                        "warning",
                        f"status is one letter from {meant}, the status that puts a {kind.name} in "
                        f"the pack, so the document is not selected; write {meant} if that is what it is",
                    )
                )
                break
    return problems


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


def _loader_problems(yaml: YamlOptions) -> list[Problem]:
    """Which YAML loader reads frontmatter when it is not libyaml, and a bad switch value."""
    problems: list[Problem] = []
    if yaml.problem is not None:
        problems.append(Problem(".ledger", "warning", yaml.problem))
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

"""The answer for one document: where it went and why (spec §8, issue 15).

:func:`explain_path` reads the same :class:`~ledger_context.pack.build.ContextBuild` as
the pack and answers in at most :data:`MAX_ANSWER_BYTES` bytes, as text and as compact
JSON: every free-form value it repeats (the path, a status, a problem message) is cut
to a fixed number of bytes, and it names at most :data:`NEAREST` other paths.
"""

from __future__ import annotations

import difflib
import re
from typing import Literal

from pydantic import BaseModel, Field

from ..model.document import Document
from ..model.errors import InvalidArgumentError
from ..model.kinds import EXPERIMENTS_IN_PACK, KIND, statuses_text
from ..model.problems import Problem
from ..pack.context import ContextBuild
from ..pack.select import GROUP_OF_KIND, GROUPS, newest_first
from ..pack.settings import MAX_PATH_CHARS, canonical_path
from ..reader.paths import printable_path
from .shorten import shorten

MAX_ANSWER_BYTES = 1024
"""The answer's text, and its structured output as compact JSON, stay under this."""

NEAREST = 3
"""How many nearest paths a "not in the ledger" answer names."""

PATH_BYTES = 120
VALUE_BYTES = 40
MESSAGE_BYTES = 200
PROBLEMS_SHOWN = 2

WITHHELD_FIELDS = ("status", "updated_at")
"""What the answer for a withheld document does not show: frontmatter values the ceiling forbids."""

Where = Literal["kept", "truncated", "dropped", "withheld", "not_selected", "skipped", "not_in_ledger"]

_GROUP_NAME = {number: name for number, name, _ in GROUPS}


class PathAnswer(BaseModel):
    """Where one document went, and why."""

    detail: Literal["path"] = "path"
    path: str = Field(description=f"The path asked about, cut to {PATH_BYTES} bytes")
    outcome: Where
    reason: str = Field(description="One line: why, with the figures")
    kind: str | None = Field(description="Document kind, null if not read")
    group: int | None = Field(description="The group (1-6) its kind belongs to")
    status: str | None = Field(description="Status, stripped and case-folded")
    updated_at: str | None = Field(description="updated_at normalised to UTC, or null")
    data_class: str | None = Field(description="Declared data class, 'unknown', or null if none")
    bytes: int | None = Field(description="Rendered bytes of its block, if it was a candidate")
    kept_bytes: int | None = Field(description="Bytes of its block in the pack, if it was a candidate")
    nearest: list[str] = Field(description="The nearest paths by name (not_in_ledger only)")
    not_shown: list[str] = Field(
        default=[],
        description="Fields left null because the ceiling withholds the document's frontmatter "
        "(withheld only): their values are not shown, not absent",
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def _normalise(path: object) -> str:
    if not isinstance(path, str) or not path.strip():
        raise InvalidArgumentError(
            "invalid path: give a ledger path as a non-empty string, e.g. .ledger/decisions/0007-use-jwt.md"
        )
    if _SURROGATE.search(path) is not None:
        raise InvalidArgumentError(
            "invalid path: it is not valid UTF-8 text; give a ledger path, "
            "e.g. .ledger/decisions/0007-use-jwt.md"
        )
    if len(path) > MAX_PATH_CHARS or "\x00" in path:
        raise InvalidArgumentError(
            f"invalid path: at most {MAX_PATH_CHARS} characters and no NUL, "
            "e.g. .ledger/decisions/0007-use-jwt.md"
        )
    return canonical_path(path.strip())


def _resolved(wanted: str, known: set[str]) -> str:
    """The path of the ledger ``wanted`` names: as written (a backslash is a name's own
    character on POSIX), with ``\\`` as the separator, as ``check`` writes a name that is
    not clean text, each also below ``.ledger/``; else the separator form."""
    forms = (wanted, wanted.replace("\\", "/"), printable_path(wanted))
    for form in (*forms, *(".ledger/" + f for f in forms)):
        if form in known:
            return form
    return forms[1]


def _answer(
    path: str, document: Document | None, outcome: Where, reason: str, **figures: int | None
) -> PathAnswer:
    return PathAnswer(
        path=shorten(path, PATH_BYTES),
        outcome=outcome,
        reason=reason,
        kind=document.kind if document else None,
        group=GROUP_OF_KIND[document.kind] if document else None,
        status=shorten(document.status, VALUE_BYTES) if document and document.status is not None else None,
        updated_at=document.updated.iso if document and document.updated else None,
        data_class=document.data_class if document else None,
        bytes=figures.get("bytes"),
        kept_bytes=figures.get("kept_bytes"),
        nearest=[],
    )


def _not_selected(build: ContextBuild, document: Document) -> str:
    kind = document.kind
    if kind == "agents":
        return "not selected: agents.md has no text"
    if kind == "experiment":
        pool = sorted(
            (d for d in build.ledger.documents if d.kind == "experiment" and not build.is_withheld(d.path)),
            key=newest_first,
        )
        rank = pool.index(document) + 1
        return (
            f"not selected: experiment {rank} of {len(pool)} by updated_at; "
            f"only the {EXPERIMENTS_IN_PACK} latest are selected"
        )
    status = "none" if document.status is None else repr(shorten(document.status, VALUE_BYTES))
    wanted = statuses_text(KIND[kind], quote="'")
    return (
        f"not selected: its status is {status}; group {GROUP_OF_KIND[kind]} "
        f"({_GROUP_NAME[GROUP_OF_KIND[kind]]}) takes status {wanted}"
    )


def _problem_phrase(problem: Problem) -> str:
    """``error at line 3, column 1: <message>``, the message without its own "; skipped"
    (the answer already says so) and cut to :data:`MESSAGE_BYTES`."""
    where = ""
    if problem.line is not None:
        where = f" at line {problem.line}" + (
            f", column {problem.column}" if problem.column is not None else ""
        )
    message = problem.message.removesuffix("; skipped").replace("; skipped (", " (", 1)
    return f"{problem.severity}{where}: {shorten(message, MESSAGE_BYTES)}"


def _withheld_answer(build: ContextBuild, wanted: str, document: Document) -> PathAnswer:
    """The answer for a source the ceiling withheld: its path and class, and why."""
    declared = document.data_class
    why = (
        f"it declares no data class, read as {build.undeclared_class} (--undeclared-class), which is stricter"
        if declared is None
        else f"its data class {declared} is stricter"
        + (" (an unknown class never passes a ceiling)" if declared == "unknown" else "")
    )
    # A withheld source is as if it did not exist: its path and class only, never
    # its status or updated_at (frontmatter text the ceiling forbids).
    answer = _answer(
        wanted,
        document._replace(status=None, updated=None),
        "withheld",
        f"withheld by the ceiling {build.ceiling}: {why}",
    )
    answer.not_shown = list(WITHHELD_FIELDS)
    return answer


def explain_path(build: ContextBuild, path: object) -> PathAnswer:
    """Where the document at ``path`` (relative to the space) went in ``build``'s pack.

    Raises :class:`~ledger_context.model.errors.InvalidArgumentError` for a ``path`` that is
    not a non-empty string of at most :data:`MAX_PATH_CHARS` characters without NUL.
    """
    problems = build.ledger.problems
    known = {d.path for d in build.ledger.documents} | {p.path for p in problems}
    wanted = _resolved(_normalise(path), known)

    for outcome in build.budgeted.blocks:
        if outcome.block.document.path == wanted:
            return _answer(
                wanted,
                outcome.block.document,
                outcome.outcome,
                outcome.reason
                if outcome.reason.startswith(outcome.outcome)
                else f"{outcome.outcome}: {outcome.reason}",
                bytes=outcome.bytes,
                kept_bytes=outcome.kept_bytes,
            )

    document = build.document(wanted)
    if document is not None:
        if build.is_withheld(wanted):
            return _withheld_answer(build, wanted, document)
        return _answer(wanted, document, "not_selected", _not_selected(build, document))

    own = [p for p in problems if p.path == wanted]
    if own:
        shown = "; ".join(_problem_phrase(p) for p in own[:PROBLEMS_SHOWN])
        more = (
            f"; {len(own) - PROBLEMS_SHOWN} more (ledger-context check)" if len(own) > PROBLEMS_SHOWN else ""
        )
        return _answer(wanted, None, "skipped", f"skipped: {shown}{more}")

    nearest = difflib.get_close_matches(wanted, sorted(known), n=NEAREST, cutoff=0.4)
    answer = _answer(
        wanted,
        None,
        "not_in_ledger",
        "not in the ledger: no document or problem at this path"
        + ("; nearest by name below" if nearest else ""),
    )
    answer.nearest = [shorten(p, PATH_BYTES) for p in nearest]
    return answer

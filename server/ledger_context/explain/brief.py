"""The brief explanation: the full one aggregated so its size does not grow with the ledger.

Spec §8 and issue 15. :func:`brief_of` reads a full
:class:`~ledger_context.explain.full.Explanation` and keeps its rule, pack totals, group lines
and per-kind counts as they are; the blocks not kept, the problems and the named
sources become counts, byte sums and a few paths. Every list here has a fixed maximum
length and every path is cut to at most :data:`WHOLE_PATH_BYTES` bytes (to
:data:`PATH_BYTES` or less only when the bound needs it), so the brief stays within
:data:`MAX_STRUCTURED_BYTES` as compact JSON (and its text within
:data:`~ledger_context.explain.readout.MAX_BRIEF_TEXT_BYTES`) for any ledger whose counts stay
below :data:`MAX_COUNT` and byte sums below :data:`MAX_BYTES`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, Field

from ..model.classify import RANK
from ..model.problems import SEVERITIES
from ..pack.measure import CapAdvice, Measured, percent
from .breakdown import Explanation, GroupLine, KindCount, PackTotals, Rule
from .shorten import shorten

MAX_STRUCTURED_BYTES = 5120
"""The brief's structured output, as compact JSON, is at most this many UTF-8 bytes: 4 KB
for the rule's figures, and room for the measured tokens and their advice (spec §9)."""

WHOLE_PATH_BYTES = 255
"""Paths up to this many UTF-8 bytes are shown whole when the brief has room (issue 23):
a path shown whole can be copied into ``explain --path``."""

PATH_BYTES = 48
"""The path bound the size proof holds for at any count: paths are never cut below it
unless the first of :data:`BOUND_STEPS` does not fit (a ledger near a million documents)."""

SPACE_BYTES = 160
"""The space's path is cut to at most this many UTF-8 bytes."""

BOUND_STEPS: tuple[tuple[int, int], ...] = ((PATH_BYTES, SPACE_BYTES), (32, 96), (16, 48), (8, 24), (4, 8))
"""(path bound, space bound) pairs tried in turn until the brief fits: only a ledger far
larger than any real one needs less than the first."""

NAMED = 3
"""How many problem paths and stricter sources the brief names before "N more"."""

MAX_COUNT = 10**6 - 1
"""Counts (documents, blocks, problems) the size bound is proven for: under a million,
ten times the largest ledger the benchmark reads."""

MAX_BYTES = 10**11 - 1
"""Byte sums the size bound is proven for: under 100 GB of candidate blocks."""

MORE = 'More: detail "full" lists every block, source and problem; path "<path>" explains one document.'


class NotKept(BaseModel):
    """The blocks of one group that are not wholly in the pack (dropped or truncated)."""

    group: int
    blocks: int = Field(description="Blocks dropped or truncated in this group")
    bytes: int = Field(description="Their bytes not in the pack: the group's bytes minus its kept bytes")
    first: str = Field(description="The first of them in drop order (the last in pack order)")
    last: str = Field(description="The last of them in drop order (the first in pack order)")


class ProblemSummary(BaseModel):
    """The problems found, as counts by severity and the first few paths."""

    counts: dict[str, int] = Field(description="Problems per severity: error, warning, info")
    first: list[str] = Field(description=f"Paths of the first {NAMED} problems, in report order")
    more: int = Field(description="Problems not named in `first`")


class NamedSource(BaseModel):
    """A source named in the brief: its path (cut) and its declared class."""

    path: str
    data_class: str | None


AUDIT_BYTES = 96
"""The audit log's state is cut to this many bytes in the brief (a failure names a path)."""

NOTE_BYTES = 64
"""Why a tokenizer measured nothing is cut to this many bytes in the brief."""


class MeasuredLine(BaseModel):
    """One tokenizer's count of the pack, beside the rule (spec §9): the brief's form of
    :class:`~ledger_context.pack.measure.Measured`, its model family left to ``full``."""

    tokenizer: str
    library: str = Field(description="The package and version that counted")
    exact: bool = Field(description="True: exact for its model family; false: an estimate")
    tokens: int | None = Field(description="null: not measured (see note)")
    drift: float | None = Field(description="(rule tokens - tokens) / tokens, 4 places")
    note: str | None

    def text(self) -> str:
        if self.tokens is None or self.drift is None:
            return f"{self.tokenizer}: not measured ({self.note})"
        kind = "exact" if self.exact else "estimate"
        return f"{self.tokenizer} {self.tokens} tokens, drift {percent(self.drift)} [{self.library}, {kind}]"


class BriefClassification(BaseModel):
    """The data classes of the pack's sources, as counts, and what the ceiling withheld."""

    effective_class: str | None = Field(description="Strictest class over the sources, null if none declared")
    ceiling: str | None = Field(description="The --max-data-class ceiling, null if unset")
    sources: int = Field(description="Sources with at least one byte in the pack")
    by_class: dict[str, int] = Field(description="Sources per declared class ('none': undeclared)")
    stricter: list[NamedSource] = Field(
        description=f"Up to {NAMED} sources stricter than 'internal', strictest first"
    )
    stricter_more: int = Field(description="Sources stricter than 'internal' not named in `stricter`")
    withheld_count: int
    withheld_by_kind: dict[str, int]
    undeclared_class: str | None = Field(
        default=None, description="The --undeclared-class undeclared sources are read as; null: they pass"
    )


class Brief(BaseModel):
    """The brief explanation of one pack (spec §8): bounded, and its group lines close."""

    space: str = Field(description=f"The space, cut to {SPACE_BYTES} bytes")
    detail: Literal["brief"] = "brief"
    rule: Rule
    pack: PackTotals
    groups: list[GroupLine]
    kinds: list[KindCount]
    not_kept: list[NotKept] = Field(description="Per group with blocks not kept; paths in drop order")
    problems: ProblemSummary
    classification: BriefClassification
    audit: str | None = Field(
        description=f"The server's audit log: 'ok', 'off' or 'failing: <reason>' (cut to {AUDIT_BYTES} "
        "bytes); null outside serve"
    )
    measured: list[MeasuredLine] = Field(
        default_factory=list, description="Real tokenizers' counts of the pack, beside the rule"
    )
    advice: list[CapAdvice] = Field(
        default_factory=list,
        description="Per tokenizer counting the pack over the cap: the largest cap that fits",
    )
    more: str = Field(description="How to ask for more")


def brief_of(full: Explanation, path_bytes: int = PATH_BYTES, space_bytes: int = SPACE_BYTES) -> Brief:
    """The brief of ``full`` (an explanation with ``detail="full"``), its paths cut to
    ``path_bytes`` bytes and the space to ``space_bytes``."""
    not_kept: list[NotKept] = []
    for group in full.groups:
        # Drop order is the reverse of pack order: the budget removes the last block first.
        lost = [b for b in reversed(full.blocks) if b.group == group.group and b.outcome != "kept"]
        if lost:
            not_kept.append(
                NotKept(
                    group=group.group,
                    blocks=len(lost),
                    bytes=sum(b.bytes - b.kept_bytes for b in lost),
                    first=shorten(lost[0].path, path_bytes),
                    last=shorten(lost[-1].path, path_bytes),
                )
            )

    c = full.classification
    by_class = Counter(s.data_class or "none" for s in c.sources)
    stricter = sorted(
        (s for s in c.sources if s.data_class is not None and RANK[s.data_class] > RANK["internal"]),
        key=lambda s: -RANK[s.data_class or "public"],  # stable: pack order among equals
    )
    classification = BriefClassification(
        effective_class=c.effective_class,
        ceiling=c.ceiling,
        sources=len(c.sources),
        by_class=dict(sorted(by_class.items())),
        stricter=[
            NamedSource(path=shorten(s.path, path_bytes), data_class=s.data_class) for s in stricter[:NAMED]
        ],
        stricter_more=max(len(stricter) - NAMED, 0),
        withheld_count=c.withheld_count,
        withheld_by_kind=c.withheld_by_kind,
        undeclared_class=c.undeclared_class,
    )

    problems = ProblemSummary(
        counts={severity: full.problem_counts.get(severity, 0) for severity in SEVERITIES},
        first=[shorten(p.path, path_bytes) for p in full.problems[:NAMED]],
        more=max(len(full.problems) - NAMED, 0),
    )
    return Brief(
        space=shorten(full.space, space_bytes),
        rule=full.rule,
        pack=full.pack,
        groups=[replace(g, measured_tokens={}) for g in full.groups],
        kinds=full.kinds,
        not_kept=not_kept,
        problems=problems,
        classification=classification,
        audit=shorten(full.audit, AUDIT_BYTES) if full.audit is not None else None,
        measured=[_line(m) for m in full.measured],
        advice=full.advice,
        more=MORE,
    )


def _line(m: Measured) -> MeasuredLine:
    note = shorten(m.note, NOTE_BYTES) if m.note is not None else None
    return MeasuredLine(
        tokenizer=m.tokenizer, library=m.library, exact=m.exact, tokens=m.tokens, drift=m.drift, note=note
    )


def structured_size(brief: Brief) -> int:
    """Bytes of ``brief`` as compact JSON, as a client receives it in structuredContent."""
    return len(brief.model_dump_json().encode("utf-8"))

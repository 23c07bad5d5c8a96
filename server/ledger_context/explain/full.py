"""The breakdown of a pack, as data that closes (spec §8, ADR-151).

:func:`explain` reads a :class:`~ledger_context.pack.build.ContextBuild` — the same object
the pack came from — and measures nothing again. Every line closes: the kept bytes of
the blocks and of the groups sum to the pack's bytes, ``tokens == ceil(bytes / 4)``,
``bytes + bytes_left == cap_bytes`` and ``tokens + tokens_left == cap_tokens``.

An explanation holds no document text: paths, slugs, statuses, ``updated_at`` and data
class names only.

The explanation's value types are :mod:`~ledger_context.explain.breakdown`'s; this module
computes one.
"""

from __future__ import annotations

from collections import Counter

from ..model.document import KINDS
from ..model.problems import SEVERITIES
from ..model.tokens import BYTES_PER_TOKEN
from ..pack.budget import Budgeted
from ..pack.context import ContextBuild
from ..pack.fit import cap_advice
from ..pack.measure import count_with, measure
from ..pack.select import GROUPS
from ..pack.settings import Detail
from ..reader.space import display_path
from .breakdown import (
    BlockLine,
    Classification,
    Explanation,
    GroupLine,
    KindCount,
    Metrics,
    PackTotals,
    ProblemLine,
    Rule,
    SourceLine,
    WithheldLine,
)


def _bytes_read(build: ContextBuild) -> int:
    """The bytes of the ledger's files read; under a ceiling, of the documents it lets
    through only (spec §7: a withheld source is as if it did not exist; its size, and so
    every edit of it, would show here). A skipped file, whose class could not be read, is
    not counted under a ceiling either: it fails closed."""
    if build.ceiling is None:
        return build.ledger.bytes_read
    return sum(d.size for d in build.ledger.documents if not build.is_withheld(d.path))


def _blob_ids(build: ContextBuild) -> dict[str, str | None]:
    return {b.block.document.path: b.block.document.git_blob for b in build.budgeted.blocks}


def _groups(budgeted: Budgeted, measured: dict[int, dict[str, int]]) -> list[GroupLine]:
    """One line per group (spec §4): candidates, outcomes and bytes (and, with
    ``measured``, each group's measured tokens)."""
    groups: list[GroupLine] = []
    for number, name, _ in GROUPS:
        lines = [b for b in budgeted.blocks if b.block.group == number]
        groups.append(
            GroupLine(
                group=number,
                name=name,
                candidates=len(lines),
                kept=sum(1 for b in lines if b.outcome == "kept"),
                truncated=sum(1 for b in lines if b.outcome == "truncated"),
                dropped=sum(1 for b in lines if b.outcome == "dropped"),
                bytes=sum(b.bytes for b in lines),
                kept_bytes=sum(b.kept_bytes for b in lines),
                measured_tokens=measured.get(number, {}),
            )
        )
    return groups


def _kinds(build: ContextBuild, withheld_by_kind: Counter[str]) -> list[KindCount]:
    """Documents per kind: read, skipped, withheld, selected, not selected."""
    ledger, budgeted = build.ledger, build.budgeted
    selected = Counter(b.block.document.kind for b in budgeted.blocks)
    return [
        KindCount(
            kind=kind,
            read=ledger.read[kind],
            skipped=ledger.skipped[kind],
            withheld=withheld_by_kind[kind],
            selected=selected[kind],
            not_selected=ledger.read[kind] - ledger.skipped[kind] - withheld_by_kind[kind] - selected[kind],
        )
        for kind in KINDS
    ]


def _blocks(
    budgeted: Budgeted, full: bool, git_blob: dict[str, str | None], measured: list[dict[str, int]]
) -> list[BlockLine]:
    """Every block with ``full``, else the blocks not kept whole; ``measured`` (empty, or one
    entry per block) gives each block's measured tokens."""
    return [
        BlockLine(
            group=b.block.group,
            kind=b.block.document.kind,
            path=b.block.document.path,
            slug=b.block.document.slug,
            status=b.block.document.status,
            updated_at=b.block.document.updated.iso if b.block.document.updated else None,
            data_class=b.block.document.data_class,
            bytes=b.bytes,
            kept_bytes=b.kept_bytes,
            outcome=b.outcome,
            reason=b.reason,
            sha256=b.block.document.sha256,
            git_blob=git_blob.get(b.block.document.path),
            measured_tokens=measured[index] if measured else {},
        )
        for index, b in enumerate(budgeted.blocks)
        if full or b.outcome != "kept"
    ]


def _classification(
    build: ContextBuild, full: bool, git_blob: dict[str, str | None], withheld_by_kind: Counter[str]
) -> Classification:
    """The sources with their classes, the effective class and what the ceiling withheld (§7)."""
    sources = build.sources()
    sha256 = {d.path: d.sha256 for d in build.ledger.documents}
    return Classification(
        sources=[
            SourceLine(
                path=s.path, data_class=s.data_class, sha256=sha256[s.path], git_blob=git_blob.get(s.path)
            )
            for s in sources
        ],
        effective_class=build.effective_class(),
        ceiling=build.ceiling,
        undeclared_class=build.undeclared_class,
        withheld_count=len(build.selection.withheld),
        withheld_by_kind={kind: withheld_by_kind[kind] for kind in KINDS if withheld_by_kind[kind]},
        withheld=[
            WithheldLine(path=d.path, kind=d.kind, data_class=d.data_class or "")
            for d in build.selection.withheld
        ]
        if full
        else [],
    )


WITHHELD_PROBLEM = "not shown: the document is withheld by the data-class ceiling (run check for it)"
"""What the breakdown says of a withheld document's problem: its path and severity only,
since the message and its line describe frontmatter the ceiling forbids (spec §8)."""


def _problem_lines(build: ContextBuild) -> list[ProblemLine]:
    withheld = {d.path for d in build.selection.withheld}
    return [
        ProblemLine(path=p.path, severity=p.severity, line=None, column=None, message=WITHHELD_PROBLEM)
        if p.path in withheld
        else ProblemLine(path=p.path, severity=p.severity, line=p.line, column=p.column, message=p.message)
        for p in build.ledger.problems
    ]


def _slices(budgeted: Budgeted) -> list[tuple[int, str]]:
    """Each candidate block's group and its bytes in the pack (separator included), in
    pack order: blocks are contiguous, so the pack is their slices end to end."""
    data = budgeted.pack.encode("utf-8")
    slices: list[tuple[int, str]] = []
    offset = 0
    for b in budgeted.blocks:
        slices.append((b.block.group, data[offset : offset + b.kept_bytes].decode("utf-8")))
        offset += b.kept_bytes
    return slices


def _counts(text: str, tokenizers: list[str]) -> dict[str, int]:
    """``text`` counted alone by each of ``tokenizers`` (empty text: 0)."""
    return {name: count_with(name, text) or 0 for name in tokenizers}


def _measured_groups(slices: list[tuple[int, str]], tokenizers: list[str]) -> dict[int, dict[str, int]]:
    """Per group, its bytes in the pack counted alone (groups are contiguous in the pack)."""
    if not slices:
        return {}
    return {
        number: _counts("".join(text for group, text in slices if group == number), tokenizers)
        for number, _, _ in GROUPS
    }


def explain(build: ContextBuild, detail: Detail = "brief", *, wait: bool = True) -> Explanation:
    """The breakdown of ``build``'s pack (spec §8), at ``detail`` ``brief`` or ``full``.

    Measured tokens (§9) are counted beside the rule; with ``wait`` False a tokenizer
    still loading is reported as not measured rather than waited for.
    """
    budgeted = build.budgeted
    full = detail == "full"
    cap_bytes = budgeted.cap_bytes
    origin = build.provenance(refresh=False)  # as the build last learnt it: one answer per call
    git_blob = _blob_ids(build) if origin.in_git else {}
    ledger = build.ledger
    withheld_by_kind = Counter(d.kind for d in build.selection.withheld)
    severity_counts = Counter(p.severity for p in ledger.problems)
    candidates = len(budgeted.blocks)
    bytes_read = _bytes_read(build)
    measured = list(measure(budgeted.pack, budgeted.tokens, sha256=budgeted.sha256, wait=wait))
    counted = [m.tokenizer for m in measured if m.tokens is not None]
    slices = _slices(budgeted) if full and counted else []
    return Explanation(
        space=display_path(ledger.space),
        detail=detail,
        yaml_loader=dict(sorted(Counter(d.yaml_loader for d in ledger.documents if d.yaml_loader).items())),
        rule=Rule(
            bytes_per_token=BYTES_PER_TOKEN,
            tokens_formula="ceil(bytes / 4), taken once over the whole pack",
            cap_tokens=budgeted.cap_tokens,
            cap_bytes=cap_bytes,
        ),
        pack=PackTotals(
            bytes=budgeted.pack_bytes,
            tokens=budgeted.tokens,
            bytes_left=cap_bytes - budgeted.pack_bytes,
            tokens_left=budgeted.cap_tokens - budgeted.tokens,
            truncated=budgeted.truncated,
            truncated_bytes=budgeted.cut_bytes,
            dropped_blocks=budgeted.dropped,
            sha256=budgeted.sha256,
            commit=origin.commit,
            dirty=origin.dirty,
            fingerprint=origin.fingerprint,
        ),
        metrics=Metrics(
            utilisation=budgeted.pack_bytes / cap_bytes,
            dropped_block_rate=budgeted.dropped / candidates if candidates else 0.0,
            bytes_read=bytes_read,
            read_to_pack_ratio=bytes_read / budgeted.pack_bytes if budgeted.pack_bytes else None,
        ),
        groups=_groups(budgeted, _measured_groups(slices, counted)),
        kinds=_kinds(build, withheld_by_kind),
        blocks=_blocks(budgeted, full, git_blob, [_counts(text, counted) for _, text in slices]),
        classification=_classification(build, full, git_blob, withheld_by_kind),
        problem_counts={severity: severity_counts[severity] for severity in SEVERITIES},
        problems=_problem_lines(build) if full else [],
        measured=measured,
        advice=[
            advice
            for m in measured
            if m.tokens is not None
            and m.tokens > budgeted.cap_tokens
            and (
                advice := cap_advice(build.selection.blocks, budgeted.pack, budgeted.cap_tokens, m.tokenizer)
            )
        ],
    )

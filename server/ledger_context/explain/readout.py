"""Plain-text readouts for people: the budget table and the problem list.

The text is a compact summary of an :class:`~ledger_context.explain.full.Explanation`; the
structured data stays the source of truth. No document text appears here either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..model.problems import SEVERITIES, Problem
from ..reader.paths import printable_path, printable_text

if TYPE_CHECKING:  # types only: `check` reads this module and never needs pydantic
    from ..pack.measure import Measured
    from .breakdown import Explanation, PackTotals
    from .brief import Brief, MeasuredLine
    from .path import PathAnswer

MAX_BRIEF_TEXT_BYTES = 3072
"""The brief's text is at most this many UTF-8 bytes (issue 15; see :mod:`.brief`): 2 KB for
the rule's figures, and room for one line of measured tokens with its advice (spec §9)."""


def _row(cells: Iterable[object], widths: list[int]) -> str:
    parts = [f"{cell!s:<{widths[0]}}" if i == 0 else f"{cell!s:>{widths[i]}}" for i, cell in enumerate(cells)]
    return "  ".join(parts).rstrip()


def _counts(counts: Mapping[str, int]) -> str:
    """``2 errors, 1 warning, 0 info``."""
    words = {
        "error": ("error", "errors"),
        "warning": ("warning", "warnings"),
        "info": ("info", "info"),
    }
    return ", ".join(
        f"{counts.get(s, 0)} {words[s][0] if counts.get(s, 0) == 1 else words[s][1]}" for s in SEVERITIES
    )


def _provenance(pack: PackTotals, short: bool = False) -> str:
    """``commit <id> (clean|dirty...); fingerprint <sha256>``: where the pack came from.

    ``short`` (the brief's text) gives the first 12 and 16 hex digits; the structured
    output always carries the whole ids."""
    state = "" if pack.dirty is None else " (dirty: the ledger differs from it)" if pack.dirty else " (clean)"
    commit, fingerprint = pack.commit or "none", pack.fingerprint
    if short:
        state = " (dirty)" if pack.dirty else state
        commit, fingerprint = commit[:12], fingerprint[:16]
    return f"commit {commit}{state}; fingerprint {fingerprint}"


def measured_line(measured: Sequence[Measured | MeasuredLine]) -> str:
    """Real tokenizers' counts on one line (spec §9): each figure with its tokenizer,
    library and version, exact or estimate, and its drift; those not measured, with why."""
    parts = [m.text() for m in measured if m.tokens is not None]
    missing: dict[str, list[str]] = {}
    for m in measured:
        if m.tokens is None:
            missing.setdefault(m.note or "", []).append(m.tokenizer)
    parts += [f"{', '.join(names)}: not measured ({note})" for note, names in missing.items()]
    return "Measured (not the rule): " + ("; ".join(parts) or "no tokenizer")


def budget_text(explanation: Explanation) -> str:
    """The budget table: rule, pack totals, groups, kinds, blocks not kept, classes, problems.

    ``brief`` stays short (about 2 KB on the demo ledger); ``full`` adds every block,
    every source and withheld source, and every problem.
    """
    e = explanation
    full = e.detail == "full"
    lines = _totals_lines(e)
    lines += _table_lines(e)
    lines += _block_lines(e, full)
    lines += _class_lines(e, full)
    lines += _problem_lines(e, full)
    return "\n".join(lines) + "\n"


def _totals_lines(e: Explanation) -> list[str]:
    """The space, the rule, the pack's totals, where it came from, the audit log."""
    pack = e.pack
    lines = [
        f"Context pack of {e.space}",
        f"Rule: 1 token = {e.rule.bytes_per_token} UTF-8 bytes, {e.rule.tokens_formula}; "
        f"cap {e.rule.cap_tokens} tokens = {e.rule.cap_bytes} bytes",
        f"Pack: {pack.bytes} bytes = {pack.tokens} tokens; left {pack.bytes_left} bytes = "
        f"{pack.tokens_left} tokens; utilisation {e.metrics.utilisation:.1%}",
        (
            f"Truncated: yes, {pack.truncated_bytes} bytes cut (groups 1-3 alone exceed the cap)"
            if pack.truncated
            else "Truncated: no"
        )
        + f"; dropped blocks {pack.dropped_blocks} ({e.metrics.dropped_block_rate:.0%} of candidates)",
        f"SHA-256: {pack.sha256}",
        f"From: {_provenance(pack)}",
    ]
    if e.audit is not None:
        lines.append(f"Audit log: {e.audit}")
    if e.measured:
        lines.append(measured_line(e.measured))
    lines += [f"Advice: {advice.text()}" for advice in e.advice]
    lines.append("")
    return lines


def _table_lines(e: Explanation) -> list[str]:
    """The table of groups with its total, then the table of documents per kind."""
    lines: list[str] = []
    widths = [14, 10, 4, 9, 7, 7, 10]
    lines.append(_row(["group", "candidates", "kept", "truncated", "dropped", "bytes", "kept bytes"], widths))
    for g in e.groups:
        lines.append(
            _row(
                [
                    f"{g.group} {g.name}",
                    g.candidates,
                    g.kept,
                    g.truncated,
                    g.dropped,
                    g.bytes,
                    g.kept_bytes,
                ],
                widths,
            )
        )
    lines.append(
        _row(
            [
                "total",
                sum(g.candidates for g in e.groups),
                sum(g.kept for g in e.groups),
                sum(g.truncated for g in e.groups),
                sum(g.dropped for g in e.groups),
                sum(g.bytes for g in e.groups),
                sum(g.kept_bytes for g in e.groups),
            ],
            widths,
        )
    )
    lines.append("")
    kind_widths = [12, 5, 8, 9, 9, 13]
    lines.append(_row(["documents", "read", "skipped", "withheld", "selected", "not selected"], kind_widths))
    for k in e.kinds:
        lines.append(_row([k.kind, k.read, k.skipped, k.withheld, k.selected, k.not_selected], kind_widths))
    lines.append(
        f"Bytes read: {e.metrics.bytes_read}"
        + (f" ({e.metrics.read_to_pack_ratio:.1f}x the pack)" if e.metrics.read_to_pack_ratio else "")
    )

    return lines


def _block_lines(e: Explanation, full: bool) -> list[str]:
    """Every block (``full``), else the blocks not kept whole."""
    lines: list[str] = []
    if e.blocks:
        lines.append("")
        lines.append(
            "Blocks (outcome, kept/bytes, path: reason):"
            if full
            else "Blocks not kept (outcome, kept/bytes, path: reason):"
        )
        for b in e.blocks:
            lines.append(f"  {b.outcome:<9} {b.kept_bytes}/{b.bytes} {b.path}: {b.reason}")
    return lines


def _class_lines(e: Explanation, full: bool) -> list[str]:
    """The data classes of the sources, and what the ceiling withheld (spec §7)."""
    lines: list[str] = []
    c = e.classification
    lines.append("")
    lines.append(
        f"Data class: effective {c.effective_class or 'none'}; ceiling {c.ceiling or 'none'}; "
        + (f"undeclared read as {c.undeclared_class}; " if c.undeclared_class else "")
        + f"{len(c.sources)} sources in the pack"
    )
    if full:
        for s in c.sources:
            lines.append(f"  {s.data_class or 'none':<12} {s.path}")
    else:
        by_class = Counter(s.data_class or "none" for s in c.sources)
        lines.append("  " + ", ".join(f"{name} {count}" for name, count in sorted(by_class.items())))
        for s in c.sources:
            if s.data_class not in (None, "public", "internal"):
                lines.append(f"  {s.data_class:<12} {s.path}")
    if c.withheld_count:
        per_kind = ", ".join(f"{kind} {n}" for kind, n in c.withheld_by_kind.items())
        lines.append(f"Withheld by the ceiling: {c.withheld_count} ({per_kind})")
        for w in c.withheld:
            lines.append(f"  {w.data_class or 'none':<12} {w.path}")
    else:
        lines.append("Withheld by the ceiling: none")
    return lines


def _problem_lines(e: Explanation, full: bool) -> list[str]:
    """The problem counts; every problem with ``full``."""
    lines: list[str] = []
    lines.append("")
    counts = _counts(e.problem_counts)
    lines.append(f"Problems: {counts}" + ("" if full else " (ledger-context check lists them)"))
    for p in e.problems:
        where = p.path + (f":{p.line}" if p.line else "") + (f":{p.column}" if p.line and p.column else "")
        lines.append(f"  {p.severity:<7} {where}: {p.message}")
    return lines


def brief_text(brief: Brief) -> str:
    """The brief as text: the same fields as its structured output, at most
    :data:`MAX_BRIEF_TEXT_BYTES` bytes.

    Group ``g`` holds the documents of one kind, so one row per group carries both the
    per-kind counts (read, skipped, withheld, unselected) and the group line (candidates,
    kept, truncated, dropped, bytes, kept bytes); the withheld count per kind is its column.
    """
    b = brief
    pack = b.pack
    lines = [
        f"Context pack of {b.space} (brief)",
        f"Rule: 1 token = {b.rule.bytes_per_token} UTF-8 bytes, ceil once over the pack; "
        f"cap {b.rule.cap_tokens} tokens = {b.rule.cap_bytes} bytes",
        f"Pack: {pack.bytes} bytes = {pack.tokens} tokens; left {pack.bytes_left} bytes = "
        f"{pack.tokens_left} tokens; "
        + (f"truncated, {pack.truncated_bytes} bytes cut" if pack.truncated else "not truncated")
        + f"; {pack.dropped_blocks} blocks dropped",
        f"SHA-256: {pack.sha256}",
        f"From: {_provenance(pack, short=True)}",
    ]
    head: list[object] = ["group", "read", "skipped", "withheld", "unselected", "candidates", "kept"]
    head += ["truncated", "dropped", "bytes", "kept_bytes"]
    rows: list[list[object]] = [head]
    for g, k in zip(b.groups, b.kinds, strict=True):
        counts = (k.read, k.skipped, k.withheld, k.not_selected, g.candidates, g.kept, g.truncated, g.dropped)
        rows.append([f"{g.group} {g.name}", *counts, g.bytes, g.kept_bytes])
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(head))]
    lines += [
        " ".join(
            f"{c!s:<{w}}" if i == 0 else f"{c!s:>{w}}" for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    if b.not_kept:
        lines.append("Not kept (group: blocks, bytes not in the pack, first .. last in drop order):")
        for n in b.not_kept:
            paths = n.first if n.blocks == 1 else f"{n.first} .. {n.last}"
            lines.append(f"  {n.group}: {n.blocks}, {n.bytes}, {paths}")
    p = b.problems
    lines.append(
        f"Problems: {_counts(p.counts)}"
        + (f"; first {', '.join(p.first)}" if p.first else "")
        + (f"; {p.more} more" if p.more else "")
    )
    c = b.classification
    per_class = ", ".join(f"{name} {n}" for name, n in c.by_class.items())
    lines.append(
        f"Data class: effective {c.effective_class or 'none'}; ceiling {c.ceiling or 'none'}; "
        + (f"undeclared read as {c.undeclared_class}; " if c.undeclared_class else "")
        + f"withheld {c.withheld_count}; {c.sources} sources"
        + (f": {per_class}" if per_class else "")
    )
    if c.stricter:
        named = ", ".join(f"{s.path} {s.data_class}" for s in c.stricter)
        lines.append(
            f"  stricter than internal: {named}" + (f"; {c.stricter_more} more" if c.stricter_more else "")
        )
    if b.audit is not None:
        lines.append(f"Audit log: {b.audit}")
    if b.measured:
        lines.append(measured_line(b.measured))
    lines += [f"Advice: {advice.text()}" for advice in b.advice]
    lines.append(b.more)
    return "\n".join(lines) + "\n"


def brief_readout(full: Explanation) -> tuple[Brief, str]:
    """The brief of ``full`` and its text, within :data:`MAX_BRIEF_TEXT_BYTES` and
    :data:`~ledger_context.explain.brief.MAX_STRUCTURED_BYTES`, with the largest path bound
    that fits (at most :data:`~ledger_context.explain.brief.WHOLE_PATH_BYTES`): a path is cut
    only if it is longer than that bound. Below the first of the proven ``BOUND_STEPS``
    paths and the space are cut shorter only if it does not fit (near a million documents)."""
    from .brief import BOUND_STEPS, MAX_STRUCTURED_BYTES, WHOLE_PATH_BYTES, brief_of, structured_size

    def fitting(path_bytes: int, space_bytes: int) -> tuple[Brief, str] | None:
        brief = brief_of(full, path_bytes, space_bytes)
        text = brief_text(brief)
        fits = (
            len(text.encode("utf-8")) <= MAX_BRIEF_TEXT_BYTES
            and structured_size(brief) <= MAX_STRUCTURED_BYTES
        )
        return (brief, text) if fits else None

    for path_bytes, space_bytes in BOUND_STEPS:
        found = fitting(path_bytes, space_bytes)
        if found is None:
            continue
        # The brief shrinks as the bound does: search the largest bound that fits (8 tries).
        low, high = path_bytes, WHOLE_PATH_BYTES
        while low < high:
            middle = (low + high + 1) // 2
            larger = fitting(middle, space_bytes)
            if larger is None:
                high = middle - 1
            else:
                low, found = middle, larger
        return found
    worst = brief_of(full, *BOUND_STEPS[-1])  # the proof's case: it always fits
    return worst, brief_text(worst)


def path_text(answer: PathAnswer) -> str:
    """The answer for one document: the same fields as its structured output."""
    a = answer
    lines = [printable_path(a.path), a.reason]
    if a.not_shown:  # null there means "not shown", never "none"
        lines.append(
            f"kind {a.kind}; group {a.group}; data class {a.data_class or 'none'}; "
            f"{' and '.join(a.not_shown)} not shown: the ceiling withholds this document's frontmatter"
        )
    elif a.kind is not None:
        lines.append(
            f"kind {a.kind}; group {a.group}; status {printable_text(a.status or 'none')}; "
            f"updated_at {a.updated_at or 'none'}; data class {a.data_class or 'none'}"
        )
    if a.bytes is not None:
        lines.append(f"bytes {a.bytes}; kept bytes {a.kept_bytes}")
    lines += [f"  nearest: {printable_path(p)}" for p in a.nearest]
    return "\n".join(lines) + "\n"


SUMMARY_AFTER = 20
"""In the text of ``check``, problems of one kind beyond this many are summarised."""


def problems_text(problems: list[Problem], selected: frozenset[str] = frozenset()) -> str:
    """One line per problem, ``severity path:line:column: message``, and a count line.

    Past the first :data:`SUMMARY_AFTER` problems with one message, the rest are left out
    and one line sums them up, counting those among ``selected`` paths (the documents
    whose status selects them), and repeats the message whole:
    ``3,780 documents, 12 of them selected: undated: ...`` (``N times in M documents`` when
    a document has the problem more than once).
    """
    by_message: Counter[tuple[str, str]] = Counter((p.severity, p.message) for p in problems)
    shown: Counter[tuple[str, str]] = Counter()
    paths: dict[tuple[str, str], set[str]] = {}
    lines = []
    for p in problems:
        kind = (p.severity, p.message)
        shown[kind] += 1
        if by_message[kind] > SUMMARY_AFTER:
            paths.setdefault(kind, set()).add(p.path)
        if shown[kind] <= SUMMARY_AFTER:
            lines.append(f"{p.severity:<7} {p.location()}: {p.message}")
    for (severity, message), total in by_message.items():
        if total <= SUMMARY_AFTER:
            continue
        documents = paths[(severity, message)]
        among = len(documents & selected)
        # A message met more than once in a document (a key given twice, twice) counts
        # its times and its documents apart.
        counted = (
            f"{total:,} documents"
            if total == len(documents)
            else f"{total:,} times in {len(documents):,} document{'' if len(documents) == 1 else 's'}"
        )
        # The message is repeated whole, after the counts: cut or rewritten, it can
        # read as another fault (a message holds ": " of its own).
        lines.append(
            f"{severity:<7} {counted}, {among:,} of them selected: {message} "
            f"({SUMMARY_AFTER} listed above; check --json lists every one)"
        )
    lines.append(_counts(Counter(p.severity for p in problems)))
    return "\n".join(lines) + "\n"

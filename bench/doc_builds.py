"""Documentation-site ledgers (``doc_ledgers.py``): the quick YAML path's hit rate and whole
``pack`` processes beside the naive reader (issue 29).

The hit rate counts, over every document with a frontmatter, those the quick path reads
(``load_frontmatter(...).loader == "quick"``) after the reader's own decoding (BOM and
CRLF removed) and splitting; each of those answers is also checked against libyaml, and
a difference stops the run. The whole-process figures run ``ledger-context pack`` and
``python bench/naive.py`` in turn (``processes.run_in_turn``), after checking that the
printed pack is the in-process build's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from doc_ledgers import DocSpace, generate_doc_space
from machine import log
from processes import NAIVE, PACK, check_printed_pack, command, run_in_turn
from spaces import wait_until
from timing import Timing, fmt_ratio, fmt_time

MIN_HIT_RATE = 0.99
"""Issue 29: the quick path reads at least 99 % of real-shaped frontmatter."""


@dataclass
class DocResult:
    space: DocSpace
    frontmatters: int
    quick: int
    whole: dict[str, Timing]

    @property
    def hit_rate(self) -> float:
        return self.quick / self.frontmatters if self.frontmatters else 1.0


def hit_count(space: Path) -> tuple[int, int]:
    """(frontmatters, read by the quick path) over every ``.md`` under ``space/.ledger``.

    Raises when a quick answer differs from libyaml's: the benchmark must not time a wrong reader.
    """
    from ledger_context.reader.frontmatter import (
        FrontmatterError,
        decode_text,
        load_frontmatter,
        load_with_libyaml,
        split_frontmatter,
    )

    frontmatters = quick = 0
    for path in sorted((space / ".ledger").rglob("*.md")):
        if path.name == "agents.md":
            continue
        text = split_frontmatter(decode_text(path.read_bytes())).frontmatter
        if text is None:
            continue
        frontmatters += 1
        try:
            loaded = load_frontmatter(text)
        except FrontmatterError as exc:  # the generator writes valid YAML: a refusal is a bug
            raise RuntimeError(f"{path}: {exc}") from None
        if loaded.loader == "quick":
            quick += 1
            if loaded.mapping != load_with_libyaml(text)[0]:
                raise RuntimeError(f"the quick path reads {path} otherwise than libyaml")
    return frontmatters, quick


def bench_docs(spaces_dir: Path, documents: int, runs: int) -> DocResult:
    """The hit rate, then ``runs`` whole-process rounds of ``pack`` and the naive reader."""
    log(f"documentation-site ledger, {documents:,} documents")
    space = generate_doc_space(spaces_dir, documents)
    frontmatters, quick = hit_count(space.path)
    log(f"  quick path: {quick:,} of {frontmatters:,} frontmatters")
    wait_until(space.ready_at)
    check_printed_pack(space.path)
    log(f"  whole-process pack and naive reader ({runs} each, in turn)")
    commands = {name: command(name, space.path) for name in (PACK, NAIVE)}
    whole = run_in_turn(commands, runs, warmup=documents < 10_000)
    return DocResult(space, frontmatters, quick, whole)


def doc_lines(results: list[DocResult]) -> list[str]:
    """The report's section: per ledger the hit rate and ``pack`` beside the naive reader."""
    lines = [
        "## Documentation-site ledgers (issue 29)",
        "",
        "Frontmatter of 10–20 keys with dotted and spaced names, US dates, CRLF and BOMs "
        "(`bench/doc_ledgers.py`). Hit rate: frontmatters the quick YAML path reads (each checked "
        "against libyaml). `pack` / naive: whole processes in turn, medians.",
        "",
        "| ledger | CRLF / BOM files | quick path | target | `pack` | naive | pack / naive | target |",
        "|:--|--:|--:|:--|--:|--:|--:|:--|",
    ]
    for r in results:
        pack, naive = r.whole[PACK].median, r.whole[NAIVE].median
        rate_verdict = "PASS" if r.hit_rate >= MIN_HIT_RATE else "MISS"
        speed_verdict = "PASS" if pack <= naive else "MISS"
        lines.append(
            f"| {r.space.documents:,} documents | {r.space.crlf:,} / {r.space.bom:,} "
            f"| {r.quick:,} of {r.frontmatters:,} ({r.hit_rate:.1%}) | ≥ {MIN_HIT_RATE:.0%} {rate_verdict} "
            f"| {fmt_time(pack)} | {fmt_time(naive)} | {fmt_ratio(pack / naive)} | ≤ 1× {speed_verdict} |"
        )
    return lines

"""Smoke test of the benchmark (bench/): its generators write what they promise, and one
measurement of a tiny long-body ledger runs end to end and feeds the targets and the report."""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

import pytest
import yaml

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))  # the benchmark's modules import each other by name, as bench/run.py does

import ledgers  # noqa: E402
import long_ledgers  # noqa: E402
from builds import ShortRun  # noqa: E402
from catalogue import catalogue_lines  # noqa: E402
from long_builds import LongReps, bench_long  # noqa: E402
from report import report  # noqa: E402
from targets import long_targets  # noqa: E402


def _digest(root: Path) -> str:
    """SHA-256 over every generated file's path and bytes, the marker left out."""
    h = hashlib.sha256()
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name != "bench-space.json":
                path = Path(dirpath, name)
                h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _documents(space: Path) -> list[tuple[str, list[str], str]]:
    """(kind folder, frontmatter lines, body) of every finding, decision and experiment."""
    found = []
    for folder in ("findings", "decisions", "experiments"):
        for path in sorted((space / ".ledger" / folder).rglob("*.md")):
            text = path.read_text(encoding="utf-8")
            assert text.startswith("---\n")
            front, body = text[4:].split("\n---\n", 1)
            found.append((folder, front.split("\n"), body.removeprefix("\n")))
    return found


def test_short_body_generator_writes_the_same_bytes_as_before(tmp_path: Path) -> None:
    # Digest of generator v2 at 40 experiments, taken from the single-file bench/run.py
    # before the split: the short-body ledgers (and so their figures) did not change.
    space = ledgers.generate_space(tmp_path, 40)
    assert space.files == 57
    assert _digest(space.path) == "ab7377a17a4b57a27f55d6b1dc25b779fdc578407a2c2d796607099254467148"


@pytest.mark.parametrize(
    ("shape", "documents", "expected"),
    [
        ("findings", 2_500, {"finding": 2_239, "decision": 124, "experiment": 124}),
        ("decisions", 25_000, {"finding": 1_249, "decision": 22_489, "experiment": 1_249}),
        ("experiments", 50_000, {"finding": 2_499, "decision": 2_499, "experiment": 44_989}),
    ],
)
def test_shapes_are_ninety_percent_one_kind(shape: str, documents: int, expected: dict[str, int]) -> None:
    counts = long_ledgers.kind_counts(shape, documents)
    assert counts == expected
    assert sum(counts.values()) + long_ledgers.FIXED_DOCUMENTS == documents


def test_unknown_shape_names_the_shapes() -> None:
    with pytest.raises(ValueError, match="findings, decisions, experiments"):
        long_ledgers.kind_counts("finding", 100)


def test_long_body_documents_have_the_promised_shape(tmp_path: Path) -> None:
    space = long_ledgers.generate_long_space(tmp_path, "experiments", 120)
    assert space.files == 120
    assert sum(1 for _ in (space.path / ".ledger").rglob("*.md")) == 120
    docs = _documents(space.path)
    assert [folder for folder, _, _ in docs].count("experiments") == space.kinds["experiment"] == 97
    assert len(docs) == 107
    levels: set[int] = set()
    for _, front, body in docs:
        assert 2_000 <= len(body.encode("utf-8")) <= 30_000
        assert 10 <= len(front) <= 40
        data = yaml.load("\n".join(front), Loader=yaml.SafeLoader)
        assert isinstance(data, dict)
        assert any(isinstance(value, dict) for value in data.values())  # nested values
        fenced = False
        for line in body.split("\n"):
            if line.startswith(("```", "~~~")):
                fenced = not fenced
            elif not fenced and (match := re.match(r"(#{1,6}) ", line)):
                levels.add(len(match.group(1)))
    assert levels == {1, 2, 3, 4, 5, 6}
    bodies = "".join(body for _, _, body in docs)
    assert re.search(r"^```\w+\n(?:.*\n)*?# ", bodies, re.MULTILINE)  # `#` lines inside fenced code
    assert re.search(r"^\|.*\|$", bodies, re.MULTILINE)  # tables
    assert max(len(line) for line in bodies.split("\n")) >= 1_000  # long lines
    assert not bodies.isascii()
    titled = sum(1 for _, front, _ in docs if front[0].startswith("title: "))
    assert 0.7 * len(docs) <= titled < len(docs)  # most give a title, some leave it to the H1


def test_long_body_titles_name_a_subject_and_bodies_open_with_words_of_their_own(tmp_path: Path) -> None:
    # Known-item search is measured on these ledgers: with a small fixed word list, titles
    # and bodies were near copies and no ranking could tell them apart.
    space = long_ledgers.generate_long_space(tmp_path, "findings", 200)
    docs = _documents(space.path)
    titles = [
        line.removeprefix("title: ")
        for _, front, _ in docs
        for line in front[:1]
        if line.startswith("title: ")
    ]
    assert len(set(titles)) == len(titles) > 150
    words = [set(re.findall(r"\w+", body.lower())) for _, _, body in docs]
    held: dict[str, int] = {}
    for found in words:
        for word in found:
            held[word] = held.get(word, 0) + 1
    own = sum(1 for found in words if sum(1 for word in found if held[word] == 1) >= 3)
    assert own >= 0.95 * len(docs)  # three words no other document holds


def test_long_body_ledgers_are_deterministic_and_reused(tmp_path: Path) -> None:
    first = long_ledgers.generate_long_space(tmp_path / "a", "decisions", 40)
    second = long_ledgers.generate_long_space(tmp_path / "b", "decisions", 40)
    assert _digest(first.path) == _digest(second.path)
    marker = first.path / "bench-space.json"
    written = marker.stat().st_mtime_ns
    again = long_ledgers.generate_long_space(tmp_path / "a", "decisions", 40)
    assert again.bytes == first.bytes
    assert marker.stat().st_mtime_ns == written  # reused, not regenerated
    other = long_ledgers.generate_long_space(tmp_path / "a", "findings", 40)
    assert _digest(other.path) != _digest(first.path)


def test_one_long_body_measurement_feeds_the_targets_and_the_report(tmp_path: Path) -> None:
    space = long_ledgers.generate_long_space(tmp_path, "findings", 40)
    result = bench_long(space, LongReps(builds=1, naive=1, fast=1, processes=1, mcp_calls=0))
    assert result.skipped == 0
    assert result.problems == sum(
        1 for _, front, _ in _documents(space.path) if "updated_at" not in str(front)
    )
    assert 0 < result.pack_bytes <= 24_000
    assert result.stat.median < result.io.median
    assert result.child.peak_kib > 10_000  # an interpreter with the package imported
    names = [t.name for t in long_targets([result])]
    assert names[:4] == [
        "findings-heavy 40: whole-process naive ÷ `pack`",
        "findings-heavy 40: cold build ÷ read-and-decode floor",
        "findings-heavy 40: `check` ÷ `pack`",
        "findings-heavy 40: `explain --full` ÷ `pack`",
    ]
    assert all(t.ratio is not None and t.ratio > 0 for t in long_targets([result])[:4])
    text = report("header", [], ShortRun({}, [], None, {}, 0), [result], 1.0, "0.00")
    assert "| findings | 40 | 25 / 1 / 1 |" in text
    assert "| findings-heavy 40: `check` ÷ `pack` |" in text


def test_every_target_that_missed_in_the_committed_results_has_a_known_cause() -> None:
    # make bench prints, under the targets table, why each MISS misses (issue 14).
    from targets import cause_of

    results = (BENCH / "RESULTS.md").read_text(encoding="utf-8")
    table = results.split("## Targets", 1)[1].split("\n\n", 2)[1]
    missed = [row.split(" | ")[0].lstrip("| ") for row in table.splitlines() if row.endswith("| MISS |")]
    assert missed, "the committed run has misses to explain"
    assert [name for name in missed if cause_of(name).startswith("not known")] == []
    assert "Why the misses miss:" in results


def test_the_catalogue_section_prints_bytes_tokens_and_headroom() -> None:
    from ledger_context.mcp.catalogue import CatalogueSize

    size = CatalogueSize(tools_list=5_001, instructions=400, model_facing=2_001, output_schemas=3_000)
    lines = catalogue_lines({"2026-07-28": (size, 2_345, None)})
    assert lines[0] == "## Catalogue (tools/list + instructions, over stdio)"
    assert lines[-1] == (
        "| 2026-07-28 | 5,401 B (1,351 tokens by the rule, 2,345 measured) | 2,599 B | "
        "2,001 B (501 tokens by the rule, not measured) | 999 B | 3,000 B |"
    )


def test_documentation_site_ledgers_have_the_promised_shapes(tmp_path: Path) -> None:
    import doc_ledgers

    space = doc_ledgers.generate_doc_space(tmp_path, 300)
    assert space.files == 300
    assert doc_ledgers.generate_doc_space(tmp_path, 300).ready_at <= space.ready_at + 1  # reused
    pages = sorted((space.path / ".ledger").glob("*/*/*.md"))
    assert len(pages) == 300 - doc_ledgers.FIXED_DOCUMENTS
    data = [path.read_bytes() for path in pages]
    crlf = [d for d in data if b"\r\n" in d]
    assert len(crlf) == space.crlf and all(b"\n" not in d.replace(b"\r\n", b"") for d in crlf)
    assert sum(d.startswith(b"\xef\xbb\xbf") for d in data) == space.bom > 0
    fronts = [d.decode("utf-8-sig").replace("\r\n", "\n").split("\n---\n", 1)[0][4:] for d in data]
    keys = [[line.split(":", 1)[0] for line in f.split("\n") if line[:1].isalpha()] for f in fronts]
    assert all(11 <= len(k) <= 25 for k in keys)  # 10-20 keys, status, most an updated_at, a few more
    flat = {key for k in keys for key in k}
    assert {"ms.date", "Module Name", "external help file", "discussions-to", "i18nReady"} <= flat
    assert any(re.search(r"^updated_at: \d\d/\d\d/\d{4}$", f, re.M) for f in fronts)
    assert all(len(d) >= 2_000 for d in data)


def test_the_quick_path_reads_documentation_site_frontmatter_as_libyaml_does(tmp_path: Path) -> None:
    # The differential test on the benchmark's own real-shaped pages, after the reader's
    # decoding (BOM and CRLF) and splitting: every quick answer is libyaml's, and the quick
    # path answers for at least 99 % of them (issue 29).
    import doc_builds
    import doc_ledgers
    from ledger_context.reader.frontmatter import decode_text, load_with_libyaml, split_frontmatter
    from ledger_context.reader.quick_yaml import quick_load

    space = doc_ledgers.generate_doc_space(tmp_path, 1_000)
    answered = 0
    for path in sorted((space.path / ".ledger").glob("*/*/*.md")):
        text = split_frontmatter(decode_text(path.read_bytes())).frontmatter
        assert text is not None, path
        quick = quick_load(text)
        if quick is not None:
            answered += 1
            mapping, duplicates = load_with_libyaml(text)
            assert quick == (mapping, [(d.line, d.column) for d in duplicates]), path
    assert answered >= 0.99 * (1_000 - doc_ledgers.FIXED_DOCUMENTS)
    frontmatters, quick_count = doc_builds.hit_count(space.path)
    assert quick_count / frontmatters >= doc_builds.MIN_HIT_RATE


def test_the_documentation_and_start_up_sections_print_their_ratios(tmp_path: Path) -> None:
    import doc_builds
    import startup
    from processes import IMPORT_YAML, NAIVE, PACK, PASS
    from timing import Timing

    space = doc_ledgers_space = __import__("doc_ledgers").generate_doc_space(tmp_path, 20)
    result = doc_builds.DocResult(space, 200, 199, {PACK: Timing([0.5]), NAIVE: Timing([1.0])})
    assert doc_builds.doc_lines([result])[-1] == (
        f"| 20 documents | {doc_ledgers_space.crlf} / {doc_ledgers_space.bom} | 199 of 200 (99.5%) "
        "| ≥ 99% PASS | 500 ms | 1.00 s | 0.50× | ≤ 1× PASS |"
    )
    times = {
        PASS: Timing([0.010]),
        IMPORT_YAML: Timing([0.040]),
        startup.STDLIB: Timing([0.050]),
        "pack, empty ledger": Timing([0.070]),
        "naive, empty ledger": Timing([0.060]),
        "pack, 100 documents": Timing([0.090]),
        "naive, 100 documents": Timing([0.100]),
    }
    lines = startup.startup_lines(startup.StartupResult(times, 1))
    assert lines[-2:] == [
        "- `pack` on an empty ledger / `import yaml`: 1.75× (target ≤ 1.5×: MISS); the standard modules "
        "alone: 1.25×.",
        "- `pack` / naive on 100 documents: 0.90× (target ≤ 1×: PASS).",
    ]
    assert "| `pack, empty ledger` | 70 ms | 70 ms–70 ms | 60 ms | 1.75× |" in lines


def test_the_search_section_prints_every_column_and_the_goals(tmp_path: Path) -> None:
    from search import HEADER, search_lines

    lines = search_lines((40,), real=False, spaces_dir=tmp_path)
    row = next(line for line in lines if line.startswith("| search-40 |"))
    assert HEADER in lines and row.count("|") == HEADER.count("|")
    assert re.search(
        r"\| 40 \| \d+\.\d% \| \d+\.\d% \| \d+\.\d% \| \d+\.\d% \| [\d.]+ ms \| [\d.]+ ms \| [\d.]+ ms \|",
        row,
    )
    assert lines[-1].startswith("Known-item (at least 90 %) and latency goals: search-40: title ")


def test_generated_search_titles_name_a_subject_the_body_mentions(tmp_path: Path) -> None:
    from search import _write

    _write(tmp_path, 30)
    texts = [path.read_text(encoding="utf-8") for path in sorted(tmp_path.rglob("*.md"))]
    assert len(texts) == 30
    mentioned = 0
    for text in texts:
        title = text.split("title: ", 1)[1].split("\n", 1)[0].lower().split()
        body = text.rsplit("\n\n", 1)[1].split()
        assert 4 <= len(title) <= 7
        mentioned += sum(word in body for word in title) >= len(title) // 2
    assert mentioned >= 20  # most words of most titles are in their bodies


def test_the_walk_floor_finds_every_document_and_the_index_report_shows_both_floors(tmp_path: Path) -> None:
    import index as index_bench
    from floors import list_documents, walk_floor
    from ledger_context.reader.walk import walk_ledger

    space = long_ledgers.generate_long_space(tmp_path, "findings", 40).path
    assert walk_floor(space) == len(list_documents(space)) == len(walk_ledger(space).files) == 40
    names = ("pack, warm index", "pack, first run", "pack --no-index", "naive reader", "python -c pass")
    whole = dict.fromkeys((*names, "search, warm postings", "search --no-index"), 1.0)
    row = {"name": "exp10000", "documents": 10_000, "floor": 0.03, "walk floor": 0.045, "warm": 0.069,
           "warm ÷ floor": 2.3, "warm ÷ walk floor": 1.5,
           "first": 1.1, "today": 1.0, "size": 4_700_000, "whole": whole}  # fmt: skip
    text = index_bench.report([row], None)
    assert "| exp10000 | 10,000 | 30 ms | 45 ms | 69 ms | 2.3× MISS | 1.5× |" in text


def test_measurements_in_turn_alternate_and_their_ratio_is_taken_turn_by_turn() -> None:
    from timing import Timing, measure_in_turn, ratio_in_turn

    calls: list[str] = []
    turns = measure_in_turn({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3)
    assert calls == ["a", "b"] * 3 and [t.reps for t in turns.values()] == [3, 3]
    # Turn by turn: 2, 2, 20 -> 2; the ratio of the medians would be 4 / 1 = 4.
    assert ratio_in_turn(Timing([2.0, 4.0, 40.0]), Timing([1.0, 2.0, 2.0])) == 2.0

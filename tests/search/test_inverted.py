"""The index: per-document postings, statistics over the documents given, BM25F, updates."""

from __future__ import annotations

import heapq
import itertools
import math
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import doc, write_ledger
from ledger_context.model.document import Document
from ledger_context.pack.build import build_context
from ledger_context.pack.context import ContextBuild
from ledger_context.pack.served import served_document
from ledger_context.search.inverted import K1, SCALE, WEIGHTS, B, SearchIndex, postings_of
from ledger_context.search.result import _order


def _documents(tmp_path: Path):
    space = write_ledger(
        tmp_path,
        {
            "decisions/a.md": doc(title="Use JWT", status="accepted") + "jwt jwt rotation\n",
            "findings/b.md": doc(title="Latency", status="current") + "jwt once\n",
            "findings/c.md": doc(title="Other", status="draft") + "nothing here\n",
        },
    )
    return _with_bodies(build_context(space))


def _with_bodies(build: ContextBuild) -> list[Document]:
    """The build's documents parsed again with their bodies (a build keeps none)."""
    return [served_document(build, document.path) for document in build.ledger.documents]


def test_postings_count_each_term_per_field(tmp_path: Path) -> None:
    a = next(d for d in _documents(tmp_path) if d.path.endswith("a.md"))
    postings = postings_of(a)
    assert postings.counts["jwt"] == (1, 1, 2)  # title, the frontmatter's title line, body
    # "use jwt"; "title: Use JWT / status: accepted"; "Body text. / jwt jwt rotation"
    assert postings.lengths == (2, 5, 5)


def test_a_score_is_bm25f_worked_out_by_hand(tmp_path: Path) -> None:
    documents = _documents(tmp_path)
    index = SearchIndex()
    index.sync(documents, None)
    b = next(d for d in documents if d.path.endswith("b.md"))
    lengths = [postings_of(d).lengths for d in documents]
    averages = [sum(length[i] for length in lengths) / 3 for i in range(3)]
    counts = postings_of(b).counts["jwt"]
    own = postings_of(b).lengths
    tf = sum(WEIGHTS[i] * counts[i] / (1 - B + B * own[i] / averages[i]) for i in range(3) if counts[i])
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert index.scores(["jwt"])[b.path] == round(idf * tf / (K1 + tf) * SCALE)
    assert set(index.scores(["jwt"])) == {d.path for d in documents if "jwt" in postings_of(d).counts}


def test_an_updated_index_equals_one_built_from_scratch(tmp_path: Path) -> None:
    documents = _documents(tmp_path)
    changed = documents[0]._replace(sha256="0" * 64, body="rotation only", title="Renamed")
    index = SearchIndex()
    index.sync(documents, None)
    index.sync((changed, *documents[1:]), None)
    index.sync((changed, *documents[1:2]), None)
    fresh = SearchIndex()
    fresh.sync((documents[1], changed), None)
    for query in (["jwt"], ["rotation"], ["renamed", "latency"], ["other"]):
        assert index.scores(query) == fresh.scores(query)
    assert set(index.documents) == {changed.path, documents[1].path}


WORDS = ("jwt", "cache", "router", "queue", "latency", "shard", "replica", "retry")


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    bodies=st.lists(st.lists(st.sampled_from(WORDS), max_size=12), min_size=1, max_size=40),
    copies=st.integers(1, 4),
    queries=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), min_size=1, max_size=6),
    limit=st.integers(1, 12),
)
def test_the_threshold_algorithm_keeps_the_rules_first_hits(
    bodies: list[list[str]], copies: int, queries: list[list[str]], limit: int
) -> None:
    """best() finds the first ``limit`` of the full rule (scores, then newest, then
    path), and counts the same matches, whatever the kind, by the threshold algorithm
    or by adding up the lists; copies of a document make equal scores, which the stop
    rule must not separate."""
    kinds = ("findings", "decisions", "experiments")
    files = {}
    for number, body in enumerate(bodies):
        for copy in range(copies):
            folder = kinds[(number + copy) % 3]
            fields = {"title": " ".join(body[:2]) or "none", "status": "current"}
            if number % 2:
                fields["updated_at"] = f"2026-01-{1 + number % 28:02d}"
            files[f"{folder}/d{number}-{copy}.md"] = doc(**fields) + " ".join(body) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        documents = _with_bodies(build_context(write_ledger(Path(tmp), files)))
    index = SearchIndex()
    index.sync(documents, None)
    by_path = {d.path: d for d in documents}
    for words, share in itertools.product(queries, (0.0, 0.1, math.inf)):
        index.full_scoring_share = share  # always add up, the default, never add up
        full = index.scores(words)
        for kind in (None, "finding", "decision", "experiment"):
            matching = [p for p in full if kind is None or by_path[p].kind == kind]
            expected = sorted(matching, key=lambda p: _order(full[p], by_path[p]))[:limit]
            met, count = index.best(words, limit, kind)
            assert count == len(matching)
            assert all(met[p] == full[p] for p in met)
            assert heapq.nsmallest(limit, met, key=lambda p: _order(met[p], by_path[p])) == expected

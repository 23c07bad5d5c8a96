"""Postings kept by term (kept.py): a search index started from them scores every query as
one built from the documents' text, before and after documents change, are copied, leave
or join; a warm search decodes only the terms it asks for; postings of another shape are
refused on load, or when their term is decoded."""

from __future__ import annotations

import heapq
import marshal
import random
import tempfile
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import doc, examples, write_ledger
from ledger_context.model.document import Document
from ledger_context.pack.build import build_context
from ledger_context.pack.served import served_document
from ledger_context.search.inverted import SearchIndex, postings_key
from ledger_context.search.kept import KeptPostings, NotPostings, from_data

WORDS = ("jwt", "cache", "router", "queue", "latency", "shard", "replica", "retry", "zeta")
QUERIES = (["jwt"], ["router", "latency"], ["zeta"], ["cache", "queue", "shard"], ["absent"])


def _documents(bodies: list[list[str]]) -> list[Document]:
    """One finding per body, parsed with its body (a build keeps none)."""
    files = {
        f"findings/d{n}.md": doc(title=" ".join(body[:2]) or "none", status="current") + " ".join(body) + "\n"
        for n, body in enumerate(bodies)
    }
    with tempfile.TemporaryDirectory() as tmp:
        build = build_context(write_ledger(Path(tmp), files))
        return [served_document(build, d.path) for d in build.ledger.documents]


def _from_text(documents: list[Document]) -> SearchIndex:
    index = SearchIndex()
    index.sync(tuple(documents), None)
    return index


def _round_trip(kept: KeptPostings) -> KeptPostings:
    """``kept`` as a later process reads it: through marshal, as the file holds it."""
    return from_data(marshal.loads(marshal.dumps(kept.data())))


def _unread(documents: list[Document]) -> tuple[Document, ...]:
    """The documents as a build from the ledger index gives them: no body."""
    return tuple(d._replace(body=None) for d in documents)


def _first(index: SearchIndex, query: list[str], limit: int) -> tuple[list[str], int]:
    """The first ``limit`` hits (score, then path: these documents are undated) and how many match."""
    met, matching = index.best(query, limit)
    return heapq.nsmallest(limit, met, key=lambda path: (-met[path], path)), matching


def _same_scores(index: SearchIndex, expected: SearchIndex) -> None:
    for query in QUERIES:
        assert index.scores(query) == expected.scores(query)
        for limit in (1, 3):
            assert _first(index, query, limit) == _first(expected, query, limit)
        for term in query:
            assert index.holders(term) == expected.holders(term)


@settings(max_examples=examples(25), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    bodies=st.lists(st.lists(st.sampled_from(WORDS), max_size=8), min_size=2, max_size=12),
    seed=st.integers(0, 2**16),
)
def test_an_index_started_from_kept_postings_scores_as_one_from_text(
    bodies: list[list[str]], seed: int
) -> None:
    """Started from the postings an earlier process kept, then brought up to date through
    edits, copies (the same key at two paths), removals and new documents, with queries
    between the steps (a term decoded before a change must hold it after): the same
    holders, scores and first hits as an index built from the documents' text."""
    rng = random.Random(seed)
    documents = _documents(bodies)
    kept = _round_trip(_from_text(documents).kept({postings_key(d) for d in documents}))
    warm = SearchIndex()
    assert warm.sync(_unread(documents), None, None, kept) == 0  # nothing read again
    _same_scores(warm, _from_text(documents))

    edited = _documents([rng.sample(WORDS, 3) for _ in bodies])
    now = list(documents)
    for at in rng.sample(range(len(now)), len(now) // 2):
        now[at] = edited[at]  # edited: another key at the same path
    now = [d for d in now if rng.random() > 0.2]  # some leave
    copy = documents[0]._replace(path=".ledger/findings/zz-copy.md")  # the same key
    now = [*now, copy]
    joined = [*documents, edited[0]._replace(path=".ledger/findings/zz-new.md")]  # only a new one
    for step in (joined, now[: len(now) // 2], now, now[len(now) // 2 :]):
        by_path = {d.path: d for d in step}
        warm.sync(_unread(step), None, lambda d, by_path=by_path: by_path[d.path])
        _same_scores(warm, _from_text(step))


def test_a_warm_search_decodes_only_the_terms_it_asks_for(monkeypatch: pytest.MonkeyPatch) -> None:
    documents = _documents([["jwt", "cache"], ["router", "latency", "jwt"], ["queue"]])
    kept = _round_trip(_from_text(documents).kept({postings_key(d) for d in documents}))
    decoded: list[str] = []
    holders = KeptPostings.holders
    monkeypatch.setattr(
        KeptPostings, "holders", lambda self, term: decoded.append(term) or holders(self, term)
    )
    warm = SearchIndex()
    warm.sync(_unread(documents), None, None, kept)
    assert decoded == []
    warm.best(["router", "jwt"], 2)
    warm.best(["jwt"], 1)
    assert sorted(set(decoded)) == ["jwt", "router"] and decoded.count("jwt") == 1  # then kept


def test_postings_keep_what_a_looser_search_kept_and_each_key_once() -> None:
    """kept(live): the documents searched, and those of the earlier postings still in the
    ledger (under another ceiling), each key once; a key that left the ledger goes."""
    a, b, c = _documents([["jwt"], ["cache"], ["zeta"]])
    earlier = _round_trip(_from_text([a, b, c]).kept({postings_key(d) for d in (a, b, c)}))
    index = SearchIndex()
    index.sync(_unread([a, a._replace(path=".ledger/findings/a2.md")]), None, None, earlier)
    kept = _round_trip(index.kept({postings_key(a), postings_key(b)}))
    assert sorted(kept.keys) == sorted([postings_key(a), postings_key(b)])
    assert [n for n, _ in kept.holders("cache")] == [kept.number_of[postings_key(b)]]
    assert list(kept.holders("zeta")) == [] and "zeta" not in kept.terms


def _kept_data() -> dict[str, Any]:
    documents = _documents([["jwt", "cache"], ["router", "jwt"]])
    return _from_text(documents).kept({postings_key(d) for d in documents}).data()


def _ends(data: dict[str, Any]) -> array[int]:
    return array("I", data["ends"])


@pytest.mark.parametrize(
    "forge",
    [
        lambda d: d.update(ends=_ends(d)[::-1].tobytes()),  # not in order
        lambda d: d.update(ends=_ends(d)[:-1].tobytes()),  # the last term's run missing
        lambda d: d.update(numbers=d["numbers"][:-4]),  # fewer numbers than counts
        lambda d: d.update(numbers=d["numbers"][:-1]),  # not whole items
        lambda d: d.update(lengths=d["lengths"][:-4]),  # not three per document
        lambda d: d.update(keys=[list(key) for key in d["keys"]]),  # not tuples
        lambda d: d.update(terms=list(d["terms"])),
        lambda d: d.update(triples="0"),
        lambda d: d.pop("ends"),
        # Found by a tester, each re-signed: shapes no write makes, each changed results.
        lambda d: d.update(keys=[d["keys"][0], *d["keys"][:-1]]),  # a key twice
        lambda d: d.update(terms=(d["terms"][1], *d["terms"][1:])),  # a term twice
        lambda d: d.update(ends=array("I", [0, *_ends(d)[1:]]).tobytes()),  # a term held by none
        lambda d: d.update(triples=d["triples"][:-12] + bytes(12)),  # a count triple of zeros
    ],
)
def test_postings_of_another_shape_are_refused_on_load(forge) -> None:  # type: ignore[no-untyped-def]
    data = _kept_data()
    assert from_data(data).terms  # as written: taken
    forge(data)
    with pytest.raises((ValueError, KeyError, TypeError)):
        from_data(data)


@pytest.mark.parametrize(
    ("term", "column", "forged"),
    [
        ("router", "counts", lambda run, data: len(data["triples"]) // 12),  # a count past its table
        # Found by a tester: a re-signed run holding one document twice changed its score.
        ("jwt", "numbers", lambda run, data: run[1]),  # both documents hold jwt: one, twice
    ],
)
def test_a_run_of_another_shape_is_refused_when_its_term_is_decoded(term, column, forged) -> None:  # type: ignore[no-untyped-def]
    data = _kept_data()
    at = data["terms"].index(term)
    start = _ends(data)[at - 1] if at else 0
    values = array("I", data[column])
    values[start] = forged(values[start:], data)
    data[column] = values.tobytes()
    kept = from_data(data)
    assert list(kept.holders("cache"))
    with pytest.raises(NotPostings):
        kept.holders(term)


def test_a_document_number_past_its_table_meets_nothing() -> None:
    """Only documents a search counts are looked up by number: one past the table is no
    holder (and raises nothing)."""
    data = _kept_data()
    numbers = array("I", data["numbers"])
    numbers[0] = 10**6
    data["numbers"] = numbers.tobytes()
    documents = _documents([["jwt", "cache"], ["router", "jwt"]])
    warm = SearchIndex()
    warm.sync(_unread(documents), None, None, from_data(data))
    every = {term: warm.holders(term) for term in ("jwt", "cache", "router")}
    assert all(set(held) <= {d.path for d in documents} for held in every.values())

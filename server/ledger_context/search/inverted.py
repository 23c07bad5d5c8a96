"""The search index: each document's postings, the collection's statistics, BM25F scores.

A document's postings (:class:`Postings`) derive from its own title, frontmatter and body
alone, so they are kept by SHA-256 and title and reused while the file does not change
(and could be persisted). The statistics (how many documents, how many hold a term, the
average length of each field) are sums over the documents in scope, integers, so they do
not depend on the order documents were added or removed. Only documents passed in are
counted: the caller leaves out what the ceiling withholds (spec §10).
"""

from __future__ import annotations

import gc
import math
import threading
from collections import Counter
from dataclasses import dataclass

from ..model.document import Document
from .terms import terms

FIELDS = ("title", "frontmatter", "body")
WEIGHTS = (3.0, 1.0, 1.0)
"""BM25F field weights, in :data:`FIELDS` order: a title word counts three body words."""
K1 = 1.2
B = 0.75
"""BM25 saturation and length normalisation, the same ``b`` for every field."""
SCALE = 1_000_000_000
"""Scores are compared as integers, ``round(score * SCALE)``: the last bit of a
platform's floating point never changes an order."""

Counts = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Postings:
    """One document's terms: for each term, its count in title, frontmatter and body;
    and the length (terms) of each field."""

    counts: dict[str, Counts]
    lengths: Counts


def postings_of(document: Document) -> Postings:
    """The postings of ``document``'s title, frontmatter text and body."""
    fields = (document.title, document.frontmatter or "", document.body)
    title, frontmatter, body = (Counter(terms(text)) for text in fields)
    in_title, in_frontmatter, in_body = title.get, frontmatter.get, body.get
    counts = {
        term: (in_title(term, 0), in_frontmatter(term, 0), in_body(term, 0))
        for term in body.keys() | frontmatter.keys() | title.keys()
    }
    return Postings(counts, (title.total(), frontmatter.total(), body.total()))


@dataclass(frozen=True, slots=True)
class _Entry:
    """What the index keeps of one document: which terms to unlink on removal, and the
    field lengths (the counts themselves live in the inverted lists)."""

    key: tuple[str, str]
    terms: tuple[str, ...]
    lengths: Counts


class SearchIndex:
    """An inverted index over a set of documents, brought up to date with :meth:`sync`.

    Safe to share between threads: :meth:`sync` and :meth:`scores` run under one lock
    (held by the caller through :attr:`lock`), so a search sees one set of documents.
    A document whose bytes and title did not change keeps its postings across syncs.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.documents: dict[str, Document] = {}
        self._entries: dict[str, _Entry] = {}
        self._inverted: dict[str, dict[str, Counts]] = {}
        self._shared: dict[Counts, Counts] = {}
        self._totals = [0, 0, 0]
        self._impacts: dict[str, dict[str, float]] = {}
        self._norms: dict[str, tuple[float, float, float]] | None = None
        self._synced: object = None

    def sync(self, documents: tuple[Document, ...], token: object) -> None:
        """Make the index hold exactly ``documents``; ``token`` names that set, so the
        same set twice costs nothing."""
        if token is self._synced and token is not None:
            return
        # Like a build, indexing allocates many small acyclic objects: collecting cycles
        # meanwhile only costs time (half of the indexing).
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._sync(documents)
        finally:
            if collecting:
                gc.enable()
        self._synced = token

    def _sync(self, documents: tuple[Document, ...]) -> None:
        wanted = {document.path: document for document in documents}
        for path in [p for p, e in self._entries.items() if p not in wanted or _key(wanted[p]) != e.key]:
            self._remove(path)
        for path, document in wanted.items():
            if path not in self._entries:
                self._add(document)
            self.documents[path] = document

    def _add(self, document: Document) -> None:
        postings = postings_of(document)
        path = document.path
        inverted, shared = self._inverted, self._shared
        for term, counts in postings.counts.items():
            # The same few count triples recur millions of times: keep one of each.
            counts = shared.setdefault(counts, counts)
            holders = inverted.get(term)
            if holders is None:  # setdefault would build a dict for every term
                inverted[term] = {path: counts}
            else:
                holders[path] = counts
        self._entries[path] = _Entry(_key(document), tuple(postings.counts), postings.lengths)
        for index in range(3):
            self._totals[index] += postings.lengths[index]
        self._changed()

    def _remove(self, path: str) -> None:
        entry = self._entries.pop(path)
        del self.documents[path]
        for term in entry.terms:
            holders = self._inverted[term]
            del holders[path]
            if not holders:
                del self._inverted[term]
        for index in range(3):
            self._totals[index] -= entry.lengths[index]
        self._changed()

    def _changed(self) -> None:
        self._impacts.clear()
        self._norms = None

    def counts(self, term: str, path: str) -> Counts:
        """How often ``term`` occurs in each field of the document at ``path``."""
        return self._inverted.get(term, {}).get(path, (0, 0, 0))

    def scores(self, query_terms: list[str]) -> dict[str, int]:
        """Each matching document's BM25F score as an integer (:data:`SCALE`), summed
        over ``query_terms`` in code-point order."""
        total: dict[str, float] = {}
        for term in sorted(set(query_terms)):
            for path, impact in self._impact(term).items():
                total[path] = total.get(path, 0.0) + impact
        return {path: round(score * SCALE) for path, score in total.items()}

    def _field_norms(self) -> dict[str, tuple[float, float, float]]:
        """``w_f / (1 − b + b · len_f / avg_f)`` per document and field, kept until the
        index changes (a field no document has gets 0: no term can be counted in it)."""
        if self._norms is None:
            n = len(self._entries)
            averages = [total / n if n else 0.0 for total in self._totals]

            def norm(field: int, length: int) -> float:
                if not averages[field]:
                    return 0.0
                return WEIGHTS[field] / (1.0 - B + B * length / averages[field])

            self._norms = {
                path: (norm(0, e.lengths[0]), norm(1, e.lengths[1]), norm(2, e.lengths[2]))
                for path, e in self._entries.items()
            }
        return self._norms

    def _impact(self, term: str) -> dict[str, float]:
        """``idf(term) · tf / (K1 + tf)`` for each document holding ``term``, where ``tf``
        is the weighted, length-normalised count (BM25F); kept until the index changes."""
        cached = self._impacts.get(term)
        if cached is not None:
            return cached
        holders = self._inverted.get(term, {})
        n = len(self._entries)
        idf = math.log(1.0 + (n - len(holders) + 0.5) / (len(holders) + 0.5))
        norms = self._field_norms()
        impacts: dict[str, float] = {}
        for path, (title, frontmatter, body) in holders.items():
            norm = norms[path]
            # Terms of fields with a zero count add exactly 0.0, so the sum is the rule's.
            tf = title * norm[0] + frontmatter * norm[1] + body * norm[2]
            impacts[path] = idf * tf / (K1 + tf)
        if len(self._impacts) >= 4096:  # a bound on memory, whatever the queries
            self._impacts.clear()
        self._impacts[term] = impacts
        return impacts


def _key(document: Document) -> tuple[str, str]:
    """What a document's postings depend on: its bytes (SHA-256) and its title (which can
    come from the file name)."""
    return document.sha256, document.title

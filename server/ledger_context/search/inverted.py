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


class SearchIndex:
    """An inverted index over a set of documents, brought up to date with :meth:`sync`.

    Safe to share between threads: :meth:`sync` and :meth:`scores` run under one lock
    (held by the caller through :attr:`lock`), so a search sees one set of documents.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.documents: dict[str, Document] = {}
        self._postings: dict[str, Postings] = {}
        self._by_content: dict[tuple[str, str], Postings] = {}
        self._inverted: dict[str, dict[str, Counts]] = {}
        self._totals = [0, 0, 0]
        self._impacts: dict[str, dict[str, float]] = {}
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
        for path in [p for p, d in self.documents.items() if _content(wanted.get(p)) != _content(d)]:
            self._remove(path)
        for path, document in wanted.items():
            if path not in self.documents:
                self._add(document)
            self.documents[path] = document
        self._by_content = {_key(d): self._postings[p] for p, d in self.documents.items()}

    def _add(self, document: Document) -> None:
        postings = self._by_content.get(_key(document)) or postings_of(document)
        path = document.path
        self._postings[path] = postings
        inverted = self._inverted
        for term, counts in postings.counts.items():
            holders = inverted.get(term)
            if holders is None:  # setdefault would build a dict for every term
                inverted[term] = {path: counts}
            else:
                holders[path] = counts
        for index in range(3):
            self._totals[index] += postings.lengths[index]
        self._impacts.clear()

    def _remove(self, path: str) -> None:
        postings = self._postings.pop(path)
        del self.documents[path]
        for term in postings.counts:
            holders = self._inverted[term]
            del holders[path]
            if not holders:
                del self._inverted[term]
        for index in range(3):
            self._totals[index] -= postings.lengths[index]
        self._impacts.clear()

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

    def _impact(self, term: str) -> dict[str, float]:
        """``idf(term) · tf / (K1 + tf)`` for each document holding ``term``, where ``tf``
        is the weighted, length-normalised count (BM25F); kept until the index changes."""
        cached = self._impacts.get(term)
        if cached is not None:
            return cached
        holders = self._inverted.get(term, {})
        n = len(self.documents)
        idf = math.log(1.0 + (n - len(holders) + 0.5) / (len(holders) + 0.5))
        averages = [total / n if n else 0.0 for total in self._totals]
        impacts: dict[str, float] = {}
        for path, counts in holders.items():
            lengths = self._postings[path].lengths
            tf = 0.0
            for index in range(3):
                if counts[index]:
                    norm = 1.0 - B + B * lengths[index] / averages[index]
                    tf += WEIGHTS[index] * counts[index] / norm
            impacts[path] = idf * tf / (K1 + tf)
        if len(self._impacts) >= 4096:  # a bound on memory, whatever the queries
            self._impacts.clear()
        self._impacts[term] = impacts
        return impacts


def _key(document: Document) -> tuple[str, str]:
    """What a document's postings depend on: its bytes (SHA-256) and its title (which can
    come from the file name)."""
    return document.sha256, document.title


def _content(document: Document | None) -> tuple[str, str] | None:
    return None if document is None else _key(document)

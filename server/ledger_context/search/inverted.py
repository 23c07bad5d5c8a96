"""The search index: each document's postings, the collection's statistics, BM25F scores.

A document's postings (:class:`Postings`) derive from its own title, frontmatter and body
alone, so they are kept by SHA-256 and title and reused while the file does not change
(and kept between processes: :mod:`~ledger_context.search.stored`). The statistics (how
many documents, how many hold a term, the average length of each field) are sums over the
documents in scope, integers, so they do not depend on the order documents were added or
removed. Only documents passed in are
counted: the caller leaves out what the ceiling withholds (spec §10).

A new process starts from the postings kept by an earlier one (:class:`KeptPostings`): a
document whose key they hold is counted from its kept lengths, and a term's holders are
decoded from them only when a search or a change asks for that term.
"""

from __future__ import annotations

import collections
import heapq
import math
import threading
from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from typing import NamedTuple

from ..model.document import Document
from ..model.values import cycles_uncollected
from .kept import Counts, KeptPostings, Key, make_kept
from .terms import terms

FIELDS = ("title", "frontmatter", "body")
WEIGHTS = (32.0, 1.0, 1.0)
"""BM25F field weights, in :data:`FIELDS` order: a title word counts 32 body words
(docs/decisions.md says why 32)."""
K1 = 1.2
B = 0.75
"""BM25 saturation and length normalisation, the same ``b`` for every field."""
SCALE = 1_000_000_000
"""Scores are compared as integers, ``round(score * SCALE)``: the last bit of a
platform's floating point never changes an order."""

CACHED_POSTINGS = 8_000_000
"""Ranked holders kept across searches (16 bytes each): about 128 MB at most."""

_NO_HOLDERS: dict[str, Counts] = {}
"""The holders of a term no document holds (never written to)."""


@dataclass(frozen=True, slots=True)
class _Ranked:
    """A term's holders (of one kind, or all), highest impact first; their impacts in
    that order; and, for a long list, the same holders as an integer with byte ``i`` 1
    for the ``i``-th document of the index, so the union of long lists is counted
    with ``|`` and ``bit_count``, not by building a set of paths."""

    paths: list[str]
    impacts: array[float]
    flags: int | None


@dataclass(frozen=True, slots=True)
class Postings:
    """One document's terms: for each term, its count in title, frontmatter and body;
    and the length (terms) of each field."""

    counts: dict[str, Counts]
    lengths: Counts


def postings_of(document: Document) -> Postings:
    """The postings of ``document``'s title, frontmatter text and body (a document taken
    from the ledger index holds none: parse it again first, :meth:`SearchIndex.sync`)."""
    if document.body is None:
        raise ValueError(f"{document.path}: no body to index (taken from the ledger index)")
    fields = (document.title, document.frontmatter or "", document.body)
    title, frontmatter, body = (Counter(terms(text)) for text in fields)
    in_title, in_frontmatter, in_body = title.get, frontmatter.get, body.get
    counts = {
        term: (in_title(term, 0), in_frontmatter(term, 0), in_body(term, 0))
        for term in body.keys() | frontmatter.keys() | title.keys()
    }
    return Postings(counts, (title.total(), frontmatter.total(), body.total()))


class _Entry(NamedTuple):
    """What the index keeps of one document: its field lengths, and either which terms to
    unlink on removal (indexed from its text) or its number in the kept postings (a named
    tuple: a warm search makes one per document)."""

    key: Key
    terms: tuple[str, ...]
    lengths: Counts
    number: int | None = None


class SearchIndex:
    """An inverted index over a set of documents, brought up to date with :meth:`sync`.

    Safe to share between threads: :meth:`sync` and :meth:`best` run under one lock
    (held by the caller through :attr:`lock`), so a search sees one set of documents.
    A document whose bytes and title did not change keeps its postings across syncs.
    """

    full_scoring_share = 0.1
    """:meth:`best` adds up every list once it has scored documents worth this share of
    the lists' postings (tests set 0 or infinity to check each way alone)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clear()

    def clear(self) -> None:
        """Forget every document (the lock stays: a search holding it may call this)."""
        self.documents: dict[str, Document] = {}
        self._entries: dict[str, _Entry] = {}
        self._added: dict[str, dict[str, Counts]] = {}
        """Each term's holders among the documents indexed from their text."""
        self._kept: KeptPostings | None = None
        self._kept_paths: dict[int, list[str]] = {}
        """The paths of the documents counted from :attr:`_kept`, by their number there."""
        self._inverted: dict[str, dict[str, Counts]] = {}
        """Every holder of a term, kept and added, for the terms asked for since the kept
        postings were taken (without them, :attr:`_added` is every holder)."""
        self._shared: dict[Counts, Counts] = {}
        self._totals = [0, 0, 0]
        self._ranking: dict[tuple[str, str | None], _Ranked] = {}
        self._cached = 0
        self._numbers: dict[str, int] | None = None
        self._norms: dict[str, tuple[float, float, float]] | None = None
        self._synced: object = None

    def sync(
        self,
        documents: tuple[Document, ...],
        token: object,
        reread: Callable[[Document], Document] | None = None,
        kept: KeptPostings | None = None,
    ) -> int:
        """Make the index hold exactly ``documents``; ``token`` names that set, so the
        same set twice costs nothing. A document to add that holds no body (taken from
        the ledger index) is counted from ``kept`` when it holds its :func:`postings_key`
        (taken only by an index that holds no document yet), else is indexed as ``reread``
        gives it: parsed again from its bytes. Returns how many documents were indexed
        from their text (not from ``kept``)."""
        if token is self._synced and token is not None:
            return 0
        if kept is not None and not self._entries:
            self._kept, self._kept_paths, self._inverted = kept, {}, {}
        with cycles_uncollected():
            indexed = self._sync(documents, reread)
        self._synced = token
        return indexed

    def _sync(self, documents: tuple[Document, ...], reread: Callable[[Document], Document] | None) -> int:
        wanted = {document.path: document for document in documents}
        stale = [p for p, e in self._entries.items() if p not in wanted or postings_key(wanted[p]) != e.key]
        for path in stale:
            self._remove(path)
        number_of = self._kept.number_of if self._kept is not None else {}
        indexed = 0
        taken: list[tuple[str, Key, int]] = []
        for path, document in wanted.items():
            if path not in self._entries:
                key = postings_key(document)
                if document.body is None and (number := number_of.get(key)) is not None:
                    taken.append((path, key, number))
                else:
                    text = document if document.body is not None or reread is None else reread(document)
                    postings = postings_of(text)
                    self._add(
                        path, key, tuple(postings.counts), tuple(postings.counts.values()), postings.lengths
                    )
                    indexed += 1
            self.documents[path] = document
        if taken:
            self._take(taken)
        return indexed

    def kept(self, live: set[Key]) -> KeptPostings:
        """What a later process may keep: every document's postings, and those of the
        documents the kept postings held whose key is in ``live`` (in the ledger, under
        another ceiling), each key once."""
        documents: list[tuple[Key, Counts]] = []
        number_of: dict[Key, int] = {}
        added: dict[str, int] = {}  # a path indexed from its text: its number here
        for path, entry in self._entries.items():
            if entry.number is None:
                added[path] = number_of.setdefault(entry.key, len(number_of))
                if added[path] == len(documents):
                    documents.append((entry.key, entry.lengths))
        renumbered: dict[int, int] = {}  # a number in the kept postings: its number here
        base = self._kept
        if base is not None:
            for number, key in enumerate(base.keys):
                if key in live and key not in number_of:
                    renumbered[number] = number_of[key] = len(documents)
                    documents.append((key, base.lengths[number]))
        every_term = sorted(self._added.keys() | set(base.terms if base is not None else ()))

        def holders(term: str) -> dict[int, Counts]:
            held = {renumbered[n]: c for n, c in base.holders(term) if n in renumbered} if base else {}
            for path, counts in self._added.get(term, _NO_HOLDERS).items():
                held[added[path]] = counts
            return held

        return make_kept(documents, ((term, holders(term)) for term in every_term))

    def _add(
        self,
        path: str,
        key: Key,
        terms: tuple[str, ...],
        counted: tuple[Counts, ...],
        lengths: Counts,
    ) -> None:
        """Add the document at ``path``: each of its ``terms`` with its counts (``counted``,
        in the same order), and its field ``lengths``."""
        inverted, shared = self._added, self._shared
        asked = self._inverted  # empty without kept postings
        for term, counts in zip(terms, counted, strict=True):
            # The same few count triples recur millions of times: keep one of each.
            counts = shared.setdefault(counts, counts)
            holders = inverted.get(term)
            if holders is None:  # setdefault would build a dict for every term
                inverted[term] = {path: counts}
            else:
                holders[path] = counts
            if (every := asked.get(term)) is not None:
                every[path] = counts
        self._entries[path] = _Entry(key, terms, lengths)
        for index in range(3):
            self._totals[index] += lengths[index]
        self._changed()

    def _take(self, taken: list[tuple[str, Key, int]]) -> None:
        """Add the documents (path, key, number) counted from the kept postings: one loop,
        no call per document (a warm search takes every one)."""
        assert self._kept is not None
        lengths, paths, entries, totals = self._kept.lengths, self._kept_paths, self._entries, self._totals
        for path, key, number in taken:
            counted = lengths[number]
            paths.setdefault(number, []).append(path)
            entries[path] = _Entry(key, (), counted, number)
            totals[0] += counted[0]
            totals[1] += counted[1]
            totals[2] += counted[2]
        self._inverted.clear()  # a term asked for before does not hold them yet
        self._changed()

    def _remove(self, path: str) -> None:
        entry = self._entries.pop(path)
        del self.documents[path]
        if entry.number is not None:
            paths = self._kept_paths[entry.number]
            paths.remove(path)
            if not paths:
                del self._kept_paths[entry.number]
            self._inverted.clear()  # its terms are not known without decoding every term
        for term in entry.terms:
            holders = self._added[term]
            del holders[path]
            if not holders:
                del self._added[term]
            if (every := self._inverted.get(term)) is not None:
                del every[path]
        for index in range(3):
            self._totals[index] -= entry.lengths[index]
        self._changed()

    def _changed(self) -> None:
        self._ranking.clear()
        self._cached = 0
        self._norms = None
        self._numbers = None

    def holders(self, term: str) -> dict[str, Counts]:
        """Every document holding ``term``, by path, with its counts in each field (not to
        be changed: the index's own)."""
        if self._kept is None:
            return self._added.get(term, _NO_HOLDERS)
        every = self._inverted.get(term)
        if every is None:
            paths = self._kept_paths
            kept = self._kept.holders(term)
            every = {path: counts for number, counts in kept for path in paths.get(number, ())}
            every.update(self._added.get(term, _NO_HOLDERS))
            if not every:
                return _NO_HOLDERS  # not kept: any word a query asks for would stay in memory
            self._inverted[term] = every
        return every

    def counts(self, term: str, path: str) -> Counts:
        """How often ``term`` occurs in each field of the document at ``path``."""
        return self.holders(term).get(path, (0, 0, 0))

    def scores(self, query_terms: list[str]) -> dict[str, int]:
        """Every matching document's BM25F score as an integer (:data:`SCALE`), summed
        over ``query_terms`` in code-point order: the rule itself, what :meth:`best`
        must agree with."""
        ordered = sorted(set(query_terms))
        idfs = [self._idf(term) for term in ordered]
        holders = set().union(*(self.holders(term) for term in ordered))
        return {path: self._score(ordered, idfs, path) for path in holders}

    def best(self, query_terms: list[str], limit: int, kind: str | None = None) -> tuple[dict[str, int], int]:
        """Scores of a set of documents (of ``kind``, if given) that holds the ``limit``
        best of every matching one, and how many match.

        The threshold algorithm: each term's holders are read highest impact first, one
        from each list per round, and every document met is scored in full. A document
        not met yet holds each term at most at the impact next in that term's list, so
        its score is at most the sum of those (summed in the same order: IEEE addition
        and rounding are monotone, so the bound holds for the rounded integers too).
        Reading stops once ``limit`` documents met score strictly above that bound: no
        other can equal them, so ties are broken among documents met. The result is
        the one the full :meth:`scores` gives; only the work differs.
        """
        ordered = sorted(set(query_terms))
        idfs = [self._idf(term) for term in ordered]
        lists = [self._ranked(term, kind) for term in ordered]
        met: dict[str, int] = {}
        top: list[int] = []  # the ``limit`` highest scores met, a min-heap
        depth, deepest = 0, max(len(ranked.paths) for ranked in lists)
        # Scoring a met document costs a look-up per term: past a tenth of the postings, adding
        # up every list is cheaper (equal impacts everywhere, say) and gives the same.
        enough = self.full_scoring_share * sum(len(ranked.paths) for ranked in lists)
        while depth < deepest:
            if len(met) * len(lists) > enough:
                return self._every_score(lists, limit), self._matching(lists)
            for ranked in lists:
                paths = ranked.paths
                if depth < len(paths) and paths[depth] not in met:
                    score = met[paths[depth]] = self._score(ordered, idfs, paths[depth])
                    if len(top) < limit:
                        heapq.heappush(top, score)
                    elif score > top[0]:
                        heapq.heapreplace(top, score)
            depth += 1
            if len(top) == limit:
                bound = 0.0
                for ranked in lists:
                    if depth < len(ranked.paths):
                        bound += ranked.impacts[depth]
                if top[0] > round(bound * SCALE):
                    break
        return met, self._matching(lists)

    @staticmethod
    def _every_score(lists: list[_Ranked], limit: int) -> dict[str, int]:
        """The scores of every holder of ``lists`` (in the rule's term order) that score
        at least the ``limit``-th highest: the set :meth:`best` promises, found by
        adding up the lists."""
        totals: dict[str, float] = {}
        for ranked in lists:
            for path, impact in zip(ranked.paths, ranked.impacts, strict=True):
                totals[path] = totals.get(path, 0.0) + impact
        scores = {path: round(total * SCALE) for path, total in totals.items()}
        if len(scores) <= limit:
            return scores
        least = heapq.nlargest(limit, scores.values())[-1]
        return {path: score for path, score in scores.items() if score >= least}

    def _matching(self, lists: list[_Ranked]) -> int:
        """How many documents are in at least one of ``lists``."""
        if len(lists) == 1:
            return len(lists[0].paths)
        union, short = 0, set()
        for ranked in lists:
            if ranked.flags is None:
                short.update(ranked.paths)
            else:
                union |= ranked.flags
        count = union.bit_count()
        if short and union:
            numbers = self._document_numbers()
            flags = union.to_bytes(len(numbers), "little")
            return count + sum(1 for path in short if not flags[numbers[path]])
        return count + len(short)

    def _score(self, ordered: list[str], idfs: list[float], path: str) -> int:
        """The document's BM25F score, its terms' impacts added in ``ordered`` order
        (``idfs`` theirs, in that order)."""
        total = 0.0
        norm = self._field_norms()[path]
        for term, idf in zip(ordered, idfs, strict=True):
            counts = self.holders(term).get(path)
            if counts is not None:
                total += _impact(idf, counts, norm)
        return round(total * SCALE)

    def _idf(self, term: str) -> float:
        """``ln(1 + (N − df + 0.5) / (df + 0.5))``."""
        df = len(self.holders(term))
        return math.log(1.0 + (len(self._entries) - df + 0.5) / (df + 0.5))

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

            by_lengths: dict[Counts, tuple[float, float, float]] = {}  # lengths recur: each worked out once
            norms = self._norms = {}
            for path, entry in self._entries.items():
                lengths = entry.lengths
                if (found := by_lengths.get(lengths)) is None:
                    found = by_lengths[lengths] = (
                        norm(0, lengths[0]),
                        norm(1, lengths[1]),
                        norm(2, lengths[2]),
                    )
                norms[path] = found
        return self._norms

    def _ranked(self, term: str, kind: str | None) -> _Ranked:
        """The holders of ``term`` (of ``kind``), highest impact first, and their
        impacts; kept until the index changes, within :data:`CACHED_POSTINGS`."""
        cached = self._ranking.get((term, kind))
        if cached is not None:
            return cached
        if kind is not None:
            every = self._ranked(term, None)
            documents = self.documents
            keep = [i for i, path in enumerate(every.paths) if documents[path].kind == kind]
            paths = [every.paths[i] for i in keep]
            impacts = array("d", [every.impacts[i] for i in keep])
        else:
            idf, norms = self._idf(term), self._field_norms()
            # _impact written out (the same operations in the same order: the same bits).
            by_path = {
                path: idf * tf / (K1 + tf)
                for path, (title, frontmatter, body) in self.holders(term).items()
                for norm in (norms[path],)
                for tf in (title * norm[0] + frontmatter * norm[1] + body * norm[2],)
            }
            # Equal impacts keep their order of insertion: harmless, the stop rule
            # never separates equal scores.
            paths = sorted(by_path, key=by_path.__getitem__, reverse=True)
            impacts = array("d", map(by_path.__getitem__, paths))
        ranked = _Ranked(paths, impacts, self._flags(paths))
        if self._cached + len(paths) > CACHED_POSTINGS:  # a bound on memory, whatever the queries
            self._ranking.clear()
            self._cached = 0
        self._ranking[(term, kind)] = ranked
        self._cached += len(paths)
        return ranked

    def _flags(self, paths: list[str]) -> int | None:
        """``paths`` as flags (see :class:`_Ranked`) when they are at least an eighth of
        the index (the flags cost a byte per document), else ``None``."""
        numbers = self._document_numbers()
        if len(paths) * 8 < len(numbers):
            return None
        flags = bytearray(len(numbers))
        collections.deque(map(flags.__setitem__, map(numbers.__getitem__, paths), repeat(1)), maxlen=0)
        return int.from_bytes(flags, "little")

    def _document_numbers(self) -> dict[str, int]:
        """Each document's number in the index, kept until the index changes."""
        if self._numbers is None:
            self._numbers = {path: number for number, path in enumerate(self._entries)}
        return self._numbers


def _impact(idf: float, counts: Counts, norm: tuple[float, float, float]) -> float:
    """``idf · tf / (K1 + tf)``, ``tf`` the weighted, length-normalised count (BM25F).
    Fields with a zero count add exactly 0.0, so the sum is the rule's."""
    tf = counts[0] * norm[0] + counts[1] * norm[1] + counts[2] * norm[2]
    return idf * tf / (K1 + tf)


def postings_key(document: Document) -> Key:
    """What a document's postings depend on: its bytes (SHA-256), its title (which can come
    from the file name) and its kind (``agents.md``'s frontmatter is not searched: a copy of
    its bytes elsewhere has postings of its own)."""
    return document.sha256, document.title, document.kind

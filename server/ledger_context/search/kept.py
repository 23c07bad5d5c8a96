"""Search's postings as kept between processes, laid out by term (issue 26).

A new process's first search asks for the holders of two or three terms, yet the postings
of every document were once rebuilt into dictionaries on each start (two thirds of a warm
search). Here every term's holders are one run of two arrays, document numbers and count
numbers (into a table of the distinct count triples, which recur throughout), decoded only
for a term a search asks for; the documents' keys and field lengths are decoded whole (the
statistics need every length). Unsigned arrays hold no negative count. A document number
is only ever looked up among the documents a search counts, so one out of the table meets
nothing; a count number is checked against its table, and a run for a document held twice,
when its term is decoded (checking every one on load cost a warm search a tenth of its
time): postings signed by a holder of the key that hold either raise :class:`NotPostings`,
and search reads every document again. What no shape check can see, values in range that
differ from the documents' (keys swapped, counts or lengths changed), a holder of the key
can sign, as it can an index entry: it changes what matches and how it ranks, never what
a hit shows, which is read and classified afresh.
"""

from __future__ import annotations

import operator
import sys
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

Counts = tuple[int, int, int]
Key = tuple[str, str, str]
"""What a document's postings depend on (:func:`~ledger_context.search.inverted.postings_key`)."""

TYPECODE = "I"
"""Unsigned, 4 bytes where the kept file is written and read: :data:`LAYOUT` says so."""
LAYOUT = {"typecode": TYPECODE, "itemsize": array(TYPECODE).itemsize, "byteorder": sys.byteorder}
"""What the arrays' bytes mean on this machine; part of the postings file's version."""


class NotPostings(ValueError):
    """Kept postings hold a value no write of this code gives (only a holder of the key
    could have signed them)."""


def _array(data: Any) -> array[int]:
    if type(data) is not bytes:
        raise ValueError("not postings")
    numbers = array(TYPECODE)
    numbers.frombytes(data)  # a length that is not a whole number of items raises ValueError
    return numbers


def _triples(flat: array[int]) -> list[Counts]:
    """``flat`` (three numbers per triple) as triples."""
    if len(flat) % 3:
        raise ValueError("not postings")
    return list(zip(flat[0::3], flat[1::3], flat[2::3], strict=True))


class KeptPostings:
    """Every kept document's key and field lengths, by number, and every term's holders as
    (document number, counts), decoded on request (:meth:`holders`)."""

    __slots__ = (
        *("_counts", "_ends", "_numbers", "_term_at"),
        *("keys", "lengths", "number_of", "terms", "triples"),
    )

    def __init__(
        self,
        keys: list[Key],
        lengths: list[Counts],
        terms: tuple[str, ...],
        ends: array[int],
        numbers: array[int],
        counts: array[int],
        triples: list[Counts],
    ) -> None:
        self.keys = keys
        self.lengths = lengths
        self.terms = terms
        self.triples = triples
        self._ends, self._numbers, self._counts = ends, numbers, counts
        self.number_of: dict[Key, int] = dict(zip(keys, range(len(keys)), strict=True))
        self._term_at: dict[str, int] = dict(zip(terms, range(len(terms)), strict=True))

    def __len__(self) -> int:
        return len(self.keys)

    def holders(self, term: str) -> Iterator[tuple[int, Counts]]:
        """The kept documents holding ``term``, as (number, counts in title, frontmatter, body)."""
        at = self._term_at.get(term)
        if at is None:
            return iter(())
        start, end = self._ends[at - 1] if at else 0, self._ends[at]
        holders, counts = self._numbers[start:end], self._counts[start:end]
        if counts and max(counts) >= len(self.triples):
            raise NotPostings("a count past the table of counts")  # the term unsaid: any document's
        if len(set(holders)) != len(holders):
            raise NotPostings("a document twice among a term's holders")
        return zip(holders, map(self.triples.__getitem__, counts), strict=True)

    def data(self) -> dict[str, Any]:
        """Plain data for marshal (:func:`from_data` makes it back)."""
        flat_lengths = array(TYPECODE, [n for length in self.lengths for n in length])
        flat_triples = array(TYPECODE, [n for triple in self.triples for n in triple])
        return {
            "keys": self.keys,
            "lengths": flat_lengths.tobytes(),
            "terms": self.terms,
            "ends": self._ends.tobytes(),
            "numbers": self._numbers.tobytes(),
            "counts": self._counts.tobytes(),
            "triples": flat_triples.tobytes(),
        }


def from_data(data: Any) -> KeptPostings:
    """The postings of :meth:`KeptPostings.data`; ``ValueError`` (or ``KeyError``,
    ``TypeError``) when they are not of the shape it writes: a key or a term twice, a term
    held by none, a count triple of zeros (a tester re-signed each; each changed results)."""
    keys, terms = data["keys"], data["terms"]
    if type(keys) is not list or type(terms) is not tuple or not all(type(t) is str for t in terms):
        raise ValueError("not postings")
    lengths = _triples(_array(data["lengths"]))
    triples = _triples(_array(data["triples"]))
    ends, numbers, counts = _array(data["ends"]), _array(data["numbers"]), _array(data["counts"])
    if len(lengths) != len(keys) or len(ends) != len(terms) or len(numbers) != len(counts):
        raise ValueError("not postings")
    if (ends and (ends[-1] != len(numbers) or ends[0] == 0)) or (not ends and numbers):
        raise ValueError("not postings")
    if not all(map(operator.lt, ends, ends[1:])) or (0, 0, 0) in triples:
        raise ValueError("not postings")
    if not all(type(key) is tuple and len(key) == 3 for key in keys):
        raise ValueError("not postings")
    kept = KeptPostings(keys, lengths, terms, ends, numbers, counts, triples)
    if len(kept.number_of) != len(keys) or len(kept._term_at) != len(terms):
        raise ValueError("not postings")
    return kept


def make_kept(
    documents: list[tuple[Key, Counts]], holders: Iterable[tuple[str, dict[int, Counts]]]
) -> KeptPostings:
    """Postings to keep: ``documents`` (key and lengths) numbered in their order, and each
    term's holders by those numbers (a term with none is left out)."""
    terms: list[str] = []
    ends, numbers, counts = array(TYPECODE), array(TYPECODE), array(TYPECODE)
    triple_number: dict[Counts, int] = {}
    for term, held in holders:
        if not held:
            continue
        terms.append(term)
        numbers.extend(held)
        counts.extend([triple_number.setdefault(c, len(triple_number)) for c in held.values()])
        ends.append(len(numbers))
    keys = [key for key, _ in documents]
    return KeptPostings(
        keys, [lengths for _, lengths in documents], tuple(terms), ends, numbers, counts, list(triple_number)
    )

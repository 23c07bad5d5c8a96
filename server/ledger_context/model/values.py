"""The base of the product's value records: named fields, equal and hashed by value.

A record lists its fields in ``__slots__`` and sets them in its own ``__init__``;
:class:`Record` makes it equal to a record of the same class with equal fields, hashes
and shows it by them, and gives :meth:`Record._replace`. Records are immutable by
convention: no code sets a field after ``__init__``.

Why not dataclasses or named tuples: the ``pack`` command defines about twenty kinds of
record at import, and making them cost it a quarter of its start-up (``dataclasses``
imports ``inspect``, and a class costs 0.2-1 ms to generate either way; a plain class
costs about 30 µs). The hot records a build makes by the thousand (``Document``,
``FileResult``, ``Problem``, ``Timestamp``) stay named tuples: immutable where it
matters most, and the fastest to make.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import Self


class Record:
    """Equality, hash, ``repr`` and ``_replace`` from ``__slots__``."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def _replace(self, **changes: Any) -> Self:
        """A copy with ``changes``: ``__init__`` takes every field by its name."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return type(self)(**values)


class cycles_uncollected:  # used as a function: with cycles_uncollected():
    """Run the block without the cyclic garbage collector: a build, decoding the ledger
    index and indexing for search allocate many small acyclic objects, and collecting
    meanwhile only costs time (a quarter of a warm build of 100,000 files, half of
    indexing, nine tenths of decoding 30,000 index entries). Nested use is safe. A class,
    not a generator: leaving allocates nothing, so the collection the block's objects are
    due comes at the caller's next allocation, as it would after any call."""

    __slots__ = ("collecting",)

    def __enter__(self) -> None:
        self.collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.collecting:
            gc.enable()

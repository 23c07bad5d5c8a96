"""Data classes: what each source declares, the strictest one, the ceiling (spec §7).

Classes, least to most strict: ``public`` < ``internal`` < ``confidential`` <
``restricted``. A value outside that list ranks above ``restricted`` and reads
``unknown`` (fail closed). A source that declares nothing reads ``None``: it passes any
ceiling, unless an operator names a class for undeclared sources (``--undeclared-class``).

The readout names sources only — paths and class names, never text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .errors import InvalidArgumentError
from .fields import is_missing
from .values import Record

CLASSES: tuple[str, ...] = ("public", "internal", "confidential", "restricted")
"""The known data classes, least strict first (spec §7)."""

UNKNOWN = "unknown"
"""The class read from a value outside :data:`CLASSES`; stricter than any known class."""

RANK: dict[str, int] = {name: rank for rank, name in enumerate((*CLASSES, UNKNOWN))}


def declared_class(value: Any) -> str | None:
    """The data class a frontmatter ``data_class`` value declares (spec §7).

    Returns a name from :data:`CLASSES`, :data:`UNKNOWN` for any other value (a list or
    mapping included), or ``None`` when the field is missing or a null form.
    """
    if value is None or is_missing(value):
        return None
    if isinstance(value, str):
        name = value.strip().casefold()
        if name in CLASSES:
            return name
    return UNKNOWN


def parse_ceiling(value: str | None) -> str | None:
    """Validate a ``--max-data-class`` value; returns its canonical name or ``None``.

    ``None`` means no ceiling. Case and surrounding spaces are ignored. An empty value is
    refused, not read as "no ceiling": a ceiling must never be lost to a blank in a client
    config (fail closed). Raises :class:`InvalidArgumentError` naming the allowed values.
    """
    if value is None:
        return None
    name = value.strip().casefold()
    if name not in CLASSES:
        raise InvalidArgumentError(
            f"invalid data-class ceiling {value[:40]!r}; allowed values: {', '.join(CLASSES)} "
            "(leave the option out for no ceiling)"
        )
    return name


def parse_undeclared_class(value: str | None) -> str | None:
    """Validate an ``--undeclared-class`` value: the class undeclared sources are read as
    for the ceiling; its canonical name or ``None`` (they pass). Empty is refused, like a
    ceiling. Raises :class:`InvalidArgumentError` naming the allowed values."""
    if value is None:
        return None
    name = value.strip().casefold()
    if name not in CLASSES:
        raise InvalidArgumentError(
            f"invalid undeclared class {value[:40]!r}; allowed values: {', '.join(CLASSES)} "
            "(leave the option out to let undeclared sources pass)"
        )
    return name


def is_withheld(data_class: str | None, ceiling: str | None, undeclared: str | None = None) -> bool:
    """True if a source of ``data_class`` is kept out under ``ceiling`` (spec §7).

    An undeclared source (``None``) is read as ``undeclared``: with none given it passes.
    An unknown class never passes a ceiling.
    """
    if data_class is None:
        data_class = undeclared
    if ceiling is None or data_class is None:
        return False
    return RANK[data_class] > RANK[ceiling]


class Source(Record):
    """A source that reached the pack: its path and the class it declared (or ``None``)."""

    __slots__ = ("data_class", "path")

    def __init__(
        self,
        path: str,
        data_class: str | None,
    ) -> None:
        self.path = path
        self.data_class = data_class


def effective_class(sources: Iterable[Source]) -> str | None:
    """The strictest class declared among ``sources``, ``None`` if none declared one.

    This is the fold over exactly the list the readout shows (spec §7, ADR-151).
    """
    strictest: str | None = None
    for source in sources:
        if source.data_class is not None and (strictest is None or RANK[source.data_class] > RANK[strictest]):
            strictest = source.data_class
    return strictest

"""The frontmatter fields the pack reads: status, updated_at, slug, title (spec §3).

Every value arrives as loaded by :func:`~ledger_context.reader.frontmatter.load_mapping`: a
string, a list or a mapping. A string that is, after stripping, empty, ``~`` or
``null`` in any case is *missing* (YAML's null forms).
"""

from __future__ import annotations

import re
from typing import Any

_CONTROL = "[\x00-\x1f\x7f-\x9f]"
_SURROGATE = "[\ud800-\udfff]"  # compiled on first use (re keeps it): it costs 0.3 ms
# Printable ASCII words separated by single spaces: what most titles and slugs are.
_ALREADY_CLEAN = re.compile(r"[!-~]+(?: [!-~]+)*")
_EPOCH_ORDINAL = 719_163
"""``date(1970, 1, 1).toordinal()``: days from 0001-01-01 to the epoch."""
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""Bidirectional overrides and isolates: they make a line read differently from its text."""


def is_missing(value: Any) -> bool:
    """True for an absent field or a null form: empty, ``~``, ``null`` (any case) (spec §3)."""
    if value is None:
        return True
    if isinstance(value, str):
        stripped = value.strip()
        return stripped in ("", "~") or stripped.casefold() == "null"
    return False


def clean_text(text: str) -> str:
    """Clean a title or slug so it fits on one line (spec §3).

    Control characters (category Cc, newlines and tabs included) become spaces, lone
    surrogates become U+FFFD, runs of whitespace become one space, the ends are stripped.
    """
    if _ALREADY_CLEAN.fullmatch(text):
        return text
    if not text.isprintable():  # controls and surrogates are never printable
        text = re.sub(_SURROGATE, "\ufffd", re.sub(_CONTROL, " ", text))
    return " ".join(text.split())


def bidi_escaped(text: str) -> str:
    """``text`` with each :data:`BIDI_CONTROLS` character written as its ``\\uXXXX`` escape,
    for readouts of our own (the pack's title lines keep them, spec §3)."""
    return BIDI_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def status_of(value: Any) -> str | None:
    """The status compared after ``strip`` and ``casefold``; ``None`` if missing or not a string."""
    if not isinstance(value, str) or is_missing(value):
        return None
    return value.strip().casefold()


class Timestamp:
    """A parsed ``updated_at``: ``key`` is microseconds since 1970-01-01 UTC (an int, so
    any year orders without overflow). Equal and hashed by ``key``."""

    __slots__ = ("key",)

    def __init__(self, key: int) -> None:
        self.key = key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timestamp) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Timestamp({self.key})"

    @property
    def iso(self) -> str:
        """The instant in UTC as ISO 8601 with ``Z``, also in year 0 or 10000."""
        from datetime import datetime, timedelta  # here: most commands never show a date

        moment = datetime(1970, 1, 1) + timedelta(microseconds=self.key % _FOUR_CENTURIES_US)
        cycles = self.key // _FOUR_CENTURIES_US  # whole 400-year cycles since 1970
        return f"{moment.year + 400 * cycles:04d}{moment.isoformat()[4:]}Z"


_FOUR_CENTURIES_US = 146_097 * 86_400 * 1_000_000  # the Gregorian calendar repeats every 400 years


def parse_updated_at(value: Any) -> Timestamp | None:
    """Parse ``updated_at`` as Python 3.11's ``datetime.fromisoformat`` does (spec §3).

    A date alone is midnight UTC; a time without an offset is UTC. Returns ``None``
    (undated) for anything else: missing, a list or mapping, or a string it rejects.
    """
    if not isinstance(value, str) or is_missing(value):
        return None
    from datetime import datetime  # here: a ledger without dates never loads it (start-up)

    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    seconds = (
        (parsed.toordinal() - _EPOCH_ORDINAL) * 86_400
        + parsed.hour * 3600
        + parsed.minute * 60
        + parsed.second
    )
    offset = parsed.utcoffset()
    if offset:
        seconds -= offset.days * 86_400 + offset.seconds
        return Timestamp((seconds * 1_000_000 + parsed.microsecond) - offset.microseconds)
    return Timestamp(seconds * 1_000_000 + parsed.microsecond)


def slug_of(value: Any, file_name: str) -> str:
    """The frontmatter ``slug`` cleaned up, or the file name without ``.md`` (spec §3)."""
    if isinstance(value, str) and not is_missing(value):
        cleaned = clean_text(value)
        if cleaned:
            return cleaned
    return file_name[:-3] if file_name.endswith(".md") else file_name


def title_of(value: Any, first_heading: str | None, slug: str) -> str:
    """The frontmatter ``title``, else the first level-1 heading, else the slug (spec §3).

    Both candidates are cleaned up; one that is empty after clean-up does not count.
    """
    if isinstance(value, str) and not is_missing(value):
        cleaned = clean_text(value)
        if cleaned:
            return cleaned
    if first_heading is not None:
        cleaned = clean_text(first_heading)
        if cleaned:
            return cleaned
    return slug

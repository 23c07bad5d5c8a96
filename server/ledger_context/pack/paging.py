"""Cutting a document's text into pages of at most a number of UTF-8 bytes.

A page ends on a code-point boundary, so every page is valid UTF-8 on its own and the
pages joined give the document's bytes exactly. Offsets count bytes of the UTF-8 text.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.errors import InvalidArgumentError

PAGE_BYTES = 40_000
"""The most bytes of document text ``read_document`` returns in one call: under the
50,000 characters some clients move into a file instead of showing the model."""

_MIN_PAGE_BYTES = 4  # the longest UTF-8 sequence: a smaller page could never advance


@dataclass(frozen=True, slots=True)
class Page:
    """Bytes ``offset`` to ``end`` of a text of ``total`` bytes, decoded as ``text``."""

    text: str
    offset: int
    end: int
    total: int

    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, ``None`` on the last one."""
        return self.end if self.end < self.total else None


def page_of(text: str, offset: int, max_bytes: int = PAGE_BYTES) -> Page:
    """The page of ``text`` that starts ``offset`` bytes in and holds at most ``max_bytes``.

    Raises :class:`~ledger_context.model.errors.InvalidArgumentError` for an offset past the
    end or inside a character; the message names the allowed values.
    """
    if max_bytes < _MIN_PAGE_BYTES:
        raise ValueError(f"max_bytes must be at least {_MIN_PAGE_BYTES}, got {max_bytes}")
    data = text.encode("utf-8")
    total = len(data)
    if not 0 <= offset <= total or (offset < total and _continues(data[offset])):
        raise InvalidArgumentError(
            f"offset {offset} is not the start of a page: use 0, or the next_offset a page "
            f"reported (a byte offset from 0 to {total} at the start of a character)"
        )
    end = min(total, offset + max_bytes)
    while end < total and _continues(data[end]):
        end -= 1
    return Page(data[offset:end].decode("utf-8"), offset, end, total)


def _continues(byte: int) -> bool:
    """True for a UTF-8 continuation byte (``10xxxxxx``): no character starts there."""
    return byte & 0xC0 == 0x80

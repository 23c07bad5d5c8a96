"""Cutting a text to a byte bound without splitting a code point (issue 15).

Paths reach bounded readouts (the brief, the answer for one path) at any length; they
are cut in the middle, so both the folder (the kind) and the file name stay readable.
"""

from __future__ import annotations

ELLIPSIS = "…"
_ELLIPSIS_BYTES = len(ELLIPSIS.encode("utf-8"))


def shorten(text: str, limit: int) -> str:
    """``text`` if it is at most ``limit`` UTF-8 bytes, else its head, ``…`` and its
    tail, at most ``limit`` bytes in all, cut at code-point boundaries.

    ``limit`` must be at least 4 (the ellipsis is 3 bytes).
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    room = limit - _ELLIPSIS_BYTES
    head = room // 2
    # Slicing valid UTF-8 can only split the code point at each cut; "ignore" drops it.
    start = data[:head].decode("utf-8", "ignore")
    end = data[len(data) - (room - head) :].decode("utf-8", "ignore")
    return start + ELLIPSIS + end

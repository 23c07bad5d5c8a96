"""The little Markdown the pack needs: ATX headings outside fenced code (spec §3, §5).

Only two questions are asked of a body: its first level-1 heading (the title
fallback) and its metrics list (group 3). Headings are read by plain string scans,
never a backtracking pattern, so each line costs time linear in its length. Fences
follow CommonMark: a run of three or more backticks or tildes, indented at most three
spaces, closed by a run of the same character at least as long with nothing after it
but spaces and tabs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*$")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|[0-9]+[.)]) ")


def _heading(line: str) -> tuple[int, str] | None:
    """``(level, text)`` if ``line`` is an ATX heading, its closing run of ``#`` removed.

    Plain string scans, each linear in the line: up to three spaces, one to six ``#``,
    then the end or a space or tab. A closing run of ``#`` counts only when the whole
    text is that run or a space or tab precedes it.
    """
    start = 0
    while start < 3 and line.startswith(" ", start):
        start += 1
    end = start
    while end < len(line) and end - start < 7 and line[end] == "#":
        end += 1
    level = end - start
    if not 1 <= level <= 6 or (end < len(line) and line[end] not in " \t"):
        return None
    text = line[end:].strip(" \t")
    if text.endswith("#"):
        before = text.rstrip("#")
        if not before or before[-1] in " \t":
            text = before.rstrip(" \t")
    return level, text


def headings(lines: list[str]) -> Iterator[tuple[int, int, str]]:
    """Yield ``(line index, level, text)`` for each ATX heading outside fenced code."""
    fence: str | None = None
    for index, line in enumerate(lines):
        if fence is not None:
            close = _FENCE_CLOSE.match(line)
            if close is not None and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence):
                fence = None
            continue
        opening = _FENCE_OPEN.match(line)
        if opening is not None and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence = opening.group(1)
            continue
        heading = _heading(line)
        if heading is not None:
            yield index, heading[0], heading[1]


_CANDIDATE = re.compile(r"\n( {0,3}[#`~][^\n]*)")
"""A line that can be a heading or a fence (after a newline); no other line changes what
:func:`headings` yields. The leading newline is a literal the engine searches for fast."""


def _candidate_lines(body: str) -> list[str]:
    """The lines of ``body`` that can be a heading or a fence, in order (the first line
    always, it has no newline before it)."""
    end = body.find("\n")
    first = body if end < 0 else body[:end]
    return [first, *(match.group(1) for match in _CANDIDATE.finditer(body))]


def first_h1(body: str) -> str | None:
    """Text of the first level-1 ATX heading outside fenced code, or ``None`` (spec §3).

    Every document's title may need it, so only the lines that can be a heading or a
    fence are looked at (:func:`_candidate_lines`), not every line of a long body.
    """
    if "#" not in body:
        return None
    for _, level, text in headings(_candidate_lines(body)):
        if level == 1:
            return text
    return None


def metrics_list(body: str) -> list[str]:
    """The eval's metrics list lines, verbatim (spec §5, group 3).

    The section is the first ATX heading outside fenced code whose text is ``metrics``
    (stripped, case-folded), up to the next ATX heading of the same or a higher level;
    its lines that start, after indentation, with ``-``, ``*``, ``+`` or digits and
    ``.`` or ``)``, then a space, are the list. Empty when there is no such section.
    """
    if "#" not in body:
        return []
    lines = body.split("\n")
    found = headings(lines)
    for index, level, text in found:
        if text.strip().casefold() == "metrics":
            end = len(lines)
            for next_index, next_level, _ in found:
                if next_level <= level:
                    end = next_index
                    break
            return [line for line in lines[index + 1 : end] if _LIST_ITEM.match(line)]
    return []

"""The shape of an ``updated_at`` that is not ISO 8601, named without quoting it (spec §3).

A problem message never quotes the document, so an undated warning names what the value
looks like from a fixed list (``MM/DD/YYYY``, ``a month name``, ``a Unix timestamp``, ...),
found by one pass over its characters: runs of digits, runs of letters, and the single
characters between them.
"""

from __future__ import annotations

_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTHS = frozenset([*_MONTH_NAMES, *(name[:3] for name in _MONTH_NAMES), "sept"])

_DAY_FIRST_SEPARATORS = {".": "DD.MM.YYYY", "/": "MM/DD/YYYY", "-": "MM-DD-YYYY"}


def _runs(value: str) -> list[tuple[str, str]]:
    """``value`` as runs: ``("9", digits)``, ``("a", letters)`` or ``(char, char)``; linear."""
    runs: list[tuple[str, str]] = []
    start = 0
    while start < len(value):
        char = value[start]
        kind = "9" if char.isdigit() and char.isascii() else "a" if char.isalpha() else char
        end = start + 1
        if kind == "9":
            while end < len(value) and value[end].isascii() and value[end].isdigit():
                end += 1
        elif kind == "a":
            while end < len(value) and value[end].isalpha():
                end += 1
        runs.append((kind, value[start:end]))
        start = end
    return runs


def _numeric_date(runs: list[tuple[str, str]]) -> str | None:
    """The name of three digit runs joined by one separator (``11/08/2026``), or ``None``."""
    if len(runs) < 5 or [k for k, _ in runs[:5:2]] != ["9", "9", "9"]:
        return None
    separator = runs[1][0]
    if separator not in _DAY_FIRST_SEPARATORS or runs[3][0] != separator:
        return None
    first, second, third = (len(text) for _, text in runs[:5:2])
    if first == 4 and second <= 2 and third <= 2:
        if separator == "-":
            if second == third == 2:
                return "YYYY-MM-DD with an impossible date, time or offset"
            return "YYYY-M-D (a one-digit month or day)"
        return f"YYYY{separator}MM{separator}DD"
    if first <= 2 and second <= 2 and third in (2, 4):
        name = _DAY_FIRST_SEPARATORS[separator]
        return name if third == 4 else name[:-2]
    return None


def date_shape(value: str) -> str:
    """What the stripped, non-ISO ``value`` looks like: a name from a fixed list, never its text."""
    runs = _runs(value.strip())
    kinds = [kind for kind, _ in runs]
    numeric = _numeric_date(runs)
    if numeric is not None:
        rest = runs[5:]
        if not rest or numeric.startswith("YYYY-MM-DD"):
            return numeric
        if any(kind == ":" for kind, _ in rest):
            return f"{numeric} followed by a time"
        return f"{numeric} followed by other text"
    if any(kind == "a" and text.casefold() in _MONTHS for kind, text in runs):
        return "a date written with a month name (e.g. Aug 11, 2026)"
    if kinds == ["9", "-", "9"] and len(runs[0][1]) == 4 and len(runs[2][1]) <= 2:
        return "YYYY-MM (a month without a day)"
    if kinds == ["9"]:
        digits = len(runs[0][1])
        if digits == 4:
            return "a year alone"
        if digits in (10, 13):
            return "a Unix timestamp"
        return "a number"
    if "9" not in kinds:
        return "text without digits"
    return "text that is not a date"

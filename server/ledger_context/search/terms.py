"""Text into search terms, the same way for documents and queries (spec §10).

The rule, written out in ``docs/decisions.md``: NFKC, then case folding; a term is a run
of letters, digits and combining marks (Unicode categories L, N, M; ``_`` and all
punctuation, symbols, spaces and controls separate terms); but first every run of
characters of the blocks of scripts written without spaces (Han, Hiragana, Katakana,
Thai, Lao, Khmer, Myanmar, Yi) is cut out and gives its overlapping bigrams (a lone such
character is a term by itself); a term over :data:`MAX_TERM_CHARS` characters is not a
term. Regular-expression passes without backtracking: linear.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

MAX_TERM_CHARS = 64
"""Longer runs (base64, minified text) are not terms: they would only fill the index."""

_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff\u19e0-\u19ff"  # Khmer
    "\u3005-\u3007\u3021-\u3029\u3031-\u3035"  # ideographic marks and numbers
    "\u3040-\u30ff\u31f0-\u31ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\ua000-\ua4cf"  # Yi
    "\U00020000-\U0003ffff"  # Han, supplementary planes
)


@cache
def _pattern() -> re.Pattern[str]:
    """Runs of letters, digits and combining marks (unspaced pieces are split out after).

    ``\\w`` knows letters and digits but not combining marks (Devanagari vowel signs, say),
    so the marks' ranges are taken from the running Python's Unicode database once.
    """
    marks: list[tuple[int, int]] = []
    # Combining marks lie in planes 0, 1 and 14 only (planes 2-13 and 15-16 hold Han,
    # private use and unassigned code points): a scan of those planes is enough.
    for first, last in ((0, 0x1FFFF), (0xE0000, 0xEFFFF)):
        categories = map(unicodedata.category, map(chr, range(first, last + 1)))
        start = -1
        for code, category in enumerate(categories, start=first):
            if category[0] == "M":
                if start < 0:
                    start = code
            elif start >= 0:
                marks.append((start, code - 1))
                start = -1
    # Ranges past U+FFFF keep the engine from using a bitmap: they get a class of their own.
    bmp = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in marks if b < 0x10000)
    other = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in marks if a >= 0x10000)
    # The engine tests a class of ranges one range at a time: the lookahead (one range)
    # turns a character of the BMP away before the long class past U+FFFF is tried.
    return re.compile(f"(?:[^\\W_]|[{bmp}]|(?=[\U00010000-\U0010ffff])[{other}])+")


_WORD = re.compile(r"[^\W_]+")
"""What :func:`_pattern` finds in a text without combining marks, faster."""


_UNSPACED_CHAR = re.compile(f"[{_UNSPACED}]")
_ASCII = re.compile("[a-z0-9]+")
_UNSPACED_RUN = re.compile(f"([{_UNSPACED}]+)")
"""What :func:`_pattern` finds in ASCII text once case-folded, found faster."""


def normalise(text: str) -> str:
    """NFKC, then case folding: how every text is compared."""
    return unicodedata.normalize("NFKC", text).casefold()


def terms(text: str) -> list[str]:
    """The terms of ``text``, in order, repeats kept."""
    normal = normalise(text)
    if normal.isascii():  # the common case: ASCII letters (folded to lower case) and digits
        return _bounded(_ASCII.findall(normal))
    # Which special cases apply is asked of the distinct characters beyond ASCII, not of
    # every character: a long text holds few distinct ones.
    beyond = "".join(char for char in set(normal) if char > "\x7f")
    pattern = _pattern() if any(unicodedata.category(char)[0] == "M" for char in beyond) else _WORD
    if _UNSPACED_CHAR.search(beyond) is None:  # no bigrams to make
        return _bounded(pattern.findall(normal))
    found: list[str] = []
    # Odd parts are runs of unspaced characters, even parts the text between them.
    for number, part in enumerate(_UNSPACED_RUN.split(normal)):
        if number % 2 == 0:
            found.extend(_bounded(pattern.findall(part)))
        elif len(part) == 1:
            found.append(part)
        else:
            found.extend(part[i : i + 2] for i in range(len(part) - 1))
    return found


def _bounded(runs: list[str]) -> list[str]:
    """``runs`` without those over :data:`MAX_TERM_CHARS` (rare: checked in one pass first)."""
    if not runs or max(map(len, runs)) <= MAX_TERM_CHARS:
        return runs
    return [run for run in runs if len(run) <= MAX_TERM_CHARS]


def has_unspaced(text: str) -> bool:
    """Whether ``text`` holds a character of a script written without spaces (its terms
    are bigrams: what a refusal of a long query must explain)."""
    return _UNSPACED_CHAR.search(normalise(text)) is not None


def has_long_word(text: str) -> bool:
    """Whether ``text`` holds a run of letters or digits too long to be a term."""
    return any(len(run) > MAX_TERM_CHARS for run in _WORD.findall(normalise(text)))


def first_term_at(text: str, wanted: frozenset[str]) -> int | None:
    """The character offset in ``text`` (not normalised) of the first run holding one
    of ``wanted``, or ``None``. Runs are found in the text as written and normalised one
    by one, so the offset points into what a person reads."""
    for match in _pattern().finditer(text):
        if not wanted.isdisjoint(terms(match.group())):
            return match.start()
    return None

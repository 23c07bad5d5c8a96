"""The quick YAML path: the frontmatter shapes most documents use, read without libyaml.

At 10,000 experiments a cold build takes 2.6 s through libyaml alone and 0.43 s with this
path. It answers only for text in the grammar below, where YAML's rules give exactly the
mapping it reads; for anything else it returns ``None`` and the full loader
(:func:`~ledger_context.frontmatter.load_with_yaml`) decides. A differential test against
libyaml (tests/test_quick_yaml.py) and a corpus hit rate over ledger_fixtures/ prove it.
``LEDGER_CONTEXT_QUICK_YAML=off`` switches it off (:func:`enabled`).

Grammar (lines separated by ``\n``; every regex below is possessive or anchored, so a
line is matched in time linear in its length)::

    frontmatter := line ("\n" line)*          no character in UNSAFE anywhere
    line        := top | indented | comment | blank
    top         := KEY ":" [" "+ (plain | single | double | flow)] " "*
    indented    := INDENT (KEY ":" | "-") " "+ (plain | single | double) " "*
    comment     := "#" any*                   at column 0 only
    blank       := " "*
    KEY         := [A-Za-z_][A-Za-z0-9_-]*
    INDENT      := " "+                       the same for every line of one block
    plain       := FIRST SAFE* ((":" not before " " or the end | "#" not after " ") SAFE*)*
    single      := "'" ([^'] | "''")* "'"     no UNSAFE inside
    double      := '"' [^"\\]* '"'            no escapes at all
    flow        := "[" " "* [ITEM (" "* "," " "* ITEM)*] " "* "]"
    ITEM        := FIRST [^,[]{}#:]*          trailing spaces stripped
    SAFE        := any character but UNSAFE, "#" and ":"
    FIRST       := a letter, a digit, one of _./(+$=~^< or a non-ASCII character that
                   cannot start YAML syntax
    UNSAFE      := C0 controls and tab (newline aside), DEL, C1 controls, U+2028,
                   U+2029, U+FDD0-U+FDEF, U+FEFF, U+FFFE, U+FFFF, surrogates

An indented block belongs to the ``KEY:`` line above it with no value; it is a mapping
when its first line is ``KEY: value`` and a list when it is ``- value``, and all its
lines must be of that one form. A top ``KEY:`` with no block is the empty string (what
the base loader reads). Every scalar is a string: plain ones with trailing spaces
stripped, single-quoted ones with ``''`` read as ``'``, double-quoted ones as written.
A key given twice anywhere returns ``None`` so the full loader reports it.
"""

from __future__ import annotations

import os
import re
from typing import Any

QUICK_ENV = "LEDGER_CONTEXT_QUICK_YAML"
"""Set to ``off`` (or ``0``, ``no``, ``false``) to send every frontmatter to the full loader."""

_OFF = frozenset({"off", "0", "no", "false"})


def enabled() -> bool:
    """Whether the quick path is on (read on each call, so a test or a process can switch it)."""
    return os.environ.get(QUICK_ENV, "").strip().casefold() not in _OFF


# _UNSAFE: characters libyaml rejects or reads as line breaks, tabs, and a few it allows
# that we need not.
_UNSAFE_HIGH = r"\x7f-\x9f\u2028\u2029\ufdd0-\ufdef\ufeff\ufffe\uffff\ud800-\udfff"
_UNSAFE = rf"\x00-\x1f{_UNSAFE_HIGH}"
_HAS_UNSAFE = re.compile(rf"[\x00-\x09\x0b-\x1f{_UNSAFE_HIGH}]")  # all of them but \n
_FIRST = r"A-Za-z0-9_./(+$=~^<\u00c0-\u2027\u202a-\ud7ff\ue000-\ufdcf\U00010000-\U0010ffff"
_SAFE = rf"[^{_UNSAFE}#:]"
# A one-line plain scalar; trailing spaces are matched too and stripped by the caller.
_PLAIN = rf"[{_FIRST}]{_SAFE}*+(?:(?::(?! |$)|(?<! )#){_SAFE}*+)*+"
_SINGLE = rf"'(?:[^'{_UNSAFE}]|'')*'"
_DOUBLE = rf'"[^"\\{_UNSAFE}]*"'
_ITEM = rf"[{_FIRST}][^,\[\]{{}}#:{_UNSAFE}]*+"
_FLOW = rf"\[ *(?:{_ITEM}(?: *, *{_ITEM})*)? *\]"
_KEY = r"[A-Za-z_][A-Za-z0-9_-]*"
_SCALAR = rf"(?:(?P<plain>{_PLAIN})|(?P<single>{_SINGLE})|(?P<double>{_DOUBLE})|(?P<flow>{_FLOW}))"
_LINE = re.compile(
    rf"^(?:(?P<key>{_KEY}):(?:[ ]+{_SCALAR})?|(?P<indent>[ ]+)(?:(?P<sub>{_KEY}):|-)[ ]+"
    rf"(?P<value>{_PLAIN}|{_SINGLE}|{_DOUBLE})|#[^\n]*|)[ ]*$",
    re.MULTILINE,
)


def _unquote(value: str) -> str:
    """The string a quick-path scalar stands for."""
    if value[0] == "'":
        return value[1:-1].replace("''", "'")
    if value[0] == '"':
        return value[1:-1]
    return value.rstrip(" ")


def quick_mapping(frontmatter: str) -> dict[str, Any] | None:
    """The mapping of a frontmatter in the grammar of this module, or ``None``.

    ``None`` sends the text to the full loader: a line outside the grammar, a character
    in UNSAFE, a duplicate key, or an indented line in the wrong place.
    """
    if _HAS_UNSAFE.search(frontmatter) is not None:
        return None
    lines = _LINE.findall(frontmatter)
    if len(lines) != frontmatter.count("\n") + 1:
        return None  # some line is of another shape
    mapping: dict[str, Any] = {}
    block: dict[str, str] | list[str] | None = None
    open_key = ""
    indent = ""
    for key, plain, single, double, flow, line_indent, sub, value in lines:
        if key:
            if key in mapping:
                return None
            if plain:
                mapping[key] = plain.rstrip(" ")
            elif single or double:
                mapping[key] = _unquote(single or double)
            elif flow:
                inner = flow[1:-1].strip(" ")
                mapping[key] = [item.strip(" ") for item in inner.split(",")] if inner else []
            else:
                mapping[key] = ""
                open_key, block = key, None
                continue
            open_key = ""
        elif line_indent:
            if not open_key:
                return None
            if block is None:
                indent = line_indent
                block = {} if sub else []
                mapping[open_key] = block
            elif line_indent != indent:
                return None
            value = _unquote(value) if value[0] in "'\"" else value.rstrip(" ")
            if isinstance(block, dict):
                if not sub or sub in block:
                    return None
                block[sub] = value
            elif sub:
                return None
            else:
                block.append(value)
    return mapping

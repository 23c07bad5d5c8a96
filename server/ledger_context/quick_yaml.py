"""The quick YAML path: the frontmatter shapes real documents use, read without libyaml.

Loading a frontmatter through libyaml and PyYAML's Python constructor costs about
0.3 ms; this path reads the same text in a few tens of microseconds. It answers only for
text in the grammar below, where YAML's rules give exactly the mapping it reads; for
anything else it returns ``None`` and the full loader
(:func:`~ledger_context.frontmatter.load_with_yaml`) decides. A differential test against
libyaml (tests/test_quick_yaml.py) and a corpus hit rate over ledger_fixtures/ prove it.
``LEDGER_CONTEXT_QUICK_YAML=off`` switches it off (:func:`enabled`).

Grammar (lines separated by ``\\n``; every regex is possessive or anchored, so a line is
matched in time linear in its length, and the loop does constant work per line)::

    frontmatter := line ("\\n" line)*        no character in UNSAFE anywhere
    line        := INDENT [DASH] [KEY ":" (" "+ | end)] [value] [" "+] [comment]
                 | blank | block-text
    DASH        := "-" " "+                 a sequence item
    value       := plain | single | double | flow | block-header
    comment     := "#" any*                 at the line start or after a space
    blank       := " "*
    KEY         := [A-Za-z0-9_][A-Za-z0-9_-]{0,127}
    INDENT      := " "*
    plain       := START (NS | ":" before NS | "#" after NS | " "+ before NS)*
    single      := "'" ([^'] | "''")* "'"
    double      := '"' [^"\\\\]* '"'           no escapes at all
    flow        := "[" " "* [ITEM (" "* "," " "* ITEM)*] " "* "]"
    ITEM        := START [^,[]{}#:]* | single | double    plain items lose trailing spaces
    block-header:= ("|" | ">") ["-"]       then only spaces to the end of the line
    START       := FIRST | "-" before FIRST
    NS          := any character but UNSAFE, space, "#" and ":"
    FIRST       := a letter, a digit, one of _./(+$=~^< or a non-ASCII character that
                   cannot start YAML syntax
    UNSAFE      := C0 controls and tab (newline aside), DEL, C1 controls, U+2028,
                   U+2029, U+FDD0-U+FDEF, U+FEFF, U+FFFE, U+FFFF, surrogates

Structure, by indentation (the number of leading spaces):

* The top is a mapping at indentation 0: every line there is ``KEY: ...``.
* ``KEY:`` with no value opens a block: the next line that is neither blank nor a
  comment starts it when it is indented deeper (a mapping when it is ``KEY: ...``, a
  sequence when it is ``- ...``) or when it is a ``- ...`` at the key's own indentation
  (YAML's indentless sequence); otherwise the key's value is the empty string. Every
  line of a block has the block's indentation; a line less indented closes blocks down
  to one of exactly its indentation, or the text is declined.
* A sequence item is a scalar, a flow list, or ``KEY: ...``, which opens a mapping
  whose indentation is the column of that key (``- name: x`` then ``  verdict: y``).
* A block scalar (``|``, ``|-``, ``>``, ``>-`` after ``KEY:``) holds the following lines
  indented deeper than its mapping, all at the indentation of the first, none ending in
  a space, with no blank line between them: ``|`` joins them with newlines, ``>`` with
  spaces; ``-`` strips the final newline, without it one is kept unless the scalar ends
  the text (what libyaml reads).
* Collections nest at most :data:`MAX_QUICK_DEPTH` levels (the top mapping is level 1),
  far below spec §2's 64: anything deeper goes to the full loader, which bounds it.

Every scalar is a string, as PyYAML's base loader reads it: plain ones as written,
single-quoted ones with ``''`` read as ``'``, double-quoted ones as written. Blank lines
and comments outside block scalars are ignored. A key given twice in one mapping
returns ``None`` so the full loader reports it.
"""

from __future__ import annotations

import os
import re
from typing import Any

QUICK_ENV = "LEDGER_CONTEXT_QUICK_YAML"
"""Set to ``off`` (or ``0``, ``no``, ``false``) to send every frontmatter to the full loader."""

MAX_QUICK_DEPTH = 16
"""The deepest collection the quick path reads (the top mapping is level 1)."""

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
_START = rf"(?:[{_FIRST}]|-(?=[{_FIRST}]))"
_NS = rf"[^ {_UNSAFE}#:]"
# A one-line plain scalar without its trailing spaces, in runs: "#" is reached only
# after a character that is not a space, ":" only before one that is not.
_PLAIN = rf"{_START}(?:[^ {_UNSAFE}:]++|:(?=[^ {_UNSAFE}])| ++(?={_NS}))*+"
_SINGLE = rf"'(?:[^'{_UNSAFE}]|'')*+'"
_DOUBLE = rf'"[^"\\{_UNSAFE}]*+"'
_ITEM_PLAIN = rf"{_START}[^,\[\]{{}}#:{_UNSAFE}]*+"
_ITEM = rf"(?:{_ITEM_PLAIN}|{_SINGLE}|{_DOUBLE})"
_FLOW = rf"\[ *+(?:{_ITEM}(?: *+, *+{_ITEM})*+)? *+\]"
_KEY = r"[A-Za-z0-9_][A-Za-z0-9_-]{0,127}+"
_EOL = r"(?![^\n])"  # the end of a line
_VALUE = (
    rf"(?:(?P<plain>{_PLAIN})|(?P<single>{_SINGLE})|(?P<double>{_DOUBLE})|(?P<flow>{_FLOW})"
    rf"|(?P<block>[|>]-?)(?= *+{_EOL}))"
)
# One match per line, each starting where the last one ended (no search between them):
# ``rest`` is the line after its indentation (block scalars need it verbatim), ``other``
# is set when the line is outside the grammar.
_LINE = re.compile(
    rf"(?P<indent> *+)(?P<rest>(?P<dash>- ++)?(?:(?P<key>{_KEY}):(?![^ \n]) *+)?{_VALUE}? *+"
    rf"(?:(?<![^ \n])#[^\n]*+)?{_EOL}|(?P<other>[^\n]++))\n?"
)
_FLOW_ITEMS = re.compile(rf"(?P<plain>{_ITEM_PLAIN})|(?P<single>{_SINGLE})|(?P<double>{_DOUBLE})")


def _flow_list(flow: str) -> list[str]:
    """The items of a flow list the grammar accepted."""
    if "'" not in flow and '"' not in flow:
        inner = flow[1:-1].strip(" ")
        return [item.strip(" ") for item in inner.split(",")] if inner else []
    return [
        plain.rstrip(" ") if plain else single[1:-1].replace("''", "'") if single else double[1:-1]
        for plain, single, double in _FLOW_ITEMS.findall(flow, 1, len(flow) - 1)
    ]


def _block_scalar(style: str, lines: list[str], final_newline: bool) -> str:
    """The string of a block scalar of ``lines`` (all at one indentation, no blank ones)."""
    text = ("\n" if style[0] == "|" else " ").join(lines)
    return text + "\n" if final_newline and not style.endswith("-") else text


def quick_mapping(frontmatter: str) -> dict[str, Any] | None:
    """The mapping of a frontmatter in the grammar of this module, or ``None``.

    ``None`` sends the text to the full loader: a line outside the grammar, a character
    in UNSAFE, a duplicate key, deep nesting, or a line at an indentation YAML would read
    otherwise than this path.
    """
    if _HAS_UNSAFE.search(frontmatter) is not None:
        return None
    root: dict[str, Any] = {}
    indents = [0]  # the open collections, innermost last, and their indentations
    containers: list[Any] = [root]
    opened: tuple[dict[str, Any], str, int] | None = None  # a "KEY:" whose block may follow
    scalar: tuple[dict[str, Any], str, int, str] | None = None  # an open block scalar
    scalar_lines: list[str] = []
    scalar_indent = 0
    after_scalar = False  # a blank line followed the block scalar's text
    lines = _LINE.findall(frontmatter)
    if not frontmatter.endswith("\n"):
        lines.pop()  # the empty match at the end of the text is no line
    for indent, rest, dash, key, plain, single, double, flow, block, other in lines:
        width = len(indent)
        if scalar is not None:
            parent, scalar_key, parent_indent, style = scalar
            if not rest:
                if not scalar_lines or width > scalar_indent:
                    return None
                after_scalar = True
                continue
            if not scalar_lines and width > parent_indent:
                scalar_indent = width
            if (scalar_lines or width > parent_indent) and width >= scalar_indent:
                if width > scalar_indent or after_scalar or rest[-1] == " ":
                    return None
                scalar_lines.append(rest)
                continue
            if not scalar_lines:
                return None
            parent[scalar_key] = _block_scalar(style, scalar_lines, True)
            scalar = None
        if other:
            return None
        if not rest or rest[0] == "#":
            continue  # a blank line or a comment
        if opened is not None:
            parent, open_key, key_indent = opened
            opened = None
            if width > key_indent or (width == key_indent and dash):
                if not dash and not key:
                    return None  # a scalar on the line after its key
                block_value: Any = [] if dash else {}
                parent[open_key] = block_value
                indents.append(width)
                containers.append(block_value)
                if len(indents) > MAX_QUICK_DEPTH:
                    return None
        while indents[-1] > width:
            indents.pop()
            containers.pop()
        if indents[-1] != width:
            return None
        top = containers[-1]
        if not dash and type(top) is list:  # the end of an indentless sequence
            indents.pop()
            containers.pop()
            if indents[-1] != width:
                return None
            top = containers[-1]
        if dash:
            if type(top) is not list:
                return None
            if not key:
                if plain:
                    top.append(plain)
                elif single:
                    top.append(single[1:-1].replace("''", "'"))
                elif double:
                    top.append(double[1:-1])
                elif flow:
                    if len(indents) + 1 > MAX_QUICK_DEPTH:
                        return None
                    top.append(_flow_list(flow))
                else:
                    return None  # an empty item or a block scalar in a sequence
                continue
            item: dict[str, Any] = {}
            top.append(item)
            width += len(dash)
            indents.append(width)
            containers.append(item)
            if len(indents) > MAX_QUICK_DEPTH:
                return None
            top = item
        elif not key:
            return None  # a scalar where a key belongs
        if key in top:
            return None
        if plain:
            top[key] = plain
        elif single:
            top[key] = single[1:-1].replace("''", "'")
        elif double:
            top[key] = double[1:-1]
        elif flow:
            if len(indents) + 1 > MAX_QUICK_DEPTH:
                return None
            top[key] = _flow_list(flow)
        elif block:
            top[key] = ""
            scalar = (top, key, width, block)
            scalar_lines = []
            after_scalar = False
        else:
            top[key] = ""
            opened = (top, key, width)
    if scalar is not None:
        if not scalar_lines:
            return None
        scalar[0][scalar[1]] = _block_scalar(scalar[3], scalar_lines, after_scalar)
    return root

"""The quick YAML path: the frontmatter shapes real documents use, read without libyaml.

Loading a frontmatter through libyaml and PyYAML's Python constructor costs about
0.3 ms; this path reads the same text in a few tens of microseconds. It answers only for
text in the grammar below, where YAML's rules give exactly the mapping it reads; for
anything else it returns ``None`` and the full loader
(:func:`~ledger_context.reader.frontmatter.load_with_yaml`) decides. A differential test against
libyaml (tests/test_quick_yaml.py) and a corpus hit rate over ledger_fixtures/ prove it.
``LEDGER_CONTEXT_QUICK_YAML=off`` switches it off (:class:`~ledger_context.reader.frontmatter.YamlOptions`).

Grammar (lines separated by ``\\n``; every regex is possessive or anchored, so a line is
matched in time linear in its length, and the loop does constant work per line)::

    frontmatter := line ("\\n" line)*        no character in UNSAFE anywhere
    line        := INDENT [DASH] [KEY ":" (" "+ | end)] [value] [" "+] [comment]
                 | blank | block-text
    DASH        := "-" " "+                 a sequence item
    value       := plain | single | double | flow | block-header
    comment     := "#" any*                 at the line start or after a space
    blank       := " "*
    KEY         := plain, at most 128 characters, not "<<"   (ms.date, Module Name)
    INDENT      := " "*
    plain       := START (NS | ":" before NS | "#" after NS | " "+ before NS)*
    single      := "'" ([^'] | "''")* "'"
    double      := '"' ([^"\\\\] | "\\" ["\\\\/])* '"'   the escapes \\" \\\\ \\/ only
    flow        := "[" " "* [ITEM (" "* "," " "* ITEM)*] " "* "]"
    ITEM        := START [^,[]{}#:]* | single | double    plain items lose trailing spaces
    block-header:= ("|" | ">") ["-"]       then only spaces to the end of the line
    START       := FIRST | "-" before FIRST
    NS          := any character but UNSAFE, space, "#" and ":"
    FIRST       := a letter, a digit, one of _./(+$=~^< or a non-ASCII character that
                   cannot start YAML syntax
    UNSAFE      := C0 controls and tab (newline aside), DEL, C1 controls, U+2028,
                   (a tab among the blanks that end a line after text is read as a space)
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
* A plain value of a ``KEY: value`` line (no comment after it) continues on the next
  lines indented deeper than its mapping that hold only a plain scalar, with no blank
  line or comment between them; they are joined with single spaces (YAML's folding).
* Collections nest at most :data:`MAX_QUICK_DEPTH` levels (the top mapping is level 1),
  far below spec §2's 64: anything deeper goes to the full loader, which bounds it.

Every scalar is a string, as PyYAML's base loader reads it: plain ones as written,
single-quoted ones with ``''`` read as ``'``, double-quoted ones with their escapes read. Blank lines
and comments outside block scalars are ignored. A key given twice in one mapping keeps
its last value, as PyYAML's constructor does, and is returned with its line and column
so the caller reports it as it reports the full loader's.
"""

from __future__ import annotations

import functools
import re
from typing import Any

MAX_QUICK_DEPTH = 16
"""The deepest collection the quick path reads (the top mapping is level 1)."""

# UNSAFE: characters libyaml rejects or reads as line breaks, tabs, and a few it allows
# that we need not. quick_mapping declines any text _HAS_UNSAFE finds, so the classes
# below need only stop at the line break. Large ranges cost the regex compiler a loop over
# every code point in them, once per class, at import: so UNSAFE is not repeated in each
# class, and FIRST (A-Za-z0-9_./(+$=~^< and U+00C0-U+2027, U+202A-U+D7FF, U+E000-U+FDCF,
# U+10000-U+10FFFF) is written as its complement.
_UNSAFE_HIGH = r"\x7f-\x9f\u2028\u2029\ufdd0-\ufdef\ufeff\ufffe\uffff\ud800-\udfff"
_HAS_UNSAFE = rf"[\x00-\x09\x0b-\x1f{_UNSAFE_HIGH}]"  # all of them but \n
_FIRST = r"[^\x00-\x23%&')*,\-:;>?@\[\\\]`{|}\x7f-\xbf\u2028\u2029\ud800-\udfff\ufdd0-\uffff]"
_START = rf"(?:{_FIRST}|-(?={_FIRST}))"
_NS = r"[^ \n#:]"
# A one-line plain scalar without its trailing spaces, in runs: "#" is reached only
# after a character that is not a space, ":" only before one that is not.
_PLAIN = rf"{_START}(?:[^ \n:]++|:(?=[^ \n])| ++(?={_NS}))*+"
_SINGLE = r"'(?:[^'\n]|'')*+'"
_DOUBLE = r'"(?:[^"\\\n]++|\\["\\/])*+"'
_ITEM_PLAIN = rf"{_START}[^,\[\]{{}}#:\n]*+"
_ITEM = rf"(?:{_ITEM_PLAIN}|{_SINGLE}|{_DOUBLE})"
_FLOW = rf"\[ *+(?:{_ITEM}(?: *+, *+{_ITEM})*+)? *+\]"
_KEY = _PLAIN  # YAML's plain key: a one-line plain scalar before ": " or a final ":"
MAX_KEY_CHARS = 128
"""A longer key is declined (libyaml refuses a simple key past 1024 characters)."""
_EOL = r"(?![^\n])"  # the end of a line
_VALUE = (
    rf"(?:(?P<plain>{_PLAIN})|(?P<single>{_SINGLE})|(?P<double>{_DOUBLE})|(?P<flow>{_FLOW})"
    rf"|(?P<block>[|>]-?)(?= *+{_EOL}))"
)
# One match per line, each starting where the last one ended (no search between them):
# ``rest`` is the line after its indentation (block scalars need it verbatim), ``other``
# is set when the line is outside the grammar.
_LINE = (
    rf"(?P<indent> *+)(?P<rest>(?P<dash>- ++)?(?:(?P<key>{_KEY}):(?![^ \n]) *+)?{_VALUE}? *+"
    rf"(?:(?<![^ \n])#[^\n]*+)?{_EOL}|(?P<other>[^\n]++))\n?"
)
_FLOW_ITEMS = rf"(?P<plain>{_ITEM_PLAIN})|(?P<single>{_SINGLE})|(?P<double>{_DOUBLE})"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled on first use: compiling these three cost about 6 ms at import,
    paid by every command, even one that reads no frontmatter."""
    return re.compile(pattern)


def _flow_list(flow: str) -> list[str]:
    """The items of a flow list the grammar accepted."""
    if "'" not in flow and '"' not in flow:
        inner = flow[1:-1].strip(" ")
        return [item.strip(" ") for item in inner.split(",")] if inner else []
    return [
        plain.rstrip(" ") if plain else single[1:-1].replace("''", "'") if single else _double(double)
        for plain, single, double in _compiled(_FLOW_ITEMS).findall(flow, 1, len(flow) - 1)
    ]


def _double(quoted: str) -> str:
    """A double-quoted scalar's string: the grammar lets only \\", \\\\ and \\/ through."""
    inner = quoted[1:-1]
    if "\\" not in inner:
        return inner
    return _compiled(r"\\(.)").sub(r"\1", inner)  # one pass, left to right


def _block_scalar(style: str, lines: list[str], final_newline: bool) -> str:
    """The string of a block scalar of ``lines`` (all at one indentation, no blank ones)."""
    text = ("\n" if style[0] == "|" else " ").join(lines)
    return text + "\n" if final_newline and not style.endswith("-") else text


_DECLINE = object()
"""What a step of the quick path returns when the text must go to the full loader."""


def _value(plain: str, single: str, double: str, flow: str, depth: int) -> Any:
    """The value of a one-line scalar or flow list at nesting ``depth``; ``None`` when the
    line holds none, :data:`_DECLINE` when it is too deep."""
    if plain:
        return plain
    if single:
        return single[1:-1].replace("''", "'")
    if double:
        return _double(double)
    if flow:
        return _DECLINE if depth + 1 > MAX_QUICK_DEPTH else _flow_list(flow)
    return None


class _Reader:
    """The state of one quick read: the open collections, a ``KEY:`` whose block may
    follow, and an open block scalar. Each method returns False to decline."""

    def __init__(self) -> None:
        self.root: dict[str, Any] = {}
        self.indents = [0]  # the open collections, innermost last, and their indentations
        self.containers: list[Any] = [self.root]
        self.opened: tuple[dict[str, Any], str, int] | None = None
        self.scalar: tuple[dict[str, Any], str, int, str] | None = None
        self.scalar_lines: list[str] = []
        self.scalar_indent = 0
        self.after_scalar = False  # a blank line followed the block scalar's text
        self.line = 0  # the 1-based number of the line being read
        self.duplicates: list[tuple[int, int]] = []  # line and column of each key given again
        # The last ``KEY: plain`` line, which the next lines may continue: its mapping, key,
        # the mapping's indentation and the line after its indentation.
        self.plain: tuple[dict[str, Any], str, int, str] | None = None
        self.continuation: list[str] = []  # the lines continuing it, not joined yet

    def scalar_line(self, width: int, rest: str) -> bool | None:
        """A line while a block scalar is open: True when it belongs to the scalar (or is a
        blank line after it), None when the scalar ended before it, False to decline."""
        assert self.scalar is not None
        parent, scalar_key, parent_indent, style = self.scalar
        if not rest:
            if not self.scalar_lines or width > self.scalar_indent:
                return False
            self.after_scalar = True
            return True
        if not self.scalar_lines and width > parent_indent:
            self.scalar_indent = width
        if (self.scalar_lines or width > parent_indent) and width >= self.scalar_indent:
            if width > self.scalar_indent or self.after_scalar or rest[-1] == " ":
                return False
            self.scalar_lines.append(rest)
            return True
        if not self.scalar_lines:
            return False
        parent[scalar_key] = _block_scalar(style, self.scalar_lines, True)
        self.scalar = None
        return None

    def open_block(self, width: int, dash: str, key: str) -> bool:
        """The line after a ``KEY:``: it may open that key's block mapping or sequence."""
        assert self.opened is not None
        parent, open_key, key_indent = self.opened
        self.opened = None
        if width > key_indent or (width == key_indent and dash):
            if not dash and not key:
                return False  # a scalar on the line after its key
            block_value: Any = [] if dash else {}
            parent[open_key] = block_value
            self.indents.append(width)
            self.containers.append(block_value)
            if len(self.indents) > MAX_QUICK_DEPTH:
                return False
        return True

    def container_at(self, width: int, dash: str) -> Any:
        """The collection a line at ``width`` belongs to, closing deeper ones, or
        :data:`_DECLINE`."""
        indents, containers = self.indents, self.containers
        while indents[-1] > width:
            indents.pop()
            containers.pop()
        if indents[-1] != width:
            return _DECLINE
        top = containers[-1]
        if not dash and type(top) is list:  # the end of an indentless sequence
            indents.pop()
            containers.pop()
            if indents[-1] != width:
                return _DECLINE
            top = containers[-1]
        return top

    def continued(self, width: int, rest: str, plain: str) -> bool:
        """Whether a line continues the plain value of the ``KEY: plain`` line before it
        (deeper than its mapping, a plain scalar alone), appending it if so."""
        last = self.plain
        if last is None or width <= last[2] or not plain or rest.rstrip(" ") != plain or " #" in last[3]:
            return False
        self.continuation.append(plain)  # joined once (close_plain): linear in the lines
        return True

    def close_plain(self) -> None:
        """End the open plain value: its continuation lines joined to it, once."""
        if self.continuation:
            assert self.plain is not None
            mapping, key = self.plain[:2]
            mapping[key] = " ".join([mapping[key], *self.continuation])
            self.continuation = []
        self.plain = None

    def entry(self, width: int, dash: str, key: str, fields: tuple[str, str, str, str], block: str) -> bool:
        """One ``- item``, ``- key: value`` or ``key: value`` line."""
        top = self.container_at(width, dash)
        if top is _DECLINE:
            return False
        depth = len(self.indents)
        if dash:
            if type(top) is not list:
                return False
            if not key:
                item_value = _value(*fields, depth)
                if item_value is None or item_value is _DECLINE:
                    return False  # an empty item or a block scalar in a sequence; too deep
                top.append(item_value)
                return True
            item: dict[str, Any] = {}
            top.append(item)
            width += len(dash)
            self.indents.append(width)
            self.containers.append(item)
            if len(self.indents) > MAX_QUICK_DEPTH:
                return False
            top, depth = item, len(self.indents)
        elif not key:
            return False  # a scalar where a key belongs
        if key in top:
            self.duplicates.append((self.line, width + 1))
        value = _value(*fields, depth)
        if value is _DECLINE:
            return False
        if value is not None:
            top[key] = value
            if fields[0]:
                self.plain = (top, key, width, "")  # a comment after it ends it: checked by the caller
        elif block:
            top[key] = ""
            self.scalar = (top, key, width, block)
            self.scalar_lines = []
            self.after_scalar = False
        else:
            top[key] = ""
            self.opened = (top, key, width)
        return True

    def finish(self) -> dict[str, Any] | None:
        self.close_plain()
        if self.scalar is not None:
            if not self.scalar_lines:
                return None
            self.scalar[0][self.scalar[1]] = _block_scalar(
                self.scalar[3], self.scalar_lines, self.after_scalar
            )
        return self.root


def _trailing_tabs_as_spaces(frontmatter: str) -> str | None:
    """``frontmatter`` with each run of blanks holding a tab at the end of a line after
    text written as one space, or ``None`` when a tab is anywhere else.

    YAML skips such blanks after a scalar, a flow list or a comment (editors leave them on
    real pages), and a space there reads the same. Not after ``:``, ``-``, ``|`` or
    ``>``, where libyaml may take a tab for the start of a token, nor on a line of blanks
    alone; in a block scalar the space still sends the text to the full loader, since
    there the blanks are text.
    """
    lines = frontmatter.split("\n")
    for number, line in enumerate(lines):
        if "\t" in line:
            text = line.rstrip(" \t")
            if not text or "\t" in text or text[-1] in ":-|>":
                return None
            lines[number] = text + " "
    return "\n".join(lines)


def quick_mapping(frontmatter: str) -> dict[str, Any] | None:
    """The mapping of a frontmatter in the grammar of this module, or ``None`` (see
    :func:`quick_load`, which also gives the duplicate keys)."""
    loaded = quick_load(frontmatter)
    return None if loaded is None else loaded[0]


def quick_load(frontmatter: str) -> tuple[dict[str, Any], list[tuple[int, int]]] | None:
    """The mapping of a frontmatter in the grammar of this module and the 1-based line
    and column of each key given again in its mapping, or ``None``.

    ``None`` sends the text to the full loader: a line outside the grammar, a character
    in UNSAFE, a key longer than :data:`MAX_KEY_CHARS` or a merge key (``<<``), deep
    nesting, or a line at an indentation YAML would read otherwise than this path.
    """
    text = _trailing_tabs_as_spaces(frontmatter) if "\t" in frontmatter else frontmatter
    if text is None or _compiled(_HAS_UNSAFE).search(text) is not None:
        return None
    reader = _Reader()
    lines = _compiled(_LINE).findall(text)
    if not text.endswith("\n"):
        lines.pop()  # the empty match at the end of the text is no line
    indents, containers = reader.indents, reader.containers
    entry = reader.entry  # bound once: this loop runs for every frontmatter line
    for number, (indent, rest, dash, key, plain, single, double, flow, block, other) in enumerate(lines, 1):
        width = len(indent)
        if key and (len(key) > MAX_KEY_CHARS or key == "<<"):
            return None
        if key and not dash and (plain or double or flow) and reader.opened is None and reader.scalar is None:
            # The usual line, ``key: value`` or ``key: [a, b]`` at the top or at the
            # indentation of the open mapping, read here without the steps below (what
            # entry() does for it): close what the line closes, note a duplicate, store.
            if not width:
                del indents[1:], containers[1:]
            if (
                indents[-1] == width
                and type(top := containers[-1]) is dict
                and len(indents) < MAX_QUICK_DEPTH
            ):
                if reader.plain is not None:
                    reader.close_plain()
                if key in top:
                    reader.duplicates.append((number, width + 1))
                if plain:
                    top[key] = plain
                    reader.plain = (top, key, width, rest)
                else:
                    top[key] = _flow_list(flow) if flow else _double(double)
                continue
        if reader.scalar is not None:
            taken = reader.scalar_line(width, rest)
            if taken is False:
                return None
            if taken:
                continue
        if other:
            return None
        if not dash and not key and reader.continued(width, rest, plain):
            continue
        reader.close_plain()
        if not rest or rest[0] == "#":
            continue  # a blank line or a comment
        if reader.opened is not None and not reader.open_block(width, dash, key):
            return None
        reader.line = number
        if not entry(width, dash, key, (plain, single, double, flow), block):
            return None
        if reader.plain is not None and reader.plain[3] == "":
            reader.plain = (*reader.plain[:3], rest)
    mapping = reader.finish()
    return None if mapping is None else (mapping, reader.duplicates)

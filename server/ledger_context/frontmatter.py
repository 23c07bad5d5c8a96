"""Decoding a file and splitting and loading its YAML frontmatter (spec §2).

The frontmatter text is kept verbatim and never re-serialised; it is loaded without
implicit typing (PyYAML's ``CBaseLoader``), so every scalar stays a string and no date,
boolean or number conversion can lose or change a value.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import yaml

try:
    from yaml import CBaseLoader as _BaseLoader

    LIBYAML = True
    """True when PyYAML's C loader (libyaml) is in use; ``check`` warns when it is not."""
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import BaseLoader as _BaseLoader  # type: ignore[assignment]

    LIBYAML = False

MAX_NESTING = 64
"""Frontmatter nested deeper than this is refused, the same in every process (spec §2)."""

_LEADING_BLANK_LINES = re.compile(r"(?:[ \t]*\n)*")
_BOUNDARY_LINE = re.compile(r"-{3,}[ \t]*$", re.MULTILINE)
_CLOSING_LINE = re.compile(r"^-{3,}[ \t]*$", re.MULTILINE)
_YAML_HINT = "fix the YAML there; quote a value that holds ': ' or starts with a special character"
# No leading \s*: tried at every offset of a run of spaces it was quadratic; the caller
# collapses whitespace anyway.
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")


class DecodeError(ValueError):
    """Bytes that are not valid UTF-8; ``offset`` is the first bad byte (0-based)."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"not valid UTF-8 at byte offset {offset}")
        self.offset = offset


def decode_text(data: bytes) -> str:
    """Decode ``data`` as strict UTF-8, drop one leading BOM, make every line end ``\\n``.

    Raises :class:`DecodeError` with the byte offset of the first invalid byte (spec §2).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(exc.start) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


@dataclass(frozen=True, slots=True)
class Split:
    """A text split at its frontmatter (spec §2).

    ``frontmatter`` is the text strictly between the two boundary lines (``None`` when the
    text has no frontmatter, or an unclosed one: see ``unclosed``); ``first_line`` is the
    1-based line number of its first line in the file; ``body`` is what follows the
    closing boundary line.
    """

    frontmatter: str | None
    body: str
    first_line: int = 0
    unclosed: bool = False


def split_frontmatter(text: str) -> Split:
    """Split ``text`` (already decoded) at its frontmatter fences (spec §2).

    Leading lines of only spaces and tabs are ignored; the text must then start with a
    boundary line (three or more ``-``, then only spaces or tabs) and the frontmatter
    ends at the next boundary line.
    """
    start = _LEADING_BLANK_LINES.match(text).end()  # type: ignore[union-attr]
    opening = _BOUNDARY_LINE.match(text, start)
    if opening is None:
        return Split(None, text)
    content = opening.end() + 1
    if content > len(text):
        return Split(None, text, unclosed=True)
    closing = _CLOSING_LINE.search(text, content)
    if closing is None:
        return Split(None, text, unclosed=True)
    frontmatter = text[content : closing.start()]
    if frontmatter:
        frontmatter = frontmatter[:-1]
    first_line = text.count("\n", 0, content) + 1
    return Split(frontmatter, text[closing.end() + 1 :], first_line)


class FrontmatterError(ValueError):
    """Frontmatter that cannot be loaded as a YAML mapping.

    ``line`` and ``column`` are 1-based and relative to the frontmatter text, or ``None``;
    the message never quotes the document.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class DuplicateKey:
    """A mapping key given twice; the last value is kept (spec §2). Positions are 1-based."""

    line: int
    column: int


class _Loader(_BaseLoader):
    """``CBaseLoader`` that records duplicate keys and bounds nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[DuplicateKey] = []
        self.depth = 0

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise FrontmatterError(
                    f"frontmatter is nested more than {MAX_NESTING} levels deep (flatten it)",
                    node.start_mark.line + 1,
                    node.start_mark.column + 1,
                )
            return super().construct_object(node, deep)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                raise FrontmatterError(
                    "a mapping key is a list or mapping; keys must be plain strings",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
            if key in mapping:
                mark = key_node.start_mark
                self.duplicates.append(DuplicateKey(mark.line + 1, mark.column + 1))
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _unquote_document(text: str) -> str:
    """``text`` without what it quotes from the document; quoted YAML punctuation such as
    ``','`` or ``']'`` stays, since it names the syntax, not the content."""

    def keep_syntax(match: re.Match[str]) -> str:
        quoted = match.group().strip()
        inner = quoted[1:-1]
        if 0 < len(inner) <= 2 and not any(c.isalnum() for c in inner):
            return " " + quoted
        return ""

    return " ".join(_QUOTED.sub(keep_syntax, text).split())


def _describe(exc: yaml.YAMLError) -> str:
    """PyYAML's description of the fault, without anything it quotes from the document."""
    problem = _unquote_document(str(getattr(exc, "problem", None) or type(exc).__name__))
    context = _unquote_document(str(getattr(exc, "context", None) or ""))
    return f"{context}, {problem}" if context else problem


# The quick path: frontmatter made only of lines of the forms below loads, under YAML's
# rules, to exactly the mapping these patterns read, so libyaml need not be called. Any
# other line, a duplicate key, or anything unusual sends the text to the full loader.
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
    """The mapping of a frontmatter of the simplest shapes, or ``None`` for the full loader.

    Accepted lines: blank lines, ``#`` comments at column 0, ``key: scalar``,
    ``key: [a, b]`` and ``key:`` at column 0, and under a ``key:`` an indented block of
    ``key: scalar`` or ``- scalar`` lines at one indentation. A scalar is a one-line
    plain scalar or a simple single- or double-quoted string (no escapes). The result
    equals what :func:`load_with_libyaml` returns; any duplicate key returns ``None``.
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


def _position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a reader offset (libyaml counts UTF-8 bytes)."""
    index = len(text.encode("utf-8")[:offset].decode("utf-8", "ignore")) if LIBYAML else offset
    index = min(index, len(text))
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 1, index - line_start + 1


def load_mapping(frontmatter: str) -> tuple[dict[Any, Any], list[DuplicateKey]]:
    """Load frontmatter text as a YAML mapping without implicit typing (spec §2).

    Returns the mapping (scalars are ``str``; an empty or comment-only frontmatter is
    ``{}``) and the duplicate keys met. Raises :class:`FrontmatterError` when the YAML
    does not parse, is not a mapping, or nests deeper than :data:`MAX_NESTING`.
    """
    quick = quick_mapping(frontmatter)
    if quick is not None:
        return quick, []
    return load_with_libyaml(frontmatter)


def load_with_libyaml(frontmatter: str) -> tuple[dict[Any, Any], list[DuplicateKey]]:
    """:func:`load_mapping` without the quick path: always PyYAML's (C) base loader."""
    loader = _Loader(frontmatter)
    try:
        data = loader.get_single_data()
    except FrontmatterError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise FrontmatterError(
            f"YAML does not parse: {_describe(exc)} ({_YAML_HINT})", line, column
        ) from None
    except yaml.reader.ReaderError as exc:
        line, column = _position(frontmatter, exc.position)
        raise FrontmatterError(
            "frontmatter holds a control character or other character YAML does not allow; remove it",
            line,
            column,
        ) from None
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"YAML does not parse: {_describe(exc)} ({_YAML_HINT})") from None
    except RecursionError:
        raise FrontmatterError("frontmatter is nested too deeply (flatten it)") from None
    finally:
        loader.dispose()
    if data is None:
        return {}, loader.duplicates
    if not isinstance(data, dict):
        shape = "a list" if isinstance(data, list) else "a single value"
        raise FrontmatterError(
            f"frontmatter is {shape}, not a mapping of keys to values (write one key: value per line)", 1, 1
        )
    return data, loader.duplicates

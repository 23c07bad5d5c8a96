"""Decoding a file and splitting and loading its YAML frontmatter (spec §2).

The frontmatter text is kept verbatim and never re-serialised; it is loaded without
implicit typing (PyYAML's ``CBaseLoader``, or its pure-Python ``BaseLoader`` where libyaml
is missing or :class:`YamlOptions` ask for it), so every scalar stays a string
and no date, boolean or number conversion can lose or change a value. The quick path for
the shapes real frontmatter uses lives in :mod:`~ledger_context.reader.quick_yaml`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from ..model.values import Record
from . import quick_yaml
from .yaml_events import build_from_events

if TYPE_CHECKING:
    import yaml

# PyYAML is imported where a frontmatter first needs it, not at the top: the quick path
# reads nearly every frontmatter, and importing PyYAML (whose reader compiles a regex of
# large Unicode ranges) costs about a tenth of a short ``pack`` process.


@functools.cache
def libyaml_available() -> bool:
    """Whether PyYAML's C loader (libyaml) is available."""
    import yaml

    return bool(getattr(yaml, "__with_libyaml__", False))


YamlLoader = Literal["quick", "libyaml", "python"]
"""Which loader read a frontmatter: the quick path, libyaml, or PyYAML's pure-Python one."""

YAML_ENV = "LEDGER_CONTEXT_YAML"
"""``python`` loads every frontmatter with PyYAML's pure-Python ``BaseLoader`` even where
libyaml is present (CI runs the suite so, to keep that loader honest); unset or
``libyaml``: libyaml where available."""

YAML_ENV_VALUES = ("libyaml", "python")

QUICK_ENV = "LEDGER_CONTEXT_QUICK_YAML"
"""Set to ``off`` (or ``0``, ``no``, ``false``) to send every frontmatter to the full loader."""

_OFF = frozenset({"off", "0", "no", "false"})


class YamlOptions(Record):
    """How the reader loads frontmatter: ``quick`` whether the quick path answers first;
    ``pure_python`` whether PyYAML's pure-Python loader is asked for even where libyaml is
    present; ``problem`` why a switch was not honoured as written (``check`` reports it).

    Built once at the edge from :data:`YAML_ENV` and :data:`QUICK_ENV`
    (:func:`yaml_options`) and handed down; the reader never reads the environment.
    """

    __slots__ = ("problem", "pure_python", "quick")

    def __init__(
        self,
        quick: bool = True,
        pure_python: bool = False,
        problem: str | None = None,
    ) -> None:
        self.quick = quick
        self.pure_python = pure_python
        self.problem = problem

    def full_loader(self) -> Literal["libyaml", "python"]:
        """The loader used when the quick path declines: ``python`` when libyaml is
        missing or asked against, else ``libyaml``."""
        return "python" if self.pure_python or not libyaml_available() else "libyaml"


DEFAULT_YAML = YamlOptions()
"""The options of a reader given none. The test suite sets it from its own environment
(``make pytest-pure-yaml``), so in-process builds follow the switch there too."""


def yaml_options(environ: Mapping[str, str]) -> YamlOptions:
    """The options the switches in ``environ`` ask for; an unknown :data:`YAML_ENV` value
    keeps libyaml and is named in ``problem``."""
    value = environ.get(YAML_ENV)
    chosen = "" if value is None else value.strip().casefold()
    problem = None
    if chosen not in ("", *YAML_ENV_VALUES):
        problem = f"{YAML_ENV} is not one of {', '.join(YAML_ENV_VALUES)}; libyaml is used where available"
    quick = environ.get(QUICK_ENV, "").strip().casefold() not in _OFF
    return YamlOptions(quick=quick, pure_python=chosen == "python", problem=problem)


def resolved(options: YamlOptions | None) -> YamlOptions:
    """``options``, or :data:`DEFAULT_YAML` when none were given."""
    return DEFAULT_YAML if options is None else options


MAX_NESTING = 64
"""The deepest level a collection may sit at (the top mapping is level 1), the same in
every process whatever its recursion limit (spec §2)."""

_LEADING_BLANK_LINES = re.compile(r"(?:[ \t]*\n)*")
_BOUNDARY_LINE = re.compile(r"-{3,}[ \t]*$", re.MULTILINE)
_CLOSING_LINE = re.compile(r"^-{3,}[ \t]*$", re.MULTILINE)
_YAML_HINT = "fix the YAML there; quote a value that holds ': ' or starts with a special character"
_TAB_HINT = "indent with spaces there: YAML does not allow tabs for indentation"
_QUOTE_HINT = (
    "close the quote that opens there, with the same quote character; double a ' inside "
    'a \'…\' value, or escape a " inside a "…" value as \\"'
)
# No leading \s*: tried at every offset of a run of spaces it was quadratic; the caller
# collapses whitespace anyway.


_QUOTED = r"'[^']*'|\"[^\"]*\"|`[^`]*`"  # compiled on first use: only a broken document needs it


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


class Split(Record):
    """A text split at its frontmatter (spec §2).

    ``frontmatter`` is the text strictly between the two boundary lines (``None`` when the
    text has no frontmatter, or an unclosed one: see ``unclosed``); ``first_line`` is the
    1-based line number of its first line in the file (the line after the opening
    boundary, also when it is unclosed); ``body`` is what follows the
    closing boundary line.
    """

    __slots__ = ("body_start", "first_line", "frontmatter", "text", "unclosed")

    def __init__(
        self,
        frontmatter: str | None,
        text: str,
        first_line: int = 0,
        unclosed: bool = False,
        body_start: int = 0,
    ) -> None:
        self.frontmatter = frontmatter
        self.text = text
        self.first_line = first_line
        self.unclosed = unclosed
        self.body_start = body_start

    @property
    def body(self) -> str:
        """What follows the closing boundary line (the whole text when there is none);
        sliced only when asked for, so an experiment's body is never copied."""
        return self.text[self.body_start :] if self.body_start else self.text


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
    first_line = text.count("\n", 0, start) + 2  # the line after the opening boundary
    if content > len(text):
        return Split(None, text, first_line, unclosed=True)
    closing = _CLOSING_LINE.search(text, content)
    if closing is None:
        return Split(None, text, first_line, unclosed=True)
    frontmatter = text[content : closing.start()]
    if frontmatter:
        frontmatter = frontmatter[:-1]
    return Split(frontmatter, text, first_line, body_start=min(closing.end() + 1, len(text)))


class FrontmatterError(ValueError):
    """Frontmatter that cannot be loaded as a YAML mapping.

    ``line`` and ``column`` are 1-based and relative to the frontmatter text, or ``None``;
    the message never quotes the document.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


class DuplicateKey(Record):
    """A mapping key given twice; the last value is kept (spec §2). Positions are 1-based."""

    __slots__ = ("column", "line")

    def __init__(
        self,
        line: int,
        column: int,
    ) -> None:
        self.line = line
        self.column = column


def _collection_children(node: yaml.Node) -> list[yaml.Node]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [child for pair in node.value for child in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _too_deep(root: yaml.Node) -> tuple[yaml.Node, bool] | None:
    """A collection deeper than :data:`MAX_NESTING` below ``root`` (level 1), with whether
    it is held by an alias cycle (a collection holding itself, which is endlessly deep), or
    ``None``.

    Only mappings and sequences add a level (spec §2). Heights are computed once per
    node without recursion, so aliases count where they are used and a deep text costs
    linear time.
    """
    import yaml

    heights: dict[int, int] = {}
    expanding: set[int] = set()
    stack = [root]
    while stack:
        node = stack[-1]
        if id(node) in heights:
            stack.pop()
            continue
        children = [c for c in _collection_children(node) if isinstance(c, yaml.CollectionNode)]
        pending = [c for c in children if id(c) not in heights]
        if pending and id(node) not in expanding:
            if any(id(c) in expanding or c is node for c in pending):
                return node, True  # an alias to an enclosing collection, or to itself
            expanding.add(id(node))
            stack.extend(pending)
            continue
        expanding.discard(id(node))
        stack.pop()
        if any(id(c) not in heights for c in children):
            return node, True  # a child still open: it holds this collection
        heights[id(node)] = 1 + max((heights[id(c)] for c in children), default=0)
    if not isinstance(root, yaml.CollectionNode) or heights[id(root)] <= MAX_NESTING:
        return None
    node, level = root, 1
    while level <= MAX_NESTING:  # follow the deepest branch down to level 65
        children = [c for c in _collection_children(node) if isinstance(c, yaml.CollectionNode)]
        node = max(children, key=lambda c: heights[id(c)])
        level += 1
    return node, False


class _LoaderMixin:
    """Records duplicate keys, bounds nesting, and refuses lone surrogates.

    The surrogate rule makes the pure-Python loader agree with libyaml, which rejects a
    ``\\ud800`` escape: no loader can hand a lone surrogate to an output.
    """

    duplicates: list[DuplicateKey]

    def construct_document(self, node: yaml.Node) -> Any:
        found = _too_deep(node)
        if found is not None:
            deep, cycle = found
            raise FrontmatterError(
                "an alias (*name) stands for a collection that holds it, which is endlessly deep "
                "(write the value out)"
                if cycle
                else f"frontmatter is nested more than {MAX_NESTING} levels deep (flatten it)",
                deep.start_mark.line + 1,
                deep.start_mark.column + 1,
            )
        self.duplicates = []
        return super().construct_document(node)  # type: ignore[misc]

    def construct_scalar(self, node: yaml.ScalarNode) -> Any:
        value = super().construct_scalar(node)  # type: ignore[misc]
        if isinstance(value, str) and not value.isascii() and re.search(_SURROGATE, value):
            raise FrontmatterError(
                "YAML does not parse: found invalid Unicode character escape code "
                "(a \\u escape names half of a surrogate pair; write the character itself)",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        return value

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)  # type: ignore[attr-defined]
            if not isinstance(key, Hashable):
                raise FrontmatterError(
                    "a mapping key is a list or mapping; keys must be plain strings",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
            if key in mapping:
                mark = key_node.start_mark
                self.duplicates.append(DuplicateKey(mark.line + 1, mark.column + 1))
            mapping[key] = self.construct_object(value_node, deep=deep)  # type: ignore[attr-defined]
        return mapping


class _TabsAsLibyaml:
    """The pure-Python scanner's skip between tokens, made libyaml's: a tab separates
    tokens wherever it cannot be indentation (inside a flow collection, or once a line has
    a token and a simple key is no longer allowed), so ``status: accepted<TAB>`` reads the
    same with both loaders (PyYAML's scanner skips spaces only)."""

    def scan_to_next_token(self) -> None:
        scanner: Any = self
        if scanner.index == 0 and scanner.peek() == "\ufeff":
            scanner.forward()
        while True:
            while scanner.peek() == " " or (
                scanner.peek() == "\t" and (scanner.flow_level or not scanner.allow_simple_key)
            ):
                scanner.forward()
            if scanner.peek() == "#":
                while scanner.peek() not in "\0\r\n\x85\u2028\u2029":
                    scanner.forward()
            if not scanner.scan_line_break():
                return
            if not scanner.flow_level:
                scanner.allow_simple_key = True

    def scan_plain_spaces(self, indent: int, start_mark: Any) -> list[str]:
        """PyYAML's, with tabs as well as spaces between the words of a plain scalar and
        before its line break, as libyaml has them (``b<TAB>c`` is one value)."""
        scanner: Any = self
        length = 0
        while scanner.peek(length) in " \t":
            length += 1
        whitespaces = scanner.prefix(length)
        scanner.forward(length)
        if scanner.peek() not in "\r\n\x85\u2028\u2029":
            return [whitespaces] if whitespaces else []
        line_break = scanner.scan_line_break()
        scanner.allow_simple_key = True
        if _document_marker(scanner):
            return []
        breaks = []
        while scanner.peek() in " \r\n\x85\u2028\u2029":
            if scanner.peek() == " ":
                scanner.forward()
                continue
            breaks.append(scanner.scan_line_break())
            if _document_marker(scanner):
                return []
        chunks = [line_break] if line_break != "\n" else [] if breaks else [" "]
        return chunks + breaks


def _document_marker(scanner: Any) -> bool:
    return scanner.prefix(3) in ("---", "...") and scanner.peek(3) in "\0 \t\r\n\x85\u2028\u2029"


@functools.cache
def _loader_class(loader_name: Literal["libyaml", "python"]) -> type[_LoaderMixin]:
    """libyaml's ``CBaseLoader`` or PyYAML's pure-Python ``BaseLoader`` (its tabs read as
    libyaml reads them, :class:`_TabsAsLibyaml`), with the checks of :class:`_LoaderMixin`."""
    import yaml

    if loader_name == "libyaml":
        return type("_LibyamlLoader", (_LoaderMixin, yaml.CBaseLoader), {})
    return type("_PythonLoader", (_LoaderMixin, _TabsAsLibyaml, yaml.BaseLoader), {})


_SURROGATE = "[\ud800-\udfff]"  # compiled on first use: only PyYAML's loaders ask


def _unquote_document(text: str) -> str:
    """``text`` without what it quotes from the document; quoted YAML punctuation such as
    ``','`` or ``']'`` stays, since it names the syntax, not the content."""

    def keep_syntax(match: re.Match[str]) -> str:
        quoted = match.group().strip()
        inner = quoted[1:-1]
        if 0 < len(inner) <= 2 and not any(c.isalnum() for c in inner):
            return " " + quoted
        return ""

    return " ".join(re.sub(_QUOTED, keep_syntax, text).split())


def _describe(exc: yaml.YAMLError) -> str:
    """PyYAML's description of the fault, without anything it quotes from the document."""
    problem = _unquote_document(str(getattr(exc, "problem", None) or type(exc).__name__))
    context = _unquote_document(str(getattr(exc, "context", None) or ""))
    return f"{context}, {problem}" if context else problem


def _is_tab_at(text: str, line: int | None, column: int | None) -> bool:
    """Whether the character at 1-based ``line`` and ``column`` of ``text`` is a tab."""
    if line is None or column is None:
        return False
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return False
    index = start + column - 1
    return index < len(text) and text[index] == "\t"


_NO_KEY_FAULTS = {
    "could not find expected ':'",
    "mapping values are not allowed here",
    "mapping values are not allowed in this context",
}
"""PyYAML's faults (problem or context) when a line at the top holds text but no key."""
_KEYLESS_MESSAGE = (
    "YAML does not parse: this line holds text but no key; write it as key: value "
    "(e.g. description: and the text), or indent it to continue the value above"
)


def _keyless_line(text: str, line: int | None) -> int | None:
    """The first of the lines at column 1 holding no ``key:`` that end at ``line`` (the
    fault's line, or the line above it when the fault is the ``:`` ending them), or None.

    A bare sentence at the top of a mapping makes PyYAML read it, and the line below, as
    one long key: its fault is at the next ``:``, a line low. One pass over the lines."""
    if line is None:
        return None
    lines = text.split("\n")[:line]
    end = len(lines) - 1
    if end >= 0 and not _holds_no_key(lines[end]):
        end -= 1  # the fault is at the ':' that closed the sentence as a key
    start = end
    while start >= 0 and _holds_no_key(lines[start]):
        start -= 1
    return start + 2 if start < end else None


def _holds_no_key(line: str) -> bool:
    """A line at column 1 with text but no ``key:`` (nor a comment, list item, quote or
    flow collection, whose faults are others)."""
    if not line or line[0] in " \t#-[]{}'\"|>&*!%@`":
        return False
    colon = line.find(":")
    while colon >= 0:
        if colon + 1 == len(line) or line[colon + 1] in " \t":
            return False
        colon = line.find(":", colon + 1)
    return True


def _position(text: str, offset: int, loader: str) -> tuple[int, int]:
    """1-based line and column of a reader offset (libyaml counts UTF-8 bytes)."""
    index = len(text.encode("utf-8")[:offset].decode("utf-8", "ignore")) if loader == "libyaml" else offset
    index = min(index, len(text))
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 1, index - line_start + 1


class Loaded(Record):
    """A loaded frontmatter: its mapping, the duplicate keys met, and which loader read it."""

    __slots__ = ("duplicates", "loader", "mapping")

    def __init__(
        self,
        mapping: dict[Any, Any],
        duplicates: list[DuplicateKey],
        loader: YamlLoader,
    ) -> None:
        self.mapping = mapping
        self.duplicates = duplicates
        self.loader = loader


def load_frontmatter(frontmatter: str, options: YamlOptions | None = None) -> Loaded:
    """Load frontmatter text as a YAML mapping without implicit typing (spec §2).

    The quick path (:mod:`~ledger_context.reader.quick_yaml`) answers for the usual shapes
    unless ``options`` turn it off; everything else goes to their full loader. Scalars are
    ``str``; an empty or comment-only frontmatter is ``{}``. Raises :class:`FrontmatterError` when the YAML
    does not parse, is not a mapping, or nests deeper than :data:`MAX_NESTING`.
    """
    options = resolved(options)
    if options.quick:
        quick = quick_yaml.quick_load(frontmatter)
        if quick is not None:
            return Loaded(quick[0], [DuplicateKey(*at) for at in quick[1]], "quick")
    loader = options.full_loader()
    mapping, duplicates = load_with_yaml(frontmatter, loader)
    return Loaded(mapping, duplicates, loader)


def load_mapping(frontmatter: str) -> tuple[dict[Any, Any], list[DuplicateKey]]:
    """:func:`load_frontmatter`'s mapping and duplicate keys."""
    loaded = load_frontmatter(frontmatter)
    return loaded.mapping, loaded.duplicates


def load_with_libyaml(frontmatter: str) -> tuple[dict[Any, Any], list[DuplicateKey]]:
    """:func:`load_with_yaml` through libyaml where it is available (the reference the
    quick path is tested against)."""
    return load_with_yaml(frontmatter, "libyaml" if libyaml_available() else "python")


def load_with_yaml(
    frontmatter: str, loader_name: Literal["libyaml", "python"]
) -> tuple[dict[Any, Any], list[DuplicateKey]]:
    """Load with PyYAML's base loader, libyaml's or the pure-Python one, no quick path."""
    import yaml

    loader: _LoaderMixin | None = None
    try:  # the pure-Python reader checks the characters as it is made
        loader = _loader_class(loader_name)(frontmatter)  # type: ignore[call-arg]
        loader.duplicates = []
        built = build_from_events(loader, MAX_NESTING)
        if built is None:  # refused for more than its syntax: the composed loader says why
            loader.dispose()  # type: ignore[attr-defined]
            loader = _loader_class(loader_name)(frontmatter)  # type: ignore[call-arg]
            loader.duplicates = []
            data = loader.get_single_data()  # type: ignore[attr-defined]
        else:
            data, duplicates = built
            loader.duplicates = [DuplicateKey(*at) for at in duplicates]
    except FrontmatterError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        unclosed = exc.context_mark is not None and "quoted scalar" in str(exc.context or "")
        if exc.context_mark is not None and ("simple key" in str(exc.context or "") or unclosed):
            # The key without its ':', or the unclosed quote, starts here; the problem mark
            # is lower down (for a quote, where the frontmatter ends).
            mark = exc.context_mark
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        keyless = _keyless_line(frontmatter, line) if _NO_KEY_FAULTS & {exc.problem, exc.context} else None
        if keyless is not None:
            raise FrontmatterError(_KEYLESS_MESSAGE, keyless, 1) from None
        hint = _QUOTE_HINT if unclosed else _TAB_HINT if _is_tab_at(frontmatter, line, column) else _YAML_HINT
        raise FrontmatterError(f"YAML does not parse: {_describe(exc)} ({hint})", line, column) from None
    except yaml.reader.ReaderError as exc:
        line, column = _position(frontmatter, exc.position, loader_name)
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
        if loader is not None:
            loader.dispose()  # type: ignore[attr-defined]
    assert loader is not None
    if data is None:
        return {}, loader.duplicates
    if not isinstance(data, dict):
        shape = "a list" if isinstance(data, list) else "a single value"
        raise FrontmatterError(
            f"frontmatter is {shape}, not a mapping of keys to values (write one key: value per line)", 1, 1
        )
    return data, loader.duplicates

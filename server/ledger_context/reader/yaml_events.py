"""A frontmatter's value built from the YAML parser's events, without PyYAML's node tree.

PyYAML's loaders compose the whole document as nodes (each with two marks) before they
construct a value: a frontmatter of 400,000 short lists (8.8 MB, under the file limit) took
13.6 s and 1.7 GB. Built here from the events as they come, with ``BaseConstructor``'s
meaning (every scalar a string, an alias standing for the value built at its anchor, the
last of two equal keys kept and reported at the key's node), the same frontmatter keeps
only its value. What the composed loader refuses after parsing (an alias that is not
defined or is defined twice, a second document, a collection as a key, a collection
nested too deep or holding itself, a lone surrogate escape) is left to it: it says what is
wrong, and where, in its own words. A syntax error comes from the same parser at the same
event either way, so it is raised as it comes.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


class _Refused(Exception):
    """The composed loader must say what is wrong with this document."""


class _Open:
    """A collection being built: its value, its anchor, the tallest collection in it, and
    for a mapping the key waiting for its value (``_NO_KEY`` when none)."""

    __slots__ = ("anchor", "key", "tallest", "value")

    def __init__(self, value: Any, anchor: str | None) -> None:
        self.value = value
        self.anchor = anchor
        self.tallest = 0
        self.key: Any = _NO_KEY


_NO_KEY = object()


def build_from_events(loader: Any, max_nesting: int) -> tuple[Any, list[tuple[int, int]]] | None:
    """The value of the one document ``loader`` parses (``None`` for an empty stream) and
    the 1-based (line, column) of each key given twice in its mapping; ``None`` instead
    when the composed loader would refuse the document for more than its syntax. Syntax
    errors propagate as the parser raises them."""
    try:
        return _build(loader, max_nesting)
    except _Refused:
        return None


def _build(loader: Any, max_nesting: int) -> tuple[Any, list[tuple[int, int]]]:
    import yaml

    alias, scalar, stream_end = yaml.AliasEvent, yaml.ScalarEvent, yaml.StreamEndEvent
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    get_event = loader.get_event
    duplicates: list[tuple[int, int]] = []
    anchors: dict[str, Anchored] = {}
    open_anchors: set[str] = set()
    stack: list[_Open] = []
    root: Any = None

    get_event()  # the stream's start
    if loader.check_event(stream_end):
        return None, duplicates
    get_event()  # the document's start
    while True:
        event = get_event()
        kind = type(event)
        if kind is scalar or kind is alias:
            if kind is alias:
                if event.anchor not in anchors:
                    raise _Refused  # undefined, or its collection is still open: a cycle
                value, height, mark = anchors[event.anchor]
                if len(stack) + height > max_nesting:
                    raise _Refused  # the collection it stands for reaches too deep here
            else:
                value, height, mark = event.value, 0, event.start_mark
                if not value.isascii() and _SURROGATE.search(value):
                    raise _Refused
                if event.anchor is not None:
                    _anchor(anchors, open_anchors, event.anchor, (value, 0, mark))
            if not stack:
                root = value
                break
            _add(stack[-1], value, height, mark, duplicates)
        elif kind is mapping_start or kind is sequence_start:
            if event.anchor is not None:
                _anchor(anchors, open_anchors, event.anchor, None)
            if stack and type(stack[-1].value) is dict and stack[-1].key is _NO_KEY:
                raise _Refused  # a collection as a key
            if len(stack) >= max_nesting:
                raise _Refused  # deeper than the rule allows
            stack.append(_Open({} if kind is mapping_start else [], event.anchor))
        else:  # the end of a collection
            done = stack.pop()
            height = done.tallest + 1
            if done.anchor is not None:
                open_anchors.discard(done.anchor)
                anchors[done.anchor] = (done.value, height, None)
            if not stack:
                root = done.value
                break
            _add(stack[-1], done.value, height, None, duplicates)
    get_event()  # the document's end
    if not loader.check_event(stream_end):
        raise _Refused  # a second document
    get_event()
    return root, duplicates


Anchored = tuple[Any, int, Any]
"""An anchor's value, the height of the collection it names (0: a scalar), and for a
scalar its mark (a duplicate key given by an alias is reported at the anchor)."""


def _anchor(anchors: dict[str, Anchored], open_anchors: set[str], name: str, done: Anchored | None) -> None:
    """Define ``name``: ``done`` for a scalar, ``None`` for a collection still open."""
    if name in anchors or name in open_anchors:
        raise _Refused  # defined twice
    if done is None:
        open_anchors.add(name)
    else:
        anchors[name] = done


def _add(top: _Open, value: Any, height: int, mark: Any, duplicates: list[tuple[int, int]]) -> None:
    """Put ``value`` (a collection ``height`` high, 0 for a scalar) into ``top``."""
    top.tallest = max(top.tallest, height)
    if type(top.value) is list:
        top.value.append(value)
        return
    if top.key is _NO_KEY:
        if height:
            raise _Refused  # an alias to a collection, as a key
        if value in top.value:
            duplicates.append((mark.line + 1, mark.column + 1))
        top.key = value
        return
    top.value[top.key] = value
    top.key = _NO_KEY

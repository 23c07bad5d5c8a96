"""Records: equal, hashed and shown by their fields; ``_replace`` makes a changed copy."""

from __future__ import annotations

from ledger_context.model.classify import Source
from ledger_context.model.values import Record
from ledger_context.pack.settings import Settings


class Pair(Record):
    __slots__ = ("left", "right")

    def __init__(self, left: object, right: object = None) -> None:
        self.left = left
        self.right = right


def test_a_record_is_equal_to_one_of_its_class_with_equal_fields() -> None:
    assert Pair(1, [2]) == Pair(1, [2])
    assert Pair(1, 2) != Pair(1, 3)
    assert Pair("x", None) != Source("x", None)  # same values, another class
    assert Pair(1, 2) != (1, 2)
    assert hash(Settings(100, "internal")) == hash(Settings(100, "internal"))
    assert len({Settings(), Settings(), Settings(cap_tokens=5)}) == 2


def test_replace_changes_only_what_it_names() -> None:
    settings = Settings(100, "internal")
    opened = settings._replace(ceiling=None)
    assert (opened.ceiling, opened.cap_tokens, settings.ceiling) == (None, 100, "internal")
    assert opened._replace(ceiling="internal") == settings
    assert Pair(1)._replace(right=2) == Pair(1, 2)


def test_repr_names_every_field() -> None:
    assert repr(Pair(1, "a")) == "Pair(left=1, right='a')"
    assert repr(Source(".ledger/x.md", None)) == "Source(data_class=None, path='.ledger/x.md')"

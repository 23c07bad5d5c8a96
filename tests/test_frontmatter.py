"""Spec §2: decoding, the frontmatter boundary, and loading without implicit typing."""

from __future__ import annotations

import contextlib

import pytest

from conftest import assert_linear, libyaml_only
from ledger_context.frontmatter import (
    DecodeError,
    FrontmatterError,
    _unquote_document,
    decode_text,
    load_mapping,
    split_frontmatter,
)


def test_decode_removes_one_bom_and_normalises_line_ends() -> None:
    assert decode_text(b"\xef\xbb\xbfa\r\nb\rc\n\r\n") == "a\nb\nc\n\n"
    assert decode_text("\ufeff\ufeffx".encode()) == "\ufeffx"


def test_decode_reports_the_offset_of_the_first_bad_byte() -> None:
    with pytest.raises(DecodeError) as caught:
        decode_text(b"\xef\xbb\xbfok\xc3(")
    assert caught.value.offset == 5


@pytest.mark.parametrize(
    ("text", "frontmatter", "first_line"),
    [
        ("---\na: 1\n---\nbody", "a: 1", 2),
        ("\n \t\n---\t \na: 1\n------\n", "a: 1", 4),
        ("---\n---\n", "", 2),
        ("---\n\n---\n", "", 2),
        ("---\n\n\n---", "\n", 2),
        ("---\na: 1\n  ---\nb: 2\n---\n", "a: 1\n  ---\nb: 2", 2),
        ("---\na: 1\n--- x\n---\n", "a: 1\n--- x", 2),
    ],
)
def test_frontmatter_is_the_lines_strictly_between_two_boundaries(
    text: str, frontmatter: str, first_line: int
) -> None:
    split = split_frontmatter(text)
    assert split.frontmatter == frontmatter
    assert split.first_line == first_line


@pytest.mark.parametrize(
    ("text", "unclosed"),
    [
        ("no frontmatter\n---\na: 1\n---\n", False),
        (" ---\na: 1\n---\n", False),  # indented: not a boundary
        ("--\na: 1\n--\n", False),
        ("+++\na = 1\n+++\n", False),  # TOML is not recognised
        ('{"a": 1}\n', False),  # nor JSON
        ("--- title\na: 1\n---\n", False),
        ("---\na: 1\n", True),
        ("---", True),
    ],
)
def test_text_without_a_closed_boundary_has_no_frontmatter(text: str, unclosed: bool) -> None:
    split = split_frontmatter(text)
    assert split.frontmatter is None
    assert split.unclosed is unclosed


def test_nothing_is_typed_every_scalar_stays_a_string() -> None:
    mapping, _ = load_mapping(
        "status: no\nslug: 0007\nupdated_at: 2024-02-30\nn: 1e3\nt: true\nd: 2026-01-01"
    )
    assert mapping == {
        "status": "no",
        "slug": "0007",
        "updated_at": "2024-02-30",
        "n": "1e3",
        "t": "true",
        "d": "2026-01-01",
    }


def test_empty_and_comment_only_frontmatter_is_an_empty_mapping() -> None:
    assert load_mapping("")[0] == {}
    assert load_mapping("# only a comment\n\n")[0] == {}


def test_duplicate_keys_keep_the_last_value_and_are_reported() -> None:
    mapping, duplicates = load_mapping("a: 1\nb: 2\na: 3")
    assert mapping == {"a": "3", "b": "2"}
    assert [(d.line, d.column) for d in duplicates] == [(3, 1)]


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("- a\n- b", "a list", 1),
        ("just a string", "a single value", 1),
        pytest.param("a: [", "YAML does not parse", 2, marks=libyaml_only),
        ("a: 1\n\tb: 2", "YAML does not parse", 2),
        ("? [a, b]\n: c", "keys must be plain strings", 1),
        ("a: *nowhere", "YAML does not parse", 1),
        ("a: " + "[" * 200 + "]" * 200, "nested", None),
    ],
)
def test_frontmatter_that_is_not_a_mapping_is_an_error(text: str, message: str, line: int | None) -> None:
    with pytest.raises(FrontmatterError) as caught:
        load_mapping(text)
    assert message in str(caught.value)
    if line is not None:
        assert caught.value.line == line


def test_error_messages_never_quote_the_document() -> None:
    with pytest.raises(FrontmatterError) as caught:
        load_mapping("a: *SECRETALIAS\nb: 'SECRET")
    assert "SECRET" not in str(caught.value)


def test_an_alias_bomb_loads_quickly_without_expanding() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for index in range(1, 10):
        name, previous = chr(97 + index), chr(96 + index)
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]")
    mapping, _ = load_mapping("\n".join(lines))
    assert len(mapping) == 10


N = 100_000


@pytest.mark.parametrize(
    "text",
    [
        " " * N + "x",
        " \t\n" * (N // 3) + "x",
        "-" * N + " " * N + "x",
        "---\n" + ("-" * 50 + " x\n") * (N // 53),
        "---\n" + "a: b\n" * (N // 5),
        "\n" * N + "---\n" + " \t" * N,
    ],
)
def test_split_is_linear_on_hostile_text(text: str) -> None:
    assert_linear(lambda: split_frontmatter(text))


@pytest.mark.parametrize(
    "frontmatter",
    [
        "a: b" + " " * N + ":x",
        "a: " + "b:" * (N // 2) + " c",
        "a: " + "b #" * (N // 3) + ":",
        "a: '" + "''" * (N // 2),
        'a: "' + "b" * N,
        "a: [" + "b, " * (N // 3) + "c",
        "a: [b" + " " * N + "c",
        "a:\n" + " " * N + "- b: c:",
        'a: "' + "\\\\" * (N // 2) + '"',
        "a: b\n" + "\t" * N + "c: d",
        "- " * (N // 2),
        "a: *" + "x" * N,
        "a: '" + "x " * (N // 2),
        "a: b\n" + "c" * N + "\nd: e",
        "a: " + ": " * (N // 2),
        "a: " + "\\" * N,
    ],
)
def test_loading_is_linear_on_hostile_frontmatter(frontmatter: str) -> None:
    def load() -> None:
        with contextlib.suppress(FrontmatterError):
            load_mapping(frontmatter)

    assert_linear(load)


@pytest.mark.parametrize("message", [" " * N + "x", "'" + " " * N + "'", "\"'`" * N, " '" * N])
def test_error_messages_are_unquoted_in_linear_time(message: str) -> None:
    assert_linear(lambda: _unquote_document(message))

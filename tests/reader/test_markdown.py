"""Spec §3 and §5: ATX headings outside fenced code, the H1 title and the metrics list."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_linear
from ledger_context.reader.markdown import first_h1, headings, metrics_list

N = 100_000

# The heading pattern the reader used before it became linear: kept here as the
# reference the string scan must agree with on short lines (its backtracking is
# quadratic only on long runs of spaces and tabs).
_OLD_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_OLD_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")


def _old_heading(line: str) -> tuple[int, str] | None:
    match = _OLD_ATX.match(line)
    if match is None:
        return None
    return len(match.group(1)), _OLD_CLOSING_HASHES.sub("", match.group(2) or "").strip(" \t")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=" \t#ab\u00e9\u2028x", max_size=16))
def test_heading_scan_agrees_with_the_old_pattern(line: str) -> None:
    found = list(headings([line]))
    expected = _old_heading(line)
    assert found == ([] if expected is None else [(0, *expected)])


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("# Title", (1, "Title")),
        ("   ### Deep ###", (3, "Deep")),
        ("    # code", None),
        ("#Title", None),
        ("####### seven", None),
        ("# a #b", (1, "a #b")),
        ("# a#", (1, "a#")),
        ("# ###", (1, "")),
        ("#\t", (1, "")),
        ("######", (6, "")),
    ],
)
def test_atx_heading_rules(line: str, heading: tuple[int, str] | None) -> None:
    assert list(headings([line])) == ([] if heading is None else [(0, *heading)])


def test_h1_inside_a_fence_is_not_a_title() -> None:
    assert first_h1("```\n# not\n```\n## two\n# Yes #\n") == "Yes"


def test_metrics_section_ends_at_the_next_heading_of_its_level() -> None:
    body = "# Eval\n## Metrics\n- a\n  * b\nnot\n### sub\n1. c\n## Next\n- d\n"
    assert metrics_list(body) == ["- a", "  * b", "1. c"]


@pytest.mark.parametrize(
    "body",
    [
        "# a" + " " * N + "b",  # took 47 s with the old pattern
        "# a" + "\t" * N + "b",
        "# a" + " \t" * (N // 2) + "b",
        "# a" + " " * N + "#x",  # the closing-hash pattern's worst shape
        "# a" + " #" * (N // 2) + "b",
        "#" * N,
        "## a\n" * (N // 5),
        "`" * N + "\n# t",
        "~~~\n" + "~" * N + " " * N + "x\n# t",
        "   " + "#" * 6 + " " * N,
    ],
)
def test_first_h1_is_linear_on_hostile_lines(body: str) -> None:
    assert_linear(lambda: first_h1(body))


@pytest.mark.parametrize(
    "body",
    [
        "# Metrics\n" + " " * N + "x",
        "# Metrics\n" + "1" * N + "x",
        "# Metrics\n" + "- " * N,
        "# metrics " * N,
    ],
)
def test_metrics_list_is_linear_on_hostile_lines(body: str) -> None:
    assert_linear(lambda: metrics_list(body))


def test_first_h1_looks_past_fenced_headings_and_plain_lines_in_a_long_body() -> None:
    body = "intro\n" * 1000 + "```\n# not this\n```\n  # Title  #\n# later\n"
    assert first_h1(body) == "Title"
    assert first_h1("# First line\ntext") == "First line"
    assert first_h1("text\n    # indented code, not a heading\n") is None

"""Spec §3: null forms, clean-up of titles and slugs, statuses and dates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import yaml

from conftest import (
    D,
    F,
    H,
    X,
    assert_clean_text,
    assert_linear,
    assert_skipped,
    doc_paths,
    fence,
    fm,
    harness,
    pack_of,
    problems_at,
    titled,
    write_ledger,
)
from ledger_context import build_context
from ledger_context.model.fields import clean_text, parse_updated_at

N = 100_000


def test_clean_up_makes_one_line() -> None:
    assert clean_text(" a\t\n b\x00\ud800 ") == "a b \ufffd"


@pytest.mark.parametrize("text", [" \t" * (N // 2) + "x", "\x01 " * (N // 2), "a " * N, "\ud800" * N])
def test_clean_up_is_linear(text: str) -> None:
    assert_linear(lambda: clean_text(text))


@pytest.mark.parametrize("value", ["2026-01-01" + " " * N + "x", "1" * N, "2026-01-01T" + ":" * N, "-" * N])
def test_dates_are_parsed_in_linear_time(value: str) -> None:
    assert_linear(lambda: parse_updated_at(value))


# --------------------------------------------------------------------------- field values: no implicit typing (hostile input)


def test_values_that_look_typed_stay_strings(tmp_path):
    text = "status: no\nslug: 0007\nupdated_at: 2024-02-30\ntitle: 1e3"
    space = write_ledger(tmp_path / "space", {"experiments/e.md": fm(text)})
    result = build_context(space)
    (document,) = result.ledger.documents
    assert document.status == "no"
    assert document.slug == "0007"
    assert document.updated is None
    assert result.pack == fence(text)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0007", "0007"),
        ("0x1F", "0x1F"),
        ("1_000", "1_000"),
        (".inf", ".inf"),
        ("-0", "-0"),
        ("true", "true"),
        ("2026-08-11", "2026-08-11"),
        ("'0007'", "0007"),
    ],
)
def test_slug_that_looks_like_a_number_keeps_every_character(tmp_path, value, expected):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(f"status: active\nslug: {value}")})
    result = build_context(space)
    assert [d.slug for d in result.ledger.documents] == [expected]
    assert result.pack == harness(expected, H + "h.md", f"status: active\nslug: {value}")


# --------------------------------------------------------------------------- field values: updated_at (hostile input)


def _instant(iso: str) -> datetime:
    parsed = datetime.fromisoformat(iso[:-1] + "+00:00" if iso.endswith("Z") else iso)
    assert parsed.utcoffset() == timedelta(0), f"{iso!r} is not in UTC"
    return parsed


def _utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "instant"),
    [
        ("2026-08-11", _utc(2026, 8, 11)),
        ("2026-08-11T10:00:00Z", _utc(2026, 8, 11, 10)),
        ("2026-08-11T10:00:00+02:00", _utc(2026, 8, 11, 8)),
        ("2026-08-11T10:00:00-05:30", _utc(2026, 8, 11, 15, 30)),
        ("2026-08-11T10:00:00", _utc(2026, 8, 11, 10)),
        ("2026-08-11 10:00", _utc(2026, 8, 11, 10)),
        ("2026-08-11t10:00", _utc(2026, 8, 11, 10)),
        ("2026-08-11T10", _utc(2026, 8, 11, 10)),
        ("2026-08-11T10:00:00.123456Z", _utc(2026, 8, 11, 10, 0, 0, 123456)),
        ("2026-08-11T10:00:00,5Z", _utc(2026, 8, 11, 10, 0, 0, 500000)),
        ("2026-08-11T10:00:00+0200", _utc(2026, 8, 11, 8)),
        ("2026-08-11T10:00:00+02", _utc(2026, 8, 11, 8)),
        ("20260811", _utc(2026, 8, 11)),
        ("20260811T100000Z", _utc(2026, 8, 11, 10)),
        ("2026-W33-2", _utc(2026, 8, 11)),
        ("2024-02-29", _utc(2024, 2, 29)),
        ("2026-08-11T10:00:00+02:00:30", _utc(2026, 8, 11, 7, 59, 30)),
        # an offset with a fraction of a second (fromisoformat takes it): counted to the µs
        ("2026-08-11T10:00:00+02:00:30.25", _utc(2026, 8, 11, 7, 59, 29, 750000)),
        ("2026-08-11T10:00:00-01:00:00.5", _utc(2026, 8, 11, 11, 0, 0, 500000)),
        ("2026-08-11T10:00:00.5+02:00", _utc(2026, 8, 11, 8, 0, 0, 500000)),
        ("'2026-08-11'", _utc(2026, 8, 11)),
        ('"  2026-08-11T10:00:00Z  "', _utc(2026, 8, 11, 10)),
        ("2026-08-11 # a comment", _utc(2026, 8, 11)),
        ("|\n  2026-08-11", _utc(2026, 8, 11)),
    ],
)
def test_accepted_updated_at_is_normalised_to_utc(tmp_path, value, instant):
    space = write_ledger(tmp_path / "space", {"findings/f.md": fm(f"status: current\nupdated_at: {value}")})
    result = build_context(space)
    (document,) = result.ledger.documents
    assert document.updated is not None
    assert _instant(document.updated.iso) == instant
    assert not result.ledger.problems


@pytest.mark.parametrize(
    "value",
    [
        "2024-02-30",
        "2023-02-29",
        "2026-13-01",
        "2026-00-10",
        "2026-08-11T25:00",
        "2026-08-11T24:00:00",
        "2016-12-31T23:59:60Z",
        "2026-08-11T10:00:00+25:00",
        "2026-8-11",
        "\uff12\uff10\uff12\uff16-08-11",  # full-width digits
        "+2026-08-11",
        "2026-08",
        "2026",
        "11/08/2026",
        "Aug 11 2026",
        "1723370400",
        "now",
        "2026-08-11T10:00:00Z[UTC]",
        "2026-08-11T10:00:00 Europe/Paris",
        "[2026-08-11]",
        "{date: 2026-08-11}",
        "- 2026-08-11",
        "~",
        "null",
        "NULL",
        "Null",
        "nUlL",
        "",
        "''",
        '"  "',
        '" ~ "',
    ],
)
def test_rejected_updated_at_is_undated_and_reported(tmp_path, value):
    sep = "\n  " if value.startswith("- ") else " "
    space = write_ledger(
        tmp_path / "space", {"findings/f.md": fm(f"status: current\nupdated_at:{sep}{value}")}
    )
    result = build_context(space)
    (document,) = result.ledger.documents
    assert document.updated is None
    assert [p.severity for p in problems_at(result, F + "f.md")] == ["warning"]


def test_updated_at_key_matches_case_exactly(tmp_path):
    space = write_ledger(tmp_path / "space", {"findings/f.md": fm("status: current\nUpdated_At: 2026-08-11")})
    (document,) = build_context(space).ledger.documents
    assert document.updated is None


def test_updated_at_orders_findings_newest_first_then_undated_by_slug(tmp_path):
    values = {
        "a": "2026-08-11T10:00:00+02:00",  # 08:00Z
        "b": "2026-08-11T09:00:00",  # naive: 09:00Z
        "c": "2026-08-11",  # 00:00Z
        "d": "2026-08-11T08:30Z",
        "e": "2024-02-30",  # impossible: undated
        "f": "~",  # null: undated
        "g": "20260812",  # basic format: 2026-08-12 00:00Z, the newest
        "i": "2026-08-11T08:00:00Z",  # the same instant as a: tie broken by slug
        "j": "0001-01-01T00:00:00+01:00",  # before year 1 in UTC: the oldest dated
        "k": "2026-08-11T08:00:00.000001Z",  # a microsecond after a and i
    }
    files = {
        f"findings/{slug}.md": fm(f"status: current\nupdated_at: {value}") for slug, value in values.items()
    }
    files["findings/h.md"] = fm("status: current")  # missing: undated
    space = write_ledger(tmp_path / "space", files)
    result = build_context(space)
    order = ["g", "b", "d", "k", "a", "i", "c", "j", "e", "f", "h"]
    expected = [
        titled(
            "Finding",
            slug,
            F + f"{slug}.md",
            f"status: current\nupdated_at: {values[slug]}" if slug in values else "status: current",
        )
        for slug in order
    ]
    assert result.pack == pack_of(*expected)


def test_far_future_updated_at_with_an_offset_orders_first(tmp_path):
    files = {
        "decisions/late.md": fm("status: accepted\nupdated_at: 9999-12-31T23:59:59-12:00"),
        "decisions/max.md": fm("status: accepted\nupdated_at: 9999-12-31T23:59:59.999999Z"),
    }
    space = write_ledger(tmp_path / "space", files)
    result = build_context(space)
    # 9999-12-31T23:59:59-12:00 is 10000-01-01T11:59:59Z: later than any naive maximum.
    assert [b.block.document.path for b in result.budgeted.blocks] == [D + "late.md", D + "max.md"]


def test_far_future_updated_at_is_normalised_to_utc(tmp_path):
    space = write_ledger(
        tmp_path / "space",
        {"decisions/late.md": fm("status: accepted\nupdated_at: 9999-12-31T23:59:59-12:00")},
    )
    (document,) = build_context(space).ledger.documents
    assert document.updated is not None
    assert document.updated.iso.startswith("10000-01-01T11:59:59")


def test_undated_experiments_come_after_all_dated_ones_and_fall_out_of_the_ten(tmp_path):
    files = {f"experiments/e{i:02}.md": fm(f"updated_at: 2026-01-{i + 1:02}") for i in range(11)}
    files["experiments/a-undated.md"] = fm("updated_at: 2026-02-30")
    space = write_ledger(tmp_path / "space", files)
    result = build_context(space)
    paths = [b.block.document.path for b in result.budgeted.blocks]
    assert paths == [X + f"e{i:02}.md" for i in range(10, 0, -1)]
    assert problems_at(result, X + "a-undated.md", "warning")


def test_undated_experiment_is_in_the_pack_when_fewer_than_ten(tmp_path):
    files = {
        "experiments/b.md": fm("updated_at: 2026-01-01"),
        "experiments/a.md": fm("updated_at: yesterday"),
    }
    space = write_ledger(tmp_path / "space", files)
    assert build_context(space).pack == pack_of(
        fence("updated_at: 2026-01-01"), fence("updated_at: yesterday")
    )


def test_undated_decision_not_selected_is_still_reported(tmp_path):
    # §3: an undated updated_at is "reported for the kinds whose order uses it (findings,
    # decisions, experiments)" - whatever the document's status.
    space = write_ledger(tmp_path / "space", {"decisions/old.md": fm("status: superseded")})
    result = build_context(space)
    assert result.pack == ""
    assert [p.severity for p in problems_at(result, D + "old.md")] == ["warning"]


def test_undated_harness_is_not_reported(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm("status: active\nupdated_at: 2024-02-30")})
    result = build_context(space)
    assert result.pack == harness("h", H + "h.md", "status: active\nupdated_at: 2024-02-30")
    assert result.ledger.problems == []


# --------------------------------------------------------------------------- field values: status (hostile input)


@pytest.mark.parametrize(
    "value",
    [
        "active",
        "Active",
        "ACTIVE",
        "'active'",
        '"  active  "',
        '"\\tactive\\n"',
        "active # a comment",
        "|\n  active",
        ">-\n  active",
        "active\u00a0",  # NBSP: str.strip() removes it
        "\u3000active",  # ideographic space, also whitespace to str.strip()
    ],
)
def test_status_matching_after_strip_and_casefold_selects(tmp_path, value):
    text = f"status: {value}"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("h", H + "h.md", text)


@pytest.mark.parametrize(
    "value",
    [
        "no",
        "yes",
        "true",
        "on",
        "1",
        "0",
        "inactive",
        "act ive",
        "active\u200b",  # a zero-width space is not whitespace
        "ACT\u0130VE",  # dotted capital I does not casefold to i
        "~",
        "null",
        "''",
    ],
)
def test_status_not_matching_does_not_select(tmp_path, value):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(f"status: {value}")})
    result = build_context(space)
    assert result.pack == ""
    assert doc_paths(result) == [H + "h.md"]


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("[active]", id="flow-list"),
        pytest.param("\n  - active", id="block-list"),
        pytest.param("{active: true}", id="flow-mapping"),
        pytest.param("\n  active: yes", id="block-mapping"),
    ],
)
def test_status_list_or_mapping_never_matches_and_is_reported(tmp_path, value):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(f"status: {value}")})
    result = build_context(space)
    assert result.pack == ""
    assert [p.severity for p in problems_at(result, H + "h.md")] == ["warning"]


def test_status_list_never_matches_in_findings_and_decisions(tmp_path):
    space = write_ledger(
        tmp_path / "space",
        {
            "findings/f.md": fm("status: [current]\nupdated_at: 2026-01-01"),
            "decisions/d.md": fm("status: [accepted]\nupdated_at: 2026-01-01"),
        },
    )
    result = build_context(space)
    assert result.pack == ""
    assert problems_at(result, F + "f.md", "warning")
    assert problems_at(result, D + "d.md", "warning")


def test_status_casefold_selects_findings_and_decisions(tmp_path):
    space = write_ledger(
        tmp_path / "space",
        {
            "findings/f.md": fm("status: CURRENT\nupdated_at: 2026-01-01"),
            "decisions/d.md": fm("status: ' Accepted '\nupdated_at: 2026-01-01"),
        },
    )
    assert build_context(space).pack == pack_of(
        titled("Finding", "f", F + "f.md", "status: CURRENT\nupdated_at: 2026-01-01"),
        titled("Decision", "d", D + "d.md", "status: ' Accepted '\nupdated_at: 2026-01-01"),
    )


def test_experiments_are_selected_whatever_their_status(tmp_path):
    files = {
        "experiments/a.md": fm("status: no\nupdated_at: 2026-01-02"),
        "experiments/b.md": fm("status: [x]\nupdated_at: 2026-01-01"),
    }
    space = write_ledger(tmp_path / "space", files)
    assert build_context(space).pack == pack_of(
        fence("status: no\nupdated_at: 2026-01-02"), fence("status: [x]\nupdated_at: 2026-01-01")
    )


# --------------------------------------------------------------------------- field values: titles (hostile input)


@pytest.mark.parametrize(
    ("value", "title"),
    [
        pytest.param('"first\\nsecond"', "first second", id="escaped-newline"),
        pytest.param('"a\\n\\n\\t\\r b"', "a b", id="run-of-controls"),
        pytest.param('"\\e[31mred\\e[0m"', "[31mred [0m", id="ansi-escape"),
        pytest.param('"a\\0b"', "a b", id="nul"),
        pytest.param('"a\\x7fb"', "a b", id="del"),
        pytest.param('"a\\Nb"', "a b", id="c1-nel"),
        pytest.param('"a\\x9bb"', "a b", id="c1-csi"),
        pytest.param('"a\\Lb"', "a b", id="line-separator"),
        pytest.param('"a\\Pb"', "a b", id="paragraph-separator"),
        pytest.param("a\tb", "a b", id="raw-tab"),
        pytest.param("  padded   words  ", "padded words", id="padding"),
        pytest.param("folded\n  over\n  lines", "folded over lines", id="folded-plain"),
        pytest.param(">\n  folded\n\n  block", "folded block", id="folded-block-with-blank"),
        pytest.param("|\n  literal\n  block", "literal block", id="literal-block"),
        pytest.param('"\\u200fRTL mark"', "\u200fRTL mark", id="rtl-mark-kept"),
        pytest.param('"\\u202eoverride"', "\u202eoverride", id="rtl-override-kept"),
        pytest.param('"\\U0001F600 smile"', "\U0001f600 smile", id="astral"),
    ],
)
def test_title_is_cleaned_up_to_one_line(tmp_path, value, title):
    text = f"status: active\ntitle: {value}"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    assert result.pack == harness(title, H + "h.md", text)
    first_line = result.pack.split("\n", 1)[0]
    assert_clean_text(first_line)


def test_title_of_thousands_of_characters_stays_one_line(tmp_path):
    long = "word " * 2000
    text = f"status: active\ntitle: {long}"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    assert result.pack == harness(long.strip(), H + "h.md", text)
    assert result.pack.count("\n") == 5


def test_title_of_multibyte_characters_over_the_cap_is_cut_on_a_code_point(tmp_path):
    long = "é" * 20_000  # 40,000 bytes: a group 2 block alone over the 24,000-byte cap
    text = f"status: active\ntitle: {long}"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    full = harness(long, H + "h.md", text).encode("utf-8")
    cut = 24_000
    while full[cut] & 0xC0 == 0x80:  # the longest prefix that does not split a code point
        cut -= 1
    assert result.pack.encode("utf-8") == full[:cut]


@pytest.mark.parametrize(
    ("value", "body", "title"),
    [
        pytest.param('"\\n\\t"', "# Heading\n", "Heading", id="only-controls-falls-back-to-h1"),
        pytest.param("~", "# Heading ##\n", "Heading", id="null-falls-back-to-h1"),
        pytest.param("'  '", "", "h", id="blank-falls-back-to-slug"),
        pytest.param("[a, b]", "# Heading\n", "Heading", id="list-falls-back-to-h1"),
        pytest.param("{a: b}", "", "h", id="mapping-falls-back-to-slug"),
        pytest.param("~", "```\n# Not a heading\n```\n# Real\n", "Real", id="heading-in-fence-skipped"),
        pytest.param("~", "## Level two\n", "h", id="level-two-is-not-a-title"),
        pytest.param("~", "# A\x1bB\n", "A B", id="control-in-h1"),
        pytest.param("~", "#\n# \t \n", "h", id="empty-h1s-fall-back-to-slug"),
    ],
)
def test_title_falls_back_to_the_h1_then_the_slug(tmp_path, value, body, title):
    text = f"status: active\ntitle: {value}"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": f"---\n{text}\n---\n{body}"})
    assert build_context(space).pack == harness(title, H + "h.md", text)


def test_lone_surrogate_escape_is_rejected_by_libyaml(tmp_path):
    text = 'status: active\ntitle: "a\\ud800b"'
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    if yaml.__with_libyaml__:
        # libyaml refuses surrogate escapes: the YAML does not parse (§2).
        (problem,) = assert_skipped(result, H + "h.md")
        assert problem.line == 3
    else:
        # The pure-Python loader produces a lone surrogate: clean-up makes it U+FFFD (§3).
        assert result.pack == harness("a\ufffdb", H + "h.md", text)
    result.pack.encode("utf-8")


def test_surrogate_pair_escapes_are_rejected_by_libyaml(tmp_path):
    text = 'status: active\ntitle: "\\ud83d\\ude00"'
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    if yaml.__with_libyaml__:
        assert_skipped(result, H + "h.md")
    result.pack.encode("utf-8")


# --------------------------------------------------------------------------- field values: slugs (hostile input)


def test_slugs_order_harnesses_in_code_point_order(tmp_path):
    files = {
        "harnesses/x1.md": fm("status: active\nslug: 7"),
        "harnesses/x2.md": fm("status: active\nslug: 0007"),
        "harnesses/x3.md": fm("status: active\nslug: '010'"),
        "harnesses/x4.md": fm('status: active\nslug: "a\\nb"'),
        "harnesses/x5.md": fm("status: active\nslug: B"),
        "harnesses/Zeta.md": fm("status: active"),
        "harnesses/x6.md": fm("status: active\nslug: ~"),
        "harnesses/x7.md": fm('status: active\nslug: "\\n\\t"'),
        "harnesses/x8.md": fm("status: active\nslug: [a]"),
        "harnesses/x9.md": fm("status: active\nslug: '  é  '"),
    }
    space = write_ledger(tmp_path / "space", files)
    result = build_context(space)
    slugs = [b.block.document.slug for b in result.budgeted.blocks]
    assert slugs == ["0007", "010", "7", "B", "Zeta", "a b", "x6", "x7", "x8", "é"]


def test_equal_slugs_are_ordered_by_path(tmp_path):
    files = {
        "harnesses/b.md": fm("status: active\nslug: same"),
        "harnesses/a/z.md": fm("status: active\nslug: same"),
        "harnesses/a.md": fm("status: active\nslug: same"),
    }
    space = write_ledger(tmp_path / "space", files)
    paths = [b.block.document.path for b in build_context(space).budgeted.blocks]
    assert paths == [H + "a.md", H + "a/z.md", H + "b.md"]


def test_slug_with_a_newline_is_one_line_in_the_title(tmp_path):
    text = 'status: active\nslug: "two\\nlines"'
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("two lines", H + "h.md", text)

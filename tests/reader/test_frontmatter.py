"""Spec §2: decoding, the frontmatter boundary, and loading without implicit typing."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path
from typing import Literal

import pytest

from conftest import (
    ACTIVE_HARNESS,
    FIXTURES,
    H,
    X,
    assert_linear,
    assert_skipped,
    check,
    doc_paths,
    fm,
    harness,
    libyaml_only,
    mentions_number,
    problems_at,
    write_ledger,
)
from ledger_context import build_context
from ledger_context.reader.frontmatter import (
    DecodeError,
    FrontmatterError,
    _unquote_document,
    decode_text,
    libyaml_available,
    load_mapping,
    load_with_yaml,
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


@pytest.mark.parametrize("loader", ["libyaml", "python"])
@pytest.mark.parametrize(
    ("text", "line"),
    [("x: &b [*b]", 3), ("x: &b\n  k: *b", 3), ("x:\n  - &c [1, [*c]]", 4)],
    ids=["sequence-holds-itself", "mapping-holds-itself", "nested"],
)
def test_an_alias_to_the_collection_that_holds_it_is_skipped_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loader: str, text: str, line: int
) -> None:
    # Found by breaking the product: "unexpected failure while reading (KeyError)", no line.
    monkeypatch.setenv("LEDGER_CONTEXT_YAML", loader)
    data = f"---\nstatus: current\n{text}\n---\n"
    space = write_ledger(tmp_path / "space", {"findings/f.md": data, "harnesses/ok.md": ACTIVE_HARNESS})
    result = build_context(space)
    (problem,) = assert_skipped(result, ".ledger/findings/f.md")
    assert problem.line == line, problem
    assert "alias" in problem.message and "unexpected" not in problem.message
    assert result.pack == harness("ok", H + "ok.md", "status: active")


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


# --------------------------------------------------------------------------- encodings: BOM (hostile input)


def test_leading_bom_is_removed_before_the_frontmatter(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": b"\xef\xbb\xbf---\nstatus: active\n---\nBody.\n"}
    )
    result = build_context(space)
    assert result.pack == harness("h", H + "h.md", "status: active")
    assert "\ufeff" not in result.pack


def test_bom_is_removed_from_agents_md(tmp_path):
    space = write_ledger(tmp_path / "space", {"agents.md": b"\xef\xbb\xbfRead me first.\n"})
    assert build_context(space).pack == "Read me first.\n"


def test_agents_md_holding_only_a_bom_is_empty_and_left_out(tmp_path):
    space = write_ledger(tmp_path / "space", {"agents.md": b"\xef\xbb\xbf"})
    result = build_context(space)
    assert result.pack == ""
    assert not [p for p in result.ledger.problems if p.severity == "error"]


def test_only_one_bom_is_removed_so_a_second_one_hides_the_frontmatter(tmp_path):
    # After the first BOM goes, the text starts with U+FEFF, not a boundary line.
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": b"\xef\xbb\xbf\xef\xbb\xbf---\nstatus: active\n---\n"}
    )
    result = build_context(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == ""


def test_bom_after_a_blank_line_is_not_leading_so_the_frontmatter_is_not_found(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": b"\n\xef\xbb\xbf---\nstatus: active\n---\n"})
    assert_skipped(build_context(space), H + "h.md")


# --------------------------------------------------------------------------- encodings: line endings (hostile input)


def test_crlf_line_endings_become_lf_in_the_pack(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": b"---\r\nstatus: active\r\ntitle: T\r\n---\r\nBody.\r\n"}
    )
    result = build_context(space)
    assert result.pack == harness("T", H + "h.md", "status: active\ntitle: T")
    assert "\r" not in result.pack


def test_lone_cr_line_endings_become_lf_in_the_pack(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": b"---\rstatus: active\rtitle: T\r---\rBody.\r"}
    )
    result = build_context(space)
    assert result.pack == harness("T", H + "h.md", "status: active\ntitle: T")


def test_mixed_line_endings_become_lf_and_cr_cr_lf_is_two_line_breaks(tmp_path):
    # "\r\r\n" is a lone CR followed by a CRLF: two line ends, so a blank line.
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": b"---\r\nstatus: active\r\r\ntitle: T\n---\rBody.\r\n"}
    )
    result = build_context(space)
    assert result.pack == harness("T", H + "h.md", "status: active\n\ntitle: T")


def test_line_endings_of_agents_md_become_lf(tmp_path):
    space = write_ledger(tmp_path / "space", {"agents.md": b"one\r\ntwo\rthree\r\r\nfour"})
    assert build_context(space).pack == "one\ntwo\nthree\n\nfour\n"


def test_crlf_experiment_renders_with_lf_only(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"experiments/e.md": b"---\r\nupdated_at: 2026-01-01\r\nstatus: done\r\n---\r\n"}
    )
    assert build_context(space).pack == "---\nupdated_at: 2026-01-01\nstatus: done\n---\n"


# --------------------------------------------------------------------------- encodings: invalid UTF-8 (hostile input)

GOOD_PREFIX = b"---\nstatus: active\n---\nBody "


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(b"\x80", id="lone-continuation-byte"),
        pytest.param(b"\xff", id="byte-ff"),
        pytest.param(b"\xc0\xaf", id="overlong-slash"),
        pytest.param(b"\xed\xa0\x80", id="encoded-surrogate"),
        pytest.param(b"\xf4\x90\x80\x80", id="above-u10ffff"),
        pytest.param(b"\xe2\x82", id="truncated-at-end-of-file"),
        pytest.param(b"\xe2\x82A", id="truncated-before-ascii"),
    ],
)
def test_invalid_utf8_is_skipped_with_the_byte_offset(tmp_path, bad):
    data = GOOD_PREFIX + bad
    offset = len(GOOD_PREFIX)
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": data, "harnesses/ok.md": ACTIVE_HARNESS})
    result = build_context(space)
    (problem,) = assert_skipped(result, H + "h.md")
    assert mentions_number(problem.message, offset), problem.message
    assert result.pack == harness("ok", H + "ok.md", "status: active")


def test_invalid_utf8_offset_counts_the_bom_bytes(tmp_path):
    data = b"\xef\xbb\xbf" + GOOD_PREFIX + b"\xff"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": data})
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert mentions_number(problem.message, len(data) - 1), problem.message


def test_invalid_byte_right_after_a_bom_is_at_offset_three(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": b"\xef\xbb\xbf\xfe---\nstatus: active\n---\n"}
    )
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert mentions_number(problem.message, 3), problem.message


def test_truncated_bom_is_invalid_at_offset_zero(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": b"\xef\xbb---\nstatus: active\n---\n"})
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert mentions_number(problem.message, 0), problem.message


def test_utf16_file_is_invalid_utf8_at_offset_zero(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": "---\nstatus: active\n---\n".encode("utf-16")}
    )
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert mentions_number(problem.message, 0), problem.message


def test_invalid_utf8_in_the_body_alone_still_skips_the_document(tmp_path):
    data = b"---\nstatus: active\n---\n" + b"x" * 1000 + b"\xc3"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": data})
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert mentions_number(problem.message, len(data) - 1), problem.message


def test_invalid_utf8_agents_md_is_skipped_with_the_offset(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"agents.md": b"Hello \xff world\n", "harnesses/ok.md": ACTIVE_HARNESS}
    )
    result = build_context(space)
    (problem,) = assert_skipped(result, ".ledger/agents.md")
    assert mentions_number(problem.message, 6), problem.message
    assert result.pack == harness("ok", H + "ok.md", "status: active")


# --------------------------------------------------------------------------- encodings: NUL and raw control bytes (hostile input)


def test_nul_bytes_in_the_body_do_not_matter(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": b"---\nstatus: active\n---\nBo\x00dy\x00\n"})
    assert build_context(space).pack == harness("h", H + "h.md", "status: active")


def test_nul_byte_in_agents_md_is_kept_verbatim(tmp_path):
    space = write_ledger(tmp_path / "space", {"agents.md": b"a\x00b\n"})
    assert build_context(space).pack == "a\x00b\n"


def test_file_of_nul_bytes_has_no_frontmatter_and_is_skipped(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": b"\x00" * 64})
    assert_skipped(build_context(space), H + "h.md")


@pytest.mark.parametrize(
    "char", [pytest.param("\x00", id="nul"), pytest.param("\x1b", id="esc"), pytest.param("\x7f", id="del")]
)
def test_raw_control_character_in_frontmatter_is_a_yaml_error_on_its_line(tmp_path, char):
    # YAML (libyaml) refuses raw non-printable characters: the YAML does not parse (§2),
    # and the fault's line is known, so it is named (§3).
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": f"---\nstatus: active\ntitle: a{char}b\n---\n"}
    )
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert problem.line == 3


def test_nul_written_as_a_yaml_escape_is_cleaned_out_of_the_title(tmp_path):
    text = 'status: active\ntitle: "a\\0b"'
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("a b", H + "h.md", text)


# --------------------------------------------------------------------------- frontmatter shape: missing, unclosed, empty (hostile input)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty-file"),
        pytest.param("# Title\n\nJust prose.\n", id="markdown-only"),
        pytest.param("status: active\n", id="yaml-without-fences"),
        pytest.param("***\nstatus: active\n***\n", id="star-rule"),
        pytest.param("___\nstatus: active\n___\n", id="underscore-rule"),
        pytest.param("--\nstatus: active\n--\n", id="two-dashes"),
        pytest.param(" ---\nstatus: active\n ---\n", id="indented-fence"),
        pytest.param("--- #\nstatus: active\n---\n", id="fence-followed-by-text"),
        pytest.param("\x0c\n---\nstatus: active\n---\n", id="form-feed-line-before-fence"),
        pytest.param("Intro\n---\nstatus: active\n---\n", id="text-before-fence"),
    ],
)
def test_document_without_frontmatter_is_skipped(tmp_path, text):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": text, "harnesses/ok.md": ACTIVE_HARNESS})
    result = build_context(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == harness("ok", H + "ok.md", "status: active")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("---", id="fence-only"),
        pytest.param("---\n", id="fence-and-newline"),
        pytest.param("---\nstatus: active\n", id="no-closing-fence"),
        pytest.param("---\nstatus: active\n...\n", id="closed-by-yaml-document-end"),
        pytest.param("---\nstatus: active\n  ---\n", id="closing-fence-indented"),
        pytest.param("---\nstatus: active\n---x\n", id="closing-fence-with-text"),
        pytest.param("---\nJust a horizontal rule, then prose.\n\nMore prose.\n", id="starts-with-a-rule"),
    ],
)
def test_unclosed_frontmatter_is_skipped(tmp_path, text):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": text})
    result = build_context(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == ""


def test_document_that_merely_starts_with_a_rule_pair_is_skipped(tmp_path):
    # Prose between two rules is frontmatter text that is a YAML scalar, not a mapping.
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": "---\n\nSome prose here.\n\n---\n\nMore prose.\n"}
    )
    assert_skipped(build_context(space), H + "h.md")


def test_empty_frontmatter_is_an_empty_mapping(tmp_path):
    space = write_ledger(tmp_path / "space", {"experiments/e.md": "---\n---\nBody.\n"})
    result = build_context(space)
    assert result.pack == "---\n---\n"
    assert not problems_at(result, X + "e.md", "error")


def test_frontmatter_of_one_blank_line_renders_as_the_two_fences(tmp_path):
    space = write_ledger(tmp_path / "space", {"experiments/e.md": "---\n\n---\n"})
    assert build_context(space).pack == "---\n---\n"


def test_frontmatter_of_two_blank_lines_keeps_them_verbatim(tmp_path):
    space = write_ledger(tmp_path / "space", {"experiments/e.md": "---\n\n\n---\n"})
    assert build_context(space).pack == "---\n\n\n---\n"


def test_frontmatter_holding_only_comments_is_an_empty_mapping_rendered_verbatim(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"experiments/e.md": "---\n# only a comment\n   # another\n---\n"}
    )
    result = build_context(space)
    assert result.pack == "---\n# only a comment\n   # another\n---\n"


def test_empty_harness_frontmatter_has_no_status_so_is_not_selected(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": "---\n---\n"})
    result = build_context(space)
    assert doc_paths(result) == [H + "h.md"]
    assert result.pack == ""


def test_closing_fence_at_end_of_file_without_newline(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": "---\nstatus: active\n---"})
    assert build_context(space).pack == harness("h", H + "h.md", "status: active")


def test_leading_blank_lines_of_spaces_and_tabs_before_the_fence_are_ignored(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": "\n   \n\t \n---\nstatus: active\n---\n"})
    assert build_context(space).pack == harness("h", H + "h.md", "status: active")


def test_long_fences_with_trailing_blanks_render_as_plain_fences(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": "-----  \nstatus: active\n----\t\nBody.\n"})
    assert build_context(space).pack == harness("h", H + "h.md", "status: active")


def test_indented_dashes_inside_a_block_scalar_do_not_close_the_frontmatter(tmp_path):
    text = "status: active\nnote: |\n  ---\n  still the note"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("h", H + "h.md", text)


def test_trailing_blanks_inside_the_frontmatter_are_kept_verbatim(tmp_path):
    text = "status: active  \t\ntitle:   Spaced   \n\n# comment kept"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("Spaced", H + "h.md", text)


def test_frontmatter_with_a_yaml_document_end_marker_is_one_document(tmp_path):
    text = "status: active\n..."
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("h", H + "h.md", text)


def test_frontmatter_holding_two_yaml_documents_is_skipped(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm("status: active\n...\ntitle: second")})
    assert_skipped(build_context(space), H + "h.md")


def test_frontmatter_ends_at_the_first_closing_fence(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": "---\nstatus: active\n---\ntitle: not frontmatter\n---\n"}
    )
    assert build_context(space).pack == harness("h", H + "h.md", "status: active")


# --------------------------------------------------------------------------- frontmatter shape: tabs (hostile input)


def test_tab_after_the_colon_is_yaml_whitespace(tmp_path):
    text = "status:\tactive"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("h", H + "h.md", text)


def test_tab_indentation_is_a_yaml_error_on_its_line(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": "---\nstatus: active\n\tslug: x\n---\n"})
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert problem.line == 3


# --------------------------------------------------------------------------- frontmatter shape: YAML syntax errors (hostile input)


@pytest.mark.parametrize(
    ("data", "line"),
    [
        pytest.param(b"---\nslug: a\nstatus: @x\n---\n", 3, id="reserved-indicator"),
        pytest.param(b"\n\n---\nslug: a\nstatus: @x\n---\n", 5, id="after-blank-lines"),
        pytest.param(b"\r\n \r\n---\r\nslug: a\r\nstatus: @x\r\n---\r\n", 5, id="crlf"),
        pytest.param(b"\r\r---\rslug: a\rstatus: @x\r---\r", 5, id="lone-cr"),
        pytest.param(b"\xef\xbb\xbf---\nslug: a\nstatus: @x\n---\n", 3, id="after-bom"),
        pytest.param(b"---\nstatus: a: b\n---\n", 2, id="mapping-in-plain-value"),
        pytest.param(b"---\ntitle: x\nstatus: *nope\n---\n", 3, id="undefined-alias"),
        pytest.param(b'---\ntitle: "bad \\q escape"\n---\n', 2, id="unknown-escape"),
        pytest.param(b"---\nstatus: active\n  slug: x\n---\n", 3, id="bad-indentation"),
    ],
)
def test_yaml_syntax_error_is_skipped_with_the_file_line(tmp_path, data, line):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": data, "harnesses/ok.md": ACTIVE_HARNESS})
    result = build_context(space)
    (problem,) = assert_skipped(result, H + "h.md")
    assert problem.line == line, problem
    assert result.pack == harness("ok", H + "ok.md", "status: active")


def test_yaml_error_names_the_column(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": "---\nslug: a\nstatus: @x\n---\n"})
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert (problem.line, problem.column) == (3, 9)


def test_unterminated_quote_is_skipped_with_a_line_inside_the_frontmatter(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": '---\nstatus: active\ntitle: "never closed\n---\n'}
    )
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert problem.line in (2, 3)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("status: @SECRETWORD", id="reserved-indicator"),
        pytest.param("status: *SECRETWORD", id="undefined-alias"),
        pytest.param('title: "SECRETWORD \\q"', id="unknown-escape"),
        pytest.param("title: 'SECRETWORD", id="unterminated-quote"),
        pytest.param("SECRETWORD: [a, b\nstatus: x", id="unclosed-flow"),
        pytest.param("? [SECRETWORD]\n: v", id="list-key"),
        pytest.param("title: SECRETWORD\x07", id="raw-control-character"),
    ],
)
def test_problem_messages_never_quote_the_document(tmp_path, text, capsys):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    assert_skipped(result, H + "h.md")
    for problem in result.ledger.problems:
        assert "SECRETWORD" not in problem.message
    _, out = check(space, capsys)
    assert "SECRETWORD" not in out


# --------------------------------------------------------------------------- frontmatter shape: duplicate keys (hostile input)


def test_duplicate_key_keeps_the_last_value_and_is_a_warning_with_its_line(tmp_path):
    text = "status: draft\ntitle: T\nstatus: active"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    # Last value wins, and the pack renders the verbatim text, both keys included.
    assert result.pack == harness("T", H + "h.md", text)
    (problem,) = problems_at(result, H + "h.md")
    assert problem.severity == "warning"
    assert problem.line == 4


def test_duplicate_key_whose_last_value_does_not_select_drops_the_document(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm("status: active\nstatus: draft")})
    result = build_context(space)
    assert result.pack == ""
    assert [d.status for d in result.ledger.documents] == ["draft"]
    assert [p.severity for p in problems_at(result, H + "h.md")] == ["warning"]


def test_duplicate_key_spelt_with_quotes_is_the_same_key(tmp_path):
    text = "status: draft\n\"status\": active\n'status': active"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    assert result.pack == harness("h", H + "h.md", text)
    assert sorted(p.line for p in problems_at(result, H + "h.md", "warning")) == [3, 4]


def test_duplicate_key_in_a_nested_mapping_is_reported(tmp_path):
    text = "status: active\nmeta:\n  owner: a\n  owner: b"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    assert result.pack == harness("h", H + "h.md", text)
    (problem,) = problems_at(result, H + "h.md")
    assert (problem.severity, problem.line) == ("warning", 5)


def test_duplicate_key_message_does_not_quote_the_key(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": fm("status: active\nSECRETKEY: 1\nSECRETKEY: 2")}
    )
    (problem,) = build_context(space).ledger.problems
    assert "SECRETKEY" not in problem.message


def _pyyaml_imported_by_pack(space: Path) -> bool:
    script = (
        "import sys\n"
        "from ledger_context.cli import main\n"
        "main(['pack', '--space', sys.argv[1]])\n"
        "sys.stderr.write(str('yaml' in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(space)], capture_output=True, text=True, check=True
    )
    assert "## Harness: " in done.stdout
    return done.stderr == "True"


def test_pyyaml_is_imported_only_when_a_frontmatter_needs_it(tmp_path: Path) -> None:
    # Importing PyYAML is about a tenth of a short ``pack`` process, so it waits for the
    # first frontmatter the quick path declines; the demo's are all read by the quick path.
    assert not _pyyaml_imported_by_pack(FIXTURES / "demo")
    declined = write_ledger(tmp_path, {"harnesses/h.md": "---\nstatus: active\nmodels: {a: b}\n---\n"})
    assert _pyyaml_imported_by_pack(declined)


def test_the_yaml_switches_are_read_from_the_mapping_the_edge_passes() -> None:
    from ledger_context.reader.frontmatter import QUICK_ENV, YAML_ENV, YamlOptions, yaml_options

    assert yaml_options({}) == YamlOptions(quick=True, pure_python=False, problem=None)
    assert yaml_options({YAML_ENV: " Python ", QUICK_ENV: "OFF"}) == YamlOptions(
        quick=False, pure_python=True
    )
    assert yaml_options({YAML_ENV: "libyaml", QUICK_ENV: "on"}) == YamlOptions()
    fast = yaml_options({YAML_ENV: "fast"})
    assert (fast.pure_python, fast.problem) == (
        False,
        "LEDGER_CONTEXT_YAML is not one of libyaml, python; libyaml is used where available",
    )
    assert YamlOptions(pure_python=True).full_loader() == "python"


@pytest.mark.parametrize("loader", ["libyaml", "python"])
def test_a_line_holding_text_but_no_key_is_named(loader: Literal["libyaml", "python"]) -> None:
    if loader == "libyaml" and not libyaml_available():
        pytest.skip("libyaml is missing")
    for text, line in (("Bare sentence.\ntitle: x", 1), ("title: x\nBare sentence.\nb: y", 2)):
        with pytest.raises(FrontmatterError) as raised:
            load_with_yaml(text, loader)
        assert (raised.value.line, raised.value.column) == (line, 1)
        assert str(raised.value).startswith("YAML does not parse: this line holds text but no key;")

"""A survey of hostile and broken input, each outcome derived from docs/spec.md.

Every test writes a small ledger under pytest's tmp_path, builds the pack through the
public API (``build_context``, ``find_space``, the ``check`` command) and states the
exact outcome the spec calls for: the pack's bytes, or which path is skipped with
severity ``error`` and what the problem says (the byte offset of bad UTF-8, the file
line of a YAML error).

The "§" numbers refer to sections of docs/spec.md.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import tempfile
import time
import tracemalloc
import unicodedata
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import libyaml_only
from ledger_context import SpaceNotFoundError, build_context, find_space
from ledger_context.cli import main
from ledger_context.errors import LedgerContextError

MiB = 1024 * 1024
LIMIT = 10 * MiB

H = ".ledger/harnesses/"
EV = ".ledger/evals/"
F = ".ledger/findings/"
D = ".ledger/decisions/"
X = ".ledger/experiments/"

Files = Mapping[str | bytes, str | bytes]


# --------------------------------------------------------------------------- helpers


def write(tmp_path: Path, files: Files, name: str = "space") -> Path:
    """Write ``files`` ({path below .ledger: text or bytes}) under ``tmp_path/name/.ledger``.

    A path may be ``bytes`` (a file name that is not valid UTF-8); text is written as
    UTF-8. Returns the space (the directory holding ``.ledger``).
    """
    space = tmp_path / name
    root = os.fsencode(space / ".ledger")
    os.makedirs(root, exist_ok=True)
    for rel, content in files.items():
        full = os.path.join(root, rel if isinstance(rel, bytes) else os.fsencode(rel))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        with open(full, "wb") as handle:
            handle.write(data)
    return space


def build(space: Path, **options):
    return build_context(space, **options)


def fm(text: str) -> str:
    """A document made of the frontmatter ``text`` between fences, and a short body."""
    return f"---\n{text}\n---\nBody.\n"


def fence(frontmatter: str) -> str:
    """The fenced frontmatter of a block (§5): an empty text gives the two fences only."""
    return f"---\n{frontmatter}\n---\n" if frontmatter else "---\n---\n"


def titled(label: str, title: str, path: str, frontmatter: str) -> str:
    """A group 2–5 block (§5)."""
    return f"## {label}: {title} ({path})\n" + fence(frontmatter)


def harness(title: str, path: str, frontmatter: str) -> str:
    return titled("Harness", title, path, frontmatter)


def pack_of(*blocks: str) -> str:
    """Blocks joined with one ``\\n`` (§5)."""
    return "\n".join(blocks)


def problems_at(result, path: str, severity: str | None = None) -> list:
    return [
        p for p in result.ledger.problems if p.path == path and (severity is None or p.severity == severity)
    ]


def doc_paths(result) -> list[str]:
    return [d.path for d in result.ledger.documents]


def assert_skipped(result, path: str) -> list:
    """``path`` is not a document, and an ``error`` problem names it; returns those problems."""
    assert path not in doc_paths(result)
    errors = problems_at(result, path, "error")
    assert errors, f"no error problem for {path!r}: {result.ledger.problems!r}"
    return errors


def assert_clean_text(text: str) -> None:
    """Printable on one line: valid UTF-8, no Cc character, no U+2028/U+2029."""
    text.encode("utf-8")  # raises on a lone surrogate
    for char in text:
        assert unicodedata.category(char) != "Cc", f"raw control character in {text!r}"
        assert char not in "\u2028\u2029", f"line separator in {text!r}"


def mentions_number(message: str, number: int) -> bool:
    import re

    return re.search(rf"(?<!\d){number}(?!\d)", message) is not None


class Hung(BaseException):
    """Raised by :func:`deadline`; a BaseException so no ``except OSError`` swallows it."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging (a blocking open of a FIFO, an endless walk)."""

    def fire(signum, frame):
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check(space: Path, capsys, *extra: str) -> tuple[int, str]:
    status = main(["check", "--space", str(space), *extra])
    return status, capsys.readouterr().out


def check_json(space: Path, capsys) -> tuple[int, dict]:
    status, out = check(space, capsys, "--json")
    return status, json.loads(out)


ACTIVE_HARNESS = fm("status: active")


# --------------------------------------------------------------------------- encodings: BOM


def test_leading_bom_is_removed_before_the_frontmatter(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": b"\xef\xbb\xbf---\nstatus: active\n---\nBody.\n"})
    result = build(space)
    assert result.pack == harness("h", H + "h.md", "status: active")
    assert "\ufeff" not in result.pack


def test_bom_is_removed_from_agents_md(tmp_path):
    space = write(tmp_path, {"agents.md": b"\xef\xbb\xbfRead me first.\n"})
    assert build(space).pack == "Read me first.\n"


def test_agents_md_holding_only_a_bom_is_empty_and_left_out(tmp_path):
    space = write(tmp_path, {"agents.md": b"\xef\xbb\xbf"})
    result = build(space)
    assert result.pack == ""
    assert not [p for p in result.ledger.problems if p.severity == "error"]


def test_only_one_bom_is_removed_so_a_second_one_hides_the_frontmatter(tmp_path):
    # After the first BOM goes, the text starts with U+FEFF, not a boundary line.
    space = write(tmp_path, {"harnesses/h.md": b"\xef\xbb\xbf\xef\xbb\xbf---\nstatus: active\n---\n"})
    result = build(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == ""


def test_bom_after_a_blank_line_is_not_leading_so_the_frontmatter_is_not_found(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": b"\n\xef\xbb\xbf---\nstatus: active\n---\n"})
    assert_skipped(build(space), H + "h.md")


# --------------------------------------------------------------------------- encodings: line endings


def test_crlf_line_endings_become_lf_in_the_pack(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": b"---\r\nstatus: active\r\ntitle: T\r\n---\r\nBody.\r\n"})
    result = build(space)
    assert result.pack == harness("T", H + "h.md", "status: active\ntitle: T")
    assert "\r" not in result.pack


def test_lone_cr_line_endings_become_lf_in_the_pack(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": b"---\rstatus: active\rtitle: T\r---\rBody.\r"})
    result = build(space)
    assert result.pack == harness("T", H + "h.md", "status: active\ntitle: T")


def test_mixed_line_endings_become_lf_and_cr_cr_lf_is_two_line_breaks(tmp_path):
    # "\r\r\n" is a lone CR followed by a CRLF: two line ends, so a blank line.
    space = write(tmp_path, {"harnesses/h.md": b"---\r\nstatus: active\r\r\ntitle: T\n---\rBody.\r\n"})
    result = build(space)
    assert result.pack == harness("T", H + "h.md", "status: active\n\ntitle: T")


def test_line_endings_of_agents_md_become_lf(tmp_path):
    space = write(tmp_path, {"agents.md": b"one\r\ntwo\rthree\r\r\nfour"})
    assert build(space).pack == "one\ntwo\nthree\n\nfour\n"


def test_crlf_experiment_renders_with_lf_only(tmp_path):
    space = write(tmp_path, {"experiments/e.md": b"---\r\nupdated_at: 2026-01-01\r\nstatus: done\r\n---\r\n"})
    assert build(space).pack == "---\nupdated_at: 2026-01-01\nstatus: done\n---\n"


# --------------------------------------------------------------------------- encodings: invalid UTF-8

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
    space = write(tmp_path, {"harnesses/h.md": data, "harnesses/ok.md": ACTIVE_HARNESS})
    result = build(space)
    (problem,) = assert_skipped(result, H + "h.md")
    assert mentions_number(problem.message, offset), problem.message
    assert result.pack == harness("ok", H + "ok.md", "status: active")


def test_invalid_utf8_offset_counts_the_bom_bytes(tmp_path):
    data = b"\xef\xbb\xbf" + GOOD_PREFIX + b"\xff"
    space = write(tmp_path, {"harnesses/h.md": data})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert mentions_number(problem.message, len(data) - 1), problem.message


def test_invalid_byte_right_after_a_bom_is_at_offset_three(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": b"\xef\xbb\xbf\xfe---\nstatus: active\n---\n"})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert mentions_number(problem.message, 3), problem.message


def test_truncated_bom_is_invalid_at_offset_zero(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": b"\xef\xbb---\nstatus: active\n---\n"})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert mentions_number(problem.message, 0), problem.message


def test_utf16_file_is_invalid_utf8_at_offset_zero(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": "---\nstatus: active\n---\n".encode("utf-16")})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert mentions_number(problem.message, 0), problem.message


def test_invalid_utf8_in_the_body_alone_still_skips_the_document(tmp_path):
    data = b"---\nstatus: active\n---\n" + b"x" * 1000 + b"\xc3"
    space = write(tmp_path, {"harnesses/h.md": data})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert mentions_number(problem.message, len(data) - 1), problem.message


def test_invalid_utf8_agents_md_is_skipped_with_the_offset(tmp_path):
    space = write(tmp_path, {"agents.md": b"Hello \xff world\n", "harnesses/ok.md": ACTIVE_HARNESS})
    result = build(space)
    (problem,) = assert_skipped(result, ".ledger/agents.md")
    assert mentions_number(problem.message, 6), problem.message
    assert result.pack == harness("ok", H + "ok.md", "status: active")


# --------------------------------------------------------------------------- encodings: NUL and raw control bytes


def test_nul_bytes_in_the_body_do_not_matter(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": b"---\nstatus: active\n---\nBo\x00dy\x00\n"})
    assert build(space).pack == harness("h", H + "h.md", "status: active")


def test_nul_byte_in_agents_md_is_kept_verbatim(tmp_path):
    space = write(tmp_path, {"agents.md": b"a\x00b\n"})
    assert build(space).pack == "a\x00b\n"


def test_file_of_nul_bytes_has_no_frontmatter_and_is_skipped(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": b"\x00" * 64})
    assert_skipped(build(space), H + "h.md")


@pytest.mark.parametrize(
    "char", [pytest.param("\x00", id="nul"), pytest.param("\x1b", id="esc"), pytest.param("\x7f", id="del")]
)
def test_raw_control_character_in_frontmatter_is_a_yaml_error_on_its_line(tmp_path, char):
    # YAML (libyaml) refuses raw non-printable characters: the YAML does not parse (§2),
    # and the fault's line is known, so it is named (§3).
    space = write(tmp_path, {"harnesses/h.md": f"---\nstatus: active\ntitle: a{char}b\n---\n"})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert problem.line == 3


def test_nul_written_as_a_yaml_escape_is_cleaned_out_of_the_title(tmp_path):
    text = 'status: active\ntitle: "a\\0b"'
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("a b", H + "h.md", text)


# --------------------------------------------------------------------------- encodings: file names


def test_file_name_not_valid_utf8_is_skipped_and_reported_escaped(tmp_path):
    space = write(tmp_path, {b"harnesses/bad\xff.md": ACTIVE_HARNESS, "harnesses/ok.md": ACTIVE_HARNESS})
    result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert doc_paths(result) == [H + "ok.md"]
    bad = [p for p in result.ledger.problems if p.path.startswith(H + "bad")]
    assert [p.severity for p in bad] == ["error"]
    assert bad[0].path.endswith(".md")
    assert_clean_text(bad[0].path)


def test_folder_name_not_valid_utf8_skips_the_documents_inside(tmp_path):
    space = write(tmp_path, {b"harnesses/dir\xfe/h.md": ACTIVE_HARNESS})
    result = build(space)
    assert result.pack == ""
    bad = [p for p in result.ledger.problems if p.severity == "error"]
    assert len(bad) == 1 and bad[0].path.startswith(H + "dir")
    assert_clean_text(bad[0].path)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("tab\there.md", id="tab"),
        pytest.param("new\nline.md", id="newline"),
        pytest.param("carriage\rreturn.md", id="cr"),
        pytest.param("bell\x07.md", id="bell"),
        pytest.param("esc\x1b[31m.md", id="ansi-escape"),
        pytest.param("del\x7f.md", id="del"),
        pytest.param("nel\x85.md", id="c1-nel"),
        pytest.param("csi\x9b.md", id="c1-csi"),
        pytest.param("line\u2028sep.md", id="u2028"),
        pytest.param("para\u2029sep.md", id="u2029"),
    ],
)
def test_file_name_with_a_control_character_is_skipped_and_reported_escaped(tmp_path, name, capsys):
    space = write(tmp_path, {"harnesses/" + name: ACTIVE_HARNESS})
    result = build(space)
    assert result.pack == ""
    assert result.ledger.documents == []
    (problem,) = result.ledger.problems
    assert problem.severity == "error"
    assert problem.path.startswith(H) and problem.path.endswith(".md")
    assert_clean_text(problem.path)
    status, out = check(space, capsys)
    assert status == 2
    assert_clean_text(out.replace("\n", " "))


def test_folder_name_with_a_newline_skips_the_documents_inside(tmp_path):
    space = write(tmp_path, {"harnesses/sub\ndir/h.md": ACTIVE_HARNESS})
    result = build(space)
    assert result.pack == ""
    (problem,) = result.ledger.problems
    assert problem.severity == "error"
    assert_clean_text(problem.path)


def test_misspelt_top_level_entry_with_a_control_character_is_reported_escaped(tmp_path):
    space = write(tmp_path, {"harnesses/ok.md": ACTIVE_HARNESS})
    (space / ".ledger" / "bad\nname").mkdir()
    result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    (problem,) = result.ledger.problems
    assert problem.severity == "warning"
    assert_clean_text(problem.path)


def test_file_name_with_a_bidi_override_is_clean_text_and_kept(tmp_path):
    # U+202E is category Cf: not a control character (Cc) nor a line separator (§1).
    name = "\u202eevil.md"
    space = write(tmp_path, {"harnesses/" + name: ACTIVE_HARNESS})
    result = build(space)
    assert result.pack == harness("\u202eevil", H + name, "status: active")


def test_file_name_with_spaces_and_accents_is_kept(tmp_path):
    name = "été à Zürich.md"
    space = write(tmp_path, {"harnesses/" + name: ACTIVE_HARNESS})
    assert build(space).pack == harness("été à Zürich", H + name, "status: active")


def test_check_json_with_bad_file_names_is_valid_json(tmp_path, capsys):
    space = write(
        tmp_path,
        {b"harnesses/bad\xff.md": ACTIVE_HARNESS, "harnesses/new\nline.md": ACTIVE_HARNESS},
    )
    status, data = check_json(space, capsys)
    assert status == 2
    paths = [p["path"] for p in data["problems"]]
    assert len(paths) == 2
    for path in paths:
        assert_clean_text(path)


# --------------------------------------------------------------------------- frontmatter shape: missing, unclosed, empty


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
    space = write(tmp_path, {"harnesses/h.md": text, "harnesses/ok.md": ACTIVE_HARNESS})
    result = build(space)
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
    space = write(tmp_path, {"harnesses/h.md": text})
    result = build(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == ""


def test_document_that_merely_starts_with_a_rule_pair_is_skipped(tmp_path):
    # Prose between two rules is frontmatter text that is a YAML scalar, not a mapping.
    space = write(tmp_path, {"harnesses/h.md": "---\n\nSome prose here.\n\n---\n\nMore prose.\n"})
    assert_skipped(build(space), H + "h.md")


def test_empty_frontmatter_is_an_empty_mapping(tmp_path):
    space = write(tmp_path, {"experiments/e.md": "---\n---\nBody.\n"})
    result = build(space)
    assert result.pack == "---\n---\n"
    assert not problems_at(result, X + "e.md", "error")


def test_frontmatter_of_one_blank_line_renders_as_the_two_fences(tmp_path):
    space = write(tmp_path, {"experiments/e.md": "---\n\n---\n"})
    assert build(space).pack == "---\n---\n"


def test_frontmatter_of_two_blank_lines_keeps_them_verbatim(tmp_path):
    space = write(tmp_path, {"experiments/e.md": "---\n\n\n---\n"})
    assert build(space).pack == "---\n\n\n---\n"


def test_frontmatter_holding_only_comments_is_an_empty_mapping_rendered_verbatim(tmp_path):
    space = write(tmp_path, {"experiments/e.md": "---\n# only a comment\n   # another\n---\n"})
    result = build(space)
    assert result.pack == "---\n# only a comment\n   # another\n---\n"


def test_empty_harness_frontmatter_has_no_status_so_is_not_selected(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": "---\n---\n"})
    result = build(space)
    assert doc_paths(result) == [H + "h.md"]
    assert result.pack == ""


def test_closing_fence_at_end_of_file_without_newline(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": "---\nstatus: active\n---"})
    assert build(space).pack == harness("h", H + "h.md", "status: active")


def test_leading_blank_lines_of_spaces_and_tabs_before_the_fence_are_ignored(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": "\n   \n\t \n---\nstatus: active\n---\n"})
    assert build(space).pack == harness("h", H + "h.md", "status: active")


def test_long_fences_with_trailing_blanks_render_as_plain_fences(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": "-----  \nstatus: active\n----\t\nBody.\n"})
    assert build(space).pack == harness("h", H + "h.md", "status: active")


def test_indented_dashes_inside_a_block_scalar_do_not_close_the_frontmatter(tmp_path):
    text = "status: active\nnote: |\n  ---\n  still the note"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("h", H + "h.md", text)


@libyaml_only
def test_trailing_blanks_inside_the_frontmatter_are_kept_verbatim(tmp_path):
    text = "status: active  \t\ntitle:   Spaced   \n\n# comment kept"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("Spaced", H + "h.md", text)


def test_frontmatter_with_a_yaml_document_end_marker_is_one_document(tmp_path):
    text = "status: active\n..."
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("h", H + "h.md", text)


def test_frontmatter_holding_two_yaml_documents_is_skipped(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": fm("status: active\n...\ntitle: second")})
    assert_skipped(build(space), H + "h.md")


def test_frontmatter_ends_at_the_first_closing_fence(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": "---\nstatus: active\n---\ntitle: not frontmatter\n---\n"})
    assert build(space).pack == harness("h", H + "h.md", "status: active")


# --------------------------------------------------------------------------- frontmatter shape: not a mapping


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("- status\n- active", id="block-list"),
        pytest.param("[status, active]", id="flow-list"),
        pytest.param("just a sentence", id="plain-scalar"),
        pytest.param('"status: active"', id="quoted-scalar"),
        pytest.param("|\n  status: active", id="block-scalar"),
        pytest.param("~", id="null-scalar"),
    ],
)
def test_frontmatter_that_is_not_a_mapping_is_skipped(tmp_path, text):
    space = write(tmp_path, {"harnesses/h.md": fm(text), "harnesses/ok.md": ACTIVE_HARNESS})
    result = build(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == harness("ok", H + "ok.md", "status: active")


# --------------------------------------------------------------------------- frontmatter shape: other formats


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('+++\nstatus = "active"\n+++\n', id="toml"),
        pytest.param('{"status": "active"}\n', id="json"),
        pytest.param(';;;\n{"status": "active"}\n;;;\n', id="json-semicolons"),
        pytest.param("```yaml\nstatus: active\n```\n", id="fenced-code"),
    ],
)
def test_other_frontmatter_formats_are_not_recognised(tmp_path, text):
    space = write(tmp_path, {"harnesses/h.md": text})
    result = build(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == ""


def test_toml_agents_md_is_included_verbatim_without_a_ceiling_and_withheld_under_one(tmp_path):
    # Spec §2 (updated): a +++ opening line leaves the class unknown (fail closed).
    text = '+++\ndata_class = "restricted"\n+++\nHello\n'
    space = write(tmp_path, {"agents.md": text})
    assert build(space).pack == text
    result = build(space, max_data_class="public")
    assert result.pack == ""
    assert [(d.path, d.data_class) for d in result.selection.withheld] == [(".ledger/agents.md", "unknown")]


def test_json_inside_yaml_fences_is_a_yaml_flow_mapping(tmp_path):
    text = '{"status": "active", "slug": "j"}'
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("j", H + "h.md", text)


# --------------------------------------------------------------------------- frontmatter shape: tabs


@libyaml_only
def test_tab_after_the_colon_is_yaml_whitespace(tmp_path):
    text = "status:\tactive"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("h", H + "h.md", text)


def test_tab_indentation_is_a_yaml_error_on_its_line(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": "---\nstatus: active\n\tslug: x\n---\n"})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert problem.line == 3


# --------------------------------------------------------------------------- frontmatter shape: YAML syntax errors


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
    space = write(tmp_path, {"harnesses/h.md": data, "harnesses/ok.md": ACTIVE_HARNESS})
    result = build(space)
    (problem,) = assert_skipped(result, H + "h.md")
    assert problem.line == line, problem
    assert result.pack == harness("ok", H + "ok.md", "status: active")


def test_yaml_error_names_the_column(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": "---\nslug: a\nstatus: @x\n---\n"})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert (problem.line, problem.column) == (3, 9)


def test_unterminated_quote_is_skipped_with_a_line_inside_the_frontmatter(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": '---\nstatus: active\ntitle: "never closed\n---\n'})
    (problem,) = assert_skipped(build(space), H + "h.md")
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
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    assert_skipped(result, H + "h.md")
    for problem in result.ledger.problems:
        assert "SECRETWORD" not in problem.message
    _, out = check(space, capsys)
    assert "SECRETWORD" not in out


# --------------------------------------------------------------------------- frontmatter shape: duplicate keys


def test_duplicate_key_keeps_the_last_value_and_is_a_warning_with_its_line(tmp_path):
    text = "status: draft\ntitle: T\nstatus: active"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    # Last value wins, and the pack renders the verbatim text, both keys included.
    assert result.pack == harness("T", H + "h.md", text)
    (problem,) = problems_at(result, H + "h.md")
    assert problem.severity == "warning"
    assert problem.line == 4


def test_duplicate_key_whose_last_value_does_not_select_drops_the_document(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": fm("status: active\nstatus: draft")})
    result = build(space)
    assert result.pack == ""
    assert [d.status for d in result.ledger.documents] == ["draft"]
    assert [p.severity for p in problems_at(result, H + "h.md")] == ["warning"]


def test_duplicate_key_spelt_with_quotes_is_the_same_key(tmp_path):
    text = "status: draft\n\"status\": active\n'status': active"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    assert result.pack == harness("h", H + "h.md", text)
    assert sorted(p.line for p in problems_at(result, H + "h.md", "warning")) == [3, 4]


def test_duplicate_key_in_a_nested_mapping_is_reported(tmp_path):
    text = "status: active\nmeta:\n  owner: a\n  owner: b"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    assert result.pack == harness("h", H + "h.md", text)
    (problem,) = problems_at(result, H + "h.md")
    assert (problem.severity, problem.line) == ("warning", 5)


def test_duplicate_key_message_does_not_quote_the_key(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": fm("status: active\nSECRETKEY: 1\nSECRETKEY: 2")})
    (problem,) = build(space).ledger.problems
    assert "SECRETKEY" not in problem.message


# --------------------------------------------------------------------------- frontmatter shape: keys that are not strings


@pytest.mark.parametrize(
    ("text", "line"),
    [
        pytest.param("status: active\n? [a, b]\n: v", 3, id="list-key"),
        pytest.param("status: active\n? {a: b}\n: v", 3, id="mapping-key"),
        pytest.param("status: active\n[a, b]: v", 3, id="flow-list-key"),
    ],
)
def test_key_that_is_a_list_or_mapping_is_skipped(tmp_path, text, line):
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert problem.line == line


def test_keys_that_look_like_numbers_booleans_or_null_are_strings(tmp_path):
    text = "1: one\ntrue: yes\n~: tilde\nnull: n\nstatus: active"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    assert result.pack == harness("h", H + "h.md", text)
    assert not result.ledger.problems


def test_keys_match_exactly_case_included(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": fm("Status: active\nSTATUS: active")})
    result = build(space)
    assert result.pack == ""
    assert [d.status for d in result.ledger.documents] == [None]


# --------------------------------------------------------------------------- frontmatter shape: anchors, aliases, tags


def test_alias_resolves_to_the_anchored_value_and_the_text_stays_verbatim(tmp_path):
    text = "word: &w active\nstatus: *w"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("h", H + "h.md", text)


def test_merge_key_is_not_applied_by_the_base_loader(tmp_path):
    # BaseLoader has no implicit types, the YAML 1.1 merge key included: "<<" is a plain key.
    text = "base: &b {status: active}\n<<: *b"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    assert result.pack == ""
    assert [d.status for d in result.ledger.documents] == [None]


def test_python_tags_are_not_constructed(tmp_path):
    text = "status: active\ntitle: !!python/object/apply:os.system [echo pwned]\nslug: !!int 7"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    # title is a list, so the title falls back to the slug; slug stays the string "7".
    assert result.pack == harness("7", H + "h.md", text)


def test_duplicate_anchor_is_a_yaml_error_on_the_second_anchor(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": fm("a: &x 1\nb: &x 2\nstatus: active")})
    (problem,) = assert_skipped(build(space), H + "h.md")
    assert problem.line == 3


def _billion_laughs(levels: int = 12) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        refs = ", ".join([f"*l{level - 1}"] * 10)
        lines.append(f"l{level}: &l{level} [{refs}]")
    return "\n".join(lines)


def _mapping_bomb(levels: int = 12) -> str:
    lines = ["m0: &m0 {a: lol, b: lol, c: lol, d: lol, e: lol, f: lol, g: lol, h: lol, i: lol, j: lol}"]
    for level in range(1, levels):
        refs = ", ".join(f"k{i}: *m{level - 1}" for i in range(10))
        lines.append(f"m{level}: &m{level} {{{refs}}}")
    return "\n".join(lines)


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param("status: active", id="plain"),
        pytest.param("status: active\ntitle: *l11", id="bomb-as-title"),
        pytest.param("status: active\nslug: *l11", id="bomb-as-slug"),
        pytest.param("status: active\ndata_class: *l11", id="bomb-as-data-class"),
        pytest.param("status: active\nupdated_at: *l11", id="bomb-as-updated-at"),
    ],
)
def test_alias_bomb_returns_quickly_with_bounded_memory(tmp_path, extra):
    text = _billion_laughs() + "\n" + extra
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    tracemalloc.start()
    started = time.monotonic()
    try:
        with deadline(20):
            result = build(space)
        elapsed = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 5
    assert peak < 64 * MiB
    assert result.pack == harness("h", H + "h.md", text)


def test_alias_bomb_as_status_never_matches_and_is_reported(tmp_path):
    text = _billion_laughs() + "\nstatus: *l11"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    with deadline(20):
        result = build(space)
    assert result.pack == ""
    assert [p.severity for p in problems_at(result, H + "h.md")] == ["warning"]


def test_mapping_alias_bomb_returns_quickly_and_renders_verbatim(tmp_path):
    text = _mapping_bomb() + "\nstatus: active"
    space = write(tmp_path, {"experiments/e.md": fm(text + "\nupdated_at: 2026-01-01")})
    started = time.monotonic()
    with deadline(20):
        result = build(space)
    assert time.monotonic() - started < 5
    assert result.pack == fence(text + "\nupdated_at: 2026-01-01")


# --------------------------------------------------------------------------- frontmatter shape: deep nesting


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("[" * 10_000 + "]" * 10_000, id="10000-flow-lists"),
        pytest.param("{a: " * 10_000 + "x" + "}" * 10_000, id="10000-flow-mappings"),
        pytest.param("\n" + "".join(" " * (i + 1) + "- \n" for i in range(3_000)), id="3000-block-lists"),
        pytest.param("[" * 10_000, id="10000-unclosed"),
    ],
)
def test_very_deep_nesting_is_skipped_without_a_crash(tmp_path, value):
    space = write(
        tmp_path, {"harnesses/h.md": fm(f"status: active\ndeep: {value}"), "harnesses/ok.md": ACTIVE_HARNESS}
    )
    with deadline(30):
        result = build(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == harness("ok", H + "ok.md", "status: active")


def test_modest_nesting_is_accepted(tmp_path):
    text = "status: active\nnested: " + "[" * 20 + "x" + "]" * 20
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("h", H + "h.md", text)


def test_deeply_nested_agents_frontmatter_is_still_included_verbatim(tmp_path):
    text = "---\ndeep: " + "[" * 10_000 + "]" * 10_000 + "\n---\nRead me.\n"
    space = write(tmp_path, {"agents.md": text})
    result = build(space)
    assert result.pack == text
    problems = problems_at(result, ".ledger/agents.md")
    assert problems and all(p.severity != "error" for p in problems)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("---\ndata_class: [\n---\nRead me.\n", id="yaml-error"),
        pytest.param("---\n- a list\n---\nRead me.\n", id="list"),
        pytest.param("---\ndata_class: restricted\nRead me.\n", id="unclosed"),
    ],
)
def test_agents_md_with_broken_frontmatter_is_included_verbatim_and_reported(tmp_path, text):
    # Spec §2 (updated): a broken frontmatter declares unknown: included verbatim
    # without a ceiling, withheld under any ceiling, reported either way.
    space = write(tmp_path, {"agents.md": text})
    result = build(space)
    assert result.pack == text
    problems = problems_at(result, ".ledger/agents.md")
    assert problems and all(p.severity != "error" for p in problems)
    ceiled = build(space, max_data_class="restricted")
    assert ceiled.pack == ""
    assert problems_at(ceiled, ".ledger/agents.md") == problems


# --------------------------------------------------------------------------- field values: no implicit typing


def test_values_that_look_typed_stay_strings(tmp_path):
    text = "status: no\nslug: 0007\nupdated_at: 2024-02-30\ntitle: 1e3"
    space = write(tmp_path, {"experiments/e.md": fm(text)})
    result = build(space)
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
    space = write(tmp_path, {"harnesses/h.md": fm(f"status: active\nslug: {value}")})
    result = build(space)
    assert [d.slug for d in result.ledger.documents] == [expected]
    assert result.pack == harness(expected, H + "h.md", f"status: active\nslug: {value}")


# --------------------------------------------------------------------------- field values: updated_at


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
        ("2026-08-11T10:00:00.5+02:00", _utc(2026, 8, 11, 8, 0, 0, 500000)),
        ("'2026-08-11'", _utc(2026, 8, 11)),
        ('"  2026-08-11T10:00:00Z  "', _utc(2026, 8, 11, 10)),
        ("2026-08-11 # a comment", _utc(2026, 8, 11)),
        ("|\n  2026-08-11", _utc(2026, 8, 11)),
    ],
)
def test_accepted_updated_at_is_normalised_to_utc(tmp_path, value, instant):
    space = write(tmp_path, {"findings/f.md": fm(f"status: current\nupdated_at: {value}")})
    result = build(space)
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
    space = write(tmp_path, {"findings/f.md": fm(f"status: current\nupdated_at:{sep}{value}")})
    result = build(space)
    (document,) = result.ledger.documents
    assert document.updated is None
    assert [p.severity for p in problems_at(result, F + "f.md")] == ["warning"]


def test_updated_at_key_matches_case_exactly(tmp_path):
    space = write(tmp_path, {"findings/f.md": fm("status: current\nUpdated_At: 2026-08-11")})
    (document,) = build(space).ledger.documents
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
    space = write(tmp_path, files)
    result = build(space)
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
    space = write(tmp_path, files)
    result = build(space)
    # 9999-12-31T23:59:59-12:00 is 10000-01-01T11:59:59Z: later than any naive maximum.
    assert [b.block.document.path for b in result.budgeted.blocks] == [D + "late.md", D + "max.md"]


def test_far_future_updated_at_is_normalised_to_utc(tmp_path):
    space = write(
        tmp_path, {"decisions/late.md": fm("status: accepted\nupdated_at: 9999-12-31T23:59:59-12:00")}
    )
    (document,) = build(space).ledger.documents
    assert document.updated is not None
    assert document.updated.iso.startswith("10000-01-01T11:59:59")


def test_undated_experiments_come_after_all_dated_ones_and_fall_out_of_the_ten(tmp_path):
    files = {f"experiments/e{i:02}.md": fm(f"updated_at: 2026-01-{i + 1:02}") for i in range(11)}
    files["experiments/a-undated.md"] = fm("updated_at: 2026-02-30")
    space = write(tmp_path, files)
    result = build(space)
    paths = [b.block.document.path for b in result.budgeted.blocks]
    assert paths == [X + f"e{i:02}.md" for i in range(10, 0, -1)]
    assert problems_at(result, X + "a-undated.md", "warning")


def test_undated_experiment_is_in_the_pack_when_fewer_than_ten(tmp_path):
    files = {
        "experiments/b.md": fm("updated_at: 2026-01-01"),
        "experiments/a.md": fm("updated_at: yesterday"),
    }
    space = write(tmp_path, files)
    assert build(space).pack == pack_of(fence("updated_at: 2026-01-01"), fence("updated_at: yesterday"))


def test_undated_decision_not_selected_is_still_reported(tmp_path):
    # §3: an undated updated_at is "reported for the kinds whose order uses it (findings,
    # decisions, experiments)" - whatever the document's status.
    space = write(tmp_path, {"decisions/old.md": fm("status: superseded")})
    result = build(space)
    assert result.pack == ""
    assert [p.severity for p in problems_at(result, D + "old.md")] == ["warning"]


def test_undated_harness_is_not_reported(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": fm("status: active\nupdated_at: 2024-02-30")})
    result = build(space)
    assert result.pack == harness("h", H + "h.md", "status: active\nupdated_at: 2024-02-30")
    assert result.ledger.problems == []


# --------------------------------------------------------------------------- field values: status


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
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("h", H + "h.md", text)


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
    space = write(tmp_path, {"harnesses/h.md": fm(f"status: {value}")})
    result = build(space)
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
    space = write(tmp_path, {"harnesses/h.md": fm(f"status: {value}")})
    result = build(space)
    assert result.pack == ""
    assert [p.severity for p in problems_at(result, H + "h.md")] == ["warning"]


def test_status_list_never_matches_in_findings_and_decisions(tmp_path):
    space = write(
        tmp_path,
        {
            "findings/f.md": fm("status: [current]\nupdated_at: 2026-01-01"),
            "decisions/d.md": fm("status: [accepted]\nupdated_at: 2026-01-01"),
        },
    )
    result = build(space)
    assert result.pack == ""
    assert problems_at(result, F + "f.md", "warning")
    assert problems_at(result, D + "d.md", "warning")


def test_status_casefold_selects_findings_and_decisions(tmp_path):
    space = write(
        tmp_path,
        {
            "findings/f.md": fm("status: CURRENT\nupdated_at: 2026-01-01"),
            "decisions/d.md": fm("status: ' Accepted '\nupdated_at: 2026-01-01"),
        },
    )
    assert build(space).pack == pack_of(
        titled("Finding", "f", F + "f.md", "status: CURRENT\nupdated_at: 2026-01-01"),
        titled("Decision", "d", D + "d.md", "status: ' Accepted '\nupdated_at: 2026-01-01"),
    )


def test_experiments_are_selected_whatever_their_status(tmp_path):
    files = {
        "experiments/a.md": fm("status: no\nupdated_at: 2026-01-02"),
        "experiments/b.md": fm("status: [x]\nupdated_at: 2026-01-01"),
    }
    space = write(tmp_path, files)
    assert build(space).pack == pack_of(
        fence("status: no\nupdated_at: 2026-01-02"), fence("status: [x]\nupdated_at: 2026-01-01")
    )


# --------------------------------------------------------------------------- field values: titles


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
        pytest.param("a\tb", "a b", id="raw-tab", marks=libyaml_only),
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
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    assert result.pack == harness(title, H + "h.md", text)
    first_line = result.pack.split("\n", 1)[0]
    assert_clean_text(first_line)


def test_title_of_thousands_of_characters_stays_one_line(tmp_path):
    long = "word " * 2000
    text = f"status: active\ntitle: {long}"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    assert result.pack == harness(long.strip(), H + "h.md", text)
    assert result.pack.count("\n") == 5


def test_title_of_multibyte_characters_over_the_cap_is_cut_on_a_code_point(tmp_path):
    long = "é" * 20_000  # 40,000 bytes: a group 2 block alone over the 24,000-byte cap
    text = f"status: active\ntitle: {long}"
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
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
    space = write(tmp_path, {"harnesses/h.md": f"---\n{text}\n---\n{body}"})
    assert build(space).pack == harness(title, H + "h.md", text)


def test_lone_surrogate_escape_is_rejected_by_libyaml(tmp_path):
    text = 'status: active\ntitle: "a\\ud800b"'
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
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
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    result = build(space)
    if yaml.__with_libyaml__:
        assert_skipped(result, H + "h.md")
    result.pack.encode("utf-8")


# --------------------------------------------------------------------------- field values: slugs


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
    space = write(tmp_path, files)
    result = build(space)
    slugs = [b.block.document.slug for b in result.budgeted.blocks]
    assert slugs == ["0007", "010", "7", "B", "Zeta", "a b", "x6", "x7", "x8", "é"]


def test_equal_slugs_are_ordered_by_path(tmp_path):
    files = {
        "harnesses/b.md": fm("status: active\nslug: same"),
        "harnesses/a/z.md": fm("status: active\nslug: same"),
        "harnesses/a.md": fm("status: active\nslug: same"),
    }
    space = write(tmp_path, files)
    paths = [b.block.document.path for b in build(space).budgeted.blocks]
    assert paths == [H + "a.md", H + "a/z.md", H + "b.md"]


def test_slug_with_a_newline_is_one_line_in_the_title(tmp_path):
    text = 'status: active\nslug: "two\\nlines"'
    space = write(tmp_path, {"harnesses/h.md": fm(text)})
    assert build(space).pack == harness("two lines", H + "h.md", text)


# --------------------------------------------------------------------------- file system: the space


def test_find_space_names_an_explicit_path_without_a_ledger(tmp_path):
    with pytest.raises(SpaceNotFoundError) as info:
        find_space(tmp_path)
    assert str(tmp_path) in str(info.value)


def test_find_space_upward_search_names_where_it_started(tmp_path):
    start = tmp_path / "a" / "b"
    start.mkdir(parents=True)
    if any((d / ".ledger").exists() for d in (start, *start.parents)):
        pytest.skip("a .ledger exists above the temporary directory")
    with pytest.raises(SpaceNotFoundError) as info:
        find_space(start=start)
    assert str(start) in str(info.value)


def test_find_space_takes_the_nearest_ledger_upward(tmp_path):
    write(tmp_path, {"harnesses/h.md": ACTIVE_HARNESS}, name="outer")
    inner = write(tmp_path / "outer", {}, name="inner")
    deeper = inner / "x" / "y"
    deeper.mkdir(parents=True)
    assert find_space(start=deeper) == inner


def test_ledger_that_is_a_file_is_not_a_space(tmp_path):
    (tmp_path / ".ledger").write_text("not a folder")
    with pytest.raises(SpaceNotFoundError):
        find_space(tmp_path)


def test_upward_search_passes_over_a_ledger_that_is_a_file(tmp_path):
    outer = write(tmp_path, {}, name="outer")
    inner = outer / "inner"
    inner.mkdir()
    (inner / ".ledger").write_text("not a folder")
    assert find_space(start=inner) == outer


def test_build_context_on_a_directory_without_a_ledger_is_a_clear_error(tmp_path):
    try:
        result = build(tmp_path)
    except LedgerContextError:
        return
    # If it does not raise, the missing ledger must at least be an error problem.
    assert result.pack == ""
    assert [p for p in result.ledger.problems if p.severity == "error"]


def test_build_context_on_a_ledger_that_is_a_file_is_a_clear_error(tmp_path):
    (tmp_path / ".ledger").write_text("not a folder")
    try:
        result = build(tmp_path)
    except LedgerContextError:
        return
    assert result.pack == ""
    assert [p for p in result.ledger.problems if p.severity == "error"]


def test_check_on_a_directory_without_a_ledger_fails_and_names_it(tmp_path, capsys):
    status = main(["check", "--space", str(tmp_path)])
    captured = capsys.readouterr()
    assert status not in (0, 1)
    assert str(tmp_path) in captured.err


def test_ledger_may_be_a_symbolic_link(tmp_path):
    real = tmp_path / "elsewhere"
    write(tmp_path, {"harnesses/h.md": ACTIVE_HARNESS}, name="elsewhere")
    space = tmp_path / "space"
    space.mkdir()
    (space / ".ledger").symlink_to(real / ".ledger", target_is_directory=True)
    # A link inside pointing within the (real) root is followed.
    os.symlink("h.md", real / ".ledger" / "harnesses" / "l.md")
    result = build(space)
    assert doc_paths(result) == [H + "h.md"]
    assert result.pack == harness("h", H + "h.md", "status: active")


def test_empty_ledger_gives_an_empty_pack_and_a_clean_check(tmp_path, capsys):
    space = write(tmp_path, {})
    result = build(space)
    assert result.pack == ""
    assert result.ledger.problems == []
    assert check(space, capsys)[0] == 0


def test_missing_kind_folders_are_not_an_error(tmp_path, capsys):
    space = write(tmp_path, {"experiments/e.md": fm("updated_at: 2026-01-01")})
    result = build(space)
    assert result.pack == fence("updated_at: 2026-01-01")
    assert result.ledger.problems == []
    assert check(space, capsys)[0] == 0


def test_empty_kind_folders_are_not_an_error(tmp_path):
    space = write(tmp_path, {})
    for kind in ("harnesses", "evals", "findings", "decisions", "experiments"):
        (space / ".ledger" / kind).mkdir()
    result = build(space)
    assert result.pack == ""
    assert result.ledger.problems == []


def test_kind_folder_that_is_a_file_is_reported(tmp_path):
    space = write(tmp_path, {"harnesses": ACTIVE_HARNESS, "evals/e.md": fm("status: active")})
    result = build(space)
    assert result.pack == titled("Eval", "e", EV + "e.md", "status: active")
    assert problems_at(result, ".ledger/harnesses")


def test_agents_md_that_is_a_folder_is_reported(tmp_path):
    space = write(tmp_path, {"agents.md/inner.md": "hello\n"})
    result = build(space)
    assert result.pack == ""
    assert problems_at(result, ".ledger/agents.md")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_file_is_skipped_and_reported(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": ACTIVE_HARNESS, "harnesses/ok.md": ACTIVE_HARNESS})
    target = space / ".ledger" / "harnesses" / "h.md"
    target.chmod(0)
    try:
        result = build(space)
    finally:
        target.chmod(0o644)
    assert_skipped(result, H + "h.md")
    assert result.pack == harness("ok", H + "ok.md", "status: active")


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists folders whatever their permissions")
def test_unreadable_folder_is_reported(tmp_path):
    space = write(tmp_path, {"harnesses/sub/h.md": ACTIVE_HARNESS, "harnesses/ok.md": ACTIVE_HARNESS})
    folder = space / ".ledger" / "harnesses" / "sub"
    folder.chmod(0)
    try:
        result = build(space)
    finally:
        folder.chmod(0o755)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert problems_at(result, H + "sub")


# --------------------------------------------------------------------------- file system: symbolic links


def test_link_to_a_file_elsewhere_inside_the_ledger_is_followed(tmp_path):
    space = write(tmp_path, {"shared/h.md": ACTIVE_HARNESS})
    os.makedirs(space / ".ledger" / "harnesses")
    os.symlink("../shared/h.md", space / ".ledger" / "harnesses" / "h.md")
    result = build(space)
    assert result.pack == harness("h", H + "h.md", "status: active")
    # `shared` is an unexpected entry at the top of .ledger: a warning, nothing else.
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(".ledger/shared", "warning")]


def test_file_reached_by_two_paths_is_read_once_under_its_own_path(tmp_path):
    # Spec §1 (updated): the link-free path wins, though the link's sorts first.
    text = fm("status: accepted\nupdated_at: 2026-01-01")
    space = write(tmp_path, {"decisions/b.md": text})
    os.symlink("b.md", space / ".ledger" / "decisions" / "a.md")
    result = build(space)
    assert doc_paths(result) == [D + "b.md"]
    assert result.pack == titled("Decision", "b", D + "b.md", "status: accepted\nupdated_at: 2026-01-01")
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(D + "a.md", "info")]


def test_file_linked_into_another_kind_keeps_the_kind_of_its_own_path(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": fm("status: active")})
    os.makedirs(space / ".ledger" / "decisions")
    os.symlink("../harnesses/h.md", space / ".ledger" / "decisions" / "d.md")
    result = build(space)
    # ".ledger/decisions/d.md" sorts first, but goes through a link: read once, as a harness.
    assert doc_paths(result) == [H + "h.md"]
    assert result.pack == harness("h", H + "h.md", "status: active")
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(D + "d.md", "warning")]


def test_agents_md_linked_to_a_harness_is_read_once_as_the_harness(tmp_path):
    space = write(tmp_path, {"harnesses/h.md": ACTIVE_HARNESS})
    os.symlink("harnesses/h.md", space / ".ledger" / "agents.md")
    result = build(space)
    assert doc_paths(result) == [H + "h.md"]
    assert result.pack == harness("h", H + "h.md", "status: active")


def test_linked_folder_inside_is_followed_and_its_files_read_once(tmp_path):
    space = write(tmp_path, {"experiments/real/e.md": fm("updated_at: 2026-01-01")})
    os.symlink("real", space / ".ledger" / "experiments" / "alias", target_is_directory=True)
    result = build(space)
    assert doc_paths(result) == [X + "real/e.md"]
    assert result.pack == fence("updated_at: 2026-01-01")


def test_link_that_leaves_and_reenters_the_ledger_is_followed(tmp_path):
    space = write(tmp_path, {"harnesses/real.md": ACTIVE_HARNESS})
    os.symlink("../../.ledger/harnesses/real.md", space / ".ledger" / "harnesses" / "zlink.md")
    result = build(space)
    assert doc_paths(result) == [H + "real.md"]
    assert result.pack == harness("real", H + "real.md", "status: active")


def test_link_to_a_file_outside_the_ledger_is_skipped_as_an_error(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(ACTIVE_HARNESS)
    space = write(tmp_path, {"harnesses/ok.md": ACTIVE_HARNESS})
    os.symlink(outside, space / ".ledger" / "harnesses" / "out.md")
    result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert_skipped(result, H + "out.md")


def test_relative_link_climbing_out_of_the_ledger_is_skipped(tmp_path):
    space = write(tmp_path, {})
    (space / "secret.md").write_text(ACTIVE_HARNESS)
    os.makedirs(space / ".ledger" / "harnesses")
    os.symlink("../../secret.md", space / ".ledger" / "harnesses" / "up.md")
    result = build(space)
    assert result.pack == ""
    assert_skipped(result, H + "up.md")


def test_link_into_a_sibling_whose_name_extends_the_ledger_root_is_outside(tmp_path):
    space = write(tmp_path, {})
    (space / ".ledger2").mkdir()
    (space / ".ledger2" / "h.md").write_text(ACTIVE_HARNESS)
    os.makedirs(space / ".ledger" / "harnesses")
    os.symlink("../../.ledger2/h.md", space / ".ledger" / "harnesses" / "h.md")
    result = build(space)
    assert result.pack == ""
    assert_skipped(result, H + "h.md")


def test_agents_md_linked_outside_is_skipped(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("SECRET CONTENT\n")
    space = write(tmp_path, {})
    os.symlink(outside, space / ".ledger" / "agents.md")
    result = build(space)
    assert result.pack == ""
    assert_skipped(result, ".ledger/agents.md")


def test_linked_folder_outside_the_ledger_is_skipped_and_reported(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "e.md").write_text(fm("updated_at: 2026-01-01"))
    space = write(tmp_path, {"experiments/in.md": fm("updated_at: 2025-01-01")})
    os.symlink(outside, space / ".ledger" / "experiments" / "ext", target_is_directory=True)
    result = build(space)
    assert result.pack == fence("updated_at: 2025-01-01")
    assert problems_at(result, X + "ext")


def test_kind_folder_linked_outside_is_skipped_and_reported(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "e.md").write_text(fm("updated_at: 2026-01-01"))
    space = write(tmp_path, {})
    os.symlink(outside, space / ".ledger" / "experiments", target_is_directory=True)
    result = build(space)
    assert result.pack == ""
    assert problems_at(result, ".ledger/experiments")


def test_dangling_link_is_skipped_and_reported(tmp_path):
    space = write(tmp_path, {"harnesses/ok.md": ACTIVE_HARNESS})
    os.symlink("nowhere.md", space / ".ledger" / "harnesses" / "gone.md")
    result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert_skipped(result, H + "gone.md")


def test_link_to_itself_is_reported_without_a_hang(tmp_path):
    space = write(tmp_path, {"harnesses/ok.md": ACTIVE_HARNESS})
    os.symlink("self.md", space / ".ledger" / "harnesses" / "self.md")
    with deadline(10):
        result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert problems_at(result, H + "self.md")


def test_two_links_pointing_at_each_other_are_reported_without_a_hang(tmp_path):
    space = write(tmp_path, {"harnesses/ok.md": ACTIVE_HARNESS})
    folder = space / ".ledger" / "harnesses"
    os.symlink("b.md", folder / "a.md")
    os.symlink("a.md", folder / "b.md")
    with deadline(10):
        result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert problems_at(result, H + "a.md") and problems_at(result, H + "b.md")


def test_folder_link_loop_is_detected_and_each_file_read_once(tmp_path):
    space = write(tmp_path, {"experiments/e.md": fm("updated_at: 2026-01-01")})
    os.symlink(".", space / ".ledger" / "experiments" / "loop", target_is_directory=True)
    os.makedirs(space / ".ledger" / "experiments" / "sub")
    os.symlink("..", space / ".ledger" / "experiments" / "sub" / "up", target_is_directory=True)
    with deadline(10):
        result = build(space)
    assert doc_paths(result) == [X + "e.md"]
    assert result.pack == fence("updated_at: 2026-01-01")
    assert problems_at(result, X + "loop")


def test_folder_link_to_the_ledger_root_is_a_loop_detected(tmp_path):
    space = write(tmp_path, {"experiments/e.md": fm("updated_at: 2026-01-01")})
    os.symlink("..", space / ".ledger" / "experiments" / "root", target_is_directory=True)
    with deadline(10):
        result = build(space)
    assert result.pack == fence("updated_at: 2026-01-01")


def test_links_that_multiply_paths_finish_and_read_each_file_once(tmp_path):
    # d0/{a,b} -> d1, d1/{a,b} -> d2, ...: 2**12 paths to one file, no loop.
    space = write(tmp_path, {"store/d12/e.md": fm("updated_at: 2026-01-01")})
    store = space / ".ledger" / "store"
    for level in range(12):
        (store / f"d{level}").mkdir(exist_ok=True)
        for name in ("a", "b"):
            os.symlink(f"../d{level + 1}", store / f"d{level}" / name, target_is_directory=True)
    os.makedirs(space / ".ledger" / "experiments")
    os.symlink("../store/d0", space / ".ledger" / "experiments" / "x", target_is_directory=True)
    with deadline(60):
        result = build(space)
    assert doc_paths(result) == [X + "x/" + "a/" * 12 + "e.md"]
    assert result.pack == fence("updated_at: 2026-01-01")


# --------------------------------------------------------------------------- file system: special files and size


def test_fifo_is_skipped_and_reported_without_blocking(tmp_path):
    space = write(tmp_path, {"harnesses/ok.md": ACTIVE_HARNESS})
    os.makedirs(space / ".ledger" / "experiments")
    os.mkfifo(space / ".ledger" / "experiments" / "pipe.md")
    with deadline(10):
        result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert_skipped(result, X + "pipe.md")


def test_fifo_named_agents_md_is_skipped_without_blocking(tmp_path):
    space = write(tmp_path, {})
    os.mkfifo(space / ".ledger" / "agents.md")
    with deadline(10):
        result = build(space)
    assert result.pack == ""
    assert_skipped(result, ".ledger/agents.md")


def test_link_to_a_fifo_is_skipped_without_blocking(tmp_path):
    space = write(tmp_path, {})
    os.makedirs(space / ".ledger" / "harnesses")
    os.mkfifo(space / ".ledger" / "harnesses" / "pipe")
    os.symlink("pipe", space / ".ledger" / "harnesses" / "p.md")
    with deadline(10):
        result = build(space)
    assert result.pack == ""
    assert_skipped(result, H + "p.md")


def test_fifo_not_named_md_is_ignored_quietly(tmp_path):
    space = write(tmp_path, {"harnesses/ok.md": ACTIVE_HARNESS})
    os.mkfifo(space / ".ledger" / "harnesses" / "pipe")
    with deadline(10):
        result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert result.ledger.problems == []


def test_socket_named_md_is_skipped_without_blocking(tmp_path):
    space = write(tmp_path, {})
    folder = space / ".ledger" / "harnesses"
    folder.mkdir()
    cwd = os.getcwd()
    server = socket.socket(socket.AF_UNIX)
    try:
        os.chdir(folder)  # a short relative name: socket paths are limited to ~100 bytes
        server.bind("s.md")
    finally:
        os.chdir(cwd)
    try:
        with deadline(10):
            result = build(space)
    finally:
        server.close()
    assert result.pack == ""
    assert_skipped(result, H + "s.md")


def _sparse_document(path: Path, size: int) -> None:
    """A valid document padded with NUL bytes (valid UTF-8) to exactly ``size`` bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(b"---\nstatus: active\n---\n")
        handle.truncate(size)


def test_file_over_10_mib_is_skipped_and_reported(tmp_path):
    space = write(tmp_path, {"harnesses/ok.md": ACTIVE_HARNESS})
    _sparse_document(space / ".ledger" / "harnesses" / "big.md", LIMIT + 1)
    result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert_skipped(result, H + "big.md")


def test_file_of_exactly_10_mib_is_read(tmp_path):
    space = write(tmp_path, {})
    _sparse_document(space / ".ledger" / "harnesses" / "big.md", LIMIT)
    result = build(space)
    assert result.pack == harness("big", H + "big.md", "status: active")


def test_agents_md_over_10_mib_is_skipped(tmp_path):
    space = write(tmp_path, {})
    with open(space / ".ledger" / "agents.md", "wb") as handle:
        handle.write(b"Hello\n")
        handle.truncate(LIMIT + 1)
    result = build(space)
    assert result.pack == ""
    assert_skipped(result, ".ledger/agents.md")


def test_link_to_a_file_over_10_mib_is_skipped(tmp_path):
    space = write(tmp_path, {})
    _sparse_document(space / ".ledger" / "store" / "big.md", LIMIT + 1)
    os.makedirs(space / ".ledger" / "harnesses")
    os.symlink("../store/big.md", space / ".ledger" / "harnesses" / "big.md")
    result = build(space)
    assert result.pack == ""
    assert_skipped(result, H + "big.md")


# --------------------------------------------------------------------------- file system: names


@pytest.mark.parametrize("name", ["h.MD", "h.Md", "h.markdown", "h.MARKDOWN", "h.mD"])
def test_misnamed_markdown_file_is_a_warning_and_ignored(tmp_path, name, capsys):
    space = write(tmp_path, {"harnesses/" + name: ACTIVE_HARNESS})
    result = build(space)
    assert result.pack == ""
    assert result.ledger.documents == []
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(H + name, "warning")]
    assert check(space, capsys)[0] == 1


@pytest.mark.parametrize(
    "name", ["decision", "Decisions", "experiment", "README.md", "Agents.md", "AGENTS.md", "notes"]
)
def test_unexpected_top_level_entry_is_a_warning_and_ignored(tmp_path, name):
    space = write(tmp_path, {f"{name}/x.md" if "." not in name else name: ACTIVE_HARNESS})
    result = build(space)
    assert result.pack == ""
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(f".ledger/{name}", "warning")]


@pytest.mark.parametrize("name", ["image.png", "notes.txt", "h.md.bak", "h.mdx", "h.md~", "Makefile"])
def test_other_files_below_a_kind_folder_are_ignored_quietly(tmp_path, name):
    space = write(tmp_path, {"harnesses/" + name: ACTIVE_HARNESS})
    result = build(space)
    assert result.pack == ""
    assert result.ledger.problems == []


def test_hidden_files_and_folders_are_ignored_quietly(tmp_path, capsys):
    space = write(
        tmp_path,
        {
            ".git/config": "x",
            ".DS_Store": b"\x00\x01",
            ".agents.md": "hidden agents\n",
            ".harnesses/h.md": ACTIVE_HARNESS,
            "harnesses/.draft.md": ACTIVE_HARNESS,
            "harnesses/.archive/old.md": ACTIVE_HARNESS,
            "harnesses/.md": ACTIVE_HARNESS,
            b"harnesses/.bad\xff.md": ACTIVE_HARNESS,
            "harnesses/.x.MD": "x",
            "harnesses/ok.md": ACTIVE_HARNESS,
        },
    )
    result = build(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert result.ledger.problems == []
    assert check(space, capsys)[0] == 0


def test_documents_in_subfolders_are_read(tmp_path):
    space = write(
        tmp_path, {"harnesses/a/b/c/deep.md": ACTIVE_HARNESS, "harnesses/x.md/inner.md": ACTIVE_HARNESS}
    )
    result = build(space)
    assert result.pack == pack_of(
        harness("deep", H + "a/b/c/deep.md", "status: active"),
        harness("inner", H + "x.md/inner.md", "status: active"),
    )


# --------------------------------------------------------------------------- file system: many files


def test_twenty_thousand_experiments_finish_quickly_and_only_ten_are_packed(tmp_path):
    base = datetime(2020, 1, 1, tzinfo=UTC)
    files = {}
    for i in range(20_000):
        stamp = (base + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        files[f"experiments/e{i:05}.md"] = f"---\nupdated_at: {stamp}\nstatus: done\n---\n"
    space = write(tmp_path, files)
    started = time.monotonic()
    with deadline(60):
        result = build(space)
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"{elapsed:.1f} s"
    assert len(result.ledger.documents) == 20_000
    blocks = result.budgeted.blocks
    assert [b.block.document.path for b in blocks] == [X + f"e{i:05}.md" for i in range(19_999, 19_989, -1)]
    assert result.pack == pack_of(*(b.block.text for b in blocks))
    assert result.ledger.problems == []


# --------------------------------------------------------------------------- check: one file of each broken kind


GOOD_FILES: dict[str | bytes, str | bytes] = {
    "agents.md": "Agents: read the ledger.\n",
    "harnesses/good.md": fm("status: active\ntitle: Good harness"),
    "harnesses/dup.md": fm("status: draft\nstatus: active"),
    "evals/good.md": "---\nstatus: active\n---\n## Metrics\n- accuracy\n",
    "findings/good.md": fm("status: current\nupdated_at: 2026-03-01"),
    "decisions/good.md": fm("status: accepted\nupdated_at: 2026-03-02"),
    "experiments/good.md": fm("updated_at: 2026-03-03"),
    "harnesses/image.png": b"\x89PNG\r\n",
    "harnesses/.hidden.md": "not frontmatter",
}

BROKEN_FILES: dict[str | bytes, str | bytes] = {
    "harnesses/bad-utf8.md": b"---\nstatus: active\n---\n\xff",
    "harnesses/no-frontmatter.md": "# Just a title\n",
    "evals/unclosed.md": "---\nstatus: active\n",
    "evals/toml.md": '+++\nstatus = "active"\n+++\n',
    "findings/yaml-error.md": fm("status: current\nupdated_at: @bad"),
    "findings/list.md": fm("- status\n- current"),
    "decisions/scalar.md": fm("accepted"),
    "decisions/list-key.md": fm("status: accepted\n? [a, b]\n: v"),
    "experiments/deep.md": fm("x: " + "[" * 10_000 + "]" * 10_000),
    "experiments/nul.md": fm("updated_at: 2026-01-01\nnote: a\x00b"),
    "experiments/surrogate.md": fm('updated_at: 2026-01-01\nnote: "\\ud800"'),
    b"harnesses/bad-name-\xff.md": ACTIVE_HARNESS,
    "harnesses/bad-name-\n.md": ACTIVE_HARNESS,
}


def _add_broken_special_files(space: Path, outside: Path) -> list[str]:
    root = space / ".ledger"
    os.mkfifo(root / "experiments" / "fifo.md")
    _sparse_document(root / "experiments" / "huge.md", LIMIT + 1)
    os.symlink("missing.md", root / "harnesses" / "dangling.md")
    outside.write_text(ACTIVE_HARNESS)
    os.symlink(outside, root / "harnesses" / "outside.md")
    return [X + "fifo.md", X + "huge.md", H + "dangling.md", H + "outside.md"]


def test_check_lists_every_broken_file_and_exits_2(tmp_path, capsys):
    space = write(tmp_path, {**GOOD_FILES, **BROKEN_FILES})
    special = _add_broken_special_files(space, tmp_path / "outside.md")
    with deadline(60):
        status, data = check_json(space, capsys)
    assert status == 2
    reported = {p["path"] for p in data["problems"]}
    expected = [".ledger/" + k for k in BROKEN_FILES if isinstance(k, str) and "\n" not in k] + special
    for path in expected:
        assert path in reported, path
    escaped = [p for p in reported if p.startswith(H + "bad-name-")]
    assert len(escaped) == 2
    for path in reported:
        assert_clean_text(path)
    # Every broken document is skipped: an error names it (links: see their own tests).
    errors = {p["path"] for p in data["problems"] if p["severity"] == "error"}
    for path in [*expected, *escaped]:
        if path not in (H + "dangling.md", H + "outside.md"):
            assert path in errors, path


def test_check_text_output_lists_every_broken_file(tmp_path, capsys):
    space = write(tmp_path, {**GOOD_FILES, **BROKEN_FILES})
    special = _add_broken_special_files(space, tmp_path / "outside.md")
    with deadline(60):
        status, out = check(space, capsys)
    assert status == 2
    for path in [".ledger/" + k for k in BROKEN_FILES if isinstance(k, str) and "\n" not in k] + special:
        assert path in out, path
    assert_clean_text(out.replace("\n", " "))


def test_pack_with_broken_files_equals_the_pack_of_the_good_files_alone(tmp_path):
    broken = write(tmp_path, {**GOOD_FILES, **BROKEN_FILES}, name="broken")
    _add_broken_special_files(broken, tmp_path / "outside.md")
    good = write(tmp_path, GOOD_FILES, name="good")
    with deadline(60):
        broken_pack = build(broken).pack
    good_pack = build(good).pack
    assert broken_pack == good_pack
    assert good_pack == pack_of(
        "Agents: read the ledger.\n",
        harness("dup", H + "dup.md", "status: draft\nstatus: active"),
        harness("Good harness", H + "good.md", "status: active\ntitle: Good harness"),
        titled("Eval", "good", EV + "good.md", "status: active") + "Metrics:\n- accuracy\n",
        titled("Finding", "good", F + "good.md", "status: current\nupdated_at: 2026-03-01"),
        titled("Decision", "good", D + "good.md", "status: accepted\nupdated_at: 2026-03-02"),
        fence("updated_at: 2026-03-03"),
    )


def test_check_of_a_ledger_with_only_warnings_exits_1(tmp_path, capsys):
    space = write(tmp_path, {"harnesses/h.MD": ACTIVE_HARNESS, "harnesses/ok.md": fm("status: a\nstatus: b")})
    assert check(space, capsys)[0] == 1


# --------------------------------------------------------------------------- determinism


def test_pack_does_not_depend_on_creation_order_or_mtimes(tmp_path):
    files = {
        "harnesses/b.md": fm("status: active\nslug: same"),
        "harnesses/a.md": fm("status: active\nslug: same"),
        "findings/x.md": fm("status: current\nupdated_at: 2026-01-01"),
        "findings/y.md": fm("status: current\nupdated_at: 2026-01-01T00:00:00Z"),
        "experiments/p.md": fm("updated_at: ~"),
        "experiments/q.md": fm("updated_at: ~"),
    }
    first = write(tmp_path, files, name="first")
    second = write(tmp_path, dict(reversed(list(files.items()))), name="second")
    for i, path in enumerate(sorted((second / ".ledger").rglob("*.md"))):
        os.utime(path, (1_000_000 + i * 7919 % 1000, 1_000_000 + i * 7919 % 1000))
    assert build(first).pack == build(second).pack


# --------------------------------------------------------------------------- properties


_KINDS = ("harnesses", "evals", "findings", "decisions", "experiments")

_YAML_PIECES = [
    *"-:abc st\n\t\r'\"[]{}&*!|>#~%@`,?\\0é\x00\x85\u2028\ufeff",
    "status: ",
    "updated_at: ",
    "title: ",
    "slug: ",
    "data_class: ",
    "active",
    "current",
    "accepted",
    "2026-01-01",
    "\n---\n",
    "\n  - ",
    '"\\ud800"',
]
_yamlish = st.lists(st.sampled_from(_YAML_PIECES), max_size=40).map("".join)


def _document_bytes() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=200),
        _yamlish.map(lambda s: s.encode("utf-8")),
        _yamlish.map(lambda s: ("---\n" + s + "\n---\n").encode("utf-8")),
        st.tuples(_yamlish, st.binary(max_size=8)).map(
            lambda t: b"---\n" + t[0].encode("utf-8") + t[1] + b"\n---\n"
        ),
    )


@st.composite
def _ledgers(draw) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    if draw(st.booleans()):
        files["agents.md"] = draw(_document_bytes())
    for index in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(_KINDS))
        files[f"{kind}/d{index}.md"] = draw(_document_bytes())
    return files


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_document_bytes(), kind=st.sampled_from((*_KINDS, "agents")))
def test_random_bytes_as_a_document_never_raise(data, kind):
    with tempfile.TemporaryDirectory() as tmp:
        name = "agents.md" if kind == "agents" else f"{kind}/d.md"
        space = write(Path(tmp), {name: data})
        result = build(space)
        encoded = result.pack.encode("utf-8")
        assert len(encoded) <= 24_000
        assert "\r" not in result.pack
        for problem in result.ledger.problems:
            assert_clean_text(problem.path)
            problem.message.encode("utf-8")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=_ledgers(), cap=st.integers(1, 120))
def test_pack_never_exceeds_the_cap_and_is_valid_utf8(files, cap):
    with tempfile.TemporaryDirectory() as tmp:
        space = write(Path(tmp), files)
        result = build(space, cap_tokens=cap)
        encoded = result.pack.encode("utf-8")  # no lone surrogate can reach the pack
        assert len(encoded) <= 4 * cap
        assert sum(b.kept_bytes for b in result.budgeted.blocks) == len(encoded)
        assert "\r" not in result.pack
        for document in result.ledger.documents:
            if document.kind != "experiment" and document.kind != "agents":
                assert_clean_text(document.title)


def test_a_100_mb_file_is_skipped_without_being_read(tmp_path):
    space = write(tmp_path, {"findings/ok.md": "---\nstatus: current\nupdated_at: 2026-01-01\n---\n"})
    huge = space / ".ledger" / "findings" / "huge.md"
    with open(huge, "wb") as handle:
        handle.truncate(100 * MiB)  # sparse: costs no disk, would cost 100 MB to read
    result = build(space)
    (problem,) = [p for p in result.ledger.problems if p.path.endswith("huge.md")]
    assert problem.severity == "error" and str(100 * MiB) in problem.message
    assert result.ledger.bytes_read < 1000


def test_a_file_that_grows_past_the_limit_after_the_walk_is_skipped(tmp_path, monkeypatch):
    from ledger_context import ledger as ledger_module

    space = write(tmp_path, {"findings/f.md": "---\nstatus: current\n---\n"})
    monkeypatch.setattr(ledger_module, "MAX_FILE_BYTES", 10)  # smaller than the file now
    result = build(space)
    (problem,) = [p for p in result.ledger.problems if p.severity == "error"]
    assert "limit" in problem.message and problem.path.endswith("f.md")

"""check: the reader's problems, plus what a pack alone cannot show (issue 11 item 4)."""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import (
    ACTIVE_HARNESS,
    EV,
    LIMIT,
    F,
    Files,
    H,
    X,
    assert_clean_text,
    check,
    check_json,
    deadline,
    fence,
    fm,
    harness,
    pack_of,
    sparse_document,
    titled,
    write_ledger,
)
from ledger_context import build_context
from ledger_context.cli import main
from ledger_context.explain.readout import SUMMARY_AFTER
from ledger_context.model.problems import Problem
from ledger_context.reader.check import check_ledger
from ledger_context.reader.ledger import read_ledger

Ledger = Callable[[Files], Path]
D = ".ledger/decisions/"
NOW = 2**62  # far future: no updated_at is ahead of it


def problems(space: Path) -> list[Problem]:
    return check_ledger(read_ledger(space), now_us=NOW).problems


def at(space: Path, path: str) -> list[tuple[str, int | None, int | None, str]]:
    return [(p.severity, p.line, p.column, p.message) for p in problems(space) if p.path == path]


@pytest.mark.parametrize(
    ("key", "right"), [("Status", "status"), ("Updated_At", "updated_at"), ("TITLE", "title")]
)
def test_a_known_field_key_in_the_wrong_case_is_reported_at_its_line(
    ledger: Ledger, key: str, right: str
) -> None:
    space = ledger({"decisions/d.md": f"---\nstatus: accepted\nupdated_at: 2026-01-01\n{key}: x\n---\n"})
    ((severity, line, column, message),) = at(space, D + "d.md")
    assert (severity, line, column) == ("warning", 4, 1)
    assert message == (
        f"a key differs from {right} only in letter case or separator, so it is not read "
        f"(keys match exactly): write {right}"
    )


def test_a_wrong_case_status_is_also_a_missing_status(ledger: Ledger) -> None:
    space = ledger({"decisions/d.md": "---\nStatus: accepted\nupdated_at: 2026-01-01\n---\n"})
    found = at(space, D + "d.md")
    assert [(s, line) for s, line, _, _ in found] == [("warning", None), ("warning", 2)]
    assert found[0][3].startswith(
        "status is missing, so the document is never selected; add status: accepted"
    )


def test_a_merge_key_is_reported_as_not_applied(ledger: Ledger) -> None:
    text = "---\nstatus: accepted\nupdated_at: 2026-01-01\nbase: &b {slug: s}\nmore:\n  <<: *b\n<<: *b\n---\n"
    space = ledger({"decisions/d.md": text})
    found = at(space, D + "d.md")
    assert [(line, column) for _, line, column, _ in found] == [(6, 3), (7, 1)]
    assert all("merge key (<<) is not applied" in message for *_, message in found)


def test_paths_equal_after_unicode_normalisation_are_both_read_and_reported(ledger: Ledger) -> None:
    nfc, nfd = unicodedata.normalize("NFC", "café.md"), unicodedata.normalize("NFD", "café.md")
    body = "---\nstatus: accepted\nupdated_at: 2026-01-01\n---\n"
    space = ledger({f"decisions/{nfc}": body, f"decisions/{nfd}": body})
    ledger_read = read_ledger(space)
    if len(ledger_read.documents) < 2:
        pytest.skip("this file system normalises names itself")
    twins = [
        p for p in check_ledger(ledger_read, now_us=NOW).problems if "Unicode normalisation" in p.message
    ]
    assert sorted(p.path for p in twins) == sorted([D + nfc, D + nfd])
    assert {p.severity for p in twins} == {"warning"}


def test_a_bidi_control_in_a_title_is_reported_and_the_title_kept(ledger: Ledger) -> None:
    space = ledger(
        {
            "decisions/a.md": "---\nstatus: accepted\nupdated_at: 2026-01-01\ntitle: x\u202ey\n---\n",
            "decisions/b.md": "---\nstatus: accepted\nupdated_at: 2026-01-01\n---\n# h\u2066i\n",
            "decisions/c.md": "---\nstatus: draft\nupdated_at: 2026-01-01\ntitle: x\u202ey\n---\n",
        }
    )
    assert [(line, column) for _, line, column, m in at(space, D + "a.md") if "bidirectional" in m] == [
        (4, 1)
    ]
    assert [(line, column) for _, line, column, m in at(space, D + "b.md") if "bidirectional" in m] == [
        (None, None)
    ]
    assert at(space, D + "c.md") == []  # never rendered, so no title line to mislead
    from ledger_context import build_context

    assert "## Decision: x\u202ey (.ledger/decisions/a.md)" in build_context(space).pack


def test_an_unclosed_frontmatter_after_blank_lines_is_reported_at_its_opening_line(ledger: Ledger) -> None:
    space = ledger({"decisions/d.md": "\n  \n---\nstatus: accepted\n"})
    ((severity, line, _, message),) = at(space, D + "d.md")
    assert (severity, line) == ("error", 3)
    assert message.startswith("frontmatter is not closed")


@pytest.mark.parametrize(
    ("frontmatter", "line"),
    [
        ("status: accepted\nupdated_at: someday", 3),
        ("status: accepted\nupdated_at: 2026-01-01\ndata_class: secret", 4),
        ("status: [accepted, draft]\nupdated_at: 2026-01-01", 2),
    ],
)
def test_field_faults_carry_the_line_and_column_of_their_key(
    ledger: Ledger, frontmatter: str, line: int
) -> None:
    space = ledger({"decisions/d.md": f"---\n{frontmatter}\n---\n"})
    ((_, found_line, column, _),) = at(space, D + "d.md")
    assert (found_line, column) == (line, 1)


KEYLESS = (
    "YAML does not parse: this line holds text but no key; write it as key: value "
    "(e.g. description: and the text), or indent it to continue the value above; skipped"
)


def test_a_line_without_a_key_is_named_with_advice_that_fits_it(ledger: Ledger) -> None:
    space = ledger({"decisions/d.md": "---\nstatus: accepted\nnot a key\nupdated_at: 2026-01-01\n---\n"})
    assert at(space, D + "d.md") == [("error", 3, 1, KEYLESS)]


def test_a_bare_sentence_on_the_first_line_is_named_not_the_key_below_it(ledger: Ledger) -> None:
    # Issue 29: a page whose description: is missing; YAML reads the sentence and the
    # next line as one key and faults a line low, at its ':'.
    space = ledger(
        {"decisions/d.md": "---\nThis page explains the thing.\ntitle: A page\nstatus: accepted\n---\n"}
    )
    assert at(space, D + "d.md") == [("error", 2, 1, KEYLESS)]


def test_a_sentence_over_two_lines_is_named_at_its_first(ledger: Ledger) -> None:
    space = ledger(
        {"decisions/d.md": "---\ntitle: A\nThis page explains\nthe thing.\nstatus: accepted\n---\n"}
    )
    assert at(space, D + "d.md") == [("error", 3, 1, KEYLESS)]


def test_a_colon_inside_a_value_keeps_the_quoting_advice(ledger: Ledger) -> None:
    space = ledger({"decisions/d.md": "---\ntitle: a: b\nstatus: accepted\n---\n"})
    ((severity, line, _, message),) = at(space, D + "d.md")
    assert (severity, line) == ("error", 2)
    assert message.endswith(
        "(fix the YAML there; quote a value that holds ': ' or starts with a special character); skipped"
    )


@pytest.mark.parametrize("quote", ['"', "'"])
def test_an_unclosed_quote_is_reported_where_it_opens(ledger: Ledger, quote: str) -> None:
    text = f"---\nstatus: accepted\ntitle: {quote}Unclosed\nupdated_at: 2026-01-01\ndata_class: public\n---\n"
    space = ledger({"decisions/d.md": text})
    assert at(space, D + "d.md") == [
        (
            "error",
            3,
            8,
            "YAML does not parse: while scanning a quoted scalar, found unexpected end of stream "
            "(close the quote that opens there, with the same quote character; double a ' inside "
            'a \'…\' value, or escape a " inside a "…" value as \\"); skipped',
        )
    ]


def test_a_tab_error_has_a_tab_hint(ledger: Ledger) -> None:
    space = ledger({"decisions/d.md": "---\nstatus: accepted\n\tupdated_at: 2026-01-01\n---\n"})
    ((severity, line, _, message),) = at(space, D + "d.md")
    assert (severity, line) == ("error", 3)
    assert "indent with spaces there: YAML does not allow tabs for indentation" in message
    assert "quote" not in message


@pytest.mark.parametrize(
    ("folder", "value"), [("harnesses", "active"), ("evals", "active"), ("findings", "current")]
)
def test_a_missing_status_is_reported_for_kinds_selected_by_status(
    ledger: Ledger, folder: str, value: str
) -> None:
    space = ledger({f"{folder}/x.md": "---\nupdated_at: 2026-01-01\nstatus: ~\n---\n"})
    messages = [m for _, _, _, m in at(space, f".ledger/{folder}/x.md")]
    assert (
        f"status is missing, so the document is never selected; add status: {value} to put it in the pack"
        in messages
    )


@pytest.mark.parametrize("status", ["acceptd", "acepted", "accpeted", "acceptedd", "Acceptd "])
def test_a_status_one_letter_from_the_selecting_one_is_a_warning(ledger: Ledger, status: str) -> None:
    space = ledger({"decisions/d.md": f"---\nstatus: {status}\nupdated_at: 2026-01-01\n---\n"})
    assert at(space, D + "d.md") == [
        (
            "warning",
            None,
            None,
            "status is one letter from accepted, the status that puts a decision in the pack, "
            "so the document is not selected; write accepted if that is what it is",
        )
    ]


@pytest.mark.parametrize(
    ("folder", "status"),
    [
        ("decisions", "proposed"),
        ("decisions", "superseded"),
        ("harnesses", "inactive"),
        ("findings", "recurrent"),
        ("findings", "cur"),
        ("evals", "activity"),
    ],
)
def test_a_status_further_from_the_selecting_one_is_not_flagged(
    ledger: Ledger, folder: str, status: str
) -> None:
    space = ledger({f"{folder}/x.md": f"---\nstatus: {status}\nupdated_at: 2026-01-01\n---\n"})
    assert at(space, f".ledger/{folder}/x.md") == []


def test_experiments_need_no_status(ledger: Ledger) -> None:
    space = ledger({"experiments/e.md": "---\nupdated_at: 2026-01-01\n---\n"})
    assert at(space, ".ledger/experiments/e.md") == []


def test_repeated_warnings_are_summarised_after_the_first_20_in_text_and_kept_in_json(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    files: Files = {f"decisions/d{i:02}.md": "---\nstatus: accepted\n---\n" for i in range(23)}
    files["decisions/s.md"] = "---\nstatus: accepted\nupdated_at: 02/10/2026\n---\n"
    space = ledger(files)
    assert main(["check", "--space", str(space)]) == 1
    text = capsys.readouterr().out
    undated = [line for line in text.splitlines() if line.startswith("warning") and "undated" in line]
    assert len(undated) == SUMMARY_AFTER + 2
    assert undated[-2] == (
        "warning .ledger/decisions/s.md:3:1: undated: updated_at looks like MM/DD/YYYY, not an ISO 8601 date "
        "or timestamp; write it as YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (e.g. 2026-08-11 or 2026-08-11T10:00:00Z); "
        "until then it is ordered after every dated document"
    )
    assert undated[-1] == (
        "warning 23 documents, 23 of them selected: undated: updated_at is missing; add an ISO 8601 date or "
        "timestamp (e.g. 2026-08-11 or 2026-08-11T10:00:00Z); until then it is ordered after every dated "
        "document (20 listed above; check --json lists every one)"
    )
    assert main(["check", "--json", "--space", str(space)]) == 1
    assert (
        len([p for p in json.loads(capsys.readouterr().out)["problems"] if "undated" in p["message"]]) == 24
    )


def test_a_summary_repeats_the_message_whole(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 29: the count was inserted at the message's first ": " ("add status, 0 of them
    # selected: current to put it in the pack").
    space = ledger({f"findings/f{i:02}.md": "---\nupdated_at: 2026-01-01\n---\n" for i in range(21)})
    assert main(["check", "--space", str(space)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == (
        "warning 21 documents, 0 of them selected: status is missing, so the document is never selected; "
        "add status: current to put it in the pack (20 listed above; check --json lists every one)"
    )
    assert lines[-1].startswith("0 errors, 21 warnings, ")


MISSING = "undated: updated_at is missing; add an ISO 8601 date or timestamp (e.g. 2026-08-11 or 2026-08-11T10:00:00Z)"
ORDERED = "; until then it is ordered after every dated document"


def _shaped(shape: str) -> str:
    return (
        f"undated: updated_at looks like {shape}, not an ISO 8601 date or timestamp; write it as YYYY-MM-DD "
        "or YYYY-MM-DDTHH:MM:SSZ (e.g. 2026-08-11 or 2026-08-11T10:00:00Z)"
    )


@pytest.mark.parametrize(
    ("folder", "frontmatter", "line", "message"),
    [
        ("findings", "status: current", None, MISSING + ORDERED),
        ("findings", "status: draft", None, MISSING),
        ("findings", "status: draft\nupdated_at: ~", 3, MISSING),
        ("decisions", "status: accepted\nupdated_at: 02/10/2026", 3, _shaped("MM/DD/YYYY") + ORDERED),
        ("decisions", "status: proposed\nupdated_at: 10.02.2026", 3, _shaped("DD.MM.YYYY")),
        ("findings", "status: current\nupdated_at: [2026]", 3, _shaped("a list or mapping") + ORDERED),
        (
            "experiments",
            "updated_at: Feb 10, 2026",
            2,
            _shaped("a date written with a month name (e.g. Aug 11, 2026)") + ORDERED,
        ),
        ("experiments", "status: done", None, MISSING + ORDERED),
    ],
    ids=[
        "missing-selected",
        "missing-unselected",
        "null",
        "us-date",
        "dotted-date",
        "list",
        "month-name",
        "experiment",
    ],
)
def test_an_undated_warning_says_which_case_and_orders_only_what_is_selected(
    ledger: Ledger, folder: str, frontmatter: str, line: int | None, message: str
) -> None:
    space = ledger({f"{folder}/x.md": f"---\n{frontmatter}\n---\n"})
    assert at(space, f".ledger/{folder}/x.md") == [("warning", line, 1 if line else None, message)]


TOML = "TOML frontmatter is not read: convert it to YAML between --- lines"
JSON = "JSON frontmatter is not read: convert it to YAML between --- lines"


@pytest.mark.parametrize("folder", ["harnesses", "evals", "findings", "decisions", "experiments"])
@pytest.mark.parametrize(
    ("content", "line", "message"),
    [("+++\ntitle = 'x'\n+++\nBody\n", 1, TOML), ('\n{"title": "x"}\nBody\n', 2, JSON)],
    ids=["toml", "json"],
)
def test_toml_and_json_openings_get_their_own_message_in_every_kind(
    ledger: Ledger, folder: str, content: str, line: int, message: str
) -> None:
    space = ledger({f"{folder}/x.md": content})
    assert at(space, f".ledger/{folder}/x.md") == [("error", line, 1, message + "; skipped")]


@pytest.mark.parametrize(
    ("content", "message"), [("+++\nx = 1\n+++\n", TOML), ("{}\n", JSON)], ids=["toml", "json"]
)
def test_toml_and_json_openings_of_agents_md_get_the_same_message(
    ledger: Ledger, content: str, message: str
) -> None:
    space = ledger({"agents.md": content})
    assert at(space, ".ledger/agents.md") == [
        (
            "warning",
            1,
            1,
            f"{message}; included as text; its data class is unknown, treated as stricter than restricted "
            "(withheld under any ceiling)",
        )
    ]


def test_a_control_character_in_a_path_is_quoted_the_same_in_text_and_json(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 29: written as \x08 it could not be told from a file named with a backslash.
    space = ledger({"findings/a\bb.md": "---\nstatus: current\n---\n", "findings/a\\x08b.md": "---\n---\n"})
    shown = '".ledger/findings/a\\u0008b.md"'
    assert main(["check", "--space", str(space)]) == 2
    out = capsys.readouterr().out
    assert (
        f"error   {shown}: its name holds a control character or line separator; skipped (rename the file)"
        in out
    )
    assert "warning .ledger/findings/a\\x08b.md: " in out
    assert main(["check", "--json", "--space", str(space)]) == 2
    paths = [p["path"] for p in json.loads(capsys.readouterr().out)["problems"]]
    assert shown in paths and ".ledger/findings/a\\x08b.md" in paths


# --------------------------------------------------------------------------- check: one file of each broken kind (hostile input)


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
    sparse_document(root / "experiments" / "huge.md", LIMIT + 1)
    os.symlink("missing.md", root / "harnesses" / "dangling.md")
    outside.write_text(ACTIVE_HARNESS)
    os.symlink(outside, root / "harnesses" / "outside.md")
    return [X + "fifo.md", X + "huge.md", H + "dangling.md", H + "outside.md"]


def test_check_lists_every_broken_file_and_exits_2(tmp_path, capsys):
    space = write_ledger(tmp_path / "space", {**GOOD_FILES, **BROKEN_FILES})
    special = _add_broken_special_files(space, tmp_path / "outside.md")
    with deadline(60):
        status, data = check_json(space, capsys)
    assert status == 2
    reported = {p["path"] for p in data["problems"]}
    expected = [".ledger/" + k for k in BROKEN_FILES if isinstance(k, str) and "\n" not in k] + special
    for path in expected:
        assert path in reported, path
    escaped = [p for p in reported if p.startswith('"' + H + "bad-name-")]
    assert len(escaped) == 2
    for path in reported:
        assert_clean_text(path)
    # Every broken document is skipped: an error names it (links: see their own tests).
    errors = {p["path"] for p in data["problems"] if p["severity"] == "error"}
    for path in [*expected, *escaped]:
        if path not in (H + "dangling.md", H + "outside.md"):
            assert path in errors, path


def test_check_text_output_lists_every_broken_file(tmp_path, capsys):
    space = write_ledger(tmp_path / "space", {**GOOD_FILES, **BROKEN_FILES})
    special = _add_broken_special_files(space, tmp_path / "outside.md")
    with deadline(60):
        status, out = check(space, capsys)
    assert status == 2
    for path in [".ledger/" + k for k in BROKEN_FILES if isinstance(k, str) and "\n" not in k] + special:
        assert path in out, path
    assert_clean_text(out.replace("\n", " "))


def test_pack_with_broken_files_equals_the_pack_of_the_good_files_alone(tmp_path):
    broken = write_ledger(tmp_path / "broken", {**GOOD_FILES, **BROKEN_FILES})
    _add_broken_special_files(broken, tmp_path / "outside.md")
    good = write_ledger(tmp_path / "good", GOOD_FILES)
    with deadline(60):
        broken_pack = build_context(broken).pack
    good_pack = build_context(good).pack
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
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.MD": ACTIVE_HARNESS, "harnesses/ok.md": fm("status: a\nstatus: b")}
    )
    assert check(space, capsys)[0] == 1


@pytest.mark.skipif(not hasattr(os, "link"), reason="needs hard links")
def test_a_document_with_a_second_hard_link_is_reported_and_still_served(
    ledger: Ledger, tmp_path: Path
) -> None:
    space = ledger(
        {"agents.md": "Agents\n", "findings/f.md": "---\nstatus: current\nupdated_at: 2026-01-01\n---\n"}
    )
    outside = tmp_path / "outside.md"
    os.link(space / ".ledger" / "findings" / "f.md", outside)
    from ledger_context import build_context
    from ledger_context.reader.check import check_ledger

    build = build_context(space)
    problems = [
        (p.path, p.severity, p.message) for p in check_ledger(build.ledger).problems if p.severity != "info"
    ]
    assert problems == [
        (
            ".ledger/findings/f.md",
            "warning",
            "file has 2 hard links: the same file is also reachable by another name, possibly "
            "outside the ledger, and is served as this document; if it is not meant to be shared, "
            "replace it with a copy (cp, then mv over it)",
        )
    ]
    assert "(.ledger/findings/f.md)" in build.pack

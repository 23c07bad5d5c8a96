"""Issue 15: explain_budget's `path` answers for one document, in under 1 KB, for every outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import FIXTURES, Files, doc, libyaml_only
from ledger_context import build_context
from ledger_context.cli import main
from ledger_context.explain.path import MAX_ANSWER_BYTES, PathAnswer, explain_path
from ledger_context.explain.readout import path_text
from ledger_context.model.errors import InvalidArgumentError

Ledger = Callable[[Files], Path]


def _fits(answer: PathAnswer) -> None:
    assert len(path_text(answer).encode()) < MAX_ANSWER_BYTES
    assert len(answer.model_dump_json().encode()) < MAX_ANSWER_BYTES


def _ask(fixture: str, path: str, ceiling: str | None = None) -> PathAnswer:
    answer = explain_path(build_context(FIXTURES / fixture, max_data_class=ceiling), path)
    _fits(answer)
    return answer


def test_a_kept_document() -> None:
    a = _ask("demo", ".ledger/findings/2026-11-fewshot-plateau.md")
    assert (a.outcome, a.reason, a.kind, a.group, a.status, a.data_class) == (
        "kept",
        "kept: within the cap",
        "finding",
        4,
        "current",
        "internal",
    )
    assert a.bytes == a.kept_bytes == 428


def test_a_truncated_document_says_how_many_bytes_were_kept() -> None:
    a = _ask("floor", ".ledger/evals/ko-tone.md")
    assert a.outcome == "truncated" and (a.bytes, a.kept_bytes) == (621, 581)
    assert a.reason == (
        "truncated: groups 1-3 alone exceed the cap; the pack was cut to 23998 bytes, "
        "581 of this block's 621 bytes kept"
    )
    assert (a.kind, a.group, a.status, a.updated_at) == ("eval", 3, "active", "2026-10-12T00:00:00Z")


def test_a_dropped_document_says_how_far_over_the_cap_the_pack_was() -> None:
    a = _ask("overflow", ".ledger/decisions/0006-route-address-changes.md")
    assert a.outcome == "dropped" and (a.bytes, a.kept_bytes) == (674, 0)
    assert a.reason == (
        "dropped to fit the cap: the pack was 2238 bytes over it and this was the last block of groups 4-6"
    )
    assert (a.status, a.data_class, a.updated_at) == ("accepted", "public", "2026-10-31T00:00:00Z")


def test_a_withheld_document_names_the_ceiling() -> None:
    a = _ask("demo", ".ledger/decisions/0004-redact-pii-before-model.md", ceiling="internal")
    assert a.outcome == "withheld"
    assert a.reason == "withheld by the ceiling internal: its data class restricted is stricter"
    assert (a.data_class, a.bytes, a.kept_bytes) == ("restricted", None, None)


def test_a_document_not_selected_by_its_status() -> None:
    a = _ask("demo", ".ledger/decisions/0003-single-llm-call.md")
    assert a.outcome == "not_selected"
    assert a.reason == "not selected: its status is 'superseded'; group 5 (decisions) takes status 'accepted'"


def test_a_status_with_control_characters_reaches_the_terminal_escaped(ledger: Ledger) -> None:
    # A ledger file from a pull request must not drive the reader's terminal.
    space = ledger({"findings/a.md": '---\nstatus: "current\\e[1m\\u202e"\nupdated_at: 2026-01-01\n---\n'})
    text = path_text(explain_path(build_context(space), ".ledger/findings/a.md"))
    assert text.splitlines()[2] == (
        'kind finding; group 4; status "current\\u001b[1m\\u202e"; updated_at 2026-01-01T00:00:00Z; '
        "data class none"
    )
    assert all(line.isprintable() for line in text.splitlines())


def test_a_name_with_a_backslash_is_found_as_written_and_a_windows_path_still_works(ledger: Ledger) -> None:
    space = ledger({"findings/a\\b.md": doc(status="current"), "findings/ok.md": doc(status="current")})
    build = build_context(space)
    assert explain_path(build, ".ledger/findings/a\\b.md").outcome == "kept"
    assert explain_path(build, ".ledger\\findings\\ok.md").path == ".ledger/findings/ok.md"


def test_a_skipped_file_named_with_control_characters_is_found_and_shown_escaped(ledger: Ledger) -> None:
    name = "findings/d\x1b]0;PWN\x07x.md"
    space = ledger({name: "---\nstatus: [\n---\n", "findings/ok.md": doc(status="current")})
    answer = explain_path(build_context(space), ".ledger/" + name)
    assert answer.outcome == "skipped"
    text = path_text(answer)
    assert text.splitlines()[0] == '".ledger/findings/d\\u001b]0;PWN\\u0007x.md"'
    assert all(line.isprintable() for line in text.splitlines())


def test_an_experiment_not_selected_gives_its_rank(ledger: Ledger) -> None:
    space = ledger({f"experiments/e{n:02d}.md": doc(updated_at=f"2026-01-{n:02d}") for n in range(1, 13)})
    a = explain_path(build_context(space), ".ledger/experiments/e01.md")
    assert a.outcome == "not_selected"
    assert a.reason == "not selected: experiment 12 of 12 by updated_at; only the 10 latest are selected"
    assert a.updated_at == "2026-01-01T00:00:00Z"


@libyaml_only  # the expected reason quotes libyaml's wording of the YAML error
def test_a_skipped_document_gives_its_problems(ledger: Ledger) -> None:
    space = ledger({"findings/broken.md": "---\nstatus: [\n---\n", "findings/ok.md": doc(status="current")})
    a = explain_path(build_context(space), ".ledger/findings/broken.md")
    _fits(a)
    assert a.outcome == "skipped" and a.kind is None
    assert a.reason == (
        "skipped: error at line 3, column 1: YAML does not parse: while parsing a flow node, did not find "
        "expected node content (fix the YAML there; quote a value that holds ': ' or starts with a special "
        "character)"
    )


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (
            "no frontmatter\n",
            "skipped: error: no YAML frontmatter: the file must start with a --- line",
        ),
        (
            b"---\nstatus: current\n---\n\xff\n",
            "skipped: error: not valid UTF-8 (first bad byte at offset 24) (save as UTF-8)",
        ),
        (
            "+++\ntitle = 'x'\n+++\n",
            "skipped: error at line 1, column 1: TOML frontmatter is not read: convert it to YAML between --- lines",
        ),
        (
            "---\nstatus: current\n",
            "skipped: error at line 1: frontmatter is not closed: add a closing --- line",
        ),
    ],
    ids=["no-frontmatter", "not-utf8", "toml", "unclosed"],
)
def test_a_skipped_document_reads_cleanly_for_every_fault(
    ledger: Ledger, content: str | bytes, reason: str
) -> None:
    space = ledger({"findings/broken.md": content})
    a = explain_path(build_context(space), ".ledger/findings/broken.md")
    assert (a.outcome, a.reason) == ("skipped", reason)
    assert path_text(a) == f".ledger/findings/broken.md\n{reason}\n"


def test_a_path_not_in_the_ledger_names_the_nearest_paths() -> None:
    a = _ask("demo", "decisions/0004-redact-pii-before-modl.md")
    assert a.outcome == "not_in_ledger"
    assert a.nearest[0] == ".ledger/decisions/0004-redact-pii-before-model.md"
    assert len(a.nearest) == 3


def test_a_path_without_the_ledger_folder_is_found() -> None:
    assert _ask("demo", "findings/2026-11-fewshot-plateau.md").outcome == "kept"


def test_a_maximal_query_and_status_still_fit(ledger: Ledger) -> None:
    space = ledger({"findings/f.md": doc(status="s" * 5000, updated_at="2026-01-01")})
    build = build_context(space)
    _fits(explain_path(build, ".ledger/findings/f.md"))
    _fits(explain_path(build, "界" * 4096))


def test_a_path_as_long_as_the_walk_reads_is_explained(ledger: Ledger) -> None:
    # Was refused past 1,024 characters, though the walk and read_document accept it.
    folders = "/".join(["d" * 200] * 5)
    space = ledger({f"findings/{folders}/f.md": doc(status="current", updated_at="2026-01-01")})
    path = f".ledger/findings/{folders}/f.md"
    assert len(path) > 1024
    assert explain_path(build_context(space), path).outcome == "kept"


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b", "x" * 4097, 3, None])
def test_a_bad_path_is_a_clear_error(bad: object) -> None:
    with pytest.raises(InvalidArgumentError, match="invalid path"):
        explain_path(build_context(FIXTURES / "demo"), bad)


def test_the_cli_answers_for_one_path(capsys: pytest.CaptureFixture[str]) -> None:
    path = ".ledger/decisions/0003-single-llm-call.md"
    assert main(["explain", "--space", str(FIXTURES / "demo"), "--path", path]) == 0
    assert capsys.readouterr().out == (
        f"{path}\n"
        "not selected: its status is 'superseded'; group 5 (decisions) takes status 'accepted'\n"
        "kind decision; group 5; status superseded; updated_at 2026-06-02T00:00:00Z; data class none\n"
    )
    assert main(["explain", "--space", str(FIXTURES / "demo"), "--path", ""]) == 2
    assert "invalid path" in capsys.readouterr().err


def test_a_withheld_document_shows_no_frontmatter_value_but_its_class(
    ledger: Callable[[Files], Path],
) -> None:
    # Regression: the hostile run of issues 10-17 read a withheld finding's status text
    # through explain --path.
    status = "merger with ACME closes 2027-01-15"
    space = ledger(
        {
            "findings/falcon.md": f'---\nstatus: "{status}"\nupdated_at: 2026-11-01\ndata_class: restricted\n---\nbody\n'
        }
    )
    answer = explain_path(build_context(space, max_data_class="public"), ".ledger/findings/falcon.md")
    assert (answer.outcome, answer.status, answer.updated_at, answer.data_class) == (
        "withheld",
        None,
        None,
        "restricted",
    )
    assert "merger" not in answer.model_dump_json().lower()
    assert "merger" not in path_text(answer).lower()


def test_a_withheld_document_says_which_fields_it_does_not_show() -> None:
    # Issue 23: "status none; updated_at none" was printed for a withheld accepted decision.
    path = ".ledger/decisions/0004-redact-pii-before-model.md"
    answer = _ask("demo", path, ceiling="internal")
    assert answer.not_shown == ["status", "updated_at"]
    assert path_text(answer) == (
        f"{path}\n"
        "withheld by the ceiling internal: its data class restricted is stricter\n"
        "kind decision; group 5; data class restricted; status and updated_at not shown: "
        "the ceiling withholds this document's frontmatter\n"
    )
    assert _ask("demo", ".ledger/decisions/0003-single-llm-call.md").not_shown == []


def test_a_non_ascii_path_is_answered_under_the_c_locale(ledger: Callable[[Files], Path]) -> None:
    # Regression: explain --path with "café.md" under LC_ALL=C PYTHONUTF8=0 was a traceback.
    space = ledger({"findings/café.md": "---\nstatus: current\nupdated_at: 2026-01-01\n---\n"})
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0"}
    for path, outcome in (
        (".ledger/findings/café.md", "kept"),
        (".ledger/findings/nope-é.md", "not_in_ledger"),
    ):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "ledger_context",
                "explain",
                "--json",
                "--space",
                str(space),
                "--path",
                path,
            ],
            capture_output=True,
            env=env,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["outcome"] == outcome


def test_a_path_that_is_not_text_is_a_clear_error(ledger: Callable[[Files], Path]) -> None:
    with pytest.raises(InvalidArgumentError, match="not valid UTF-8 text"):
        explain_path(build_context(ledger({})), ".ledger/findings/\udcff.md")

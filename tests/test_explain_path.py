"""Issue 15: explain_budget's `path` answers for one document, in under 1 KB, for every outcome."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import FIXTURES, Files, doc
from ledger_context import build_context
from ledger_context.cli import main
from ledger_context.errors import InvalidArgumentError
from ledger_context.explain_path import MAX_ANSWER_BYTES, PathAnswer, explain_path
from ledger_context.readout import path_text

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


def test_an_experiment_not_selected_gives_its_rank(ledger: Ledger) -> None:
    space = ledger({f"experiments/e{n:02d}.md": doc(updated_at=f"2026-01-{n:02d}") for n in range(1, 13)})
    a = explain_path(build_context(space), ".ledger/experiments/e01.md")
    assert a.outcome == "not_selected"
    assert a.reason == "not selected: experiment 12 of 12 by updated_at; only the 10 latest are selected"
    assert a.updated_at == "2026-01-01T00:00:00Z"


def test_a_skipped_document_gives_its_problems(ledger: Ledger) -> None:
    space = ledger({"findings/broken.md": "---\nstatus: [\n---\n", "findings/ok.md": doc(status="current")})
    a = explain_path(build_context(space), ".ledger/findings/broken.md")
    _fits(a)
    assert a.outcome == "skipped" and a.kind is None
    assert a.reason == (
        "skipped: error 3:1: YAML does not parse: while parsing a flow node, did not find expected node "
        "content (fix the YAML there; quote a value that holds ': ' or starts with a special character); skipped"
    )


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
    _fits(explain_path(build, "界" * 1024))


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b", "x" * 1025, 3, None])
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

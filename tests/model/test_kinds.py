"""The kind table is spec §4: folder, group, label, selecting statuses, order, limit; and
the rules and the prose read from it."""

from __future__ import annotations

import json

from conftest import REPO
from ledger_context.model.kinds import KIND, KIND_TABLE, Kind, pack_contents, statuses_text


def test_groups_follow_spec_section_4_in_order() -> None:
    rows = [(k.group, k.group_name, k.folder, k.statuses, k.order, k.limit) for k in KIND_TABLE]
    assert rows == [
        (1, "agents", "agents.md", (), "none", None),
        (2, "harnesses", "harnesses", ("active",), "slug", None),
        (3, "evals", "evals", ("active",), "slug", None),
        (4, "findings", "findings", ("current",), "newest", None),
        (5, "decisions", "decisions", ("accepted",), "newest", None),
        (6, "experiments", "experiments", (), "newest", 10),
    ]


def test_only_groups_4_to_6_may_be_dropped() -> None:
    assert [k.group for k in KIND_TABLE if k.droppable] == [4, 5, 6]


def test_titled_kinds_carry_the_spec_labels_and_experiments_have_none() -> None:
    assert {name: k.label for name, k in KIND.items()} == {
        "agents": "",
        "harness": "Harness",
        "eval": "Eval",
        "finding": "Finding",
        "decision": "Decision",
        "experiment": "",
    }


def test_dated_kinds_are_those_ordered_newest_first() -> None:
    assert sorted(k.name for k in KIND_TABLE if k.dated) == ["decision", "experiment", "finding"]


def test_the_status_that_selects_each_titled_kind_is_the_spec_4_table() -> None:
    assert {k.name: k.statuses for k in KIND_TABLE if k.label} == {
        "harness": ("active",),
        "eval": ("active",),
        "finding": ("current",),
        "decision": ("accepted",),
    }


def test_a_kind_selects_its_statuses_and_an_unfiltered_kind_selects_any() -> None:
    decision, experiment = KIND["decision"], KIND["experiment"]
    assert [decision.selects(s) for s in ("accepted", "superseded", None)] == [True, False, False]
    assert [experiment.selects(s) for s in ("running", None)] == [True, True]


def test_only_a_selected_document_of_a_labelled_kind_has_a_title_line() -> None:
    assert KIND["finding"].titled("current") and not KIND["finding"].titled("stale")
    assert not KIND["experiment"].titled("running") and not KIND["agents"].titled(None)


def test_only_a_selected_eval_renders_its_metrics() -> None:
    assert [k.name for k in KIND_TABLE if k.renders_metrics(k.statuses[0] if k.statuses else None)] == [
        "eval"
    ]
    assert not KIND["eval"].renders_metrics("retired")


def test_a_status_ranks_by_its_place_in_the_row() -> None:
    kind = Kind(
        "decision", "decisions", 5, "decisions", "Decision", ("accepted", "superseded"), "newest", None, True
    )
    assert [kind.rank("accepted"), kind.rank("superseded")] == [0, 1]
    assert statuses_text(kind, quote="'") == "'accepted' or 'superseded'"


def test_the_prose_of_the_pack_is_read_from_the_table() -> None:
    assert pack_contents() == (
        "agents.md, active harnesses and evals, current findings, accepted decisions and the 10 latest experiments"
    )


def test_the_bundles_prompt_restates_no_selecting_status() -> None:
    # The start-task prompt said "respect accepted decisions, build on current findings"
    # by hand, and manifest.json holds the bundle's copy: a rule change left both behind.
    # The prompt now names the statuses only through pack_contents(); the copy names none.
    manifest = json.loads((REPO / "manifest.json").read_text(encoding="utf-8"))
    [prompt] = manifest["prompts"]
    words = set(prompt["text"].replace(",", " ").replace(".", " ").split())
    statuses = {status for kind in KIND_TABLE for status in kind.statuses}
    assert len(statuses) >= 3  # the table is really read
    assert words & statuses == set()
    assert "decisions" in words and "findings" in words

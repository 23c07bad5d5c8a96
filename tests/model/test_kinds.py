"""The kind table is spec §4: folder, group, label, selecting status, order, limit."""

from __future__ import annotations

from ledger_context.model.kinds import KIND, KIND_TABLE


def test_groups_follow_spec_section_4_in_order() -> None:
    rows = [(k.group, k.group_name, k.folder, k.status, k.order, k.limit) for k in KIND_TABLE]
    assert rows == [
        (1, "agents", "agents.md", None, "none", None),
        (2, "harnesses", "harnesses", "active", "slug", None),
        (3, "evals", "evals", "active", "slug", None),
        (4, "findings", "findings", "current", "newest", None),
        (5, "decisions", "decisions", "accepted", "newest", None),
        (6, "experiments", "experiments", None, "newest", 10),
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

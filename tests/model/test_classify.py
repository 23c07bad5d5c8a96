"""Spec §7 and issue 4: data classes declared per source, the fold, the ceiling."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Files, doc
from ledger_context import InvalidArgumentError, build_context
from ledger_context.model.classify import (
    Source,
    declared_class,
    effective_class,
    is_withheld,
    parse_ceiling,
    parse_undeclared_class,
)

Ledger = Callable[[Files], Path]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("public", "public"),
        (" Internal ", "internal"),
        ("CONFIDENTIAL", "confidential"),
        ("reStricted", "restricted"),
        ("secret", "unknown"),
        (["public"], "unknown"),
        ({"a": "b"}, "unknown"),
        ("", None),
        ("~", None),
        ("NULL", None),
        (None, None),
    ],
)
def test_declared_class_is_case_folded_and_fails_closed(value: object, expected: str | None) -> None:
    assert declared_class(value) == expected


def test_effective_class_is_the_strictest_declared() -> None:
    assert effective_class([]) is None
    assert effective_class([Source("a", None)]) is None
    assert effective_class([Source("a", "internal"), Source("b", None), Source("c", "public")]) == "internal"
    assert effective_class([Source("a", "restricted"), Source("b", "unknown")]) == "unknown"


def test_unknown_class_is_withheld_under_any_ceiling_and_undeclared_passes() -> None:
    assert is_withheld("unknown", "restricted")
    assert not is_withheld(None, "public")
    assert not is_withheld("restricted", None)
    assert is_withheld("confidential", "internal")
    assert not is_withheld("internal", "internal")


def test_invalid_ceiling_is_refused_naming_the_allowed_values() -> None:
    with pytest.raises(InvalidArgumentError, match="public, internal, confidential, restricted"):
        parse_ceiling("secret")
    assert parse_ceiling(" Internal ") == "internal"
    assert parse_ceiling(None) is None


def test_fold_covers_only_sources_that_reached_the_pack(ledger: Ledger) -> None:
    space = ledger(
        {
            "agents.md": "---\ndata_class: public\n---\n" + "a" * 40,
            "findings/secret.md": doc(status="current", updated_at="2026-01-01", data_class="confidential"),
        }
    )
    build = build_context(space, cap_tokens=20)  # 80 bytes: the finding is dropped
    assert [b.outcome for b in build.budgeted.blocks] == ["kept", "dropped"]
    assert build.sources()[0].path == ".ledger/agents.md"
    assert [s.path for s in build.sources()] == [".ledger/agents.md"]
    assert build.effective_class() == "public"
    assert build_context(space).effective_class() == "confidential"


def test_unknown_class_is_reported_without_quoting_it(ledger: Ledger) -> None:
    space = ledger({"decisions/d.md": doc(status="accepted", data_class="TOPSECRET-ACME")})
    build = build_context(space)
    assert build.effective_class() == "unknown"
    messages = [p.message for p in build.ledger.problems]
    assert any("data_class" in m for m in messages)
    assert not any("TOPSECRET" in m for m in messages)


def _every_group(level: str) -> Files:
    return {
        "agents.md": f"---\ndata_class: {level}\n---\nagents\n",
        "harnesses/h.md": doc(status="active", data_class=level),
        "evals/e.md": doc(status="active", data_class=level),
        "findings/f.md": doc(status="current", data_class=level, updated_at="2026-01-01"),
        "decisions/d.md": doc(status="accepted", data_class=level, updated_at="2026-01-01"),
        "experiments/x.md": doc(data_class=level, updated_at="2026-01-01"),
    }


@pytest.mark.parametrize("level", ["confidential", "restricted", "mystery"])
def test_ceiling_withholds_in_every_group_agents_md_included(ledger: Ledger, level: str) -> None:
    files = _every_group(level)
    files["harnesses/ok.md"] = doc(status="active", data_class="internal")
    build = build_context(ledger(files), max_data_class="internal")
    assert (
        build.pack
        == "## Harness: ok (.ledger/harnesses/ok.md)\n---\nstatus: active\ndata_class: internal\n---\n"
    )
    assert sorted(d.path for d in build.selection.withheld) == sorted(
        f".ledger/{name}" for name in files if name != "harnesses/ok.md"
    )


def test_withheld_experiment_is_replaced_by_the_next_latest(ledger: Ledger, tmp_path: Path) -> None:
    files: Files = {
        f"experiments/e{n:02}.md": doc(updated_at=f"2026-02-{n:02}", data_class="internal")
        for n in range(1, 13)
    }
    files["experiments/e12.md"] = doc(updated_at="2026-02-12", data_class="restricted")
    files["experiments/e11.md"] = doc(updated_at="2026-02-11", data_class="confidential")
    files["agents.md"] = "---\ndata_class: restricted\n---\nsecret agents\n"
    space = ledger(files)
    gated = build_context(space, max_data_class="internal")
    paths = [b.block.document.path for b in gated.budgeted.blocks]
    assert paths == [f".ledger/experiments/e{n:02}.md" for n in range(10, 0, -1)]

    # The pack equals the pack of the same ledger with the withheld files deleted.
    copy = tmp_path / "copy"
    shutil.copytree(space, copy, symlinks=True)
    for withheld in gated.selection.withheld:
        (copy / withheld.path).unlink()
    assert build_context(copy).pack == gated.pack


def test_withholding_frees_budget_for_the_blocks_that_follow(ledger: Ledger) -> None:
    files: Files = {
        "findings/big.md": doc(
            status="current", updated_at="2026-03-01", data_class="restricted", pad="x" * 200
        ),
        "findings/small.md": doc(status="current", updated_at="2026-02-01", data_class="public"),
    }
    space = ledger(files)
    assert [b.outcome for b in build_context(space, cap_tokens=100).budgeted.blocks] == ["kept", "dropped"]
    gated = build_context(space, cap_tokens=100, max_data_class="confidential")
    assert [(b.block.document.path, b.outcome) for b in gated.budgeted.blocks] == [
        (".ledger/findings/small.md", "kept")
    ]


def test_marker_in_withheld_sources_appears_in_no_output(ledger: Ledger) -> None:
    from ledger_context.explain.breakdown import explanation_json
    from ledger_context.explain.full import explain
    from ledger_context.explain.readout import budget_text

    marker = "MARKER-7f3a"
    files = {
        name: text.replace("---\nBody text.", f"---\n# {marker}\n{marker}") + f"\nnote: {marker}\n"
        for name, text in _every_group("confidential").items()
    }
    files["agents.md"] = f"---\ndata_class: restricted\ntitle: {marker}\n---\n{marker}\n"
    files["harnesses/ok.md"] = doc(status="active")
    space = ledger(files)
    build = build_context(space, max_data_class="internal")
    assert marker not in build.pack
    for detail in ("brief", "full"):
        explanation = explain(build, detail)  # type: ignore[arg-type]
        assert marker not in explanation_json(explanation)
        assert marker not in budget_text(explanation)


def test_undeclared_sources_pass_unless_a_class_is_named_for_them() -> None:
    # Issue 23: --undeclared-class reads a source without data_class as that class.
    assert is_withheld(None, "internal") is False
    assert is_withheld(None, "internal", "confidential") is True
    assert is_withheld(None, "internal", "internal") is False
    assert is_withheld(None, None, "restricted") is False  # no ceiling, nothing withheld
    assert is_withheld("public", "internal", "restricted") is False  # a declared class is its own


def test_an_invalid_undeclared_class_is_refused_naming_the_allowed_values() -> None:
    assert parse_undeclared_class(" Confidential ") == "confidential"
    assert parse_undeclared_class(None) is None
    for value in ("", "secret"):
        with pytest.raises(InvalidArgumentError) as refused:
            parse_undeclared_class(value)
        assert str(refused.value) == (
            f"invalid undeclared class {value!r}; allowed values: public, internal, confidential, "
            "restricted (leave the option out to let undeclared sources pass)"
        )

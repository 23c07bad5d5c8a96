"""Spec §8 and issue 3: the breakdown closes to the byte and holds no document text."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from conftest import FIXTURES, Files, doc, write_ledger
from ledger_context import build_context
from ledger_context.cli import main
from ledger_context.explain.breakdown import Explanation, explanation_json
from ledger_context.explain.brief import Brief
from ledger_context.explain.full import explain
from ledger_context.explain.readout import brief_readout, budget_text
from ledger_context.pack.context import ContextBuild

Ledger = Callable[[Files], Path]


def assert_closes(build: ContextBuild, explanation: Explanation) -> None:
    """Every closure rule of spec §8, against the pack itself."""
    pack = build.pack.encode("utf-8")
    totals = explanation.pack
    assert totals.bytes == len(pack)
    assert totals.sha256 == hashlib.sha256(pack).hexdigest()
    assert sum(b.kept_bytes for b in explanation.blocks) == totals.bytes or explanation.detail == "brief"
    assert sum(g.kept_bytes for g in explanation.groups) == totals.bytes
    assert totals.tokens == -(-totals.bytes // 4)
    assert totals.bytes + totals.bytes_left == explanation.rule.cap_bytes
    assert totals.tokens + totals.tokens_left == explanation.rule.cap_tokens
    assert explanation.rule.cap_bytes == 4 * explanation.rule.cap_tokens
    for group in explanation.groups:
        assert group.candidates == group.kept + group.truncated + group.dropped
    for kind in explanation.kinds:
        assert kind.read == kind.skipped + kind.withheld + kind.selected + kind.not_selected
        assert kind.not_selected >= 0


@pytest.mark.parametrize("fixture", ["demo", "overflow", "floor"])
@pytest.mark.parametrize("ceiling", [None, "public", "internal"])
def test_explanation_closes_on_every_fixture(fixture: str, ceiling: str | None) -> None:
    build = build_context(FIXTURES / fixture, max_data_class=ceiling)
    full = explain(build, "full")
    assert_closes(build, full)
    assert sum(b.kept_bytes for b in full.blocks) == full.pack.bytes
    assert [b.path for b in full.blocks] == [o.block.document.path for o in build.budgeted.blocks]
    brief = explain(build, "brief")
    assert_closes(build, brief)
    assert all(b.outcome != "kept" for b in brief.blocks)
    assert brief.problems == [] and brief.classification.withheld == []


def test_demo_counts_read_selected_and_not_selected() -> None:
    explanation = explain(build_context(FIXTURES / "demo"))
    experiments = next(k for k in explanation.kinds if k.kind == "experiment")
    assert (experiments.read, experiments.selected, experiments.not_selected) == (100, 10, 90)


def test_metrics_are_derived_from_the_pack_figures() -> None:
    build = build_context(FIXTURES / "overflow")
    metrics = explain(build).metrics
    assert metrics.utilisation == build.budgeted.pack_bytes / 24000
    assert metrics.dropped_block_rate == build.budgeted.dropped / len(build.budgeted.blocks)
    assert metrics.bytes_read == sum(
        p.stat().st_size for p in (FIXTURES / "overflow" / ".ledger").rglob("*.md")
    )


MARKER = "ZQXJ-MARKER"


def _marked_ledger() -> Files:
    def marked(status: str, extra: str = "") -> str:
        return (
            f"---\ntitle: {MARKER} title\nstatus: {status}\nupdated_at: 2026-01-01\n"
            f"owner: {MARKER}\nnotes:\n  - {MARKER}\n{extra}---\n# {MARKER} heading\n{MARKER} body\n"
            f"## Metrics\n- {MARKER} metric\n"
        )

    return {
        "agents.md": f"# {MARKER}\n{MARKER} agents text\n",
        "harnesses/h.md": marked("active"),
        "evals/e.md": marked("active"),
        "findings/f.md": marked("current"),
        "findings/g.md": marked("current", f"data_class: {MARKER}\n"),
        "decisions/d.md": marked("accepted"),
        "experiments/x.md": marked("done"),
        "experiments/broken.md": f"---\n{MARKER}: [\n---\n",
        "experiments/list.md": f"---\n- {MARKER}\n---\n",
        "decisions/dup.md": f"---\nstatus: accepted\nstatus: {MARKER}\n---\n",
    }


@pytest.mark.parametrize("cap", [6000, 40])
def test_no_document_text_reaches_any_explanation(
    ledger: Ledger, capsys: pytest.CaptureFixture[str], cap: int
) -> None:
    space = ledger(_marked_ledger())
    build = build_context(space, cap_tokens=cap)
    assert MARKER in build.pack or cap == 40
    for detail in ("brief", "full"):
        explanation = explain(build, detail)  # type: ignore[arg-type]
        assert MARKER not in explanation_json(explanation)
        assert MARKER not in budget_text(explanation)
    brief, text = brief_readout(explain(build, "full"))
    assert MARKER not in brief.model_dump_json() and MARKER not in text
    for args in (["explain"], ["explain", "--full"], ["explain", "--json"], ["explain", "--full", "--json"]):
        assert main([*args, "--space", str(space), "--cap-tokens", str(cap)]) == 0
        out, err = capsys.readouterr()
        assert MARKER not in out and MARKER not in err


def test_json_output_is_the_structured_data(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--json", "--space", str(FIXTURES / "demo")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert Brief.model_validate(data).pack.bytes == 12216
    assert data["classification"]["effective_class"] == "restricted"
    assert main(["explain", "--full", "--json", "--space", str(FIXTURES / "demo")]) == 0
    full = TypeAdapter(Explanation).validate_json(capsys.readouterr().out)
    assert full.pack.bytes == 12216 and len(full.blocks) == 26


# Regression: a bug found by trying to break the product.
def test_documents_the_walk_skips_are_counted_as_read_and_skipped(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "s", {"decisions/ok.md": doc(status="accepted"), "decisions/bad.md": b"\xff"}
    )
    os.mkfifo(space / ".ledger/decisions/fifo.md")
    (space / ".ledger/decisions/tab\there.md").write_text(doc(status="accepted"), encoding="utf-8")
    with open(space / ".ledger/decisions/huge.md", "wb") as handle:
        handle.truncate(11 * 1024 * 1024)
    build = build_context(space)
    decisions = next(k for k in explain(build).kinds if k.kind == "decision")
    assert (decisions.read, decisions.skipped, decisions.selected) == (5, 4, 1)
    errors = [p for p in build.ledger.problems if p.severity == "error"]
    assert len(errors) == 4


def test_a_withheld_documents_problems_show_only_its_path_and_severity(ledger: Ledger) -> None:
    from ledger_context.explain.full import WITHHELD_PROBLEM

    space = ledger(
        {
            "findings/secret.md": doc(status="current", data_class="restricted", updated_at="02/10/2026"),
            "findings/open.md": doc(status="current", updated_at="02/10/2026"),
        }
    )
    open_ = explain(build_context(space), "full")
    assert any(p.path.endswith("secret.md") and "MM/DD/YYYY" in p.message for p in open_.problems)
    gated = explain(build_context(space, max_data_class="internal"), "full")
    secret = [p for p in gated.problems if p.path.endswith("secret.md")]
    assert secret and all((p.message, p.line, p.column) == (WITHHELD_PROBLEM, None, None) for p in secret)
    assert any(p.path.endswith("open.md") and "MM/DD/YYYY" in p.message for p in gated.problems)


def test_bytes_read_under_a_ceiling_counts_only_what_it_lets_through(ledger: Ledger) -> None:
    """Spec §7/§8: a withheld source is treated as if it did not exist. Counting its bytes
    would tell a client its size, and every edit of it (found by breaking the product)."""
    files = {
        "findings/open.md": doc(status="current", slug="open"),
        "findings/secret.md": doc(status="current", slug="secret", data_class="restricted"),
        "decisions/broken.md": "---\nstatus: [accepted\n---\n",
    }
    space = ledger(files)
    sizes = {path: len(text.encode("utf-8")) for path, text in files.items()}
    assert explain(build_context(space), "full").metrics.bytes_read == sum(sizes.values())
    gated = explain(build_context(space, max_data_class="internal"), "full")
    # a skipped file's class is not known, so under a ceiling it is not counted either
    assert gated.metrics.bytes_read == sizes["findings/open.md"]
    (space / ".ledger" / "findings" / "secret.md").write_text(files["findings/secret.md"] + "more\n")
    again = explain(build_context(space, max_data_class="internal"), "full")
    assert again.metrics.bytes_read == gated.metrics.bytes_read
    assert f"Bytes read: {gated.metrics.bytes_read} " in budget_text(gated)

"""Spec §8 and issue 3: the breakdown closes to the byte and holds no document text."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import operator
import os
import tempfile
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel, Field, TypeAdapter, create_model

from conftest import FIXTURES, Files, doc, examples, write_ledger
from ledger_context import build_context
from ledger_context.cli import main
from ledger_context.explain.brief import Brief
from ledger_context.explain.full import Explanation, explain, explanation_data, explanation_json
from ledger_context.explain.readout import brief_readout, budget_text
from ledger_context.pack.context import ContextBuild
from reference.ledgers import SpaceSpec, cap_tokens, max_data_class, spaces, write_space

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


def test_the_schema_of_the_explanation_carries_its_descriptions() -> None:
    # The explanation is plain data; pydantic reads the classes' docstrings and the fields'
    # description metadata, so the MCP structured output keeps the schema it had as models.
    schema = TypeAdapter(Explanation).json_schema()
    assert schema["description"] == "The breakdown of one pack (spec §8)."
    assert schema["required"] == [
        *("space", "detail", "yaml_loader", "rule", "pack", "metrics", "groups", "kinds", "blocks"),
        *("classification", "problem_counts", "problems"),
    ]
    assert schema["properties"]["audit"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "default": None,
        "description": "The server's audit log: 'ok', 'off' or 'failing: <reason>'; null outside serve",
        "title": "Audit",
    }
    totals = schema["$defs"]["PackTotals"]
    assert totals["description"] == "The pack as returned by get_context."
    assert totals["properties"]["bytes"] == {
        "description": "Size of the pack in UTF-8 bytes",
        "title": "Bytes",
        "type": "integer",
    }
    assert schema["$defs"]["BlockLine"]["properties"]["outcome"]["enum"] == ["kept", "truncated", "dropped"]


# --------------------------------------------------------------------------- as the models it replaced


def _model_type(annotation: Any, models: dict[type, type[BaseModel]]) -> Any:
    """``annotation`` with each explanation dataclass in it replaced by its model."""
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return _model_of(annotation, models)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if not args or origin is typing.Literal:
        return annotation
    replaced = tuple(_model_type(a, models) for a in args)
    if origin is types.UnionType:
        return functools.reduce(operator.or_, replaced)
    return origin[replaced]


def _model_of(cls: type, models: dict[type, type[BaseModel]]) -> type[BaseModel]:
    """The pydantic model the dataclass ``cls`` stands for: the same fields, types,
    defaults, docstring and descriptions, written as ``Field(description=...)``."""
    if cls not in models:
        hints = typing.get_type_hints(cls)
        fields: dict[str, Any] = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.default_factory is not dataclasses.MISSING:
                spec = Field(default_factory=f.default_factory, **f.metadata)
            else:
                spec = Field(... if f.default is dataclasses.MISSING else f.default, **f.metadata)
            fields[f.name] = (_model_type(hints[f.name], models), spec)
        models[cls] = create_model(cls.__name__, __doc__=cls.__doc__, **fields)
    return models[cls]


def _assert_encoded_as_by_the_model(explanation: Explanation) -> None:
    model = _model_of(Explanation, {})
    as_model = model.model_validate(dataclasses.asdict(explanation))
    assert explanation_json(explanation, indent=2) == as_model.model_dump_json(indent=2)
    assert explanation_json(explanation) == as_model.model_dump_json()
    as_data = json.dumps(explanation_data(explanation), ensure_ascii=False)
    assert as_data == json.dumps(as_model.model_dump(mode="json"), ensure_ascii=False)


def test_the_explanation_has_the_schema_of_the_models_it_replaced() -> None:
    # Key order counts: the schema is sent to MCP clients as JSON text.
    model_schema = json.dumps(_model_of(Explanation, {}).model_json_schema(), ensure_ascii=False)
    assert json.dumps(TypeAdapter(Explanation).json_schema(), ensure_ascii=False) == model_schema


@pytest.mark.parametrize("fixture", ["demo", "overflow", "floor"])
@pytest.mark.parametrize(("ceiling", "cap"), [(None, 6000), ("internal", 6000), ("public", 40)])
def test_the_explanation_is_encoded_as_by_the_models_on_the_fixtures(
    fixture: str, ceiling: str | None, cap: int
) -> None:
    build = build_context(FIXTURES / fixture, cap_tokens=cap, max_data_class=ceiling)
    for detail in ("brief", "full"):
        _assert_encoded_as_by_the_model(explain(build, detail))  # type: ignore[arg-type]


@pytest.mark.parametrize("cap", [1, 7, 6000, 10**6, 10**9])
def test_ratios_are_encoded_as_by_the_models_however_small_or_large(ledger: Ledger, cap: int) -> None:
    # A one-byte pack under a large cap: a utilisation of 1e-09 (pydantic writes 1e-9) and a
    # read-to-pack ratio in the hundreds.
    space = ledger({"agents.md": "x", "findings/f.md": doc(status="current", updated_at="2026-01-01")})
    explanation = explain(build_context(space, cap_tokens=cap), "full")
    _assert_encoded_as_by_the_model(explanation)
    assert (
        json.loads(explanation_json(explanation))["metrics"]["utilisation"] == explanation.metrics.utilisation
    )


@settings(max_examples=examples(40), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(spec=spaces(), cap=cap_tokens(), ceiling=max_data_class())
def test_the_explanation_is_encoded_as_by_the_models_on_generated_ledgers(
    spec: SpaceSpec, cap: int, ceiling: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        build = build_context(write_space(Path(tmp), spec), cap_tokens=cap, max_data_class=ceiling)
        _assert_encoded_as_by_the_model(explain(build, "full"))


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

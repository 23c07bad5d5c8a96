"""The breakdown's value (explain/breakdown.py): its schema carries each class's docstring and
each field's description, and it is encoded exactly as the pydantic models it replaced."""

from __future__ import annotations

import dataclasses
import functools
import json
import operator
import tempfile
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel, Field, TypeAdapter, create_model

from conftest import FIXTURES, Files, doc, examples
from ledger_context import build_context
from ledger_context.explain.breakdown import Explanation, explanation_data, explanation_json
from ledger_context.explain.full import explain
from reference.ledgers import SpaceSpec, cap_tokens, max_data_class, spaces, write_space

Ledger = Callable[[Files], Path]


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

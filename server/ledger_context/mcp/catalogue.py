"""The catalogue's own footprint (issue 25): what ``tools/list`` and the ``initialize``
instructions cost a client, held inside a budget, and the schema shaping that keeps them
there.

Two figures, in UTF-8 bytes of compact JSON as sent: the **catalogue** (the ``tools/list``
result plus the instructions) and its **model-facing part** (each tool's name, description
and input schema, plus the instructions), what a client puts in front of the model. Output
schemas are for the client's validation, not the model's reading (Claude Code does not show
them), so they are shaped small: no titles, descriptions or defaults (the tool description
and the spec say what a field means), ``["string", "null"]`` for a nullable scalar, and
``required`` only on the root and on each variant of a union. Shared shapes stay in
``$defs``, referenced where they repeat.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CATALOGUE_BUDGET = 8000
"""Bytes the ``tools/list`` result and the instructions may take together."""

MODEL_FACING_BUDGET = 3000
"""Bytes the names, descriptions, input schemas and instructions may take together."""

_NAMED = ("properties", "$defs", "patternProperties")
"""Keywords whose keys are names (of properties, of shapes), never keywords."""

_DATA = ("default", "enum", "const", "examples")
"""Keywords whose values are instance data, kept as they are."""

_NULL = {"type": "null"}


def compact_json(value: object) -> str:
    """``value`` as compact JSON, non-ASCII kept (how the SDK writes a message)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def byte_size(value: object) -> int:
    """UTF-8 bytes of ``value`` as compact JSON (a ``str`` counts as its own bytes)."""
    text = value if isinstance(value, str) else compact_json(value)
    return len(text.encode("utf-8"))


def input_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An input schema without pydantic's generated titles; descriptions and defaults stay,
    since they tell the model how to call."""
    return dict(_walk(schema, drop=frozenset({"title"})))


def output_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An output schema shaped for validation only (see the module docstring)."""
    shaped: dict[str, Any] = _walk(schema, drop=frozenset({"title", "description", "default"}))
    defs: dict[str, Any] = shaped.get("$defs", {})
    refs = _refs(shaped)
    kept = {name for name in defs if refs.count(name) > 1 or name in _variants(shaped)}
    shaped = _inline(shaped, kept)
    if defs:
        shaped["$defs"] = {name: _inline(defs[name], kept) for name in defs if name in kept}
    return shaped


_PREFIX = "#/$defs/"


def _refs(node: Any) -> list[str]:
    """The ``$defs`` names ``node`` refers to, once per reference."""
    if isinstance(node, list):
        return [r for n in node for r in _refs(n)]
    if not isinstance(node, dict):
        return []
    own = [node["$ref"][len(_PREFIX) :]] if str(node.get("$ref", "")).startswith(_PREFIX) else []
    return own + [r for k, v in node.items() if k not in _DATA for r in _refs(v)]


def _variants(schema: Mapping[str, Any]) -> list[str]:
    """The shapes the root's ``anyOf`` names: the variants a result is one of."""
    return [v["$ref"][len(_PREFIX) :] for v in schema.get("anyOf", []) if "$ref" in v]


def _inline(node: Any, kept: set[str]) -> Any:
    """``node`` with each reference to a shape not ``kept`` as a plain object."""
    if isinstance(node, list):
        return [_inline(n, kept) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_PREFIX) and ref[len(_PREFIX) :] not in kept:
        return {"type": "object"}
    return {k: v if k in _DATA or k == "$defs" else _inline(v, kept) for k, v in node.items()}


def _walk(node: Any, *, drop: frozenset[str]) -> Any:
    if isinstance(node, list):
        return [_walk(n, drop=drop) for n in node]
    if not isinstance(node, dict):
        return node
    shaped: dict[str, Any] = {}
    for key, value in node.items():
        if key in drop:
            continue
        if key in _NAMED:
            shaped[key] = {name: _walk(sub, drop=drop) for name, sub in value.items()}
        elif key in _DATA:
            shaped[key] = value
        else:
            shaped[key] = _walk(value, drop=drop)
    return _nullable(shaped)


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``{"anyOf": [{"type": T, ...}, {"type": "null"}]}`` as ``{"type": [T, "null"], ...}``,
    the same instances in fewer bytes (not for an enum, a const or a reference, which a
    null would not satisfy)."""
    any_of = node.get("anyOf")
    if not isinstance(any_of, list) or len(any_of) != 2 or _NULL not in any_of:
        return node
    other = any_of[0] if any_of[1] == _NULL else any_of[1]
    if not isinstance(other.get("type"), str) or {"enum", "const", "$ref", "anyOf"} & other.keys():
        return node
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    return {**other, "type": [other["type"], "null"], **rest}


@dataclass(frozen=True)
class CatalogueSize:
    """The catalogue's figures, in bytes."""

    tools_list: int
    """The ``tools/list`` result as compact JSON."""
    instructions: int
    """The ``initialize`` instructions."""
    model_facing: int
    """Names, descriptions and input schemas of every tool, plus the instructions."""
    output_schemas: int
    """Every tool's ``outputSchema`` (part of ``tools_list``)."""

    @property
    def total(self) -> int:
        """``tools/list`` plus the instructions: what the catalogue budget bounds."""
        return self.tools_list + self.instructions

    def within_budget(self) -> bool:
        return self.total <= CATALOGUE_BUDGET and self.model_facing <= MODEL_FACING_BUDGET


def catalogue_size(tools_list: Mapping[str, Any], instructions: str) -> CatalogueSize:
    """The figures of a ``tools/list`` result (as JSON on the wire) and the instructions."""
    tools: list[Mapping[str, Any]] = tools_list["tools"]
    facing = sum(byte_size(t["name"]) + byte_size(t.get("description", "")) for t in tools)
    facing += sum(byte_size(t["inputSchema"]) for t in tools)
    return CatalogueSize(
        tools_list=byte_size(tools_list),
        instructions=byte_size(instructions),
        model_facing=facing + byte_size(instructions),
        output_schemas=sum(byte_size(t["outputSchema"]) for t in tools_list["tools"] if "outputSchema" in t),
    )

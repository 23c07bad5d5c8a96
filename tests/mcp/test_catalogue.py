"""The catalogue's footprint (mcp/catalogue.py): ``tools/list`` plus the instructions within
8,000 bytes, the model-facing part within 3,000, measured over stdio in both protocol
generations; and the schema shaping that keeps them there without losing what validates."""

from __future__ import annotations

from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client

from conftest import FIXTURES, RawServer, modern_request
from ledger_context.mcp.catalogue import (
    CATALOGUE_BUDGET,
    MODEL_FACING_BUDGET,
    byte_size,
    catalogue_size,
    input_schema,
    output_schema,
)
from ledger_context.mcp.server import create_server

DEMO = FIXTURES / "demo"


def test_the_catalogue_is_within_its_budget_over_stdio_in_both_generations() -> None:
    server = RawServer("--space", str(DEMO))
    instructions = server.initialize()["result"]["instructions"]
    legacy = server.request("tools/list")["result"]
    assert server.close()[0] == 0
    server = RawServer("--space", str(DEMO))  # stateless: the same catalogue, with cache hints
    modern = modern_request(server, "tools/list")["result"]
    assert server.close()[0] == 0
    for listed in (legacy, modern):
        size = catalogue_size(listed, instructions)
        assert size.total <= CATALOGUE_BUDGET, size
        assert size.model_facing <= MODEL_FACING_BUDGET, size
        assert size.within_budget()
        assert size.output_schemas > 0  # explain_budget keeps its structured output
    # Issue 25 measured 19,053 bytes of tools/list; the README states today's figures.
    assert catalogue_size(legacy, instructions).total < 19_053 // 2
    # The quick check below measures in process: the same bytes as the wire's, and the
    # larger generation's (the 2025-11-25 wire has no cache hints).
    assert _in_process() == catalogue_size(modern, instructions)
    assert catalogue_size(legacy, instructions).total <= catalogue_size(modern, instructions).total


def _in_process() -> Any:
    """The catalogue's size as a 2026-07-28 client sees it, from a server in this process."""
    server = create_server(DEMO)

    async def listed() -> dict[str, Any]:
        async with Client(server, mode="auto") as client:
            found: dict[str, Any] = (await client.list_tools()).model_dump(
                by_alias=True, exclude_none=True, mode="json"
            )
            return found

    return catalogue_size(anyio.run(listed), server.instructions or "")


def test_the_catalogue_is_within_its_budget_in_the_working_loop() -> None:
    # The stdio test is slow, so make quick leaves it out; a new tool or a longer
    # description is caught here too, with the figures the stdio test holds equal.
    size = _in_process()
    assert size.total <= CATALOGUE_BUDGET and size.model_facing <= MODEL_FACING_BUDGET, size
    assert size.output_schemas > 0


def test_the_figures_add_up_from_the_wire_json() -> None:
    listed = {
        "tools": [
            {"name": "a", "description": "é", "inputSchema": {"type": "object"}},
            {"name": "bc", "inputSchema": {}, "outputSchema": {"type": "object"}},
        ]
    }
    size = catalogue_size(listed, "hi")
    assert (size.instructions, size.output_schemas) == (2, 17)
    assert size.model_facing == (1 + 2 + 17) + (2 + 0 + 2) + 2  # name, description, input schema
    assert (
        size.tools_list
        == byte_size(listed)
        == len(
            '{"tools":[{"name":"a","description":"é","inputSchema":{"type":"object"}},'
            '{"name":"bc","inputSchema":{},"outputSchema":{"type":"object"}}]}'.encode()
        )
    )
    assert size.total == size.tools_list + 2


def test_an_input_schema_loses_generated_titles_only() -> None:
    schema = {
        "title": "fArguments",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string", "description": "A title", "default": "x"}
        },
    }
    assert input_schema(schema) == {
        "type": "object",
        "properties": {"title": {"type": "string", "description": "A title", "default": "x"}},
    }


_SCHEMA = {
    "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
    "title": "Result",
    "description": "prose",
    "type": "object",
    "$defs": {
        "A": {
            "type": "object",
            "title": "A",
            "properties": {
                "shared": {"$ref": "#/$defs/Shared"},
                "once": {"type": "array", "items": {"$ref": "#/$defs/Once"}},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Note"},
                "kind": {"anyOf": [{"enum": ["x"], "type": "string"}, {"type": "null"}]},
            },
            "required": ["shared", "once", "note", "kind"],
        },
        "B": {
            "type": "object",
            "properties": {"shared": {"$ref": "#/$defs/Shared"}, "b": {"type": "integer"}},
            "required": ["shared", "b"],
        },
        "Shared": {
            "type": "object",
            "properties": {"title": {"type": "string", "description": "a field named title"}},
            "required": ["title"],
        },
        "Once": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    },
}


def test_an_output_schema_keeps_shared_shapes_and_inlines_the_rest() -> None:
    shaped = output_schema(_SCHEMA)
    assert shaped == {
        "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
        "type": "object",
        "$defs": {
            "A": {
                "type": "object",
                "properties": {
                    "shared": {"$ref": "#/$defs/Shared"},
                    "once": {"type": "array", "items": {"type": "object"}},
                    "note": {"type": ["string", "null"]},
                    "kind": {"anyOf": [{"enum": ["x"], "type": "string"}, {"type": "null"}]},
                },
                "required": ["shared", "once", "note", "kind"],
            },
            "B": {
                "type": "object",
                "properties": {"shared": {"$ref": "#/$defs/Shared"}, "b": {"type": "integer"}},
                "required": ["shared", "b"],
            },
            "Shared": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
        },
    }
    good = {"shared": {"title": "t"}, "once": [{"n": 1}], "note": None, "kind": "x"}
    for schema in (_SCHEMA, shaped):  # the shaped schema accepts and refuses as the original
        jsonschema.validate(good, schema)
        for bad in ({**good, "note": 3}, {"shared": {}}, {"shared": {"title": 1}}, {**good, "kind": "y"}):
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate(bad, schema)

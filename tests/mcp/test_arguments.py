"""Refused tool arguments in the project's words (mcp/arguments.py): the argument, the
value given, the allowed values and an example, read from the input schema itself."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from ledger_context.mcp.arguments import VALUE_CHARS, allowed_values, argument_error, example

_SCHEMA = {
    "properties": {
        "detail": {"enum": ["brief", "full"], "default": "brief", "type": "string"},
        "path": {
            "type": "string",
            "description": "A path, e.g. .ledger/decisions/0007-use-jwt.md, or its URI",
        },
        "offset": {"type": "integer", "minimum": 0, "default": 0},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    }
}


class _Arguments(BaseModel):
    path: str
    offset: int = Field(0, ge=0)


def _refusal(**arguments: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        _Arguments.model_validate(arguments)
    return caught.value


def test_allowed_values_are_said_in_words() -> None:
    properties = _SCHEMA["properties"]
    assert allowed_values(properties["detail"]) == "'brief' or 'full'"
    assert allowed_values({"enum": ["a", "b", "c"]}) == "'a', 'b' or 'c'"
    assert allowed_values(properties["offset"]) == "a whole number from 0"
    assert allowed_values(properties["limit"]) == "a whole number from 1 to 50"
    assert allowed_values({"type": "boolean"}) == "true or false"


def test_an_example_comes_from_the_default_else_the_description() -> None:
    properties = _SCHEMA["properties"]
    assert example("offset", properties["offset"]) == '"offset": 0'
    assert example("path", properties["path"]) == '"path": ".ledger/decisions/0007-use-jwt.md"'
    assert example("limit", properties["limit"]) == ""


def test_each_refused_argument_is_one_sentence() -> None:
    assert argument_error("read_document", _SCHEMA, _refusal(path="a", offset=-1)) == (
        'invalid offset -1 for read_document: allowed values: a whole number from 0, e.g. "offset": 0'
    )
    assert argument_error("read_document", _SCHEMA, _refusal()) == (
        'read_document needs the argument path (a string), e.g. "path": ".ledger/decisions/0007-use-jwt.md"'
    )


def test_a_long_rejected_value_is_cut() -> None:
    message = argument_error("read_document", _SCHEMA, _refusal(path=5, offset="x" * 500))
    shown = message.split("invalid offset ", 1)[1].split(" for ", 1)[0]
    assert len(shown) == VALUE_CHARS and shown.endswith("...")

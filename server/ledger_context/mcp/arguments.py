"""Tool arguments the SDK refused, told in the project's words (issue 23).

The SDK checks a call's arguments against the tool's input schema and, when they do not
fit, answers with pydantic's own dump (error types, a documentation URL). This module
turns that refusal into one sentence per argument: which argument, the value given (cut),
the allowed values and an example, all read from the same input schema the client sees.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

VALUE_CHARS = 40
"""A rejected value is shown cut to this many characters."""

_EXAMPLE = re.compile(r"e\.g\. (\S+?)[,;:)]?(?:\s|$)")


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 3] + "..."


def allowed_values(schema: Mapping[str, Any]) -> str:
    """What an argument of JSON ``schema`` may be, in words: ``'brief' or 'full'``,
    ``a whole number from 0``, ``a string``."""
    if "enum" in schema:
        names = [repr(value) for value in schema["enum"]]
        return " or ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " or " + names[-1]
    kind = schema.get("type")
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"a whole number from {low} to {high}"
        if low is not None:
            return f"a whole number from {low}"
        return "a whole number"
    return {"string": "a string", "boolean": "true or false", "number": "a number"}.get(
        str(kind), f"a value of type {kind}"
    )


def example(name: str, schema: Mapping[str, Any]) -> str:
    """An example of the argument, as it appears in a call's arguments: ``"offset": 0``;
    from the schema's default, else the ``e.g.`` of its description, else empty."""
    if schema.get("default") is not None:
        return f'"{name}": {json.dumps(schema["default"])}'
    found = _EXAMPLE.search(str(schema.get("description", "")))
    if found is None:
        return ""
    value = found.group(1)
    return f'"{name}": {value if schema.get("type") != "string" else json.dumps(value)}'


def argument_error(tool: str, input_schema: Mapping[str, Any], error: ValidationError) -> str:
    """One sentence per refused argument of ``tool``, joined by ``; ``, e.g.
    ``invalid offset -1 for read_document: allowed values: a whole number from 0,
    e.g. "offset": 0``."""
    properties: Mapping[str, Any] = input_schema.get("properties", {})
    sentences: list[str] = []
    for problem in error.errors(include_url=False):
        name = ".".join(str(part) for part in problem["loc"]) or "arguments"
        schema = properties.get(str(problem["loc"][0]), {}) if problem["loc"] else {}
        allowed = allowed_values(schema) if schema else "none (this tool has no such argument)"
        shown = example(name, schema) if schema else ""
        hint = f", e.g. {shown}" if shown else ""
        if problem["type"] == "missing":
            sentences.append(f"{tool} needs the argument {name} ({allowed}){hint}")
        else:
            sentences.append(
                f"invalid {name} {_shown(problem.get('input'))} for {tool}: allowed values: {allowed}{hint}"
            )
    return "; ".join(sentences)

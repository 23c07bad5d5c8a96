"""server.json for the MCP Registry: the fields the registry publishes, the PyPI package
this project builds, every environment variable the server reads, and the README's
mcp-name ownership line."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import jsonschema

from conftest import REPO
from ledger_context import CLASSES, __version__

SERVER_JSON: dict[str, Any] = json.loads((REPO / "server.json").read_text(encoding="utf-8"))

# The registry's server.json rules this file relies on, written down from its published
# schema (static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json, and the
# docs' package-types page): the schema file itself is not fetched at test time.
_INPUT = {
    "type": "object",
    "properties": {
        "description": {"type": "string"},
        "isRequired": {"type": "boolean"},
        "format": {"enum": ["string", "number", "boolean", "filepath"]},
        "value": {"type": "string"},
        "isSecret": {"type": "boolean"},
        "default": {"type": "string"},
        "placeholder": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
    },
}
REGISTRY_FIELDS = {
    "type": "object",
    "required": ["$schema", "name", "description", "version"],
    "properties": {
        "$schema": {"type": "string", "pattern": r"^https://static\.modelcontextprotocol\.io/schemas/"},
        "name": {
            "type": "string",
            "pattern": r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$",
            "minLength": 3,
            "maxLength": 200,
        },
        "title": {"type": "string", "minLength": 1, "maxLength": 100},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "maxLength": 255, "not": {"pattern": r"[\^~<>=*x]|^latest$"}},
        "repository": {
            "type": "object",
            "additionalProperties": False,
            "required": ["url", "source"],
            "properties": {
                "url": {"type": "string", "format": "uri"},
                "source": {"type": "string"},
                "id": {"type": "string"},
                "subfolder": {"type": "string"},
            },
        },
        "packages": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["registryType", "identifier", "version", "transport"],
                "properties": {
                    "registryType": {"enum": ["npm", "pypi", "oci", "nuget", "mcpb", "cargo", "go"]},
                    "registryBaseUrl": {"type": "string", "format": "uri"},
                    "identifier": {"type": "string", "minLength": 1},
                    "version": {"type": "string", "minLength": 1, "not": {"const": "latest"}},
                    "fileSha256": {"type": "string", "pattern": "^[a-f0-9]{64}$"},
                    "runtimeHint": {"type": "string"},
                    "transport": {
                        "type": "object",
                        "required": ["type"],
                        "properties": {"type": {"enum": ["stdio", "streamable-http", "sse"]}},
                    },
                    "runtimeArguments": {"type": "array"},
                    "packageArguments": {
                        "type": "array",
                        "items": {
                            "allOf": [_INPUT],
                            "required": ["type"],
                            "properties": {"type": {"enum": ["positional", "named"]}},
                        },
                    },
                    "environmentVariables": {
                        "type": "array",
                        "items": {"allOf": [_INPUT], "required": ["name"]},
                    },
                },
            },
        },
    },
}


def test_server_json_has_the_fields_the_registry_publishes() -> None:
    jsonschema.validate(SERVER_JSON, REGISTRY_FIELDS)


def test_the_repository_is_named_and_no_variable_with_a_default_is_required() -> None:
    # Issue 23: LEDGER_SPACE was required while its description gave its default.
    assert SERVER_JSON["repository"] == {
        "url": "https://github.com/ledger-context/ledger-context",
        "source": "github",
    }
    (package,) = SERVER_JSON["packages"]
    required = [v["name"] for v in package["environmentVariables"] if v.get("isRequired")]
    assert (
        required == []
    )  # each has a default: LEDGER_SPACE falls back to the roots, then the working directory
    assert (
        "Without it"
        in next(v for v in package["environmentVariables"] if v["name"] == "LEDGER_SPACE")["description"]
    )


def test_the_package_is_this_projects_pypi_package_run_with_uvx_over_stdio() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (package,) = SERVER_JSON["packages"]
    assert (package["registryType"], package["identifier"]) == ("pypi", project["name"])
    assert package["version"] == SERVER_JSON["version"] == project["version"] == __version__
    assert (package["runtimeHint"], package["transport"]) == ("uvx", {"type": "stdio"})
    assert [arg["value"] for arg in package["packageArguments"]] == ["serve"]
    assert "ledger-context" in project["scripts"]  # what uvx runs: the package's own command


def test_every_environment_variable_the_server_reads_is_documented() -> None:
    read = set()
    for path in (REPO / "server" / "ledger_context").rglob("*.py"):
        read |= set(re.findall(r'"(LEDGER_[A-Z_]+)"', path.read_text(encoding="utf-8")))
    (package,) = SERVER_JSON["packages"]
    documented = {variable["name"]: variable for variable in package["environmentVariables"]}
    assert {"LEDGER_SPACE", "LEDGER_MAX_DATA_CLASS", "LEDGER_CAP_TOKENS"} <= read
    assert set(documented) == read
    assert all(variable["description"] for variable in documented.values())
    assert documented["LEDGER_MAX_DATA_CLASS"]["choices"] == list(CLASSES)


def test_the_readme_carries_the_mcp_name_ownership_line() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    # The registry wants the token followed by a boundary: whitespace, a tag or "-->".
    assert re.search(r"mcp-name: " + re.escape(SERVER_JSON["name"]) + r"(\s|<|-->|$)", readme)

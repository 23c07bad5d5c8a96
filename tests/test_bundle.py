"""The MCP Bundle: `make bundle` validates and packs it with the official CLI, and the
server starts from the packed bundle exactly the way its manifest tells a host to."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from conftest import FIXTURES, REPO, require
from ledger_context import __version__, build_context
from ledger_context.cli import BUNDLE_CEILING, main
from ledger_context.mcp.server import create_server
from ledger_context.model.classify import parse_ceiling

MANIFEST: dict[str, Any] = json.loads((REPO / "manifest.json").read_text(encoding="utf-8"))
BIN = Path(sys.executable).parent


def _substitute(value: Any, variables: dict[str, str]) -> Any:
    """What a host does to ``mcp_config`` (mcpb's getMcpConfigForManifest, for string values)."""
    if isinstance(value, str):
        return re.sub(r"\$\{([^}]+)\}", lambda m: variables.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [_substitute(item, variables) for item in value]
    if isinstance(value, dict):
        return {key: _substitute(item, variables) for key, item in value.items()}
    return value


def test_the_manifest_matches_the_project() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert MANIFEST["version"] == project["version"] == __version__
    assert MANIFEST["server"]["type"] == "uv"
    assert (REPO / MANIFEST["server"]["entry_point"]).is_file()
    space, ceiling = MANIFEST["user_config"]["space"], MANIFEST["user_config"]["max_data_class"]
    assert (space["type"], space["required"]) == ("directory", True)
    assert (ceiling["type"], ceiling["required"]) == ("string", False)
    assert parse_ceiling(ceiling["default"]) == "restricted"  # a default the server accepts
    assert MANIFEST["compatibility"]["runtimes"]["python"] == project["requires-python"]


@pytest.mark.anyio
async def test_the_manifest_lists_the_servers_tools_and_prompts() -> None:
    async with Client(create_server(FIXTURES / "demo"), mode="legacy") as client:
        tools = sorted(t.name for t in (await client.list_tools()).tools)
        prompts = {p.name: [a.name for a in p.arguments or []] for p in (await client.list_prompts()).prompts}
    assert sorted(t["name"] for t in MANIFEST["tools"]) == tools
    assert {p["name"]: p["arguments"] for p in MANIFEST["prompts"]} == prompts
    for prompt in MANIFEST["prompts"]:  # the host fills ${arguments.NAME} from the prompt's arguments
        assert set(re.findall(r"\$\{arguments\.([^}]+)\}", prompt["text"])) == set(prompt["arguments"])


def _host_config(installed: Path, values: dict[str, str]) -> dict[str, Any]:
    """``mcp_config`` as a host fills it: user_config defaults, then the user's ``values``."""
    manifest = json.loads((installed / "manifest.json").read_text(encoding="utf-8"))
    variables = {
        f"user_config.{key}": str(o["default"])
        for key, o in manifest["user_config"].items()
        if "default" in o
    }
    variables |= {"__dirname": str(installed)} | {f"user_config.{k}": v for k, v in values.items()}
    config: dict[str, Any] = _substitute(manifest["server"]["mcp_config"], variables)
    return config


@pytest.mark.anyio
async def test_a_cleared_ceiling_field_starts_the_server_with_the_bundles_default() -> None:
    # Issue 23: Claude Desktop passes a cleared field as an empty string; the server stopped
    # with "leave the option out", which a bundle user cannot do.
    assert MANIFEST["user_config"]["max_data_class"]["default"] == BUNDLE_CEILING
    config = _host_config(REPO, {"space": str(FIXTURES / "demo"), "max_data_class": ""})
    args = config["args"][config["args"].index("ledger-context") + 1 :]  # what `uv run` runs
    assert args[-2:] == ["--bundle-max-data-class", ""]
    server = StdioServerParameters(command=str(BIN / "ledger-context"), args=[*args, "--no-audit"])
    async with Client(server, mode="legacy") as client:
        context = await client.call_tool("get_context", {})
        budget = await client.call_tool("explain_budget", {})
    assert context.content[0].text == build_context(FIXTURES / "demo", max_data_class="restricted").pack  # type: ignore[union-attr]
    assert budget.structured_content["classification"]["ceiling"] == "restricted"  # type: ignore[index]


def test_the_bundle_field_is_refused_when_misspelt_and_the_flag_wins_over_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["pack", "--space", str(FIXTURES / "demo"), "--max-data-class", "internl"]) == 2
    assert "invalid data-class ceiling 'internl'" in capsys.readouterr().err
    args = ["serve", "--space", "/nonexistent", "--bundle-max-data-class", "internl"]
    assert main(args) == 2
    assert "invalid data-class ceiling 'internl'" in capsys.readouterr().err


@pytest.mark.anyio
async def test_make_bundle_packs_a_bundle_that_starts_as_its_manifest_says(tmp_path: Path) -> None:
    require(
        shutil.which("npx") is not None, "Node.js 18+ and npx (make bundle runs @anthropic-ai/mcpb)", "node"
    )
    made = subprocess.run(
        ["make", "-s", "bundle", f"BUNDLE_DIR={tmp_path}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    assert "Manifest schema validation passes!" in made.stdout
    bundle = tmp_path / f"ledger-context-{__version__}.mcpb"
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
        assert {
            "manifest.json",
            "pyproject.toml",
            "README.md",
            "server/ledger_context/mcp/server.py",
        } <= names
        assert not [
            n for n in names if n.startswith(("tests/", "ledger_fixtures/", ".venv/")) or "__pycache__" in n
        ]
        installed = tmp_path / "installed"
        archive.extractall(installed)

    # Start it as a host would: the manifest's command, user_config defaults then the user's values.
    config = _host_config(installed, {"space": str(FIXTURES / "demo")})
    command = shutil.which(config["command"], path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    assert command is not None, "uv is in the test extras"
    server = StdioServerParameters(command=command, args=config["args"], env={**os.environ, **config["env"]})
    async with Client(server, mode="legacy", read_timeout_seconds=300) as client:
        context = await client.call_tool("get_context", {})
        document = await client.call_tool(
            "read_document", {"path": ".ledger/decisions/0005-tool-calling-router.md"}
        )
    assert context.content[0].text == build_context(FIXTURES / "demo", max_data_class="restricted").pack  # type: ignore[union-attr]
    assert (
        document.content[0].text.encode()
        == (  # type: ignore[union-attr]
            FIXTURES / "demo" / ".ledger/decisions/0005-tool-calling-router.md"
        ).read_bytes()
    )

"""The README is tested: every command, tool, resource and prompt is documented, the
client snippet works as pasted, and the data-class readout shown is the real one."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from conftest import FIXTURES, REPO
from ledger_context import build_context
from ledger_context.cli import _parser
from ledger_context.explain import explain
from ledger_context.mcp_server import create_server
from ledger_context.readout import brief_readout

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_every_cli_command_is_in_the_readme() -> None:
    commands = _parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name in commands:
        assert f"`ledger-context {name}`" in README


@pytest.mark.anyio
async def test_every_tool_resource_and_prompt_is_in_the_readme() -> None:
    server = create_server(FIXTURES / "demo")
    async with Client(server, mode="legacy") as client:
        names = [t.name for t in (await client.list_tools()).tools]
        names += [
            str(r.uri) for r in (await client.list_resources()).resources if "document/" not in str(r.uri)
        ]
        names += [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        names += [p.name for p in (await client.list_prompts()).prompts]
    assert len(names) == 6
    for name in names:
        assert f"`{name}" in README, name


def _snippet(title: str) -> dict[str, object]:
    start = README.index(title)
    block = re.search(r"```json\n(.*?)```", README[start:], re.S)
    assert block is not None
    data: dict[str, object] = json.loads(block.group(1))
    return data


@pytest.mark.anyio
async def test_the_claude_desktop_snippet_works_with_one_path_changed() -> None:
    config = _snippet("**Claude Desktop**")["mcpServers"]["ledger-context"]  # type: ignore[index]
    args = [arg.replace("/path/to/your/repo", str(FIXTURES / "demo")) for arg in config["args"]]
    command = shutil.which(config["command"], path=str(Path(sys.executable).parent))
    assert command is not None, "ledger-context is not installed next to this Python"
    async with Client(StdioServerParameters(command=command, args=args), mode="legacy") as client:
        result = await client.call_tool("get_context", {})
    assert result.content[0].text == build_context(FIXTURES / "demo").pack  # type: ignore[union-attr]


def test_the_readout_shown_in_the_readme_is_the_real_one() -> None:
    marker = "<!-- readout: explain --space ledger_fixtures/demo --max-data-class internal -->"
    shown = re.search(re.escape(marker) + r"\n```\n(.*?)```", README, re.S)
    assert shown is not None
    _, text = brief_readout(explain(build_context(FIXTURES / "demo", max_data_class="internal"), "full"))
    assert shown.group(1) in text

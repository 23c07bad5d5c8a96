"""The README is tested: every command, tool, resource and prompt is documented, the
client snippet works as pasted, and the data-class readout shown is the real one."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from conftest import FIXTURES, REPO
from ledger_context import build_context
from ledger_context.cli import _parser
from ledger_context.explain.full import explain
from ledger_context.explain.readout import brief_readout
from ledger_context.mcp.server import create_server
from ledger_context.search.result import search, search_text

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
    assert {"get_context", "ledger://pack", "start-task"} <= set(names)
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


def test_the_searches_shown_in_the_readme_are_the_real_ones() -> None:
    result = search(build_context(FIXTURES / "demo"), "jwt webhooks", None, 3)
    shown = re.search(r"\$ ledger-context search \"jwt webhooks\" [^\n]*\n(.*?)```", README, re.S)
    assert shown is not None and shown.group(1) == search_text(result)
    agent = re.search(r'\n(\{"rank": 1, [^\n]*)\n```', README)
    assert agent is not None and json.loads(agent.group(1)) == asdict(result.hits[0])


@pytest.mark.anyio
async def test_the_read_document_example_path_reads_the_file() -> None:
    example = re.search(r"tool `read_document\(path, offset=0\)` \|.*?e\.g\. `([^`]+)`", README)
    assert example is not None
    async with Client(create_server(FIXTURES / "demo"), mode="legacy") as client:
        result = await client.call_tool("read_document", {"path": example.group(1)})
    assert result.content[0].text.encode() == (FIXTURES / "demo" / example.group(1)).read_bytes()  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("space", "shown"),
    [
        ("/path/to/your/repo", "Error: The space /path/to/your/repo does not exist."),
        ("{empty}", "Error: The space {empty} holds no .ledger directory."),
    ],
)
def test_failed_to_connect_quotes_what_the_server_says_as_it_exits(
    space: str, shown: str, tmp_path: Path
) -> None:
    # Issue 23: with the placeholder path the server exits at once (code 2); the client
    # shows "Failed to connect", not a server that is connected.
    command = shutil.which("ledger-context", path=str(Path(sys.executable).parent))
    assert command is not None
    space = space.format(empty=tmp_path)
    ran = subprocess.run(
        [command, "serve", "--no-audit", "--space", space],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (ran.returncode, ran.stdout) == (2, "")
    first_sentence = ran.stderr.split(". ")[0] + "."
    assert first_sentence == shown.format(empty=tmp_path)
    quoted = shown.format(empty="/home/me/repo")
    assert f"`{quoted}`" in README
    assert "exit code 2" in README and "Failed to connect" in README


@pytest.mark.anyio
async def test_connected_but_every_call_fails_quotes_the_real_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")  # where clients often start servers; no ledger there or above
    async with Client(create_server(None), mode="legacy") as client:
        result = await client.call_tool("get_context", {})
    assert result.is_error is True
    first_sentence = result.content[0].text.split(". ")[0] + "."  # type: ignore[union-attr]
    assert first_sentence == "No .ledger directory found in / or any directory above it."
    assert f"`{first_sentence}`" in README.replace("\n  ", " ")


@pytest.mark.anyio
async def test_the_uvx_snippet_works_with_both_paths_changed() -> None:
    config = _snippet("**Any client, no install: `uvx`**")["mcpServers"]["ledger-context"]  # type: ignore[index]
    replace = {"/path/to/ledger-context": str(REPO), "/path/to/your/repo": str(FIXTURES / "demo")}
    args = [replace.get(arg, arg) for arg in config["args"]]
    command = shutil.which(config["command"], path=str(Path(sys.executable).parent))
    assert command is not None, "uv (uvx) is in the test extras"
    # The whole environment, not the SDK's short default list: uv needs e.g. SSL_CERT_FILE
    # where TLS goes through a local certificate authority.
    server = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    async with Client(server, mode="legacy", read_timeout_seconds=300) as client:
        result = await client.call_tool("get_context", {})
    assert result.content[0].text == build_context(FIXTURES / "demo").pack  # type: ignore[union-attr]


def _listed_modules(cell: str) -> set[str]:
    """The module names a layout row lists: each comma- or semicolon-separated item's
    first backticked word, outside parentheses (which say what a module holds)."""
    depth, top = 0, []
    for char in cell:  # one pass: parentheses may nest
        depth += char == "("
        if depth == 0:
            top.append(char)
        depth -= char == ")" and depth > 0
    items = re.split(r"[,;]", "".join(top))
    return {m.group(1) for item in items if (m := re.search(r"`([a-z_]+)(?:/`| with|`)", item))}


def test_the_readme_layout_lists_every_module_of_each_wing_and_no_other() -> None:
    package = REPO / "server" / "ledger_context"
    rows = dict(re.findall(r"^\| `([a-z]+)/` \| [^|]+ \| ([^|]+) \|$", README, re.MULTILINE))
    wings = sorted(p.name for p in package.iterdir() if (p / "__init__.py").is_file())
    assert sorted(rows) == wings
    for wing, cell in rows.items():
        modules = {p.stem for p in (package / wing).glob("*.py") if p.stem != "__init__"}
        assert _listed_modules(cell) == modules, wing
    assert _listed_modules("`a` (`b`, `c`), `d` with `e`; team: `f`") == {"a", "d", "f"}

"""End to end over real stdio: the server as a subprocess, driven by the SDK client.

Both protocol generations: ``legacy`` (the initialize handshake, as the Inspector and
Claude Desktop speak it) and ``auto`` (the SDK client's default, the stateless protocol).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import ListRootsResult, Root
from pydantic import TypeAdapter

from conftest import FIXTURES, write_ledger
from ledger_context import build_context
from ledger_context.brief import Brief
from ledger_context.explain import Explanation

pytestmark = pytest.mark.anyio
DEMO = FIXTURES / "demo"
MODES = ["legacy", "auto"]


def server(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_context", "serve", *args], cwd=cwd, env=env
    )


def text_of(result: Any) -> str:
    assert len(result.content) == 1
    text: str = result.content[0].text
    return text


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_get_context_equals_the_cli_pack_byte_for_byte(mode: str) -> None:
    pack = build_context(DEMO).pack
    async with Client(server("--space", str(DEMO)), mode=mode) as client:  # type: ignore[arg-type]
        assert client.server_info.name == "ledger-context"
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"get_context", "explain_budget", "read_document"}
        get_context = tools["get_context"]
        assert get_context.output_schema is None
        assert get_context.annotations is not None
        assert get_context.annotations.read_only_hint and get_context.annotations.idempotent_hint
        assert get_context.annotations.open_world_hint is False
        assert get_context.input_schema["properties"]["detail"]["enum"] == ["brief", "full"]
        for detail in ("brief", "full"):
            result = await client.call_tool("get_context", {"detail": detail})
            assert result.is_error is False
            assert result.structured_content is None
            assert text_of(result).encode("utf-8") == pack.encode("utf-8")
            receipt = (result.meta or {})["ledger-context/receipt"]
            assert receipt["sha256"] == hashlib.sha256(pack.encode()).hexdigest()
            assert receipt["bytes"] == len(pack.encode()) and receipt["tokens"] == -(-receipt["bytes"] // 4)
    cli = await anyio.run_process([sys.executable, "-m", "ledger_context", "pack", "--space", str(DEMO)])
    assert cli.stdout == pack.encode("utf-8")


async def test_explain_budget_is_structured_and_matches_the_receipt(mode: str) -> None:
    async with Client(server("--space", str(FIXTURES / "overflow")), mode=mode) as client:  # type: ignore[arg-type]
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        schema = tools["explain_budget"].output_schema
        assert schema is not None
        receipt = (await client.call_tool("get_context", {})).meta["ledger-context/receipt"]  # type: ignore[index]
        for detail in ("brief", "full"):
            result = await client.call_tool("explain_budget", {"detail": detail})
            assert result.is_error is False
            jsonschema.validate(result.structured_content, schema)
            model: TypeAdapter[Explanation | Brief] = TypeAdapter(Explanation if detail == "full" else Brief)
            explanation = model.validate_python(result.structured_content)
            assert explanation.pack.sha256 == receipt["sha256"]
            assert explanation.pack.dropped_blocks == receipt["dropped_blocks"] > 0
            assert not text_of(result).lstrip().startswith("{")  # a table, not a JSON dump
            assert ("Blocks" if detail == "full" else "Not kept") in text_of(result)


async def test_bad_detail_is_a_tool_error_naming_the_allowed_values(mode: str) -> None:
    async with Client(server("--space", str(DEMO)), mode=mode) as client:  # type: ignore[arg-type]
        for tool in ("get_context", "explain_budget"):
            for bad in ("huge", 3, None, ["brief"]):
                result = await client.call_tool(tool, {"detail": bad})
                assert result.is_error is True
                assert "'brief'" in text_of(result) and "'full'" in text_of(result)
        # Unknown extra arguments are ignored; the pack is still the pack.
        result = await client.call_tool("get_context", {"detail": "brief", "extra": 1})
        assert text_of(result) == build_context(DEMO).pack


async def test_no_space_is_a_tool_error_and_the_server_still_answers(tmp_path: Path, mode: str) -> None:
    env = {"PATH": os.environ.get("PATH", "")}
    async with Client(server(cwd=tmp_path, env=env), mode=mode) as client:  # type: ignore[arg-type]
        assert len((await client.list_tools()).tools) == 3
        result = await client.call_tool("get_context", {})
        assert result.is_error is True
        assert str(tmp_path) in text_of(result) and "--space" in text_of(result)


async def test_resources_pack_and_documents(mode: str) -> None:
    async with Client(server("--space", str(DEMO), "--max-data-class", "internal"), mode=mode) as client:  # type: ignore[arg-type]
        listed = [str(r.uri) for r in (await client.list_resources()).resources]
        assert "ui://ledger-context/explain-budget.html" in listed  # the MCP Apps view
        listed = [uri for uri in listed if not uri.startswith("ui://")]
        assert listed[0] == "ledger://pack"
        assert "ledger://document/.ledger/agents.md" in listed
        assert len(listed) == 1 + len(build_context(DEMO, max_data_class="internal").sources())
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        assert templates == ["ledger://document/{+path}"]

        pack = await client.read_resource("ledger://pack")
        assert pack.contents[0].text == build_context(DEMO, max_data_class="internal").pack  # type: ignore[union-attr]
        path = ".ledger/decisions/0007-use-jwt.md"
        document = await client.read_resource(f"ledger://document/{path}")
        assert document.contents[0].text == (DEMO / path).read_text(encoding="utf-8")  # type: ignore[union-attr]

        bad = [
            "ledger://document/.ledger/decisions/nope.md",
            "ledger://document/.ledger/../../etc/passwd",
            "ledger://document/%2Fetc%2Fpasswd",
            "ledger://document/.ledger/decisions/0004-redact-pii-before-model.md",  # restricted: withheld
            "ledger://nothing",
        ]
        for uri in bad:
            with pytest.raises(MCPError):
                await client.read_resource(uri)
        assert (await client.call_tool("get_context", {})).is_error is False


async def test_start_task_prompt_hands_over_the_pack(mode: str) -> None:
    async with Client(server("--space", str(DEMO)), mode=mode) as client:  # type: ignore[arg-type]
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        assert prompts == ["start-task"]
        result = await client.get_prompt("start-task", {"task": "Add a retry eval"})
        text = result.messages[0].content.text  # type: ignore[union-attr]
        assert text.startswith("Task: Add a retry eval\n")
        assert build_context(DEMO).pack in text


async def test_space_comes_from_the_first_client_root_holding_a_ledger(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    space = write_ledger(tmp_path / "project", {"agents.md": "from the root\n"})

    async def roots(_: Any) -> ListRootsResult:
        return ListRootsResult(
            roots=[Root(uri=empty.as_uri(), name="empty"), Root(uri=space.as_uri(), name="project")]  # type: ignore[arg-type]
        )

    env = {"PATH": os.environ.get("PATH", "")}
    async with Client(server(cwd=Path("/"), env=env), mode="legacy", list_roots_callback=roots) as client:
        result = await client.call_tool("get_context", {})
        assert text_of(result) == "from the root\n"
        explanation = (await client.call_tool("explain_budget", {})).structured_content
        assert explanation is not None and explanation["space"] == str(space)


async def test_fifty_concurrent_calls_give_fifty_identical_packs() -> None:
    async with Client(server("--space", str(DEMO)), mode="legacy") as client:
        packs: list[str] = []

        async def call() -> None:
            packs.append(text_of(await client.call_tool("get_context", {})))

        async with anyio.create_task_group() as group:
            for _ in range(50):
                group.start_soon(call)
    assert len(packs) == 50
    assert set(packs) == {build_context(DEMO).pack}


async def test_one_server_process_sees_edits_additions_and_deletions(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "space",
        {"agents.md": "v1\n", "experiments/a.md": "---\nupdated_at: 2026-01-01\n---\n"},
    )
    async with Client(server("--space", str(space)), mode="legacy") as client:

        async def pack() -> str:
            return text_of(await client.call_tool("get_context", {}))

        assert await pack() == build_context(space).pack
        (space / ".ledger/agents.md").write_text("v2\n", encoding="utf-8")
        assert (await pack()).startswith("v2\n")
        (space / ".ledger/experiments/b.md").write_text(
            "---\nupdated_at: 2026-02-01\n---\n", encoding="utf-8"
        )
        assert await pack() == build_context(space).pack
        assert "2026-02-01" in await pack()
        (space / ".ledger/experiments/a.md").unlink()
        assert await pack() == build_context(space).pack
        assert "2026-01-01" not in await pack()


async def test_lone_surrogate_escapes_under_the_pure_python_loader_leave_the_server_answering(
    tmp_path: Path,
) -> None:
    # Origin: issue 11, explain_budget(full) ended the server under BaseLoader.
    space = write_ledger(
        tmp_path,
        {
            "experiments/e.md": '---\nstatus: "run\\ud800"\nupdated_at: 2026-01-01\n---\n',
            "harnesses/h.md": '---\nstatus: active\ntitle: "a\\udfffb"\n---\n',
        },
    )
    env = {**os.environ, "LEDGER_CONTEXT_YAML": "python"}
    async with Client(server("--space", str(space), env=env), mode="legacy") as client:
        for detail in ("brief", "full"):
            result = await client.call_tool("explain_budget", {"detail": detail})
            assert result.is_error is False
            data = result.structured_content
            counts = (
                TypeAdapter(Explanation).validate_python(data).problem_counts
                if detail == "full"
                else data["problems"]["counts"]
            )  # type: ignore[index]
            assert counts == {"error": 2, "warning": 0, "info": 0}
        assert text_of(await client.call_tool("get_context", {})) == ""


# Regression: a bug found by trying to break the product.
@pytest.mark.anyio
async def test_the_server_keeps_answering_when_the_space_path_is_not_utf8(tmp_path: Path) -> None:
    missing = os.fsdecode(os.fsencode(tmp_path) + b"/gone\xe9")
    write_ledger(Path(missing), {"agents.md": "hi\n"})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_context", "serve", "--space", missing]
    )
    async with Client(params, mode="legacy") as client:
        shutil.rmtree(missing)  # gone after the start: every call says so, cleanly
        result = await client.call_tool("get_context", {})
        assert result.is_error and "gone\\xe9" in result.content[0].text  # type: ignore[union-attr]
        assert (await client.call_tool("explain_budget", {})).is_error
        assert len((await client.list_tools()).tools) == 3  # still answering

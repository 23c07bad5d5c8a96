"""How a request reaches a build (mcp/access.py): the space the client's roots choose (a
2025-11-25 client only), and each search hit recorded with the digest of its bytes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import ListRootsResult, Root

from conftest import doc, server, text_of, write_ledger
from ledger_context.mcp.access import searched
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.settings import make_settings
from ledger_context.search.result import search

pytestmark = pytest.mark.anyio


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


async def test_a_2026_client_is_never_asked_for_roots(tmp_path: Path) -> None:
    # Roots are deprecated in 2026-07-28: --space, LEDGER_SPACE or the working directory choose.
    space = write_ledger(tmp_path / "project", {"agents.md": "from the root\n"})
    asked: list[str] = []

    async def roots(_: Any) -> ListRootsResult:
        asked.append("roots")
        return ListRootsResult(roots=[Root(uri=space.as_uri(), name="project")])  # type: ignore[arg-type]

    env = {"PATH": os.environ.get("PATH", "")}
    async with Client(server(cwd=tmp_path, env=env), mode="auto", list_roots_callback=roots) as client:
        result = await client.call_tool("get_context", {})
    assert result.is_error is True and str(tmp_path) in text_of(result)  # no ledger at the cwd
    assert asked == []


def test_a_search_is_recorded_as_each_hits_path_and_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path,
        {
            "decisions/0001-use-jwt.md": doc(status="accepted", title="Use JWT for sessions"),
            "findings/jwt-expiry.md": doc(status="open", title="JWT expiry is too short"),
            "findings/other.md": doc(status="open", title="Unrelated"),
        },
    )
    build = ContextBuilder(space, make_settings(), cache=False).build()
    recorded = searched(build, search(build, "jwt"))
    assert sorted(entry["path"] for entry in recorded) == [
        ".ledger/decisions/0001-use-jwt.md",
        ".ledger/findings/jwt-expiry.md",
    ]
    for entry in recorded:
        assert entry["sha256"] == hashlib.sha256((space / entry["path"]).read_bytes()).hexdigest()


async def test_roots_the_client_cannot_give_fall_back_to_the_working_directory(tmp_path: Path) -> None:
    # Found by trying to break the product: an error answer to roots/list came back as the
    # tool call's own error, and a root that is no file URL failed every call with a bare
    # "Error executing tool" (and no audit row). The README's order goes on to the upward search.
    from mcp_types import ErrorData

    space = write_ledger(tmp_path / "cwd", {"agents.md": "from the working directory\n"})
    other = write_ledger(tmp_path / "other", {"agents.md": "from a later root\n"})

    async def refuses(_: Any) -> ErrorData:
        return ErrorData(code=-32601, message="Method not found")

    async def not_file_urls(_: Any) -> ListRootsResult:
        bad = Root.model_construct(uri="http://example.com/repo", name="web")
        return ListRootsResult.model_construct(roots=[bad, Root(uri=other.as_uri(), name="ok")])  # type: ignore[arg-type]

    env = {"PATH": os.environ.get("PATH", "")}
    for callback in (refuses, not_file_urls):
        async with Client(server(cwd=space, env=env), mode="legacy", list_roots_callback=callback) as client:
            result = await client.call_tool("get_context", {})
        assert (result.is_error, text_of(result)) == (False, "from the working directory\n"), callback


@pytest.mark.slow
async def test_a_client_that_never_answers_roots_gets_its_answer_after_the_wait(tmp_path: Path) -> None:
    import time

    import anyio

    from ledger_context.mcp.access import ROOTS_SECONDS

    space = write_ledger(tmp_path / "cwd", {"agents.md": "from the working directory\n"})

    async def silent(_: Any) -> ListRootsResult:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    env = {"PATH": os.environ.get("PATH", "")}
    async with Client(server(cwd=space, env=env), mode="legacy", list_roots_callback=silent) as client:
        started = time.monotonic()
        first = await client.call_tool("get_context", {})
        waited = time.monotonic() - started
        started = time.monotonic()
        second = await client.call_tool("get_context", {})
        again = time.monotonic() - started
    assert text_of(first) == text_of(second) == "from the working directory\n"
    assert ROOTS_SECONDS - 0.5 <= waited < ROOTS_SECONDS + 5 and again < ROOTS_SECONDS - 1  # asked once

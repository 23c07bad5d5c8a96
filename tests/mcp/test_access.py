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

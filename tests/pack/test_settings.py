"""The arguments of a build, validated once (settings.py): the cap, the data-class ceiling
and ``detail``; a bad one is refused with the allowed values, by the CLI and the server."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from mcp import Client

from conftest import FIXTURES, TIMEOUT, server, text_of
from ledger_context import build_context
from ledger_context.model.errors import InvalidArgumentError
from ledger_context.pack.settings import DETAILS, Settings, check_detail, make_settings

DEMO = FIXTURES / "demo"


def test_settings_hold_a_checked_cap_and_the_canonical_ceiling() -> None:
    assert make_settings() == Settings(cap_tokens=6000, ceiling=None)
    assert make_settings(100, " Internal ") == Settings(cap_tokens=100, ceiling="internal")
    with pytest.raises(InvalidArgumentError, match="the cap is a whole number of tokens from 1 to"):
        make_settings(0)
    with pytest.raises(InvalidArgumentError, match="invalid cap True"):
        make_settings(True)
    with pytest.raises(InvalidArgumentError, match="public, internal, confidential, restricted"):
        make_settings(100, "secret")


def test_detail_is_brief_or_full_and_a_bad_one_is_named_but_cut() -> None:
    assert DETAILS == ("brief", "full")
    assert [check_detail(d) for d in DETAILS] == ["brief", "full"]
    with pytest.raises(InvalidArgumentError) as bad:
        check_detail(["brief"])
    assert str(bad.value) == "invalid detail ['brief']: allowed values are 'brief' and 'full'"
    with pytest.raises(InvalidArgumentError) as long:
        check_detail("x" * 100_000)
    assert str(long.value) == "invalid detail '" + "x" * 36 + "...: allowed values are 'brief' and 'full'"


@pytest.mark.anyio
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


def test_invalid_ceiling_is_a_startup_error_naming_the_allowed_values() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ledger_context",
            "serve",
            "--space",
            str(FIXTURES / "demo"),
            "--max-data-class",
            "x",
        ],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"public, internal, confidential, restricted" in result.stderr


def test_a_path_of_millions_of_dot_slashes_is_refused_quickly() -> None:
    # Cut one "./" at a time, 8 million of them (a 16 MiB line) took minutes, in the event loop.
    # A path over 4,096 characters is now refused before any work (a tester grew the audit
    # log with 200 KB paths); within it, the leading "./" still go in one slice.
    from ledger_context.model.errors import InvalidArgumentError
    from ledger_context.pack.settings import MAX_PATH_CHARS, canonical_path

    path = ".ledger/decisions/0001-a.md"
    started = time.perf_counter()
    with pytest.raises(
        InvalidArgumentError,
        match=f"path is {8_000_000 + len(path)} characters long; a ledger path is at most 4096",
    ):
        canonical_path("./" * 4_000_000 + path)
    assert time.perf_counter() - started < 5
    fitting = "./" * ((MAX_PATH_CHARS - len(path)) // 2)
    assert canonical_path(fitting + path) == path

"""Round trips to the real MCP server: ``python -m ledger_context serve`` over stdio.

Driven by the MCP SDK client (``mcp.Client``, ``mode="legacy"``): after
:data:`MCP_WARMUP_CALLS` untimed calls (the first one is the server's cold build), a
number of timed calls of each tool. The server keeps its cache between calls, as in real
use, so a timed call is a warm call.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ledgers import Space, wait_until_ready
from machine import child_env, log

MCP_WARMUP_CALLS = 3
TOOLS = ("get_context", "explain_budget")


@dataclass
class McpResult:
    experiments: int
    calls: int
    times: dict[str, list[float]] = field(default_factory=dict)


async def _mcp_round_trips(
    space: Path, calls: int, expected_pack: str, tools: tuple[str, ...]
) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ledger_context", "serve", "--space", str(space)],
        env=child_env(),
    )
    times: dict[str, list[float]] = {}
    with open(os.devnull, "w") as server_log:
        # stdio_client(...) is what Client(params) builds; it is spelt out to silence the server's log.
        async with Client(stdio_client(params, errlog=server_log), mode="legacy", cache=None) as client:
            for tool in tools:
                for _ in range(MCP_WARMUP_CALLS):
                    result = await client.call_tool(tool, {})
                    if result.is_error:
                        raise RuntimeError(f"{tool} failed: {result.content}")
                if tool == "get_context" and getattr(result.content[0], "text", None) != expected_pack:
                    raise RuntimeError("get_context returned another pack than the in-process build")
                samples = []
                for _ in range(calls):
                    started = time.perf_counter()
                    await client.call_tool(tool, {})
                    samples.append(time.perf_counter() - started)
                times[tool] = samples
    return times


def round_trips(
    space: Path, calls: int, expected_pack: str, tools: tuple[str, ...] = TOOLS
) -> dict[str, list[float]]:
    """Times of ``calls`` warm calls of each tool on one server of ``space``, in seconds."""
    return asyncio.run(_mcp_round_trips(space, calls, expected_pack, tools))


def bench_mcp(space: Space, calls: int) -> McpResult:
    from ledger_context.pack.build import ContextBuilder

    wait_until_ready(space)
    expected = ContextBuilder(space.path).build().pack
    log(f"  MCP round trips over stdio: {calls} calls per tool on {space.experiments:,} experiments")
    return McpResult(space.experiments, calls, round_trips(space.path, calls, expected))

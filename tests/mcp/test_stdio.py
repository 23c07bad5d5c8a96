"""End to end over real stdio: the server as a subprocess, driven by the SDK client. The
channel's own rules (every line answered, clean exits) are in test_stdio_channel.py; each
tool, resource and error over stdio is in the test file of its module."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time

import anyio
import pytest
from mcp import Client

from conftest import FIXTURES, MODERN_META, server, text_of
from ledger_context import build_context

pytestmark = pytest.mark.anyio
DEMO = FIXTURES / "demo"


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


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_client_that_never_reads_stops_the_reading_and_memory_stays_bounded() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ledger_context", "serve", "--space", str(FIXTURES / "demo"), "--no-audit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    call = {"name": "get_context", "arguments": {}, "_meta": MODERN_META}
    sent = [0]

    def send() -> None:  # requests without end, answers never read
        assert proc.stdin is not None
        with contextlib.suppress(OSError, ValueError):
            for n in range(10**7):
                message = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call}
                proc.stdin.write(json.dumps(message).encode() + b"\n")
                proc.stdin.flush()
                sent[0] = n + 1

    threading.Thread(target=send, daemon=True).start()
    try:
        time.sleep(3)
        early = (sent[0], _rss_mib(proc.pid))
        time.sleep(5)
        late = (sent[0], _rss_mib(proc.pid))
        assert late[0] == early[0], f"the server went on reading: {early[0]} then {late[0]} requests"
        assert late[1] - early[1] < 10
        for _ in range(early[0]):  # reading again, every request is answered
            assert proc.stdout.readline().startswith(b'{"jsonrpc":"2.0","id":')
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        with contextlib.suppress(OSError):
            proc.stdin.close()

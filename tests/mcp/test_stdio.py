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
from ledger_context.mcp.stdio import MAX_IN_FLIGHT, OUTPUT_BYTES

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


def _wait_until_steady(sent: list[int], steady: float = 2.0, limit: float = 60.0) -> None:
    """Wait until the count in ``sent`` has not moved for ``steady`` seconds (at most ``limit``)."""
    deadline = time.monotonic() + limit
    last, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        if sent[0] != last:
            last, since = sent[0], time.monotonic()
        elif last > 0 and time.monotonic() - since >= steady:
            return
        time.sleep(0.1)


def _wait_until_rss_steady(pid: int, steady: float = 2.0, limit: float = 30.0) -> None:
    """Wait until the resident size of ``pid`` has kept within 1 MiB for ``steady`` seconds."""
    deadline = time.monotonic() + limit
    last, since = _rss_mib(pid), time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - since < steady:
        time.sleep(0.25)
        now = _rss_mib(pid)
        if abs(now - last) >= 1:
            last, since = now, time.monotonic()


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

    # What may be taken at most: the answers that fit the output bound (each answer holds
    # the pack), the requests in flight, and what the two pipes hold (64 KiB each on Linux).
    request = len(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": call})) + 1
    answer = len(build_context(FIXTURES / "demo").pack.encode())
    bound = OUTPUT_BYTES // answer + MAX_IN_FLIGHT + 2 * 65536 // request + 2 * 65536 // answer
    threading.Thread(target=send, daemon=True).start()
    try:
        _wait_until_steady(sent)  # a loaded machine starts the server late
        _wait_until_rss_steady(proc.pid)  # one-time loads (the tokenizers, after the first build) done
        early = (sent[0], _rss_mib(proc.pid))
        time.sleep(5)
        late = (sent[0], _rss_mib(proc.pid))
        # A server starved of CPU may pause and go on: bounded, whatever the machine's load
        # (an exact stop was asserted before, and failed on loaded machines).
        assert late[0] <= bound, f"the server went on reading: {late[0]} requests, more than {bound}"
        assert late[1] - early[1] < 10
        for _ in range(late[0]):  # reading again, every request sent is answered
            assert proc.stdout.readline().startswith(b'{"jsonrpc":"2.0","id":')
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        with contextlib.suppress(OSError):
            proc.stdin.close()


def test_a_reader_taking_4_kib_every_half_second_shows_as_progress_at_each_read() -> None:
    # When serving stops, answers are written while the client makes progress (STALL_SECONDS);
    # progress must be seen at the pace of a slow reader, not after a larger write completes.
    import asyncio
    import os

    from ledger_context.mcp.stdio import STALL_SECONDS, _Output

    read_end, write_end = os.pipe()
    loop = asyncio.new_event_loop()
    try:
        output = _Output(write_end, loop, lambda: None)
        loop.run_until_complete(output.put(b"x" * (512 << 10)))
        time.sleep(0.5)  # the pipe is full: the writer waits for the reader
        advanced = []
        for _ in range(8):
            before = output.progress_at
            os.read(read_end, 4096)
            time.sleep(0.5)
            advanced.append(output.progress_at > before)
        assert advanced.count(True) >= 7, advanced
        assert STALL_SECONDS >= 4 * 0.5  # so such a reader is never taken for gone
    finally:
        os.close(read_end)  # the writer meets EPIPE and stops
        time.sleep(0.1)
        os.close(write_end)
        loop.close()


def test_past_the_write_cap_the_answer_being_written_is_finished_and_no_other_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio
    import fcntl
    import os

    from ledger_context.mcp import stdio

    monkeypatch.setattr(stdio, "WRITE_CAP_SECONDS", 1.0)
    read_end, write_end = os.pipe()
    loop = asyncio.new_event_loop()
    taken = bytearray()
    reading = threading.Event()
    reading.set()

    def reader() -> None:  # about 160 KB/s: the first answer takes some 2.5 s
        while reading.is_set():
            taken.extend(os.read(read_end, 16 << 10))
            time.sleep(0.1)

    first, second = b"a" * (400 << 10) + b"\n", b"b" * (400 << 10) + b"\n"
    try:
        output = stdio._Output(write_end, loop, lambda: None)
        loop.run_until_complete(output.put(first))
        loop.run_until_complete(output.put(second))
        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        output.drain(0.0)
        reading.clear()
        thread.join()
        time.sleep(0.3)  # a writer that went on would fill the pipe meanwhile
        fcntl.fcntl(read_end, fcntl.F_SETFL, os.O_NONBLOCK)
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(read_end, 1 << 16):
                taken.extend(chunk)
        assert bytes(taken) == first  # whole, and nothing of the second
    finally:
        os.close(read_end)
        time.sleep(0.1)
        os.close(write_end)
        loop.close()


def test_a_reader_slower_than_a_pipe_page_per_stall_still_counts_as_reading() -> None:
    # Found by trying to break the product: a pipe frees room for a write a page (4 KiB) at
    # a time, so a client taking 512 bytes every 0.3 s looked gone after 2 s of a stop.
    import asyncio
    import os

    from ledger_context.mcp import stdio

    read_end, write_end = os.pipe()
    loop = asyncio.new_event_loop()

    def reader() -> None:  # about 1.7 KiB/s for 5 s, then nothing
        started = time.monotonic()
        while time.monotonic() - started < 5.0:
            os.read(read_end, 512)
            time.sleep(0.3)

    try:
        output = stdio._Output(write_end, loop, lambda: None)
        loop.run_until_complete(output.put(b"x" * (256 << 10)))
        time.sleep(0.3)  # the pipe is full
        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        started = time.monotonic()
        output.drain(0.0)
        waited = time.monotonic() - started
        thread.join()
        assert 5.0 + stdio.STALL_SECONDS - 0.5 <= waited < 5.0 + stdio.STALL_SECONDS + 2.0, waited
    finally:
        os.close(read_end)
        time.sleep(0.1)
        os.close(write_end)
        loop.close()

#!/usr/bin/env python3
"""A bounded load test of team mode on loopback: ``serve --http`` with authorization, and
``--clients`` SDK clients (each its own identity and token) making ``--calls`` calls each.

Prints every request's fate (answered, or the error), the latency p50/p95/max of the
calls, the calls per second, and the server's resident memory after the warm-up and at
each tenth of the run, with the ratio last/first (flat: close to 1). It asserts no times;
it exits 1 only when a request went unanswered or a pack differed from the CLI's.

Usage::

    python bench/http_load.py                    # 20 clients x 500 calls on the demo ledger
    python bench/http_load.py --clients 2 --calls 20
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from conftest import Issuer, bearer_client  # noqa: E402  (the tests' real key, JWKS and client)

RESOURCE = "https://ledger.example.test/mcp"
SCOPES = ("ledger:internal", "ledger:restricted", "")  # three ceilings in turn


@dataclass
class Load:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    memory_kb: list[int] = field(default_factory=list)
    answered: int = 0
    differing: int = 0


def rss_kb(pid: int) -> int:
    """The resident set size of process ``pid`` in KiB (Linux)."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) if found else 0


def start(space: Path, issuer: Issuer) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [
            sys.executable, "-m", "ledger_context", "serve", "--http", "127.0.0.1:0", "--space", str(space),
            "--no-audit", "--public-url", RESOURCE, "--auth-issuer", Issuer.URL,
            "--auth-jwks", str(issuer.jwks_path), "--rate-limit", "1000000", "--burst", "100000",
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )  # fmt: skip
    assert process.stderr is not None
    for line in process.stderr:
        listening = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if listening:
            threading.Thread(target=process.stderr.read, daemon=True).start()  # keep it drained
            return process, f"http://127.0.0.1:{listening.group(1)}/mcp"
    raise SystemExit("the server did not start")


def expected_packs(space: Path) -> dict[str, str]:
    def pack(*args: str) -> str:
        command = [sys.executable, "-m", "ledger_context", "pack", "--space", str(space), *args]
        return subprocess.run(command, capture_output=True, check=True).stdout.decode("utf-8")

    return {"ledger:internal": pack("--max-data-class", "internal"), "ledger:restricted": pack(), "": pack()}


async def client(url: str, token: str, expected: str, calls: int, load: Load, tick: asyncio.Event) -> None:
    async with bearer_client(url, token, "auto") as session:
        for _ in range(calls):
            began = time.perf_counter()
            try:
                result = await session.call_tool("get_context", {})
            except Exception as exc:  # counted and shown: a request not answered
                load.errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")
                continue
            load.latencies.append(time.perf_counter() - began)
            load.answered += 1
            load.differing += result.content[0].text != expected  # type: ignore[union-attr]
            tick.set()


async def run(clients: int, calls: int, space: Path) -> Load:
    # The issuer's signing key lives only as long as the run: nothing left in /tmp.
    with tempfile.TemporaryDirectory(prefix="ledger-http-load-") as keys:
        return await _run(clients, calls, space, Issuer(Path(keys)))


async def _run(clients: int, calls: int, space: Path, issuer: Issuer) -> Load:
    expected = expected_packs(space)
    process, url = start(space, issuer)
    load = Load()
    try:
        tokens = [
            (issuer.token(RESOURCE, SCOPES[i % 3], lifetime=3600, sub=f"user{i}"), SCOPES[i % 3])
            for i in range(clients)
        ]
        warm = Load()
        await asyncio.gather(*(client(url, t, expected[s], 3, warm, asyncio.Event()) for t, s in tokens[:3]))
        load.memory_kb.append(rss_kb(process.pid))
        tick = asyncio.Event()
        total = clients * calls
        watcher = asyncio.create_task(_sample(process.pid, load, total, tick))
        began = time.perf_counter()
        await asyncio.gather(*(client(url, t, expected[s], calls, load, tick) for t, s in tokens))
        elapsed = time.perf_counter() - began
        watcher.cancel()
        load.memory_kb.append(rss_kb(process.pid))
        print(
            f"{load.answered} of {total} calls answered in {elapsed:.1f} s ({load.answered / elapsed:.0f}/s)"
        )
    finally:
        process.terminate()
        process.wait(30)
    return load


async def _sample(pid: int, load: Load, total: int, tick: asyncio.Event) -> None:
    step = max(total // 10, 1)
    while True:
        await tick.wait()
        tick.clear()
        if load.answered + len(load.errors) >= step * len(load.memory_kb):
            load.memory_kb.append(rss_kb(pid))


def report(load: Load, clients: int, calls: int) -> int:
    times = sorted(load.latencies) or [0.0]
    p50 = statistics.median(times) * 1000
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))] * 1000
    print(f"{clients} clients x {calls} calls of get_context, each client its own token (3 ceilings)")
    print(f"latency p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {times[-1] * 1000:.1f} ms")
    memory = load.memory_kb
    print(
        "server memory (MiB): "
        + ", ".join(f"{kb / 1024:.1f}" for kb in memory)
        + f"; last/first {memory[-1] / memory[0]:.2f}"
    )
    print(f"unanswered: {len(load.errors)}; packs differing from the CLI's: {load.differing}")
    for error in sorted(set(load.errors))[:10]:
        print(f"  {error}")
    return 0 if not load.errors and not load.differing else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--space", type=Path, default=REPO / "ledger_fixtures" / "demo")
    args = parser.parse_args()
    load = asyncio.run(run(args.clients, args.calls, args.space))
    return report(load, args.clients, args.calls)


if __name__ == "__main__":
    sys.exit(main())

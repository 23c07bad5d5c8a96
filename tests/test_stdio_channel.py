"""The stdio channel: only JSON-RPC on stdout, and the server keeps answering after errors.

Drives a real ``ledger-context serve`` subprocess with raw JSON-RPC lines, as a client
that sends odd requests would.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from conftest import FIXTURES, doc, write_ledger
from ledger_context import build_context

TIMEOUT = 30.0


class RawServer:
    """A server subprocess; every stdout line is parsed as JSON or the test fails."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ledger_context", "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stdout: list[bytes] = []
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()
        self.next_id = 0

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.stdout.append(line)
            self.lines.put(line)

    def send(self, message: dict[str, Any] | str) -> None:
        assert self.process.stdin is not None
        text = message if isinstance(message, str) else json.dumps(message)
        self.process.stdin.write(text.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait_for(self.next_id)

    def wait_for(self, request_id: int) -> dict[str, Any]:
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            message = json.loads(line)  # anything but JSON fails here
            assert message["jsonrpc"] == "2.0"
            if message.get("id") == request_id:
                return dict(message)

    def initialize(self) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result

    def close(self) -> tuple[int, bytes]:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=TIMEOUT)
        self.pump.join(timeout=TIMEOUT)
        assert self.process.stderr is not None and self.process.stdout is not None
        err = self.process.stderr.read()
        self.process.stderr.close()
        self.process.stdout.close()
        for line in self.stdout:
            assert json.loads(line)["jsonrpc"] == "2.0"
        return code, err


def _call(server: RawServer, arguments: Any, name: str = "get_context") -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not ...:
        params["arguments"] = arguments
    return server.request("tools/call", params)


def test_only_json_rpc_reaches_stdout_and_errors_never_stop_the_server(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "space",
        {
            "agents.md": "---\ndata_class: [\n---\nagents\n",
            "findings/bad.md": b"\xff\xfe broken",
            "findings/ok.md": doc(status="current", updated_at="2026-01-01"),
            "decisions/list.md": "---\n- a\n---\n",
        },
    )
    expected = build_context(space).pack
    server = RawServer("--space", str(space))
    init = server.initialize()
    assert init["result"]["serverInfo"]["name"] == "ledger-context"
    assert "get_context" in init["result"]["instructions"]
    assert len(server.request("tools/list")["result"]["tools"]) == 3
    calls: list[tuple[Any, str, bool]] = [
        ({}, "get_context", False),
        ({"detail": "full"}, "get_context", False),
        ({"detail": "huge"}, "get_context", True),
        ({"detail": 7}, "get_context", True),
        ('{"detail": "brief"}', "get_context", True),  # arguments sent as a JSON string
        (..., "get_context", False),  # no arguments object at all
        ({"detail": "brief", "unexpected": True}, "get_context", False),
        ({}, "explain_budget", False),
        ({"detail": []}, "explain_budget", True),
        ({}, "no_such_tool", True),
    ]
    for arguments, name, is_error in calls * 3:
        response = _call(server, arguments, name)
        if "error" in response:  # a protocol error is acceptable for a malformed request
            assert is_error
            continue
        result = response["result"]
        assert result.get("isError", False) is is_error, (arguments, name, result)
        if name == "get_context" and not is_error:
            assert result["content"][0]["text"] == expected
    server.send("this is not JSON")
    assert _call(server, {})["result"]["content"][0]["text"] == expected
    code, err = server.close()
    assert code == 0
    assert all(len(line) < 2000 for line in err.decode("utf-8", "replace").splitlines())


def test_logging_never_raises_on_a_console_that_cannot_encode_a_path(tmp_path: Path) -> None:
    space = write_ledger(tmp_path / "espace-é€🙂", {"agents.md": "hi\n"})
    env = dict(os.environ, PYTHONIOENCODING="cp1252")
    server = RawServer("--space", str(space), env=env)
    server.initialize()
    response = _call(server, {})
    assert response["result"]["content"][0]["text"] == "hi\n"
    code, err = server.close()
    assert code == 0
    assert b"Traceback" not in err and b"UnicodeEncodeError" not in err
    assert b"using the space" in err


def test_server_starts_and_lists_tools_without_any_ledger(tmp_path: Path) -> None:
    server = RawServer(env={"PATH": os.environ.get("PATH", "")}, cwd=tmp_path)
    server.initialize()
    assert len(server.request("tools/list")["result"]["tools"]) == 3
    result = _call(server, {})["result"]
    assert result["isError"] is True
    assert str(tmp_path) in result["content"][0]["text"]
    assert server.close()[0] == 0


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

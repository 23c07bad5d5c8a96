"""The stdio channel: only JSON-RPC on stdout, and the server keeps answering after errors.

Drives a real ``ledger-context serve`` subprocess with raw JSON-RPC lines, as a client
that sends odd requests would.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, TIMEOUT, RawServer, doc, modern_request, write_ledger
from ledger_context import build_context


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
    assert "get_context" in {t["name"] for t in server.request("tools/list")["result"]["tools"]}
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
    assert "get_context" in {t["name"] for t in server.request("tools/list")["result"]["tools"]}
    result = _call(server, {})["result"]
    assert result["isError"] is True
    assert str(tmp_path) in result["content"][0]["text"]
    assert server.close()[0] == 0


# -- issue 12: every line answered, never frozen, never cut short -----------------------

DELIVERED_CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": True, "subscribe": True},
    "tools": {"listChanged": False},
}
DEEP = "[" * 1000 + "]" * 1000
BAD_LINES: list[tuple[bytes, int, Any]] = [
    (b"this is not JSON", -32700, None),
    (b'{"jsonrpc": "2.0", "id": 1, "method": ', -32700, None),
    (b"\xff\xfe{}", -32700, None),
    (b'{"jsonrpc":"2.0","id":"\xc3","method":"ping"}', -32700, None),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}', -32700, None),
    (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, None),
    (b"[]", -32600, None),
    (b"42", -32600, None),
    (b'"ping"', -32600, None),
    (b"null", -32600, None),
    (b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1,2]}', -32600, 7),
    (b'{"jsonrpc":"2.0","id":"s","method":"tools/list","params":"x"}', -32600, "s"),
    (b'{"jsonrpc":"1.0","id":8,"method":"ping"}', -32600, 8),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":9}', -32600, None),
    (b'{"foo":"bar"}', -32600, None),
    (DEEP.encode(), -32600, None),
    (('{"jsonrpc":"2.0","id":10,"method":"ping","params":{"a":' + DEEP + "}}").encode(), -32600, None),
    (
        ('{"jsonrpc":"2.0","id":11,"method":"ping","params":{"a":' + "[" * 100 + "]" * 100 + "}}").encode(),
        -32600,
        11,
    ),
]


def _error_of(line: bytes) -> dict[str, Any]:
    message = json.loads(line)
    assert set(message) == {"jsonrpc", "id", "error"}, message
    return dict(message)


def _bad_lines_answered(server: RawServer, ping: Any) -> None:
    for line, code, rid in BAD_LINES:
        server.process.stdin.write(line + b"\n")  # type: ignore[union-attr]
        server.process.stdin.flush()  # type: ignore[union-attr]
        error = _error_of(server.lines.get(timeout=TIMEOUT))
        assert (error["error"]["code"], error["id"]) == (code, rid), (line[:80], error)
        assert ping()  # and the server keeps serving


def test_every_bad_line_gets_its_error_answer_and_the_server_keeps_serving() -> None:
    server = RawServer("--space", str(FIXTURES / "demo"))
    server.initialize()
    _bad_lines_answered(server, lambda: server.request("ping")["result"] == {})
    # A lone surrogate escape is valid JSON: the request is served and its echo comes back intact.
    server.send('{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"\\ud800"}}')
    error = server.wait_for("u")["error"]  # type: ignore[arg-type]
    assert error["code"] == -32602 and error["message"].startswith("unknown tool '\\ud800': the tools are ")
    code, err = server.close()
    assert code == 0 and b"Traceback" not in err


def test_bad_lines_are_answered_on_the_stateless_protocol_too() -> None:
    server = RawServer("--space", str(FIXTURES / "demo"))
    tools = modern_request(server, "tools/list")["result"]["tools"]
    assert "get_context" in {tool["name"] for tool in tools}
    _bad_lines_answered(server, lambda: "tools" in modern_request(server, "tools/list")["result"])
    code, err = server.close()
    assert code == 0 and b"Traceback" not in err


def test_a_line_over_16_mib_is_refused_and_the_next_line_is_served() -> None:
    server = RawServer("--space", str(FIXTURES / "demo"))
    server.initialize()
    huge = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * (16 * 1024 * 1024) + b'"}}'
    server.process.stdin.write(huge + b"\n")  # type: ignore[union-attr]
    error = _error_of(server.lines.get(timeout=TIMEOUT))
    assert error["error"]["code"] == -32600 and error["id"] is None
    assert "16777216 bytes" in error["error"]["message"]
    assert server.request("ping")["result"] == {}
    assert server.close()[0] == 0


def test_capabilities_say_only_what_is_delivered_in_both_protocols() -> None:
    legacy = RawServer("--space", str(FIXTURES / "demo"))
    assert legacy.initialize()["result"]["capabilities"] == DELIVERED_CAPABILITIES
    assert legacy.close()[0] == 0
    modern = RawServer("--space", str(FIXTURES / "demo"))
    # The stateless protocol also carries the MCP Apps extension (the explain_budget view).
    assert modern_request(modern, "server/discover")["result"]["capabilities"] == {
        **DELIVERED_CAPABILITIES,
        "extensions": {"io.modelcontextprotocol/ui": {}},
    }
    assert modern.close()[0] == 0


def test_an_explicit_space_without_a_ledger_stops_serve_at_once_with_status_2(tmp_path: Path) -> None:
    for args, env in [
        (["--space", "/path/to/your/repo"], dict(os.environ)),
        ([], dict(os.environ, LEDGER_SPACE=str(tmp_path))),
    ]:
        result = subprocess.run(
            [sys.executable, "-m", "ledger_context", "serve", *args],
            capture_output=True,
            stdin=subprocess.PIPE,  # open and silent: only the check can end it
            timeout=TIMEOUT,
            check=False,
            env=env,
        )
        assert result.returncode == 2
        assert result.stdout == b""
        assert result.stderr.startswith(b"Error: The space ")
        assert b"--space PATH or the LEDGER_SPACE" in result.stderr


def _initialize_lines() -> bytes:
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    return (
        json.dumps(init) + "\n" + json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
    ).encode()


def _call_line(request_id: int, name: str = "get_context") -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}},
    }
    return (json.dumps(message) + "\n").encode()


def test_the_piped_one_liner_prints_the_tools_call_answer() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ledger_context", "serve", "--space", str(FIXTURES / "demo")],
        input=_initialize_lines() + _call_line(1),
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0
    answers = {json.loads(line)["id"]: json.loads(line) for line in result.stdout.splitlines()}
    assert sorted(answers) == [0, 1]
    assert answers[1]["result"]["content"][0]["text"] == build_context(FIXTURES / "demo").pack


def test_every_request_read_before_eof_is_answered_on_a_larger_ledger(tmp_path: Path) -> None:
    files = {f"experiments/e{i:04d}.md": doc(updated_at=f"2026-01-{1 + i % 28:02d}") for i in range(1500)}
    files.update(
        {f"findings/f{i:04d}.md": doc(status="current", updated_at="2026-01-01") for i in range(500)}
    )
    space = write_ledger(tmp_path / "space", files)
    pack = build_context(space).pack
    lines = _initialize_lines() + b"".join(_call_line(i) for i in range(1, 51))
    result = subprocess.run(
        [sys.executable, "-m", "ledger_context", "serve", "--space", str(space)],
        input=lines,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(a["id"] for a in answers) == list(range(51))
    assert all(a["result"]["content"][0]["text"] == pack for a in answers if a["id"])


def test_a_client_that_closes_stdout_ends_the_server_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "ledger_context", "serve", "--space", str(FIXTURES / "demo")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    process.stdin.write(_initialize_lines() + _call_line(1))
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["id"] == 0
    assert json.loads(process.stdout.readline())["id"] == 1
    process.stdout.close()
    for i in range(100, 120):
        try:
            process.stdin.write(_call_line(i))
            process.stdin.flush()
        except BrokenPipeError:
            break
    code = process.wait(timeout=TIMEOUT)
    err = process.stderr.read()
    process.stderr.close()
    with contextlib.suppress(BrokenPipeError):
        process.stdin.close()
    assert code == 0
    assert b"Traceback" not in err and b"Error" not in err, err.decode()
    assert b"stopping (EPIPE)" in err


def _signal_ends_serving(signum: int) -> None:
    import signal
    import time

    server = RawServer("--space", str(FIXTURES / "demo"))
    server.initialize()
    assert "result" in _call(server, {})
    for i in range(100, 110):  # in flight when the signal comes
        server.send(_call_line(i).decode().strip())
    started = time.monotonic()
    server.process.send_signal(signum)
    code = server.process.wait(timeout=TIMEOUT)
    elapsed = time.monotonic() - started
    server.pump.join(timeout=TIMEOUT)
    assert server.process.stderr is not None and server.process.stdout is not None
    err = server.process.stderr.read()
    for stream in (server.process.stdin, server.process.stdout, server.process.stderr):
        with contextlib.suppress(BrokenPipeError):
            stream.close()  # type: ignore[union-attr]
    assert code == 0 and elapsed < 3.0, (code, elapsed)
    assert b"Traceback" not in err, err.decode()
    assert f"stopping ({signal.Signals(signum).name})".encode() in err
    late = [json.loads(line) for line in server.stdout[2:]]
    # Every request read gets exactly one answer: its result if it finished within the
    # grace, else an error naming the signal (never the SDK's "connection closed").
    assert sorted(answer["id"] for answer in late) == list(range(100, 110)), late
    name = signal.Signals(signum).name
    for answer in late:
        assert "result" in answer or name in answer["error"]["message"], answer


def test_sigint_ends_serve_within_a_second_without_a_traceback() -> None:
    import signal

    _signal_ends_serving(signal.SIGINT)


def test_sigterm_ends_serve_within_a_second_without_a_traceback() -> None:
    import signal

    _signal_ends_serving(signal.SIGTERM)


def test_sighup_ends_serve_as_sigterm_does() -> None:
    # A tester's finding: the terminal a client ran in closing (SIGHUP) killed the server
    # at once, losing the requests in flight and the audit rows of answers already sent.
    import signal

    _signal_ends_serving(signal.SIGHUP)


@pytest.mark.parametrize(
    ("signame", "delay"),
    [
        ("SIGTERM", 0.5),
        ("SIGTERM", 1.3),
        ("SIGINT", 0.5),
        ("SIGINT", 1.3),
        ("SIGHUP", 0.5),
        ("SIGINT SIGTERM", 0.5),
    ],
)
def test_a_signal_while_the_server_starts_answers_every_request_already_sent(
    signame: str, delay: float
) -> None:
    # Found by trying to break the product: a client that sent initialize and ten pings got
    # no answer at all when SIGTERM came in the second or so the server takes to start.
    import signal
    import time

    server = RawServer("--space", str(FIXTURES / "demo"), "--no-audit")
    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    server.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for i in range(1, 11):
        server.send({"jsonrpc": "2.0", "id": i, "method": "ping"})
    time.sleep(delay)  # past the interpreter's own start, within the SDK's import or the server's
    for name in signame.split():  # two at once: the second waits for the first's stop
        server.process.send_signal(getattr(signal, name))
    code = server.process.wait(timeout=TIMEOUT)
    server.pump.join(timeout=TIMEOUT)
    assert server.process.stderr is not None
    err = server.process.stderr.read()
    for stream in (server.process.stdin, server.process.stdout, server.process.stderr):
        with contextlib.suppress(BrokenPipeError):
            stream.close()  # type: ignore[union-attr]
    answers = [json.loads(line) for line in server.stdout]
    assert code == 0 and b"Traceback" not in err, (code, err.decode())
    assert sorted(answer["id"] for answer in answers) == list(range(11)), answers
    for answer in answers:
        assert "result" in answer or signame.split()[0] in answer["error"]["message"], answer


def test_a_signal_while_a_large_answer_is_read_slowly_cuts_no_answer(tmp_path: Path) -> None:
    # Every broken document is a problem in the full breakdown: about 1.6 MB of answer, which
    # a client reading 32 KB every 0.1 s takes some 5 s to read, well past the signal's second.
    import signal
    import time

    files = {f"findings/broken-finding-number-{i:05}.md": "---\nstatus: [\n---\nx\n" for i in range(3000)}
    space = write_ledger(tmp_path / "space", files)
    process = subprocess.Popen(
        [sys.executable, "-m", "ledger_context", "serve", "--space", str(space), "--no-audit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    explain = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    explain["params"] = {"name": "explain_budget", "arguments": {"detail": "full"}}
    process.stdin.write(_initialize_lines() + (json.dumps(explain) + "\n").encode())
    process.stdin.flush()
    first = process.stdout.readline()
    started = process.stdout.read(1)  # the large answer is being written, and waits for us
    process.stdin.write(_call_line(2) + _call_line(3))
    process.stdin.flush()
    time.sleep(0.3)
    process.send_signal(signal.SIGTERM)
    rest = bytearray()
    while chunk := process.stdout.read1(32 << 10):
        rest += chunk
        time.sleep(0.1)
    code = process.wait(timeout=TIMEOUT)
    for stream in (process.stdin, process.stdout):
        with contextlib.suppress(BrokenPipeError):
            stream.close()
    assert code == 0
    lines = [first, *(started + rest).split(b"\n")[:-1]]
    assert (started + rest).endswith(b"\n"), "the last answer was cut"
    answers = {json.loads(line)["id"]: json.loads(line) for line in lines}  # every line whole JSON
    assert sorted(answers) == [0, 1, 2, 3] and len(lines) == 4
    assert len(answers[1]["result"]["content"][0]["text"]) > 500_000
    for late in (answers[2], answers[3]):  # read after the answer began: own answer or the signal's
        assert "result" in late or "SIGTERM" in late["error"]["message"], late


def test_a_client_that_never_reads_stderr_completes_10000_calls_with_200_kb_names() -> None:
    import time

    big = "n" * 200_000
    kinds = [
        (
            b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"' + big.encode() + b'"}}\n',
            "error",  # an unknown tool is -32602 (issue 23)
        ),
        (
            b'{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"ledger://document/'
            + big.encode()
            + b'"}}\n',
            "error",
        ),
        (
            b'{"jsonrpc":"2.0","id":%d,"method":"prompts/get","params":{"name":"' + big.encode() + b'"}}\n',
            "error",
        ),
    ]
    process = subprocess.Popen(
        # debug: the SDK's own loggers log every call (and the client's strings) too
        [
            sys.executable,
            "-m",
            "ledger_context",
            "serve",
            "--space",
            str(FIXTURES / "demo"),
            "--log-level",
            "debug",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,  # never read while serving
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    total, window = 10_000, 32
    seen: dict[int, str] = {}
    started = time.monotonic()
    watchdog = threading.Timer(300, process.kill)  # a frozen server fails the test, not hangs it
    watchdog.start()
    process.stdin.write(_initialize_lines())
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["id"] == 0
    sent = 0
    while len(seen) < total:
        while sent < total and sent - len(seen) < window:
            sent += 1
            process.stdin.write(kinds[sent % 3][0] % sent)
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        seen[answer["id"]] = "result" if "result" in answer else "error"
    elapsed = time.monotonic() - started
    watchdog.cancel()
    process.stdin.close()
    assert process.wait(timeout=TIMEOUT) == 0
    err = process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    assert all(seen[i] == kinds[i % 3][1] for i in range(1, total + 1))
    assert max(len(line) for line in err.splitlines()) < 2000
    print(f"10,000 calls with 200 KB names: {elapsed:.1f} s, {len(err)} bytes of log")


def test_the_sdks_own_logs_show_only_with_log_level_debug() -> None:
    unknown = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "resources/read",
        "params": {"uri": "ledger://" + "n" * 100_000},
    }
    lines = _initialize_lines() + (json.dumps(unknown) + "\n").encode()
    logs = {}
    for level in ("info", "debug"):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "ledger_context",
                "serve",
                "--space",
                str(FIXTURES / "demo"),
                "--log-level",
                level,
            ],
            input=lines,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert result.returncode == 0
        logs[level] = result.stderr.decode()
    assert "mcp." not in logs["info"]
    tool_failed = next(line for line in logs["debug"].splitlines() if "Resource 'ledger://nnn" in line)
    assert tool_failed.startswith("INFO mcp.server.mcpserver.server: Resource 'ledger://nnnn")
    assert "(100027 chars)" in tool_failed and len(tool_failed) < 1000  # the client's URI, cut

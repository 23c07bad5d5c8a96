"""Shared helpers: small ledgers written into pytest's tmp_path, the servers MCP tests
drive, and the check that a cached build equals a full one."""

from __future__ import annotations

import atexit
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import unicodedata
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ledger_context.reader import frontmatter

if TYPE_CHECKING:
    from mcp import StdioServerParameters

    from ledger_context.pack.context import ContextBuild

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "ledger_fixtures"


def ci() -> bool:
    """True under CI (``CI`` set to anything but empty, 0, false or no): optional tools are then required."""
    return os.environ.get("CI", "").strip().casefold() not in ("", "0", "false", "no")


def require(found: bool, what: str, target: str) -> None:
    """Skip the test when the optional ``what`` is missing, with a reason naming the make
    ``target`` that installs it; under CI fail instead (``.ci/run`` installs it first)."""
    if found:
        return
    reason = f"needs {what}: run 'make {target}'"
    if ci():
        pytest.fail(f"{reason} (required when CI is set)")
    pytest.skip(reason)


Files = Mapping[str | bytes, str | bytes]
"""A ledger's files: {path below ``.ledger``: text or bytes}; a ``bytes`` path is a file
name that is not valid UTF-8."""

# Servers the tests start keep their audit log in the user state folder, and every build its
# ledger index in the user cache folder: point HOME (which MCP clients pass on to servers) at
# a private folder, so no test writes to the real ones.
_HOME = tempfile.mkdtemp(prefix="ledger-context-tests-home-")
atexit.register(shutil.rmtree, _HOME, True)
os.environ["HOME"] = _HOME
for _name in ("XDG_STATE_HOME", "XDG_CACHE_HOME", "LEDGER_AUDIT", "LEDGER_INDEX"):
    os.environ.pop(_name, None)


def write_ledger(space: Path, files: Files) -> Path:
    """Write ``files`` into ``space/.ledger``; returns ``space``.

    The one builder of test ledgers. Text is written as UTF-8; bytes are written as they
    are, and a ``bytes`` path names a file whose name is not valid UTF-8.
    """
    root = os.fsencode(space / ".ledger")
    os.makedirs(root, exist_ok=True)
    for name, content in files.items():
        path = os.path.join(root, name if isinstance(name, bytes) else os.fsencode(name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(content if isinstance(content, bytes) else content.encode("utf-8"))
    return space


def sparse_document(path: Path, size: int) -> None:
    """A valid document padded with NUL bytes (valid UTF-8) to exactly ``size`` bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(b"---\nstatus: active\n---\n")
        handle.truncate(size)


def doc(**fields: str) -> str:
    """A document whose frontmatter holds ``fields`` in order, then a short body."""
    lines = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return f"---\n{lines}---\nBody text.\n"


@pytest.fixture
def ledger(tmp_path: Path) -> Callable[[Files], Path]:
    """``ledger(files)`` writes a fresh space under tmp_path and returns it."""
    counter = iter(range(1_000_000))

    def make(files: Files) -> Path:
        return write_ledger(tmp_path / f"space{next(counter)}", files)

    return make


LINEAR_LIMIT_S = 5.0
"""Generous bound for one hostile input: linear code takes milliseconds, a quadratic
pattern takes minutes on the same 100 KB input."""


def assert_linear(call: Callable[[], object]) -> None:
    """Fail if ``call()`` takes longer than :data:`LINEAR_LIMIT_S` (a regression bound)."""
    import time

    started = time.perf_counter()
    call()
    elapsed = time.perf_counter() - started
    assert elapsed < LINEAR_LIMIT_S, f"took {elapsed:.1f} s"


PURE_YAML = os.environ.get("LEDGER_CONTEXT_YAML", "").strip().casefold() == "python"
"""True when the suite runs with PyYAML's pure-Python loader (``make pytest-pure-yaml``)."""

EXAMPLES_SCALE = float(os.environ.get("LEDGER_CONTEXT_EXAMPLES_SCALE", "1"))
"""Property tests' example counts, scaled in one place: 1 (the CI counts) unless asked for
more, e.g. ``LEDGER_CONTEXT_EXAMPLES_SCALE=10``."""


def examples(ci_count: int) -> int:
    """A property test's number of examples: its CI count, scaled by :data:`EXAMPLES_SCALE`."""
    return max(1, round(ci_count * EXAMPLES_SCALE))


SLOW_MODULES = (
    "test_properties.py",
    "test_bundle.py",
    "test_pre_commit_hook.py",
    "test_fixture_generator.py",
    "test_reference.py",
    "test_stdio_slow_requests.py",
    "test_bench.py",
    "test_page.py",
    "test_http_clients.py",
    "test_http.py",
    "test_stdio_channel.py",
    "test_quick_start.py",
    "test_search_gate.py",
    "test_search_determinism.py",
    "test_yaml_loaders.py",
    "test_protocol_errors.py",
)
"""Whole modules ``make quick`` leaves out: generated, property, browser, bundle, hook, and
the ones that start real servers or clients in subprocesses for most of their tests."""

SLOW_TESTS = (
    "test_quick_path_",
    "test_computing_only_what_is_used_changes_no_output_on_generated_ledgers",
    "test_cached_and_full_builds_agree_through_random_changes",
    "test_the_explanation_is_encoded_as_by_the_models_on_generated_ledgers",
    "test_the_uvx_snippet_works_with_both_paths_changed",
    "test_pack_rev_equals_a_checkout_over_twenty_commits",
    "test_the_server_serves_the_same_pack_under_every_locale",
    "test_heading_scan_agrees_with_the_old_pattern",
    "test_two_servers_writing_one_log_at_once_lose_no_rows",
    "test_pack_and_explanation_are_the_same_bytes_under_every_locale",
    "test_a_client_that_never_reads_stderr_completes_10000_calls",
    "test_a_link_swapped_to_an_outside_file_never_leaks",
    "test_a_class_flipped_by_atomic_renames_never_leaks_past_the_ceiling",
    "test_twenty_thousand_experiments_finish_quickly",
    "test_a_client_that_never_reads_stops_the_reading",
    "test_a_missing_blob_among_3000_documents",
    "test_sigterm_during_rev_removes_the_private_copy",
    "test_error_codes_follow_the_spec",
    "test_every_output_survives_lone_surrogate_escapes",
    "test_the_catalogue_is_within_its_budget_over_stdio",
    "test_fifty_concurrent_calls_give_fifty_identical_packs",
    "test_ping_is_answered_while_a_path_question_runs",
    "test_links_that_multiply_paths_finish",
    "test_two_real_servers_sharing_one_log_lose_no_rows",
    "test_a_class_flipped_with_the_old_mtime_never_serves_withheld_bytes",
    "test_initialize_is_answered_before_a_large_ledger_is_read",
    "test_over_stdio_the_capabilities_are_the_same",
    "test_a_space_path_that_is_not_utf8_is_escaped_everywhere",
    "test_one_server_process_sees_edits_additions_and_deletions",
    "test_the_claude_desktop_snippet_works_with_one_path_changed",
    "test_serve_reads_undeclared_sources_as_the_class_given",
    "test_read_document_over_stdio_returns_the_file",
    "test_bad_detail_is_a_tool_error_naming_the_allowed_values",
    "test_since_answers_unchanged_in_one_line_else_the_pack_with_what_changed",
    "test_a_reader_taking_4_kib_every_half_second",
    "test_past_the_write_cap_the_answer_being_written",
    "test_a_reader_slower_than_a_pipe_page_per_stall",
    "test_roots_the_client_cannot_give_fall_back",
)
"""Tests over about 1.5 s (``--durations=60``) that ``make quick`` leaves out, by name prefix."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES or item.name.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)


# The suite is an edge too: its YAML switches become the reader's default, so in-process
# builds follow ``make pytest-pure-yaml`` as the command line does.
frontmatter.DEFAULT_YAML = frontmatter.yaml_options(os.environ)

libyaml_only = pytest.mark.xfail(
    PURE_YAML,
    strict=True,
    reason="PyYAML's pure-Python parser marks some errors on another line than libyaml "
    "(an unclosed flow collection); both refuse the document, the pack is the same",
)
"""For a test of behaviour where the two loaders disagree: expected to fail under the
pure-Python loader, and flagged if it starts passing."""


# Expected pack text and problem lookups, as the spec words them (§1, §5). "§" numbers
# refer to sections of docs/spec.md.

MiB = 1024 * 1024
LIMIT = 10 * MiB

H = ".ledger/harnesses/"
EV = ".ledger/evals/"
F = ".ledger/findings/"
D = ".ledger/decisions/"
X = ".ledger/experiments/"


def fm(text: str) -> str:
    """A document made of the frontmatter ``text`` between fences, and a short body."""
    return f"---\n{text}\n---\nBody.\n"


def fence(frontmatter: str) -> str:
    """The fenced frontmatter of a block (§5): an empty text gives the two fences only."""
    return f"---\n{frontmatter}\n---\n" if frontmatter else "---\n---\n"


def titled(label: str, title: str, path: str, frontmatter: str) -> str:
    """A group 2–5 block (§5)."""
    return f"## {label}: {title} ({path})\n" + fence(frontmatter)


def harness(title: str, path: str, frontmatter: str) -> str:
    return titled("Harness", title, path, frontmatter)


def pack_of(*blocks: str) -> str:
    """Blocks joined with one ``\\n`` (§5)."""
    return "\n".join(blocks)


def problems_at(result, path: str, severity: str | None = None) -> list:
    return [
        p for p in result.ledger.problems if p.path == path and (severity is None or p.severity == severity)
    ]


def doc_paths(result) -> list[str]:
    return [d.path for d in result.ledger.documents]


def assert_skipped(result, path: str) -> list:
    """``path`` is not a document, and an ``error`` problem names it; returns those problems."""
    assert path not in doc_paths(result)
    errors = problems_at(result, path, "error")
    assert errors, f"no error problem for {path!r}: {result.ledger.problems!r}"
    return errors


def assert_clean_text(text: str) -> None:
    """Printable on one line: valid UTF-8, no Cc character, no U+2028/U+2029."""
    text.encode("utf-8")  # raises on a lone surrogate
    for char in text:
        assert unicodedata.category(char) != "Cc", f"raw control character in {text!r}"
        assert char not in "\u2028\u2029", f"line separator in {text!r}"


def mentions_number(message: str, number: int) -> bool:
    import re

    return re.search(rf"(?<!\d){number}(?!\d)", message) is not None


class Hung(BaseException):
    """Raised by :func:`deadline`; a BaseException so no ``except OSError`` swallows it."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging (a blocking open of a FIFO, an endless walk)."""

    def fire(signum, frame):
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check(space: Path, capsys, *extra: str) -> tuple[int, str]:
    """Run ``ledger-context check`` on ``space``: its exit status and its output."""
    from ledger_context.cli import main  # after HOME is set above

    status = main(["check", "--space", str(space), *extra])
    return status, capsys.readouterr().out


def check_json(space: Path, capsys) -> tuple[int, dict]:
    status, out = check(space, capsys, "--json")
    return status, json.loads(out)


ACTIVE_HARNESS = fm("status: active")


# --------------------------------------------------------------------------- MCP servers


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> str:
    """The client's protocol generation: ``legacy`` (the initialize handshake, as the
    Inspector and Claude Desktop speak it) or ``auto`` (the SDK client's default, the
    stateless protocol)."""
    return str(request.param)


def server(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> StdioServerParameters:
    """``ledger-context serve`` with ``args``, as a subprocess the SDK client starts."""
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_context", "serve", *args], cwd=cwd, env=env
    )


def text_of(result: Any) -> str:
    """The one text content of a tool result."""
    assert len(result.content) == 1
    text: str = result.content[0].text
    return text


TIMEOUT = 30.0
"""Seconds a test waits on a server subprocess (a regression bound, not a speed limit)."""


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


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def modern_request(server: RawServer, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """``method`` on the stateless protocol (2026-07-28): the client's facts ride in ``_meta``."""
    return server.request(method, {**(params or {}), "_meta": MODERN_META})


# --------------------------------------------------------------------------- cached builds

_clock = iter(range(1_000_000_000, 2_000_000_000, 7))


def count_listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The inodes of the folders listed with ``os.scandir`` from now on (a walk given
    folder listings lists only the folders whose stamp moved)."""
    listed: list[int] = []
    scandir = os.scandir

    def counting(where: Any) -> Any:
        listed.append(os.fstat(where).st_ino if isinstance(where, int) else os.stat(where).st_ino)
        return scandir(where)

    monkeypatch.setattr(os, "scandir", counting)
    return listed


def age(path: Path) -> None:
    """Give ``path`` a distinct mtime long ago, so the cache trusts and reuses it."""
    seconds = next(_clock)
    os.utime(path, (seconds, seconds))


def same_as_full_build(cached: ContextBuild, space: Path, ceiling: str | None = None) -> None:
    """``cached`` (a build from a cache) has exactly the pack and explanations of a full,
    uncached build of ``space`` now."""
    from ledger_context import build_context
    from ledger_context.explain.full import explain

    fresh = build_context(space, cached.budgeted.cap_tokens, ceiling)
    assert cached.pack == fresh.pack
    for detail in ("brief", "full"):
        assert explain(cached, detail) == explain(fresh, detail)  # type: ignore[arg-type]


class Issuer:
    """An OAuth authorization server for tests: a real RSA key, its JWKS written to
    ``jwks_path``, and :meth:`token` signing real JWT access tokens with it."""

    URL = "https://login.example.test/"

    def __init__(self, directory: Path, kid: str = "test-key") -> None:
        import jwt
        from cryptography.hazmat.primitives.asymmetric import rsa

        self.kid = kid
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = {"keys": [{**public, "kid": kid, "use": "sig", "alg": "RS256"}]}
        self.jwks_path = directory / f"jwks-{kid}.json"
        self.jwks_path.write_text(json.dumps(self.jwks), encoding="utf-8")

    def token(self, audience: str, scope: str = "", lifetime: int = 300, **claims: Any) -> str:
        """A token for ``audience`` with ``scope``, valid ``lifetime`` seconds from now."""
        import time

        import jwt

        now = int(time.time())
        body = {
            "iss": self.URL,
            "aud": audience,
            "sub": "alice@example.test",
            "client_id": "test-client",
            "iat": now,
            "exp": now + lifetime,
            "scope": scope,
            **claims,
        }
        return jwt.encode(body, self.key, algorithm="RS256", headers={"kid": self.kid})


class HttpServer:
    """``ledger-context serve --http 127.0.0.1:0`` as a subprocess; :attr:`url` is its MCP
    endpoint, read from the line it logs once it listens."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        import re

        self.process = subprocess.Popen(
            [sys.executable, "-m", "ledger_context", "serve", "--http", "127.0.0.1:0", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # HTTP mode writes nothing there
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        self.log: list[str] = []
        found: queue.Queue[int | None] = queue.Queue()

        def read_log() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                self.log.append(line)
                listening = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
                if listening:
                    found.put(int(listening.group(1)))
            found.put(None)

        self._reader = threading.Thread(target=read_log, daemon=True)
        self._reader.start()
        try:
            port = found.get(timeout=TIMEOUT)
        except queue.Empty:
            port = None
        if port is None:
            self.stop()
            raise AssertionError("the HTTP server did not start:\n" + "".join(self.log))
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"
        self.url = f"{self.origin}/mcp"

    def stop(self) -> int:
        """SIGTERM, then the exit status (a signal's negative number once it re-raises it)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        finally:
            self._reader.join(TIMEOUT)
            if self.process.stderr is not None:
                self.process.stderr.close()

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@asynccontextmanager
async def bearer_client(
    url: str,
    token: str | None,
    mode: str = "legacy",
    hooks: dict[str, list[Any]] | None = None,
    **options: Any,
) -> AsyncIterator[Any]:
    """An SDK client of ``url`` over Streamable HTTP sending ``token`` as its bearer token
    (``hooks``: httpx event hooks; ``options`` go to the client)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=TIMEOUT, event_hooks=hooks) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, **options) as client,  # type: ignore[arg-type]
    ):
        yield client

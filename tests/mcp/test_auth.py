"""JWT access tokens: accepted only when signed by the issuer's key, for this server, by
this issuer, unexpired, with known class scopes; the identity carries the ceiling."""

from __future__ import annotations

import contextlib
import json
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

from conftest import Issuer
from ledger_context.mcp.auth import AuthOptions, JwtVerifier, check_auth_options, identity_of
from ledger_context.mcp.caller import Identity
from ledger_context.model.errors import InvalidArgumentError

pytestmark = pytest.mark.anyio

RESOURCE = "https://ledger.example.test/mcp"


@pytest.fixture
def issuer(tmp_path: Path) -> Issuer:
    return Issuer(tmp_path)


def verifier(issuer: Issuer, ceiling: str | None = None) -> JwtVerifier:
    return JwtVerifier(AuthOptions(Issuer.URL, str(issuer.jwks_path), RESOURCE), ceiling)


async def test_a_valid_token_gives_its_subject_client_and_scopes(issuer: Issuer) -> None:
    token = issuer.token(RESOURCE, "openid ledger:internal")
    access = await verifier(issuer).verify_token(token)
    assert access is not None
    assert (access.subject, access.client_id, access.scopes) == (
        "alice@example.test",
        "test-client",
        ["openid", "ledger:internal"],
    )
    assert access.resource == RESOURCE


async def test_an_audience_list_naming_this_server_is_accepted(issuer: Issuer) -> None:
    token = issuer.token(["https://other.example.test/", RESOURCE])  # type: ignore[arg-type]
    assert await verifier(issuer).verify_token(token) is not None


async def test_scp_lists_are_read_as_scopes(issuer: Issuer) -> None:
    token = issuer.token(RESOURCE, scope=None, scp=["ledger:public"])  # type: ignore[arg-type]
    access = await verifier(issuer).verify_token(token)
    assert access is not None and access.scopes == ["ledger:public"]


async def test_scopes_are_separated_by_spaces_only_and_scp_adds_to_scope(issuer: Issuer) -> None:
    # RFC 6749 §3.3: scopes are separated by U+0020 alone. A no-break space read as a
    # separator granted restricted; scp beside scope was ignored (found by breaking the product).
    check = verifier(issuer)
    joined = issuer.token(RESOURCE, scope="ledger:public\u00a0ledger:restricted")
    assert await check.verify_token(joined) is None
    both = issuer.token(RESOURCE, scope="openid", scp=["ledger:public"])
    access = await check.verify_token(both)
    assert access is not None and access.scopes == ["openid", "ledger:public"]


def _forged(issuer: Issuer, tmp_path: Path) -> dict[str, str]:
    (tmp_path / "other").mkdir()
    other = Issuer(tmp_path / "other", kid=issuer.kid)  # same key id, another key
    public_pem = issuer.key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    claims = {"iss": Issuer.URL, "aud": RESOURCE, "sub": "mallory", "exp": 4_102_444_800}
    return {
        "other audience": issuer.token("https://other.example.test/mcp"),
        "expired": issuer.token(RESOURCE, lifetime=-120),
        "unsigned": jwt.encode(claims, None, algorithm="none"),
        "other key": other.token(RESOURCE),
        "public key as HMAC secret": _hmac_with(public_pem, claims, issuer.kid),
        "other issuer": issuer.token(RESOURCE, iss="https://evil.example.test/"),
        "no expiry": jwt.encode(
            {k: v for k, v in claims.items() if k != "exp"}, issuer.key, "RS256", {"kid": issuer.kid}
        ),
        "unknown key id": jwt.encode(claims, issuer.key, "RS256", {"kid": "nope"}),
        "misspelt class scope": issuer.token(RESOURCE, "ledger:secret"),
        "scope of another type": issuer.token(RESOURCE, scope=7),  # type: ignore[arg-type]
        "garbage": "a.b.c",
    }


def _hmac_with(secret: bytes, claims: dict[str, object], kid: str) -> str:
    import base64
    import hashlib
    import hmac
    import json

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
    body = b64(json.dumps(claims).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(signature)}"


async def test_every_forged_or_foreign_token_is_refused(issuer: Issuer, tmp_path: Path) -> None:
    check = verifier(issuer)
    accepted = {why: await check.verify_token(token) for why, token in _forged(issuer, tmp_path).items()}
    assert {why: access for why, access in accepted.items() if access is not None} == {}


def test_a_jwks_url_must_be_https_except_on_loopback(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="https:// URL"):
        check_auth_options(Issuer.URL, "http://keys.example.test/jwks.json", RESOURCE)
    assert check_auth_options(Issuer.URL, "http://127.0.0.1:9/jwks.json", RESOURCE).jwks.startswith("http://")
    with pytest.raises(InvalidArgumentError, match="no JWKS file"):
        check_auth_options(Issuer.URL, str(tmp_path / "missing.json"), RESOURCE)
    with pytest.raises(InvalidArgumentError, match="--public-url must be an http"):
        check_auth_options(Issuer.URL, str(tmp_path), "ledger.example.test")


def test_an_unreadable_jwks_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "jwks.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidArgumentError, match="cannot read the JWKS"):
        JwtVerifier(AuthOptions(Issuer.URL, str(bad), RESOURCE), None)


async def test_the_identity_carries_the_ceiling_capped_by_the_server(issuer: Issuer) -> None:
    access = await verifier(issuer).verify_token(issuer.token(RESOURCE, "ledger:restricted"))
    assert access is not None
    request = SimpleNamespace(scope={"user": AuthenticatedUser(access)})
    assert identity_of(request, "confidential") == Identity(
        "alice@example.test", "test-client", "confidential"
    )
    assert identity_of(SimpleNamespace(scope={}), "confidential") is None
    assert identity_of(None, None) is None


def _signed(issuer: Issuer, algorithm: str) -> str:
    import time

    claims = {"iss": Issuer.URL, "aud": RESOURCE, "sub": "alice", "exp": int(time.time()) + 300}
    return jwt.encode(claims, issuer.key, algorithm=algorithm, headers={"kid": issuer.kid})


@pytest.mark.parametrize("algorithm", ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"])
async def test_an_rsa_key_without_alg_verifies_every_rs_and_ps_token(issuer: Issuer, algorithm: str) -> None:
    # RFC 7517 makes a JWK's "alg" optional; many issuers leave it out of their RSA keys.
    del issuer.jwks["keys"][0]["alg"]
    issuer.jwks_path.write_text(json.dumps(issuer.jwks), encoding="utf-8")
    assert await verifier(issuer).verify_token(_signed(issuer, algorithm)) is not None


async def test_an_rsa_key_that_names_its_alg_verifies_that_alg_alone(issuer: Issuer) -> None:
    assert await verifier(issuer).verify_token(_signed(issuer, "RS256")) is not None
    for algorithm in ("PS256", "RS512"):
        assert await verifier(issuer).verify_token(_signed(issuer, algorithm)) is None


async def test_a_jwks_url_serves_its_rsa_keys_without_alg_to_ps_tokens_too(issuer: Issuer) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    del issuer.jwks["keys"][0]["alg"]
    body = json.dumps(issuer.jwks).encode()

    class Jwks(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Jwks) as http:
        threading.Thread(target=http.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{http.server_address[1]}/jwks.json"
        check = JwtVerifier(AuthOptions(Issuer.URL, url, RESOURCE), None)
        try:
            for algorithm in ("PS256", "RS512", "RS256"):
                assert await check.verify_token(_signed(issuer, algorithm)) is not None, algorithm
        finally:
            http.shutdown()


def _serving(respond: Callable[[Any], None]) -> Any:
    """A JWKS server on loopback whose GET is ``respond(handler)``, as a context manager."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Jwks(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with contextlib.suppress(OSError):
                respond(self)

        def log_message(self, *args: object) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    http.daemon_threads = True
    threading.Thread(target=http.serve_forever, daemon=True).start()
    return http


def _slow_headers(handler: Any) -> None:  # the status line and headers a byte every 0.2 s
    for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: " + b"x" * 200:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.2)


def _trickle(handler: Any) -> None:  # a byte every 0.2 s, without end
    handler.send_response(200)
    handler.end_headers()
    while True:
        handler.wfile.write(b" ")
        handler.wfile.flush()
        time.sleep(0.2)


def _huge(handler: Any) -> None:  # 64 MiB of a JSON string
    handler.send_response(200)
    handler.end_headers()
    handler.wfile.write(b'{"keys": [], "x": "')
    for _ in range(1024):
        handler.wfile.write(b"a" * 65536)


def _deep(handler: Any) -> None:
    handler.send_response(200)
    handler.end_headers()
    handler.wfile.write(b"[" * 100_000 + b"]" * 100_000)


@pytest.mark.parametrize(
    "respond", [_slow_headers, _trickle, _huge, _deep], ids=["slow-headers", "trickle", "huge", "deep"]
)
async def test_a_jwks_url_that_misbehaves_refuses_the_token_in_bounded_time_and_memory(
    issuer: Issuer, respond: Callable[[Any], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by breaking the product: a JWKS trickled a byte at a time held every request
    # (PyJWT's timeout is per read), a 2 GB one grew the server by gigabytes, and a deeply
    # nested one failed every request with 500.
    from ledger_context.mcp import auth

    monkeypatch.setattr(auth, "JWKS_SECONDS", 1.0)
    http = _serving(respond)
    try:
        url = f"http://127.0.0.1:{http.server_address[1]}/jwks.json"
        check = JwtVerifier(AuthOptions(Issuer.URL, url, RESOURCE), None)
        started = time.monotonic()
        tracemalloc.start()
        try:
            assert await check.verify_token(issuer.token(RESOURCE)) is None
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert time.monotonic() - started < 5
        assert peak < 16 * 1024 * 1024
    finally:
        http.shutdown()
        http.server_close()


async def test_a_key_removed_from_the_jwks_is_refused_once_the_set_is_fetched_again(tmp_path: Path) -> None:
    # Found by breaking the product: PyJWT's per-kid key cache never expires, so a key the
    # issuer had withdrawn stayed trusted until the server restarted.
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    old, new = Issuer(tmp_path / "one", kid="k1"), Issuer(tmp_path / "two", kid="k2")
    published = [old.jwks]

    def serve(handler: Any) -> None:
        body = json.dumps(published[-1]).encode()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    http = _serving(serve)
    try:
        url = f"http://127.0.0.1:{http.server_address[1]}/jwks.json"
        check = JwtVerifier(AuthOptions(Issuer.URL, url, RESOURCE), None)
        assert await check.verify_token(old.token(RESOURCE)) is not None
        published.append(new.jwks)  # the issuer rotates: k1 withdrawn
        assert await check.verify_token(new.token(RESOURCE)) is not None  # an unknown kid: fetched again
        assert await check.verify_token(old.token(RESOURCE)) is None
    finally:
        http.shutdown()
        http.server_close()


def test_a_kid_published_twice_is_the_key_pyjwt_verifies_with(issuer: Issuer) -> None:
    # Found by breaking the product: the first entry of a repeated kid was taken as the
    # key's published form even when PyJWT skips it (an encryption key), so a valid token
    # was refused.
    from ledger_context.mcp.auth import _jwks_by_kid

    signing = issuer.jwks["keys"][0]
    encryption = {**signing, "use": "enc", "n": signing["n"][::-1]}
    broken = {"kty": "RSA", "kid": signing["kid"]}
    published = _jwks_by_kid({"keys": [encryption, broken, signing]})
    assert published == {signing["kid"]: signing}

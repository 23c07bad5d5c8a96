"""Team mode's authorization: an OAuth 2.1 resource server that accepts JWT bearer tokens.

A token is accepted only when PyJWT verifies it against the issuer's JWKS (a file, or an
HTTPS URL fetched and cached by :class:`jwt.PyJWKClient`) with an asymmetric algorithm,
issued by the configured issuer, for this server (``aud`` is its resource URL, RFC 8707),
and not expired. Anything else (another audience, expired, ``alg: none``, another key, a
misspelt ``ledger:`` scope) is refused the same way: the SDK answers ``401`` with
``WWW-Authenticate`` naming the Protected Resource Metadata (RFC 9728), and the reason is
logged here, never sent.

:func:`identity_of` turns an accepted token into the :class:`~ledger_context.mcp.caller.Identity`
whose ceiling filters that request's build.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import anyio.to_thread
import jwt
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings

from ..model.errors import InvalidArgumentError
from ..model.scopes import ceiling_of_scopes
from .caller import Identity

logger = logging.getLogger("ledger_context")

ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
_RSA_ALGORITHMS = frozenset(a for a in ALGORITHMS if a[:2] in ("RS", "PS"))


def _jwks_by_kid(data: object) -> dict[object, dict[str, Any]]:
    """The JWKS's signing keys as published, by ``kid``: the first of a repeated one among
    those PyJWT verifies with (it skips encryption keys and keys it cannot read)."""
    keys = data.get("keys") if isinstance(data, dict) else None
    found: dict[object, dict[str, Any]] = {}
    for jwk in keys if isinstance(keys, list) else ():
        if not isinstance(jwk, dict) or jwk.get("use") not in (None, "sig") or jwk.get("kid") in found:
            continue
        try:
            jwt.PyJWK(jwk)
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            continue
        found[jwk.get("kid")] = jwk
    return found


def _for_token(key: jwt.PyJWK, published: dict[str, Any] | None, token: str) -> jwt.PyJWK:
    """``key`` bound to the algorithm the token names, where the key leaves it open: an RSA
    JWK without ``alg`` (RFC 7517 makes it optional) serves every RS and PS algorithm,
    where PyJWT would assume RS256. A key that names its ``alg`` keeps it; an EC or OKP
    key has one algorithm by its curve."""
    if published is None or "alg" in published or published.get("kty") != "RSA":
        return key
    named = jwt.get_unverified_header(token).get("alg")
    if named not in _RSA_ALGORITHMS or named == key.algorithm_name:
        return key
    return jwt.PyJWK(published, algorithm=named)


"""Signatures accepted: asymmetric only, so a JWKS's public key can never be used as an
HMAC secret, and ``none`` is never among them."""

LEEWAY_SECONDS = 30
"""Clock skew allowed on ``exp`` and ``nbf`` between the issuer and this server."""

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True, slots=True)
class AuthOptions:
    """What ``serve --http`` was told about authorization: the issuer (its ``iss``), where
    its keys are (a JWKS file or an HTTPS URL) and this server's resource URL (the
    audience tokens must name)."""

    issuer: str
    jwks: str
    resource: str


def check_auth_options(issuer: str, jwks: str, resource: str) -> AuthOptions:
    """Validated :class:`AuthOptions`; raises :class:`InvalidArgumentError` saying what to fix."""
    for name, url in (("--auth-issuer", issuer), ("--public-url", resource)):
        parsed = urlparse(url)
        if parsed.scheme not in ("https", "http") or not parsed.netloc:
            raise InvalidArgumentError(f"{name} must be an http(s) URL, e.g. https://login.example.com/")
    if "://" in jwks:
        parsed = urlparse(jwks)
        if parsed.scheme != "https" and not (parsed.scheme == "http" and parsed.hostname in _LOOPBACK):
            raise InvalidArgumentError(
                "--auth-jwks must be a file or an https:// URL (http:// only on loopback)"
            )
    elif not Path(jwks).is_file():
        raise InvalidArgumentError(f"--auth-jwks: no JWKS file at {jwks[:200]}")
    return AuthOptions(issuer, jwks, resource)


def auth_settings(options: AuthOptions) -> AuthSettings:
    """The SDK's settings of a resource server: it checks the audience itself
    (:class:`JwtVerifier`), so the SDK's own resource check is off."""
    return AuthSettings(
        issuer_url=options.issuer,  # type: ignore[arg-type]  # pydantic parses the URL
        resource_server_url=options.resource,  # type: ignore[arg-type]
        validate_token_resource=False,
    )


class _FileKeys:
    """The keys of a JWKS file, read once at start."""

    def __init__(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            self._keys = jwt.PyJWKSet.from_dict(data)
        except (OSError, ValueError, jwt.PyJWTError) as exc:
            raise InvalidArgumentError(f"--auth-jwks: cannot read the JWKS in {path}: {exc}") from None
        self._published = _jwks_by_kid(data)

    def key_for(self, token: str) -> jwt.PyJWK:
        kid = jwt.get_unverified_header(token).get("kid")
        keys = self._keys.keys
        if kid is None and len(keys) == 1:
            return _for_token(keys[0], self._published.get(keys[0].key_id), token)
        for key in keys:
            if key.key_id == kid:
                return _for_token(key, self._published.get(kid), token)
        raise jwt.InvalidKeyError(f"no key {str(kid)[:40]!r} in the JWKS")


class _UrlKeys:
    """The keys at a JWKS URL, fetched on first use and cached (PyJWT refetches for an
    unknown ``kid``, so the issuer can rotate keys)."""

    def __init__(self, url: str) -> None:
        # No per-kid cache (cache_keys): PyJWT's never expires, so a key the issuer withdrew
        # stayed trusted; the key set itself is kept 300 s and fetched again for a new kid.
        self._client = _Client(url, cache_keys=False, lifespan=300, timeout=10)

    def key_for(self, token: str) -> jwt.PyJWK:
        key = self._client.get_signing_key_from_jwt(token)
        return _for_token(key, self._client.published.get(key.key_id), token)


JWKS_SECONDS = 10.0
"""The most one fetch of a JWKS URL may take, whole (PyJWT's own timeout is per read, so an
endpoint sending a byte at a time held every request)."""

MAX_JWKS_BYTES = 1024 * 1024
"""The largest JWKS body read; a key set is a few kilobytes."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is an error: the keys are where --auth-jwks says


class _Client(jwt.PyJWKClient):
    """PyJWT's JWKS client (its cache, rotation and refetch cooldown), fetching within
    :data:`JWKS_SECONDS` and :data:`MAX_JWKS_BYTES` (``fetch_data`` is PyJWT's documented
    point to override), and keeping the keys as published (whether each names its ``alg``)."""

    published: dict[object, dict[str, Any]] = {}  # noqa: RUF012  # replaced, never mutated

    _fetching: threading.Thread | None = None

    def fetch_data(self) -> Any:
        # Fetched in a thread waited for JWKS_SECONDS at most: a read's timeout bounds each
        # read, not the status line and headers sent a byte at a time. A fetch still running
        # (its peer stalling) is not joined by another: at most one such thread.
        if self._fetching is not None and self._fetching.is_alive():
            raise jwt.PyJWKClientConnectionError("cannot fetch the JWKS: the last fetch has not ended")
        deadline = time.monotonic() + JWKS_SECONDS
        outcome: list[Any] = []
        fetching = threading.Thread(target=self._fetch, args=(deadline, outcome), daemon=True)
        self._fetching = fetching
        fetching.start()
        fetching.join(JWKS_SECONDS)
        if not outcome:
            raise jwt.PyJWKClientConnectionError(
                f"cannot fetch the JWKS: no whole answer within {JWKS_SECONDS:g} s"
            )
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        body: bytes = outcome[0]
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            raise jwt.PyJWKClientError("the JWKS URL did not answer a JSON key set") from None
        if not isinstance(data, dict):
            raise jwt.PyJWKClientError("the JWKS URL did not answer a JSON object")
        self.published = _jwks_by_kid(data)
        return data

    def _fetch(self, deadline: float, outcome: list[Any]) -> None:
        try:
            request = urllib.request.Request(url=self.uri, headers=self.headers)
            opener = urllib.request.build_opener(_NoRedirect())
            with opener.open(request, timeout=min(self.timeout, JWKS_SECONDS)) as response:
                outcome.append(_read_within(response, deadline))
        except (OSError, http.client.HTTPException) as exc:  # URLError and timeouts are OSError
            outcome.append(jwt.PyJWKClientConnectionError(f"cannot fetch the JWKS: {str(exc)[:200]}"))
        except Exception as exc:  # anything else: the token is refused, never a 500
            outcome.append(jwt.PyJWKClientConnectionError(f"cannot fetch the JWKS ({type(exc).__name__})"))


def _read_within(response: Any, deadline: float) -> bytes:
    """The body of ``response``, or ``TimeoutError`` past ``deadline`` and ``OSError`` past
    :data:`MAX_JWKS_BYTES`: read a piece at a time (``read1``), so neither a slow nor a
    huge answer holds the server."""
    pieces: list[bytes] = []
    size = 0
    while piece := response.read1(65536):
        size += len(piece)
        if size > MAX_JWKS_BYTES:
            raise OSError(f"the answer is larger than {MAX_JWKS_BYTES} bytes")
        if time.monotonic() > deadline:
            raise TimeoutError(f"no whole answer within {JWKS_SECONDS:g} s")
        pieces.append(piece)
    return b"".join(pieces)


class JwtVerifier:
    """The SDK's ``TokenVerifier`` for JWT access tokens; ``server_ceiling`` is
    ``--max-data-class``, the most any token's scopes can raise a ceiling to."""

    def __init__(self, options: AuthOptions, server_ceiling: str | None) -> None:
        self.options = options
        self.server_ceiling = server_ceiling
        self._keys = _UrlKeys(options.jwks) if "://" in options.jwks else _FileKeys(Path(options.jwks))

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access, or ``None`` (the SDK then answers 401) with the reason logged."""
        try:
            claims = await anyio.to_thread.run_sync(self._claims, token)
            scopes = _scopes(claims)
            ceiling_of_scopes(scopes, self.server_ceiling)  # a misspelt class scope: refused
        except (jwt.PyJWTError, InvalidArgumentError, ValueError) as exc:
            logger.info("ledger-context: refused a bearer token: %s", str(exc)[:200])
            return None
        except Exception:  # a fault of ours or of the key set: refused (401), never a 500
            logger.exception("ledger-context: refused a bearer token: its check failed")
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or ""),
            scopes=scopes,
            expires_at=int(claims["exp"]),
            resource=self.options.resource,
            subject=str(claims["sub"]) if claims.get("sub") is not None else None,
            claims={"iss": claims["iss"]},
        )

    def _claims(self, token: str) -> dict[str, Any]:
        key = self._keys.key_for(token)
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=list(ALGORITHMS),
            audience=self.options.resource,
            issuer=self.options.issuer,
            leeway=LEEWAY_SECONDS,
            options={"require": ["exp", "iss", "aud"]},
        )
        return claims


def _scopes(claims: dict[str, Any]) -> list[str]:
    """The token's scopes: ``scope`` (RFC 9068: separated by U+0020 alone, RFC 6749 §3.3,
    so no other space joins or splits a scope) and ``scp`` (a list, or such a string), both
    read when both are there: a scope in either counts, so neither can hide one."""
    found: list[str] = []
    for name in ("scope", "scp"):
        value = claims.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            found += [scope for scope in value.split(" ") if scope]
        elif isinstance(value, list) and all(isinstance(s, str) for s in value):
            found += value
        else:
            raise ValueError(f"the token's {name} claim is neither a string nor a list of strings")
    return found


def identity_of(request: Any, server_ceiling: str | None) -> Identity | None:
    """The identity of an HTTP request the SDK authenticated (``None``: no token, so no
    authorization is configured); its ceiling from the token's scopes."""
    scope = getattr(request, "scope", None)
    user = scope.get("user") if isinstance(scope, dict) else None
    if not isinstance(user, AuthenticatedUser):
        return None
    token = user.access_token
    return Identity(
        subject=token.subject,
        client_id=token.client_id or None,
        ceiling=ceiling_of_scopes(token.scopes, server_ceiling),
    )

"""Team mode: the same server over the SDK's Streamable HTTP transport (``serve --http``).

- Both protocol generations: 2026-07-28 requests are stateless (the SDK's modern path);
  2025-11-25 ``initialize`` clients get a session (``Mcp-Session-Id``), which their
  ``resources/subscribe`` notifications need.
- ``Host`` and ``Origin`` are checked on every request (DNS-rebinding protection): the
  loopback names, the public URL's host and origin, and ``--allow-origin`` values.
- With authorization (:mod:`~ledger_context.mcp.auth`) every MCP request needs a bearer
  token; the token's scopes set that request's ceiling (:data:`~ledger_context.mcp.caller.IDENTITY`),
  and the Protected Resource Metadata (RFC 9728) says which scopes exist. Without it the
  server binds loopback only.
- :mod:`~ledger_context.mcp.limits` caps the body and the rate per identity; SIGINT and
  SIGTERM stop accepting, answer the requests in flight, then end.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import uvicorn
from mcp.server.auth.routes import create_protected_resource_routes
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware

from ..model.classify import CLASSES
from ..model.errors import InvalidArgumentError
from ..model.scopes import SCOPES
from .auth import AuthOptions, JwtVerifier, auth_settings, identity_of
from .caller import IDENTITY
from .ledgers import Ledgers
from .limits import Limits, TokenBuckets
from .one_message import OneMessage

MCP_PATH = "/mcp"
DEFAULT_HOST = "127.0.0.1"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
GRACE_SECONDS = 10
"""How long a stopping server waits for requests in flight (and open streams) to end."""


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """How ``serve --http`` listens: address, public URL (the resource URL tokens are
    issued for; default ``http://HOST:PORT/mcp``), extra allowed origins and the limits."""

    host: str = DEFAULT_HOST
    port: int = 8000
    public_url: str | None = None
    allowed_origins: tuple[str, ...] = ()
    max_body: int = 1 << 20
    rate_per_minute: int = 600
    burst: int = 60

    @property
    def url(self) -> str:
        """The server's MCP endpoint as clients reach it."""
        if self.public_url is not None:
            return self.public_url
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{MCP_PATH}"


def parse_address(value: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (IPv6 in brackets) as ``(host, port)``; the host defaults to
    127.0.0.1. Raises :class:`InvalidArgumentError` naming the accepted forms."""
    host, _, port = value.strip().rpartition(":")
    bracketed = host.startswith("[") and host.endswith("]")
    host = host[1:-1] if bracketed else host
    if ":" in host and not bracketed:  # an IPv6 address needs brackets, or the port is unclear
        host = "["
    if not port.isdigit() or not 0 <= int(port) <= 65535 or "[" in host or "]" in host:
        raise InvalidArgumentError(
            f"invalid --http {value[:60]!r}: give PORT, HOST:PORT or [IPv6]:PORT, e.g. 8000 or 127.0.0.1:8000"
        )
    return host or DEFAULT_HOST, int(port)


def is_loopback(host: str) -> bool:
    """True for a loopback name or address (the only binds allowed without authorization)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_http_options(options: HttpOptions, auth: AuthOptions | None) -> None:
    """Refuse what would expose the ledger: a non-loopback bind or a public URL without
    authorization, authorization without a public URL (the audience tokens must name)."""
    if auth is None and not is_loopback(options.host):
        raise InvalidArgumentError(
            f"refusing to listen on {options.host} without authorization: bind 127.0.0.1 (put a "
            "reverse proxy in front for a team), or set --auth-issuer, --auth-jwks and --public-url"
        )
    if auth is None and options.public_url is not None:
        # The public URL's host becomes an allowed Host: a proxy forwarding it would serve
        # the ledger to anyone it lets in, with no token asked.
        raise InvalidArgumentError(
            "refusing --public-url without authorization: it is where clients reach this server "
            "from outside, so it needs --auth-issuer and --auth-jwks (or leave it out: loopback only)"
        )
    if auth is not None and options.public_url is None:
        raise InvalidArgumentError(
            "--auth-issuer needs --public-url: the URL clients use, e.g. https://ledger.example.com/mcp "
            "(tokens must be issued for it)"
        )
    if options.max_body < 1 or options.rate_per_minute < 1 or options.burst < 1:
        raise InvalidArgumentError("--max-body, --rate-limit and --burst must be at least 1")


def transport_security(options: HttpOptions) -> TransportSecuritySettings:
    """DNS-rebinding protection, always on: loopback and the bind address at the port
    served, and the public URL's host, are the allowed ``Host`` values; their origins and
    ``--allow-origin`` the allowed ``Origin`` values (a foreign one gets 403). Exact values
    only: the SDK's ``host:*`` patterns match by prefix (``127.0.0.1:1.evil.example``), and
    a page on another local port is another origin."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    bound = f"[{options.host}]" if ":" in options.host else options.host
    if not is_loopback(options.host):
        names.append(bound)
    hosts = [f"{name}:{options.port}" for name in names]
    origins = [f"http://{host}" for host in hosts]
    if options.port == 80:  # a browser leaves the default port out
        hosts += names
        origins += [f"http://{name}" for name in names]
    public = urlparse(options.url)
    if public.hostname is not None and public.netloc not in hosts:
        default_port = 443 if public.scheme == "https" else 80
        hosts += (
            [public.netloc, f"{public.netloc}:{default_port}"] if public.port is None else [public.netloc]
        )
        origins.append(f"{public.scheme}://{public.netloc}")
    origins += list(options.allowed_origins)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def http_app(
    lowlevel: Server[Any], ledgers: Ledgers, options: HttpOptions, auth: AuthOptions | None = None
) -> Starlette:
    """The ASGI app serving the SDK's ``lowlevel`` server (whose requests ``ledgers``
    answers) at :data:`MCP_PATH` with ``options``' checks and limits, and ``auth``'s token
    checks (``None``: no authorization)."""
    ceiling = ledgers.settings.ceiling
    verifier = JwtVerifier(auth, ceiling) if auth is not None else None
    if auth is not None:  # a build outside a request (notifications) gets the lowest ceiling
        ledgers.unidentified = ledgers.settings._replace(ceiling=CLASSES[0])

    async def identify(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        token = IDENTITY.set(identity_of(ctx.request, ceiling))
        try:
            return await call_next(ctx)
        finally:
            IDENTITY.reset(token)

    lowlevel.middleware.append(identify)
    app = lowlevel.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=False,  # 2025 sessions; 2026-07-28 requests are stateless regardless
        max_request_body_size=options.max_body,
        transport_security=transport_security(options),
        host=options.host,
        auth=auth_settings(auth) if auth is not None else None,
        token_verifier=verifier,
    )
    if auth is not None:  # first match wins: ours names the scopes that set a ceiling
        for route in reversed(
            create_protected_resource_routes(
                resource_url=AnyHttpUrl(auth.resource),
                authorization_servers=[AnyHttpUrl(auth.issuer)],
                scopes_supported=list(SCOPES),
                resource_name="ledger-context",
            )
        ):
            app.router.routes.insert(0, route)
    buckets = TokenBuckets(options.rate_per_minute, options.burst)
    # Appended last, so it runs after authentication: the bucket is the token's.
    app.user_middleware.append(
        Middleware(Limits, buckets=buckets, max_body=options.max_body, authorized=auth is not None)
    )
    app.user_middleware.append(Middleware(OneMessage, max_body=options.max_body))  # inside Limits
    return app


def listen(options: HttpOptions) -> socket.socket:
    """A socket listening on ``options``' address (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((options.host, options.port))
        sock.listen(2048)  # from now on a client waits in the backlog instead of being refused
    except OSError as exc:
        sock.close()
        raise InvalidArgumentError(
            f"cannot listen on {options.host}:{options.port}: {exc.strerror or exc}"
        ) from None
    return sock


def run_app(app: Starlette, sock: socket.socket) -> None:
    """Serve ``app`` on the listening ``sock`` until SIGINT/SIGTERM, then answer what is in
    flight (at most :data:`GRACE_SECONDS`) and return; the caller closes the socket."""
    config = uvicorn.Config(
        app,
        log_config=None,  # our stderr logging
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=GRACE_SECONDS,
        server_header=False,
        proxy_headers=False,  # the peer is the socket's: a client never picks its own rate bucket
    )
    uvicorn.Server(config).run(sockets=[sock])

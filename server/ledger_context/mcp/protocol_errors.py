"""The SDK's bare protocol errors, explained: a client's author learns what to send.

The SDK answers a request before the handshake, and params that fail its types, with
-32602 "Invalid request parameters" and empty ``data``, an unknown resource with its URI
alone, and an unknown method with "Method not found". :func:`explain_protocol_errors`, a
middleware around every request, keeps the code and says why, naming the fields and the
allowed values, never quoting the input.
"""

from __future__ import annotations

from typing import Any, Final

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND
from pydantic import ValidationError

from ..reader.paths import printable_text

READ_NEEDS_URI: Final = (
    "resources/read needs params.uri, the URI of a resource: ledger://pack, or "
    "ledger://document/<path> with a path from a pack title line, e.g. "
    "ledger://document/.ledger/decisions/0007-use-jwt.md (resources/list names them)"
)
NOT_INITIALIZED: Final = (
    "initialize first: send initialize, then the notification notifications/initialized, "
    "before {method} (a 2026-07-28 client names its protocol version in params._meta "
    "on every request instead, from its first one)"
)
UNKNOWN_RESOURCE: Final = (
    "unknown resource (the resources are ledger://pack and ledger://document/<path> with a "
    "path from a pack title line; resources/list names them): "
)
METHODS: Final = (
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "server/discover",
    "subscriptions/listen",
)
"""The methods this server answers (a test holds it to the server's handlers)."""
_SDK_BARE: Final = "Invalid request parameters"
_FIELD_ERRORS: Final = 3
_LOC_CHARS: Final = 60
_URI_CHARS: Final = 200


def _echo(text: str, limit: int) -> str:
    """Client input said back: at most ``limit`` characters, unprintable ones escaped
    (so a name cannot drive a terminal or reorder what a client shows)."""
    cut = text[:limit] + ("…" if len(text) > limit else "")
    return printable_text(cut)


def unknown_resource(uri: str) -> str:
    """What a read of ``uri``, which no resource matches, is told (and recorded as)."""
    return UNKNOWN_RESOURCE + _echo(uri, _URI_CHARS)


def _where(loc: tuple[int | str, ...]) -> str:
    """A field's place; a part may be a key the client chose: cut and escaped."""
    return ".".join(printable_text(str(part)[:_LOC_CHARS]) for part in loc) or "params"


def invalid_params(method: str, error: ValidationError) -> str:
    """What is wrong with a request's params, by field (pydantic's messages, without the
    input they were given)."""
    found = error.errors(include_input=False, include_url=False, include_context=False)
    said = "; ".join(f"{_where(e['loc'])}: {e['msg']}" for e in found[:_FIELD_ERRORS])
    more = f" (and {len(found) - _FIELD_ERRORS} more)" if len(found) > _FIELD_ERRORS else ""
    return f"invalid params of {printable_text(method[:_LOC_CHARS])}: {said}{more}"


async def explain_protocol_errors(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Middleware: the SDK's bare -32602 answers, each with its reason."""
    if ctx.request_id is None:  # a notification is never answered
        return await call_next(ctx)
    method = ctx.method
    if method == "resources/read":
        uri = ctx.params.get("uri") if isinstance(ctx.params, dict) else None
        if not isinstance(uri, str) or not uri:
            raise MCPError(code=INVALID_PARAMS, message=READ_NEEDS_URI)
    try:
        return await call_next(ctx)
    except ValidationError as exc:
        raise MCPError(code=INVALID_PARAMS, message=invalid_params(method, exc)) from None
    except MCPError as exc:
        error = exc.error
        if error.code == METHOD_NOT_FOUND and method not in METHODS:
            name = _echo(method, _LOC_CHARS)
            shown = name if name.startswith('"') else f"'{name}'"
            raise MCPError(
                code=METHOD_NOT_FOUND,
                message=f"unknown method {shown}: this server answers {', '.join(METHODS)}",
                data=name,
            ) from None
        if error.code != INVALID_PARAMS:
            raise
        if error.message == _SDK_BARE and not error.data:  # the SDK's gate before initialize
            shown = printable_text(method[:_LOC_CHARS])
            raise MCPError(code=INVALID_PARAMS, message=NOT_INITIALIZED.format(method=shown)) from None
        if method == "resources/read" and error.message.startswith("Unknown resource: "):
            uri = error.message.removeprefix("Unknown resource: ")
            raise MCPError(
                code=INVALID_PARAMS, message=unknown_resource(uri), data={"uri": _echo(uri, _URI_CHARS)}
            ) from None
        raise

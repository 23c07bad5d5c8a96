"""The one place core errors become MCP errors: a JSON-RPC error for resources and the
prompt, an error result (``isError``) for tools. Add a new core error to
:data:`ERROR_CODES`; its message is the core's own, which says what to do."""

from __future__ import annotations

import logging

from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult, TextContent

from ..model.errors import (
    DocumentNotFoundError,
    DocumentWithheldError,
    InvalidArgumentError,
    LedgerContextError,
    SpaceNotFoundError,
)

logger = logging.getLogger("ledger_context")

ERROR_CODES: dict[type[LedgerContextError], int] = {
    InvalidArgumentError: INVALID_PARAMS,  # the request named something unknown or refused
    DocumentNotFoundError: INVALID_PARAMS,  # SEP-2164: an unknown resource is -32602
    DocumentWithheldError: INVALID_PARAMS,
    SpaceNotFoundError: INTERNAL_ERROR,  # the server has no ledger: not the request's fault
}


def mcp_error(exc: LedgerContextError) -> MCPError:
    """The JSON-RPC error for a core error raised while serving a resource or a prompt:
    the code of its nearest class in :data:`ERROR_CODES`, else -32603."""
    code = next((ERROR_CODES[c] for c in type(exc).__mro__ if c in ERROR_CODES), INTERNAL_ERROR)
    return MCPError(code=code, message=str(exc))


def tool_error(exc: Exception, doing: str = "building the pack") -> CallToolResult:
    """The error result of a tool call that raised ``exc`` while ``doing`` something: a
    core error's message as is; anything else is a fault of ours, logged, and named
    (not a bare "Error executing tool")."""
    if isinstance(exc, LedgerContextError):
        message = str(exc)
    else:
        logger.exception("%s failed", doing, exc_info=exc)
        message = f"{doing} failed ({type(exc).__name__}); the server log has the details"
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)

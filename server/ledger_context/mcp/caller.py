"""Who a request is from (team mode), set per request by the HTTP layer and read by the
builds and the audit log; a leaf, so both can import it without importing each other."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a request is from (team mode): the token's subject and client, and the
    data-class ceiling its scopes allow (already capped by the server's)."""

    subject: str | None
    client_id: str | None
    ceiling: str | None


IDENTITY: contextvars.ContextVar[Identity | None] = contextvars.ContextVar("ledger_identity", default=None)
"""The identity of the request being answered; ``None`` outside a request and over stdio."""

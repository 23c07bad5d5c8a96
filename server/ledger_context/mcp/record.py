"""Every answered call goes into the audit log through :meth:`Recorder.record`, with the
client that asked (name, version, protocol) where the SDK knows it, and over HTTP the
token's subject and client (the ceiling that applied is the build's)."""

from __future__ import annotations

import contextvars
import logging
import os
from typing import Any

from mcp.server.mcpserver import Context

from ..pack.build import ContextBuild
from ..pack.measure import measure, measured_json
from ..proof.audit import AuditLog, CallRecord, arguments_json, utc_now
from ..reader.space import display_path
from .ledgers import IDENTITY

logger = logging.getLogger("ledger_context")


class Recorder:
    """Puts every answered call into the audit log (``log`` ``None``: the log is off).

    The one function every tool, resource and prompt calls; it never raises and never
    waits for the disk (see :class:`~ledger_context.proof.audit.AuditLog`).
    """

    def __init__(self, log: AuditLog | None) -> None:
        self.log = log

    @property
    def state(self) -> str:
        """``ok``, ``off`` or ``failing: <reason>``."""
        return "off" if self.log is None else self.log.state

    def record(
        self,
        *,
        call: str,
        arguments: dict[str, Any],
        build: ContextBuild,
        ctx: Context | None,
        document_sha256: str | None = None,
    ) -> None:
        """Record ``call`` with ``arguments``, answered from ``build``, for the client of ``ctx``."""
        if self.log is None:
            return
        try:
            name, version, protocol = _client_of(ctx)
            identity = IDENTITY.get()
            origin = build.provenance(refresh=False)
            b = build.budgeted
            record = CallRecord(
                time=utc_now(),
                client_name=name,
                client_version=version,
                protocol=protocol,
                call=call,
                arguments=arguments_json(arguments),
                space=display_path(build.ledger.space),
                cap_tokens=b.cap_tokens,
                ceiling=build.ceiling,
                sha256=b.sha256,
                bytes=b.pack_bytes,
                tokens=b.tokens,
                truncated=b.truncated,
                dropped_blocks=b.dropped,
                commit=origin.commit,
                dirty=origin.dirty,
                fingerprint=origin.fingerprint,
                document_sha256=document_sha256,
                pid=_PID,
                measured=measured_json(measure(b.pack, b.tokens, sha256=b.sha256, count=False)),
                subject=identity.subject if identity is not None else None,
                client_id=identity.client_id if identity is not None else None,
            )
            self.log.record(record, build.pack)
        except Exception:  # recording must never fail the call it records
            logger.exception("ledger-context: could not record %s in the audit log", call)


_PID = os.getpid()

REQUEST: contextvars.ContextVar[Context | None] = contextvars.ContextVar("ledger_request", default=None)
"""The request context of a resource read (static resources get none from the SDK)."""


def _client_of(ctx: Context | None) -> tuple[str | None, str | None, str | None]:
    """The client's name, version and protocol version for ``ctx``, where known."""
    if ctx is None:
        return None, None, None
    try:
        params = ctx.session.client_params
        info = params.client_info if params is not None else None
        return (
            info.name if info is not None else None,
            info.version if info is not None else None,
            ctx.protocol_version,
        )
    except Exception:  # outside a request, or a session without those facts
        return None, None, None

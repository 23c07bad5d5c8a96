"""Every answered call goes into the audit log through :meth:`Recorder.record`, with the
client that asked (name, version, protocol) where the SDK knows it, and over HTTP the
token's subject and client (the ceiling that applied is the build's)."""

from __future__ import annotations

import contextvars
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context

from ..model.document import Document
from ..pack.context import ContextBuild
from ..pack.measure import measure, measured_json
from ..proof.audit import AuditLog, CallRecord, bounded_arguments, utc_now
from ..reader.space import display_path
from .caller import IDENTITY

logger = logging.getLogger("ledger_context")


class Recorder:
    """Puts every answered call into the audit log (``log`` ``None``: the log is off).

    The one function every tool, resource and prompt calls; it never raises and never
    waits for the disk (see :class:`~ledger_context.proof.audit.AuditLog`).
    """

    def __init__(
        self,
        log: AuditLog | None,
        space: Callable[[], Path | None] | None = None,
        ceiling: Callable[[], str | None] | None = None,
    ) -> None:
        self.log = log
        self.space = space
        """The space a call refused before any build is about (``None``: unnamed)."""
        self.ceiling = ceiling
        """The ceiling that applies to the request being answered, for a call refused
        before any build (``None``: none is known)."""

    @property
    def state(self) -> str:
        """``ok``, ``off`` or ``failing: <reason>``."""
        return "off" if self.log is None else self.log.state

    def record(
        self,
        *,
        call: str,
        arguments: dict[str, Any],
        build: ContextBuild | None,
        ctx: Context | None,
        served: Document | None = None,
        refused: str | None = None,
        answer: str | None = None,
    ) -> str | None:
        """Record ``call`` with ``arguments``, for the client of ``ctx``: answered from
        ``build`` with the pack, or with the document ``served``; or ``refused`` (the
        reason; ``build`` ``None`` when there was none to answer from). ``answer``, the
        text the client got, is recorded by its digest (:func:`answer_digest`). The row's
        hash (the receipt's ``audit_head``), or ``None`` when nothing was recorded."""
        if self.log is None:
            return None  # before any work: with the log off, a call costs nothing here
        try:
            if answer is not None:
                arguments = {**arguments, "answer": answer_digest(answer)}
            shown, size, digest, whole = bounded_arguments(arguments)
            return self.log.record(
                # the space is looked up only for a call with no build to name it
                _call_record(
                    call,
                    (shown, size, digest),
                    build,
                    ctx,
                    served,
                    refused,
                    self._space_named(build),
                    self.ceiling() if build is None and self.ceiling is not None else None,
                ),
                _pack(build, refused),
                whole,
            )
        except Exception:  # recording must never fail the call it records
            logger.exception("ledger-context: could not record %s in the audit log", call)
            return None

    def _space_named(self, build: ContextBuild | None) -> str | None:
        if build is not None or self.space is None:
            return None
        space = self.space()
        return display_path(space) if space is not None else None


def _pack(build: ContextBuild | None, refused: str | None) -> str:
    return build.pack if build is not None and refused is None else ""


def _call_record(
    call: str,
    arguments: tuple[str, int, str],
    build: ContextBuild | None,
    ctx: Context | None,
    served: Document | None,
    refused: str | None,
    named: str | None = None,
    ceiling: str | None = None,
) -> CallRecord:
    name, version, protocol = _client_of(ctx)
    identity = IDENTITY.get()
    shown, size, digest = arguments  # as bounded_arguments keeps them
    common: dict[str, Any] = {
        "time": utc_now(),
        "client_name": name,
        "client_version": version,
        "protocol": protocol,
        "call": call,
        "arguments": shown,
        "arguments_bytes": size,
        "arguments_sha256": digest,
        "pid": _PID,
        "subject": identity.subject if identity is not None else None,
        "client_id": identity.client_id if identity is not None else None,
        "refused": refused,
        "served": None if refused is not None else served.path if served is not None else "pack",
        "document_sha256": served.sha256 if served is not None else None,
        "document_bytes": served.size if served is not None else None,
    }
    if build is None or refused is not None:
        # A refused call served nothing: no pack figures, so none can hint at withheld text.
        space = display_path(build.ledger.space) if build is not None else named
        return CallRecord(
            space=space, cap_tokens=None, ceiling=build.ceiling if build else ceiling, sha256=None,
            bytes=None, tokens=None, truncated=None, dropped_blocks=None, commit=None, dirty=None,
            fingerprint=None,
            **common,
        )  # fmt: skip
    origin = build.provenance(refresh=False)
    b = build.budgeted
    return CallRecord(
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
        measured=measured_json(measure(b.pack, b.tokens, sha256=b.sha256, count=False)),
        **common,
    )


_PID = os.getpid()


def answer_digest(text: str) -> dict[str, Any]:
    """What a row keeps of an answer's text: its SHA-256 and size in UTF-8 bytes, so that
    the text a client holds can be proved to be the one served (a search's results, an
    explanation, a page), in the row's chained arguments."""
    data = text.encode("utf-8", "surrogatepass")
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


REQUEST: contextvars.ContextVar[Context | None] = contextvars.ContextVar("ledger_request", default=None)
"""The request context of a resource read (static resources get none from the SDK)."""


CLIENT_TEXT_CHARS = 200
"""A client's name or version is kept to this many characters: it is stored in every row of
its connection, so a megabyte name would grow the log by a megabyte a call."""


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= CLIENT_TEXT_CHARS:
        return text
    return text[: CLIENT_TEXT_CHARS - 1] + "…"


def _client_of(ctx: Context | None) -> tuple[str | None, str | None, str | None]:
    """The client's name, version and protocol version for ``ctx``, where known."""
    if ctx is None:
        return None, None, None
    try:
        params = ctx.session.client_params
        info = params.client_info if params is not None else None
        return (
            _cut(info.name) if info is not None else None,
            _cut(info.version) if info is not None else None,
            ctx.protocol_version,
        )
    except Exception:  # outside a request, or a session without those facts
        return None, None, None

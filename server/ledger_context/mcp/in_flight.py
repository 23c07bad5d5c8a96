"""Requests in flight, so that a server's background work waits for a quiet moment.

Loading the tokenizers' vocabularies and the change notifier's walks hold the interpreter;
an answer made meanwhile shares it. On a fresh server over 30,000 documents, the first
``get_context`` (sent at once, so waiting on the first build) was answered 0.4 s later for
the tokenizers' load and the notifier's second walk, both started as that build ended
(issue 26). Background work now first asks :meth:`InFlight.quiet`: no request in flight for
:data:`SETTLE_S`, or :data:`AT_MOST_S` at the most, so it is never put off for long.

``subscriptions/listen`` is not counted: a stream lasts as long as its client listens.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

SETTLE_S = 0.05
"""How long no request may have been in flight: the last answer is written meanwhile."""
AT_MOST_S = 2.0
"""The longest background work waits for a quiet moment (a client that never pauses)."""
_POLL_S = 0.01

LASTING = frozenset({"subscriptions/listen"})
"""Requests that last as long as their client wants: never counted as in flight."""


class InFlight:
    """How many requests are being answered; one per server, used on its event loop only."""

    def __init__(self) -> None:
        self.count = 0
        self._last_end = float("-inf")

    async def track(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Middleware: counts every request (not notifications, not :data:`LASTING`)."""
        if ctx.request_id is None or ctx.method in LASTING:
            return await call_next(ctx)
        self.count += 1
        try:
            return await call_next(ctx)
        finally:
            self.count -= 1
            self._last_end = anyio.current_time()

    def settled(self, settle: float = SETTLE_S) -> bool:
        """No request in flight, none for ``settle`` seconds."""
        return self.count == 0 and anyio.current_time() - self._last_end >= settle

    async def quiet(self, settle: float = SETTLE_S, at_most: float = AT_MOST_S) -> bool:
        """Wait until :meth:`settled`, at most ``at_most`` seconds; whether it was."""
        with anyio.move_on_after(at_most):
            while not self.settled(settle):
                await anyio.sleep(_POLL_S)
            return True
        return False

"""Framing and first checks of the JSON-RPC lines a stdio client sends (one message per line).

Pure: knows JSON-RPC 2.0, not MCP. The stdio adapter feeds raw bytes to a
:class:`LineSplitter` and each line to :func:`parse_line`, which returns the message as a
``dict`` or the :class:`Fault` to answer:

- ``-32700`` (id null): the line is not UTF-8, or not JSON;
- ``-32600``: JSON that is not a request object (a batch, a scalar, ``params`` that is not
  an object, a wrong ``jsonrpc``), nesting deeper than :data:`MAX_DEPTH`, or a line longer
  than :data:`MAX_LINE_BYTES` (discarded as it arrives, never buffered whole).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

MAX_LINE_BYTES: Final = 16 * 1024 * 1024
"""The longest line accepted, newline excluded."""

MAX_DEPTH: Final = 64
"""The deepest nesting of arrays and objects accepted in one message."""

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
INTERNAL_ERROR: Final = -32603

RequestId = int | str


@dataclass(frozen=True)
class Fault:
    """An error answer for a line that cannot be passed on."""

    code: int
    message: str
    id: RequestId | None = None

    def response(self) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}}


OVERLONG: Final = Fault(
    INVALID_REQUEST, f"line longer than {MAX_LINE_BYTES} bytes: discarded; send smaller messages"
)


class LineSplitter:
    """Splits a byte stream into lines of at most ``max_bytes``; longer ones become
    :data:`OVERLONG` and their bytes are dropped as they arrive."""

    def __init__(self, max_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._parts: list[bytes] = []
        self._size = 0
        self._overlong = False

    def feed(self, chunk: bytes) -> list[bytes | Fault]:
        """The complete lines in ``chunk`` (with what came before), without their newline."""
        lines: list[bytes | Fault] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            lines.append(self._take(chunk[start:end]))
            start = end + 1
        self._keep(chunk[start:])
        return lines

    @property
    def pending(self) -> bool:
        """Whether a line has begun and not ended."""
        return self._overlong or self._size > 0

    def finish(self) -> bytes | Fault | None:
        """At end of input: the last line if it had no newline."""
        if not self._overlong and self._size == 0:
            return None
        return self._take(b"")

    def _keep(self, piece: bytes) -> None:
        if self._overlong or not piece:
            return
        if self._size + len(piece) > self.max_bytes:
            self._overlong = True
            self._parts.clear()
            self._size = 0
            return
        self._parts.append(piece)
        self._size += len(piece)

    def _take(self, piece: bytes) -> bytes | Fault:
        overlong = self._overlong or self._size + len(piece) > self.max_bytes
        line = b"" if overlong else b"".join([*self._parts, piece])
        self._parts.clear()
        self._size = 0
        self._overlong = False
        return OVERLONG if overlong else line


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _depth_exceeds(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def request_id(message: dict[str, Any]) -> RequestId | None:
    """The id to answer a faulty message with: only a request's own string or integer id."""
    rid = message.get("id")
    if "method" in message and isinstance(rid, int | str) and not isinstance(rid, bool):
        return rid
    return None


def parse_line(line: bytes) -> dict[str, Any] | Fault | None:
    """The message on ``line``, the fault to answer, or ``None`` for a blank line."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Fault(PARSE_ERROR, f"parse error: the line is not UTF-8 (invalid byte at offset {exc.start})")
    if not text.strip():
        return None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        return Fault(INVALID_REQUEST, f"invalid request: nested deeper than {MAX_DEPTH} levels")
    except ValueError as exc:
        where = f" at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)[:80]
        return Fault(PARSE_ERROR, f"parse error: the line is not JSON ({reason}{where})")
    if isinstance(value, list):
        return Fault(INVALID_REQUEST, "invalid request: no batches (MCP has none); send one message per line")
    if not isinstance(value, dict):
        return Fault(INVALID_REQUEST, "invalid request: a message must be a JSON object")
    rid = request_id(value)
    # Counting brackets is cheap; only a line with many of them is walked for its depth.
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth_exceeds(value, MAX_DEPTH):
        return Fault(INVALID_REQUEST, f"invalid request: nested deeper than {MAX_DEPTH} levels", rid)
    if value.get("jsonrpc") != "2.0":
        return Fault(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"', rid)
    if "id" in value and rid is None and "method" in value:
        return Fault(INVALID_REQUEST, 'invalid request: "id" must be a string or an integer')
    if "params" in value and not isinstance(value["params"], dict):
        return Fault(INVALID_REQUEST, 'invalid request: "params" must be an object', rid)
    return value

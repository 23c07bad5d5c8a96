"""The stdio channel in front of the MCP SDK's session: every line answered, clean exits.

Replaces the SDK's ``stdio_server()``. Our own threads read stdin and write stdout, so

- every line gets an answer: faults found by :mod:`ledger_context.mcp.jsonrpc_lines` and
  messages the SDK's types refuse are answered here (the SDK drops them silently); valid
  messages pass to the SDK unchanged, in both protocol generations;
- at EOF on stdin, every request read before it is answered before the SDK is told the
  input ended (it cancels whatever is still running), within :data:`EOF_GRACE_SECONDS`;
  a request still running then is answered with an error saying so, never left unanswered,
  and the process ends soon after even if that work sits in a worker thread;
- EPIPE on stdout (the client closed its end) ends serving quietly;
- SIGINT, SIGTERM and SIGHUP end serving within about a second, and every request read still gets
  one answer: no more input is passed on (a request read after the signal is answered with
  an error at once), requests running get :data:`SIGNAL_GRACE_SECONDS` to finish, and each
  still running then is answered with an error naming the signal; a build still running in
  a worker thread cannot hold the exit (:func:`on_hard_exit`, :data:`EXIT_SECONDS`); what
  the client had sent by then is read first, so each request in it is answered, and a
  signal that comes before the loop can take it is held until it can;
- whenever serving stops, answers already computed go on being written while the client
  reads them (:meth:`_Output.drain`): an answer is never cut because a client reads slowly,
  only when it reads nothing for :data:`STALL_SECONDS` (then no one is there to read it);
- an error with code 0 (the SDK's catch-all) goes out as -32603, internal error;
- backpressure: while :data:`MAX_IN_FLIGHT` requests wait for their answers to be handed
  to stdout, or :data:`OUTPUT_BYTES` of answers wait to be written (a client that sends
  and never reads), stdin is not read, so memory stays bounded whatever the client does.

Runs on anyio's asyncio backend; the threads talk to the loop through asyncio's
thread-safe calls. Threads are daemons: a blocked read or write never holds the exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import queue
import select
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.lowlevel.server import Server
from mcp.server.models import InitializationOptions
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from .early_stop import STOP_SIGNALS
from .jsonrpc_lines import INTERNAL_ERROR, INVALID_REQUEST, Fault, LineSplitter, parse_line, request_id
from .pipes import READ_CHUNK, WRITE_CHUNK, ready, unread

logger = logging.getLogger("ledger_context")

EOF_GRACE_SECONDS: Final = 10.0
"""How long requests read before EOF on stdin may still run to get their answers."""
FLUSH_SECONDS: Final = 0.8
"""How long answers already computed may take to reach stdout when serving stops, at least;
after that the writing goes on while the client reads (:data:`STALL_SECONDS`)."""
STALL_SECONDS: Final = 2.0
"""When serving stops, how long the client may read nothing before unwritten answers are
given up: a client that reads slowly still gets every answer whole."""
WRITE_CAP_SECONDS: Final = 60.0
"""When serving stops, the longest the answers may take to reach stdout, however the client
reads (one that takes a byte a second cannot hold the process)."""
SIGNAL_GRACE_SECONDS: Final = 0.5
"""How long requests running when a signal comes may still take to get their own answers."""
EXIT_SECONDS: Final = 1.0
"""After a signal the process ends this soon even if a worker thread is still building
(after :data:`SIGNAL_GRACE_SECONDS` and the errors for what did not finish)."""
ERROR_TEXT_CHARS: Final = 1000
"""Error messages and their ``data`` strings are cut to this many characters."""
OUTPUT_BYTES: Final = 4 << 20
"""Answers waiting to be written to stdout, in bytes, past which no more input is read."""
MAX_IN_FLIGHT: Final = 64
"""Requests read and not yet handed to stdout, past which no more input is read."""


def _key(rid: object) -> tuple[str, object]:
    return (type(rid).__name__, rid)


_HARD_EXIT_HOOKS: list[Callable[[], object]] = []


def on_hard_exit(hook: Callable[[], object]) -> None:
    """Run ``hook`` (briefly: e.g. flush the audit log) before a signal's forced exit."""
    _HARD_EXIT_HOOKS.append(hook)


def _exit_soon(output: _Output) -> None:
    """A signal's backstop: a build in a worker thread cannot be cancelled, and anyio waits
    for it, so after :data:`EXIT_SECONDS` write what is computed and end the process."""

    def run() -> None:
        time.sleep(EXIT_SECONDS)
        output.drain(0.2)  # and on while the client reads
        for hook in _HARD_EXIT_HOOKS:
            with contextlib.suppress(Exception):
                hook()
        logging.shutdown()
        os._exit(0)

    threading.Thread(target=run, name="exit", daemon=True).start()


class _Output:
    """stdout: a daemon thread writes what the loop hands it, at most :data:`OUTPUT_BYTES`
    ahead (one answer more when it alone is larger). ``room`` is notified on every write."""

    def __init__(
        self,
        fd: int,
        loop: asyncio.AbstractEventLoop,
        on_broken: Callable[[], None],
        room: threading.Condition | None = None,
    ) -> None:
        self.fd = fd
        self.loop = loop
        self.on_broken = on_broken
        self.broken = False
        self.queued_bytes = 0
        """Bytes handed over and not yet written."""
        self.room = room or threading.Condition()
        self.progress_at = time.monotonic()
        """When the writer last took an answer or wrote some of one (the client reads)."""
        self._state = threading.Lock()
        self._writing = False
        self._no_more = False
        """Set past :data:`WRITE_CAP_SECONDS`: no answer is started after the one being written."""
        self._written = anyio.Event()
        self._queue: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._run, name="stdout", daemon=True).start()

    async def put(self, data: bytes) -> None:
        while self.queued_bytes and self.queued_bytes + len(data) > OUTPUT_BYTES and not self.broken:
            self._written = anyio.Event()
            await self._written.wait()
        self.queued_bytes += len(data)
        self._queue.put(data)

    def _wrote(self, size: int) -> None:
        self.queued_bytes -= size
        self._written.set()
        with self.room:  # the reader may wait for these bytes to go
            self.room.notify_all()

    def _notify(self, fn: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop already closed
            self.loop.call_soon_threadsafe(fn)

    def _run(self) -> None:
        while True:
            data = self._queue.get()
            self.progress_at = time.monotonic()
            with self._state:
                self._writing = not self._no_more
            try:
                if self._writing and not self.broken:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(self.fd, view[:WRITE_CHUNK]) :]
                        self.progress_at = time.monotonic()
            except OSError:  # EPIPE, or stdout closed: the client is gone
                self.broken = True
                self._notify(self.on_broken)
            finally:
                self._writing = False
                self._queue.task_done()
                self._notify(functools.partial(self._wrote, len(data)))

    def drain(self, grace: float) -> None:
        """Wait (a thread call) for everything queued to be written: ``grace`` seconds at
        least, then as long as the client reads (the writer made progress within
        :data:`STALL_SECONDS`). Past :data:`WRITE_CAP_SECONDS` no other answer is started,
        and the one being written is finished while the client reads: an answer is cut only
        when the client stops reading."""
        started = time.monotonic()
        waiting = unread(self.fd)
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks and not self.broken:
                now = time.monotonic()
                before, waiting = waiting, unread(self.fd)
                if waiting is not None and before is not None and waiting < before:
                    self.progress_at = now  # the client took bytes, though no write returned yet
                if now - started >= grace and now - self.progress_at >= STALL_SECONDS:
                    return
                if now - started >= WRITE_CAP_SECONDS:
                    with self._state:
                        self._no_more = True
                        if not self._writing:
                            return
                self._queue.all_tasks_done.wait(0.1)


def _bounded_error(error: types.ErrorData) -> types.ErrorData:
    """``error`` with code 0 made -32603 (the SDK's catch-all; JSON-RPC says internal
    error), and the SDK's echo of client input (an unknown name or URI, in the message and
    in ``data``) cut to :data:`ERROR_TEXT_CHARS`, so a 1 MB name never comes back whole."""
    update: dict[str, Any] = {}
    if error.code == 0:
        update["code"] = INTERNAL_ERROR
    if len(error.message) > ERROR_TEXT_CHARS:
        update["message"] = error.message[:ERROR_TEXT_CHARS] + "…"
    if isinstance(error.data, str) and len(error.data) > ERROR_TEXT_CHARS:
        update["data"] = error.data[:ERROR_TEXT_CHARS] + "…"
    if isinstance(error.data, dict) and any(
        isinstance(v, str) and len(v) > ERROR_TEXT_CHARS for v in error.data.values()
    ):
        update["data"] = {
            k: v[:ERROR_TEXT_CHARS] + "…" if isinstance(v, str) and len(v) > ERROR_TEXT_CHARS else v
            for k, v in error.data.items()
        }
    return error.model_copy(update=update) if update else error


def _encode(message: types.JSONRPCMessage) -> bytes:
    if isinstance(message, types.JSONRPCError):
        error = _bounded_error(message.error)
        if error is not message.error:
            message = message.model_copy(update={"error": error})
    try:
        text = message.model_dump_json(by_alias=True, exclude_unset=True)
    except ValueError:
        # A lone surrogate (a valid \ud800 escape from the client, echoed back) cannot be
        # UTF-8; as an ASCII escape it goes back exactly as it came.
        data = message.model_dump(mode="python", by_alias=True, exclude_unset=True)
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), default=str)
    return text.encode("utf-8") + b"\n"


def _fault_bytes(fault: Fault) -> bytes:
    return json.dumps(fault.response(), separators=(",", ":")).encode("utf-8") + b"\n"


class StdioChannel:
    """One serving of the MCP server over fds ``stdin_fd``/``stdout_fd``; see the module doc."""

    def __init__(
        self,
        stdin_fd: int,
        stdout_fd: int,
        eof_grace: float = EOF_GRACE_SECONDS,
        held: list[str] | None = None,
    ) -> None:
        self.stdin_fd = stdin_fd
        self.stdout_fd = stdout_fd
        self.eof_grace = eof_grace
        self.stopped_by: str | None = None
        """Why serving stopped early: a signal's name, or ``"EPIPE"``."""
        self._held = held if held is not None else []
        """Signals that came before serving could take them (see :func:`serve_stdio`)."""
        self._reading = False
        """Whether the reader thread holds input it has not handed on yet."""
        self._input_done = False
        self._pending: Counter[tuple[str, object]] = Counter()
        self._given_up: set[tuple[str, object]] = set()
        """Requests answered here with an error after EOF: a late SDK answer is dropped."""
        self._eof = False
        self._in_flight = 0
        """Requests read and not yet answered (``_pending``'s total, for the reader thread)."""
        self._room = threading.Condition()

    async def serve(self, server: Server[Any], init_options: InitializationOptions) -> None:
        loop = asyncio.get_running_loop()
        self._answered = anyio.Event()
        self._idle = anyio.Event()
        self._scope = anyio.CancelScope()
        output = _Output(self.stdout_fd, loop, lambda: self._stop("EPIPE"), self._room)
        to_sdk, sdk_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        sdk_writes, from_sdk = anyio.create_memory_object_stream[SessionMessage](0)
        self._output = output
        self._to_sdk = to_sdk
        self._from_sdk = from_sdk
        with contextlib.suppress(NotImplementedError):  # no loop signal handlers on Windows
            for signum in STOP_SIGNALS:
                loop.add_signal_handler(signum, self._stop, signal.Signals(signum).name)
        if self._held:
            loop.call_soon(self._stop, self._held[0])
        try:
            with self._scope:
                async with anyio.create_task_group() as group:
                    group.start_soon(self._write_answers, from_sdk)
                    threading.Thread(target=self._read_lines, args=(loop,), name="stdin", daemon=True).start()
                    await server.run(sdk_reads, sdk_writes, init_options)
        finally:
            with contextlib.suppress(NotImplementedError):
                for signum in STOP_SIGNALS:
                    loop.remove_signal_handler(signum)
            from_sdk.close()
            flush = FLUSH_SECONDS if self.stopped_by else self.eof_grace
            await anyio.to_thread.run_sync(output.drain, flush, abandon_on_cancel=True)

    def _stop(self, reason: str) -> None:
        if self.stopped_by is None:
            self.stopped_by = reason
            logger.info("ledger-context: stopping (%s)", reason)
            if reason.startswith("SIG"):
                _exit_soon(self._output)
                self._counted()  # the reader stops waiting for room, and passes nothing on
                asyncio.get_running_loop().create_task(self._wind_down(reason))
                return
        self._end_serving()

    def _end_serving(self) -> None:
        # Answers the SDK hands over from now on fail at once instead of being written.
        self._from_sdk.close()
        self._scope.cancel()
        self._counted()

    async def _wind_down(self, signal_name: str) -> None:
        """A signal: let what runs finish for a moment, answer the rest with an error, end.
        What the client had sent is read first: each request in it gets its answer."""
        with anyio.move_on_after(SIGNAL_GRACE_SECONDS):
            while not self._caught_up():
                await anyio.sleep(0.01)
        if self._pending:
            self._idle = anyio.Event()  # set by the writer when the last answer is handed on
            with anyio.move_on_after(SIGNAL_GRACE_SECONDS):
                await self._idle.wait()
        await self._give_up_pending(
            f"the server was stopped ({signal_name}) before this request finished; "
            "send it again to a new server"
        )
        self._end_serving()

    def _caught_up(self) -> bool:
        """Whether the reader has handed on all the input there is. The pipe is looked at
        first: input the reader takes after that is marked as held before it is read."""
        if self._input_done:
            return True
        waiting = unread(self.stdin_fd)  # first: see the docstring
        return not waiting and not self._reading

    def _counted(self) -> None:
        """Recount the requests in flight and wake the reader if it waits for room."""
        self._in_flight = sum(self._pending.values())
        with self._room:
            self._room.notify_all()

    def _wait_for_room(self) -> None:
        """Block the reader thread while too many answers wait (the backpressure)."""
        with self._room:
            while self.stopped_by is None and (
                self._in_flight >= MAX_IN_FLIGHT or self._output.queued_bytes >= OUTPUT_BYTES
            ):
                self._room.wait(0.5)

    # -- stdin: a daemon thread splits and checks lines, the loop hands them on ------------

    def _read_lines(self, loop: asyncio.AbstractEventLoop) -> None:
        splitter = LineSplitter()

        def hand_on(line: bytes | Fault) -> bool:
            item = line if isinstance(line, Fault) else _checked(line)
            if item is None:
                return True
            self._wait_for_room()
            try:
                asyncio.run_coroutine_threadsafe(self._deliver(item), loop).result()
            except BaseException:  # the loop stopped serving: nothing left to read for
                return False
            return True

        while True:
            ready(self.stdin_fd, select.POLLIN, None)  # input or its end
            self._reading = True  # before the read: see _caught_up
            try:
                chunk = os.read(self.stdin_fd, READ_CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                break
            for line in splitter.feed(chunk):
                if not hand_on(line):
                    return
            self._reading = False
        self._input_done = True
        last = splitter.finish()
        if last is not None and not hand_on(last):
            return
        with contextlib.suppress(BaseException):
            asyncio.run_coroutine_threadsafe(self._end_of_input(), loop).result()

    async def _deliver(self, item: SessionMessage | Fault) -> None:
        if isinstance(item, Fault):
            logger.info("ledger-context: answered a bad line: %s", item.message)
            await self._output.put(_fault_bytes(item))
            return
        message = item.message
        if self.stopped_by is not None:  # read after a signal: answered here, never run
            if isinstance(message, types.JSONRPCRequest):
                error = {"code": INTERNAL_ERROR, "message": f"the server is stopping ({self.stopped_by})"}
                answer = {"jsonrpc": "2.0", "id": message.id, "error": error}
                await self._output.put(json.dumps(answer, separators=(",", ":")).encode("utf-8") + b"\n")
            return
        if isinstance(message, types.JSONRPCRequest):
            self._pending[_key(message.id)] += 1
            self._counted()
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            # A cancelled request is never answered (spec): stop waiting for it.
            self._pending.pop(_key((message.params or {}).get("requestId")), None)
            self._counted()
        await self._to_sdk.send(item)

    async def _end_of_input(self) -> None:
        """EOF: answer what was read, then tell the SDK (it cancels what still runs)."""
        self._eof = True
        if self._pending:
            with anyio.move_on_after(self.eof_grace) as waited:
                await self._answered.wait()
            if waited.cancelled_caught:
                logger.warning(
                    "ledger-context: stdin closed; %d request(s) still running after %.0f s are "
                    "cancelled and answered with an error",
                    sum(self._pending.values()),
                    self.eof_grace,
                )
                await self._give_up_pending(
                    f"the client closed the server's input and this request did not finish within "
                    f"{self.eof_grace:g} s; it was cancelled (keep the input open until every answer arrives)"
                )
        self._to_sdk.close()

    async def _give_up_pending(self, message: str) -> None:
        """Answer every request still running with ``message`` as an error: none is ever
        left unanswered."""
        for key in list(self._pending):
            self._given_up.add(key)
            error = {"jsonrpc": "2.0", "id": key[1], "error": {"code": INTERNAL_ERROR, "message": message}}
            await self._output.put(json.dumps(error, separators=(",", ":")).encode("utf-8") + b"\n")
        self._pending.clear()
        self._counted()
        _exit_soon(self._output)  # the cancelled work may sit in a worker thread: don't wait for it

    # -- stdout ------------------------------------------------------------------------

    async def _write_answers(self, from_sdk: MemoryObjectReceiveStream[SessionMessage]) -> None:
        with contextlib.suppress(anyio.ClosedResourceError):
            async for item in from_sdk:
                message = item.message
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    key = _key(message.id)
                    if key in self._given_up:
                        continue  # answered already, with the error of _give_up_pending
                    if self._pending[key] > 1:
                        self._pending[key] -= 1
                    else:
                        self._pending.pop(key, None)
                    self._counted()
                    if not self._pending:
                        self._idle.set()
                        if self._eof:
                            self._answered.set()
                await self._output.put(_encode(message))

    _answered: anyio.Event
    _idle: anyio.Event
    _scope: anyio.CancelScope
    _output: _Output
    _to_sdk: MemoryObjectSendStream[SessionMessage | Exception]
    _from_sdk: MemoryObjectReceiveStream[SessionMessage]


def _checked(line: bytes) -> SessionMessage | Fault | None:
    """A line as the SDK's message, or the fault to answer it with (None: a blank line)."""
    parsed = parse_line(line)
    if parsed is None or isinstance(parsed, Fault):
        return parsed
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(parsed, by_name=False))
    except ValidationError:
        return Fault(
            INVALID_REQUEST,
            "invalid request: not a JSON-RPC 2.0 request, notification or response "
            '(a request needs "method" and an "id" that is a string or an integer)',
            request_id(parsed),
        )


def _claim_stdio() -> tuple[int, int]:
    """Private duplicates of fds 0 and 1 for the wire; fd 0 then reads /dev/null and fd 1
    writes to /dev/null, so nothing else in the process can touch the wire."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY)):
        null = os.open(os.devnull, mode)
        os.dup2(null, fd)
        os.close(null)
    return wire_in, wire_out


def serve_stdio(server: Server[Any], init_options: InitializationOptions) -> str | None:
    """Serve ``server`` over stdin/stdout until EOF, EPIPE or a signal.

    Returns why serving stopped early (``"SIGINT"``, ``"SIGTERM"``, ``"EPIPE"``), or
    ``None`` after EOF on stdin.
    """
    held: list[str] = []

    def hold(signum: int, frame: object) -> None:
        held.append(signal.Signals(signum).name)

    # From here a signal is the channel's: held until its loop takes signals, then a stop
    # like any other (the handlers that answer while the server starts read fd 0, which
    # _claim_stdio is about to point at /dev/null).
    for signum in STOP_SIGNALS:
        signal.signal(signum, hold)
    wire_in, wire_out = _claim_stdio()
    channel = StdioChannel(wire_in, wire_out, held=held)
    anyio.run(channel.serve, server, init_options)
    return channel.stopped_by

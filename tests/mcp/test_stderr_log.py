"""stderr logging never blocks: a full pipe drops and counts records, cut records, cut arguments."""

from __future__ import annotations

import logging
import os
import time

from ledger_context.mcp.stderr_log import (
    MAX_ARGUMENT_CHARS,
    MAX_LINE_CHARS,
    MAX_RECORD_LINES,
    NonBlockingStderrHandler,
    bounded_record,
    cut,
)


def _logger(handler: logging.Handler) -> logging.Logger:
    logger = logging.getLogger(f"test_stderr_log.{id(handler)}")
    logger.propagate = False
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    return logger


def _read_all(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def test_a_pipe_nobody_reads_never_blocks_logging_and_the_drop_count_follows_the_drain() -> None:
    read_end, write_end = os.pipe()
    handler = NonBlockingStderrHandler(write_end, capacity=100)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = _logger(handler)
    started = time.monotonic()
    for i in range(20_000):  # far more than a 64 KiB pipe and the queue hold
        logger.info("line %d %s", i, "x" * 5000)
    assert time.monotonic() - started < 10  # a blocking write would never return
    assert handler.dropped > 0
    received = b""
    deadline = time.monotonic() + 10
    while b"dropped: stderr was full" not in received and time.monotonic() < deadline:
        received += _read_all(read_end)
        time.sleep(0.01)  # draining the pipe is what lets the writer report
    assert handler.drain(10)
    received += _read_all(read_end)
    os.close(read_end)
    os.close(write_end)
    lines = received.decode().splitlines()
    dropped = sum(int(line.split()[2]) for line in lines if line.endswith("dropped: stderr was full"))
    written = [line for line in lines if line.startswith("line ")]
    assert len(written) + dropped == 20_000
    assert all(len(line) <= MAX_LINE_CHARS + 20 for line in lines)


def test_string_arguments_are_cut_before_formatting() -> None:
    read_end, write_end = os.pipe()
    handler = NonBlockingStderrHandler(write_end)
    handler.setFormatter(logging.Formatter("%(message)s"))
    _logger(handler).info("Unknown tool: %r", "n" * 200_000)
    assert handler.drain(5)
    text = _read_all(read_end).decode()
    os.close(read_end)
    os.close(write_end)
    assert text == f"Unknown tool: '{'n' * MAX_ARGUMENT_CHARS}… (200000 chars)'\n"


def test_records_are_cut_to_bounded_lines_keeping_a_tracebacks_end() -> None:
    text = "\n".join(f"frame {i}" for i in range(100)) + "\nValueError: " + "v" * 5000
    lines = bounded_record(text).splitlines()
    assert len(lines) == MAX_RECORD_LINES
    assert lines[:2] == ["frame 0", "frame 1"] and lines[2] == "… (62 lines cut)"
    assert lines[-1] == cut("ValueError: " + "v" * 5000, MAX_LINE_CHARS)
    assert lines[-2] == "frame 99"


def test_a_closed_stderr_is_not_an_error() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    handler = NonBlockingStderrHandler(write_end)
    _logger(handler).info("nobody listens")
    assert handler.drain(5)
    os.close(write_end)

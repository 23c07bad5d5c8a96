"""Ledger paths: names read as bytes and decoded as UTF-8, printed as clean text (spec §1).

File names are read as bytes and decoded here, never by the locale or the file-system
encoding, so a pack is the same under ``LC_ALL=C``, a Latin-1 locale or UTF-8. Bytes that
are not valid UTF-8 survive as lone surrogates (``surrogateescape``): such a path is
reported, never read, and printed quoted, with escapes (:func:`printable_path`).
"""

from __future__ import annotations

import os
import re

_BAD_PATH = "[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]"
"""What a path may not hold (spec §1): control characters, line separators, lone
surrogates. Every one is unprintable, so ``str.isprintable()`` clears almost every name
without it; the patterns here are compiled on first use (``re`` keeps them): the
surrogate range costs a short command 0.3-0.8 ms to compile."""


def _bad_char(text: str) -> re.Match[str] | None:
    """The first character of ``text`` a path may not hold, or ``None``."""
    return None if text.isprintable() else re.search(_BAD_PATH, text)


def name_text(name: bytes) -> str:
    """A file name's bytes as text: strict UTF-8, other bytes kept as lone surrogates."""
    return name.decode("utf-8", "surrogateescape")


def name_bytes(name: str) -> bytes:
    """The inverse of :func:`name_text`."""
    return name.encode("utf-8", "surrogateescape")


def space_bytes(space: str | os.PathLike[str]) -> bytes:
    """The space path as the bytes the file system knows it by (it came from the command
    line, the environment or the working directory, all decoded by ``os.fsdecode``)."""
    return os.fsencode(space)


def fs_path(space: str | os.PathLike[str], path: str) -> bytes:
    """Where to open the document ``path`` (relative to ``space``, ``/`` separators).

    One join of the whole path: its names never hold a ``/`` and are never empty, so
    this equals joining them one by one, at a third of the cost (it runs per file)."""
    return os.path.join(space_bytes(space), name_bytes(path))


_PATH_ESCAPES = '[\\\\"\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]'


def printable_path(path: str) -> str:
    r"""``path`` itself when it is clean text, else ``path`` quoted, with escapes.

    The quoted form, the same in text and in JSON, is ``"`` + the path + ``"`` where a
    control character or line separator is ``\uNNNN``, a byte that was not valid UTF-8
    (kept as a lone surrogate) is ``\xNN``, and ``\`` and ``"`` are ``\\`` and ``\"``.
    It cannot be read as a clean path, which never starts with ``"`` (a ledger path
    starts with ``.ledger``; a space is an absolute path) and is never quoted.
    """
    if _bad_char(path) is None:
        return path
    return '"' + re.sub(_PATH_ESCAPES, _escape, path) + '"'


def printable_text(text: str) -> str:
    """Text from outside (what a client says of itself) as a terminal must show it: as
    written when every character is printable (``str.isprintable``), else quoted, with
    every unprintable character (controls, bidirectional and other format characters,
    separators, lone surrogates) written as its ``\\u``/``\\U`` escape and ``\\`` and
    ``"`` escaped. Linear in the text."""
    if text.isprintable():
        return text
    return '"' + "".join(_text_char(char) for char in text) + '"'


def _text_char(char: str) -> str:
    if char in '\\"':
        return "\\" + char
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable_json(text: str) -> str:
    """JSON text (``ensure_ascii=False``) with every unprintable character but the
    newlines of its indentation written as a ``\\u`` escape (a pair past U+FFFF): the
    same JSON value, safe on a terminal. Inside strings JSON has escaped controls already;
    this adds the rest (C1 controls, bidirectional and other format characters)."""
    # Line by line: str.isprintable clears nearly every line at C speed.
    return "\n".join(line if line.isprintable() else _json_line(line) for line in text.split("\n"))


def _json_line(line: str) -> str:
    return "".join(char if char.isprintable() else _json_char(ord(char)) for char in line)


def _json_char(code: int) -> str:
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in '\\"':
        return "\\" + char
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def path_fault(path: str) -> str | None:
    """Why ``path`` cannot be written into a title line (spec §1), or ``None`` if clean."""
    match = _bad_char(path)
    if match is None:
        return None
    if 0xD800 <= ord(match.group()) <= 0xDFFF:
        return "its name is not valid UTF-8"
    return "its name holds a control character or line separator"


def is_clean_name(name: str) -> bool:
    """True if the file name ``name`` can be part of a path (a quick :func:`path_fault`)."""
    return name.isprintable() or (not name.isascii() and re.search(_BAD_PATH, name) is None)

"""Parsing one file's bytes into a document, with no I/O (spec §2–3, §7).

:func:`parse_document` decodes, splits the frontmatter, loads it and reads the fields.
The walk and the reader do the I/O and hand it the bytes they read, so tests, the cache
and any other source of bytes (a git object) parse the same way.

Only what the pack can use is computed: the H1 title scan only for a document whose
block has a title line (its status selects it) and whose frontmatter gives no title;
the metrics list only for a selected eval; nothing from an experiment's body.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .classify import UNKNOWN, declared_class
from .document import DATED_KINDS, SELECTING_STATUS, Document, FileResult
from .fields import Timestamp, parse_updated_at, slug_of, status_of, title_of
from .frontmatter import (
    DecodeError,
    FrontmatterError,
    Loaded,
    Split,
    decode_text,
    load_frontmatter,
    split_frontmatter,
)
from .markdown import first_h1, metrics_list
from .problems import Problem

CLASS_KEY = "data_class"
_UNKNOWN_CLASS_HINT = "treated as stricter than restricted (withheld under any ceiling)"


def parse_document(kind: str, path: str, data: bytes) -> FileResult:
    """Parse the bytes of the ``kind`` document at ``path``; never raises for a broken file.

    Returns the :class:`~ledger_context.document.Document` (``None`` when the document is
    invalid and skipped) and every problem met, each naming ``path``.
    """
    size = len(data)
    try:
        text = decode_text(data)
    except DecodeError as exc:
        message = f"not valid UTF-8 (first bad byte at offset {exc.offset}); skipped (save as UTF-8)"
        return FileResult(None, (Problem(path, "error", message),), size)
    sha256 = hashlib.sha256(data).hexdigest()
    problems: list[Problem] = []
    split = split_frontmatter(text)
    if kind == "agents":
        document = _agents(path, size, sha256, text, split, problems)
        return FileResult(document, tuple(problems), size)
    loaded, fault = _load_frontmatter(path, split, problems)
    if loaded is None or split.frontmatter is None:
        assert fault is not None
        problems.append(Problem(path, "error", f"{fault.message}; skipped", fault.line, fault.column))
        return FileResult(None, tuple(problems), size)
    mapping = loaded.mapping
    status, updated, slug = _read_fields(kind, path, mapping, problems)
    title = ""
    if renders_title(kind, status):
        title = title_of(mapping.get("title"), None, "")
        if not title:
            title = title_of(None, first_h1(split.body), slug)
    metrics = tuple(metrics_list(split.body)) if renders_metrics(kind, status) else ()
    data_class = _data_class(path, mapping, problems)
    document = Document(
        kind=kind,
        path=path,
        size=size,
        frontmatter=split.frontmatter,
        status=status,
        updated=updated,
        slug=slug,
        title=title,
        data_class=data_class,
        metrics=metrics,
        sha256=sha256,
        yaml_loader=loaded.loader,
    )
    return FileResult(document, tuple(problems), size)


def renders_title(kind: str, status: str | None) -> bool:
    """Whether a document's block has a title line: its status selects it (spec §4–5)."""
    return status is not None and SELECTING_STATUS.get(kind) == status


def renders_metrics(kind: str, status: str | None) -> bool:
    """Whether a document's block can carry a metrics list: a selected eval (spec §5)."""
    return kind == "eval" and status == "active"


def _agents(path: str, size: int, sha256: str, text: str, split: Split, problems: list[Problem]) -> Document:
    """``agents.md``: included verbatim; only its ``data_class`` is read (spec §2, §7).

    A broken frontmatter, or one that opens like TOML (``+++``) or JSON (``{``), leaves
    its class unknown: it is included without a ceiling and withheld under any.
    """
    data_class: str | None = None
    loader = None
    if split.frontmatter is not None or split.unclosed:
        loaded, fault = _load_frontmatter(path, split, problems)
        if loaded is None:
            assert fault is not None
            message = f"{fault.message}; included as text, its data class is unknown ({_UNKNOWN_CLASS_HINT})"
            problems.append(Problem(path, "warning", message, fault.line, fault.column))
            data_class = UNKNOWN
        else:
            data_class = _data_class(path, loaded.mapping, problems)
            loader = loaded.loader
    else:
        other = _other_format(text)
        if other is not None:
            line, name = other
            message = (
                f"opens with a {name} line, another frontmatter format that is not read: its "
                f"data class is unknown ({_UNKNOWN_CLASS_HINT}); declare data_class in YAML "
                "between --- lines"
            )
            problems.append(Problem(path, "warning", message, line, 1))
            data_class = UNKNOWN
    return Document(
        kind="agents",
        path=path,
        size=size,
        frontmatter=None,
        status=None,
        updated=None,
        slug="agents",
        title="",
        data_class=data_class,
        text=text,
        sha256=sha256,
        yaml_loader=loader,
    )


def _other_format(text: str) -> tuple[int, str] | None:
    """``(line, "+++" or "{")`` when the first non-blank line opens TOML or JSON frontmatter."""
    line_number = 1
    start = 0
    while True:
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if line.strip(" \t"):
            break
        if end < 0:
            return None
        start, line_number = end + 1, line_number + 1
    if line.startswith("+++"):
        return line_number, "+++"
    if line.startswith("{"):
        return line_number, "{"
    return None


def _load_frontmatter(
    path: str, split: Split, problems: list[Problem]
) -> tuple[Loaded | None, Problem | None]:
    """The loaded frontmatter, or the fault that makes it unusable (spec §2).

    Duplicate keys are appended to ``problems`` as warnings with their file line.
    """
    if split.frontmatter is None:
        if split.unclosed:
            opening = split.first_line - 1  # the opening boundary line
            return None, Problem(path, "error", "frontmatter is not closed: add a closing --- line", opening)
        return None, Problem(path, "error", "no YAML frontmatter: the file must start with a --- line")
    try:
        loaded = load_frontmatter(split.frontmatter)
    except FrontmatterError as exc:
        line = split.first_line + exc.line - 1 if exc.line is not None else None
        return None, Problem(path, "error", str(exc), line, exc.column)
    for duplicate in loaded.duplicates:
        problems.append(
            Problem(
                path,
                "warning",
                "key given twice; the last value is kept (remove the other)",
                split.first_line + duplicate.line - 1,
                duplicate.column,
            )
        )
    return loaded, None


def _read_fields(
    kind: str, path: str, mapping: dict[Any, Any], problems: list[Problem]
) -> tuple[str | None, Timestamp | None, str]:
    """``status``, ``updated_at`` and ``slug`` (spec §3), reporting what is off."""
    status_value = mapping.get("status")
    if isinstance(status_value, (list, dict)):
        problems.append(
            Problem(path, "warning", "status is a list or mapping, so it never matches; use one word")
        )
    updated = parse_updated_at(mapping.get("updated_at"))
    if updated is None and kind in DATED_KINDS:
        problems.append(
            Problem(
                path,
                "warning",
                "undated: updated_at is missing or not an ISO 8601 date or timestamp "
                "(e.g. 2026-08-11 or 2026-08-11T10:00:00Z); ordered after every dated document",
            )
        )
    slug = slug_of(mapping.get("slug"), path.rsplit("/", 1)[-1])
    return status_of(status_value), updated, slug


def _is_misspelt_class_key(key: Any) -> bool:
    """A key that equals ``data_class`` once case is folded and ``-``, ``_``, spaces go."""
    if not isinstance(key, str) or key == CLASS_KEY:
        return False
    folded = key.casefold()
    if "class" not in folded:
        return False
    return folded.replace("-", "").replace("_", "").replace(" ", "") == "dataclass"


def _data_class(path: str, mapping: dict[Any, Any], problems: list[Problem]) -> str | None:
    """The declared class (spec §7); an unknown value or a misspelt key is reported, never quoted."""
    data_class = declared_class(mapping.get(CLASS_KEY))
    if data_class == UNKNOWN:
        problems.append(
            Problem(
                path,
                "warning",
                f"data_class is not one of public, internal, confidential, restricted; {_UNKNOWN_CLASS_HINT}",
            )
        )
    if any(_is_misspelt_class_key(key) for key in mapping):
        problems.append(
            Problem(
                path,
                "warning",
                "a data_class key is misspelt (letter case or separator): spell it data_class, "
                f"in lower case with an underscore; until then the class is unknown, {_UNKNOWN_CLASS_HINT}",
            )
        )
        data_class = UNKNOWN
    return data_class

"""Parsing one file's bytes into a document, with no I/O (spec §2–3, §7).

:func:`parse_document` decodes, splits the frontmatter, loads it and reads the fields.
The walk and the reader do the I/O and hand it the bytes they read, so tests, the cache
and any other source of bytes (a git object) parse the same way.

Every accepted document gets its fields, its title and its body whatever its status
(search lists and ranks them all); only the metrics list, which nothing but an eval's
block shows, is computed for a selected eval alone.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from ..model.classify import UNKNOWN, declared_class
from ..model.date_shape import date_shape
from ..model.document import DATED_KINDS, Document, FileResult
from ..model.fields import (
    BIDI_CONTROLS,
    Timestamp,
    is_missing,
    parse_updated_at,
    slug_of,
    status_of,
    title_of,
)
from ..model.kinds import KIND
from ..model.problems import Problem
from .frontmatter import (
    DecodeError,
    FrontmatterError,
    Loaded,
    Split,
    YamlOptions,
    decode_text,
    load_frontmatter,
    split_frontmatter,
)
from .markdown import first_h1, metrics_list

CLASS_KEY = "data_class"
_UNKNOWN_CLASS_HINT = "treated as stricter than restricted (withheld under any ceiling)"


def parse_document(
    kind: str,
    path: str,
    data: bytes,
    git_blob: str | None = None,
    *,
    yaml: YamlOptions | None = None,
    keep_body: bool = True,
) -> FileResult:
    """Parse the bytes of the ``kind`` document at ``path``; never raises for a broken file.

    Returns the :class:`~ledger_context.model.document.Document` (``None`` when the document is
    invalid and skipped) and every problem met, each naming ``path``. ``git_blob`` is the
    id git gives ``data``, when the caller knows it; ``yaml`` how frontmatter is loaded;
    without ``keep_body`` the document's body is ``None`` (a build keeps none: the pack
    never shows one, and a ledger's bodies can be gigabytes in memory).
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
        document = _agents(path, size, sha256, git_blob, text, split, problems, yaml)
        return FileResult(document, tuple(problems), size)
    loaded, fault = _load_frontmatter(path, split, problems, text, yaml)
    if loaded is None or split.frontmatter is None:
        assert fault is not None
        problems.append(Problem(path, "error", f"{fault.message}; skipped", fault.line, fault.column))
        return FileResult(None, tuple(problems), size)
    mapping = loaded.mapping
    keys = _KeyFinder(split)
    status, updated, slug = _read_fields(kind, path, mapping, keys, problems)
    body = split.body
    title = title_of(mapping.get("title"), None, "")
    given = bool(title)
    if not title:
        title = title_of(None, first_h1(body), slug)
    if renders_title(kind, status) and BIDI_CONTROLS.search(title):
        # Only a title line can be misread: a title the pack never shows is not reported.
        position = keys.find("title") if given else (None, None)
        problems.append(Problem(path, "warning", _BIDI_MESSAGE, *position))
    metrics = tuple(metrics_list(split.body)) if renders_metrics(kind, status) else ()
    _check_keys(path, mapping, keys, problems, merge_keys=loaded.loader != "quick")
    data_class = _data_class(path, mapping, keys, problems)
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
        git_blob=git_blob,
        yaml_loader=loaded.loader,
        body=body if keep_body else None,
    )
    return FileResult(document, tuple(problems), size)


def renders_title(kind: str, status: str | None) -> bool:
    """Whether a document's block has a title line: its status selects it (spec §4–5)."""
    return KIND[kind].titled(status)


def renders_metrics(kind: str, status: str | None) -> bool:
    """Whether a document's block can carry a metrics list: a selected eval (spec §5)."""
    return KIND[kind].renders_metrics(status)


def _agents(
    path: str,
    size: int,
    sha256: str,
    git_blob: str | None,
    text: str,
    split: Split,
    problems: list[Problem],
    yaml: YamlOptions | None,
) -> Document:
    """``agents.md``: included verbatim; only its ``data_class`` is read (spec §2, §7).

    A broken frontmatter, or one that opens like TOML (``+++``) or JSON (``{``), leaves
    its class unknown: it is included without a ceiling and withheld under any.
    """
    data_class: str | None = None
    loader = None
    if split.frontmatter is not None or split.unclosed:
        loaded, fault = _load_frontmatter(path, split, problems, text, yaml)
        if loaded is None:
            assert fault is not None
            message = f"{fault.message}; included as text; its data class is unknown, {_UNKNOWN_CLASS_HINT}"
            problems.append(Problem(path, "warning", message, fault.line, fault.column))
            data_class = UNKNOWN
        else:
            data_class = _data_class(path, loaded.mapping, _KeyFinder(split), problems)
            loader = loaded.loader
    else:
        other = _other_format(text)
        if other is not None:
            line, name = other
            message = (
                f"{_OTHER_FORMAT[name]}; included as text; its data class is unknown, {_UNKNOWN_CLASS_HINT}"
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
        title=title_of(None, first_h1(split.body), "agents"),
        data_class=data_class,
        text=text,
        sha256=sha256,
        git_blob=git_blob,
        yaml_loader=loader,
        body=split.body,
    )


_OTHER_FORMAT = {
    "+++": "TOML frontmatter is not read: convert it to YAML between --- lines",
    "{": "JSON frontmatter is not read: convert it to YAML between --- lines",
}


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
    # TOML's fence is exactly +++ (a longer run of + is not one), alone on its line or, in
    # the one-line form, followed by a blank and the rest.
    if line.startswith("+++") and (len(line) == 3 or line[3] in " \t"):
        return line_number, "+++"
    if line.startswith("{"):
        return line_number, "{"
    return None


def _load_frontmatter(
    path: str, split: Split, problems: list[Problem], text: str, yaml: YamlOptions | None
) -> tuple[Loaded | None, Problem | None]:
    """The loaded frontmatter, or the fault that makes it unusable (spec §2).

    Duplicate keys are appended to ``problems`` as warnings with their file line.
    """
    if split.frontmatter is None:
        if split.unclosed:
            opening = split.first_line - 1  # the opening boundary line
            return None, Problem(path, "error", "frontmatter is not closed: add a closing --- line", opening)
        other = _other_format(text)
        if other is not None:
            return None, Problem(path, "error", _OTHER_FORMAT[other[1]], other[0], 1)
        return None, Problem(path, "error", "no YAML frontmatter: the file must start with a --- line")
    try:
        loaded = load_frontmatter(split.frontmatter, yaml)
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
    kind: str, path: str, mapping: dict[Any, Any], keys: _KeyFinder, problems: list[Problem]
) -> tuple[str | None, Timestamp | None, str]:
    """``status``, ``updated_at`` and ``slug`` (spec §3), reporting what is off."""
    status_value = mapping.get("status")
    if isinstance(status_value, (list, dict)):
        problems.append(
            Problem(
                path,
                "warning",
                "status is a list or mapping, so it never matches; use one word",
                *keys.find("status"),
            )
        )
    elif KIND[kind].label and KIND[kind].statuses and is_missing(status_value):
        problems.append(
            Problem(
                path,
                "warning",
                f"status is missing, so the document is never selected; add status: "
                f"{KIND[kind].statuses[0]} to put it in the pack",
                *keys.find("status"),
            )
        )
    updated_value = mapping.get("updated_at")
    updated = parse_updated_at(updated_value)
    if updated is None and kind in DATED_KINDS:
        problems.append(
            Problem(
                path,
                "warning",
                undated_message(kind, status_of(status_value), updated_value),
                *(keys.find("updated_at") if updated_value is not None else (None, None)),
            )
        )
    slug = slug_of(mapping.get("slug"), path.rsplit("/", 1)[-1])
    return status_of(status_value), updated, slug


_ISO_EXAMPLE = "(e.g. 2026-08-11 or 2026-08-11T10:00:00Z)"


def undated_message(kind: str, status: str | None, value: Any) -> str:
    """The warning for a dated kind without a usable ``updated_at``: which case it is
    (missing, or a value of a named shape), and its order only where it has one in the
    pack (an experiment always: its rank picks the 10; a finding or decision when its
    status selects it)."""
    if is_missing(value):
        message = f"undated: updated_at is missing; add an ISO 8601 date or timestamp {_ISO_EXAMPLE}"
    else:
        shape = date_shape(value) if isinstance(value, str) else "a list or mapping"
        message = (
            f"undated: updated_at looks like {shape}, not an ISO 8601 date or timestamp; "
            f"write it as YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ {_ISO_EXAMPLE}"
        )
    if KIND[kind].selects(status):  # an experiment always: its rank picks the 10
        message += "; until then it is ordered after every dated document"
    return message


_KNOWN_FIELDS = ("status", "updated_at", "slug", "title")
_BIDI_MESSAGE = (
    "the title holds a bidirectional override or isolate character (U+202A-U+202E, "
    "U+2066-U+2069), so its title line can read differently from its text; remove it "
    "(the title line keeps it)"
)


def _fold(key: str) -> str:
    """A key with letter case folded and ``-``, ``_`` and spaces removed (spec §7's fold)."""
    return key.casefold().replace("-", "").replace("_", "").replace(" ", "")


_FOLDED_FIELDS = {_fold(name): name for name in _KNOWN_FIELDS}


class _KeyFinder:
    """Line and column of a frontmatter key, found in the text only when a fault is
    reported (the quick path keeps no positions). A scan of the lines: linear."""

    def __init__(self, split: Split) -> None:
        self._split = split

    def find(self, key: str, top: bool = True) -> tuple[int | None, int | None]:
        """The file line and column of the last line that starts ``key:`` (at column 1
        when ``top``, else at any indentation), or ``(None, None)``."""
        frontmatter = self._split.frontmatter
        if frontmatter is None or key not in frontmatter:
            return None, None
        found: tuple[int | None, int | None] = (None, None)
        for index, line in enumerate(frontmatter.split("\n")):
            body = line.lstrip(" ")
            indent = len(line) - len(body)
            if top and indent:
                continue
            for spelt in (key, f'"{key}"', f"'{key}'"):
                if body.startswith(spelt) and body[len(spelt) :].lstrip(" \t").startswith(":"):
                    found = (self._split.first_line + index, indent + 1)
                    break
            else:
                continue
            if not top:
                return found
        return found


@lru_cache(maxsize=4096)
def _misspelt_field(key: str) -> str | None:
    """The known field ``key`` misspells (letter case or separator), or ``None``; cached,
    since the same few keys recur in every document of a ledger."""
    if key in _KNOWN_FIELDS or len(key) > 12:
        return None
    return _FOLDED_FIELDS.get(_fold(key))


def _check_keys(
    path: str, mapping: dict[Any, Any], keys: _KeyFinder, problems: list[Problem], merge_keys: bool = True
) -> None:
    """Known field keys in the wrong case or with another separator, and YAML merge keys
    (looked for only when ``merge_keys``: the quick path never reads a ``<<`` key)."""
    for key in mapping:
        if not isinstance(key, str):
            continue
        right = _misspelt_field(key)
        if right is not None:
            problems.append(
                Problem(
                    path,
                    "warning",
                    f"a key differs from {right} only in letter case or separator, so it is not "
                    f"read (keys match exactly): write {right}",
                    *keys.find(key),
                )
            )
    if not merge_keys:
        return
    stack: list[Any] = [mapping]
    seen: set[int] = set()
    while stack:  # merge keys at any depth, without recursion; each alias once (alias bombs)
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            if "<<" in value:
                message = (
                    "a YAML merge key (<<) is not applied: frontmatter is read without YAML "
                    "types, so << is a plain key; write the merged keys out"
                )
                if value is mapping and _merges_a_class(value["<<"]):
                    message = (
                        "a YAML merge key (<<) would set data_class, but merge keys are not applied "
                        "(spec §7 reads data_class at the top level only), so this document declares "
                        "no class and passes any ceiling: write data_class out at the top level"
                    )
                problems.append(Problem(path, "warning", message, *keys.find("<<", top=value is mapping)))
            stack.extend(v for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend(v for v in value if isinstance(v, (dict, list)))


def _merges_a_class(merged: Any) -> bool:
    """Whether the value of a top-level ``<<`` (a mapping or a list of mappings) holds a
    ``data_class`` key, or one spelt like it: a class the reader does not apply."""
    listed = merged if isinstance(merged, list) else [merged]
    # Each mapping once: a list of many aliases to one large mapping must stay linear.
    mappings = {id(m): m for m in listed if isinstance(m, dict)}.values()
    return any(any(k == CLASS_KEY or _is_misspelt_class_key(k) for k in m) for m in mappings)


def _looks_like_class_key(key: Any) -> bool:
    """A key beyond ASCII that is not ``data_class`` but reads as it: after NFKC (fullwidth
    letters) and with every character beyond ASCII removed (zero-width spaces, look-alike
    letters such as Cyrillic ``а``), it folds to ``dataclass`` or to ``dataclass`` less one
    letter. Only reported: spec §7 decides what declares a class."""
    if not isinstance(key, str) or key.isascii() or len(key) > 40:
        return False
    import unicodedata  # here: only a key beyond ASCII needs it

    ascii_only = "".join(c for c in unicodedata.normalize("NFKC", key) if c.isascii())
    folded = _fold(ascii_only)
    return folded == "dataclass" or folded in _CLASS_LESS_ONE_LETTER


_CLASS_LESS_ONE_LETTER = frozenset("dataclass"[:i] + "dataclass"[i + 1 :] for i in range(9))


def _is_misspelt_class_key(key: Any) -> bool:
    """A key that equals ``data_class`` once case is folded and ``-``, ``_``, spaces go."""
    return isinstance(key, str) and _misspells_class(key)


@lru_cache(maxsize=4096)
def _misspells_class(key: str) -> bool:
    """:func:`_is_misspelt_class_key` for a string key; cached like :func:`_misspelt_field`."""
    if key == CLASS_KEY:
        return False
    folded = key.casefold()
    if "class" not in folded:
        return False
    return _fold(key) == "dataclass"


def _data_class(path: str, mapping: dict[Any, Any], keys: _KeyFinder, problems: list[Problem]) -> str | None:
    """The declared class (spec §7); an unknown value or a misspelt key is reported, never quoted."""
    data_class = declared_class(mapping.get(CLASS_KEY))
    if data_class == UNKNOWN:
        problems.append(
            Problem(
                path,
                "warning",
                f"data_class is not one of public, internal, confidential, restricted; {_UNKNOWN_CLASS_HINT}",
                *keys.find(CLASS_KEY),
            )
        )
    for key in mapping:
        if _looks_like_class_key(key):
            problems.append(
                Problem(
                    path,
                    "warning",
                    "a key looks like data_class but holds invisible or non-ASCII characters, so it "
                    "is not read (spec §7) and does not declare this document's class: spell it "
                    "data_class in plain ASCII",
                    *keys.find(key),
                )
            )
        if _is_misspelt_class_key(key):
            problems.append(
                Problem(
                    path,
                    "warning",
                    "a data_class key is misspelt (letter case or separator): spell it data_class, in "
                    f"lower case with an underscore; until then the class is unknown, {_UNKNOWN_CLASS_HINT}",
                    *keys.find(key),
                )
            )
            data_class = UNKNOWN
    return data_class

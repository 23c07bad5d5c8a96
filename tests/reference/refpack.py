"""Reference implementation of the context pack, used as a test oracle.

This module is a separate implementation of sections 1-7 of
``docs/spec.md``. It was written from the spec text
alone, without reading the real implementation under ``server/``. It favours
being obvious over being fast. It needs only the standard library and PyYAML.

Public functions:

* ``reference_pack(space, cap_tokens=6000, max_data_class=None) -> bytes``:
  the exact bytes of the pack.
* ``reference_withheld(space, max_data_class) -> list[str]``: the sorted paths
  of the sources withheld by the data-class ceiling (section 7).
* ``reference_blocks(space, max_data_class=None) -> list[RefBlock]``: the
  candidate blocks before the budget (sections 4-5). This helps when you debug
  a differential failure.

Wherever the spec says nothing, the choice made here is marked with a comment
that starts ``# SPEC-SILENT:``.

Problems that the spec says must be "reported" (warnings, skipped files) do
not change the pack's bytes, so this oracle only skips those files. It
collects no messages.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# §2: "loaded without implicit typing, with PyYAML's CBaseLoader (libyaml;
# fall back to BaseLoader only where libyaml is missing)".
try:
    YAML_LOADER: Any = yaml.CBaseLoader
except AttributeError:  # pragma: no cover - libyaml missing
    YAML_LOADER = yaml.BaseLoader

# §1: the five kind folders.
KINDS: tuple[str, ...] = ("harnesses", "evals", "findings", "decisions", "experiments")

# §1: "A file larger than 10 MiB is skipped".
MAX_FILE_BYTES = 10 * 1024 * 1024

# §7: known classes, least to most strict. An unknown value ranks above
# `restricted` (fail closed).
CLASS_RANK: dict[str, int] = {"public": 0, "internal": 1, "confidential": 2, "restricted": 3}
UNKNOWN_CLASS = "unknown"
UNKNOWN_RANK = 4

# §4: the group number and the status each kind must have to be selected.
GROUP_OF_KIND: dict[str, int] = {
    "agents": 1,
    "harnesses": 2,
    "evals": 3,
    "findings": 4,
    "decisions": 5,
    "experiments": 6,
}
SELECTING_STATUS: dict[str, str] = {
    "harnesses": "active",
    "evals": "active",
    "findings": "current",
    "decisions": "accepted",
}
# §5: title-line labels for groups 2-5.
LABEL_OF_KIND: dict[str, str] = {
    "harnesses": "Harness",
    "evals": "Eval",
    "findings": "Finding",
    "decisions": "Decision",
}
# §4: group 6 keeps this many experiments.
EXPERIMENTS_KEPT = 10

# §2: a blank line is a line of only spaces and tabs. A boundary line is
# three or more `-` followed only by spaces or tabs.
_BLANK_LINE = re.compile(r"[ \t]*")
_BOUNDARY_LINE = re.compile(r"-{3,}[ \t]*")


# ---------------------------------------------------------------------------
# §1 Space and ledger: discovery
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    """One way of reaching a file (§1). ``path`` is relative to the space and uses `/`."""

    path: str
    fs_path: str
    real: str
    kind: str  # "agents" or one of KINDS
    name: str  # the last path component (the file name, or the link's name)


def _inside(real: str, root_real: str) -> bool:
    """§1: does ``real`` lie inside the ledger root's real path?"""
    # SPEC-SILENT: the root itself counts as "inside". A link to the root, or
    # to an ancestor on the walk, is then caught as a directory loop.
    if real == root_real:
        return True
    return real.startswith(root_real.rstrip(os.sep) + os.sep)


def _follow(fs_path: str, root_real: str) -> tuple[str, os.stat_result] | None:
    """§1 symbolic links: return (real path, stat of the target), or None to skip.

    A link is followed only when its target's real path lies inside the ledger
    root's real path. Any other link is skipped, and so is a dangling one
    (a chain of links that loops counts as dangling).
    """
    if os.path.islink(fs_path):
        try:
            st = os.stat(fs_path)  # follows the link; fails if dangling or looping
        except OSError:
            return None
        real = os.path.realpath(fs_path)
        if not _inside(real, root_real):
            return None
        return real, st
    try:
        st = os.lstat(fs_path)
    except OSError:
        return None
    return os.path.realpath(fs_path), st


def _path_is_clean(path: str) -> bool:
    """§1: reject a path that holds a Cc character, U+2028/U+2029, or bytes that are not UTF-8.

    Python turns undecodable bytes in file names into lone surrogates
    (surrogateescape), so a surrogate here means "not valid UTF-8".
    """
    for ch in path:
        cat = unicodedata.category(ch)
        if cat == "Cc" or cat == "Cs" or ch in ("\u2028", "\u2029"):
            return False
    return True


def _walk_kind_folder(
    dir_fs: str,
    dir_rel: str,
    kind: str,
    ancestors: frozenset[str],
    root_real: str,
    out: list[_Candidate],
) -> None:
    """§1: collect every `*.md` regular file anywhere below a kind folder.

    Names starting with `.` are ignored. Links are followed only into the
    root. A directory whose real path is already on the current chain of
    ancestors is a loop and is not entered again.
    """
    try:
        names = sorted(os.listdir(dir_fs))
    except OSError:
        # SPEC-SILENT: a folder that cannot be listed contributes nothing.
        return
    for name in names:
        if name.startswith("."):
            continue
        child_fs = os.path.join(dir_fs, name)
        child_rel = dir_rel + "/" + name
        followed = _follow(child_fs, root_real)
        if followed is None:
            continue
        real, st = followed
        if stat.S_ISDIR(st.st_mode):
            # SPEC-SILENT: a "loop" is a directory whose real path is already on
            # the chain of directories that led here (ledger root included).
            # Two different links to the same non-ancestor folder are both
            # walked, and the dedupe below keeps one path per file.
            if real in ancestors:
                continue
            _walk_kind_folder(child_fs, child_rel, kind, ancestors | {real}, root_real, out)
        elif stat.S_ISREG(st.st_mode) and name.endswith(".md"):
            # SPEC-SILENT: a directory whose name ends in `.md` is walked as a
            # folder. Only regular files are documents (no FIFOs or devices).
            out.append(_Candidate(child_rel, child_fs, real, kind, name))
        # Anything else (`*.MD`, `*.markdown`, images, ...) is ignored.
        # A warning would be reported, but that does not change the pack.


def _ledger_root(space: Path) -> str:
    """§1: the ledger root is ``<space>/.ledger`` (it may be a symbolic link to a directory)."""
    root = os.path.join(os.fspath(space), ".ledger")
    if not os.path.isdir(root):
        # SPEC-SILENT: for the oracle, a "space" without a `.ledger` directory
        # is a caller error and raises.
        raise ValueError(f"not a space (no .ledger directory): {space}")
    return root


def _discover(space: Path) -> list[_Candidate]:
    """§1: find agents.md and every document, then keep one path per file.

    A file reached by several paths is read once, under the first of those
    paths in code-point order.
    """
    root_fs = _ledger_root(space)
    root_real = os.path.realpath(root_fs)
    # §1: "Names match exactly, case included". Compare against the listing
    # so that a case-insensitive file system cannot match `Decisions/`.
    top_names = set(os.listdir(root_fs))
    found: list[_Candidate] = []

    if "agents.md" in top_names:
        agents_fs = os.path.join(root_fs, "agents.md")
        followed = _follow(agents_fs, root_real)
        if followed is not None and stat.S_ISREG(followed[1].st_mode):
            found.append(_Candidate(".ledger/agents.md", agents_fs, followed[0], "agents", "agents.md"))
        # SPEC-SILENT: an `agents.md` that is not a regular file (a folder, say)
        # counts as absent.

    for kind in KINDS:
        if kind not in top_names:
            continue  # a missing kind folder means no documents of that kind
        kind_fs = os.path.join(root_fs, kind)
        followed = _follow(kind_fs, root_real)
        if followed is None or not stat.S_ISDIR(followed[1].st_mode):
            # SPEC-SILENT: a kind "folder" that is a file, or a link to outside
            # the root, gives no documents.
            continue
        kind_real = followed[0]
        if kind_real == root_real:
            continue  # a kind folder that links to the root itself is a loop
        _walk_kind_folder(
            kind_fs, ".ledger/" + kind, kind, frozenset({root_real, kind_real}), root_real, found
        )

    # §1: a path with control characters, U+2028/U+2029 or bad bytes is skipped.
    # SPEC-SILENT: unclean paths are dropped BEFORE the dedupe, so a file that
    # can also be reached through a clean path is still read under that path.
    clean = [c for c in found if _path_is_clean(c.path)]

    # §1 dedupe. SPEC-SILENT: files are the same when their real paths
    # (os.path.realpath) are equal. Hard links are not merged. The dedupe runs
    # across agents.md and all five kinds: the kind comes from the chosen
    # path. Because `.ledger/agents.md` sorts before every `.ledger/<kind>/...`,
    # a document that links to agents.md is read only as agents.md.
    by_real: dict[str, _Candidate] = {}
    for cand in clean:
        kept = by_real.get(cand.real)
        if kept is None or cand.path < kept.path:
            by_real[cand.real] = cand
    return sorted(by_real.values(), key=lambda c: c.path)


# ---------------------------------------------------------------------------
# §2 Reading a file
# ---------------------------------------------------------------------------


def _read_text(fs_path: str) -> str | None:
    """§1/§2: read at most 10 MiB, decode strict UTF-8, remove a leading BOM, normalise newlines.

    Returns None when the file is skipped: it is too large, cannot be read,
    or is not valid UTF-8.
    """
    try:
        if os.stat(fs_path).st_size > MAX_FILE_BYTES:
            return None
        with open(fs_path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None  # SPEC-SILENT: an unreadable file is skipped like a bad one.
    if len(data) > MAX_FILE_BYTES:
        return None
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        return None
    if text.startswith("\ufeff"):
        text = text[1:]  # only ONE leading BOM is removed
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


@dataclass
class _Frontmatter:
    """§2 result of splitting a decoded text.

    state: "none" (no opening boundary), "unclosed", or "closed".
    text: the lines strictly between the boundaries, joined with "\\n" (only when closed).
    body_lines: the lines after the closing boundary (only when closed).
    """

    state: str
    text: str | None = None
    body_lines: list[str] = field(default_factory=list)


def _split_frontmatter(text: str) -> _Frontmatter:
    """§2: ignore leading blank lines, then require a boundary line and find the next one."""
    lines = text.split("\n")  # only "\n" separates lines; never str.splitlines()
    i = 0
    while i < len(lines) and _BLANK_LINE.fullmatch(lines[i]):
        i += 1
    if i == len(lines) or not _BOUNDARY_LINE.fullmatch(lines[i]):
        return _Frontmatter("none")
    for j in range(i + 1, len(lines)):
        if _BOUNDARY_LINE.fullmatch(lines[j]):
            return _Frontmatter("closed", "\n".join(lines[i + 1 : j]), lines[j + 1 :])
    return _Frontmatter("unclosed")


_YAML_FAILED = object()


def _load_yaml(fm_text: str) -> Any:
    """§2: load with (C)BaseLoader, where every scalar is a string.

    Returns the loaded object, or _YAML_FAILED when it does not parse.
    An empty text, or one holding only comments, loads as None. The caller
    turns None into an empty mapping. A key given twice keeps its last value,
    because the base constructor assigns the keys in order.
    """
    try:
        return yaml.load(fm_text, Loader=YAML_LOADER)
    except Exception:
        # SPEC-SILENT: any exception from the loader (not only YAMLError, for
        # example a RecursionError on absurd nesting) makes the YAML "not parse".
        return _YAML_FAILED


# ---------------------------------------------------------------------------
# §3 Fields
# ---------------------------------------------------------------------------


def _is_null_form(value: Any) -> bool:
    """§3: a string that, after str.strip(), is empty, `~`, or `null` in any case."""
    if not isinstance(value, str):
        return False
    stripped = value.strip()
    return stripped == "" or stripped == "~" or stripped.casefold() == "null"


def _field(fm: dict[str, Any], key: str) -> Any:
    """§3: the value of ``key`` (matched exactly), or None when missing or a null form."""
    if key not in fm:
        return None
    value = fm[key]
    if value is None or _is_null_form(value):
        return None
    return value


def _clean(text: str) -> str:
    """§3 title clean-up, also used for slugs.

    Each Cc character becomes a space, each lone surrogate becomes U+FFFD,
    runs of whitespace become one space, and the ends are stripped.
    """
    out = []
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cc":
            out.append(" ")
        elif category == "Cs":
            out.append("\ufffd")
        else:
            out.append(ch)
    collapsed = re.sub(r"\s+", " ", "".join(out))  # \s == str.isspace for str patterns
    return collapsed.strip()


def _status_is(fm: dict[str, Any], wanted: str) -> bool:
    """§3 status: compared after str.strip() and str.casefold(). A list or mapping never matches."""
    value = _field(fm, "status")
    if not isinstance(value, str):
        return False
    return value.strip().casefold() == wanted


def _updated_at_key(fm: dict[str, Any]) -> _dt.timedelta | None:
    """§3 updated_at: the instant as a timedelta since 0001-01-01 UTC, or None when undated.

    A string accepted by datetime.fromisoformat after stripping. A date alone
    is midnight UTC, and a time without an offset is UTC. The instant is
    worked out with timedelta arithmetic, so extreme offsets (year 1 with
    +01:00) cannot overflow.
    """
    value = _field(fm, "updated_at")
    if not isinstance(value, str):
        return None
    try:
        moment = _dt.datetime.fromisoformat(value.strip())
    except (ValueError, OverflowError):
        return None
    offset = moment.utcoffset() or _dt.timedelta(0)
    return (moment.replace(tzinfo=None) - _dt.datetime(1, 1, 1)) - offset


def _slug(fm: dict[str, Any], file_name: str) -> str:
    """§3 slug: the frontmatter slug, cleaned up. Otherwise the file name without its final `.md`."""
    value = _field(fm, "slug")
    if isinstance(value, str):
        cleaned = _clean(value)
        if cleaned:
            return cleaned
    # SPEC-SILENT: the file name is that of the chosen path (for a link, the
    # link's own name), and it is used as-is, not cleaned up.
    return file_name[: -len(".md")]


# ---------------------------------------------------------------------------
# Markdown: ATX headings and fenced code (used by §3 title and §5 metrics)
# ---------------------------------------------------------------------------

# SPEC-SILENT: CommonMark rules are used for "ATX heading" and "fenced code".
# A heading is 0-3 spaces, then 1-6 `#`, then a space, a tab or the end of
# the line. A fence is 0-3 spaces, then 3 or more backticks or tildes (the
# info string of a backtick fence may not contain a backtick). A fence is
# closed by 0-3 spaces and a run of the same character at least as long,
# then only spaces or tabs. An unclosed fence runs to the end of the body.
# There is no backslash-escape processing, and there are no
# container blocks (lists and quotes).
_ATX_OPEN = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


@dataclass(frozen=True)
class _Line:
    text: str
    in_fence: bool  # part of a fenced code block (fence lines included)
    heading_level: int | None  # ATX heading level, None when not a heading
    heading_text: str | None  # heading content with the closing `#` run removed


def _heading(line: str) -> tuple[int, str] | None:
    """Return (level, text) when ``line`` is an ATX heading."""
    match = _ATX_OPEN.match(line)
    if match is None:
        return None
    level = len(match.group(1))
    content = line[match.end() :].strip(" \t")
    # The closing run of `#`: either the whole content, or a run preceded by
    # a space or tab.
    if re.fullmatch(r"#+", content):
        content = ""
    else:
        closing = re.search(r"[ \t]+#+$", content)
        if closing is not None:
            content = content[: closing.start()]
    return level, content.strip(" \t")


def _scan_body(body_lines: list[str]) -> list[_Line]:
    """Label each body line as fenced code, an ATX heading, or plain text."""
    result: list[_Line] = []
    fence_char: str | None = None
    fence_len = 0
    for line in body_lines:
        if fence_char is not None:
            closing = re.fullmatch(r" {0,3}(" + re.escape(fence_char) + r"+)[ \t]*", line)
            if closing is not None and len(closing.group(1)) >= fence_len:
                fence_char = None
            result.append(_Line(line, True, None, None))
            continue
        opening = _FENCE_OPEN.fullmatch(line)
        if opening is not None and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence_char = opening.group(1)[0]
            fence_len = len(opening.group(1))
            result.append(_Line(line, True, None, None))
            continue
        head = _heading(line)
        if head is None:
            result.append(_Line(line, False, None, None))
        else:
            result.append(_Line(line, False, head[0], head[1]))
    return result


def _title(fm: dict[str, Any], body_lines: list[str], slug: str) -> str:
    """§3 title: frontmatter title (cleaned up), else the first `# ` heading outside fences, else the slug."""
    value = _field(fm, "title")
    if isinstance(value, str):
        cleaned = _clean(value)
        if cleaned:
            return cleaned
    for line in _scan_body(body_lines):
        if line.heading_level == 1:
            # SPEC-SILENT: the heading text gets the same clean-up as a
            # frontmatter title. Only the FIRST level-1 heading is looked at:
            # if its cleaned text is empty (`#` alone), the title is the slug.
            heading = _clean(line.heading_text or "")
            return heading if heading else slug
    return slug


# §5: "start with a list marker (`-`, `*`, `+`, or digits followed by `.` or
# `)`) and a space", after indentation.
# SPEC-SILENT: indentation means spaces and tabs. "Digits" means one or more
# ASCII 0-9, with no length limit. "A space" means exactly U+0020 (a tab
# after the marker does not count).
_LIST_LINE = re.compile(r"[ \t]*(?:[-*+]|[0-9]+[.)]) ")


def _metrics_lines(body_lines: list[str]) -> list[str]:
    """§5 group 3: the verbatim list lines of the first `metrics` heading's section."""
    scanned = _scan_body(body_lines)
    start = None
    level = 0
    for index, line in enumerate(scanned):
        if line.heading_level is not None and (line.heading_text or "").strip().casefold() == "metrics":
            start, level = index, line.heading_level
            break
    if start is None:
        return []
    picked: list[str] = []
    for line in scanned[start + 1 :]:
        if line.heading_level is not None and line.heading_level <= level:
            break  # next heading of the same or a higher level (outside fences)
        # SPEC-SILENT: "the section's lines" is taken literally. A line inside
        # a fenced code block in the section also counts if it looks like a
        # list line. Headings inside fences do not end the section.
        if _LIST_LINE.match(line.text):
            picked.append(line.text)
    return picked


# ---------------------------------------------------------------------------
# §7 Data classes
# ---------------------------------------------------------------------------


def _declared_class(fm: dict[str, Any]) -> str | None:
    """§7: None (declares none), one of the four classes, or "unknown"."""
    value = _field(fm, "data_class")
    if value is None:
        return None
    if isinstance(value, str):
        normal = value.strip().casefold()
        if normal in CLASS_RANK:
            return normal
    return UNKNOWN_CLASS  # unknown string, list or mapping: fail closed


def _rank(data_class: str | None) -> int | None:
    if data_class is None:
        return None
    return CLASS_RANK.get(data_class, UNKNOWN_RANK)


def _ceiling_rank(max_data_class: str | None) -> int | None:
    if max_data_class is None:
        return None
    normal = max_data_class.strip().casefold()
    if normal not in CLASS_RANK:
        # SPEC-SILENT: an unknown ceiling is a caller error for the oracle.
        raise ValueError(f"unknown data class ceiling: {max_data_class!r}")
    return CLASS_RANK[normal]


# ---------------------------------------------------------------------------
# Sources: discovery + reading + fields
# ---------------------------------------------------------------------------


@dataclass
class _Source:
    """A file that was read successfully: agents.md, or a VALID ledger document."""

    kind: str
    path: str
    text: str  # decoded text (only agents.md uses it whole)
    fm_text: str  # frontmatter text ("" for agents.md)
    fm: dict[str, Any]
    body_lines: list[str]
    slug: str
    data_class: str | None


def _load_sources(space: Path) -> list[_Source]:
    """§1-§3: every readable agents.md and every valid document, with its fields.

    Invalid documents (no frontmatter, unclosed, YAML that does not parse or
    is not a mapping), unreadable or non-UTF-8 files and files over 10 MiB are
    skipped.
    """
    sources: list[_Source] = []
    for cand in _discover(space):
        text = _read_text(cand.fs_path)
        if text is None:
            continue
        split = _split_frontmatter(text)
        if cand.kind == "agents":
            # §2: agents.md needs no frontmatter. If it has a valid one, only
            # data_class is read. If it is broken, there is no class.
            fm: dict[str, Any] = {}
            if split.state == "closed":
                loaded = _load_yaml(split.text or "")
                if loaded is None:
                    loaded = {}
                if isinstance(loaded, dict):
                    fm = loaded
            sources.append(_Source("agents", cand.path, text, "", fm, [], "agents", _declared_class(fm)))
            continue
        if split.state != "closed":
            continue  # no frontmatter, or unclosed: invalid
        loaded = _load_yaml(split.text or "")
        if loaded is _YAML_FAILED:
            continue
        if loaded is None:
            loaded = {}  # empty, or only comments: an empty mapping
        if not isinstance(loaded, dict):
            continue  # a list or scalar instead of a mapping: invalid
        slug = _slug(loaded, cand.name)
        sources.append(
            _Source(
                cand.kind,
                cand.path,
                text,
                split.text or "",
                loaded,
                split.body_lines,
                slug,
                _declared_class(loaded),
            )
        )
    return sources


def _split_by_ceiling(
    sources: list[_Source], max_data_class: str | None
) -> tuple[list[_Source], list[_Source]]:
    """§7: (passing, withheld). Withholding happens before selection, in every group.

    A source with a declared class stricter than the ceiling, or with an
    unknown class, is withheld. Undeclared sources pass.
    """
    ceiling = _ceiling_rank(max_data_class)
    if ceiling is None:
        return list(sources), []
    passing: list[_Source] = []
    withheld: list[_Source] = []
    for src in sources:
        rank = _rank(src.data_class)
        if rank is not None and rank > ceiling:
            withheld.append(src)
        else:
            passing.append(src)
    return passing, withheld


# ---------------------------------------------------------------------------
# §4 Blocks and their order, §5 Rendering
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RefBlock:
    """A rendered block (§5). ``text`` ends with "\\n" and excludes the separator."""

    group: int
    kind: str
    path: str
    text: str


def _slug_order(src: _Source) -> tuple[str, str]:
    """§4 groups 2-3: slug ascending, then path (code-point order)."""
    return (src.slug, src.path)


def _newest_first(src: _Source) -> tuple[int, _dt.timedelta, str, str]:
    """§4 "newest first": dated before undated, updated_at descending, slug ascending, path ascending."""
    instant = _updated_at_key(src.fm)
    if instant is None:
        return (1, _dt.timedelta(0), src.slug, src.path)
    return (0, -instant, src.slug, src.path)


def _render_titled(src: _Source) -> str:
    """§5 groups 2-5: the title line, then the fenced frontmatter (and metrics for evals)."""
    title = _title(src.fm, src.body_lines, src.slug)
    parts = [f"## {LABEL_OF_KIND[src.kind]}: {title} ({src.path})\n"]
    parts.append(_fenced(src.fm_text))
    if src.kind == "evals":
        metrics = _metrics_lines(src.body_lines)
        if metrics:
            parts.append("Metrics:\n")
            parts.extend(line + "\n" for line in metrics)
    return "".join(parts)


def _fenced(fm_text: str) -> str:
    """§5: the two fence lines around the frontmatter text. An empty text puts nothing between them."""
    if fm_text == "":
        return "---\n---\n"
    return "---\n" + fm_text + "\n---\n"


def reference_blocks(space: Path, max_data_class: str | None = None) -> list[RefBlock]:
    """§4-§5: every candidate block in pack order, before the budget is applied."""
    sources, _withheld = _split_by_ceiling(_load_sources(Path(space)), max_data_class)
    blocks: list[RefBlock] = []

    # Group 1: agents.md if it exists and is not empty after decoding.
    for src in sources:
        if src.kind == "agents" and src.text != "":
            text = src.text if src.text.endswith("\n") else src.text + "\n"
            blocks.append(RefBlock(1, "agents", src.path, text))

    # Groups 2-5: selected by status.
    for kind in ("harnesses", "evals", "findings", "decisions"):
        chosen = [s for s in sources if s.kind == kind and _status_is(s.fm, SELECTING_STATUS[kind])]
        order = _slug_order if GROUP_OF_KIND[kind] in (2, 3) else _newest_first
        for src in sorted(chosen, key=order):
            blocks.append(RefBlock(GROUP_OF_KIND[kind], kind, src.path, _render_titled(src)))

    # Group 6: the 10 newest valid experiments that pass the ceiling, any status.
    experiments = sorted((s for s in sources if s.kind == "experiments"), key=_newest_first)
    for src in experiments[:EXPERIMENTS_KEPT]:
        blocks.append(RefBlock(6, "experiments", src.path, _fenced(src.fm_text)))
    return blocks


# ---------------------------------------------------------------------------
# §6 Budget
# ---------------------------------------------------------------------------


def _joined(blocks: list[RefBlock]) -> bytes:
    """§5: blocks joined with one "\\n" (a blank line between them, since each block ends with "\\n")."""
    return "\n".join(b.text for b in blocks).encode("utf-8")


def _cut_utf8(data: bytes, limit: int) -> bytes:
    """§6: the longest prefix of at most ``limit`` bytes that does not split a code point."""
    if len(data) <= limit:
        return data
    end = limit
    # A byte 0b10xxxxxx continues a code point: cutting before it would split one.
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end]


def reference_pack(space: Path, cap_tokens: int = 6000, max_data_class: str | None = None) -> bytes:
    """Return the exact pack bytes for ``space`` (spec sections 1-7).

    §6: cap_bytes = 4 * cap_tokens. While the pack is strictly over cap_bytes,
    remove the last block of group 4, 5 or 6. If it is still over, cut it to
    the longest prefix <= cap_bytes that does not split a UTF-8 code point.
    """
    if isinstance(cap_tokens, bool) or not isinstance(cap_tokens, int) or cap_tokens < 1:
        # SPEC-SILENT: for the oracle, a cap below 1 is a caller error.
        raise ValueError(f"cap_tokens must be an integer >= 1, got {cap_tokens!r}")
    cap_bytes = 4 * cap_tokens
    blocks = reference_blocks(Path(space), max_data_class)
    while len(_joined(blocks)) > cap_bytes:
        droppable = [i for i, b in enumerate(blocks) if b.group in (4, 5, 6)]
        if not droppable:
            break
        del blocks[droppable[-1]]
    return _cut_utf8(_joined(blocks), cap_bytes)


def reference_withheld(space: Path, max_data_class: str | None) -> list[str]:
    """§7: sorted paths of the sources withheld by the ceiling ([] without a ceiling).

    SPEC-SILENT: "sources" means every readable agents.md and every VALID
    document of any status, because withholding happens before selection.
    For example, a restricted draft finding that would never be selected is
    still listed. Invalid documents cannot declare a class and are never
    listed. An empty agents.md declares nothing and so always passes.
    """
    _passing, withheld = _split_by_ceiling(_load_sources(Path(space)), max_data_class)
    return sorted(s.path for s in withheld)


__all__ = [
    "CLASS_RANK",
    "KINDS",
    "YAML_LOADER",
    "RefBlock",
    "reference_blocks",
    "reference_pack",
    "reference_withheld",
]

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

File names are read as bytes and decoded as strict UTF-8 here, so the result
does not depend on Python's file-system encoding or the locale (§1, §6).
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
    """One path by which the walk reaches a file (§1).

    ``path`` is relative to the space and uses `/`. ``identity`` is the
    (device, inode) of the file itself, so paths through symbolic links and
    hard links to one file share it. ``via_link`` is true when a component of
    the path below the ledger root is a symbolic link.
    """

    path: str
    fs_path: bytes
    identity: tuple[int, int]
    via_link: bool
    kind: str  # "agents" or one of KINDS
    name: str  # the last path component (the file name, or the link's name)


def _decode_name(raw: bytes) -> str | None:
    """§1: a name read as bytes and decoded as strict UTF-8, whatever the locale.

    Returns None when the name is not clean text: bytes that are not valid
    UTF-8, a control character (Cc), or U+2028/U+2029. Every path below such
    a name holds it, so the whole entry is left out.
    """
    try:
        name = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        return None
    for ch in name:
        if unicodedata.category(ch) == "Cc" or ch in ("\u2028", "\u2029"):
            return None
    return name


def _inside(real: bytes, root_real: bytes) -> bool:
    """§1: does ``real`` lie inside the ledger root's real path?"""
    # SPEC-SILENT: the root itself counts as "inside". A link to the root is
    # then caught as a loop (§1 "Loops"); either way it is skipped.
    if real == root_real:
        return True
    return real.startswith(root_real.rstrip(b"/") + b"/")


def _entry(fs_path: bytes, root_real: bytes) -> tuple[bool, bytes, os.stat_result] | None:
    """§1: (is a symbolic link, real path, stat of what it names), or None to skip it.

    A symbolic link is followed only when its target's real path lies inside
    the ledger root's real path. Any other link is skipped, and so is a
    dangling one (a chain of links that loops counts as dangling). Links to
    links are resolved to the end (os.path.realpath); only the final target
    must lie inside.
    """
    try:
        lst = os.lstat(fs_path)
    except OSError:
        return None
    if not stat.S_ISLNK(lst.st_mode):
        return False, os.path.realpath(fs_path), lst
    try:
        st = os.stat(fs_path)  # follows the link; fails if dangling or looping
    except OSError:
        return None
    real = os.path.realpath(fs_path)
    if not _inside(real, root_real):
        return None
    return True, real, st


def _walk_kind_folder(
    dir_fs: bytes,
    dir_rel: str,
    kind: str,
    via_link: bool,
    on_the_way: tuple[bytes, ...],
    root_real: bytes,
    out: list[_Candidate],
) -> None:
    """§1: collect every `*.md` regular file anywhere below a kind folder.

    ``on_the_way`` holds the real paths of the ledger root and of every folder
    from it down to ``dir_fs`` (``dir_fs`` included). A link to a folder whose
    real path is one of them is a loop: skipped, nothing below it walked.
    """
    # SPEC-SILENT: "the folders on the way down to the link" are the folders
    # the walk went through to reach it (each by its real path), not the real
    # parents of the link's real location. Only a link can be a loop.
    try:
        names = sorted(os.listdir(dir_fs))
    except OSError:
        # SPEC-SILENT: a folder that cannot be listed contributes nothing.
        return
    for raw in names:
        name = _decode_name(raw)
        if name is None or name.startswith("."):
            continue  # unclean names are skipped (reported); hidden ones ignored
        child_fs = dir_fs + b"/" + raw
        entry = _entry(child_fs, root_real)
        if entry is None:
            continue
        is_link, real, st = entry
        if stat.S_ISDIR(st.st_mode):
            if is_link and real in on_the_way:
                continue  # a loop: skipped and reported, nothing below walked
            _walk_kind_folder(
                child_fs,
                dir_rel + "/" + name,
                kind,
                via_link or is_link,
                (*on_the_way, real),
                root_real,
                out,
            )
        elif stat.S_ISREG(st.st_mode) and name.endswith(".md"):
            # SPEC-SILENT: a directory whose name ends in `.md` is walked as a
            # folder. Only regular files are documents (no FIFOs or devices).
            # For a link, its own name must end in `.md`; the target's name
            # does not matter.
            out.append(
                _Candidate(
                    dir_rel + "/" + name,
                    child_fs,
                    (st.st_dev, st.st_ino),
                    via_link or is_link,
                    kind,
                    name,
                )
            )
        # Anything else (`*.MD`, `*.markdown`, images, ...) is ignored.
        # A warning would be reported, but that does not change the pack.


def _ledger_root(space: Path) -> bytes:
    """§1: the ledger root is ``<space>/.ledger`` (it may be a symbolic link to a directory)."""
    root = os.fsencode(space) + b"/.ledger"
    if not os.path.isdir(root):
        # SPEC-SILENT: for the oracle, a "space" without a `.ledger` directory
        # is a caller error and raises.
        raise ValueError(f"not a space (no .ledger directory): {space}")
    return root


def _discover(space: Path) -> list[_Candidate]:
    """§1: find agents.md and every document, then read each file once.

    Returns one candidate per file, sorted by path.
    """
    root_fs = _ledger_root(space)
    root_real = os.path.realpath(root_fs)
    # §1: "Names match exactly, case included". Compare against the listing
    # so that a case-insensitive file system cannot match `Decisions/`.
    top_names = {_decode_name(raw) for raw in os.listdir(root_fs)}
    found: list[_Candidate] = []

    # SPEC-SILENT: `.ledger` being a link does not make every path one "through
    # a link"; only links below the ledger root count for "read once".
    if "agents.md" in top_names:
        entry = _entry(root_fs + b"/agents.md", root_real)
        if entry is not None and stat.S_ISREG(entry[2].st_mode):
            is_link, _real, st = entry
            found.append(
                _Candidate(
                    ".ledger/agents.md",
                    root_fs + b"/agents.md",
                    (st.st_dev, st.st_ino),
                    is_link,
                    "agents",
                    "agents.md",
                )
            )
        # SPEC-SILENT: an `agents.md` that is not a regular file (a folder, say)
        # counts as absent.

    for kind in KINDS:
        if kind not in top_names:
            continue  # a missing kind folder means no documents of that kind
        kind_fs = root_fs + b"/" + kind.encode("ascii")
        entry = _entry(kind_fs, root_real)
        if entry is None or not stat.S_ISDIR(entry[2].st_mode):
            # SPEC-SILENT: a kind "folder" that is a file, or a link to outside
            # the root, gives no documents.
            continue
        is_link, kind_real, _st = entry
        if is_link and kind_real == root_real:
            continue  # a kind folder that links to the root itself is a loop
        _walk_kind_folder(kind_fs, ".ledger/" + kind, kind, is_link, (root_real, kind_real), root_real, found)

    # §1 "Read once": a file reached by several paths (links or hard links) is
    # read once, under its link-free path when there is one; among several
    # link-free paths, or when every path goes through a link, the first in
    # code-point order. The kind comes from the chosen path. This runs across
    # agents.md and all five kinds.
    # SPEC-SILENT: paths that are not clean text never enter this choice (they
    # are skipped at the walk), so a file that can also be reached through a
    # clean path is read under that path.
    by_file: dict[tuple[int, int], list[_Candidate]] = {}
    for cand in found:
        by_file.setdefault(cand.identity, []).append(cand)
    return sorted((_choose_path(paths) for paths in by_file.values()), key=lambda c: c.path)


def _choose_path(paths: list[_Candidate]) -> _Candidate:
    """§1 Read once: the link-free path if there is one, else (or among several) the first by code point."""
    link_free = [c for c in paths if not c.via_link]
    return min(link_free or paths, key=lambda c: c.path)


# ---------------------------------------------------------------------------
# §2 Reading a file
# ---------------------------------------------------------------------------


def _read_text(fs_path: bytes) -> str | None:
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


# §2: "the top mapping is level 1 and each mapping or sequence inside adds a
# level (scalars add none); a frontmatter with a collection deeper than level
# 64 is invalid".
MAX_NESTING = 64


def _raw_nesting(fm_text: str) -> int:
    """The deepest collection nesting in the YAML events, counted without recursion."""
    depth = deepest = 0
    for event in yaml.parse(fm_text, Loader=YAML_LOADER):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return deepest


def _loaded_nesting(value: Any) -> int:
    """The level of the deepest collection in a loaded value (a scalar is 0, ``{}`` is 1).

    An alias to a collection puts that collection (and all it holds) where the
    alias stands, so the depth is measured on the loaded value, aliases
    expanded. PyYAML refuses recursive aliases, so the value has no cycles;
    shared parts are measured once.
    """
    # SPEC-SILENT: nesting counts the loaded value, so an alias to a deep
    # collection adds that collection's depth where the alias stands.
    memo: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, children_done = stack.pop()
        if not isinstance(node, (dict, list)) or (id(node) in memo and not children_done):
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if children_done:
            memo[id(node)] = 1 + max(
                (memo[id(c)] for c in children if isinstance(c, (dict, list))), default=0
            )
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children)
    return memo.get(id(value), 0)


def _load_frontmatter(fm_text: str) -> dict[str, Any] | None:
    """§2: the frontmatter mapping, or None when the frontmatter is invalid.

    Loaded with (C)BaseLoader, where every scalar is a string. Invalid: YAML
    that does not parse, a collection deeper than level 64, or a value that is
    not a mapping. An empty text, or one holding only comments, is an empty
    mapping. A key given twice keeps its last value, because the base
    constructor assigns the keys in order.
    """
    try:
        # The events are checked first, so absurd nesting is refused before
        # anything is built from it.
        if _raw_nesting(fm_text) > MAX_NESTING:
            return None
        loaded = yaml.load(fm_text, Loader=YAML_LOADER)
    except Exception:
        # SPEC-SILENT: any exception from the loader (not only YAMLError)
        # makes the YAML "not parse".
        return None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        return None  # a list or scalar instead of a mapping
    if _loaded_nesting(loaded) > MAX_NESTING:
        return None
    return loaded


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
    # a space or tab. Found by plain string operations, so long runs of
    # spaces, tabs or `#` cost linear time.
    without_run = content.rstrip("#")
    if without_run == "":
        content = ""
    elif len(without_run) < len(content) and without_run[-1] in " \t":
        content = without_run
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


def _is_misspelt_class_key(key: Any) -> bool:
    """§7: a key that is not `data_class` but equals it once case is folded and `-`, `_`, spaces removed."""
    # SPEC-SILENT: "spaces" means U+0020 only, and only top-level keys count.
    # Case folding is str.casefold(), so `DATACLAß` folds to `dataclass` too.
    if not isinstance(key, str) or key == "data_class":
        return False
    folded = key.casefold()
    for removed in ("-", "_", " "):
        folded = folded.replace(removed, "")
    return folded == "dataclass"


def _declared_class(fm: dict[str, Any]) -> str | None:
    """§7: None (declares none), one of the four classes, or "unknown"."""
    if any(_is_misspelt_class_key(key) for key in fm):
        return UNKNOWN_CLASS  # whatever its value, even alongside `data_class`
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


# §2: agents.md that "opens with what looks like another frontmatter format
# (a `+++` line, or a `{` line)" declares unknown.
# SPEC-SILENT: "opens with" means the first line that is not blank (blank as
# in §2: only spaces and tabs), as for a YAML frontmatter. "A `+++` line" is
# `+++` alone or followed by a space or tab (TOML's fence, also in the one-line
# form `+++ key = "v" +++`; `++++` is not one).
# "A `{` line" is any line that starts with `{` (JSON may open and close on
# one line); fail closed.
_OTHER_FORMAT_LINE = re.compile(r"\+\+\+(?:[ \t].*)?|\{.*")


def _opens_with_other_format(text: str) -> bool:
    for line in text.split("\n"):
        if _BLANK_LINE.fullmatch(line):
            continue
        return _OTHER_FORMAT_LINE.fullmatch(line) is not None
    return False


def _agents_source(path: str, text: str, split: _Frontmatter) -> _Source:
    """§2: agents.md needs no frontmatter; if it has a valid one, only data_class is read.

    A broken frontmatter (unclosed, YAML that does not parse or is not a
    mapping) or an opening that looks like another frontmatter format
    declares unknown (§7, fail closed). The text is served verbatim either way.
    """
    # SPEC-SILENT: a frontmatter nested deeper than level 64 is invalid (§2),
    # so for agents.md it counts as broken: unknown.
    data_class: str | None
    if split.state == "closed":
        loaded = _load_frontmatter(split.text or "")
        data_class = UNKNOWN_CLASS if loaded is None else _declared_class(loaded)
    elif split.state == "unclosed" or _opens_with_other_format(text):
        data_class = UNKNOWN_CLASS
    else:
        data_class = None  # no frontmatter: declares none
    return _Source("agents", path, text, "", {}, [], "agents", data_class)


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
            sources.append(_agents_source(cand.path, text, split))
            continue
        if split.state != "closed":
            continue  # no frontmatter, or unclosed: invalid
        loaded = _load_frontmatter(split.text or "")
        if loaded is None:
            continue  # does not parse, nested too deep, or not a mapping: invalid
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

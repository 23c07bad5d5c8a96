"""Hypothesis strategies that generate ledger spaces as data, for differential tests.

A generated space is a plain ``SpaceSpec`` value. ``write_space(root, spec)``
writes it to a fresh directory below ``root`` and returns the space
directory, which holds ``.ledger``. The spec sections named in the comments
refer to ``docs/spec.md``.

Public API:

* ``SpaceSpec``: the data.
* ``spaces(links=True, cross_kind_links=True, max_docs_per_kind=6,
  links_always=False, most_links=4)``: a strategy for ``SpaceSpec``.
* ``document_bytes(kind)``: a strategy for the raw bytes of one ledger
  document, normal or hostile.
* ``agents_bytes()``: a strategy for the raw bytes of ``agents.md``, or None
  when it is absent.
* ``nested_yaml(level, style, with_value)``: YAML whose deepest collection is
  at ``level`` (§2 nesting), in block, flow or mixed style.
* ``cap_tokens()``: small caps (1..400) often, 6000 sometimes, anything up to
  6000 otherwise.
* ``max_data_class()``: None, or one of the four classes.
* ``write_space(root, spec) -> Path``.

The content covers:

* §1: subfolders (chains up to 60 deep), hidden files and folders, `*.MD`
  and `*.markdown`, other attachments, names that are not clean text
  (control characters, U+2028, bytes that are not UTF-8), misspelt
  top-level folders, a `.ledger` that is itself a link, and links: inside,
  outside, dangling, chains of links, loops (to the root, to an ancestor, to
  the folder holding the link), a link that sorts before its target's own
  path, folder links across kinds (experiments/ into findings/ among
  them), agents.md linked to a decision and back, hard links (agents.md
  included), and files reached only through links (a folder outside every
  kind folder, a hidden file, a `.txt` file behind a `.md` link).
* §2: BOM, CRLF, lone CR, invalid UTF-8, missing or unclosed frontmatter,
  YAML errors, a list instead of a mapping, TOML frontmatter, empty
  frontmatter, duplicate keys, nesting at levels 63-66 (block, flow, mixed;
  with and without a value), and agents.md opening with `+++` or `{`, or
  with an unclosed, unparsable or non-mapping frontmatter.
* §3: status in odd case, padded with whitespace, or given as a list or
  mapping. updated_at in many forms: ties, impossible dates, numbers, null
  forms. Slugs and titles with repeats and hostile characters; headings with
  long runs of spaces, tabs and `#`.
* §5: eval bodies with metrics sections, fenced code and list lines.
* §7: data_class in odd case, unknown, or missing; misspelt class keys
  (`Data_Class`, `data class`, ...) with and without `data_class`, and near
  misses that are other keys.
"""

from __future__ import annotations

import os
import posixpath
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

KINDS = ("harnesses", "evals", "findings", "decisions", "experiments")
CLASSES = ("public", "internal", "confidential", "restricted")

# Status words that select a document, per kind (§4).
_SELECTING = {
    "harnesses": "active",
    "evals": "active",
    "findings": "current",
    "decisions": "accepted",
    "experiments": "active",
}


@dataclass(frozen=True)
class SpaceSpec:
    """A ledger space, as data.

    files: (path relative to the ledger root with `/` separators, raw bytes).
        `agents.md` is just the file "agents.md".
    links: (link path relative to the ledger root, target path relative to
        the ledger root). A target may climb out with "../" into the space.
        The link is written as a RELATIVE symbolic link.
    outside: (path relative to the SPACE, raw bytes): files outside `.ledger`.
    ledger_is_symlink: when true, the ledger lives in `<space>/ledger-store`,
        and `<space>/.ledger` is a symbolic link to it (§1).
    hardlinks: (new path, existing file's path), both relative to the ledger
        root: a second name for the same file (§1 "Read once").

    Paths are text; a lone surrogate U+DC80-U+DCFF stands for a raw byte that
    is not UTF-8 (os.fsencode's surrogateescape).
    """

    files: tuple[tuple[str, bytes], ...]
    links: tuple[tuple[str, str], ...] = ()
    outside: tuple[tuple[str, bytes], ...] = ()
    ledger_is_symlink: bool = False
    hardlinks: tuple[tuple[str, str], ...] = ()


# ---------------------------------------------------------------------------
# Writing a space to disk
# ---------------------------------------------------------------------------


def write_space(root: Path, spec: SpaceSpec) -> Path:
    """Write ``spec`` into a NEW directory below ``root`` and return the space directory.

    Each call makes its own directory, so one ``root`` can hold many spaces.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    space = Path(tempfile.mkdtemp(prefix="space-", dir=root))
    if spec.ledger_is_symlink:
        ledger = space / "ledger-store"
        ledger.mkdir()
        os.symlink("ledger-store", space / ".ledger", target_is_directory=True)
    else:
        ledger = space / ".ledger"
        ledger.mkdir()
    for rel, data in spec.files:
        target = ledger.joinpath(*rel.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for rel, data in spec.outside:
        target = space.joinpath(*rel.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for new_rel, existing_rel in spec.hardlinks:
        new = ledger.joinpath(*new_rel.split("/"))
        new.parent.mkdir(parents=True, exist_ok=True)
        os.link(ledger.joinpath(*existing_rel.split("/")), new)
    for link_rel, target_rel in spec.links:
        link = ledger.joinpath(*link_rel.split("/"))
        link.parent.mkdir(parents=True, exist_ok=True)
        # Both paths are relative to the ledger root, so the link text is the
        # target relative to the link's own folder.
        text = posixpath.relpath(target_rel, posixpath.dirname(link_rel) or ".")
        os.symlink(text, link)
    return space


# ---------------------------------------------------------------------------
# Small building blocks
# ---------------------------------------------------------------------------


def _dq(text: str) -> str:
    """A YAML double-quoted scalar for ``text``. Control characters become escapes."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            out.append(f"\\x{code:02x}")
        elif ch in ("\u2028", "\u2029", "\ufeff"):
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# Text pieces for slugs and titles: repeats, whitespace, controls, RTL marks,
# multi-byte and 4-byte characters.
_TEXT_ATOMS = [
    "alpha",
    "beta",
    "alpha",
    "Use JWT",
    "naïve café",
    "日本語",
    "😀",
    "𝔘𝔫𝔦",
    "\u200fRTL\u200e",
    "\u202eevil",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\x07",
    "\x00",
    "\x85",
    "\u2028",
    "\u00a0",
    "\u3000",
    "#",
    "---",
    "(x)",
    ": colon",
    "null",
    "~",
]


@st.composite
def _hostile_text(draw: st.DrawFn) -> str:
    """Text for a slug or title, built from atoms so that repeats are likely."""
    atoms = draw(st.lists(st.sampled_from(_TEXT_ATOMS), min_size=0, max_size=4))
    return "".join(atoms)


@st.composite
def _text_value(draw: st.DrawFn, pool: list[str]) -> str:
    """The YAML text of a slug or title value: plain, quoted, escaped, block, null, list..."""
    choice = draw(st.integers(0, 11))
    if choice <= 3:
        return draw(st.sampled_from(pool))  # plain scalars: repeats across documents
    if choice <= 6:
        return _dq(draw(_hostile_text()))  # double-quoted with escapes
    if choice == 7:
        lines = draw(
            st.lists(st.sampled_from(["line one", "line two", "😀 emoji", "\ttab"]), min_size=1, max_size=3)
        )
        style = draw(st.sampled_from(["|", ">", "|-", ">+"]))
        return style + "\n" + "\n".join("  " + line for line in lines)
    if choice == 8:
        return draw(st.sampled_from(["", "~", "null", "NULL", "Null", "''", '" ~ "', '"  "']))
    if choice == 9:
        return draw(st.sampled_from(["[a, b]", "{k: v}", "- x", "42", "true", "2024-01-05"]))
    if choice == 10:
        # raw characters, including ones that libyaml rejects (-> invalid document)
        return draw(
            st.sampled_from(["raw\u200fRTL", "raw 😀 emoji", "raw\x07bell", "it's", "a: b", "x # comment"])
        )
    return (
        "'" + draw(st.sampled_from(["single 'quoted'", "  padded  ", "back\\slash"])).replace("'", "''") + "'"
    )


_SLUG_POOL = ["alpha", "beta", "gamma", "alpha", "use-jwt", "0007", "ünï", "😀", "Zeta", "a b"]
_TITLE_POOL = ["Alpha", "Beta title", "Same", "Same", "Use JWT for auth", "Überblick", "📈 metrics"]


def _status_value(kind: str) -> st.SearchStrategy[str]:
    """§3 status: the selecting word in odd case and spacing, other words, lists, null forms."""
    word = _SELECTING[kind]
    selecting = st.sampled_from(
        [word, word.capitalize(), word.upper(), f"' {word} '", f'" {word.title()}\\t"', f"{word}  "]
    )
    other = st.sampled_from(
        [
            "active",
            "Active",
            " current ",
            "'  current '",
            "accepted",
            "Accepted",
            "no",
            "draft",
            "superseded",
            "[active]",
            "[current, accepted]",
            "{state: active}",
            "~",
            "null",
            "NULL",
            "",
            "'~'",
            "yes",
            "true",
        ]
    )
    return st.one_of(selecting, selecting, other)


_BASE_DATES = ["2024-01-05", "2024-01-06", "2025-12-31", "2024-01-05"]


@st.composite
def _updated_at_value(draw: st.DrawFn) -> str:
    """§3 updated_at: dates, naive and aware timestamps, ties, impossible dates, junk, null forms."""
    form = draw(st.integers(0, 14))
    date = draw(st.sampled_from(_BASE_DATES))
    if form <= 2:
        return date
    if form == 3:
        return f"{date}T10:00:00"
    if form == 4:
        return f"{date}T10:00:00Z"
    if form == 5:
        return f"{date}T12:00:00+02:00"  # the same instant as 10:00Z: a tie
    if form == 6:
        return f"{date}T05:00:00-05:00"
    if form == 7:
        return f"'  {date} 10:00  '"  # space separator and padding
    if form == 8:
        return f"{date}T10:00:00.500000"
    if form == 9:
        return f"{date}T00:00:00+00:00"  # the same instant as the bare date
    if form == 10:
        return draw(
            st.sampled_from(["2024-02-30", "2024-13-01", "2024-1-5", "yesterday", "12345", "1.5", "20240105"])
        )
    if form == 11:
        return draw(st.sampled_from(["~", "null", "Null", "", "''", '"  "']))
    if form == 12:
        return draw(st.sampled_from(["[2024-01-05]", "{d: 2024-01-05}"]))
    if form == 13:
        return draw(
            st.sampled_from(
                ["0001-01-01T00:30:00+01:00", "9999-12-31T23:59:59-01:00", "2024-01-05T10:00:00+14:00"]
            )
        )
    return _dq(f" {date}T10:00:00Z\t")


def _data_class_value() -> st.SearchStrategy[str]:
    """§7 data_class: the four classes in odd case, unknown values, lists, null forms."""
    return st.sampled_from(
        [
            "public",
            "Public",
            " INTERNAL ",
            "internal",
            "Confidential",
            "confidential",
            "restricted",
            "RESTRICTED",
            "secret",
            "unknown",
            "top-secret",
            "[public]",
            "{a: b}",
            "~",
            "null",
            "",
            "'  public  '",
        ]
    )


# §7: keys that are `data_class` once case is folded and `-`, `_`, spaces
# are removed (they declare unknown), and near misses that are just other keys.
_MISSPELT_CLASS_KEYS = [
    "Data_Class",
    "DATA-CLASS",
    "data class",
    "dataclass",
    "dataClass",
    "DataClass",
    "data-class",
    "data__class",
    "_data_class",
    "'data_class '",
    '"Data Class"',
    "DATACLAß",
]
_NEAR_MISS_CLASS_KEYS = ["data_classes", "data_clas", "metadata_class", "data.class", "class", "data"]


@st.composite
def misspelt_class_key_line(draw: st.DrawFn) -> str:
    """§7: a line with a misspelt `data_class` key (any value), or a near miss that is not one."""
    key = draw(st.sampled_from(_MISSPELT_CLASS_KEYS + _NEAR_MISS_CLASS_KEYS[:3]))
    value = draw(st.sampled_from(["public", "restricted", "~", "", "[internal]", "Confidential"]))
    return f"{key}: {value}".rstrip()


def nested_yaml(level: int, style: str, with_value: bool, key: str = "nest") -> str:
    """YAML lines for the top-level key ``key`` whose value nests down to collection level ``level``.

    The top mapping is level 1 (§2), so the deepest collection in the result
    is at exactly ``level``. ``style`` is "block_map", "block_seq",
    "flow_map", "flow_seq" or "mixed". Without a value, the deepest collection
    is empty (flow) or holds a null (block).
    """
    inner = level - 1  # collections below the top mapping
    if style == "block_map":
        lines = [f"{key}:"] + ["  " * i + "n:" for i in range(1, inner)]
        last = "  " * inner + ("n: v" if with_value else "n:")
        return "\n".join([*lines, last])
    if style == "block_seq":
        # `- - v`: each `- ` opens one more sequence.
        if with_value:
            return f"{key}:\n" + "- " * inner + "v"
        return f"{key}:\n" + "- " * (inner - 1) + "-"
    if style == "flow_map":
        if with_value:
            return f"{key}: " + "{n: " * inner + "v" + "}" * inner
        return f"{key}: " + "{n: " * (inner - 1) + "{}" + "}" * (inner - 1)
    if style == "flow_seq":
        if with_value:
            return f"{key}: " + "[" * inner + "v" + "]" * inner
        return f"{key}: " + "[" * inner + "]" * inner
    # mixed: block mappings at indents 1..maps, the last one holding a flow
    # sequence for the remaining levels
    maps = inner // 2
    seqs = inner - maps
    flow = "[" * seqs + ("v" if with_value else "") + "]" * seqs
    if maps == 0:
        return f"{key}: {flow}"
    lines = [f"{key}:"] + ["  " * i + "n:" for i in range(1, maps)]
    return "\n".join([*lines, "  " * maps + "n: " + flow])


@st.composite
def nested_entry(draw: st.DrawFn) -> str:
    """§2 nesting: a top-level entry whose deepest collection is at level 63-66 (64 is the last valid)."""
    level = draw(st.sampled_from([63, 64, 64, 65, 65, 66, 2, 3]))
    style = draw(st.sampled_from(["block_map", "block_seq", "flow_map", "flow_seq", "mixed"]))
    return nested_yaml(level, style, draw(st.booleans()))


# ---------------------------------------------------------------------------
# Frontmatter and body
# ---------------------------------------------------------------------------


@st.composite
def _frontmatter_lines(draw: st.DrawFn, kind: str) -> list[str]:
    """The YAML lines of a frontmatter: fields in random order, with extras, comments and duplicates."""
    entries: list[str] = []
    fields = {
        "slug": lambda: _text_value(_SLUG_POOL),
        "title": lambda: _text_value(_TITLE_POOL),
        "status": lambda: _status_value(kind),
        "updated_at": _updated_at_value,
        "data_class": _data_class_value,
    }
    for key, make in fields.items():
        presence = {"status": 0.85, "updated_at": 0.8, "slug": 0.5, "title": 0.6, "data_class": 0.35}[key]
        if draw(st.integers(0, 99)) < presence * 100:
            entries.append(f"{key}: {draw(make())}")
    extras = draw(
        st.lists(
            st.sampled_from(
                [
                    "tags: [a, b]",
                    "owner: team-x",
                    "# a comment",
                    "",
                    "notes: |\n  multi\n  line",
                    "Status: active",
                    "TITLE: wrong case",
                    "count: 3",
                    "empty:",
                    "nested:\n  a: 1\n  b: [x]",
                    'quote: "a \\"q\\""',
                    "emoji: 😀",
                    "rtl: \u200fשלום",
                ]
            ),
            max_size=3,
        )
    )
    entries.extend(extras)
    if draw(st.integers(0, 5)) == 0:
        entries.append(draw(misspelt_class_key_line()))
    if draw(st.integers(0, 7)) == 0:
        entries.append(draw(nested_entry()))
    entries = draw(st.permutations(entries))
    if entries and draw(st.integers(0, 99)) < 15:
        # A key given twice keeps its last value (§2).
        key = draw(st.sampled_from(["status", "updated_at", "slug", "data_class", "title"]))
        first = {
            "status": "draft",
            "updated_at": "2020-01-01",
            "slug": "dup-first",
            "data_class": "restricted",
            "title": "First",
        }[key]
        entries = [f"{key}: {first}", *list(entries), f"{key}: {draw(fields[key]())}"]
    return list(entries)


@st.composite
def long_heading(draw: st.DrawFn) -> str:
    """An ATX heading (or near miss) with long runs of spaces, tabs or `#`: linear-time parsing."""
    n = draw(st.integers(50, 1500))
    level = draw(st.sampled_from(["#", "#", "##", "######", "#######"]))
    run = draw(st.sampled_from([" ", "\t", "#", " \t", "# ", " #"])) * n
    shape = draw(st.integers(0, 6))
    if shape == 0:
        return f"{level} title{run}"  # trailing run
    if shape == 1:
        return f"{level}{run}title"  # run before the text
    if shape == 2:
        return f"{level} a{run}b"  # run in the middle
    if shape == 3:
        return f"{level} {run}"  # nothing but the run
    if shape == 4:
        return f"{level} title {'#' * n}{run}x"  # a `#` run that is not a closing one
    if shape == 5:
        return f"{level} title{run}{'#' * n}"
    return f"{run}{level} title"  # indented by the run: a heading only if 0-3 spaces


@st.composite
def _body(draw: st.DrawFn, kind: str) -> list[str]:
    """Markdown body lines: headings, paragraphs, fenced code, metrics sections."""
    chunks: list[list[str]] = []
    pieces = draw(
        st.lists(
            st.sampled_from(
                [
                    "h1",
                    "h1",
                    "h2",
                    "para",
                    "list",
                    "fence",
                    "metrics",
                    "metrics",
                    "weird_heading",
                    "long_heading",
                    "blank",
                ]
            ),
            max_size=6,
        )
    )
    if kind == "evals" and draw(st.booleans()):
        pieces.append("metrics")
    for piece in pieces:
        if piece == "h1":
            chunks.append(
                [
                    draw(
                        st.sampled_from(
                            [
                                "# Body Title",
                                "# Body Title ##",
                                "#   Spaced   title   #",
                                "   # Indented three",
                                "# \u200fRTL 😀",
                                "# ",
                                "#",
                                "# Title # with hash",
                                "# tab\tinside",
                                "# trailing #####   ",
                            ]
                        )
                    )
                ]
            )
        elif piece == "h2":
            chunks.append(
                [draw(st.sampled_from(["## Section", "### Deep", "#### Metrics notes", "###### six"]))]
            )
        elif piece == "weird_heading":
            chunks.append(
                [
                    draw(
                        st.sampled_from(
                            [
                                "#NoSpace",
                                "    # four spaces is code",
                                "####### seven",
                                "\t# tab indent",
                                "Setext\n===",
                                "> # quoted",
                            ]
                        )
                    )
                ]
            )
        elif piece == "long_heading":
            chunks.append([draw(long_heading())])
        elif piece == "para":
            chunks.append(
                [
                    draw(
                        st.sampled_from(
                            ["Some text.", "naïve 😀 text", "line\twith tab", "- not metrics", "---"]
                        )
                    )
                ]
            )
        elif piece == "list":
            chunks.append(["- item one", "* item two", "1. item three"])
        elif piece == "fence":
            fence = draw(st.sampled_from(["```", "~~~", "````", "```python", "  ```"]))
            inner = draw(
                st.lists(
                    st.sampled_from(["# Not a title", "## Metrics", "- fake: 1", "```", "~~~~", "code"]),
                    max_size=4,
                )
            )
            closed = draw(st.integers(0, 3)) > 0  # unclosed fences run to the end of the body
            closer = fence.strip().rstrip("python")  # the fence run, without its info string
            chunks.append([fence] + inner + ([closer] if closed else []))
        elif piece == "metrics":
            heading = draw(
                st.sampled_from(
                    [
                        "## Metrics",
                        "# metrics",
                        "### METRICS ###",
                        "## Metrics  ",
                        "##  Metrics",
                        "## Metrics:",
                        "## Metric",
                        "#### metrics",
                    ]
                )
            )
            items = draw(
                st.lists(
                    st.sampled_from(
                        [
                            "- accuracy: 0.91",
                            "  * f1: 0.8",
                            "+ recall 😀",
                            "1. one",
                            "12) twelve",
                            "-nospace",
                            "\t- tabbed",
                            "-\ttab after marker",
                            "plain text line",
                            "",
                            "### Detail",
                            "- after detail",
                            "```",
                            "- fenced item",
                            "```",
                            "## Next section",
                            "- after next",
                            "# Top",
                            "  10. indented number",
                            "a. letter",
                        ]
                    ),
                    max_size=8,
                )
            )
            chunks.append([heading, *items])
        elif piece == "blank":
            chunks.append([""])
    lines: list[str] = []
    for chunk in chunks:
        lines.extend(chunk)
    return lines


@st.composite
def document_bytes(draw: st.DrawFn, kind: str) -> bytes:
    """Raw bytes of one ledger document of ``kind``, valid most of the time, hostile sometimes (§2)."""
    mode = draw(
        st.sampled_from(
            ["valid"] * 12
            + [
                "no_frontmatter",
                "unclosed",
                "yaml_error",
                "not_mapping",
                "empty_frontmatter",
                "comment_only",
                "toml",
                "blank_lines_inside",
            ]
        )
    )
    fm_lines = draw(_frontmatter_lines(kind))
    body = draw(_body(kind))
    opening = draw(st.sampled_from(["---", "---", "---", "----", "---  ", "---\t", "-----\t "]))
    closing = draw(st.sampled_from(["---", "---", "---", "-----", "--- "]))
    leading = draw(st.sampled_from(["", "", "", "\n", "  \n\t\n", " \n"]))

    if mode == "empty_frontmatter":
        fm_lines = []
    elif mode == "comment_only":
        fm_lines = ["# only a comment", ""]
    elif mode == "blank_lines_inside":
        fm_lines = ["", *fm_lines, "", ""]
    elif mode == "yaml_error":
        bad = draw(
            st.sampled_from(
                [
                    "title: [unclosed",
                    "key: : :",
                    "\tstatus: active",
                    "a: b\n  c: d",
                    "status: 'open",
                    "? [a]\n: b",
                    "ref: *nowhere",
                    "bell: \x07",
                    "x: &a [*a]",
                ]
            )
        )
        fm_lines = list(fm_lines) + bad.split("\n")
    elif mode == "not_mapping":
        fm_lines = draw(
            st.sampled_from([["- status: active", "- title: x"], ["just a scalar"], ["~"], ["[1, 2]"]])
        )

    if mode == "no_frontmatter":
        text = leading + "\n".join([*fm_lines, "", *body]) + "\n"
    elif mode == "unclosed":
        text = leading + opening + "\n" + "\n".join(fm_lines + body) + "\n"
    elif mode == "toml":
        text = '+++\ntitle = "x"\nstatus = "active"\n+++\n' + "\n".join(body) + "\n"
    else:
        text = leading + "\n".join([opening, *fm_lines, closing, *body])
        if draw(st.booleans()):
            text += "\n"
    return _encode(draw, text)


def _encode(draw: st.DrawFn, text: str) -> bytes:
    """Newline style (LF, CRLF, lone CR, mixed), an optional BOM, and sometimes invalid UTF-8 bytes (§2)."""
    style = draw(st.sampled_from(["lf"] * 6 + ["crlf", "cr", "mixed"]))
    if style == "crlf":
        text = text.replace("\n", "\r\n")
    elif style == "cr":
        text = text.replace("\n", "\r")
    elif style == "mixed":
        parts = text.split("\n")
        seps = [draw(st.sampled_from(["\n", "\r\n", "\r"])) for _ in parts[1:]]
        text = parts[0] + "".join(sep + part for sep, part in zip(seps, parts[1:], strict=True))
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" + text
    data = text.encode("utf-8")
    if draw(st.integers(0, 19)) == 0:
        where = draw(st.integers(0, len(data)))
        junk = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf0\x9f\x98", b"\xc0\xaf"]))
        data = data[:where] + junk + data[where:]
    return data


@st.composite
def agents_bytes(draw: st.DrawFn) -> bytes | None:
    """§1/§2 agents.md: absent, empty, BOM only, plain, with valid or broken frontmatter, long."""
    mode = draw(
        st.sampled_from(
            [
                "absent",
                "absent",
                "empty",
                "bom_only",
                "plain",
                "plain",
                "frontmatter",
                "frontmatter",
                "broken_frontmatter",
                "broken_frontmatter",
                "other_format",
                "other_format",
                "misspelt_key",
                "nested",
                "long",
                "no_final_newline",
            ]
        )
    )
    if mode == "absent":
        return None
    if mode == "empty":
        return b""
    if mode == "bom_only":
        return "\ufeff".encode("utf-8")
    if mode == "plain":
        text = draw(
            st.sampled_from(["# Agents\n\nBe careful.\n", "Use the ledger.\n", "😀 emoji agents 𝔘\n", "\n"])
        )
    elif mode == "no_final_newline":
        text = draw(st.sampled_from(["no newline", "ends in cr\r", "# A\n\ntext"]))
    elif mode == "frontmatter":
        dc = draw(_data_class_value())
        text = f"---\ndata_class: {dc}\nowner: ops\n---\n# Agents\n\nRules 😀.\n"
    elif mode == "broken_frontmatter":
        # §2: unclosed, YAML that does not parse, or not a mapping: unknown.
        text = draw(
            st.sampled_from(
                [
                    "---\ndata_class: restricted\n# never closed\n",
                    "---\ndata_class: public\n",
                    "---\n",
                    "\n  \n---\ndata_class: public\nBody without a closing fence.\n",
                    "---\ndata_class: [unclosed\n---\nbody\n",
                    "---\ndata_class: public\nkey: : :\n---\nbody\n",
                    "---\n\tdata_class: public\n---\n",
                    "---\ndata_class: 'open\n---\n",
                    "---\n- data_class: restricted\n---\nbody\n",
                    "---\njust a scalar\n---\nbody\n",
                    "---\n[public]\n---\n",
                ]
            )
        )
    elif mode == "other_format":
        # §2: a `+++` line or a `{` line opens another frontmatter format: unknown.
        text = draw(
            st.sampled_from(
                [
                    '+++\ndata_class = "public"\n+++\n# Agents\n',
                    "+++\n",
                    '+++\ntitle = "never closed"\n',
                    '{\n  "data_class": "public"\n}\n# Agents\n',
                    "{\n",
                    "{\nnot json at all\n",
                ]
            )
        )
    elif mode == "misspelt_key":
        # §7: a misspelt key declares unknown, even alongside `data_class`.
        key_line = draw(misspelt_class_key_line())
        also = draw(st.sampled_from(["", "data_class: public\n"]))
        text = f"---\n{also}{key_line}\n---\n# Agents\n"
    elif mode == "nested":
        # §2: nesting deeper than level 64 makes the frontmatter broken: unknown.
        dc = draw(st.sampled_from(["public", "internal", "restricted"]))
        text = f"---\ndata_class: {dc}\n{draw(nested_entry())}\n---\n# Agents\n"
    else:  # long: overflows small caps, and is cut inside multi-byte characters
        unit = draw(st.sampled_from(["😀", "é", "日", "a", "a😀"]))
        text = "# Agents\n" + unit * draw(st.integers(50, 3000)) + "\n"
    return _encode(draw, text)


# ---------------------------------------------------------------------------
# Whole spaces
# ---------------------------------------------------------------------------

# Deep folder chains (§1: subfolders at any depth; loops from deep down).
_DEEP = "/".join(f"d{i}" for i in range(1, 13))
_SUBDIRS = ["", "", "", "sub", "sub/deeper", "archive", "Ünï", _DEEP]
_STEMS = ["a", "b", "alpha", "0007-use-jwt", "é", "日本語", "😀 emoji", "x y", "Zed", "a.b", "-dash"]
# §1: names that are reported and ignored: another case or extension, hidden,
# or a path that is not clean text (a control character, U+2028, bytes that
# are not UTF-8; "\udcff" is written as the raw byte 0xFF).
_IGNORED_NAMES = [
    "x.MD",
    "y.markdown",
    "pic.png",
    ".hidden.md",
    ".hiddendir/z.md",
    "sub/notes.txt",
    "bell\x07.md",
    "new\nline.md",
    "sep\u2028.md",
    "bad\udcffbyte.md",
    "esc\x1bdir/inner.md",
]


@st.composite
def _kind_files(draw: st.DrawFn, kind: str, max_docs: int) -> list[tuple[str, bytes]]:
    """Documents of one kind, some in subfolders. File paths are unique."""
    size = max_docs * 3 if kind == "experiments" and draw(st.integers(0, 3)) == 0 else max_docs
    picks = draw(
        st.lists(
            st.tuples(st.sampled_from(_SUBDIRS), st.sampled_from(_STEMS), st.integers(0, 99)),
            max_size=size,
            unique_by=lambda t: (t[0], t[1], t[2]),
        )
    )
    files: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    for subdir, stem, number in picks:
        # The stem often repeats (same slug in different folders). The number
        # is added only sometimes, so that "a.md" and "sub/a.md" can both exist.
        name = stem if number < 60 else f"{stem}-{number}"
        rel = "/".join(p for p in (kind, subdir, name + ".md") if p)
        if rel in seen:
            continue
        seen.add(rel)
        files.append((rel, draw(document_bytes(kind))))
    ignored = draw(st.lists(st.sampled_from(_IGNORED_NAMES), max_size=2, unique=True))
    for name in ignored:
        rel = f"{kind}/{name}"
        if rel not in seen:
            seen.add(rel)
            files.append((rel, draw(document_bytes(kind))))
    return files


def _is_clean(rel: str) -> bool:
    """A path the generator may point links at: clean text, no hidden component."""
    if any(part.startswith(".") for part in rel.split("/")):
        return False
    return all(unicodedata.category(ch) not in ("Cc", "Cs") and ch not in "\u2028\u2029" for ch in rel)


def _folders_of(rel: str) -> list[str]:
    """The folders on the way from the ledger root down to ``rel``'s folder, root (".") first."""
    parts = rel.split("/")[:-1]
    return ["."] + ["/".join(parts[: i + 1]) for i in range(len(parts))]


@dataclass
class _LinkPlan:
    """What ``_links`` adds to a space; paths are relative to the ledger root."""

    files: list[tuple[str, bytes]]
    links: list[tuple[str, str]]
    hardlinks: list[tuple[str, str]]
    outside: list[tuple[str, bytes]]


_LINK_SHAPES = [
    "file_same",
    "file_same",
    "file_first",
    "file_cross",
    "file_cross",
    "to_agents",
    "agents_to_doc",
    "hard",
    "hard",
    "hard_agents",
    "outside_file",
    "dangling",
    "outside_dir",
    "loop_kind",
    "loop_root",
    "loop_self",
    "loop_ancestor",
    "loop_ancestor",
    "dir_in",
    "dir_cross",
    "dir_cross",
    "experiments_to_findings",
    "store",
    "chain",
    "hidden_target",
    "txt_target",
]


@st.composite
def _links(draw: st.DrawFn, files: list[tuple[str, bytes]], cross_kind: bool, most: int) -> _LinkPlan:
    """§1 links: inside, outside, dangling, loops, cross-kind, hard links, files reachable only by link."""
    plan = _LinkPlan(list(files), [], [], [])
    taken = {rel for rel, _ in files}

    def docs(kind: str | None = None) -> list[str]:
        return sorted(
            rel
            for rel, _ in plan.files
            if rel.endswith(".md")
            and rel != "agents.md"
            and _is_clean(rel)
            and rel.split("/")[0] in KINDS
            and (kind is None or rel.startswith(kind + "/"))
        )

    def folders(kind: str | None = None) -> list[str]:
        found = {f for rel in docs(kind) for f in _folders_of(rel)[2:]}  # below a kind folder
        return sorted(found)

    def add_link(link: str, target: str) -> None:
        if link not in taken:
            taken.add(link)
            plan.links.append((link, target))

    def add_file(rel: str, data: bytes) -> None:
        if rel not in taken:
            taken.add(rel)
            plan.files.append((rel, data))

    for index in range(draw(st.integers(1, most))):
        kind = draw(st.sampled_from(KINDS))
        shape = draw(st.sampled_from(_LINK_SHAPES))
        if not cross_kind and shape in (
            "file_cross",
            "to_agents",
            "agents_to_doc",
            "hard_agents",
            "dir_cross",
        ):
            shape = "file_same"
        if not cross_kind and shape == "experiments_to_findings":
            shape = "dir_in"
        here = draw(st.sampled_from(["", *folders(kind)]))  # where the link lives
        base = f"{here}/" if here else f"{kind}/"
        if shape in ("file_same", "file_first"):
            pool = docs(kind)
            if pool:
                target = draw(st.sampled_from(pool))
                # "!" sorts before every other name here: a link that comes
                # first in code-point order, while the file has its own place.
                name = f"!first-{index}.md" if shape == "file_first" else f"link-{index}.md"
                add_link(base + name, target)
        elif shape == "file_cross":
            pool = [d for d in docs() if not d.startswith(kind + "/")]
            if pool:
                add_link(base + f"cross-{index}.md", draw(st.sampled_from(pool)))
        elif shape == "to_agents":
            if "agents.md" in taken:
                add_link(base + f"agents-{index}.md", "agents.md")
        elif shape == "agents_to_doc":
            pool = docs("decisions") or docs()
            if pool and "agents.md" not in taken:
                add_link("agents.md", draw(st.sampled_from(pool)))
        elif shape in ("hard", "hard_agents"):
            pool = docs() if cross_kind else docs(kind)
            if shape == "hard_agents":
                pool = docs("decisions") or pool
            if pool:
                target = draw(st.sampled_from(pool))
                name = "agents.md" if shape == "hard_agents" else base + f"hard-{index}.md"
                if name not in taken:
                    taken.add(name)
                    plan.hardlinks.append((name, target))
        elif shape == "outside_file":
            plan.outside.append(
                (f"outside-{index}.md", b"---\nstatus: active\nupdated_at: 2030-01-01\n---\n# Outside\n")
            )
            add_link(base + f"out-{index}.md", f"../outside-{index}.md")
        elif shape == "dangling":
            add_link(base + f"missing-{index}.md", f"{kind}/nothing-{index}.md")
        elif shape == "outside_dir":
            plan.outside.append((f"outside-dir-{index}/o.md", b"---\nstatus: current\n---\n"))
            add_link(base + f"outdir-{index}", f"../outside-dir-{index}")
        elif shape == "loop_kind":
            add_link(base + f"loop-{index}", kind)
        elif shape == "loop_root":
            add_link(base + f"root-{index}", ".")
        elif shape == "loop_self":
            add_link(base + f"self-{index}", here or kind)
        elif shape == "loop_ancestor":
            add_link(base + f"up-{index}", draw(st.sampled_from(_folders_of(base + "x"))))
        elif shape == "dir_in":
            pool = [kind, *folders(kind)]
            add_link(base + f"linkdir-{index}", draw(st.sampled_from(pool)))
        elif shape == "dir_cross":
            other = draw(st.sampled_from([k for k in KINDS if k != kind]))
            add_link(base + f"crossdir-{index}", draw(st.sampled_from([other, *folders(other)])))
        elif shape == "experiments_to_findings":
            add_link(
                f"experiments/findings-{index}", draw(st.sampled_from(["findings", *folders("findings")]))
            )
        elif shape == "store":
            # A folder outside every kind folder: its files are reached only by
            # links, so the first such path in code-point order names them.
            add_file("store/s.md", draw(document_bytes(kind)))
            add_file("store/deeper/t.md", draw(document_bytes(kind)))
            add_link(base + f"store-{index}", "store")
        elif shape == "chain":
            if plan.links:
                add_link(base + f"chain-{index}.md", draw(st.sampled_from(plan.links))[0])
        elif shape == "hidden_target":
            add_file(f"{kind}/.target-{index}.md", draw(document_bytes(kind)))
            add_link(base + f"visible-{index}.md", f"{kind}/.target-{index}.md")
        else:  # txt_target
            add_file(f"{kind}/notes-{index}.txt", draw(document_bytes(kind)))
            add_link(base + f"astxt-{index}.md", f"{kind}/notes-{index}.txt")
    return plan


@st.composite
def _deep_chain(draw: st.DrawFn) -> tuple[list[tuple[str, bytes]], list[tuple[str, str]]]:
    """§1: a chain of 20-60 nested folders with a document at the bottom and links up from there."""
    kind = draw(st.sampled_from(KINDS))
    depth = draw(st.integers(20, 60))
    folder = kind + "/" + "/".join(["c"] * depth)
    files = [(folder + "/deep.md", draw(document_bytes(kind)))]
    links: list[tuple[str, str]] = []
    for index, target in enumerate(
        draw(st.lists(st.sampled_from(["root", "kind", "mid", "self"]), max_size=2))
    ):
        to = {"root": ".", "kind": kind, "mid": kind + "/" + "/".join(["c"] * (depth // 2)), "self": folder}
        links.append((f"{folder}/up-{index}", to[target]))
    return files, links


@st.composite
def spaces(
    draw: st.DrawFn,
    links: bool = True,
    cross_kind_links: bool = True,
    max_docs_per_kind: int = 6,
    links_always: bool = False,
    most_links: int = 4,
) -> SpaceSpec:
    """A whole ledger space: agents.md, five kind folders (or fewer), extras, maybe links.

    ``links_always`` adds links (symbolic and hard) to every space instead of
    a quarter of them. ``cross_kind_links`` allows links from one kind folder
    to a document or folder of another kind, or to and from agents.md (§1
    "Read once" settles which path and kind such a file takes).
    """
    files: list[tuple[str, bytes]] = []
    agents = draw(agents_bytes())
    if agents is not None:
        files.append(("agents.md", agents))
    for kind in KINDS:
        if draw(st.integers(0, 9)) == 0:
            continue  # a missing kind folder
        files.extend(draw(_kind_files(kind, max_docs_per_kind)))
    # Top-level items that are reported and ignored (§1).
    extras = draw(
        st.lists(
            st.sampled_from(
                [
                    "decision/x.md",
                    "README.md",
                    "notes.txt",
                    "Agents.md",
                    "Findings/f.md",
                    ".git-like/config",
                    "evals.md",
                ]
            ),
            max_size=2,
            unique=True,
        )
    )
    for rel in extras:
        files.append((rel, b"---\nstatus: active\nupdated_at: 2030-01-01\n---\n# Ignored\n"))
    link_list: list[tuple[str, str]] = []
    hardlinks: list[tuple[str, str]] = []
    outside: list[tuple[str, bytes]] = []
    if links and draw(st.integers(0, 5)) == 0:
        chain_files, chain_links = draw(_deep_chain())
        files.extend(chain_files)
        link_list.extend(chain_links)
    if links and (links_always or draw(st.integers(0, 3)) == 0):
        plan = draw(_links(files, cross_kind_links, most_links))
        files = plan.files
        link_list.extend(plan.links)
        hardlinks = plan.hardlinks
        outside = plan.outside
    ledger_is_symlink = draw(st.integers(0, 9)) == 0
    return SpaceSpec(tuple(files), tuple(link_list), tuple(outside), ledger_is_symlink, tuple(hardlinks))


def cap_tokens() -> st.SearchStrategy[int]:
    """§6 cap_tokens: small values (1..400) often, the default 6000 sometimes, anything else rarely."""
    return st.one_of(
        st.integers(1, 400),
        st.integers(1, 400),
        st.integers(1, 400),
        st.just(6000),
        st.integers(401, 6000),
    )


def max_data_class() -> st.SearchStrategy[str | None]:
    """§7 ceiling: None, or one of the four classes."""
    return st.one_of(st.none(), st.sampled_from(CLASSES))


__all__ = [
    "SpaceSpec",
    "agents_bytes",
    "cap_tokens",
    "document_bytes",
    "max_data_class",
    "spaces",
    "write_space",
]

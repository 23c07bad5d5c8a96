"""Hypothesis strategies that generate ledger spaces as data, for differential tests.

A generated space is a plain ``SpaceSpec`` value. ``write_space(root, spec)``
writes it to a fresh directory below ``root`` and returns the space
directory, which holds ``.ledger``. The spec sections named in the comments
refer to ``docs/spec.md``.

Public API:

* ``SpaceSpec``: the data.
* ``spaces(links=True, cross_kind_links=False, max_docs_per_kind=6)``: a
  strategy for ``SpaceSpec``.
* ``document_bytes(kind)``: a strategy for the raw bytes of one ledger
  document, normal or hostile.
* ``agents_bytes()``: a strategy for the raw bytes of ``agents.md``, or None
  when it is absent.
* ``cap_tokens()``: small caps (1..400) often, 6000 sometimes, anything up to
  6000 otherwise.
* ``max_data_class()``: None, or one of the four classes.
* ``write_space(root, spec) -> Path``.

The content covers:

* §1: subfolders, hidden files and folders, `*.MD` and `*.markdown`, other
  attachments, misspelt top-level folders, symbolic links (inside, outside,
  dangling, loops), and a `.ledger` that is itself a link.
* §2: BOM, CRLF, lone CR, invalid UTF-8, missing or unclosed frontmatter,
  YAML errors, a list instead of a mapping, TOML frontmatter, empty
  frontmatter, duplicate keys.
* §3: status in odd case, padded with whitespace, or given as a list or
  mapping. updated_at in many forms: ties, impossible dates, numbers, null
  forms. Slugs and titles with repeats and hostile characters.
* §5: eval bodies with metrics sections, fenced code and list lines.
* §7: data_class in odd case, unknown, or missing.
"""

from __future__ import annotations

import os
import posixpath
import tempfile
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
    """

    files: tuple[tuple[str, bytes], ...]
    links: tuple[tuple[str, str], ...] = ()
    outside: tuple[tuple[str, bytes], ...] = ()
    ledger_is_symlink: bool = False


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
        if draw(st.floats(0, 1)) < presence:
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
    entries = draw(st.permutations(entries))
    if entries and draw(st.floats(0, 1)) < 0.15:
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
def _body(draw: st.DrawFn, kind: str) -> list[str]:
    """Markdown body lines: headings, paragraphs, fenced code, metrics sections."""
    chunks: list[list[str]] = []
    pieces = draw(
        st.lists(
            st.sampled_from(
                ["h1", "h1", "h2", "para", "list", "fence", "metrics", "metrics", "weird_heading", "blank"]
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
        text = draw(
            st.sampled_from(
                [
                    "---\ndata_class: restricted\n# never closed\n",
                    "---\ndata_class: [unclosed\n---\nbody\n",
                    "---\n- data_class: restricted\n---\nbody\n",
                ]
            )
        )
    else:  # long: overflows small caps, and is cut inside multi-byte characters
        unit = draw(st.sampled_from(["😀", "é", "日", "a", "a😀"]))
        text = "# Agents\n" + unit * draw(st.integers(50, 3000)) + "\n"
    return _encode(draw, text)


# ---------------------------------------------------------------------------
# Whole spaces
# ---------------------------------------------------------------------------

_SUBDIRS = ["", "", "", "sub", "sub/deeper", "archive", "Ünï"]
_STEMS = ["a", "b", "alpha", "0007-use-jwt", "é", "日本語", "😀 emoji", "x y", "Zed", "a.b", "-dash"]


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
    # Files that are ignored: another case, another extension, hidden (§1).
    ignored = draw(
        st.lists(
            st.sampled_from(
                ["x.MD", "y.markdown", "pic.png", ".hidden.md", ".hiddendir/z.md", "sub/notes.txt"]
            ),
            max_size=2,
            unique=True,
        )
    )
    for name in ignored:
        rel = f"{kind}/{name}"
        if rel not in seen:
            seen.add(rel)
            files.append((rel, draw(document_bytes(kind))))
    return files


@st.composite
def _links(
    draw: st.DrawFn, files: list[tuple[str, bytes]], cross_kind: bool
) -> tuple[list[tuple[str, str]], list[tuple[str, bytes]]]:
    """§1 symbolic links: into the ledger, outside it, dangling, and directory loops."""
    links: list[tuple[str, str]] = []
    outside: list[tuple[str, bytes]] = []
    docs = [
        rel
        for rel, _ in files
        if rel.endswith(".md") and "/" in rel and not rel.split("/")[-1].startswith(".")
    ]
    count = draw(st.integers(0, 3))
    for index in range(count):
        kind = draw(st.sampled_from(KINDS))
        what = draw(
            st.sampled_from(
                ["file_in", "file_in", "outside_file", "dangling", "loop", "dir_in", "outside_dir"]
            )
        )
        link_rel = f"{kind}/link-{index}.md"
        if what == "file_in":
            pool = docs if cross_kind else [d for d in docs if d.startswith(kind + "/")]
            if cross_kind and draw(st.booleans()):
                pool = [*pool, "agents.md"]
            if not pool:
                continue
            links.append((link_rel, draw(st.sampled_from(sorted(pool)))))
        elif what == "outside_file":
            outside.append(
                (f"outside-{index}.md", b"---\nstatus: active\nupdated_at: 2030-01-01\n---\n# Outside\n")
            )
            links.append((link_rel, f"../outside-{index}.md"))
        elif what == "dangling":
            links.append((link_rel, f"{kind}/missing-{index}.md"))
        elif what == "loop":
            links.append((f"{kind}/loop-{index}", kind))
        elif what == "dir_in":
            dirs = sorted({posixpath.dirname(d) for d in docs if d.count("/") >= 2})
            if not cross_kind:
                dirs = [d for d in dirs if d.startswith(kind + "/")]
            if not dirs:
                continue
            links.append((f"{kind}/linkdir-{index}", draw(st.sampled_from(dirs))))
        else:
            outside.append((f"outside-dir-{index}/o.md", b"---\nstatus: current\n---\n"))
            links.append((f"{kind}/outdir-{index}", f"../outside-dir-{index}"))
    return links, outside


@st.composite
def spaces(
    draw: st.DrawFn, links: bool = True, cross_kind_links: bool = False, max_docs_per_kind: int = 6
) -> SpaceSpec:
    """A whole ledger space: agents.md, five kind folders (or fewer), extras, maybe links.

    ``cross_kind_links`` allows links from one kind folder to a document or
    folder of another kind (or to agents.md). How those are handled depends
    on the SPEC-SILENT dedupe rule, so they are off by default.
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
    outside: list[tuple[str, bytes]] = []
    if links and draw(st.integers(0, 3)) == 0:
        link_list, outside = draw(_links(files, cross_kind_links))
    ledger_is_symlink = draw(st.integers(0, 9)) == 0
    return SpaceSpec(tuple(files), tuple(link_list), tuple(outside), ledger_is_symlink)


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

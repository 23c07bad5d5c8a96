"""The quick YAML path: its grammar, a corpus hit rate, and the differential test against libyaml.

The differential tests run with a fixed seed (``derandomize``) so CI is repeatable; set
``LEDGER_CONTEXT_QUICK_EXAMPLES`` to run more examples locally, e.g. 200000.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, examples
from ledger_context.reader.frontmatter import (
    QUICK_ENV,
    FrontmatterError,
    decode_text,
    load_frontmatter,
    load_with_libyaml,
    load_with_yaml,
    split_frontmatter,
    yaml_options,
)
from ledger_context.reader.quick_yaml import quick_load, quick_mapping

EXAMPLES = int(os.environ.get("LEDGER_CONTEXT_QUICK_EXAMPLES", str(examples(3000))))
DIFFERENTIAL = settings(max_examples=EXAMPLES, deadline=None, derandomize=True)

MIN_CORPUS_HIT_RATE = 0.99
"""Share of the fixture documents' frontmatter the quick path must read (measured 265 of 265)."""

# The quick path must agree with libyaml on everything it accepts.
_PIECES = st.sampled_from(
    [
        "a", "Z", "0", "_", "-", " ", "  ", ":", ": ", "#", " #", "'", "''", '"', "\\", ",", "[", "]",
        "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "?", "~", "é", "\u00a0", "\u2028", "\u0085",
        "\ufeff", "\t", "🙂", "\x7f", "null", "yes", "2026-01-01", "0.5", ".", "/", "(", "=", "$", "^", "<",
        "\n", "\n  ", ", ", " , ", "[]", "x y",
        "- ", "\n- ", "\n  - ", "? ", "&a ", "*a", "!!str ", "|", "|-", ">-", "\n---", "\n...", "---",
        "'a'", '"b"', " # c", "a:b", "-x", "\u00ff", "日本", "\n   ", "[a, 'b']", "{a: b}", "%YAML",
    ]
)  # fmt: skip
_VALUES = st.lists(_PIECES, max_size=6).map("".join)
_KEYS = st.sampled_from(
    [
        "a",
        "b",
        "status",
        "updated_at",
        "data_class",
        "x-y",
        "k_2",
        "ms.date",
        "Module Name",
        "a b",
        "C#",
        "a:b",
        "é.x",
    ]
)


@st.composite
def _frontmatters(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        shape = draw(
            st.sampled_from(
                [
                    "top",
                    "top",
                    "empty",
                    "nested",
                    "item",
                    "blank",
                    "comment",
                    "raw",
                    "flow",
                    "flow",
                    "deep",
                    "deep_item",
                    "compact",
                    "block",
                    "block_text",
                    "trailing",
                ]
            )
        )
        key, value = draw(_KEYS), draw(_VALUES)
        indent = draw(st.sampled_from([" ", "  ", "  ", "    "]))
        deep = draw(st.sampled_from(["   ", "    ", "     ", "      ", "        "]))
        lines.append(
            {
                "top": f"{key}: {value}",
                "empty": f"{key}:",
                "nested": f"{indent}{key}: {value}",
                "item": f"{indent}- {value}",
                "blank": draw(st.sampled_from(["", "  "])),
                "comment": f"# {value}",
                "raw": value,
                "flow": f"{key}: [{', '.join(draw(st.lists(_VALUES, max_size=3)))}]{draw(_VALUES)}",
                "deep": f"{deep}{key}:{draw(st.sampled_from(['', ' ']))}{value}",
                "deep_item": f"{deep}- {value}",
                "compact": f"{indent}- {key}: {value}",
                "block": f"{key}: {draw(st.sampled_from(['|', '|-', '>', '>-', '|+', '>2']))}{value}",
                "block_text": f"{indent}{value}",
                "trailing": f"{key}: {value} #{value}",
            }[shape]
        )
    return "\n".join(lines)


def _reference(text: str) -> tuple[dict[Any, Any], list[tuple[int, int]]]:
    """What libyaml reads, checked against PyYAML's pure-Python loader: the mapping and
    the line and column of each duplicate key."""
    mapping, duplicates = load_with_libyaml(text)
    python_mapping, python_duplicates = load_with_yaml(text, "python")
    assert (python_mapping, python_duplicates) == (mapping, duplicates), text
    return mapping, [(d.line, d.column) for d in duplicates]


@DIFFERENTIAL
@given(_frontmatters())
def test_quick_path_equals_libyaml_whenever_it_answers(text: str) -> None:
    quick = quick_load(text)
    if quick is None:
        return
    assert quick == _reference(text)


def test_quick_path_answers_for_ordinary_frontmatter() -> None:
    text = (
        "title: Prompt v3 with retrieval (similar tickets)\nslug: exp-042\nstatus: done\n"
        "updated_at: 2026-09-14T10:22:00Z\nowner: maria\ntags:\n  - retrieval\n  - prompt\n"
        "result:\n  accuracy: 0.91\n  cost_usd: 1.92\nnote: 'it''s fine'\ndata_class: internal\n"
        "evidence: [exp-1, exp 2 , x.y]\nnone: []"
    )
    assert quick_mapping(text) == load_with_libyaml(text)[0]


# Lines of the grammar only (quick_yaml's docstring): the quick path must answer for
# every one of these texts, and answer what libyaml reads.
_PLAIN_WORDS = st.sampled_from(
    ["a", "Z9", "x y", "2026-01-01", "0.5", "a:b", "a#b", "é", "🙂", "(x)", "~", "$v", "a - b", "null"]
)
_SCALARS = st.one_of(
    _PLAIN_WORDS,
    _PLAIN_WORDS.map(lambda w: "'" + w.replace("'", "''") + "'"),
    st.sampled_from(["'it''s'", "'a: b'", "'#x'", '"a: b"', '"#"', '""', "''", "'[x]'"]),
)
_ITEMS = st.sampled_from(["a", "b c", "x.y", "1", "é"])


@st.composite
def _grammar_frontmatters(draw: st.DrawFn) -> str:
    keys = draw(st.lists(st.sampled_from(["a", "b", "status", "updated_at", "x-y", "k_2", "t"]), unique=True))
    lines = []
    for key in keys:
        shape = draw(st.sampled_from(["scalar", "flow", "empty", "mapping", "list", "comment"]))
        pad = draw(st.sampled_from(["", " ", "  "]))
        if shape == "scalar":
            lines.append(f"{key}: {draw(_SCALARS)}{pad}")
        elif shape == "flow":
            lines.append(f"{key}: [{', '.join(draw(st.lists(_ITEMS, max_size=3)))}]{pad}")
        elif shape == "empty":
            lines.append(f"{key}:{pad}")
        elif shape == "comment":
            lines.append(f"# {draw(_PLAIN_WORDS)}")
            lines.append(f"{key}: {draw(_SCALARS)}")
        else:
            indent = draw(st.sampled_from([" ", "  ", "    "]))
            lines.append(f"{key}:")
            subs = draw(st.lists(st.sampled_from(["p", "q", "r"]), min_size=1, unique=True))
            for sub in subs:
                head = f"{sub}:" if shape == "mapping" else "-"
                lines.append(f"{indent}{head} {draw(_SCALARS)}{pad}")
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "  "])))
    return "\n".join(lines)


@DIFFERENTIAL
@given(_grammar_frontmatters())
def test_quick_path_answers_for_its_grammar_what_libyaml_reads(text: str) -> None:
    quick = quick_mapping(text)
    assert quick is not None
    assert quick == load_with_libyaml(text)[0]


# Nested shapes of real frontmatter (quick_yaml's docstring): block mappings and
# sequences at any consistent indentation, indentless sequences, sequences of compact
# mappings, flow lists with quoted items, block scalars, comments and blank lines.
_NESTED_KEYS = ["a", "b", "url", "p50", "name", "x-y", "k_2", "t", "2026"]
_FLOW_ITEMS = st.sampled_from(["a", "b c", "x.y", "1", "é", "'q, r'", '"s: t"', "'it''s'", "-1"])
_BLOCK_LINES = st.sampled_from(["plain words", "# not a comment", "a: b", "- item", "'q'", "x  y", "🙂 ✅"])


def _scalar_line(draw: st.DrawFn) -> str:
    value = draw(st.one_of(_SCALARS, st.just("x # a comment"), st.just("-5")))
    return value + draw(st.sampled_from(["", " ", "  # c"]))


def _mapping_lines(draw: st.DrawFn, indent: int, depth: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    keys = draw(st.lists(st.sampled_from(_NESTED_KEYS), min_size=1, max_size=4, unique=True))
    for key in keys:
        shapes = ["scalar", "scalar", "flow", "empty", "block", "comment"]
        if depth < 5:
            shapes += ["mapping", "sequence", "indentless"]
        shape = draw(st.sampled_from(shapes))
        if shape == "scalar":
            lines.append(f"{pad}{key}: {_scalar_line(draw)}")
        elif shape == "flow":
            lines.append(f"{pad}{key}: [{', '.join(draw(st.lists(_FLOW_ITEMS, max_size=3)))}]")
        elif shape == "empty":
            lines.append(f"{pad}{key}:{draw(st.sampled_from(['', ' ', ' # c']))}")
        elif shape == "comment":
            lines.append(f"{' ' * draw(st.integers(0, 6))}# {draw(_PLAIN_WORDS)}")
            lines.append(f"{pad}{key}: {_scalar_line(draw)}")
        elif shape == "block":
            step = draw(st.integers(1, 3))
            lines.append(f"{pad}{key}: {draw(st.sampled_from(['|', '|-', '>', '>-']))}")
            body = draw(st.lists(_BLOCK_LINES, min_size=1, max_size=3))
            lines += [" " * (indent + step) + text for text in body]
            if draw(st.booleans()):
                lines.append("")
        elif shape == "mapping":
            lines.append(f"{pad}{key}:")
            lines += _mapping_lines(draw, indent + draw(st.integers(1, 4)), depth + 1)
        else:
            lines.append(f"{pad}{key}:")
            step = 0 if shape == "indentless" else draw(st.integers(1, 4))
            lines += _sequence_lines(draw, indent + step, depth + 1)
    return lines


def _sequence_lines(draw: st.DrawFn, indent: int, depth: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        shape = draw(st.sampled_from(["scalar", "scalar", "flow", "compact"]))
        gap = " " * draw(st.integers(1, 2))
        if shape == "scalar":
            lines.append(f"{pad}-{gap}{_scalar_line(draw)}")
        elif shape == "flow":
            lines.append(f"{pad}-{gap}[{', '.join(draw(st.lists(_FLOW_ITEMS, max_size=3)))}]")
        else:
            inner = _mapping_lines(draw, indent + 1 + len(gap), depth + 1)
            while inner[0].lstrip(" ").startswith("#"):  # a comment goes before the item
                lines.append(inner.pop(0))
            lines += [f"{pad}-{gap}{inner[0].lstrip(' ')}", *inner[1:]]
    return lines


@st.composite
def _nested_frontmatters(draw: st.DrawFn) -> str:
    lines = _mapping_lines(draw, 0, 1)
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "  ", "# c"])))
    return "\n".join(lines)


@DIFFERENTIAL
@given(_nested_frontmatters())
def test_quick_path_answers_for_nested_frontmatter_what_libyaml_reads(text: str) -> None:
    quick = quick_mapping(text)
    if quick is None:  # only where a comment or blank line landed inside a block scalar
        assert "|" in text or ">" in text, text
        return
    assert quick == load_with_libyaml(text)[0]


# Near misses: a nested frontmatter with one hostile change. Declining is always right;
# an answer must be libyaml's.
_HOSTILE = st.sampled_from(
    [
        "\t", " ", "  ", "? ", "- ", "&a ", "*a", "!tag ", "|", ">", "#", " #", ":", ": ", "'", '"', "\\",
        "---", "...", "\n---\n", "\n...\n", "{", "}", "[", "]", ",", "é", "\u00a0", "\u2028", "\ufeff",
        "%", "@", "`", "\n", "\n ", "\n  - x", "\n  y: z", "a:b", "<<: ", "- - ", "x", "0",
    ]
)  # fmt: skip


@st.composite
def _near_misses(draw: st.DrawFn) -> str:
    text = draw(_nested_frontmatters())
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(text)))
        if draw(st.booleans()) or where == len(text):
            text = text[:where] + draw(_HOSTILE) + text[where:]
        else:
            text = text[:where] + text[where + 1 :]  # drop one character (an indent, a colon)
    return text


@DIFFERENTIAL
@given(_near_misses())
def test_quick_path_equals_libyaml_on_near_misses(text: str) -> None:
    quick = quick_load(text)
    if quick is None:
        return
    try:
        reference = _reference(text)
    except FrontmatterError:
        pytest.fail(f"the quick path read what libyaml refuses: {text!r}")
    assert quick == reference, text


def test_quick_path_reads_the_nested_shapes_of_documentation_frontmatter() -> None:
    text = (
        "title: Routing (finding 12)\nsource:\n  url: https://docs.example.com/f/12\n"
        '  fetched_at: "2025-01-05T10:00:00Z"\n  sections:\n    - router\n    - drafter\n'
        "review:\n  reviewers:\n    - name: maria\n      verdict: approve\n  checklist:\n    tests: passed\n"
        "links:\n- rel: evidence\n  href: exp-000123\nkeywords: [a, 'b, c']  # why\n"
        "description: >-\n  First line `code` here.\n  Second line.\nnotes: |\n  # kept\n  a: b\n\nend: x"
    )
    assert quick_mapping(text) == {
        "title": "Routing (finding 12)",
        "source": {
            "url": "https://docs.example.com/f/12",
            "fetched_at": "2025-01-05T10:00:00Z",
            "sections": ["router", "drafter"],
        },
        "review": {
            "reviewers": [{"name": "maria", "verdict": "approve"}],
            "checklist": {"tests": "passed"},
        },
        "links": [{"rel": "evidence", "href": "exp-000123"}],
        "keywords": ["a", "b, c"],
        "description": "First line `code` here. Second line.",
        "notes": "# kept\na: b\n",
        "end": "x",
    }
    assert quick_mapping(text) == load_with_libyaml(text)[0]


@pytest.mark.parametrize(
    "text",
    [
        "a:\n    b: 1\n  c: 2",  # a dedent to no open block
        "a: b # c\n  d",  # a comment ends a plain scalar
        "a: b\n\n  c",  # a blank line inside a multi-line plain scalar
        "a: 'b'\n  c",  # a multi-line quoted scalar
        "- a: b\n    c",
        "<<: x",  # a merge key: the full loader reports it
        "k" * 129 + ": x",
        "a:\n\tb: 1",  # a tab
        "a: |\n  x\n\n  y",  # a blank line inside a block scalar
        "a: |\n    x\n  y",
        "a: |+\n  x",
        "a: &x b",
        "a: !t b",
        "? a\n: b",
        "a:b",
        "a: b: c",
        "- a",
        "a:\n  - - x",
        "a: {b: c}",
        "k0:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 16)) + " " * 16 + "v: x",  # level 17
    ],
)
def test_quick_path_declines_what_it_cannot_prove(text: str) -> None:
    assert quick_mapping(text) is None


def test_quick_path_reads_up_to_its_depth_bound() -> None:
    text = "k0:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 15)) + " " * 15 + "v: x"  # level 16
    assert quick_mapping(text) == load_with_libyaml(text)[0]


# Linear time: each hostile line is 100 KB; a quadratic scan would take minutes.
_LONG = 100_000


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "b " * (_LONG // 2) + ":",
        "a: " + "x:" * (_LONG // 2),
        "a: " + "b" + " " * _LONG + "#",
        "a: '" + "''" * (_LONG // 2),
        'a: "' + "x" * _LONG,
        "a: [" + "x, " * (_LONG // 3),
        "a: [" + "'x', " * (_LONG // 5) + "'",
        "a: " + "[" * _LONG,
        " " * _LONG + "a: b",
        "- " * (_LONG // 2) + "x",
        "a" * _LONG + ": b",
        "a:\n" + "  - x\n" * (_LONG // 6),
        "a: |\n" + "  " + "x " * (_LONG // 2),
        "a: " + "#" * _LONG,
        "a " * (_LONG // 2) + ": b",
        "a." * (_LONG // 2) + ": b",
        "a:" * (_LONG // 2) + " b",
        "a: b\n" + "  c\n" * (_LONG // 4),
        "a: b\n" + "  c " * (_LONG // 4),
    ],
    ids=lambda text: repr(text[:12]),
)
def test_quick_path_is_linear_on_long_hostile_lines(text: str) -> None:
    started = time.perf_counter()
    quick_mapping(text)
    assert time.perf_counter() - started < 2.0


def test_a_plain_value_continued_on_many_lines_is_read_in_linear_time() -> None:
    # Found by breaking the product: each continuation line copied the value so far, so a
    # 2 MB value took 17 s (4 MB, 65 s; the 10 MiB file limit, minutes).
    text = "status: current\ntitle: a\n" + "  b\n" * 500_000
    started = time.perf_counter()
    mapping = quick_mapping(text)
    assert time.perf_counter() - started < 5.0
    assert mapping is not None and mapping["title"] == "a" + " b" * 500_000


def _fixture_frontmatters() -> list[tuple[Path, str]]:
    found = []
    for path in sorted(FIXTURES.rglob("*.md")):
        if ".ledger" not in path.parts or path.name == "agents.md":
            continue
        split = split_frontmatter(decode_text(path.read_bytes()))
        if split.frontmatter is not None:
            found.append((path, split.frontmatter))
    return found


def test_quick_path_reads_most_fixture_documents_exactly_as_libyaml() -> None:
    corpus = _fixture_frontmatters()
    assert len(corpus) > 100
    hits = 0
    for path, frontmatter in corpus:
        quick = quick_mapping(frontmatter)
        if quick is None:
            continue
        hits += 1
        assert quick == load_with_libyaml(frontmatter)[0], path
    assert hits / len(corpus) >= MIN_CORPUS_HIT_RATE, f"{hits}/{len(corpus)}"


def test_the_off_switch_sends_everything_to_the_full_loader() -> None:
    text = "status: active\ntitle: T"
    assert load_frontmatter(text).loader == "quick"
    loaded = load_frontmatter(text, yaml_options({QUICK_ENV: "off"}))
    assert loaded.loader in ("libyaml", "python")
    assert loaded.mapping == {"status": "active", "title": "T"}


@pytest.mark.parametrize(
    "text",
    ["a: 1\na: 2", "a:\n  b: 1\n  b: 2", "a:\n- x: 1\n  x: 2", "a: 1\nb: 2\na:\n  - x", "a: |\n  x\na: y"],
)
def test_a_duplicate_key_keeps_its_last_value_and_is_reported_where_libyaml_says(text: str) -> None:
    quick = quick_load(text)
    assert quick is not None and quick[1]
    assert quick == _reference(text)
    loaded = load_frontmatter(text)
    assert loaded.loader == "quick"
    assert [(d.line, d.column) for d in loaded.duplicates] == quick[1]


def test_what_the_quick_path_declines_libyaml_may_refuse() -> None:
    assert quick_mapping("a: b: c") is None
    with pytest.raises(FrontmatterError):
        load_frontmatter("a: b: c")


def test_first_written_as_a_complement_is_the_grammar_s_first() -> None:
    # FIRST is spelt as the complement of its ranges so that importing the module does
    # not loop over every code point of them; every code point must still agree.
    import re

    from ledger_context.reader import quick_yaml

    grammar = re.compile(r"[A-Za-z0-9_./(+$=~^<\u00c0-\u2027\u202a-\ud7ff\ue000-\ufdcf\U00010000-\U0010ffff]")
    written = re.compile(quick_yaml._FIRST)
    differ = [
        code
        for code in range(0x110000)
        if (grammar.match(chr(code)) is None) != (written.match(chr(code)) is None)
    ]
    assert differ == []
    assert written.match("a") and not written.match("-") and not written.match("\u2028")


# Documentation-site frontmatter (issue 29): 10-20 keys with dotted and spaced names, US
# dates, URLs, titles with punctuation, flow lists, plain values continued on the next
# lines, and now and then a key given twice. The quick path must answer for every one,
# and answer what both of PyYAML's loaders read.
_DOC_KEYS = [
    "title", "description", "ms.date", "ms.topic", "ms.author", "ms.custom", "Module Name",
    "external help file", "online version", "Locale", "schema", "author", "start-date", "eip",
    "discussions-to", "i18nReady", "github_url", "display_name", "short_description", "aliases",
    "tags", "category", "weight", "layout", "date", "ms.service", "feature", "co-authors",
]  # fmt: skip
_DOC_VALUES = st.sampled_from(
    [
        "02/10/2026", "2/1/2026", "2026-02-10", "2019-01-01T00:00:00.000Z", "en-US", "2.0.0",
        "https://learn.microsoft.com/powershell/module/x/add-member?view=powershell-7.4&WT.mc_id=ps-gethelp",
        "Microsoft.PowerShell.Commands.Utility.dll-Help.xml", "Node v19.4.0 (Current)",
        "Martin Becze <mb@ethereum.org>, Hudson Jameson (@hudson), et al.", "It's a page, really", "true",
        "(find a buddy later to help out with the RFC)", "reference", "42", "Add-Member", "'quoted, value'",
        '"double: quoted"', "[a, b, 'c, d']", "[]", '["fundamental", "", ""]', "~", "a #hash-in-text",
        r'"Use \"quotes\" and \\ and \/"', r'["a\"b", c]', "trailing tab\t", "blanks \t ",
    ]
)  # fmt: skip
_CONTINUATIONS = st.sampled_from(["and more words", "x.y (z)", "02/10/2026", "é 🙂"])


@st.composite
def _docs_frontmatters(draw: st.DrawFn) -> str:
    keys = draw(st.lists(st.sampled_from(_DOC_KEYS), min_size=10, max_size=20))  # repeats: duplicates
    lines = []
    for key in keys:
        value = draw(_DOC_VALUES)
        suffix = "" if "\t" in value else draw(st.sampled_from(["", " ", "  # why"]))  # a tab ends its line
        lines.append(f"{key}: {value}{suffix}")
        plain = value[0] not in "'\"[~" and " #" not in value and "\t" not in value  # " #" starts a comment
        if plain and not lines[-1].endswith("# why") and draw(st.integers(0, 4)) == 0:
            lines += [
                " " * draw(st.integers(1, 4)) + draw(_CONTINUATIONS) for _ in range(draw(st.integers(1, 2)))
            ]
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "# a comment"])))
    return "\n".join(lines)


@DIFFERENTIAL
@given(_docs_frontmatters())
def test_quick_path_answers_for_documentation_frontmatter_what_both_loaders_read(text: str) -> None:
    quick = quick_load(text)
    assert quick is not None, text
    assert quick == _reference(text)


def test_quick_path_reads_a_powershell_docs_page() -> None:
    text = (
        "external help file: Microsoft.PowerShell.Commands.Utility.dll-Help.xml\nLocale: en-US\n"
        "Module Name: Microsoft.PowerShell.Utility\nms.date: 02/10/2026\n"
        "online version: https://learn.microsoft.com/powershell/module/microsoft.powershell.utility/add-member?view=powershell-7.4\n"
        "schema: 2.0.0\ntitle: Add-Member\ndescription: Adds custom properties and methods to an instance\n"
        "  of a PowerShell object.\n"
    )
    assert quick_mapping(text) == {
        "external help file": "Microsoft.PowerShell.Commands.Utility.dll-Help.xml",
        "Locale": "en-US",
        "Module Name": "Microsoft.PowerShell.Utility",
        "ms.date": "02/10/2026",
        "online version": "https://learn.microsoft.com/powershell/module/microsoft.powershell.utility/add-member?view=powershell-7.4",
        "schema": "2.0.0",
        "title": "Add-Member",
        "description": "Adds custom properties and methods to an instance of a PowerShell object.",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("title: A page\t\nb: c", {"title": "A page", "b": "c"}),
        ("title: A page \t  \nb: c", {"title": "A page", "b": "c"}),
        ("title: 'A page'\t", {"title": "A page"}),
        ("tags: [a, b]\t", {"tags": ["a", "b"]}),
        ("a: b # why\t", {"a": "b"}),
        ("a:\n  b: c\t\n  d: e", {"a": {"b": "c", "d": "e"}}),
    ],
)
def test_a_tab_among_the_blanks_that_end_a_line_reads_as_libyaml_reads_it(
    text: str, expected: dict[str, Any]
) -> None:
    # Issue 29: editors leave trailing tabs on real pages; each one sent the page to libyaml.
    assert quick_mapping(text) == expected
    assert _reference(text) == (expected, [])


@pytest.mark.parametrize(
    "text",
    ["a:\t\nb: c", "a: b\n\t\nc: d", "a: b\tc", "a: |\n  x\t\n", "- x\t", "a: >\t\n  x", "\ta: b"],
)
def test_a_tab_anywhere_else_is_left_to_the_full_loader(text: str) -> None:
    assert quick_mapping(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r'note: "Use \"quotes\" here"', 'Use "quotes" here'),
        (r'note: "a \\ b \/ c"', "a \\ b / c"),
        (r'note: "\\\""', '\\"'),
        (r'note: "ends \\"', "ends \\"),
    ],
)
def test_a_double_quoted_value_with_quote_backslash_or_slash_escapes_is_read(
    text: str, expected: str
) -> None:
    assert quick_mapping(text) == {"note": expected}
    assert _reference(text) == ({"note": expected}, [])


@pytest.mark.parametrize("text", [r'a: "\n"', r'a: "\x41"', r'a: "\u00e9"', r'a: "x\"', r'a: "\ "'])
def test_other_escapes_are_left_to_the_full_loader(text: str) -> None:
    assert quick_mapping(text) is None

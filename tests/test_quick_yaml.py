"""The quick YAML path: its grammar, a corpus hit rate, and the differential test against libyaml.

The differential tests run with a fixed seed (``derandomize``) so CI is repeatable; set
``LEDGER_CONTEXT_QUICK_EXAMPLES`` to run more examples locally, e.g. 200000.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from ledger_context.frontmatter import (
    FrontmatterError,
    decode_text,
    load_frontmatter,
    load_with_libyaml,
    split_frontmatter,
)
from ledger_context.quick_yaml import QUICK_ENV, quick_mapping

EXAMPLES = int(os.environ.get("LEDGER_CONTEXT_QUICK_EXAMPLES", "3000"))
DIFFERENTIAL = settings(max_examples=EXAMPLES, deadline=None, derandomize=True)

MIN_CORPUS_HIT_RATE = 0.97
"""Share of the fixture documents' frontmatter the quick path must read (measured 263 of 265, 99.2 %)."""

# The quick path must agree with libyaml on everything it accepts.
_PIECES = st.sampled_from(
    [
        "a", "Z", "0", "_", "-", " ", "  ", ":", ": ", "#", " #", "'", "''", '"', "\\", ",", "[", "]",
        "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "?", "~", "é", "\u00a0", "\u2028", "\u0085",
        "\ufeff", "\t", "🙂", "\x7f", "null", "yes", "2026-01-01", "0.5", ".", "/", "(", "=", "$", "^", "<",
        "\n", "\n  ", ", ", " , ", "[]", "x y",
    ]
)  # fmt: skip
_VALUES = st.lists(_PIECES, max_size=6).map("".join)
_KEYS = st.sampled_from(["a", "b", "status", "updated_at", "data_class", "x-y", "k_2"])


@st.composite
def _frontmatters(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        shape = draw(
            st.sampled_from(
                ["top", "top", "empty", "nested", "item", "blank", "comment", "raw", "flow", "flow"]
            )
        )
        key, value = draw(_KEYS), draw(_VALUES)
        indent = draw(st.sampled_from([" ", "  ", "  ", "    "]))
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
            }[shape]
        )
    return "\n".join(lines)


@DIFFERENTIAL
@given(_frontmatters())
def test_quick_path_equals_libyaml_whenever_it_answers(text: str) -> None:
    quick = quick_mapping(text)
    if quick is None:
        return
    mapping, duplicates = load_with_libyaml(text)
    assert quick == mapping
    assert duplicates == []


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


def test_the_off_switch_sends_everything_to_the_full_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "status: active\ntitle: T"
    assert load_frontmatter(text).loader == "quick"
    monkeypatch.setenv(QUICK_ENV, "off")
    loaded = load_frontmatter(text)
    assert loaded.loader in ("libyaml", "python")
    assert loaded.mapping == {"status": "active", "title": "T"}


def test_a_duplicate_key_is_left_to_the_full_loader_to_report() -> None:
    assert quick_mapping("a: 1\na: 2") is None
    assert load_frontmatter("a: 1\na: 2").duplicates[0].line == 2


def test_what_the_quick_path_declines_libyaml_may_refuse() -> None:
    assert quick_mapping("a: b: c") is None
    with pytest.raises(FrontmatterError):
        load_frontmatter("a: b: c")

"""Frontmatter built from the parser's events reads every text as the composed loader does:
the same value, the same duplicate keys, or the same refusal at the same place; and a
frontmatter of many small collections costs its value, not a node tree."""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

import pytest

from ledger_context.reader import frontmatter as fm
from ledger_context.reader.frontmatter import FrontmatterError, libyaml_available, load_with_yaml

LOADERS = ["python", *(["libyaml"] if libyaml_available() else [])]
CASES = 3_000

_PIECES = [
    "a", "b", "k", "'q'", '"d"', "&x", "&y", "*x", "*y", "!t", "!!str", "<<", "[", "]", "{", "}",
    ", ", ": ", "- ", "? ", "\n", "\n  ", "\n    ", "\n- ", "\n---\n", "#c", "\"\\ud800\"", "|\n  z",
]  # fmt: skip


_VALUES = [
    "a",
    "'q'",
    "",
    "[a, b]",
    "{k: v}",
    "&x [1, [2]]",
    "*x",
    "&y v",
    "*y",
    "!t a",
    "[*x, *y]",
    "{a: *y}",
]


def _text(rng: random.Random) -> str:
    """Mostly a mapping of small values, anchors, aliases and flow collections; often not
    valid YAML at all."""
    lines = []
    for _ in range(rng.randint(1, 6)):
        key = rng.choice(["a", "b", "a", "c", "*y", "&y k", "<<", "[a]"])
        if rng.random() < 0.35:
            value = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 5)))
        else:
            value = rng.choice(_VALUES)
        lines.append(f"{key}: {value}")
    return "\n".join(lines) + "\n"


def _outcome(text: str, loader: str) -> Any:
    try:
        value, duplicates = load_with_yaml(text, loader)  # type: ignore[arg-type]
    except FrontmatterError as exc:
        return ("refused", str(exc), exc.line, exc.column)
    return (repr(value), [(d.line, d.column) for d in duplicates])


def _composed(text: str, loader: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(fm, "build_from_events", lambda _loader, _levels: None)
        return _outcome(text, loader)


@pytest.mark.parametrize("loader", LOADERS)
def test_every_generated_text_reads_as_the_composed_loader_reads_it(
    loader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(27)
    kinds = {"value": 0, "refused": 0}
    for _ in range(CASES):
        text = _text(rng)
        got = _outcome(text, loader)
        assert got == _composed(text, loader, monkeypatch), text
        kinds["refused" if got[0] == "refused" else "value"] += 1
    assert min(kinds.values()) > CASES // 10  # both outcomes are really exercised


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize(
    "text",
    [
        "",
        "# only a comment\n",
        "a: &x [1, [2]]\nb: *x\nc: *x\n",
        "&k a: 1\n*k : 2\n",  # a duplicate key given by an alias: reported at the anchor
        "a: 1\nb: 2\na: 3\n",
        "a: &x 1\nb: &x 2\n",  # an anchor defined twice
        "a: *nope\n",
        "a: &x [*x]\n",  # a collection holding itself
        "? [a]\n: 1\n",  # a collection as a key
        "a: &x [1]\n? *x\n: 2\n",
        "a: 1\n---\nb: 2\n",
        "a: 1\n---\n[",
        'a: "\\ud800"\n',
        "a: " + "[" * 64 + "]" * 64 + "\n",  # 65 levels with the top mapping
        "a: " + "[" * 63 + "]" * 63 + "\n",
        "a: &x " + "[" * 40 + "]" * 40 + "\nb: " + "[" * 30 + "*x" + "]" * 30 + "\n",
        "- a\n- b\n",
        "just text\n",
        "a: [b\n",
        "a: !t {<<: {c: d}}\n",
    ],
)
def test_each_rule_of_the_composed_loader_holds(
    loader: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _outcome(text, loader) == _composed(text, loader, monkeypatch)


def test_many_small_lists_cost_their_value_not_a_node_tree() -> None:
    # Found by trying to break the product: 400,000 lists of 10 (8.8 MB) took 1.7 GB and
    # 13.6 s, every scalar a node with two marks; 20,000 here (0.4 MB) took about 90 MB.
    text = "x: [" + ",".join("[" + ",".join(["a"] * 10) + "]" for _ in range(20_000)) + "]\n"
    tracemalloc.start()
    try:
        value, _ = load_with_yaml(text, LOADERS[-1])  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(value["x"]) == 20_000 and value["x"][-1] == ["a"] * 10
    assert peak < 12_000_000, peak

"""Issue 5: invariants over generated ledgers, broken files included (hypothesis)."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_clean_text, examples, write_ledger
from ledger_context import build_context
from ledger_context.explain.full import explain
from ledger_context.pack.context import ContextBuild
from reference.ledgers import SpaceSpec, cap_tokens, max_data_class, spaces, write_space

SETTINGS = settings(max_examples=examples(120), deadline=None, suppress_health_check=list(HealthCheck))


def _check_invariants(build: ContextBuild) -> None:
    data = build.pack.encode("utf-8")  # a str that encodes: valid UTF-8
    budget = build.budgeted
    assert len(data) <= budget.cap_bytes
    outcomes = [(o.block.group, o.outcome) for o in budget.blocks]
    kept_droppable = [g for g, outcome in outcomes if g >= 4 and outcome != "dropped"]
    if any(g <= 3 for g, outcome in outcomes if outcome != "kept"):
        assert kept_droppable == []  # groups 1-3 lose bytes only once groups 4-6 are gone
    if budget.truncated:
        assert kept_droppable == []  # the cut comes only after every droppable block is gone
        assert sum(1 for _, outcome in outcomes if outcome == "truncated") <= 1
    explanation = explain(build, "full")
    assert sum(b.kept_bytes for b in explanation.blocks) == len(data)
    assert sum(g.kept_bytes for g in explanation.groups) == len(data)
    assert explanation.pack.tokens == -(-len(data) // 4)
    assert explanation.pack.bytes + explanation.pack.bytes_left == budget.cap_bytes
    assert explanation.pack.tokens + explanation.pack.tokens_left == budget.cap_tokens


@SETTINGS
@given(spec=spaces(), cap=cap_tokens(), ceiling=max_data_class())
def test_invariants_hold_on_generated_ledgers(spec: SpaceSpec, cap: int, ceiling: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _check_invariants(build_context(write_space(Path(tmp), spec), cap, ceiling))


class _Listing(list[os.DirEntry[str]]):
    """A shuffled directory listing that, like ``os.scandir``'s, is also a context manager."""

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None


@SETTINGS
@given(spec=spaces(), cap=cap_tokens(), seed=st.integers(0, 2**32 - 1))
def test_pack_ignores_listing_order_and_modification_times(spec: SpaceSpec, cap: int, seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        space = write_space(Path(tmp), spec)
        expected = build_context(space, cap).pack
        shuffle = random.Random(seed)
        real_scandir = os.scandir

        def shuffled(path: str | int) -> _Listing:
            with real_scandir(path) as it:
                entries = _Listing(it)
            shuffle.shuffle(entries)
            return entries

        for path in (space / ".ledger").rglob("*"):
            if path.is_file() and not path.is_symlink():
                moment = shuffle.randrange(10**9, 2 * 10**9)
                os.utime(path, (moment, moment))
        with mock.patch("ledger_context.reader.walk.os.scandir", shuffled):
            assert build_context(space, cap).pack == expected


@settings(max_examples=examples(300), deadline=None)
@given(data=st.binary(max_size=400), kind=st.sampled_from(["agents.md", "evals/x.md", "experiments/x.md"]))
def test_random_bytes_never_raise(data: bytes, kind: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_ledger(Path(tmp), {kind: data})
        _check_invariants(build_context(Path(tmp), 50))


# --------------------------------------------------------------------------- properties (hostile input)


_KINDS = ("harnesses", "evals", "findings", "decisions", "experiments")

_YAML_PIECES = [
    *"-:abc st\n\t\r'\"[]{}&*!|>#~%@`,?\\0é\x00\x85\u2028\ufeff",
    "status: ",
    "updated_at: ",
    "title: ",
    "slug: ",
    "data_class: ",
    "active",
    "current",
    "accepted",
    "2026-01-01",
    "\n---\n",
    "\n  - ",
    '"\\ud800"',
]
_yamlish = st.lists(st.sampled_from(_YAML_PIECES), max_size=40).map("".join)


def _document_bytes() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=200),
        _yamlish.map(lambda s: s.encode("utf-8")),
        _yamlish.map(lambda s: ("---\n" + s + "\n---\n").encode("utf-8")),
        st.tuples(_yamlish, st.binary(max_size=8)).map(
            lambda t: b"---\n" + t[0].encode("utf-8") + t[1] + b"\n---\n"
        ),
    )


@st.composite
def _ledgers(draw) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    if draw(st.booleans()):
        files["agents.md"] = draw(_document_bytes())
    for index in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(_KINDS))
        files[f"{kind}/d{index}.md"] = draw(_document_bytes())
    return files


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_document_bytes(), kind=st.sampled_from((*_KINDS, "agents")))
def test_random_bytes_as_a_document_never_raise(data, kind):
    with tempfile.TemporaryDirectory() as tmp:
        name = "agents.md" if kind == "agents" else f"{kind}/d.md"
        space = write_ledger(Path(tmp) / "space", {name: data})
        result = build_context(space)
        encoded = result.pack.encode("utf-8")
        assert len(encoded) <= 24_000
        assert "\r" not in result.pack
        for problem in result.ledger.problems:
            assert_clean_text(problem.path)
            problem.message.encode("utf-8")


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=_ledgers(), cap=st.integers(1, 120))
def test_pack_never_exceeds_the_cap_and_is_valid_utf8(files, cap):
    with tempfile.TemporaryDirectory() as tmp:
        space = write_ledger(Path(tmp) / "space", files)
        result = build_context(space, cap_tokens=cap)
        encoded = result.pack.encode("utf-8")  # no lone surrogate can reach the pack
        assert len(encoded) <= 4 * cap
        assert sum(b.kept_bytes for b in result.budgeted.blocks) == len(encoded)
        assert "\r" not in result.pack
        for document in result.ledger.documents:
            if document.kind != "experiment" and document.kind != "agents":
                assert_clean_text(document.title)

"""Issue 5: invariants over generated ledgers, broken files included (hypothesis)."""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger_context import build_context
from ledger_context.context import ContextBuild
from ledger_context.explain import explain
from reference.ledgers import SpaceSpec, cap_tokens, max_data_class, spaces, write_space

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))


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


@SETTINGS
@given(spec=spaces(), cap=cap_tokens(), seed=st.integers(0, 2**32 - 1))
def test_pack_ignores_listing_order_and_modification_times(spec: SpaceSpec, cap: int, seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        space = write_space(Path(tmp), spec)
        expected = build_context(space, cap).pack
        shuffle = random.Random(seed)
        real_scandir = os.scandir

        def shuffled(path: str) -> AbstractContextManager[Iterator[os.DirEntry[str]]]:
            with real_scandir(path) as it:
                entries = list(it)
            shuffle.shuffle(entries)
            return nullcontext(iter(entries))  # the walk lists inside a with block

        for path in (space / ".ledger").rglob("*"):
            if path.is_file() and not path.is_symlink():
                moment = shuffle.randrange(10**9, 2 * 10**9)
                os.utime(path, (moment, moment))
        with mock.patch("ledger_context.walk.os.scandir", shuffled):
            assert build_context(space, cap).pack == expected


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=400), kind=st.sampled_from(["agents.md", "evals/x.md", "experiments/x.md"]))
def test_random_bytes_never_raise(data: bytes, kind: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ".ledger" / kind
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        _check_invariants(build_context(Path(tmp), 50))

"""Issue 6: the cache and every fast path give exactly the packs and explanations of a
full, uncached build — also after files are edited, added and deleted."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, doc, write_ledger
from ledger_context import build_context
from ledger_context.context import ContextBuild, ContextBuilder
from ledger_context.explain import explain
from ledger_context.ledger import DocumentCache
from reference.ledgers import SpaceSpec, spaces, write_space

_clock = iter(range(1_000_000_000, 2_000_000_000, 7))


def _age(path: Path) -> None:
    """Give ``path`` a distinct mtime long ago, so the cache trusts and reuses it."""
    seconds = next(_clock)
    os.utime(path, (seconds, seconds))


def _same(cached: ContextBuild, space: Path, ceiling: str | None = None) -> None:
    fresh = build_context(space, cached.budgeted.cap_tokens, ceiling)
    assert cached.pack == fresh.pack
    for detail in ("brief", "full"):
        assert explain(cached, detail) == explain(fresh, detail)  # type: ignore[arg-type]


@pytest.mark.parametrize("fixture", ["demo", "overflow", "floor"])
def test_cached_builds_of_every_fixture_equal_the_full_build(fixture: str) -> None:
    builder = ContextBuilder(FIXTURES / fixture, max_data_class=None, cache=DocumentCache(racy_ns=0))
    first = builder.build()
    second = builder.build()
    assert second is first  # nothing changed: the same build, not a rebuild
    _same(second, FIXTURES / fixture)


def test_edit_add_delete_and_touch_are_seen_on_the_very_next_build(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "s",
        {f"experiments/e{n}.md": doc(updated_at=f"2026-01-0{n}") for n in range(1, 6)}
        | {"findings/f.md": doc(status="current", updated_at="2026-01-01")},
    )
    for path in (space / ".ledger").rglob("*.md"):
        _age(path)
    builder = ContextBuilder(space, cap_tokens=6000, cache=DocumentCache(racy_ns=0))
    _same(builder.build(), space)

    edited = space / ".ledger/findings/f.md"
    edited.write_text(doc(status="superseded", updated_at="2026-01-01"), encoding="utf-8")
    _age(edited)
    after_edit = builder.build()
    assert "## Finding" not in after_edit.pack
    _same(after_edit, space)

    added = space / ".ledger/experiments/new.md"
    added.write_text(doc(updated_at="2027-01-01"), encoding="utf-8")
    _age(added)
    after_add = builder.build()
    assert after_add.pack.startswith("---\nupdated_at: 2027-01-01\n")
    _same(after_add, space)

    added.unlink()
    (space / ".ledger/experiments/e5.md").unlink()
    after_delete = builder.build()
    assert "2027" not in after_delete.pack and "2026-01-05" not in after_delete.pack
    _same(after_delete, space)

    # Same size, only the mtime moves: still re-read.
    target = space / ".ledger/experiments/e1.md"
    target.write_text(doc(updated_at="2026-01-09"), encoding="utf-8")
    _age(target)
    _same(builder.build(), space)


def test_a_file_changed_within_the_last_second_is_never_served_from_the_cache(tmp_path: Path) -> None:
    space = write_ledger(tmp_path / "s", {"agents.md": "one\n"})
    builder = ContextBuilder(space)  # the real racy window
    assert builder.build().pack == "one\n"
    agents = space / ".ledger/agents.md"
    agents.write_text("two\n", encoding="utf-8")  # same size, same second
    assert builder.build().pack == "two\n"


_MUTATIONS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "add", "delete", "touch"]), st.integers(0, 50), st.binary(max_size=80)
    ),
    max_size=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(spec=spaces(links=False), mutations=_MUTATIONS, ceiling=st.sampled_from([None, "internal"]))
def test_cached_and_full_builds_agree_through_random_changes(
    spec: SpaceSpec, mutations: list[tuple[str, int, bytes]], ceiling: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        space = write_space(Path(tmp), spec)
        files = sorted(p for p in (space / ".ledger").rglob("*") if p.is_file() and not p.is_symlink())
        for path in files:
            _age(path)
        builder = ContextBuilder(
            space, cap_tokens=300, max_data_class=ceiling, cache=DocumentCache(racy_ns=0)
        )
        _same(builder.build(), space, ceiling)
        for action, index, payload in mutations:
            files = sorted(p for p in (space / ".ledger").rglob("*.md") if p.is_file() and not p.is_symlink())
            if action == "add" or not files:
                target = space / ".ledger" / "experiments" / f"added-{index}.md"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(
                    b"---\nupdated_at: 2026-05-0" + str(index % 9 + 1).encode() + b"\n---\n" + payload
                )
                _age(target)
            else:
                target = files[index % len(files)]
                if action == "delete":
                    target.unlink()
                elif action == "edit":
                    target.write_bytes(target.read_bytes()[: len(payload)] + payload)
                    _age(target)
                else:
                    _age(target)
            _same(builder.build(), space, ceiling)

"""Warm builds (cache.py): a long-running
builder reuses exactly the files that did not change, and sees every edit on the next build."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from conftest import FIXTURES, age, doc, same_as_full_build, server, text_of, write_ledger
from ledger_context import build_context
from ledger_context.model.document import FileResult
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.settings import make_settings
from ledger_context.reader.cache import DocumentCache, WarmBuild
from ledger_context.reader.identity import RACY_NS
from ledger_context.reader.walk import SourceFile


def test_the_document_cache_serves_a_result_only_while_its_identity_holds() -> None:
    found = SourceFile("finding", ".ledger/findings/f.md", (1, 2, 3, 0, 0))
    result = FileResult(None, (), 3)
    cache = DocumentCache()
    assert cache.put(found, result, now_ns=RACY_NS) is True
    assert cache.get(found) is result and len(cache) == 1
    assert cache.get(found._replace(identity=(1, 2, 3, 0, 1))) is None  # its ctime moved
    recent = found._replace(identity=(1, 2, 4, RACY_NS, RACY_NS))
    assert cache.put(recent, result, now_ns=RACY_NS + 1) is False  # changed a moment ago
    assert len(cache) == 0  # and the entry of the old identity is gone
    assert cache.put(found, FileResult(None, (), 3, cacheable=False), now_ns=RACY_NS) is False
    other = SourceFile("decision", ".ledger/decisions/d.md", (1, 5, 3, 0, 0))
    assert cache.put(found, result, RACY_NS) and cache.put(other, result, RACY_NS)
    cache.keep_only({other.path})
    assert (cache.get(found), cache.get(other), len(cache)) == (None, result, 1)


def test_the_cache_counts_every_change_and_nothing_else() -> None:
    """Equal counts mean equal entries: what lets the index skip a write without comparing
    every entry."""
    found = SourceFile("finding", ".ledger/findings/f.md", (1, 2, 3, 0, 0))
    other = SourceFile("decision", ".ledger/decisions/d.md", (1, 5, 3, 0, 0))
    result = FileResult(None, (), 3)
    cache = DocumentCache()
    cache.put_trusted({found.path: (found.identity, result)})
    assert (cache.get(found), cache.changes) == (result, 1)
    cache.get(found)
    cache.keep_only({found.path})  # drops nothing
    assert not cache.put(other._replace(identity=(1, 5, 4, RACY_NS, RACY_NS)), result, RACY_NS + 1)
    assert cache.changes == 1  # nor does a racy file never cached
    assert cache.put(other, result, RACY_NS) and cache.changes == 2
    assert not cache.put(other._replace(identity=(1, 5, 4, RACY_NS, RACY_NS)), result, RACY_NS + 1)
    assert (len(cache), cache.changes) == (1, 3)  # the racy one dropped its old entry
    cache.keep_only(set())
    assert (len(cache), cache.changes) == (0, 4)


def test_a_warm_build_is_given_again_only_for_the_same_walk_of_cached_files() -> None:
    warm: WarmBuild[tuple[str, ...], str] = WarmBuild()
    assert warm.get(("a",)) is None
    warm.put(("a",), "build of a", cached=True)
    assert warm.get(("a",)) == "build of a"
    assert warm.get(("a", "b")) is None
    warm.put(("a",), "build of a, read afresh", cached=False)
    assert warm.get(("a",)) is None


@pytest.mark.parametrize("fixture", ["demo", "overflow", "floor"])
def test_cached_builds_of_every_fixture_equal_the_full_build(fixture: str) -> None:
    builder = ContextBuilder(
        FIXTURES / fixture, make_settings(max_data_class=None), cache=DocumentCache(racy_ns=0)
    )
    first = builder.build()
    second = builder.build()
    assert second is first  # nothing changed: the same build, not a rebuild
    same_as_full_build(second, FIXTURES / fixture)


def test_edit_add_delete_and_touch_are_seen_on_the_very_next_build(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "s",
        {f"experiments/e{n}.md": doc(updated_at=f"2026-01-0{n}") for n in range(1, 6)}
        | {"findings/f.md": doc(status="current", updated_at="2026-01-01")},
    )
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    builder = ContextBuilder(space, make_settings(6000), cache=DocumentCache(racy_ns=0))
    same_as_full_build(builder.build(), space)

    edited = space / ".ledger/findings/f.md"
    edited.write_text(doc(status="superseded", updated_at="2026-01-01"), encoding="utf-8")
    age(edited)
    after_edit = builder.build()
    assert "## Finding" not in after_edit.pack
    same_as_full_build(after_edit, space)

    added = space / ".ledger/experiments/new.md"
    added.write_text(doc(updated_at="2027-01-01"), encoding="utf-8")
    age(added)
    after_add = builder.build()
    assert after_add.pack.startswith("---\nupdated_at: 2027-01-01\n")
    same_as_full_build(after_add, space)

    added.unlink()
    (space / ".ledger/experiments/e5.md").unlink()
    after_delete = builder.build()
    assert "2027" not in after_delete.pack and "2026-01-05" not in after_delete.pack
    same_as_full_build(after_delete, space)

    # Same size, only the mtime moves: still re-read.
    target = space / ".ledger/experiments/e1.md"
    target.write_text(doc(updated_at="2026-01-09"), encoding="utf-8")
    age(target)
    same_as_full_build(builder.build(), space)


def test_a_file_changed_within_the_last_second_is_never_served_from_the_cache(tmp_path: Path) -> None:
    space = write_ledger(tmp_path / "s", {"agents.md": "one\n"})
    builder = ContextBuilder(space)  # the real racy window
    assert builder.build().pack == "one\n"
    agents = space / ".ledger/agents.md"
    agents.write_text("two\n", encoding="utf-8")  # same size, same second
    assert builder.build().pack == "two\n"


@pytest.mark.anyio
async def test_one_server_process_sees_edits_additions_and_deletions(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "space",
        {"agents.md": "v1\n", "experiments/a.md": "---\nupdated_at: 2026-01-01\n---\n"},
    )
    async with Client(server("--space", str(space)), mode="legacy") as client:

        async def pack() -> str:
            return text_of(await client.call_tool("get_context", {}))

        assert await pack() == build_context(space).pack
        (space / ".ledger/agents.md").write_text("v2\n", encoding="utf-8")
        assert (await pack()).startswith("v2\n")
        (space / ".ledger/experiments/b.md").write_text(
            "---\nupdated_at: 2026-02-01\n---\n", encoding="utf-8"
        )
        assert await pack() == build_context(space).pack
        assert "2026-02-01" in await pack()
        (space / ".ledger/experiments/a.md").unlink()
        assert await pack() == build_context(space).pack
        assert "2026-01-01" not in await pack()


def test_the_cache_lists_its_entries_in_path_order_for_the_index(tmp_path: Path) -> None:
    space = write_ledger(tmp_path / "space", {"findings/b.md": doc(status="open"), "findings/a.md": doc()})
    cache = DocumentCache(racy_ns=0)
    from ledger_context.reader.ledger import read_ledger

    ledger = read_ledger(space, cache)
    assert ledger.cached and cache.racy_ns == 0 and DocumentCache().racy_ns == RACY_NS
    assert [(path, identity) for path, identity, _ in cache.items()] == [
        (source.path, source.identity)
        for source in ledger.walk.files  # type: ignore[union-attr]
    ]
    assert [result.document for _, _, result in cache.items()] == ledger.documents

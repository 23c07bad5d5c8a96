"""The folder listings the index keeps (indexed.py, walk.py): a new builder lists no
settled folder whose stamp is the same, builds the same pack, writes listings a summary
lacks, and never uses a re-signed listing naming what listing the folder would not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_indexed import SETTLED_NS, _remac, _settle

from conftest import count_listings, write_ledger
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.settings import make_settings
from ledger_context.reader import indexed as indexed_module
from ledger_context.reader import walk as walk_module
from ledger_context.reader.cache import DocumentCache
from ledger_context.reader.index import IndexOptions

pytestmark = pytest.mark.skipif(
    not walk_module._LIST_BY_DESCRIPTOR, reason="folders are listed by descriptor on POSIX only"
)


def _spread_space(tmp_path: Path) -> Path:
    space = tmp_path / "space"
    files: dict[str | bytes, str | bytes] = {"agents.md": "# Agents\n"}
    for i in range(8):
        files[f"experiments/2026-0{i % 2 + 1}/e-{i}.md"] = f"---\nstatus: done\ntitle: E{i}\n---\nBody {i}.\n"
    files["findings/f.md"] = "---\nstatus: current\ntitle: F\n---\nFound.\n"
    write_ledger(space, files)
    return space


@pytest.mark.skipif(
    not walk_module._LIST_BY_DESCRIPTOR, reason="folders are listed by descriptor on POSIX only"
)
def test_a_new_builder_lists_no_settled_folder_the_index_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index keeps the listing of each settled folder; a new builder (a new process)
    stats those folders' documents instead of listing them, and builds the same pack."""
    space = _spread_space(tmp_path)
    monkeypatch.setattr(walk_module, "SETTLED_NS", SETTLED_NS)
    settings = make_settings(index=IndexOptions(tmp_path / "cache"))
    expected = ContextBuilder(space, make_settings(), cache=False).build().pack
    first = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    assert first.index == "created (there was none)"  # the folders were not settled yet
    _settle()
    second = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    assert second.pack == expected and second.index is not None and second.index.startswith("used")
    listed = count_listings(monkeypatch)
    third = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    assert third.pack == expected and third.index == "used (10 of 10 files from the index)"
    root, experiments = (os.stat(space / ".ledger" / name).st_ino for name in ("", "experiments"))
    assert sorted(listed) == sorted([root, experiments])
    (space / ".ledger/experiments/2026-01/e-new.md").write_text(
        "---\nstatus: done\ntitle: New\n---\nNew.\n", encoding="utf-8"
    )
    listed.clear()
    fourth = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    assert "title: New" in fourth.pack
    assert fourth.pack == ContextBuilder(space, make_settings(), cache=False).build().pack
    assert os.stat(space / ".ledger/experiments/2026-01").st_ino in listed


@pytest.mark.skipif(
    not walk_module._LIST_BY_DESCRIPTOR, reason="folders are listed by descriptor on POSIX only"
)
def test_a_start_from_a_summary_that_lacks_settled_listings_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary written while its folders were not settled lacks their listings; a start
    from it writes nothing, so the first start after the folders settle is made from the
    entries, which writes them: the next lists no settled folder."""
    space = _spread_space(tmp_path)
    settings = make_settings(index=IndexOptions(tmp_path / "cache"))
    monkeypatch.setattr(indexed_module, "SUMMARY_SHARE", 1.0)
    ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()  # writes the summary
    assert indexed_module.IndexUse(IndexOptions(tmp_path / "cache"), space, None).listings() == {}
    monkeypatch.setattr(walk_module, "SETTLED_NS", SETTLED_NS)
    _settle()
    ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    kept = indexed_module.IndexUse(IndexOptions(tmp_path / "cache"), space, None).listings()
    assert sorted(kept) == [".ledger/experiments/2026-01", ".ledger/experiments/2026-02", ".ledger/findings"]
    expected = ContextBuilder(space, make_settings(), cache=False).build().pack
    listed = count_listings(monkeypatch)
    build = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    assert build.pack == expected
    assert len(listed) == 2  # the root and experiments/, which holds folders


@pytest.mark.skipif(
    not walk_module._LIST_BY_DESCRIPTOR, reason="folders are listed by descriptor on POSIX only"
)
def test_a_re_signed_listing_that_names_a_file_out_of_its_folder_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listing re-signed with the key, naming a hidden file and a file of another folder:
    the walk lists the folder, and the pack is the one without an index."""
    space = _spread_space(tmp_path)
    (space / ".ledger/experiments/2026-01/.draft.md").write_text(
        "---\nstatus: done\ntitle: Hidden draft\n---\nNot a document.\n", encoding="utf-8"
    )
    monkeypatch.setattr(walk_module, "SETTLED_NS", SETTLED_NS)
    _settle()
    folder = tmp_path / "cache"
    settings = make_settings(index=IndexOptions(folder))
    ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()

    def forge(body: dict) -> None:
        if "listings" in body.get("build", {}):
            stamp, names = body["build"]["listings"][".ledger/experiments/2026-01"]
            body["build"]["listings"][".ledger/experiments/2026-01"] = (
                stamp, (*names, ".draft.md", "../../findings/f.md")
            )  # fmt: skip

    _remac(folder, forge, summaries=False)
    kept = indexed_module.IndexUse(IndexOptions(folder), space, None).listings()
    assert ".draft.md" in kept[".ledger/experiments/2026-01"][1]
    build = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    assert build.pack == ContextBuilder(space, make_settings(), cache=False).build().pack
    assert "Hidden draft" not in build.pack and build.pack.count("title: F") <= 1

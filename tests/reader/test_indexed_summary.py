"""A warm start from the summary of the last build the ledger index keeps (indexed.py,
issue 26): a new builder whose walk is the summarized one selects from the summary, reads
afresh all it serves, and decodes the other entries only when asked; anything else (another
walk, other settings, a summary at odds with its rows) is built from the entries, with the
same bytes."""

from __future__ import annotations

import marshal
import os
import random
from collections import Counter
from pathlib import Path

import pytest
from test_indexed import INTERNAL, _fault_space, _fresh_reads, _generate, _outputs, _remac

from conftest import age, write_ledger
from ledger_context.model.problems import Problem
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.settings import Settings, make_settings
from ledger_context.reader import index as index_module
from ledger_context.reader import indexed as indexed_module
from ledger_context.reader.cache import DocumentCache
from ledger_context.reader.index import IndexOptions, index_path
from ledger_context.reader.ledger import DeferredLedger
from ledger_context.reader.walk import SourceFile, Walk

SHIPPED_SHARE = indexed_module.SUMMARY_SHARE


@pytest.fixture(autouse=True)
def _summaries_of_small_ledgers(monkeypatch: pytest.MonkeyPatch) -> None:
    """These ledgers are a few files, nearly all candidates: summaries are kept for them
    all the same, so that every path of the index is exercised (the share is its own test)."""
    monkeypatch.setattr(indexed_module, "SUMMARY_SHARE", 1.0)


def _decoded_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows each decoding of index rows met, from now on."""
    counts: list[int] = []
    real = index_module.decode_rows
    monkeypatch.setattr(index_module, "decode_rows", lambda rows: counts.append(len(rows)) or real(rows))
    monkeypatch.setattr(indexed_module, "decode_rows", index_module.decode_rows)
    return counts


def _new_builder(space: Path, settings: Settings) -> ContextBuilder:
    return ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0))


@pytest.mark.parametrize("seed", range(3))
def test_a_new_builder_on_an_unchanged_walk_selects_from_the_summary_and_decodes_entries_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    space = tmp_path / "space"
    _generate(random.Random(seed), space)
    off = make_settings(max_data_class=("internal", None, "confidential")[seed])
    settings = off._replace(index=IndexOptions(tmp_path / "cache"))
    expected, _ = _outputs(space, off)
    _outputs(space, settings)  # writes the index and its summary
    decoded, read = _decoded_rows(monkeypatch), _fresh_reads(monkeypatch)
    build = _new_builder(space, settings).build()
    files = len(build.ledger.walk.files)  # type: ignore[union-attr]
    assert build.pack == expected[0] and build.index == f"used ({files} of {files} files from the index)"
    chosen = {b.document.path for b in build.selection.blocks} | {d.path for d in build.selection.withheld}
    assert decoded == [len(chosen)]  # the summary's own rows: no entry of the other files
    held = {o.block.document.path for o in build.budgeted.blocks if o.kept_bytes}
    assert held <= set(read) <= chosen  # what the pack holds, read afresh
    assert len(build.ledger.documents) > 0 and decoded == [len(chosen), files]  # asked: decoded
    texts, build = _outputs(space, settings)
    assert texts == expected and build.index == f"used ({files} of {files} files from the index)"


def test_a_walk_that_differs_only_by_a_problem_is_not_the_summarized_one(tmp_path: Path) -> None:
    space, folder = _fault_space(tmp_path)
    settings = make_settings(index=IndexOptions(folder))
    (space / ".ledger/findings/note.markdown").write_text("not a document\n", encoding="utf-8")
    expected, _ = _outputs(space, make_settings())
    texts, build = _outputs(space, settings)
    assert texts == expected and "note.markdown" in texts[1]  # explain names the misnamed file
    assert build.index == "used (3 of 3 files from the index)"
    assert _new_builder(space, settings).build().pack == expected[0]
    assert isinstance(_new_builder(space, settings).build().ledger, DeferredLedger)  # summarized anew


def test_each_ceiling_keeps_its_own_summary_of_one_walk(tmp_path: Path) -> None:
    space, folder = _fault_space(tmp_path)
    path = index_path(IndexOptions(folder), space)
    ceilings = (None, "internal", "public")
    for ceiling in ceilings:  # each summarized once, beside the others
        _outputs(space, make_settings(max_data_class=ceiling, index=IndexOptions(folder)))
    written = path.stat().st_mtime_ns
    for ceiling in ceilings * 2:
        settings = make_settings(max_data_class=ceiling, index=IndexOptions(folder))
        build = _new_builder(space, settings).build()
        assert isinstance(build.ledger, DeferredLedger), ceiling
        assert build.pack == _new_builder(space, make_settings(max_data_class=ceiling)).build().pack
    assert path.stat().st_mtime_ns == written  # nothing new to write


def test_after_a_warm_start_from_the_summary_a_change_reads_only_the_changed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    space = tmp_path / "space"
    _generate(random.Random(7), space)
    settings = make_settings(index=IndexOptions(tmp_path / "cache"))
    _outputs(space, settings)
    builder = _new_builder(space, settings)
    assert isinstance(builder.build().ledger, DeferredLedger)
    from ledger_context.reader import ledger as ledger_module

    read = _fresh_reads(monkeypatch, ledger_module)
    changed = space / ".ledger/findings/fin-00.md"
    changed.write_text("---\nstatus: open\ntitle: Changed\n---\n", encoding="utf-8")
    age(changed)
    build = builder.build()
    assert read == [".ledger/findings/fin-00.md"]  # the rest from the index, primed only now
    assert build.pack == _new_builder(space, make_settings()).build().pack
    assert build.document(".ledger/findings/fin-00.md").title == "Changed"  # type: ignore[union-attr]


def test_no_summary_is_kept_of_a_walk_whose_files_are_too_recent_to_trust(tmp_path: Path) -> None:
    space, folder = _fault_space(tmp_path)
    settings = make_settings(index=IndexOptions(folder))
    clear = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0))
    clear.build()  # the index, summarized
    os.utime(space / ".ledger/evals/e.md")  # changed just now: racy for a second
    racy = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=10**9))
    assert not isinstance(racy.build().ledger, DeferredLedger)  # the walk differs
    again = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=10**9)).build()
    assert not isinstance(again.ledger, DeferredLedger)  # and no summary of it was kept


def _public_only(tmp_path: Path, files: dict[str | bytes, str | bytes]) -> tuple[Path, Path, Settings]:
    """A ledger of ``files``, aged, its index written by a build under the ceiling
    ``public``: the space, the index folder and those settings."""
    space = write_ledger(tmp_path / "space", files)
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    folder = tmp_path / "cache"
    settings = make_settings(max_data_class="public", index=IndexOptions(folder))
    _outputs(space, settings)
    return space, folder, settings


def test_a_summary_at_odds_with_its_rows_is_not_used(tmp_path: Path) -> None:
    """A holder of the key signs a summary whose withheld document its row calls public:
    the build is made from the entries, never from a selection its own rows contradict."""
    space, folder, settings = _public_only(tmp_path, {"agents.md": "# A\n", "evals/e.md": INTERNAL})
    expected, _ = _outputs(space, make_settings(max_data_class="public"))

    def declassify_summary_only(body: dict) -> None:
        for entry in body["entries"] if "summary" in body else ():
            if entry[4] is not None and entry[4][7] == "internal":
                entry[4][7] = "public"

    _remac(folder, declassify_summary_only)
    texts, build = _outputs(space, settings)
    assert texts == expected and not isinstance(build.ledger, DeferredLedger)
    assert build.is_withheld(".ledger/evals/e.md")


@pytest.mark.parametrize(
    "spoil",
    [
        lambda build: build.update(builds=[("x", None, None)]),
        lambda build: build.update(walk=[[], []]),
        lambda build: build.update(builds={key: (1, 2) for key in build["builds"]}),
        lambda build: build.update(
            builds={key: ([[1, "nowhere"]], [], [], ([], [], [], 0)) for key in build["builds"]}
        ),
    ],
)
def test_a_summary_of_the_wrong_shape_costs_a_build_from_the_entries(tmp_path: Path, spoil) -> None:
    space, folder = _fault_space(tmp_path)
    settings = make_settings(index=IndexOptions(folder))

    _remac(folder, lambda body: spoil(body["build"]), summaries=False)
    expected, _ = _outputs(space, make_settings())
    for _ in range(2):  # the index written again is used
        texts, build = _outputs(space, settings)
        assert texts == expected and build.index == "used (3 of 3 files from the index)"


def _edit_blocks(edit):
    """An edit of every summary's blocks, as (group, path) lists."""

    def edit_body(body: dict) -> None:
        for key, (blocks, withheld, rows, figures) in body["build"]["builds"].items():
            body["build"]["builds"][key] = (edit(blocks), withheld, rows, figures)

    return edit_body


# Regression: a bug found by trying to break the product (a re-signed summary whose blocks
# were reordered put agents.md last, against spec §4, on every run, and was never rewritten).
@pytest.mark.parametrize(
    "edit",
    [
        lambda blocks: blocks[::-1],  # agents last
        lambda blocks: [[6 if group == 3 else group, path] for group, path in blocks],  # wrong group
        lambda blocks: blocks + blocks[-1:],  # a block twice
    ],
)
def test_a_summary_the_rule_does_not_make_of_its_documents_is_not_used_and_is_written_anew(
    tmp_path: Path, edit
) -> None:
    space, folder = _fault_space(tmp_path)
    settings = make_settings(index=IndexOptions(folder))
    _remac(folder, _edit_blocks(edit), summaries=False)
    expected, _ = _outputs(space, make_settings())
    texts, build = _outputs(space, settings)
    assert texts == expected and not isinstance(build.ledger, DeferredLedger)
    assert isinstance(_new_builder(space, settings).build().ledger, DeferredLedger)  # written anew


def _edit_withheld(edit):
    """An edit of every summary's withheld paths."""

    def edit_body(body: dict) -> None:
        for key, (blocks, withheld, rows, figures) in body["build"]["builds"].items():
            body["build"]["builds"][key] = (blocks, edit(withheld), rows, figures)

    return edit_body


# Regression: a bug found by trying to break the product (a re-signed summary whose withheld
# list was reversed or held a path twice changed explain's figures on every run).
@pytest.mark.parametrize("edit", [lambda paths: paths[::-1], lambda paths: paths + paths[:1]])
def test_a_withheld_list_out_of_path_order_or_twice_is_not_used(tmp_path: Path, edit) -> None:
    files = {"agents.md": "# A\n", "evals/e.md": INTERNAL, "evals/f.md": INTERNAL, "evals/g.md": INTERNAL}
    space, folder, settings = _public_only(tmp_path, files)
    _remac(folder, _edit_withheld(edit), summaries=False)
    expected, _ = _outputs(space, make_settings(max_data_class="public"))
    texts, build = _outputs(space, settings)
    assert texts == expected and not isinstance(build.ledger, DeferredLedger)
    assert isinstance(_new_builder(space, settings).build().ledger, DeferredLedger)  # written anew


def test_a_group_that_is_not_an_integer_is_not_used(tmp_path: Path) -> None:
    space, folder = _fault_space(tmp_path)
    settings = make_settings(index=IndexOptions(folder))
    _remac(folder, _edit_blocks(lambda blocks: [[str(g), p] for g, p in blocks]), summaries=False)
    _, build = _outputs(space, settings)
    assert not isinstance(build.ledger, DeferredLedger)
    assert isinstance(_new_builder(space, settings).build().ledger, DeferredLedger)


def test_no_summary_is_kept_where_most_documents_are_candidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(indexed_module, "SUMMARY_SHARE", SHIPPED_SHARE)
    space, folder = _fault_space(tmp_path)  # three files, all three candidates
    settings = make_settings(index=IndexOptions(folder))
    path = index_path(IndexOptions(folder), space)
    written = path.stat().st_mtime_ns
    for _ in range(2):  # from the entries, the index not written again
        build = _new_builder(space, settings).build()
        assert not isinstance(build.ledger, DeferredLedger)
        assert build.index == "used (3 of 3 files from the index)"
    assert path.stat().st_mtime_ns == written
    assert index_module.load_index(IndexOptions(folder), space, index_module.version_key(None)).build is None


def _walk(
    *files: SourceFile, problems: tuple[Problem, ...] = (), skipped: dict[str, int] | None = None
) -> Walk:
    return Walk(list(files), list(problems), Counter(skipped or {}))


_FILE = SourceFile("findings", ".ledger/findings/a.md", (1, 2, 3, 4, 5))


@pytest.mark.parametrize(
    "other",
    [
        _walk(_FILE._replace(path=".ledger/findings/b.md")),
        _walk(_FILE._replace(kind="decisions")),
        _walk(_FILE._replace(linked=True)),
        *(
            _walk(_FILE._replace(identity=(*_FILE.identity[:at], 9, *_FILE.identity[at + 1 :])))
            for at in range(5)
        ),
        _walk(_FILE, _FILE._replace(path=".ledger/findings/b.md")),
        _walk(),
        _walk(_FILE, problems=(Problem(".ledger/findings/x.txt", "warning", "misnamed"),)),
        _walk(_FILE, skipped={"findings": 1}),
    ],
)
def test_the_summarized_walk_is_the_same_walk_column_by_column(other: Walk) -> None:
    data = marshal.loads(marshal.dumps(indexed_module._walk_data(_walk(_FILE))))  # as read back
    assert indexed_module._same_walk(data, _walk(_FILE))
    assert not indexed_module._same_walk(data, other)

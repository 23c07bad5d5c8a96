"""A walk given an earlier walk's folder listings stats the documents of a folder whose
stamp is the same instead of listing it, and finds exactly what listing it finds."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import count_listings, doc, write_ledger
from ledger_context.reader import walk as walk_module
from ledger_context.reader.walk import walk_ledger

pytestmark = pytest.mark.skipif(
    not walk_module._LIST_BY_DESCRIPTOR or not walk_module._UTF8_NAMES,
    reason="folders are listed by descriptor only on POSIX systems with UTF-8 names",
)

SETTLED_NS = 20_000_000
"""The settled margin of these tests: 20 ms, above any file-system clock tick here."""

EXPERIMENTS = ".ledger/experiments/2026-01"


@pytest.fixture(autouse=True)
def _settle_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk_module, "SETTLED_NS", SETTLED_NS)


def settle() -> None:
    """Wait until every folder changed so far is settled (older than the margin)."""
    time.sleep(2 * SETTLED_NS / 1e9)


@pytest.fixture
def space(tmp_path: Path) -> Path:
    files: dict[str | bytes, str | bytes] = {
        "agents.md": "# Agents\n",
        "findings/f-1.md": doc(status="current"),
        "decisions/d-1.md": doc(status="accepted"),
        "decisions/d-2.md": doc(status="proposed"),
    }
    for i in range(6):
        files[f"experiments/2026-01/e-{i}.md"] = doc(status="done", title=f"E{i}")
    files["experiments/2026-02/e-9.md"] = doc(status="running")
    write_ledger(tmp_path, files)
    settle()
    return tmp_path


@pytest.fixture
def listed_folders(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    return count_listings(monkeypatch)


def inodes(space: Path, *folders: str) -> set[int]:
    return {os.stat(space / folder).st_ino for folder in folders}


def test_a_walk_keeps_the_listing_of_each_plain_settled_folder(space: Path) -> None:
    walk = walk_ledger(space)
    assert sorted(walk.listings) == [
        ".ledger/decisions",
        ".ledger/experiments/2026-01",
        ".ledger/experiments/2026-02",
        ".ledger/findings",
    ]  # not experiments/ (it holds folders), nor the root
    stamp, names = walk.listings[EXPERIMENTS]
    folder = os.stat(space / EXPERIMENTS)
    assert stamp == (folder.st_dev, folder.st_ino, folder.st_mtime_ns, folder.st_ctime_ns)
    assert sorted(names) == [f"e-{i}.md" for i in range(6)]


def test_a_folder_changed_within_the_margin_is_not_kept(space: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (space / EXPERIMENTS / "e-new.md").write_text(doc(status="done"), encoding="utf-8")
    monkeypatch.setattr(walk_module, "SETTLED_NS", 10**9)
    walk = walk_ledger(space)
    assert EXPERIMENTS not in walk.listings and ".ledger/decisions" not in walk.listings


@pytest.mark.parametrize(
    ("ctime_ns", "kept"),
    [
        (1_796_600_000_000_000_000, False),  # FAT, HFS+: whole seconds (FAT: even ones)
        (1_796_600_000_010_000_000, False),  # exFAT: 10 ms
        (1_796_600_000_001_000_000, False),  # a whole millisecond
        (1_796_600_000_293_715_274, True),  # ext4, XFS, btrfs, tmpfs, APFS: nanoseconds
    ],
)
def test_a_folder_with_coarse_times_has_no_listing_kept(space: Path, ctime_ns: int, kept: bool) -> None:
    """On a file system with coarse times a change can land in the tick of the listing,
    and on FAT setting the mtime back sets the ctime too: such a stamp proves nothing."""
    walker = walk_module._Walker(space, {})
    walker.settled_before = ctime_ns + 1
    walker.keep_listing(EXPERIMENTS, (1, 2, ctime_ns, ctime_ns), [f"{EXPERIMENTS}/e-0.md"])
    assert walker.listings == ({EXPERIMENTS: ((1, 2, ctime_ns, ctime_ns), ("e-0.md",))} if kept else {})


def test_a_folder_with_anything_but_plain_documents_is_not_kept(space: Path) -> None:
    folder = space / ".ledger/decisions"
    (folder / "notes.txt").write_text("x", encoding="utf-8")
    os.symlink("f-1.md", space / ".ledger/findings/f-link.md")
    (space / EXPERIMENTS / ".hidden.md").write_text("x", encoding="utf-8")
    settle()
    walk = walk_ledger(space)
    assert ".ledger/decisions" not in walk.listings  # a file not named .md
    assert ".ledger/findings" not in walk.listings  # a link
    assert EXPERIMENTS in walk.listings  # a hidden file is no document, in a listing or not
    assert ".hidden.md" not in walk.listings[EXPERIMENTS][1]


def test_a_walk_given_the_listings_lists_no_plain_folder_again(
    space: Path, listed_folders: list[int]
) -> None:
    first = walk_ledger(space)
    listed_folders.clear()
    again = walk_ledger(space, first.listings)
    assert again == first and again.files == first.files and again.listings == first.listings
    assert sorted(listed_folders) == sorted(inodes(space, ".ledger", ".ledger/experiments"))


def _add(space: Path) -> None:
    (space / EXPERIMENTS / "e-new.md").write_text(doc(status="done"), encoding="utf-8")


def _remove(space: Path) -> None:
    (space / EXPERIMENTS / "e-3.md").unlink()


def _rename(space: Path) -> None:
    (space / EXPERIMENTS / "e-3.md").rename(space / EXPERIMENTS / "e-33.md")


def _rename_in_place(space: Path) -> None:
    """Same names, other files: a swap through a third name."""
    folder = space / EXPERIMENTS
    (folder / "e-1.md").rename(folder / "swap")
    (folder / "e-2.md").rename(folder / "e-1.md")
    (folder / "swap").rename(folder / "e-2.md")


def _link_to_another(space: Path) -> None:
    (space / EXPERIMENTS / "e-4.md").unlink()
    os.symlink("../../findings/f-1.md", space / EXPERIMENTS / "e-4.md")


def _folder_in_place(space: Path) -> None:
    (space / EXPERIMENTS / "e-4.md").unlink()
    (space / EXPERIMENTS / "e-4.md").mkdir()
    (space / EXPERIMENTS / "e-4.md" / "inner.md").write_text(doc(status="done"), encoding="utf-8")


def _times_set_back(space: Path) -> None:
    """A file added, and the folder's mtime set back as it was: its ctime still moves."""
    folder = space / EXPERIMENTS
    before = os.stat(folder)
    _add(space)
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))


def _hard_link_from_elsewhere(space: Path) -> None:
    """A second name in another folder: this folder's stamp stays, the file's links do not."""
    os.link(space / EXPERIMENTS / "e-2.md", space / ".ledger/findings/f-2.md")


def _edited(space: Path) -> None:
    """New content, the stamp of the folder unchanged: the new identity is found."""
    (space / EXPERIMENTS / "e-2.md").write_text(
        doc(status="failed", title="Much longer now"), encoding="utf-8"
    )


def _grown_past_the_limit(space: Path) -> None:
    with open(space / EXPERIMENTS / "e-2.md", "ab") as grown:
        grown.truncate(walk_module.MAX_FILE_BYTES + 1)


CHANGES: dict[str, Callable[[Path], None]] = {
    "added": _add,
    "removed": _remove,
    "renamed": _rename,
    "swapped names": _rename_in_place,
    "replaced by a link": _link_to_another,
    "replaced by a folder": _folder_in_place,
    "mtime set back": _times_set_back,
    "hard link from elsewhere": _hard_link_from_elsewhere,
    "edited": _edited,
    "grown past the limit": _grown_past_the_limit,
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=list(CHANGES))
def test_a_walk_given_old_listings_finds_what_a_fresh_walk_finds(
    space: Path, change: Callable[[Path], None]
) -> None:
    first = walk_ledger(space)
    change(space)
    given = walk_ledger(space, first.listings)
    expected = walk_ledger(space)
    assert given == expected
    assert given.files == expected.files and given.problems == expected.problems
    assert given.listings == expected.listings


def test_an_edit_in_the_same_tick_as_a_listing_is_not_kept_for_later(
    space: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The racy rule for folders: a listing is kept only when its folder's stamp is older
    than the margin at the walk's start, so a change right after the listing (in the same
    clock tick) cannot leave a stamp the listing would be trusted by."""
    _add(space)
    first = walk_ledger(space)  # the folder changed just now: its listing is not kept
    assert EXPERIMENTS not in first.listings
    (space / EXPERIMENTS / "e-later.md").write_text(doc(status="done"), encoding="utf-8")
    given = walk_ledger(space, first.listings)
    assert "e-later.md" in {Path(f.path).name for f in given.files}


FORGED: dict[str, Callable[[tuple[str, ...]], Any]] = {
    "a path out of the folder": lambda names: (*names, "../../findings/f-1.md"),
    "a path into a subfolder": lambda names: (*names, "sub/inner.md"),
    "a hidden file": lambda names: (*names, ".hidden.md"),
    "a file not named .md": lambda names: (*names, "notes.txt"),
    "a name twice": lambda names: (*names, names[0]),
    "a control character": lambda names: (*names, "e-\n.md"),
    "a NUL": lambda names: (*names, "e-\x00.md"),
    "a name not text": lambda names: (*names, b"e-0.md"),
    "not a tuple": lambda names: list(names),
    "no names": lambda names: (),
    "an empty name": lambda names: (*names, ""),
    "a name only .md": lambda names: (*names, ".md"),
}


@pytest.mark.parametrize("forge", FORGED.values(), ids=list(FORGED))
def test_a_forged_listing_is_not_used(space: Path, forge: Callable[[tuple[str, ...]], Any]) -> None:
    """A listing an index held can name only what listing the folder names: anything else
    (only a holder of the index key could have written it) is not used."""
    folder = space / EXPERIMENTS
    (folder / "sub").mkdir()
    (folder / "sub" / "inner.md").write_text(doc(status="done"), encoding="utf-8")
    (folder / ".hidden.md").write_text(doc(status="done"), encoding="utf-8")
    (folder / "notes.txt").write_text("x", encoding="utf-8")
    for name in ("e-\n.md", ".md"):
        (folder / name).write_text(doc(status="done"), encoding="utf-8")
    expected = walk_ledger(space)
    folder_stat = os.stat(folder)
    stamp = (folder_stat.st_dev, folder_stat.st_ino, folder_stat.st_mtime_ns, folder_stat.st_ctime_ns)
    names = tuple(f"e-{i}.md" for i in range(6))
    given = walk_ledger(space, {EXPERIMENTS: (stamp, forge(names))})
    assert given == expected and given.files == expected.files


@pytest.mark.parametrize(
    "listing",
    [None, 3, "text", (), ((1, 2, 3, 4),), ((1, 2, 3, 4), ("e-0.md",), "more"), ([1, 2, 3, 4], ("e-0.md",))],
)
def test_a_listing_of_the_wrong_shape_is_not_used(space: Path, listing: Any) -> None:
    expected = walk_ledger(space)
    given = walk_ledger(space, {EXPERIMENTS: listing, 7: listing})
    assert given == expected and given.files == expected.files


def test_a_listing_whose_stamp_differs_is_not_used(space: Path, listed_folders: list[int]) -> None:
    first = walk_ledger(space)
    stamp, names = first.listings[EXPERIMENTS]
    other = (*stamp[:3], stamp[3] - 1)
    listed_folders.clear()
    given = walk_ledger(space, {EXPERIMENTS: (other, names[:2])})
    assert given == first
    assert inodes(space, EXPERIMENTS) <= set(listed_folders)

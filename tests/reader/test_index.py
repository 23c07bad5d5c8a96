"""The ledger index file (index.py): entries round-trip exactly; a file that is missing,
garbage, truncated, edited, a link, not private, of another version or another ledger is
refused with its reason; the key is made once, privately; writing is atomic."""

from __future__ import annotations

import marshal
import os
import stat
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import doc, write_ledger
from ledger_context.model.document import FileResult
from ledger_context.reader import index as index_module
from ledger_context.reader.identity import FileIdentity
from ledger_context.reader.index import (
    KEY_BYTES,
    MAGIC,
    STALE_TEMPORARY_S,
    IndexOptions,
    clear_index,
    decode_index,
    encode_index,
    index_path,
    join_body,
    load_index,
    save_index,
    seal,
    trusted,
    user_key,
    version_key,
)
from ledger_context.reader.ledger import read_ledger
from ledger_context.reader.walk import walk_ledger

VERSION = version_key(None)


def _space(tmp_path: Path) -> Path:
    return write_ledger(
        tmp_path / "space",
        {
            "agents.md": "# Agents\n\nRules.\n",
            "evals/a.md": doc(status="active", data_class="internal", title="A ünïcode")
            + "\n## Metrics\n- x\n",
            "findings/f.md": doc(status="open", updated_at="2026-01-02") + "\nbody\n",
            "findings/bad.md": "no frontmatter\n",
            "decisions/d.md": doc(status="accepted", slug="dee", Status="x"),
            "experiments/x.md": doc(status="running", slug="exp-x"),
        },
    )


WITHOUT_FRONTMATTER = {".ledger/findings/f.md", ".ledger/experiments/x.md"}
"""Documents whose block shows only sometimes: a status findings do not select, and an
experiment (shown only among the latest ten): the index keeps no frontmatter text of them."""


def _entries(space: Path) -> list:
    walk = walk_ledger(space)
    from ledger_context.reader.ledger import read_file

    return [(s.path, s.identity, read_file(space, s, blob_hash="sha1")) for s in walk.files]


def _as_indexed(path: str, result: FileResult) -> FileResult:
    """``result`` as the index gives it back: its document without a body, and without
    its frontmatter text where its block shows only sometimes."""
    if result.document is None:
        return result
    frontmatter = None if path in WITHOUT_FRONTMATTER else result.document.frontmatter
    return result._replace(document=result.document._replace(body=None, frontmatter=frontmatter))


def test_entries_round_trip_exactly_but_for_bodies_and_the_frontmatter_no_block_always_shows(
    tmp_path: Path,
) -> None:
    space = _space(tmp_path)
    entries = _entries(space)
    assert any(result.document is None for _, _, result in entries)  # a skipped file is kept too
    assert any(result.problems for _, _, result in entries)
    data = encode_index(b"k" * 32, VERSION, space, 123, entries)
    loaded = decode_index(data, b"k" * 32, VERSION, space)
    assert loaded.fault is None and loaded.written_ns == 123
    # The pack never shows a body, and search parses one again from the file: none is kept.
    assert loaded.entries == {
        path: (identity, _as_indexed(path, result)) for path, identity, result in entries
    }
    assert b"body" not in data and b"Rules." in data  # agents.md's whole text is kept: it renders
    assert b"status: accepted" in data and b"status: active" in data
    assert b"status: open" not in data and b"status: running" not in data


def test_save_then_load_in_a_private_folder(tmp_path: Path) -> None:
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache" / "ledger-context")
    assert load_index(options, space, VERSION).fault == "missing"
    assert save_index(options, space, VERSION, _entries(space)) is None
    assert stat.S_IMODE(os.stat(options.directory).st_mode) == 0o700
    path = index_path(options, space)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((options.directory / "key").stat().st_mode) == 0o600
    assert path.read_bytes().startswith(MAGIC)
    loaded = load_index(options, space, VERSION)
    assert loaded.fault is None and len(loaded.entries) == 6
    assert [p.name for p in options.directory.iterdir() if p.name.endswith(".tmp")] == []


def test_the_name_is_the_sha256_of_the_real_path(tmp_path: Path) -> None:
    space = _space(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(space)
    options = IndexOptions(tmp_path / "cache")
    assert index_path(options, link) == index_path(options, space)
    assert len(index_path(options, space).stem) == 64


@pytest.mark.parametrize(
    ("spoil", "fault"),
    [
        (lambda data: b"garbage" * 100, "the file is not an index"),
        (lambda data: data[: len(data) // 2], "the index's MAC does not verify (truncated or edited)"),
        (
            lambda data: data.replace(b"active", b"draft!"),
            "the index's MAC does not verify (truncated or edited)",
        ),
        (lambda data: b"", "the file is not an index"),
    ],
)
def test_a_spoilt_file_is_refused(tmp_path: Path, spoil, fault: str) -> None:
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, _entries(space))
    path = index_path(options, space)
    spoilt = spoil(path.read_bytes())
    assert spoilt != path.read_bytes()
    path.write_bytes(spoilt)
    loaded = load_index(options, space, VERSION)
    assert (loaded.fault, loaded.entries) == (fault, {})


def test_a_valid_mac_over_a_body_that_is_not_an_index_is_refused(tmp_path: Path) -> None:
    space = _space(tmp_path)
    here = os.fsdecode(os.path.realpath(space))
    header = {"version": VERSION, "space": here, "written_ns": 1}
    bodies = [
        b"[1,2]",
        b"{",
        b"\xff",
        b"99\n" + marshal.dumps(header),  # a length past the end
        b"-1\n" + marshal.dumps(header),
        b"1" * 30 + b"\n",  # no newline among the first 21 bytes
        join_body({"version": VERSION, "space": "x"}, b""),  # type: ignore[dict-item]
        join_body(header, b"\xff"),
        *(join_body(bad, marshal.dumps([])) for bad in ([1, 2], compile("1", "x", "eval"))),  # type: ignore[arg-type]
        *(
            join_body(header, marshal.dumps(rows))
            for rows in ([[1, 2]], [("p", (1, 2, 3, 4, 5), 1, (), (1,))], [("p", (1, 2), 1, (), None)], 7)
        ),
        join_body({**header, "written_ns": "1"}, marshal.dumps([])),
    ]
    for body in bodies:
        loaded = decode_index(seal(b"k" * 32, body), b"k" * 32, VERSION, space)
        assert loaded.fault is not None and loaded.entries == {}, body
    assert (
        decode_index(seal(b"k" * 32, join_body(header, marshal.dumps([]))), b"k" * 32, VERSION, space).fault
        is None
    )


def test_another_version_or_ledger_is_refused(tmp_path: Path) -> None:
    space = _space(tmp_path)
    other = write_ledger(tmp_path / "other", {"agents.md": "# A\n"})
    data = encode_index(b"k" * 32, VERSION, space, 1, _entries(space))
    assert decode_index(data, b"k" * 32, {**VERSION, "reader": "0" * 64}, space).fault == (
        "the index was made by another version or with other settings"
    )
    assert decode_index(data, b"k" * 32, version_key(None) | {"python": [2, 7]}, space).fault is not None
    assert decode_index(data, b"k" * 32, VERSION, other).fault == "the index was made for another ledger"
    assert (
        decode_index(data, b"x" * 32, VERSION, space).fault
        == "the index's MAC does not verify (truncated or edited)"
    )


def test_the_version_names_the_yaml_switches() -> None:
    from ledger_context.reader.frontmatter import YamlOptions

    # Explicit on both sides: the suite also runs with the pure-Python loader as its default.
    assert version_key(YamlOptions(quick=False)) != version_key(YamlOptions(quick=True))
    assert version_key(YamlOptions(pure_python=True)) != version_key(YamlOptions(pure_python=False))
    assert len(VERSION["reader"]) == 64


def test_a_link_in_place_of_the_index_is_refused(tmp_path: Path) -> None:
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, _entries(space))
    path = index_path(options, space)
    real = tmp_path / "elsewhere.index"
    real.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(real)
    assert (
        load_index(options, space, VERSION).fault == "the index file is a symbolic link in place of the file"
    )
    # Writing replaces the link itself, never the file it names.
    assert save_index(options, space, VERSION, []) is None
    assert not path.is_symlink() and real.read_bytes() != path.read_bytes()


def test_a_file_or_folder_others_may_write_is_refused(tmp_path: Path) -> None:
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, _entries(space))
    path = index_path(options, space)
    path.chmod(0o666)
    assert load_index(options, space, VERSION).fault == "the index file is writable by others"
    path.chmod(0o600)
    options.directory.chmod(0o777)
    assert load_index(options, space, VERSION).fault == "the cache folder is writable by others"
    assert save_index(options, space, VERSION, []) == "the cache folder is writable by others"
    options.directory.chmod(0o700)
    assert load_index(options, space, VERSION).fault is None


def test_short_reads_go_on_to_the_end_and_never_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, _entries(space))
    whole = load_index(options, space, VERSION).entries
    asked: list[int] = []
    real_read = os.read

    def short(fd: int, n: int) -> bytes:  # a file system that gives at most 100 bytes a call
        asked.append(n)
        return real_read(fd, min(n, 100))

    monkeypatch.setattr(index_module.os, "read", short)
    assert load_index(options, space, VERSION).entries == whole and len(asked) > 2
    # A key file that grows after its size was checked: read to one byte past that size.
    key = options.directory / "key"
    key.write_bytes(b"k" * 20)

    def growing(fd: int, n: int) -> bytes:
        with key.open("ab") as handle:
            handle.write(b"k" * 500)
        return short(fd, n)

    monkeypatch.setattr(index_module.os, "read", growing)
    assert index_module._open_private(key, KEY_BYTES)[0] == b"k" * 21


def test_a_large_file_that_is_not_an_index_is_refused_by_its_first_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by a tester: 3 GB of garbage in the index's place was read whole (23 s, a
    6.3 GB peak, a MemoryError under a memory limit) before its first bytes said it was
    not an index."""
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, _entries(space))
    path = index_path(options, space)
    asked: list[int] = []
    real_read = os.read
    monkeypatch.setattr(index_module.os, "read", lambda fd, n: asked.append(n) or real_read(fd, n))
    # Garbage, and (found by a second tester) the magic line followed by garbage.
    for start in (b"garbage", MAGIC + b"garbage"):
        path.write_bytes(start)
        with path.open("r+b") as handle:
            handle.truncate(1 << 30)  # sparse: costs no disk
        asked.clear()
        assert load_index(options, space, VERSION).fault in (
            "the file is not an index",
            "the index's MAC does not verify (truncated or edited)",
        )
        assert max(asked) < 4096
    # An index that starts as one but cannot be held in memory is refused, not raised.
    path.write_bytes(MAGIC + b"0" * 64 + b"\n")

    def out_of_memory(fd: int, n: int) -> bytes:
        if n > len(MAGIC):
            raise MemoryError
        return real_read(fd, n)

    monkeypatch.setattr(index_module.os, "read", out_of_memory)
    assert load_index(options, space, VERSION).fault == "the index file is too large to read (out of memory)"


def test_the_key_is_made_once_and_checked(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    assert user_key(folder, create=False) == (None, "the key is missing")
    key, fault = user_key(folder)
    assert fault is None and key is not None and len(key) == KEY_BYTES
    assert user_key(folder) == (key, None)  # never made again
    (folder / "key").write_bytes(b"short")
    assert user_key(folder) == (
        None,
        f"the key is not a key (wrong length; remove {folder / 'key'}: a new one is made)",
    )
    (folder / "key").write_bytes(b"k" * (KEY_BYTES + 1))
    assert user_key(folder) == (None, f"the key is larger than {KEY_BYTES} bytes")
    (folder / "key").unlink()
    (folder / "key").symlink_to(tmp_path / "nowhere")
    assert user_key(folder)[1] == "the key is a symbolic link in place of the file"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_folder_is_reported_not_raised(tmp_path: Path) -> None:
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, [])
    options.directory.chmod(0o500)
    try:
        fault = save_index(options, space, VERSION, _entries(space))
    finally:
        options.directory.chmod(0o700)
    assert fault is not None and fault.startswith("cannot be written")


def test_trusted_needs_the_identity_and_old_enough_times(tmp_path: Path) -> None:
    space = _space(tmp_path)
    entries = _entries(space)
    path, identity, result = entries[1]
    later = max(identity[3], identity[4]) + 2_000_000_000
    loaded = decode_index(encode_index(b"k" * 32, VERSION, space, later, entries), b"k" * 32, VERSION, space)
    assert trusted(loaded, [_Seen(path, identity)], 1_000_000_000) == {
        path: (identity, _as_indexed(path, result))
    }
    assert (
        trusted(loaded, [_Seen(path, (*identity[:4], identity[4] + 1))], 1_000_000_000) == {}
    )  # ctime moved
    assert trusted(loaded, [_Seen(path, (*identity[:3], identity[3] + 1, identity[4]))], 1_000_000_000) == {}
    assert trusted(loaded, [_Seen(path, identity)], 2_000_000_001) == {}  # changed too close to the write
    assert trusted(loaded, [_Seen(path, identity)], 2_000_000_000) != {}  # exactly the racy time before it
    assert trusted(loaded, [_Seen("nowhere.md", identity)], 0) == {}


class _Seen(NamedTuple):
    path: str
    identity: FileIdentity


def test_clear_removes_one_or_every_index(tmp_path: Path) -> None:
    space = _space(tmp_path)
    other = write_ledger(tmp_path / "other", {"agents.md": "# A\n"})
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, [])
    save_index(options, other, VERSION, [])
    assert clear_index(options, space) == (1, [])
    assert clear_index(options, space) == (0, [])
    assert clear_index(options, None) == (1, [])
    assert (options.directory / "key").exists()  # the key stays: it is the user's
    assert clear_index(IndexOptions(tmp_path / "none"), None) == (0, [])


def test_clear_removes_an_empty_folder_squatting_on_the_name_and_names_what_it_cannot(tmp_path: Path) -> None:
    # Found by breaking the product: a folder in the index's place kept the index from
    # ever being written, and the command meant to fix it blamed standard output.
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, [])
    index = index_path(options, space)
    index.unlink()
    index.mkdir()
    assert clear_index(options, space) == (1, [])
    assert not index.exists()
    index.mkdir()
    (index / "kept").write_text("not ours to remove")
    stray = options.directory / "other.index"
    stray.mkdir()
    (stray / "kept").write_text("nor this")
    save_index(IndexOptions(options.directory), _space(tmp_path / "b"), VERSION, [])
    removed, failed = clear_index(options, None)
    assert removed == 1  # the other ledger's index went, past the folders that cannot
    not_empty = "is a folder that is not empty"
    assert failed == [(index.name, not_empty), ("other.index", not_empty)]
    assert clear_index(options, space) == (0, [(index.name, not_empty)])


def test_read_ledger_gives_the_same_ledger_from_entries(tmp_path: Path) -> None:
    space = _space(tmp_path)
    entries = _entries(space)
    known = {path: result for path, _, result in entries}
    assert read_ledger(space, known=known, blob_hash="sha1") == read_ledger(space, blob_hash="sha1")


def _leftover(folder: Path, name: str, age_s: float) -> Path:
    """A temporary file a killed write left, ``age_s`` seconds old."""
    path = folder / name
    path.write_bytes(b"partial")
    moment = time.time() - age_s
    os.utime(path, (moment, moment))
    return path


def test_a_write_removes_what_killed_writes_left_once_no_write_can_still_own_it(tmp_path: Path) -> None:
    space = _space(tmp_path)
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, [])
    folder = options.directory
    stale = [
        _leftover(folder, f".{index_path(options, space).name}-abc.tmp", STALE_TEMPORARY_S + 5),
        _leftover(folder, ".key-abc.tmp", STALE_TEMPORARY_S + 5),
        _leftover(folder, ".index-old.tmp", STALE_TEMPORARY_S + 5),  # named as before
    ]
    in_progress = _leftover(folder, f".{index_path(options, space).name}-def.tmp", 1)
    other = _leftover(folder, "notes.tmp", STALE_TEMPORARY_S + 5)  # not a temporary of ours
    assert save_index(options, space, VERSION, []) is None
    assert [p.exists() for p in stale] == [False, False, False]
    assert in_progress.exists() and other.exists()  # another process may still be writing it


def test_clear_removes_its_ledgers_temporaries_and_all_of_them_with_every_index(tmp_path: Path) -> None:
    space = _space(tmp_path)
    other = write_ledger(tmp_path / "other", {"agents.md": "# A\n"})
    options = IndexOptions(tmp_path / "cache")
    save_index(options, space, VERSION, [])
    folder = options.directory
    mine = _leftover(folder, f".{index_path(options, space).name}-abc.tmp", 1)
    postings = _leftover(folder, f".{index_path(options, space).with_suffix('.postings').name}-x.tmp", 1)
    theirs = _leftover(folder, f".{index_path(options, other).name}-abc.tmp", 1)
    key = _leftover(folder, ".key-abc.tmp", 1)
    assert clear_index(options, space) == (3, [])  # the index and its two temporaries
    assert not mine.exists() and not postings.exists() and theirs.exists() and key.exists()
    assert clear_index(options, None) == (2, [])
    assert not theirs.exists() and not key.exists() and (folder / "key").exists()


def test_temporaries_are_swept_only_from_a_private_folder_of_our_own(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    theirs = _leftover(elsewhere, ".notes.tmp", STALE_TEMPORARY_S + 5)
    (tmp_path / "cache").symlink_to(elsewhere)  # a link in the cache folder's place
    assert clear_index(IndexOptions(tmp_path / "cache"), None) == (0, [])
    assert theirs.exists()
    elsewhere.chmod(0o777)  # others may write it: a name in it may be anyone's
    assert clear_index(IndexOptions(elsewhere), None) == (0, [])
    assert theirs.exists()

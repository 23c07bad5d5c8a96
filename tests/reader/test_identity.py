"""A file's identity and the recently-changed-file rule (identity.py): device, inode,
size and both times; a file changed less than a second ago is racy."""

from __future__ import annotations

import os
from pathlib import Path

from ledger_context.reader.identity import RACY_NS, identity_of, is_racy, is_same_file, is_unchanged


def test_identity_is_device_inode_size_and_both_times(tmp_path: Path) -> None:
    path = tmp_path / "f.md"
    path.write_bytes(b"abc")
    os.utime(path, ns=(5_000_000_000, 7_000_000_000))
    st = path.stat()
    identity = identity_of(st)
    assert identity == (st.st_dev, st.st_ino, 3, 7_000_000_000, st.st_ctime_ns)
    assert is_same_file(st, identity) and is_unchanged(st, identity)
    path.write_bytes(b"abd")  # the same size; the times move
    assert is_same_file(path.stat(), identity) and not is_unchanged(path.stat(), identity)
    other = tmp_path / "g.md"
    other.write_bytes(b"abc")
    os.utime(other, ns=(5_000_000_000, 7_000_000_000))
    os.replace(other, path)  # another file under the same name
    assert not is_same_file(path.stat(), identity)


def test_a_file_changed_less_than_a_second_ago_is_racy() -> None:
    assert RACY_NS == 1_000_000_000
    changed = 10 * RACY_NS
    identity = (1, 2, 3, changed, changed)
    assert is_racy(identity, changed + RACY_NS - 1)
    assert not is_racy(identity, changed + RACY_NS)
    assert is_racy((1, 2, 3, 0, changed), changed + 1)  # a recent ctime alone is enough
    assert not is_racy(identity, changed, racy_ns=0)

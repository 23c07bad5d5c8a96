"""A build from the ledger index (indexed.py): the pack, the full explanation and the check
readout are byte-identical with the index off, cold, warm, stale, corrupt, truncated or
tampered, over generated ledgers changed between runs; every served block is read afresh;
each fault of the index file costs time, never output, and is reported once."""

from __future__ import annotations

import marshal
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import age, write_ledger
from ledger_context.explain.full import explain
from ledger_context.explain.readout import budget_text, problems_text
from ledger_context.model.errors import DocumentChangedError
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.context import ContextBuild
from ledger_context.pack.settings import Settings, make_settings
from ledger_context.reader import index as index_module
from ledger_context.reader import indexed as indexed_module
from ledger_context.reader import walk as walk_module
from ledger_context.reader.cache import DocumentCache
from ledger_context.reader.check import check_ledger
from ledger_context.reader.index import MAGIC, IndexOptions, index_path, join_body, seal, split_body, user_key
from ledger_context.reader.indexed import is_fault
from ledger_context.search.result import search, search_json

SETTLED_NS = 20_000_000
"""A folder's settled margin where a test has folders settle: 20 ms, above any file-system
clock tick here (the product's is a second)."""


def _settle() -> None:
    time.sleep(2 * SETTLED_NS / 1e9)


CLASSES = ("public", "internal", "confidential", "restricted", "secret!")
"""Data classes the generator declares; the last is misspelt (unknown: withheld)."""


@pytest.fixture(autouse=True)
def _summaries_of_small_ledgers(monkeypatch: pytest.MonkeyPatch) -> None:
    """These ledgers are a few files, nearly all candidates: summaries are kept for them
    all the same, so that every path of the index is exercised (the share is its own test)."""
    monkeypatch.setattr(indexed_module, "SUMMARY_SHARE", 1.0)


def _document(rng: random.Random, kind: str, i: int) -> str:
    status = {
        "harnesses": ("active", "retired"),
        "evals": ("active", "draft", "deprecated"),
        "findings": ("open", "closed", "superseded"),
        "decisions": ("accepted", "proposed", "rejected"),
        "experiments": ("running", "done", "failed"),
    }[kind]
    lines = [f"status: {rng.choice(status)}", f"title: {kind} {i} ✓"]
    if rng.random() < 0.7:
        lines.append(f"updated_at: 2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}")
    if rng.random() < 0.6:
        lines.append(f"data_class: {rng.choice(CLASSES)}")
    if rng.random() < 0.1:
        lines.append("Status: typo")
    body = f"## Metrics\n- score: {i}\n" if kind == "evals" else ""
    body += "Words " * rng.randint(0, 60) + "\n"
    if rng.random() < 0.05:
        return "no frontmatter here\n" + body
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def _generate(rng: random.Random, space: Path) -> None:
    files: dict[str | bytes, str | bytes] = {
        "agents.md": "---\ndata_class: internal\n---\n# Agents\nRules.\n"
    }
    for kind in ("harnesses", "evals", "findings", "decisions", "experiments"):
        for i in range(rng.randint(2, 12)):
            files[f"{kind}/{kind[:3]}-{i:02d}.md"] = _document(rng, kind, i)
    write_ledger(space, files)
    for path in (space / ".ledger").rglob("*.md"):
        age(path)


def _mutate(rng: random.Random, space: Path, round_: int) -> None:
    """Edits, renames, deletions, links and class changes, each file then given a new mtime."""
    root = space / ".ledger"
    files = sorted(p for p in root.rglob("*.md") if p.name != "agents.md" and not p.is_symlink())
    for path in rng.sample(files, min(len(files), 4)):
        action = rng.choice(("edit", "rename", "delete", "link", "class", "class"))
        if action == "edit":
            path.write_text(_document(rng, path.parent.name, round_), encoding="utf-8")
        elif action == "rename":
            path = path.rename(path.with_name(f"renamed-{round_}-{path.name}"))
        elif action == "delete":
            path.unlink()
            continue
        elif action == "link":
            link = path.with_name(f"link-{round_}-{path.name}")
            link.symlink_to(path.name)
        else:
            text = path.read_text(encoding="utf-8")
            klass = rng.choice(CLASSES)
            if "data_class: " in text:
                head, _, rest = text.partition("data_class: ")
                text = head + "data_class: " + klass + rest[rest.index("\n") :]
            else:
                text = text.replace("---\n", f"---\ndata_class: {klass}\n", 1)
            path.write_text(text, encoding="utf-8")
        age(path)


def _outputs(space: Path, settings: Settings) -> tuple[tuple[str, ...], ContextBuild]:
    """The pack, ``explain --full``, the check readout and a search (whose bodies a build
    from the index does not hold) of a new builder (a new process)."""
    builder = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0))
    build = builder.build()
    report = check_ledger(build.ledger, yaml=settings.yaml)
    try:
        found = search_json(search(build, "words findings 3", limit=50))
    except DocumentChangedError as exc:  # a tampered entry: the file does not say what it said
        found = str(exc)
    texts = (
        build.pack,
        budget_text(explain(build, "full")),
        problems_text(report.problems, report.selected),
        found,
    )
    return texts, build


def _index_file(folder: Path) -> Path:
    (found,) = folder.glob("*.index")
    return found


def _as_lists(rows: list) -> list:
    return [[row[0], list(row[1]), *row[2:4], None if row[4] is None else list(row[4])] for row in rows]


def _as_tuples(rows: list) -> list:
    return [(row[0], tuple(row[1]), *row[2:4], None if row[4] is None else tuple(row[4])) for row in rows]


def _remac(folder: Path, edit, summaries: bool = True) -> None:
    """Edit the index body and sign it again with the user's key (who can read the key is
    the user: the served blocks are still read afresh). ``edit`` gets the body with its
    entries as lists, and then (with ``summaries``) each build summary's rows the same way
    (``entries``)."""
    path = _index_file(folder)
    body, rows = split_body(memoryview(path.read_bytes())[len(MAGIC) + 65 :])
    # Rows are tuples; each is edited as lists, then made tuples again.
    body["entries"] = _as_lists(marshal.loads(rows))
    edit(body)
    rows = marshal.dumps(_as_tuples(body.pop("entries")))
    builds = body["build"].get("builds", {}) if summaries and body["build"] else {}
    for key, (blocks, withheld, kept, figures) in builds.items():
        summary = {
            "entries": _as_lists(kept),
            "written_ns": body["written_ns"],
            "build": body["build"],
            "summary": key,
        }
        edit(summary)
        body["build"]["builds"][key] = (blocks, withheld, _as_tuples(summary["entries"]), figures)
    user, _ = user_key(folder, create=False)
    assert user is not None
    path.write_bytes(seal(user, join_body(body, rows)))


def _promote(body: dict) -> None:
    """Every entry's document made active and public: what a build must never trust."""
    for entry in body["entries"]:
        document = entry[4]
        if document is not None and document[0] != "agents":
            document[3] = "active" if document[0] in ("harness", "eval") else document[3]
            document[7] = "public"


INTERNAL = "---\nstatus: active\ndata_class: internal\ntitle: Safe text.\n---\nBody.\n"
RESTRICTED = "---\nstatus: active\ndata_class: restricted\ntitle: SECRET!!\n---\nBody.\n"
"""Two classes, the same size: the title, which the block shows, is what must never leak."""


SPOILERS = {
    "corrupt": lambda path: path.write_bytes(os.urandom(300)),
    "truncated": lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
    "emptied": lambda path: path.write_bytes(b""),
}


@pytest.mark.parametrize("settled", [False, True], ids=["folders just changed", "folders settled"])
@pytest.mark.parametrize("seed", range(6))
def test_every_state_of_the_index_gives_the_same_bytes(
    tmp_path: Path, seed: int, settled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settled, the folders' listings are kept and used (a folder changed since is listed
    again); just changed, none is kept."""
    rng = random.Random(seed)
    space = tmp_path / "space"
    _generate(rng, space)
    if settled:
        monkeypatch.setattr(walk_module, "SETTLED_NS", SETTLED_NS)
        _settle()
    ceiling = rng.choice((None, "internal", "confidential"))
    off = make_settings(max_data_class=ceiling)
    warm = tmp_path / "warm"
    for round_ in range(4):
        expected, _ = _outputs(space, off)
        stale, build = _outputs(space, off._replace(index=IndexOptions(warm)))  # last round's index
        assert stale == expected, f"stale, round {round_}"
        again, build = _outputs(space, off._replace(index=IndexOptions(warm)))
        assert again == expected and build.index is not None and build.index.startswith("used"), round_
        cold, build = _outputs(space, off._replace(index=IndexOptions(tmp_path / f"cold{round_}")))
        assert cold == expected and build.index == "created (there was none)"
        for name, spoil in SPOILERS.items():
            folder = tmp_path / f"{name}{round_}"
            shutil.copytree(warm, folder)
            spoil(_index_file(folder))
            spoilt, build = _outputs(space, off._replace(index=IndexOptions(folder)))
            assert spoilt == expected, name
            assert is_fault(build.index) and build.index.startswith("rebuilt (the "), build.index
        folder = tmp_path / f"promoted{round_}"
        shutil.copytree(warm, folder)
        _remac(folder, _promote)
        promoted, build = _outputs(space, off._replace(index=IndexOptions(folder)))
        assert promoted[0] == expected[0], "a tampered entry changed the pack"
        _mutate(rng, space, round_)
        if settled:
            _settle()


def test_a_stale_entry_is_read_afresh_before_it_is_served(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "space",
        {"evals/e.md": INTERNAL},
    )
    target = space / ".ledger/evals/e.md"
    age(target)
    settings = make_settings(max_data_class="internal", index=IndexOptions(tmp_path / "cache"))
    _outputs(space, settings)
    before = os.stat(target)
    # Same size, the old mtime, and the index made to believe ctime did not move either.
    target.write_text(RESTRICTED, encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    now = os.stat(target)
    assert now.st_size == before.st_size

    def same_ctime(body: dict) -> None:
        for entry in body["entries"]:
            entry[1][4] = now.st_ctime_ns
        body["written_ns"] = now.st_ctime_ns + 10_000_000_000
        files = body["build"]["walk"][0]  # the last build's walk, summarized: made to match
        files[:] = [(*f[:2], (*f[2][:4], now.st_ctime_ns), f[3]) for f in files]

    _remac(tmp_path / "cache", same_ctime)
    texts, build = _outputs(space, settings)
    assert "SECRET" not in texts[0] and texts[0] == ""  # withheld, as a fresh read says
    assert [d.path for d in build.selection.withheld] == [".ledger/evals/e.md"]
    assert "1 stale entries refreshed" in (build.index or "")


def _flip_keeping_times(target: Path, text: str, times: tuple[int, int]) -> None:
    target.write_text(text, encoding="utf-8")
    os.utime(target, ns=times)


@pytest.mark.parametrize("racy_ns", [0, 1_000_000_000])
def test_a_class_flipped_with_the_old_mtime_never_serves_withheld_bytes(tmp_path: Path, racy_ns: int) -> None:
    assert len(INTERNAL) == len(RESTRICTED)
    space = write_ledger(tmp_path / "space", {"evals/e.md": INTERNAL})
    target = space / ".ledger/evals/e.md"
    age(target)
    st = os.stat(target)
    times = (st.st_atime_ns, st.st_mtime_ns)
    settings = make_settings(max_data_class="internal", index=IndexOptions(tmp_path / "cache"))
    leaks = reads = 0
    for i in range(2_000):
        _flip_keeping_times(target, RESTRICTED if i % 2 else INTERNAL, times)
        # A new builder each time: a new process, starting from the index the last one wrote.
        build = ContextBuilder(
            space, settings, cache=DocumentCache(racy_ns=racy_ns), provenance=False
        ).build()
        reads += 1
        leaks += "SECRET" in build.pack
        if i % 2 == 0 and racy_ns:  # the racy rule: just-changed files are read, so the pack is exact
            assert "Safe text." in build.pack
    assert (reads, leaks) == (2_000, 0)


def _builds_the_same(space: Path, folder: Path) -> ContextBuild:
    expected, _ = _outputs(space, make_settings())
    texts, build = _outputs(space, make_settings(index=IndexOptions(folder)))
    assert texts == expected
    return build


def _fault_space(tmp_path: Path) -> tuple[Path, Path]:
    space = write_ledger(
        tmp_path / "space",
        {
            "agents.md": "# A\n",
            "evals/e.md": "---\nstatus: active\n---\nBody.\n",
            "findings/f.md": "---\nstatus: open\nupdated_at: 2026-01-01\n---\n",
        },
    )
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    folder = tmp_path / "cache"
    _builds_the_same(space, folder)  # writes the index
    return space, folder


def test_garbage_in_place_of_the_index(tmp_path: Path) -> None:
    space, folder = _fault_space(tmp_path)
    index_path(IndexOptions(folder), space).write_bytes(b"\0garbage" * 1000)
    build = _builds_the_same(space, folder)
    assert build.index == "rebuilt (the file is not an index)"
    assert _builds_the_same(space, folder).index == "used (3 of 3 files from the index)"  # reported once


def test_every_fault_reads_as_a_sentence_of_its_own(tmp_path: Path) -> None:
    # Was "rebuilt (the index was the cache folder is writable by others)".
    space, folder = _fault_space(tmp_path)
    index_path(IndexOptions(folder), space).chmod(0o666)
    assert _builds_the_same(space, folder).index == "rebuilt (the index file is writable by others)"
    folder.chmod(0o777)
    try:
        # nothing was rebuilt: the folder can hold no index
        assert _builds_the_same(space, folder).index == (
            "not usable; not written (the cache folder is writable by others)"
        )
    finally:
        folder.chmod(0o700)


def test_a_symbolic_link_to_another_file_in_place_of_the_index(tmp_path: Path) -> None:
    space, folder = _fault_space(tmp_path)
    path = index_path(IndexOptions(folder), space)
    other = tmp_path / "other.index"
    other.write_bytes(path.read_bytes())  # even a valid index is not followed
    path.unlink()
    path.symlink_to(other)
    build = _builds_the_same(space, folder)
    assert build.index == "rebuilt (the index file is a symbolic link in place of the file)"
    assert not path.is_symlink() and other.read_bytes().startswith(MAGIC)


def _refused_for_root(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> bool:
    """Root writes anywhere: as root, ``owner.name`` is made to refuse as on a read-only mount.
    Whether it was made to."""
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        return False

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(owner, name, refuse)
    return True


def test_a_read_only_index_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    space, folder = _fault_space(tmp_path)
    (space / ".ledger/findings/g.md").write_text("---\nstatus: open\n---\n", encoding="utf-8")
    age(space / ".ledger/findings/g.md")
    index_path(IndexOptions(folder), space).chmod(0o400)  # a read-only file is read, and replaced
    if not _refused_for_root(monkeypatch, tempfile, "mkstemp"):
        folder.chmod(0o500)
    try:
        build = _builds_the_same(space, folder)
    finally:
        folder.chmod(0o700)
    assert (
        build.index
        == "used (3 of 4 files from the index); not written (cannot be written (Permission denied))"
    )
    assert is_fault(build.index)


def test_a_cache_folder_that_cannot_be_made_is_not_called_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Was "created (there was none); not written (…)": it was not created.
    space, _ = _fault_space(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    build = _builds_the_same(space, blocker / "cache")
    made = "the cache folder cannot be made (Not a directory)"
    assert build.index == f"not usable; not written ({made})"
    assert is_fault(build.index)
    blocker.unlink()
    blocker.mkdir(0o500)  # a folder that cannot be written
    _refused_for_root(monkeypatch, os, "makedirs")
    build = _builds_the_same(space, blocker / "cache")
    assert build.index == "none; not written (the cache folder cannot be made (Permission denied))"


def test_an_index_locked_by_another_process(tmp_path: Path) -> None:
    pytest.importorskip("fcntl")
    space, folder = _fault_space(tmp_path)
    path = index_path(IndexOptions(folder), space)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'rb+'); fcntl.flock(f, fcntl.LOCK_EX); "
            "fcntl.lockf(f, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(60)",
            str(path),
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        (space / ".ledger/findings/g.md").write_text("---\nstatus: open\n---\n", encoding="utf-8")
        age(space / ".ledger/findings/g.md")
        started = time.monotonic()
        build = _builds_the_same(space, folder)
        assert time.monotonic() - started < 30  # readers and writers never wait for a lock
        assert build.index == "used (3 of 4 files from the index)"
        assert _builds_the_same(space, folder).index == "used (4 of 4 files from the index)"
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def test_the_index_deleted_mid_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    space, folder = _fault_space(tmp_path)
    (space / ".ledger/evals/e.md").write_text("---\nstatus: active\n---\nChanged.\n", encoding="utf-8")
    age(space / ".ledger/evals/e.md")
    load = index_module.load_index

    def load_then_delete(*args: object, **named: bool) -> index_module.Loaded:
        loaded = load(*args, **named)  # type: ignore[arg-type]
        index_path(IndexOptions(folder), space).unlink()
        return loaded

    monkeypatch.setattr("ledger_context.reader.indexed.load_index", load_then_delete)
    build = _builds_the_same(space, folder)
    assert build.index == "used (2 of 3 files from the index)"
    monkeypatch.undo()
    assert _builds_the_same(space, folder).index == "used (3 of 3 files from the index)"


def test_a_server_builder_loads_once_and_saves_only_changes(tmp_path: Path) -> None:
    space, folder = _fault_space(tmp_path)
    builder = ContextBuilder(space, make_settings(index=IndexOptions(folder)), cache=DocumentCache(racy_ns=0))
    first = builder.build()
    path = index_path(IndexOptions(folder), space)
    written = path.stat().st_mtime_ns
    assert builder.build() is first  # the warm build: nothing read, nothing written
    (space / ".ledger/findings/g.md").write_text("---\nstatus: open\n---\n", encoding="utf-8")
    age(space / ".ledger/findings/g.md")
    second = builder.build()
    assert len(second.ledger.documents) == 4
    assert path.stat().st_mtime_ns != written
    assert _builds_the_same(space, folder).index == "used (4 of 4 files from the index)"


def test_blob_ids_are_read_when_the_index_has_none_and_then_kept(tmp_path: Path) -> None:
    space, folder = _fault_space(tmp_path)  # written by a build without blob ids
    settings = make_settings(index=IndexOptions(folder))

    class Git:
        found = True

        def object_format(self) -> str:
            return "sha1"

        def head(self) -> None:
            return None

    def with_git() -> ContextBuild:
        git = Git()
        return ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0), git=git).build()  # type: ignore[arg-type]

    build = with_git()
    assert all(d.git_blob is not None and len(d.git_blob) == 40 for d in build.ledger.documents)
    loaded = index_module.load_index(IndexOptions(folder), space, index_module.version_key(None))
    assert all(
        result.document is not None and result.document.git_blob for _, result in loaded.entries.values()
    )
    written = index_path(IndexOptions(folder), space).stat().st_mtime_ns
    again = with_git()
    assert again.index == "used (3 of 3 files from the index)"
    assert [d.git_blob for d in again.ledger.documents] == [d.git_blob for d in build.ledger.documents]
    assert index_path(IndexOptions(folder), space).stat().st_mtime_ns == written  # nothing new to write
    assert _builds_the_same(space, folder).index == "used (3 of 3 files from the index)"  # one file for both


# Regression: a bug found by trying to break the product (a re-signed index entry that
# called a confidential, never-selected document public let read_document serve it).
def test_a_document_is_served_only_as_its_fresh_bytes_classify_it(tmp_path: Path) -> None:
    from ledger_context.pack.served import served_text

    space = write_ledger(
        tmp_path / "space",
        {
            "findings/open.md": "---\nstatus: current\ntitle: Open\n---\nBody.\n",
            "findings/secret.md": "---\nstatus: retracted\ndata_class: confidential\ntitle: Secret\n---\nPIN 4321.\n",
        },
    )
    for name in ("open.md", "secret.md"):
        age(space / ".ledger/findings" / name)
    folder = tmp_path / "index"
    settings = make_settings(max_data_class="internal")._replace(index=IndexOptions(folder))
    _outputs(space, settings)  # writes the index

    def declassify(body: dict) -> None:
        for entry in body["entries"]:
            if entry[4] is not None and entry[4][7] == "confidential":
                entry[4][7] = "public"

    _remac(folder, declassify)
    _, build = _outputs(space, settings)
    assert not build.is_withheld(".ledger/findings/secret.md")  # what the tampered entry says
    with pytest.raises(DocumentChangedError):
        served_text(build, ".ledger/findings/secret.md")
    assert served_text(build, ".ledger/findings/open.md").endswith("Body.\n")


def test_a_search_never_shows_a_hit_its_fresh_bytes_do_not_give(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "space",
        {
            "findings/secret.md": "---\nstatus: retracted\ndata_class: confidential\ntitle: Secret\n---\nPIN 4321.\n"
        },
    )
    age(space / ".ledger/findings/secret.md")
    folder = tmp_path / "index"
    settings = make_settings(max_data_class="internal")._replace(index=IndexOptions(folder))
    _, build = _outputs(space, settings)
    assert search(build, "secret pin").hits == []

    def declassify(body: dict) -> None:
        for entry in body["entries"]:
            if entry[4] is not None:
                entry[4][7] = "public"

    _remac(folder, declassify)
    _, build = _outputs(space, settings)
    with pytest.raises(DocumentChangedError):
        search(build, "secret pin")


def test_a_warm_build_reads_again_only_the_documents_whose_bytes_the_pack_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dropped block serves no byte: like a document not selected, it is taken from the
    index while its file keeps its identity; a kept or truncated block is read afresh."""
    finding = (
        "---\nstatus: current\nupdated_at: 2026-05-{day:02d}\n---\n# Finding {n}\n" + "Words. " * 150 + "\n"
    )
    space = write_ledger(
        tmp_path / "space", {f"findings/f{n:02d}.md": finding.format(day=1 + n % 28, n=n) for n in range(120)}
    )
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    settings = make_settings(cap_tokens=500, index=IndexOptions(tmp_path / "cache"))
    expected, _ = _outputs(space, make_settings(cap_tokens=500))
    _outputs(space, settings)
    read = _fresh_reads(monkeypatch)
    texts, build = _outputs(space, settings)
    held = sorted(o.block.document.path for o in build.budgeted.blocks if o.kept_bytes)
    assert texts == expected and build.index is not None and build.index.startswith("used")
    assert 0 < len(held) < 100 and sorted(read) == held


def _experiment(n: int) -> str:
    return f"---\nstatus: done\nupdated_at: 2026-03-{n:02d}\nnote: run {n} of the sweep\n---\nBody {n}.\n"


def _sweep(tmp_path: Path) -> Path:
    """Twelve experiments, one a day: the pack shows the latest ten."""
    space = write_ledger(
        tmp_path / "space", {f"experiments/e{n:02d}.md": _experiment(n) for n in range(1, 13)}
    )
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    return space


def _fresh_reads(monkeypatch: pytest.MonkeyPatch, module=indexed_module) -> list[str]:
    """The paths the index use (or ``module``: the reader's loop) reads afresh from now
    on, in order."""
    read: list[str] = []
    real = module.read_file_safely
    monkeypatch.setattr(
        module,
        "read_file_safely",
        lambda space, source, *a: read.append(source.path) or real(space, source, *a),
    )
    return read


def test_an_experiment_the_index_kept_without_frontmatter_renders_from_one_fresh_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index keeps no frontmatter text of an experiment (its block shows only among the
    latest ten): the eleventh, once the newest is deleted, joins the pack with its own text,
    read afresh once, and every output is the one without an index."""
    space = _sweep(tmp_path)
    settings = make_settings(index=IndexOptions(tmp_path / "cache"))
    _outputs(space, settings)  # writes the index
    (folder,) = [tmp_path / "cache"]
    assert b"run 3 of the sweep" not in _index_file(folder).read_bytes()
    (space / ".ledger/experiments/e12.md").unlink()
    read = _fresh_reads(monkeypatch)
    texts, build = _outputs(space, settings)
    assert texts == _outputs(space, make_settings())[0]
    assert "note: run 2 of the sweep\n" in build.pack and "run 1 of" not in build.pack
    shown = [f".ledger/experiments/e{n:02d}.md" for n in range(2, 12)]
    assert sorted(read) == shown  # each once: rendered from the read the pack is checked by
    assert build.document(".ledger/experiments/e02.md").frontmatter is not None  # type: ignore[union-attr]
    assert build.document(".ledger/experiments/e01.md").frontmatter is None  # type: ignore[union-attr]


def test_a_document_the_index_kept_without_frontmatter_is_served_as_its_fresh_bytes(tmp_path: Path) -> None:
    """``read_document`` of an experiment the pack does not show (its entry has no frontmatter
    text) serves its bytes; a same-size edit with its times restored is refused, not served."""
    from ledger_context.pack.served import served_text

    space = _sweep(tmp_path)
    settings = make_settings(index=IndexOptions(tmp_path / "cache"))
    _outputs(space, settings)
    _, build = _outputs(space, settings)
    assert build.document(".ledger/experiments/e01.md").frontmatter is None  # type: ignore[union-attr]
    assert served_text(build, ".ledger/experiments/e01.md") == _experiment(1)
    target = space / ".ledger/experiments/e01.md"
    before = os.stat(target)
    target.write_text(_experiment(1).replace("sweep", "SWEEP"), encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(DocumentChangedError):
        served_text(build, ".ledger/experiments/e01.md")


def test_a_server_shows_an_experiment_edited_after_its_block_was_read_for_the_index(tmp_path: Path) -> None:
    """One builder (a server) started from the index: an experiment it rendered from a
    fresh read is edited, and the next build shows the edit, not the earlier read; the one
    that joins the latest ten later is rendered from its own fresh read."""
    space = _sweep(tmp_path)
    settings = make_settings(index=IndexOptions(tmp_path / "cache"))
    _outputs(space, settings)  # writes the index
    builder = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0))
    assert "note: run 5 of the sweep\n" in builder.build().pack
    target = space / ".ledger/experiments/e05.md"
    target.write_text(_experiment(5).replace("run 5 of", "rerun 5 of"), encoding="utf-8")
    age(target)
    (space / ".ledger/experiments/e12.md").unlink()
    pack = builder.build().pack
    assert pack == ContextBuilder(space, make_settings(), cache=False).build().pack
    assert "note: rerun 5 of the sweep\n" in pack and "note: run 2 of the sweep\n" in pack


def _forge(field: str):  # type: ignore[no-untyped-def]
    def edit(body: dict) -> None:
        for entry in body["entries"]:
            if entry[0].endswith("f1.md"):
                if field == "severity":
                    entry[3] = (("x", "fatal", "message", 1, 1),)
                else:
                    entry[4][{"kind": 0, "class": 7, "slug": 5}[field]] = 7 if field == "slug" else "bogus"

    return edit


@pytest.mark.parametrize("field", ["kind", "class", "severity", "slug"])
def test_an_entry_holding_a_value_no_read_gives_costs_a_rebuild_never_a_crash(
    tmp_path: Path, field: str
) -> None:
    """Signed by a holder of the key, an entry with an unknown kind, class or severity, or a
    slug that is not text: every output is the one without an index, the report says the
    index was rebuilt, and the next build uses the index written anew."""
    space = write_ledger(
        tmp_path / "space",
        {
            "findings/f1.md": "---\nstatus: current\nupdated_at: 2026-01-01\ntitle: One\n---\n",
            "findings/f2.md": "---\nstatus: current\nupdated_at: 2026-01-01\ntitle: Two\n---\n",  # a tie: slugs compared
        },
    )
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    folder = tmp_path / "cache"
    settings = make_settings(max_data_class="internal", index=IndexOptions(folder))
    expected, _ = _outputs(space, make_settings(max_data_class="internal"))
    _outputs(space, settings)
    _remac(folder, _forge(field))
    texts, build = _outputs(space, settings)
    assert texts == expected
    assert build.index is not None and build.index.startswith("rebuilt"), build.index
    texts, build = _outputs(space, settings)
    assert texts == expected and build.index == "used (2 of 2 files from the index)"


def _rubric_space(tmp_path: Path) -> Path:
    """A finding the pack shows, and a confidential one outside it that search finds too."""
    space = write_ledger(
        tmp_path / "space",
        {
            "findings/open.md": "---\nstatus: current\ntitle: Open\n---\nwords of the rubric\n",
            "findings/secret.md": "---\nstatus: retracted\ndata_class: confidential\n---\nrubric PIN\n",
        },
    )
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    return space


def _declassify_secret(body: dict) -> None:
    for entry in body["entries"]:
        if entry[0].endswith("secret.md"):
            entry[4][7] = "public"


def test_a_search_that_finds_an_entry_its_file_contradicts_reads_the_file_on_the_next_build(
    tmp_path: Path,
) -> None:
    """An entry signed by a holder of the key says a document outside the pack is public
    when its file says confidential: a search from that build is refused as changed, and
    the builder's next build reads the file, so the search asked again is the one without
    an index, and so is every later command (the index is written anew)."""
    space = _rubric_space(tmp_path)
    folder = tmp_path / "cache"
    settings = make_settings(index=IndexOptions(folder))
    expected = search_json(search(ContextBuilder(space, make_settings(), cache=False).build(), "rubric"))
    _outputs(space, settings)

    _remac(folder, _declassify_secret)
    builder = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0))
    with pytest.raises(DocumentChangedError):
        search(builder.build(), "rubric")
    assert search_json(search(builder.build(), "rubric")) == expected
    later = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0))
    assert search_json(search(later.build(), "rubric")) == expected


def _search_without_then_with_the_index(
    space: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """``ledger-context search rubric`` with ``--no-index`` (its output is returned), then
    with the index, which that writes under ``tmp_path / "xdg"``."""
    from ledger_context.cli import main

    time.sleep(1.1)  # the command's cache trusts no file changed (ctime) within a second
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert main(["search", "rubric", "--space", str(space), "--no-index"]) == 0
    expected = capsys.readouterr().out
    assert main(["search", "rubric", "--space", str(space)]) == 0  # writes the index
    capsys.readouterr()
    return expected


def test_the_search_command_reads_again_what_a_forged_entry_contradicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ledger_context.cli import main

    space = _rubric_space(tmp_path)
    expected = _search_without_then_with_the_index(space, tmp_path, monkeypatch, capsys)

    (folder,) = (tmp_path / "xdg").glob("*")
    _remac(folder, _declassify_secret)
    assert b"public" in _index_file(folder).read_bytes()
    for _ in range(2):
        assert main(["search", "rubric", "--space", str(space)]) == 0
        assert capsys.readouterr().out == expected


def test_an_index_contradicted_once_is_not_trusted_for_the_other_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three entries forged by a holder of the key: the first contradiction a search meets
    drops every entry the index gave, so the search asked again is the one without an index
    (was: one file read again per try, 'changed; call again' each time), and the index
    written anew serves every later command."""
    from ledger_context.cli import main

    space = write_ledger(
        tmp_path / "space",
        {
            "findings/open.md": "---\nstatus: current\ntitle: Open\n---\nwords of the rubric\n",
            **{
                f"findings/secret{n}.md": "---\nstatus: retracted\ndata_class: confidential\n---\nrubric PIN\n"
                for n in range(3)
            },
        },
    )
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    expected = _search_without_then_with_the_index(space, tmp_path, monkeypatch, capsys)

    def declassify_all(body: dict) -> None:
        for entry in body["entries"]:
            if "secret" in entry[0]:
                entry[4][7] = "public"

    (folder,) = (tmp_path / "xdg").glob("*")
    _remac(folder, declassify_all)
    for _ in range(2):
        assert main(["search", "rubric", "--space", str(space)]) == 0
        assert capsys.readouterr().out == expected
    assert b"public" not in _index_file(folder).read_bytes()


@pytest.mark.parametrize("seed", range(3))
def test_an_index_written_after_the_answer_gives_the_same_bytes(tmp_path: Path, seed: int) -> None:
    """A server's builder writes the index after its answer (``write_index_later``): the
    files may change in between, and the next process still gives every byte as without
    an index."""
    rng = random.Random(seed)
    space = tmp_path / "space"
    _generate(rng, space)
    off = make_settings(max_data_class=rng.choice((None, "internal", "confidential")))
    later = off._replace(index=IndexOptions(tmp_path / "later"))
    for round_ in range(3):
        expected, _ = _outputs(space, off)
        builder = ContextBuilder(space, later, cache=DocumentCache(racy_ns=0), write_index_later=True)
        assert builder.build().pack == expected[0]
        _mutate(rng, space, round_)  # between the answer and the write
        builder.write_index()
        after, build = _outputs(space, later)
        assert after == _outputs(space, off)[0], round_
        assert build.index is not None and not is_fault(build.index), build.index

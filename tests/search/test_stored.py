"""Search's postings kept between processes (stored.py): every search gives the result of one
without an index, whatever state the postings file is in (missing, kept, stale, garbage,
truncated, of another version, forged); a warm search reads again only its hits; the file
holds nothing of a document the ceiling withholds."""

from __future__ import annotations

import hashlib
import hmac
import marshal
from array import array
from pathlib import Path

import pytest

from conftest import age, write_ledger
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.settings import make_settings
from ledger_context.reader.cache import DocumentCache
from ledger_context.reader.index import MAGIC, IndexOptions, clear_index, user_key
from ledger_context.search import result as result_module
from ledger_context.search.kept import NotPostings
from ledger_context.search.result import search, search_json
from ledger_context.search.stored import load_postings, postings_path, postings_version

QUERIES = ("rubric", "router latency", "pin", "words")


def _space(tmp_path: Path) -> Path:
    files = {
        "findings/rubric.md": "---\nstatus: current\ntitle: The rubric\n---\nwords of the rubric\n",
        "findings/router.md": "---\nstatus: current\ntitle: Router\n---\nrouter latency words\n",
        "decisions/pin.md": "---\nstatus: accepted\ndata_class: confidential\n---\nthe PIN words\n",
        **{f"experiments/e{n}.md": f"---\ntitle: Run {n}\n---\nwords {n} rubric\n" for n in range(6)},
    }
    space = write_ledger(tmp_path / "space", files)
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    return space


def _results(
    space: Path, folder: Path | None, ceiling: str | None = None, queries: tuple[str, ...] = QUERIES
) -> list[str]:
    """Each query searched in a new builder's build, as a new process does (its ledger index
    trusted at once: documents from it hold no body, so their postings come from the file)."""
    settings = make_settings(max_data_class=ceiling, index=IndexOptions(folder) if folder else None)
    build = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    return [search_json(search(build, query)) for query in queries]


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths search reads again (``served_document``), in order."""
    reads: list[str] = []
    served = result_module.served_document

    def spy(build, path):  # type: ignore[no-untyped-def]
        reads.append(path)
        return served(build, path)

    monkeypatch.setattr(result_module, "served_document", spy)
    return reads


def test_a_warm_search_reads_again_only_its_hits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    space, folder = _space(tmp_path), tmp_path / "cache"
    expected = _results(space, None)
    reads = _reads(monkeypatch)
    assert _results(space, folder) == expected  # the first: every document read, then kept
    assert len(reads) > 9 and postings_path(IndexOptions(folder), space).is_file()
    reads.clear()
    build = ContextBuilder(
        space, make_settings(index=IndexOptions(folder)), cache=DocumentCache(racy_ns=0)
    ).build()
    found = search(build, "router")
    assert [hit.path for hit in found.hits] == [".ledger/findings/router.md"]
    assert reads == [".ledger/findings/router.md"]  # the hit, shown from its fresh bytes


def test_an_edited_document_is_read_again_and_the_rest_taken_from_the_postings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    space, folder = _space(tmp_path), tmp_path / "cache"
    _results(space, folder)
    edited = space / ".ledger/findings/router.md"
    edited.write_text("---\nstatus: current\ntitle: Router\n---\nrouter rubric now\n", encoding="utf-8")
    age(edited)
    expected = _results(space, None)
    reads = _reads(monkeypatch)
    build = ContextBuilder(
        space, make_settings(index=IndexOptions(folder)), cache=DocumentCache(racy_ns=0)
    ).build()
    found = search(build, "pin")
    assert [hit.path for hit in found.hits] == [".ledger/decisions/pin.md"]
    # the one document whose bytes the postings lack, then the hit shown
    assert reads == [".ledger/findings/router.md", ".ledger/decisions/pin.md"]
    assert _results(space, folder) == expected


def _reseal(folder: Path, space: Path, edit) -> None:  # type: ignore[no-untyped-def]
    """Edit the postings body and seal it again with the user's key."""
    path = postings_path(IndexOptions(folder), space)
    body = marshal.loads(path.read_bytes()[len(MAGIC) + 65 :])
    edit(body)
    raw = marshal.dumps(body)
    key, _ = user_key(folder, create=False)
    assert key is not None
    path.write_bytes(MAGIC + hmac.new(key, raw, hashlib.sha256).hexdigest().encode() + b"\n" + raw)


def _forge_counts(body: dict) -> None:
    """A count number past the table of count triples, for a term a query asks for."""
    postings = body["postings"]
    at = postings["terms"].index("rubric")
    counts = array("I", postings["counts"])
    counts[array("I", postings["ends"])[at - 1] if at else 0] = len(postings["triples"]) // 12
    postings["counts"] = counts.tobytes()


def _forge_version(body: dict) -> None:
    body["version"] = {**body["version"], "search": "0" * 64}


@pytest.mark.parametrize(
    ("state", "fault"),
    [
        ("garbage", "the file is not an index"),
        ("truncated", "the index's MAC does not verify (truncated or edited)"),
        ("version", "the postings were made by another version or for another ledger"),
        ("counts", None),
        ("deleted", "missing"),
    ],
)
def test_every_state_of_the_postings_gives_the_same_results(
    tmp_path: Path, state: str, fault: str | None
) -> None:
    """A count out of its table is found when its term is decoded (``NotPostings``), not
    on load: that search, too, reads every document again and writes the file anew."""
    space, folder = _space(tmp_path), tmp_path / "cache"
    expected = _results(space, None)
    assert _results(space, folder) == expected
    path = postings_path(IndexOptions(folder), space)
    if state == "garbage":
        path.write_bytes(b"\x00garbage" * 100)
    elif state == "truncated":
        path.write_bytes(path.read_bytes()[:-10])
    elif state == "deleted":
        path.unlink()
    else:
        _reseal(folder, space, _forge_version if state == "version" else _forge_counts)
    version = postings_version(None)
    kept, found = load_postings(IndexOptions(folder), space, version)
    if fault is None:
        assert found is None and kept is not None
        with pytest.raises(NotPostings):
            [list(kept.holders(term)) for term in kept.terms]
    else:
        assert (kept, found) == (None, fault)
    assert _results(space, folder) == expected  # read again, and kept anew
    kept, fault_after = load_postings(IndexOptions(folder), space, version)
    assert fault_after is None and kept is not None and len(kept) == 9
    assert all(len(list(kept.holders(term))) for term in kept.terms)


def test_the_postings_hold_nothing_of_a_withheld_document(tmp_path: Path) -> None:
    space, folder = _space(tmp_path), tmp_path / "cache"
    assert _results(space, folder, "internal") == _results(space, None, "internal")
    kept, fault = load_postings(IndexOptions(folder), space, postings_version(None))
    secret = hashlib.sha256((space / ".ledger/decisions/pin.md").read_bytes()).hexdigest()
    assert fault is None and kept is not None and len(kept) == 8
    assert all(sha256 != secret for sha256, _, _ in kept.keys)
    assert "pin" not in kept.terms and "rubric" in kept.terms


def test_clearing_the_index_clears_the_postings(tmp_path: Path) -> None:
    space, folder = _space(tmp_path), tmp_path / "cache"
    _results(space, folder)
    assert clear_index(IndexOptions(folder), space) == (2, [])
    assert not postings_path(IndexOptions(folder), space).exists()


def test_agents_md_and_a_copy_of_its_bytes_keep_postings_of_their_own(tmp_path: Path) -> None:
    """Found by a tester: ``agents.md``'s frontmatter is not searched, a finding's is; with
    the same bytes and title both shared one entry, and a warm search found ``agents.md``
    by a word only its frontmatter holds (2 matching instead of 1)."""
    text = "---\nowner: zebrafish\ndata_class: public\n---\n\n# Team guide\n\nRoute tickets.\n"
    space = write_ledger(tmp_path / "space", {"agents.md": text, "findings/guide.md": text})
    for path in (space / ".ledger").rglob("*.md"):
        age(path)
    folder = tmp_path / "cache"
    queries = ("zebrafish", "team guide")
    expected = _results(space, None, queries=queries)
    assert _results(space, folder, queries=queries) == expected
    assert _results(space, folder, queries=queries) == expected  # warm
    build = ContextBuilder(space, make_settings(), cache=False).build()
    assert search(build, "zebrafish").matching == 1  # the finding's frontmatter only


def test_a_search_under_a_ceiling_keeps_what_a_looser_one_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by a tester: a search under a stricter ceiling that read one edited document
    wrote the file with only its own scope, so the next search without a ceiling read every
    withheld document again (and each undid the other's file)."""
    space, folder = _space(tmp_path), tmp_path / "cache"
    _results(space, folder)  # no ceiling: every document kept
    edited = space / ".ledger/findings/router.md"
    edited.write_text("---\nstatus: current\ntitle: Router\n---\nrouter words now\n", encoding="utf-8")
    age(edited)
    _results(space, folder, "internal")  # reads the edited one again, writes the file
    reads = _reads(monkeypatch)
    build = ContextBuilder(
        space, make_settings(index=IndexOptions(folder)), cache=DocumentCache(racy_ns=0)
    ).build()
    found = search(build, "pin")
    assert reads == [hit.path for hit in found.hits] == [".ledger/decisions/pin.md"]


def test_postings_a_looser_search_kept_change_no_count_or_score_under_a_ceiling(tmp_path: Path) -> None:
    """Spec §10: a withheld document is never counted. Its postings, kept by a search
    without a ceiling, are in the file; a search under a ceiling is still the one without
    an index (searched, matching, scores), and so is the next one without a ceiling."""
    space, folder = _space(tmp_path), tmp_path / "cache"
    _results(space, folder)  # keeps the confidential decision's postings
    kept, _ = load_postings(IndexOptions(folder), space, postings_version(None))
    assert kept is not None and "pin" in kept.terms
    assert _results(space, folder, "internal") == _results(space, None, "internal")
    assert _results(space, folder) == _results(space, None)

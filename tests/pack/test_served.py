"""Serving a document from a build: the bytes that build read, or a clear refusal (spec §1)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import FIXTURES, Files, doc
from ledger_context.model.errors import DocumentChangedError, DocumentNotFoundError, DocumentWithheldError
from ledger_context.pack.build import build_context
from ledger_context.pack.served import served_document, served_text
from ledger_context.reader.ledger import read_file
from ledger_context.reader.walk import SourceFile, walk_ledger

PATH = ".ledger/decisions/0001-a.md"
TEXT = doc(title="A", status="accepted", updated_at="2026-01-01", data_class="internal")


def test_serves_the_text_the_build_read(ledger: Callable[[Files], Path]) -> None:
    build = build_context(ledger({"decisions/0001-a.md": "\ufeff" + TEXT.replace("\n", "\r\n")}))
    assert served_text(build, PATH) == TEXT


def test_a_leading_dot_slash_names_the_same_document(ledger: Callable[[Files], Path]) -> None:
    # explain_budget accepted ./.ledger/…, read_document did not.
    build = build_context(ledger({"decisions/0001-a.md": TEXT}))
    assert served_text(build, "./" + PATH) == served_text(build, "././" + PATH) == TEXT


def test_a_path_the_build_did_not_accept_is_not_found(ledger: Callable[[Files], Path]) -> None:
    build = build_context(ledger({"decisions/0001-a.md": TEXT, "decisions/bad.md": "no frontmatter\n"}))
    with pytest.raises(DocumentNotFoundError, match="no ledger document at"):
        served_text(build, ".ledger/decisions/none.md")
    # Was "no ledger document at": the file is there, and explain_budget knows why it was skipped.
    with pytest.raises(
        DocumentNotFoundError,
        match=r"'\.ledger/decisions/bad\.md' was skipped when the ledger was read; explain_budget with this path",
    ):
        served_text(build, ".ledger/decisions/bad.md")


def test_a_traversal_is_refused_naming_a_valid_path(ledger: Callable[[Files], Path]) -> None:
    build = build_context(ledger({"decisions/0001-a.md": TEXT}))
    for path in ("../../etc/passwd", "/etc/passwd", ".ledger/../x.md", ""):
        with pytest.raises(
            DocumentNotFoundError,
            match=r"is not a ledger document path.*e\.g\. \.ledger/decisions/0001-a\.md",
        ):
            served_text(build, path)


def test_a_document_whose_name_holds_a_backslash_is_served(ledger: Callable[[Files], Path]) -> None:
    # Found by trying to break the product: a backslash is a legal name character on POSIX,
    # and the build read the file, but serving refused its path, which made every search
    # and the start-task prompt fail. Only the build's own paths are served, so a backslash
    # path names no file outside it.
    build = build_context(ledger({"decisions/a\\b.md": TEXT, "decisions/0001-a.md": TEXT}))
    assert served_text(build, ".ledger/decisions/a\\b.md") == TEXT
    for path in ("..\\..\\etc\\passwd", ".ledger\\decisions\\0001-a.md"):
        with pytest.raises(DocumentNotFoundError, match="no ledger document at"):
            served_text(build, path)


def test_a_withheld_document_is_refused(ledger: Callable[[Files], Path]) -> None:
    build = build_context(ledger({"decisions/0001-a.md": TEXT}), max_data_class="public")
    with pytest.raises(DocumentWithheldError, match="withheld by the data-class ceiling public"):
        served_text(build, PATH)


def test_a_withheld_document_names_a_document_that_can_be_read() -> None:
    build = build_context(FIXTURES / "demo", max_data_class="internal")
    withheld = ".ledger/decisions/0004-redact-pii-before-model.md"
    with pytest.raises(DocumentWithheldError) as refused:
        served_text(build, withheld)
    assert str(refused.value) == (
        f"withheld document: {withheld} is withheld by the data-class ceiling internal; "
        "the documents in the pack can be read; e.g. .ledger/harnesses/triage-harness-v3.md"
    )
    assert served_text(build, ".ledger/harnesses/triage-harness-v3.md")


def test_a_file_rewritten_after_the_build_is_refused(ledger: Callable[[Files], Path]) -> None:
    space = ledger({"decisions/0001-a.md": TEXT})
    build = build_context(space)
    (space / PATH).write_text(TEXT.replace("internal", "restricted"), encoding="utf-8")  # same inode
    with pytest.raises(DocumentChangedError, match="changed since the pack was built; call again"):
        served_text(build, PATH)


def test_a_file_replaced_after_the_build_is_refused_even_with_the_same_bytes(
    ledger: Callable[[Files], Path],
) -> None:
    space = ledger({"decisions/0001-a.md": TEXT})
    build = build_context(space)
    (space / ".ledger/decisions/new").write_text(TEXT, encoding="utf-8")
    os.replace(space / ".ledger/decisions/new", space / PATH)  # another inode
    with pytest.raises(DocumentChangedError, match="changed since the pack was built"):
        served_text(build, PATH)


def test_a_deleted_file_is_refused(ledger: Callable[[Files], Path]) -> None:
    space = ledger({"decisions/0001-a.md": TEXT})
    build = build_context(space)
    (space / PATH).unlink()
    with pytest.raises(DocumentChangedError):
        served_text(build, PATH)


def test_the_read_records_the_sha256_of_the_bytes(ledger: Callable[[Files], Path]) -> None:
    space = ledger({"decisions/0001-a.md": TEXT})
    (document,) = build_context(space).ledger.documents
    assert document.sha256 == __import__("hashlib").sha256(TEXT.encode()).hexdigest()


def test_a_file_swapped_between_walk_and_read_is_skipped(ledger: Callable[[Files], Path]) -> None:
    space = ledger({"decisions/0001-a.md": TEXT})
    (source,) = walk_ledger(space).files
    (space / ".ledger/decisions/new").write_text(TEXT, encoding="utf-8")
    os.replace(space / ".ledger/decisions/new", space / PATH)
    result = read_file(space, source)
    assert result.document is None
    assert [(p.path, p.message) for p in result.problems] == [
        (PATH, "changed while being read; skipped (run again)")
    ]
    assert not result.cacheable


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="the descriptor's path needs /proc")
def test_a_link_that_leads_outside_when_opened_is_skipped_even_with_the_walks_identity(
    ledger: Callable[[Files], Path], tmp_path: Path
) -> None:
    # The walk checked the link's target, then it was swapped before the walk's stat: the
    # identity it recorded is the outside file's. The descriptor still says where it is.
    space = ledger({"decisions/.keep": ""})
    outside = tmp_path / "outside.md"
    outside.write_text(TEXT, encoding="utf-8")
    (space / ".ledger/decisions/0002-b.md").symlink_to(outside)
    st = outside.stat()
    identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    result = read_file(space, SourceFile("decision", ".ledger/decisions/0002-b.md", identity))
    assert result.document is None
    assert [p.message for p in result.problems] == ["changed while being read; skipped (run again)"]


def test_served_document_gives_the_body_a_build_from_the_index_does_not_hold(
    ledger: Callable[[Files], Path], tmp_path: Path
) -> None:
    from ledger_context.pack.build import ContextBuilder
    from ledger_context.pack.settings import make_settings
    from ledger_context.reader.cache import DocumentCache
    from ledger_context.reader.index import IndexOptions

    space = ledger({"decisions/0001-a.md": TEXT + "The body.\n"})
    settings = make_settings(index=IndexOptions(tmp_path / "index"))
    ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    build = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    assert build.index is not None and build.index.startswith("used")
    held = build.document(PATH)
    assert held is not None and held.body is None  # the index keeps no bodies
    fresh = served_document(build, PATH)
    assert (
        fresh.body is not None
        and fresh.body.endswith("The body.\n")
        and fresh.title == held.title == "A"
        and fresh.sha256 == held.sha256
    )
    (space / PATH).write_text(TEXT + "The body!\n", encoding="utf-8")  # same size, same inode
    with pytest.raises(DocumentChangedError, match="changed since the pack was built; call again"):
        served_document(build, PATH)


def test_an_error_names_only_a_path_this_ledger_can_serve(ledger: Callable[[Files], Path]) -> None:
    """The README promises errors that name a valid path: never one of another ledger
    (found by breaking the product: a fixed example path was named when the pack held
    only agents.md)."""
    agents = "# Agents\n\nRead the ledger.\n"
    space = ledger({"agents.md": agents, "findings/f.md": doc(status="current", data_class="confidential")})
    build = build_context(space, max_data_class="internal")
    with pytest.raises(DocumentWithheldError) as withheld:
        served_text(build, ".ledger/findings/f.md")
    assert str(withheld.value).endswith("e.g. .ledger/agents.md")
    with pytest.raises(DocumentNotFoundError) as missing:
        served_text(build, ".ledger/findings/none.md")
    assert str(missing.value).endswith("e.g. .ledger/agents.md")
    empty = build_context(
        ledger({"findings/f.md": doc(status="current", data_class="confidential")}), max_data_class="internal"
    )
    for path in (".ledger/findings/f.md", ".ledger/findings/none.md", "../x.md"):
        with pytest.raises((DocumentWithheldError, DocumentNotFoundError)) as error:
            served_text(empty, path)
        assert "0007-use-jwt" not in str(error.value)
        assert "the pack holds no document to read" in str(error.value), path

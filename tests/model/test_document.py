"""What reading one file gives: the kinds in group order, the statuses that select, and the
frozen :class:`Document` the parser returns (spec §2–4)."""

from __future__ import annotations

import hashlib

import pytest

from ledger_context.model.document import DATED_KINDS, KINDS, Document, FileResult
from ledger_context.reader.parse import parse_document


def test_kinds_are_in_the_group_order_of_spec_4() -> None:
    assert KINDS == ("agents", "harness", "eval", "finding", "decision", "experiment")


def test_only_findings_decisions_and_experiments_are_ordered_by_updated_at() -> None:
    assert frozenset({"finding", "decision", "experiment"}) == DATED_KINDS


DATA = b"---\nstatus: Current\nupdated_at: 2026-01-02\n---\n# Cache hit\n"


def test_a_parsed_finding_carries_its_fields_size_and_digest() -> None:
    result = parse_document("finding", ".ledger/findings/f.md", DATA)
    assert isinstance(result, FileResult) and result.problems == () and result.size == 59
    document = result.document
    assert document is not None
    assert (document.kind, document.path, document.size) == ("finding", ".ledger/findings/f.md", 59)
    assert document.frontmatter == "status: Current\nupdated_at: 2026-01-02"
    assert (document.status, document.slug, document.title) == ("current", "f", "Cache hit")
    assert (
        document.updated is not None and document.updated.key == 1_767_312_000_000_000
    )  # 2026-01-02T00:00Z in µs
    assert document.sha256 == hashlib.sha256(DATA).hexdigest()
    assert (document.data_class, document.metrics, document.text, document.git_blob) == (None, (), None, None)


def test_a_document_is_frozen() -> None:
    document = parse_document("finding", ".ledger/findings/f.md", DATA).document
    assert isinstance(document, Document)
    with pytest.raises(AttributeError):
        document.status = "superseded"  # type: ignore[misc]

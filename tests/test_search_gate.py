"""The gate holds by construction (spec §10): searching under a ceiling gives, byte for
byte, what searching the same ledger with the withheld documents deleted gives; and the
order files were written in (so their listing order and modification times) changes
nothing. On generated ledgers (tests/reference/ledgers.py)."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger_context import build_context
from ledger_context.model.errors import InvalidArgumentError
from ledger_context.pack.served import served_document
from ledger_context.search.result import search, search_json
from ledger_context.search.terms import terms
from reference.ledgers import SpaceSpec, spaces, write_space

CEILINGS = st.sampled_from(["public", "internal", "confidential", "restricted"])


def _queries(space: Path) -> list[str]:
    """Words of every document, withheld ones included, so a leak would show."""
    build = build_context(space)
    words: list[str] = ["status", "title", "data"]
    for document in build.ledger.documents:
        body = served_document(build, document.path).body or ""  # a build keeps no bodies
        words.extend(terms(document.title)[:2] + terms(body)[:1])
    return sorted(set(words))[:12]


def _results(space: Path, ceiling: str | None, queries: list[str]) -> list[str]:
    build = build_context(space, max_data_class=ceiling)
    out = []
    for query in queries:
        try:
            out.append(search_json(search(build, query, limit=50)))
        except InvalidArgumentError as exc:
            out.append(f"error: {exc}")
    out.append(search_json(search(build, " ".join(queries[:8]), limit=50)) if queries else "")
    return out


def _delete_withheld(space: Path, ceiling: str) -> None:
    """Remove every file holding the bytes of a document the ceiling withholds."""
    withheld = build_context(space, max_data_class=ceiling).selection.withheld
    digests = {document.sha256 for document in withheld}
    root = os.path.realpath(space / ".ledger")
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                with open(path, "rb") as file:
                    if hashlib.sha256(file.read()).hexdigest() in digests:
                        os.unlink(path)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(spec=spaces(), ceiling=CEILINGS)
def test_search_under_a_ceiling_equals_search_with_the_withheld_documents_deleted(
    spec: SpaceSpec, ceiling: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        gated = write_space(Path(tmp) / "gated", spec)
        deleted = write_space(Path(tmp) / "deleted", spec)
        _delete_withheld(deleted, ceiling)
        queries = _queries(gated)
        assert _results(gated, ceiling, queries) == _results(deleted, ceiling, queries)


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(spec=spaces(), ceiling=st.none() | CEILINGS)
def test_search_is_the_same_whatever_the_order_files_were_written_in(
    spec: SpaceSpec, ceiling: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        forward = write_space(Path(tmp) / "forward", spec)
        backward = write_space(Path(tmp) / "backward", replace(spec, files=tuple(reversed(spec.files))))
        queries = _queries(forward)
        assert _results(forward, ceiling, queries) == _results(backward, ceiling, queries)

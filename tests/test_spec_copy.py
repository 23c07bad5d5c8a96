"""docs/spec.md is the shared contract, byte for byte, so the two can never drift."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import REPO

SHARED_SPEC = REPO.parent / "shared" / "spec" / "context-pack.md"


def test_docs_spec_is_identical_to_the_shared_spec() -> None:
    if not SHARED_SPEC.is_file():
        # CI lays shared/ beside the clone; outside it (a user's clone) there is nothing to compare.
        if os.environ.get("CI"):
            pytest.fail(f"the shared spec is missing at {SHARED_SPEC}")
        pytest.skip("no shared/ beside this clone")
    assert (REPO / "docs" / "spec.md").read_bytes() == Path(SHARED_SPEC).read_bytes()

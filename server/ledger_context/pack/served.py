"""Serving a document's text from a build: only what that build read and classified (spec §1).

Keeping every text in memory would cost too much on large ledgers, so the file is opened
again, and what is served must be provably the bytes the build read and classified: the
same file (device, inode, type, inside the ledger root), the same SHA-256, and the same
document when parsed again (so neither a cache nor the ledger index decides what is served).
"""

from __future__ import annotations

from ..model.errors import DocumentNotFoundError, DocumentWithheldError
from ..reader.ledger import read_again
from .build import ContextBuild

EXAMPLE_PATH = ".ledger/decisions/0007-use-jwt.md"
"""Named as an example when a build has no document to name."""


def _shown(value: str) -> str:
    shown = repr(value)  # ASCII-safe for odd strings; cut so a huge value is not echoed
    return shown if len(shown) <= 80 else shown[:77] + "..."


def served_text(build: ContextBuild, path: str) -> str:
    """The full text of the accepted document at ``path`` (relative to the space), as
    ``build`` read it.

    Raises :class:`~ledger_context.model.errors.DocumentNotFoundError` for a path the build did
    not accept, :class:`~ledger_context.model.errors.DocumentWithheldError` for a document its
    ceiling withholds, and :class:`~ledger_context.model.errors.DocumentChangedError` when the
    file no longer holds the bytes the build read.
    """
    example = next((s.path for s in build.sources() if not s.path.endswith("agents.md")), EXAMPLE_PATH)
    parts = path.split("/")
    if not path or path.startswith("/") or "\\" in path or "\0" in path or ".." in parts:
        raise DocumentNotFoundError(
            f"unknown document: {_shown(path)} is not a ledger document path: use a path "
            f"relative to the space, as in the pack's title lines, with no '..', e.g. {example}"
        )
    ledger = build.ledger
    document = build.document(path)
    source = next((s for s in ledger.walk.files if s.path == path), None) if ledger.walk else None
    if document is None or source is None:
        raise DocumentNotFoundError(
            f"unknown document: no ledger document at {_shown(path)}: use a path from the "
            f"pack's title lines, e.g. {example}"
        )
    if build.is_withheld(path):
        raise DocumentWithheldError(
            f"withheld document: {path} is withheld by the data-class ceiling {build.ceiling}; "
            f"the documents in the pack can be read, e.g. {example}"
        )
    return read_again(ledger.space, source, document, build.settings.yaml)

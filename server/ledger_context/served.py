"""Serving a document's text from a build: only what that build read and classified (spec §1).

Keeping every text in memory would cost too much on large ledgers, so the file is opened
again, and what is served must be provably the bytes the build read: the same file
(device, inode, type, inside the ledger root) and the same SHA-256.
"""

from __future__ import annotations

from .classify import is_withheld
from .context import ContextBuild
from .errors import DocumentNotFoundError, DocumentWithheldError
from .ledger import read_again


def served_text(build: ContextBuild, path: str) -> str:
    """The full text of the accepted document at ``path`` (relative to the space), as
    ``build`` read it.

    Raises :class:`~ledger_context.errors.DocumentNotFoundError` for a path the build did
    not accept, :class:`~ledger_context.errors.DocumentWithheldError` for a document its
    ceiling withholds, and :class:`~ledger_context.errors.DocumentChangedError` when the
    file no longer holds the bytes the build read.
    """
    ledger = build.ledger
    document = next((d for d in ledger.documents if d.path == path), None)
    source = next((s for s in ledger.walk.files if s.path == path), None) if ledger.walk else None
    if document is None or source is None:
        raise DocumentNotFoundError(
            f"no ledger document at {path!r}: use a path from the pack's title "
            "lines, e.g. .ledger/decisions/0007-use-jwt.md"
        )
    if is_withheld(document.data_class, build.ceiling):
        raise DocumentWithheldError(f"{path} is withheld by the data-class ceiling {build.ceiling}")
    return read_again(ledger.space, source, document.sha256)

"""Serving a document's text from a build: only what that build read and classified (spec §1).

Keeping every text in memory would cost too much on large ledgers, so the file is opened
again, and what is served must be provably the bytes the build read and classified: the
same file (device, inode, type, inside the ledger root), the same SHA-256, and the same
document when parsed again (so neither a cache nor the ledger index decides what is served).
"""

from __future__ import annotations

from ..model.document import Document
from ..model.errors import (
    DocumentChangedError,
    DocumentNotFoundError,
    DocumentWithheldError,
)
from ..reader.ledger import parse_again, read_again
from ..reader.walk import SourceFile
from .context import ContextBuild
from .settings import canonical_path


def _shown(value: str) -> str:
    shown = repr(value)  # ASCII-safe for odd strings; cut so a huge value is not echoed
    return shown if len(shown) <= 80 else shown[:77] + "..."


def serve(build: ContextBuild, path: str) -> tuple[Document, str]:
    """The accepted document at ``path`` (relative to the space, as a client names it) and
    its full text, as ``build`` read it: the document is the one whose bytes are served,
    so what records the call names those bytes.

    Raises :class:`~ledger_context.model.errors.DocumentNotFoundError` for a path the build did
    not accept, :class:`~ledger_context.model.errors.DocumentWithheldError` for a document its
    ceiling withholds, and :class:`~ledger_context.model.errors.DocumentChangedError` when the
    file no longer holds the bytes the build read.
    """
    source, document = _servable(build, path)
    try:
        return document, read_again(build.ledger.space, source, document, build.settings.yaml)
    except DocumentChangedError:
        build.changed(source.path)  # so that "call again" reads it again
        raise


def served_text(build: ContextBuild, path: str) -> str:
    """The full text of the accepted document at ``path``; raises as :func:`serve` does."""
    return serve(build, path)[1]


def served_document(build: ContextBuild, path: str) -> Document:
    """The accepted document at ``path`` parsed again from its bytes read again, its body
    included (what search indexes and shows); raises as :func:`serve` does."""
    source, document = _servable(build, path)
    try:
        return parse_again(build.ledger.space, source, document, build.settings.yaml)
    except DocumentChangedError:
        build.changed(source.path)
        raise


def _servable(build: ContextBuild, path: str) -> tuple[SourceFile, Document]:
    """The walked file and the document at ``path``, if the build accepted it and its
    ceiling lets it through; raises otherwise."""
    path = canonical_path(path)
    parts = path.split("/")
    # Only the build's own paths are served, so no path names a file outside it; these
    # get a message that says what a path is. A backslash is a name's own character on
    # POSIX (the build reads such a file), never a separator.
    if not path or path.startswith("/") or "\0" in path or ".." in parts:
        raise DocumentNotFoundError(
            f"unknown document: {_shown(path)} is not a ledger document path: use a path "
            f"relative to the space, as in the pack's title lines, with no '..'; {_example(build)}"
        )
    document = build.document(path)
    source = build.source_file(path)
    if document is None or source is None:
        if any(problem.path == path for problem in build.ledger.problems):
            raise DocumentNotFoundError(
                f"unknown document: {_shown(path)} was skipped when the ledger was read; "
                "explain_budget with this path says why"
            )
        raise DocumentNotFoundError(
            f"unknown document: no ledger document at {_shown(path)}: use a path from the "
            f"pack's title lines; {_example(build)}"
        )
    if build.is_withheld(path):
        raise DocumentWithheldError(
            f"withheld document: {path} is withheld by the data-class ceiling {build.ceiling}; "
            f"the documents in the pack can be read; {_example(build)}"
        )
    return source, document


def _example(build: ContextBuild) -> str:
    """A path to name in an error: the first document the pack holds, ``agents.md`` only
    when it holds no other; never a path this ledger cannot serve."""
    paths = [source.path for source in build.sources()]
    path = next((p for p in paths if not p.endswith("agents.md")), paths[0] if paths else None)
    return f"e.g. {path}" if path is not None else "the pack holds no document to read"

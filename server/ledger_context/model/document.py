"""What reading one file gives: the accepted :class:`Document`, or its problems (spec §2–3)."""

from __future__ import annotations

from typing import NamedTuple

from .fields import Timestamp
from .kinds import KIND_TABLE
from .problems import Problem

KINDS: tuple[str, ...] = tuple(kind.name for kind in KIND_TABLE)
"""Document kinds in group order (spec §4)."""

DATED_KINDS = frozenset(kind.name for kind in KIND_TABLE if kind.dated)
"""Kinds whose order uses ``updated_at``: an undated one is reported (spec §3)."""


class Document(NamedTuple):
    """A document the reader accepted (spec §2–3).

    ``frontmatter`` is the verbatim frontmatter text (``None`` for an ``agents.md``
    without a valid one, and for a document the ledger index gave without it:
    :func:`lacks_frontmatter`); ``text`` is the whole decoded text (``agents.md`` only);
    ``status`` is stripped and case-folded; ``title`` is the title of spec §3 (never
    empty: the slug at worst; ``agents`` for an ``agents.md`` without a level-1
    heading), whatever the status; ``body`` what follows the frontmatter (the whole
    text when there is none), ``None`` when the document was taken from the ledger index,
    which keeps no bodies (the pack never shows one: search reads it again, spec §1);
    ``metrics`` holds a selected eval's metrics list lines; ``size`` is the
    file's size in bytes; ``sha256`` the hex SHA-256 of the bytes read; ``yaml_loader``
    which loader read the frontmatter (``None`` when none did).
    """

    kind: str
    path: str
    size: int
    frontmatter: str | None
    status: str | None
    updated: Timestamp | None
    slug: str
    title: str
    data_class: str | None
    metrics: tuple[str, ...] = ()
    text: str | None = None
    sha256: str = ""
    yaml_loader: str | None = None
    git_blob: str | None = None
    """The git object id of the bytes read (what ``git hash-object`` gives), set only when
    the reader is asked for it."""
    body: str | None = ""


class FileResult(NamedTuple):
    """What reading one file gave: the document (``None`` if skipped) and its problems."""

    document: Document | None
    problems: tuple[Problem, ...]
    size: int
    cacheable: bool = True
    """False when the file changed between the walk and the read: never cache it."""


def lacks_frontmatter(document: Document) -> bool:
    """Whether ``document`` came from the ledger index without its frontmatter text, which
    the index keeps only where a block always shows it (spec §4: an experiment's block
    shows only if it is among the latest, a status the kind does not select never): it
    is read afresh before its block is rendered. Every other document has its text (an
    ``agents.md`` without frontmatter has none to lack)."""
    return document.frontmatter is None and document.kind != "agents"

"""Search's postings kept between processes: a warm search reads no body again (issue 26).

One file per ledger beside its index (``<SHA-256 of the real path>.postings``), sealed as the
index is (:func:`~ledger_context.reader.index.write_private`: the user's private folder, an
HMAC-SHA256 under the user's key, written whole and renamed). A document's postings derive
from its bytes and its title alone (:func:`~ledger_context.search.inverted.postings_of`),
so they are kept under (SHA-256, title, kind): an entry is right for any file holding those
bytes under that title in that kind, whatever its path or age, and needs no racy rule. They
are laid out by term (:mod:`~ledger_context.search.kept`): a warm search decodes the terms
it asks for, not every document's postings. They decide only which
documents match and their scores; every hit is read, hashed and classified afresh before
anything of it is shown (spec §10), so a missing, stale or corrupt file costs time only.
"""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any

from ..reader.frontmatter import YamlOptions
from ..reader.index import (
    POSTINGS_SUFFIX,
    IndexOptions,
    index_path,
    read_private,
    seal,
    source_digest,
    space_text,
    unseal,
    version_key,
    write_private,
)
from .kept import LAYOUT, KeptPostings, from_data

FORMAT = 3
"""The layout of the postings file; any change to it or to what an entry holds bumps it."""


def postings_version(yaml: YamlOptions | None) -> dict[str, Any]:
    """What a postings file is valid for: the index's version key (Python, marshal, the
    reader's code, the YAML loader) and the search wing's own code, which splits the terms."""
    return {
        "postings": FORMAT,
        "layout": LAYOUT,
        "index": version_key(yaml),
        "search": source_digest("search"),
    }


def postings_path(options: IndexOptions, space: Path) -> Path:
    """The postings file of ``space``: its index's name with :data:`POSTINGS_SUFFIX`."""
    return index_path(options, space).with_suffix(POSTINGS_SUFFIX)


def load_postings(
    options: IndexOptions, space: Path, version: dict[str, Any]
) -> tuple[KeptPostings | None, str | None]:
    """The postings kept for ``space`` (never raises), or none and why: ``missing``, or a
    clause that names what is wrong."""
    data, key, fault = read_private(options, postings_path(options, space), "postings file")
    if data is None or key is None:
        return None, fault
    body, fault = unseal(data, key)
    if body is None:
        return None, fault
    try:
        parsed = marshal.loads(body)
        if parsed["version"] != version or parsed["space"] != space_text(space):
            return None, "the postings were made by another version or for another ledger"
        return from_data(parsed["postings"]), None
    except (KeyError, TypeError, ValueError, IndexError, EOFError, RecursionError):
        return None, "the postings cannot be parsed"


def save_postings(
    options: IndexOptions, space: Path, version: dict[str, Any], kept: KeptPostings
) -> str | None:
    """Write the postings of ``space`` whole and atomically; ``None``, or why not."""
    body = marshal.dumps({"version": version, "space": space_text(space), "postings": kept.data()})
    return write_private(options, postings_path(options, space), lambda key: seal(key, body))

"""``search_ledger``: the ranked hits for a query, each explained, bounded (spec §10).

:func:`search` is the one core function behind the CLI's ``search`` and the MCP tool. It
searches only what the build accepted and its ceiling lets through (the rest is never
indexed), ranks by BM25F (:mod:`.inverted`), then newest ``updated_at``, then path, and
returns a :class:`SearchResult` whose text (:func:`search_text`) and compact JSON each
stay within their byte bound.

The result is plain data (frozen dataclasses), so the CLI's ``search`` never loads pydantic
(its import and model building were a quarter of a warm search's process). Pydantic reads
these classes where the MCP tool makes its output schema; ``__pydantic_config__`` keeps
that schema lean. They have no slots: the SDK, making a model of a class, would read each
slot as the field's default.
"""

from __future__ import annotations

import heapq
import json
from dataclasses import asdict, dataclass, replace
from typing import Any

from ..model.document import KINDS, Document
from ..model.errors import InvalidArgumentError
from ..model.fields import bidi_escaped, clean_text
from ..pack.context import ContextBuild
from ..pack.served import served_document
from .inverted import FIELDS, SCALE, SearchIndex, postings_key
from .kept import NotPostings
from .terms import MAX_TERM_CHARS, first_term_at, has_long_word, has_unspaced, terms

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
MAX_QUERY_CHARS = 4096
MAX_QUERY_TERMS = 32
"""Distinct terms a query may hold; a longer one is refused, never cut silently."""
MAX_TEXT_BYTES = 24_000
MAX_JSON_BYTES = 32_000
"""Bounds of the text and of the compact JSON of one result: hits past them are left
out and counted in ``omitted``."""
TITLE_BYTES = 160
EXCERPT_BYTES = 240
VALUE_BYTES = 40
QUERY_BYTES = 200
_EXCERPT_BEFORE = 60
"""Characters of context shown before the first match."""


def _lean(schema: dict[str, Any]) -> None:
    """Drop the description and each property's title from a model's schema: the tool
    catalogue has a byte budget, and the field names say it all."""
    schema.pop("description", None)
    for value in schema.get("properties", {}).values():
        value.pop("title", None)


_LEAN = {"json_schema_extra": _lean}
"""Pydantic's configuration of each class below (a ``ConfigDict`` is a plain dict)."""


@dataclass(frozen=True)
class Matched:
    """The query's terms found in each field of a document (normalised, query order)."""

    __pydantic_config__ = _LEAN

    title: list[str]
    frontmatter: list[str]
    body: list[str]


@dataclass(frozen=True)
class Hit:
    """One ranked document: ``path`` is what ``read_document`` and ``explain_budget(path=…)``
    take; ``title`` is cut to :data:`TITLE_BYTES`; ``updated_at`` is UTC or ``None``;
    ``score`` the BM25F score rounded to 1e-9; ``in_pack`` whether the pack holds at least
    a byte of it; ``excerpt`` the text around the first match (:data:`EXCERPT_BYTES`).
    (Its schema carries no descriptions: the tool catalogue has a byte budget.)"""

    __pydantic_config__ = _LEAN

    rank: int
    path: str
    kind: str
    title: str
    status: str | None
    updated_at: str | None
    data_class: str | None
    score: float
    matched: Matched
    in_pack: bool
    excerpt: str | None


@dataclass(frozen=True)
class SearchResult:
    """The answer to one search: the query cleaned and cut to :data:`QUERY_BYTES`, its
    distinct terms, how many documents were searched and matched, the hits, and how many
    were left out to stay within the byte bounds."""

    __pydantic_config__ = _LEAN

    query: str
    terms: list[str]
    kind: str | None
    limit: int
    searched: int
    matching: int
    hits: list[Hit]
    omitted: int


def query_terms(query: Any) -> list[str]:
    """The distinct terms of ``query``, in the order they first appear; raises
    :class:`~ledger_context.model.errors.InvalidArgumentError` for a bad query."""
    if not isinstance(query, str):
        raise InvalidArgumentError(
            f"query must be a string of words to search for, not {type(query).__name__}"
            ' (e.g. "query": "tool calling router")'
        )
    if not query.strip():
        raise InvalidArgumentError("query is empty: give one or more words to search for")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgumentError(
            f"query is {len(query)} characters long; at most {MAX_QUERY_CHARS} are allowed"
        )
    found = list(dict.fromkeys(terms(query)))
    if not found:
        if has_long_word(query):
            raise InvalidArgumentError(
                f"query has no searchable term: a word of more than {MAX_TERM_CHARS} letters or "
                "digits is not searched (nor indexed); use shorter words"
            )
        raise InvalidArgumentError(
            "query has no searchable term: use words of letters or digits (punctuation, "
            "symbols and control characters only separate words)"
        )
    if len(found) > MAX_QUERY_TERMS:
        pairs = (
            " (in Chinese, Japanese, Thai and other scripts written without spaces each pair of "
            "neighbouring characters is a term)"
            if has_unspaced(query)
            else ""
        )
        raise InvalidArgumentError(
            f"query has {len(found)} distinct terms; at most {MAX_QUERY_TERMS} are allowed: "
            f"use fewer words{pairs}"
        )
    return found


def check_search_arguments(kind: Any, limit: Any) -> None:
    """Raise for a kind outside :data:`KINDS` (or ``None``) or a limit outside 1–50."""
    if kind is not None and kind not in KINDS:
        raise InvalidArgumentError(
            f"unknown kind {clean_text(str(kind))[:40]!r}: use one of {', '.join(KINDS)}"
        )
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgumentError(
            f"limit must be a whole number from 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"
        )


def search(
    build: ContextBuild,
    query: Any,
    kind: Any = None,
    limit: Any = DEFAULT_LIMIT,
    index: SearchIndex | None = None,
) -> SearchResult:
    """The hits of ``query`` in ``build`` (spec §10), using ``index`` (brought up to
    date with the build; a fresh one when ``None``)."""
    wanted = query_terms(query)
    check_search_arguments(kind, limit)
    index = index if index is not None else SearchIndex()
    scope = build.servable()
    with index.lock:
        try:
            scores, matching, ranked, found = _ranked(index, build, scope, wanted, kind, limit, True)
        except NotPostings:
            # Kept postings signed with the key, yet not as this code writes them: every
            # document is read again, and the file written anew.
            index.clear()
            scores, matching, ranked, found = _ranked(index, build, scope, wanted, kind, limit, False)
    # Each hit's title, fields and excerpt are shown: read and classified afresh, as a
    # served document is, so neither a cache nor the ledger index decides what is shown.
    hits = [
        _hit(rank, served_document(build, path), scores[path], found[path], build.in_pack(path))
        for rank, path in enumerate(ranked, start=1)
    ]
    result = SearchResult(
        query=_cut(clean_text(query), QUERY_BYTES),
        terms=wanted,
        kind=kind,
        limit=limit,
        searched=len(scope) if kind is None else sum(1 for document in scope if document.kind == kind),
        matching=matching,
        hits=hits,
        omitted=0,
    )
    return _bounded(result)


def _ranked(
    index: SearchIndex,
    build: ContextBuild,
    scope: tuple[Document, ...],
    wanted: list[str],
    kind: str | None,
    limit: int,
    trust_kept: bool,
) -> tuple[dict[str, int], int, list[str], dict[str, list[list[str]]]]:
    """The scores met, how many match, the first ``limit`` paths in order, and the terms
    each of those holds, with ``index`` synced first."""
    _sync(index, build, scope, trust_kept)
    # A set of scored documents that holds the first ``limit`` of the order.
    scores, matching = index.best(wanted, limit, kind)
    documents = index.documents
    ranked = heapq.nsmallest(limit, scores, key=lambda path: _order(scores[path], documents[path]))
    return scores, matching, ranked, {path: _found(index, path, wanted) for path in ranked}


def _sync(index: SearchIndex, build: ContextBuild, scope: tuple[Document, ...], trust_kept: bool) -> None:
    """Bring ``index`` up to date with ``scope``. An empty one (a new process's first
    search) takes what it can from the postings kept beside the ledger index (unless
    ``trust_kept`` is false), and keeps them anew when it had to read a document again,
    with those of documents another ceiling let through; later syncs read the few changed
    documents again and keep them in memory only."""
    options = build.settings.index
    if options is None or index.documents:
        index.sync(scope, scope, lambda document: served_document(build, document.path))
        return
    from .stored import load_postings, postings_version, save_postings  # only with an index

    space, version = build.ledger.space, postings_version(build.settings.yaml)
    kept = load_postings(options, space, version)[0] if trust_kept else None
    if index.sync(scope, scope, lambda document: served_document(build, document.path), kept):
        # What a search under another ceiling kept stays while its document is in the ledger
        # (the file is as private as the index, which holds every document's parse).
        live = {postings_key(document) for document in build.ledger.documents}
        save_postings(options, space, version, index.kept(live))


PROMPT_HITS = 5
"""How many hits the ``start-task`` prompt adds after the pack."""


def task_search(build: ContextBuild, task: str, index: SearchIndex | None = None) -> SearchResult | None:
    """The top :data:`PROMPT_HITS` hits for a task written in words, ``None`` when the
    task holds no searchable term. A long task is searched by its first
    :data:`MAX_QUERY_TERMS` distinct terms within its first :data:`MAX_QUERY_CHARS`
    characters, cut after the last whole word there; never refused."""
    head = task[:MAX_QUERY_CHARS]
    if len(task) > MAX_QUERY_CHARS and not task[MAX_QUERY_CHARS].isspace():
        end = len(head)
        while end and not head[end - 1].isspace():
            end -= 1
        head = head[:end] or head  # a text without spaces (CJK) is cut where it is
    wanted = list(dict.fromkeys(terms(head)))[:MAX_QUERY_TERMS]
    if not wanted:
        return None
    return search(build, " ".join(wanted), None, PROMPT_HITS, index)


def _order(score: int, document: Document) -> tuple[int, int, int, str]:
    """Higher score first; then dated before undated, newest first; then path."""
    updated = document.updated
    return (-score, 0 if updated else 1, -updated.key if updated else 0, document.path)


def _found(index: SearchIndex, path: str, wanted: list[str]) -> list[list[str]]:
    """The query's terms the document at ``path`` holds, per field (:data:`FIELDS` order)."""
    return [[t for t in wanted if index.counts(t, path)[field]] for field in range(len(FIELDS))]


def _hit(rank: int, document: Document, score: int, found: list[list[str]], in_pack: bool) -> Hit:
    return Hit(
        rank=rank,
        path=document.path,
        kind=document.kind,
        title=_cut(document.title, TITLE_BYTES),
        status=_cut(clean_text(document.status), VALUE_BYTES) if document.status is not None else None,
        updated_at=document.updated.iso if document.updated else None,
        data_class=document.data_class,
        score=score / SCALE,
        matched=Matched(title=found[0], frontmatter=found[1], body=found[2]),
        in_pack=in_pack,
        excerpt=_excerpt(document, found),
    )


def _excerpt(document: Document, found: list[list[str]]) -> str | None:
    """The text around the first match in the body (else the frontmatter), cleaned and
    cut to :data:`EXCERPT_BYTES` bytes between code points; looked for only in a field
    the postings say holds a term, so the scan ends at a match."""
    for text, field_terms in ((document.body or "", found[2]), (document.frontmatter or "", found[1])):
        if not field_terms:
            continue
        at = first_term_at(text, frozenset(field_terms))
        if at is None:
            continue
        start = max(0, at - _EXCERPT_BEFORE)
        window = clean_text(text[start : at + EXCERPT_BYTES])
        return _cut(("…" if start else "") + window, EXCERPT_BYTES)
    return None


def _cut(text: str, limit: int) -> str:
    """The longest prefix of ``text`` within ``limit`` UTF-8 bytes, whole code points."""
    data = text.encode("utf-8", "replace")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def recorded_hits(build: ContextBuild, result: SearchResult) -> list[dict[str, str]]:
    """Each hit's path and the SHA-256 of the bytes it was ranked from: what the audit log
    records of a search."""
    recorded: list[dict[str, str]] = []
    for hit in result.hits:  # the build's own lookup: no dict of every document per search
        document = build.document(hit.path)
        assert document is not None  # a hit is a document of this build
        recorded.append({"path": hit.path, "sha256": document.sha256})
    return recorded


def search_data(result: SearchResult) -> dict[str, Any]:
    """The result as JSON data, keys in field order: the tool's structured output."""
    return asdict(result)


def search_json(result: SearchResult) -> str:
    """The result as compact JSON, keys in field order."""
    return json.dumps(search_data(result), ensure_ascii=False, separators=(",", ":"))


def _bounded(result: SearchResult) -> SearchResult:
    """``result`` with its last hits left out until its text and JSON fit their bounds."""
    while result.hits and (
        len(search_text(result).encode("utf-8")) > MAX_TEXT_BYTES
        or len(search_json(result).encode("utf-8")) > MAX_JSON_BYTES
    ):
        result = replace(result, hits=result.hits[:-1], omitted=result.omitted + 1)
    return result


def search_text(result: SearchResult) -> str:
    """The result for people and agents: one header line, then each hit in a few lines."""
    scope = f"kind {result.kind}, " if result.kind else ""
    lines = [
        f"search {result.query!r}: {len(result.hits)} of {result.matching} matching documents "
        f"({scope}{result.searched} searched; BM25F, then newest, then path)"
    ]
    for hit in result.hits:
        facts = [
            hit.kind,
            bidi_escaped(hit.status or "no status"),
            hit.updated_at or "undated",
            hit.data_class or "no class",
        ]
        if hit.in_pack:
            facts.append("in the pack")
        lines.append(f"{hit.rank}. {hit.path} [{', '.join(facts)}] score {hit.score:.3f}")
        lines.append(f"   {bidi_escaped(hit.title)}")
        matched = "; ".join(
            f"{name} {', '.join(found)}"
            for name, found in zip(
                FIELDS, (hit.matched.title, hit.matched.frontmatter, hit.matched.body), strict=True
            )
            if found
        )
        lines.append(f"   matched: {matched}")
        if hit.excerpt:
            lines.append(f"   {bidi_escaped(hit.excerpt)}")
    if result.omitted:
        lines.append(
            f"({result.omitted} more hits left out to stay under {MAX_TEXT_BYTES} bytes: lower limit)"
        )
    return "\n".join(lines) + "\n"

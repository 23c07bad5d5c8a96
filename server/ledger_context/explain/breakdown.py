"""The breakdown's value: what :func:`~ledger_context.explain.full.explain` returns, as
plain data (spec §8).

The explanation is frozen dataclasses, so ``explain --full`` and its text never load
pydantic. Pydantic reads these classes where an explanation becomes JSON
(:func:`explanation_json`, :func:`explanation_data`) or a schema (the MCP structured
output): it takes each class's docstring and each field's ``description`` metadata, as it
would from a ``BaseModel`` with ``Field(description=...)``. Apart from the computation, so
that the brief, its text and the budget page stand on the value, not on the build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..model.problems import Severity
from ..pack.budget import Outcome
from ..pack.measure import CapAdvice, Measured
from ..pack.settings import Detail

if TYPE_CHECKING:
    from pydantic import TypeAdapter


def _described(text: str) -> dict[str, str]:
    """A field's metadata that pydantic reads as its ``description``."""
    return {"description": text}


@dataclass(frozen=True, slots=True)
class Rule:
    """ADR-0028's rule and the cap in force."""

    bytes_per_token: int = field(metadata=_described("UTF-8 bytes per token (ADR-0028)"))
    tokens_formula: str = field(metadata=_described("How tokens are counted"))
    cap_tokens: int = field(metadata=_described("The cap, in tokens"))
    cap_bytes: int = field(metadata=_described("The cap, in bytes: bytes_per_token × cap_tokens"))


@dataclass(frozen=True, slots=True)
class PackTotals:
    """The pack as returned by get_context."""

    bytes: int = field(metadata=_described("Size of the pack in UTF-8 bytes"))
    tokens: int = field(metadata=_described("ceil(bytes / 4)"))
    bytes_left: int = field(metadata=_described("cap_bytes - bytes"))
    tokens_left: int = field(metadata=_described("cap_tokens - tokens"))
    truncated: bool = field(metadata=_described("True if the pack was cut (groups 1-3 alone exceed the cap)"))
    truncated_bytes: int = field(metadata=_described("Bytes removed by the cut, 0 if not truncated"))
    dropped_blocks: int = field(metadata=_described("Candidate blocks with outcome 'dropped'"))
    sha256: str = field(metadata=_described("SHA-256 of the pack's UTF-8 bytes, hex"))
    commit: str | None = field(
        metadata=_described(
            "The work tree's HEAD commit (or the --rev commit); null outside git or before a commit"
        )
    )
    dirty: bool | None = field(
        metadata=_described(
            "True if a document read differs from HEAD's version or is untracked (under a "
            "ceiling: a document not withheld); null outside git"
        )
    )
    fingerprint: str = field(
        metadata=_described(
            "SHA-256 over the sorted (path, sha256) of every document read (under a ceiling: "
            "not withheld): path UTF-8, NUL, sha256 hex, newline per document"
        )
    )


@dataclass(frozen=True, slots=True)
class Metrics:
    """Figures worth a glance (ratios are plain fractions, not percentages)."""

    utilisation: float = field(metadata=_described("Pack bytes / cap bytes"))
    dropped_block_rate: float = field(metadata=_described("Dropped blocks / candidate blocks (0 if none)"))
    bytes_read: int = field(
        metadata=_described("Bytes of the ledger's files read (under a ceiling: those it lets through)")
    )
    read_to_pack_ratio: float | None = field(
        metadata=_described("bytes_read / pack bytes (null for an empty pack)")
    )


@dataclass(frozen=True, slots=True)
class GroupLine:
    """One of the six groups: its candidate blocks and the bytes they cost and kept."""

    group: int
    name: str
    candidates: int
    kept: int
    truncated: int
    dropped: int
    bytes: int = field(metadata=_described("Bytes of all candidate blocks, separators included"))
    kept_bytes: int = field(metadata=_described("Bytes of this group in the pack"))
    measured_tokens: dict[str, int] = field(
        default_factory=dict,
        metadata=_described("full: tokenizer -> tokens of this group's bytes in the pack, counted alone"),
    )


@dataclass(frozen=True, slots=True)
class KindCount:
    """Documents of one kind: read = skipped + withheld + selected + not_selected."""

    kind: str
    read: int
    skipped: int = field(metadata=_described("Not valid, reported as problems"))
    withheld: int = field(metadata=_described("Kept out by the data-class ceiling"))
    selected: int = field(metadata=_described("Became candidate blocks"))
    not_selected: int = field(metadata=_described("Valid, but not selected by status or recency"))


@dataclass(frozen=True, slots=True)
class BlockLine:
    """One candidate block and what the budget did with it."""

    group: int
    kind: str
    path: str
    slug: str
    status: str | None = field(metadata=_described("Status, stripped and case-folded"))
    updated_at: str | None = field(metadata=_described("updated_at normalised to UTC, or null if undated"))
    data_class: str | None = field(metadata=_described("Declared data class, 'unknown', or null if none"))
    bytes: int = field(metadata=_described("Rendered bytes, separator included"))
    kept_bytes: int
    outcome: Outcome
    reason: str
    sha256: str = field(metadata=_described("SHA-256 of the source file's bytes as read, hex"))
    git_blob: str | None = field(metadata=_described("git hash-object id of those bytes; null outside git"))
    measured_tokens: dict[str, int] = field(
        default_factory=dict,
        metadata=_described("full: tokenizer -> tokens of this block's bytes in the pack, counted alone"),
    )


@dataclass(frozen=True, slots=True)
class SourceLine:
    """A source that reached the pack, by path, with its declared class (null: none)."""

    path: str
    data_class: str | None
    sha256: str = field(metadata=_described("SHA-256 of the source file's bytes as read, hex"))
    git_blob: str | None = field(metadata=_described("git hash-object id of those bytes; null outside git"))


@dataclass(frozen=True, slots=True)
class WithheldLine:
    """A source the ceiling kept out of the pack."""

    path: str
    kind: str
    data_class: str


@dataclass(frozen=True, slots=True)
class Classification:
    """What class of data the pack carries (spec §7); names only, never text."""

    sources: list[SourceLine] = field(metadata=_described("Every source with at least one byte in the pack"))
    effective_class: str | None = field(
        metadata=_described("Strictest class over `sources`, null if none declared")
    )
    ceiling: str | None = field(metadata=_described("The --max-data-class ceiling, null if unset"))
    withheld_count: int
    withheld_by_kind: dict[str, int]
    withheld: list[WithheldLine] = field(metadata=_described("Every withheld source (detail=full only)"))
    undeclared_class: str | None = field(
        default=None,
        metadata=_described("The --undeclared-class undeclared sources are read as; null: they pass"),
    )


@dataclass(frozen=True, slots=True)
class ProblemLine:
    """A problem found while reading the ledger."""

    path: str
    severity: Severity
    line: int | None
    column: int | None
    message: str


@dataclass(frozen=True, slots=True)
class Explanation:
    """The breakdown of one pack (spec §8)."""

    space: str = field(metadata=_described("The space (directory holding .ledger) the pack was built from"))
    detail: Detail
    yaml_loader: dict[str, int] = field(
        metadata=_described(
            "How many documents each frontmatter loader read: quick (the quick path), "
            "libyaml, python (PyYAML's pure-Python loader)"
        )
    )
    rule: Rule
    pack: PackTotals
    metrics: Metrics
    groups: list[GroupLine]
    kinds: list[KindCount]
    blocks: list[BlockLine] = field(metadata=_described("full: every candidate block; brief: those not kept"))
    classification: Classification
    problem_counts: dict[str, int]
    problems: list[ProblemLine] = field(metadata=_described("Every problem (detail=full only)"))
    audit: str | None = field(
        default=None,
        metadata=_described("The server's audit log: 'ok', 'off' or 'failing: <reason>'; null outside serve"),
    )
    measured: list[Measured] = field(
        default_factory=list,
        metadata=_described("Real tokenizers' counts of the pack, beside the rule, never instead (spec §9)"),
    )
    advice: list[CapAdvice] = field(
        default_factory=list,
        metadata=_described("Per tokenizer counting the pack over the cap: the largest cap that fits"),
    )


@cache
def _adapter() -> TypeAdapter[Explanation]:
    from pydantic import TypeAdapter  # here: explain's text never pays for pydantic

    return TypeAdapter(Explanation)


def explanation_json(explanation: Explanation, indent: int | None = None) -> str:
    """``explanation`` as JSON text, encoded by pydantic like every structured output."""
    return _adapter().dump_json(explanation, indent=indent).decode("utf-8")


def explanation_data(explanation: Explanation) -> dict[str, Any]:
    """``explanation`` as JSON-ready data: the MCP structured content, the budget page."""
    data: dict[str, Any] = _adapter().dump_python(explanation, mode="json")
    return data

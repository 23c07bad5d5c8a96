"""The settings of a build, validated once: the cap, the data-class ceiling, the YAML
loader options; and the arguments a request adds: ``detail`` and a document's path.

The edge (the command line, :mod:`ledger_context.cli`) reads flags and environment
variables and turns them into one frozen :class:`Settings` with :func:`make_settings`;
nothing below checks them again. Each check raises
:class:`~ledger_context.model.errors.InvalidArgumentError` naming the allowed values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, get_args

from ..model.classify import parse_ceiling, parse_undeclared_class
from ..model.errors import InvalidArgumentError, InvalidCapError
from ..model.tokens import DEFAULT_CAP_TOKENS, MAX_CAP_TOKENS
from ..model.values import Record
from ..reader.frontmatter import YamlOptions

if TYPE_CHECKING:  # the index's module is loaded when a build uses one
    from ..reader.index import IndexOptions

Detail = Literal["brief", "full"]
DETAILS: tuple[Detail, ...] = get_args(Detail)
"""The values ``detail`` may take (spec §8)."""


class Settings(Record):
    """A valid cap (tokens, spec §6), ceiling (canonical class name or ``None``, §7), the
    class undeclared sources are read as for the ceiling (``None``: they pass), and the
    reader's YAML options (``None``: the reader's default), and where the ledger index
    lives (``None``: no index; :mod:`~ledger_context.reader.index`).

    A record (:mod:`~ledger_context.model.values`).
    """

    __slots__ = ("cap_tokens", "ceiling", "index", "undeclared_class", "yaml")

    def __init__(
        self,
        cap_tokens: int = DEFAULT_CAP_TOKENS,
        ceiling: str | None = None,
        undeclared_class: str | None = None,
        yaml: YamlOptions | None = None,
        index: IndexOptions | None = None,
    ) -> None:
        self.cap_tokens = cap_tokens
        self.ceiling = ceiling
        self.undeclared_class = undeclared_class
        self.yaml = yaml
        self.index = index


DEFAULT_SETTINGS = Settings()


def check_cap_tokens(cap_tokens: Any) -> int:
    """Return ``cap_tokens`` if it is an int from 1 to :data:`MAX_CAP_TOKENS`; else raise
    :class:`InvalidArgumentError` (spec §6). The one check of the cap."""
    if (
        isinstance(cap_tokens, bool)
        or not isinstance(cap_tokens, int)
        or not 1 <= cap_tokens <= MAX_CAP_TOKENS
    ):
        raise InvalidCapError(
            f"invalid cap {cap_tokens!r}: the cap is a whole number of tokens from 1 to {MAX_CAP_TOKENS}"
        )
    return cap_tokens


def make_settings(
    cap_tokens: int = DEFAULT_CAP_TOKENS,
    max_data_class: str | None = None,
    undeclared_class: str | None = None,
    yaml: YamlOptions | None = None,
    index: IndexOptions | None = None,
) -> Settings:
    """The :class:`Settings` of a cap, a ``--max-data-class`` and an ``--undeclared-class``
    value, YAML options and the index's place; raises :class:`InvalidArgumentError` for a cap outside 1..MAX
    or an unknown class."""
    return Settings(
        check_cap_tokens(cap_tokens),
        parse_ceiling(max_data_class),
        parse_undeclared_class(undeclared_class),
        yaml,
        index,
    )


def check_detail(detail: Any) -> str:
    """``detail`` if it is one of :data:`DETAILS`; else :class:`InvalidArgumentError`."""
    if isinstance(detail, str) and detail in DETAILS:
        return detail
    shown = repr(detail)  # ASCII-safe for odd strings; cut so a huge value is not echoed
    if len(shown) > 40:
        shown = shown[:37] + "..."
    allowed = " and ".join(repr(value) for value in DETAILS)
    raise InvalidArgumentError(f"invalid detail {shown}: allowed values are {allowed}")


MAX_PATH_CHARS = 4096
"""The longest path a client may ask for (Linux's PATH_MAX): a longer one names no document,
and would only grow the audit log."""


def canonical_path(path: str) -> str:
    """``path`` as the build names it: a leading ``./`` (or several) names the same path.
    Raises :class:`~ledger_context.model.errors.InvalidArgumentError` for a path longer
    than :data:`MAX_PATH_CHARS`."""
    if len(path) > MAX_PATH_CHARS:
        raise InvalidArgumentError(
            f"path is {len(path)} characters long; a ledger path is at most {MAX_PATH_CHARS}, "
            "e.g. .ledger/decisions/0007-use-jwt.md"
        )
    start = 0
    while path.startswith("./", start):  # one slice at the end: linear in a hostile length
        start += 2
    return path[start:]

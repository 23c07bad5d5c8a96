"""The arguments of a build, validated once: the cap, the data-class ceiling, ``detail``.

The CLI and the MCP server both turn what they were given into one :class:`Settings`
with :func:`make_settings`; nothing downstream checks them again. Each check raises
:class:`~ledger_context.model.errors.InvalidArgumentError` naming the allowed values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model.classify import parse_ceiling, parse_undeclared_class
from ..model.errors import InvalidArgumentError
from .budget import DEFAULT_CAP_TOKENS, check_cap_tokens

DETAILS = ("brief", "full")
"""The values ``detail`` may take (spec §8)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """A valid cap (tokens, spec §6) and ceiling (canonical class name or ``None``, §7),
    and the class undeclared sources are read as for the ceiling (``None``: they pass)."""

    cap_tokens: int = DEFAULT_CAP_TOKENS
    ceiling: str | None = None
    undeclared_class: str | None = None


def make_settings(
    cap_tokens: int = DEFAULT_CAP_TOKENS,
    max_data_class: str | None = None,
    undeclared_class: str | None = None,
) -> Settings:
    """The :class:`Settings` of a cap, a ``--max-data-class`` and an ``--undeclared-class``
    value; raises :class:`InvalidArgumentError` for a cap outside 1..MAX or an unknown class."""
    return Settings(
        check_cap_tokens(cap_tokens), parse_ceiling(max_data_class), parse_undeclared_class(undeclared_class)
    )


def check_detail(detail: Any) -> str:
    """``detail`` if it is one of :data:`DETAILS`; else :class:`InvalidArgumentError`."""
    if isinstance(detail, str) and detail in DETAILS:
        return detail
    shown = repr(detail)  # ASCII-safe for odd strings; cut so a huge value is not echoed
    if len(shown) > 40:
        shown = shown[:37] + "..."
    raise InvalidArgumentError(f"invalid detail {shown}: allowed values are 'brief' and 'full'")

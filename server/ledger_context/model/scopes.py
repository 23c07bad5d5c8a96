"""OAuth scopes to a data-class ceiling: what one identity may be served (team mode).

A token scope ``ledger:<class>`` (``ledger:internal``) grants that class and every less
strict one. The ceiling of a request is the strictest class the token's ``ledger:``
scopes grant, never above the server's own ceiling; a token without a ``ledger:`` scope
gets the server's ceiling, and the strictest class when the server has none: a token is
always under a ceiling, so a document whose class is unknown (withheld by every ceiling)
never reaches a token that merely lacks a scope. A ``ledger:`` scope naming no known class fails closed: the
token is refused, rather than read as "no ceiling" or silently ignored; so is a scope
that is ``ledger:`` but for case, width or separator (``LEDGER:internal``,
``ledger_internal``), which would otherwise be ignored and get the server's ceiling.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from .classify import CLASSES, RANK, parse_ceiling
from .errors import InvalidArgumentError

SCOPE_PREFIX = "ledger:"
"""Scopes with this prefix name a data class (``ledger:internal``); others are ignored."""

SCOPES = tuple(SCOPE_PREFIX + name for name in CLASSES)
"""Every scope that sets a ceiling, least strict first (published as ``scopes_supported``)."""


def ceiling_of_scopes(scopes: Iterable[str], server_ceiling: str | None) -> str:
    """The ceiling for a token holding ``scopes`` on a server whose ceiling is
    ``server_ceiling`` (``None``: no ceiling); never ``None``.

    Raises :class:`InvalidArgumentError` naming the allowed scopes for a ``ledger:`` scope
    whose class is unknown (``ledger:secret``, ``ledger:``).
    """
    granted: str | None = None
    for scope in scopes:
        if not scope.startswith(SCOPE_PREFIX):
            if _near_miss(scope):
                raise InvalidArgumentError(
                    f"unknown scope {scope[:40]!r}: data-class scopes are spelt exactly {', '.join(SCOPES)}"
                )
            continue
        try:
            name = parse_ceiling(scope[len(SCOPE_PREFIX) :])
        except InvalidArgumentError:
            raise InvalidArgumentError(
                f"unknown scope {scope[:40]!r}; the data-class scopes are {', '.join(SCOPES)}"
            ) from None
        assert name is not None  # parse_ceiling returns None only for None
        if granted is None or RANK[name] > RANK[granted]:
            granted = name
    if granted is None:
        return CLASSES[-1] if server_ceiling is None else server_ceiling
    if server_ceiling is not None and RANK[granted] > RANK[server_ceiling]:
        return server_ceiling
    return granted


_SEPARATORS = frozenset(":_-./ ")


def _near_miss(scope: str) -> bool:
    """True if ``scope``, once case and width are folded and every character a scope cannot
    hold is dropped (RFC 6749 §3.3: printable ASCII but ``"`` and ``\\``), reads ``ledger``
    then a separator (or nothing), or names ``ledger`` and ends in a class name after a
    separator (``urn:ledger:public``, ``ledgers:public``): meant as a data-class scope, but
    misspelt."""
    folded = "".join(
        c for c in unicodedata.normalize("NFKC", scope[:64]).casefold() if "!" <= c <= "~" and c not in '"\\'
    )
    if folded.startswith("ledger") and (len(folded) == 6 or folded[6] in _SEPARATORS):
        return True
    return "ledger" in folded and any(
        folded.endswith(name) and folded[-len(name) - 1 : -len(name)] in _SEPARATORS for name in CLASSES
    )

"""A token's ``ledger:`` scopes set its ceiling, never above the server's."""

from __future__ import annotations

import pytest

from ledger_context.model.errors import InvalidArgumentError
from ledger_context.model.scopes import SCOPES, ceiling_of_scopes


def test_a_ledger_scope_sets_the_ceiling_below_no_server_ceiling() -> None:
    assert ceiling_of_scopes(["openid", "ledger:internal"], None) == "internal"


def test_a_scope_above_the_server_ceiling_gets_the_server_ceiling() -> None:
    assert ceiling_of_scopes(["ledger:restricted"], "internal") == "internal"


def test_a_scope_below_the_server_ceiling_lowers_it() -> None:
    assert ceiling_of_scopes(["ledger:public"], "confidential") == "public"


def test_no_ledger_scope_means_the_server_ceiling() -> None:
    assert ceiling_of_scopes(["openid", "profile"], "confidential") == "confidential"
    # A token is always under a ceiling: with none on the server, no scope reads as the
    # strictest class, so a document of unknown class (withheld by every ceiling) never
    # reaches a token that merely lacks a scope (a tester's finding: it saw more than
    # ledger:restricted did).
    assert ceiling_of_scopes([], None) == "restricted"
    assert ceiling_of_scopes(["openid", "profile"], None) == "restricted"


def test_several_ledger_scopes_grant_the_strictest_class_named() -> None:
    assert ceiling_of_scopes(["ledger:public", "ledger:confidential", "ledger:internal"], None) == (
        "confidential"
    )


def test_scope_class_names_ignore_case() -> None:
    assert ceiling_of_scopes(["ledger:Internal"], None) == "internal"


@pytest.mark.parametrize("scope", ["ledger:secret", "ledger:", "ledger: "])
def test_a_misspelt_class_scope_is_refused_naming_the_scopes(scope: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        ceiling_of_scopes([scope, "ledger:public"], None)
    assert "ledger:public, ledger:internal, ledger:confidential, ledger:restricted" in str(caught.value)


def test_the_published_scopes_are_one_per_class_least_strict_first() -> None:
    assert SCOPES == ("ledger:public", "ledger:internal", "ledger:confidential", "ledger:restricted")


# Regression: a bug found by trying to break the product (a misspelt prefix got the server's
# ceiling, confidential, instead of being refused).
@pytest.mark.parametrize(
    "scope",
    [
        "LEDGER:internal",
        "Ledger:internal",
        "ledger_internal",
        "ledger-internal",
        "ledger",
        "ｌｅｄｇｅｒ:internal",
    ],
)
def test_a_scope_that_is_ledger_but_for_case_width_or_separator_is_refused(scope: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        ceiling_of_scopes(["openid", scope], "confidential")
    assert "spelt exactly ledger:public, ledger:internal" in str(caught.value)


def test_other_scopes_beginning_with_the_same_letters_are_ignored() -> None:
    assert ceiling_of_scopes(["ledgers", "ledgerbook:read", "openid"], "internal") == "internal"


# Found by breaking the product: these were ignored, so the token got the server's ceiling.
@pytest.mark.parametrize(
    "scope",
    [
        "\u200bledger:public",
        "ledgers:public",
        "urn:ledger:public",
        "scope:ledger:public",
        "ledger:public\u00a0x",
    ],
)
def test_a_scope_naming_a_class_in_another_spelling_is_refused(scope: str) -> None:
    with pytest.raises(InvalidArgumentError):
        ceiling_of_scopes(["openid", scope], None)

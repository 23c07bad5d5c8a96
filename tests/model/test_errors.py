"""The exception tree of ``errors.py``: what each error is, and the exit code it ends a command with."""

from __future__ import annotations

import pytest

from ledger_context.model import errors
from ledger_context.model.errors import (
    AuditError,
    DocumentChangedError,
    DocumentError,
    DocumentNotFoundError,
    DocumentWithheldError,
    InvalidArgumentError,
    LedgerContextError,
    RevisionError,
    SpaceNotFoundError,
)


@pytest.mark.parametrize(
    ("error", "exit_code"),
    [
        (LedgerContextError, 2),
        (SpaceNotFoundError, 3),
        (InvalidArgumentError, 2),
        (DocumentError, 2),
        (DocumentNotFoundError, 2),
        (DocumentWithheldError, 2),
        (DocumentChangedError, 2),
        (RevisionError, 2),
        (AuditError, 2),
    ],
)
def test_each_error_ends_a_command_with_its_exit_code(
    error: type[LedgerContextError], exit_code: int
) -> None:
    assert error.exit_code == exit_code
    assert error("message").exit_code == exit_code


def test_the_tree_is_the_one_drawn_in_the_module_docstring() -> None:
    parents = {
        SpaceNotFoundError: LedgerContextError,
        InvalidArgumentError: LedgerContextError,
        DocumentError: LedgerContextError,
        DocumentNotFoundError: DocumentError,
        DocumentWithheldError: DocumentError,
        DocumentChangedError: DocumentError,
        RevisionError: LedgerContextError,
        AuditError: LedgerContextError,
    }
    for error, parent in parents.items():
        assert error.__bases__[0] is parent
        assert error.__name__ in (errors.__doc__ or "")


def test_an_invalid_argument_is_also_a_value_error() -> None:
    # Callers validating arguments may catch ValueError, as for any bad value.
    with pytest.raises(ValueError, match="allowed values: a, b"):
        raise InvalidArgumentError("allowed values: a, b")

"""The exceptions ledger-context raises, one small hierarchy.

    LedgerContextError            base class; ``exit_code`` for the CLI
    ├── SpaceNotFoundError        no directory holding ``.ledger`` (spec §1)
    ├── InvalidArgumentError      a bad ``detail``, cap or data-class ceiling
    │   ├── InvalidCapError           a cap outside 1..MAX tokens
    ├── DocumentError             a document that cannot be served from a build (spec §1)
    │   ├── DocumentNotFoundError     no accepted document at that path
    │   ├── DocumentWithheldError     withheld by the data-class ceiling (spec §7)
    │   └── DocumentChangedError      changed since the build read it
    ├── RevisionError             ``--rev``: no repository, an unknown revision, no ledger there
    └── AuditError                the audit log cannot be read, or holds no such pack

A broken *document* is never an exception: it is a :class:`~ledger_context.model.problems.Problem`
in the build's report and the rest of the pack is still built (spec §2).
"""

from __future__ import annotations


class LedgerContextError(Exception):
    """Base class of every error ledger-context raises on purpose.

    ``exit_code`` is what the command line exits with when this error ends a command.
    """

    exit_code = 2


class SpaceNotFoundError(LedgerContextError):
    """No space (a directory holding a ``.ledger`` directory) was found (spec §1).

    The message says where the search started and how to point the tool at a ledger.
    """

    exit_code = 3


class InvalidArgumentError(LedgerContextError, ValueError):
    """An argument outside its allowed values; the message names the allowed values."""

    exit_code = 2


class InvalidCapError(InvalidArgumentError):
    """A cap outside 1..MAX tokens (spec §6): the edge reports a bad flag as a usage error."""


class DocumentError(LedgerContextError):
    """A document's text cannot be served from a build (spec §1); the message says why."""


class DocumentNotFoundError(DocumentError):
    """No document the build accepted has that path."""


class DocumentWithheldError(DocumentError):
    """The document is withheld by the build's data-class ceiling (spec §7)."""


class DocumentChangedError(DocumentError):
    """The file is no longer what the build read and classified: build again and retry."""


class RevisionError(LedgerContextError):
    """A build from history is impossible: the space is not in a git repository, the
    revision is unknown, or it holds no ledger there. The message names which."""

    exit_code = 2


class AuditError(LedgerContextError):
    """The audit log cannot be read, or holds no such pack; the message says which."""

    exit_code = 2

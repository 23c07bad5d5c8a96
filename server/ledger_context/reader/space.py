"""Finding the space: the directory that holds ``.ledger`` (spec §1).

An explicit path (``--space`` or ``LEDGER_SPACE``) wins; otherwise the search goes
upward from the working directory, like git does for ``.git``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..model.errors import InvalidArgumentError, SpaceNotFoundError
from .paths import name_text, printable_path

LEDGER_DIR = ".ledger"
SPACE_ENV = "LEDGER_SPACE"

_HOW_TO_POINT = (
    "Point ledger-context at a ledger with --space PATH or the LEDGER_SPACE environment "
    "variable (PATH is the directory that contains .ledger/), or start it inside such a "
    "directory."
)


_EMPTY = "give the directory that contains .ledger/, or leave it out to search from the working directory"


def display_path(path: str | os.PathLike[str]) -> str:
    r"""``path`` as clean text for messages and readouts: bytes that are not valid UTF-8
    and control characters are written as ``\xNN`` / ``\uNNNN`` escapes."""
    return printable_path(name_text(os.fsencode(path)))


def holds_ledger(directory: Path) -> bool:
    """True if ``directory/.ledger`` is a directory (a symbolic link to one counts); a path
    the system refuses (a name too long, a folder that cannot be searched) holds none."""
    try:
        return (directory / LEDGER_DIR).is_dir()
    except OSError:
        return False


def find_space(explicit: str | os.PathLike[str] | None = None, start: Path | None = None) -> Path:
    """Return the space directory, absolute (spec §1).

    ``explicit`` is ``--space`` or ``LEDGER_SPACE``; a path to the ``.ledger`` folder
    itself is accepted and means its parent. Without it the search goes upward from
    ``start`` (default: the working directory) and takes the nearest directory holding
    ``.ledger``.

    Raises :class:`SpaceNotFoundError` naming where the search started, or the explicit
    path that holds no ledger.
    """
    if explicit is not None:
        if not os.fspath(explicit).strip():
            raise InvalidArgumentError(f"the space path is empty: {_EMPTY}")
        path = Path(os.path.abspath(os.path.expanduser(os.fspath(explicit))))
        if path.name == LEDGER_DIR and path.is_dir():
            return path.parent
        if holds_ledger(path):
            return path
        if not path.exists():
            reason = "does not exist"
        elif not path.is_dir():
            reason = "is not a directory"
        elif (path / LEDGER_DIR).exists():
            reason = "holds a .ledger that is not a directory"
        else:
            reason = "holds no .ledger directory"
        raise SpaceNotFoundError(f"The space {display_path(path)} {reason}. {_HOW_TO_POINT}")

    try:
        origin = Path(os.path.abspath(start if start is not None else Path.cwd()))
    except OSError:
        raise SpaceNotFoundError(
            f"The working directory no longer exists, so no .ledger can be found. {_HOW_TO_POINT}"
        ) from None
    for directory in (origin, *origin.parents):
        if holds_ledger(directory):
            return directory
    raise SpaceNotFoundError(
        f"No .ledger directory found in {display_path(origin)} or any directory above it. {_HOW_TO_POINT}"
    )


def space_from_environment(explicit: str | None, environ: Mapping[str, str]) -> str | None:
    """``explicit`` (``--space``) if given, else ``LEDGER_SPACE`` in ``environ`` (the edge
    passes ``os.environ``) if set, else ``None``.

    An empty value is refused with :class:`InvalidArgumentError`, not read as "search
    from the working directory": a blank in a client's configuration must not silently
    switch to another ledger.
    """
    if explicit is not None:
        if not explicit.strip():
            raise InvalidArgumentError(f"--space is empty: {_EMPTY}")
        return explicit
    value = environ.get(SPACE_ENV)
    if value is not None and not value.strip():
        raise InvalidArgumentError(f"{SPACE_ENV} is set but empty: {_EMPTY} (or unset it)")
    return value

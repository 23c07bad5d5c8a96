"""Fixture documents as data, and writing a space to disk.

A :class:`Doc` is one ledger document: its kind folder, its path below that folder, its
frontmatter as ``(key, value)`` pairs and its body. :func:`render_frontmatter` turns the
pairs into YAML text that loads the same under every YAML 1.1 loader; :class:`Space`
writes ``agents.md`` and the documents below ``<out>/<name>/.ledger``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import cast

Value = str | list[str] | list[tuple[str, str]]
"""A frontmatter value: a scalar, a flow sequence, or a nested block mapping."""

Pairs = list[tuple[str, Value]]
"""Frontmatter in order; key ``#`` writes a YAML comment line, key ``""`` a blank line."""

KIND_FOLDERS = ("harnesses", "evals", "findings", "decisions", "experiments")

_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_ .:/+@()'-]*$")
_YAML_WORDS = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"}


def scalar(value: str, flow: bool = False) -> str:
    """Render a string as a YAML scalar: plain when unambiguous, else JSON-quoted
    (a JSON string is a valid YAML double-quoted scalar)."""
    plain = (
        _PLAIN.match(value) is not None
        and ": " not in value
        and " #" not in value
        and not value.endswith((":", " "))
        and value.casefold() not in _YAML_WORDS
        and not (flow and ":" in value)
    )
    return value if plain else json.dumps(value, ensure_ascii=False)


def render_frontmatter(pairs: Pairs) -> str:
    """The frontmatter text of ``pairs``: a str value is a scalar, a list of str a flow
    sequence, a list of (key, str) tuples a nested block mapping."""
    lines = []
    for key, value in pairs:
        if key == "#":
            lines.append(f"# {value}")
        elif key == "":
            lines.append("")
        elif isinstance(value, str):
            lines.append(f"{key}: {scalar(value)}")
        elif value and isinstance(value[0], tuple):
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {scalar(v)}" for k, v in value)
        else:
            items = ", ".join(scalar(v, flow=True) for v in cast(list[str], value))
            lines.append(f"{key}: [{items}]")
    return "\n".join(lines)


class Doc:
    """One document: ``kind`` is its folder (harnesses … experiments), ``rel`` its path
    below that folder, e.g. ``2026-10/exp-081.md``."""

    def __init__(self, kind: str, rel: str, pairs: Pairs, body: str):
        self.kind = kind
        self.rel = rel
        self.pairs = pairs
        self.body = body

    @property
    def path(self) -> str:
        return f".ledger/{self.kind}/{self.rel}"

    def text(self) -> str:
        body = self.body.strip("\n")
        return f"---\n{render_frontmatter(self.pairs)}\n---\n\n{body}\n"


class Space:
    """A sample space: its folder name, its ``agents.md`` text (or none) and its documents."""

    def __init__(self, name: str, agents: str | None, docs: list[Doc]):
        self.name = name
        self.agents = agents
        self.docs = list(docs)

    def write(self, out: Path) -> Path:
        """Delete and rewrite ``out/<name>``; returns that folder."""
        base = out / self.name
        if base.exists():
            shutil.rmtree(base)
        ledger = base / ".ledger"
        for kind in KIND_FOLDERS:
            (ledger / kind).mkdir(parents=True, exist_ok=True)
        if self.agents is not None:
            _write(ledger / "agents.md", self.agents)
        seen = set()
        for d in self.docs:
            assert d.path not in seen, d.path
            seen.add(d.path)
            target = base / d.path
            target.parent.mkdir(parents=True, exist_ok=True)
            _write(target, d.text())
        return base


def _write(path: Path, text: str) -> None:
    # newline="\n": the same bytes on every platform.
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)

"""The naive reader: the pack as a user would first write it with python-frontmatter.

``frontmatter.load(path)`` (python-frontmatter, PyYAML's ``CSafeLoader``) over every
document found by ``Path.rglob("*.md")``, then a straightforward pack from those results:
filter by status, sort, render each candidate's metadata with ``yaml.safe_dump``, drop the
last findings/decisions/experiments while over 24,000 bytes. It follows the spirit of the
spec, not every rule (no verbatim frontmatter, no metrics list).

Run as a script (``python bench/naive.py SPACE``) it prints that pack: the whole-process
naive reader, compared with a whole ``ledger-context pack`` process.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

CAP_BYTES = 24_000
"""The default cap (6000 tokens of 4 bytes)."""


def naive_pack(space: Path) -> str:
    """The pack as a user would first write it with python-frontmatter (see the module doc)."""
    import frontmatter
    import yaml

    root = space / ".ledger"
    folders = {
        "harness": "harnesses",
        "eval": "evals",
        "finding": "findings",
        "decision": "decisions",
        "experiment": "experiments",
    }
    posts = {
        kind: [
            (path.relative_to(space).as_posix(), frontmatter.load(path))
            for path in root.joinpath(folder).rglob("*.md")
        ]
        for kind, folder in folders.items()
    }

    def with_status(kind: str, status: str) -> list[tuple[str, Any]]:
        return [item for item in posts[kind] if str(item[1].get("status", "")).strip().lower() == status]

    def by_slug(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        return sorted(items, key=lambda item: str(item[1].get("slug") or item[0]))

    def newest_first(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        return sorted(items, key=lambda item: str(item[1].get("updated_at") or ""), reverse=True)

    def block(label: str | None, path: str, post: Any) -> str:
        metadata = yaml.safe_dump(post.metadata, sort_keys=False, allow_unicode=True)
        head = f"## {label}: {post.get('title') or Path(path).stem} ({path})\n" if label else ""
        return f"{head}---\n{metadata}---\n"

    agents = (root / "agents.md").read_text(encoding="utf-8")
    fixed = [agents if agents.endswith("\n") else agents + "\n"]
    fixed += [block("Harness", path, post) for path, post in by_slug(with_status("harness", "active"))]
    fixed += [block("Eval", path, post) for path, post in by_slug(with_status("eval", "active"))]
    droppable = [
        block("Finding", path, post) for path, post in newest_first(with_status("finding", "current"))
    ]
    droppable += [
        block("Decision", path, post) for path, post in newest_first(with_status("decision", "accepted"))
    ]
    droppable += [block(None, path, post) for path, post in newest_first(posts["experiment"])[:10]]

    blocks = fixed + droppable
    sizes = [len(text.encode("utf-8")) + 1 for text in blocks]
    total = sum(sizes) - 1
    while total > CAP_BYTES and len(blocks) > len(fixed):
        blocks.pop()
        total -= sizes.pop()
    return "\n".join(blocks).encode("utf-8")[:CAP_BYTES].decode("utf-8", "ignore")


if __name__ == "__main__":
    sys.stdout.buffer.write(naive_pack(Path(sys.argv[1])).encode("utf-8"))

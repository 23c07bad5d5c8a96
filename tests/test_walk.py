"""The walk (spec §1): loops, files reached by several paths, depth, names as bytes.

Packs are hand-computed from the spec: one title line and the frontmatter per block.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from conftest import Files
from ledger_context.context import build_context
from ledger_context.walk import walk_ledger

DECISION = "---\ntitle: X\nstatus: accepted\nupdated_at: 2026-01-01\n---\nBody.\n"
FINDING = "---\ntitle: F\nstatus: current\nupdated_at: 2026-01-01\n---\nBody.\n"
D = ".ledger/decisions/"


def block(label: str, title: str, path: str, frontmatter: str) -> str:
    return f"## {label}: {title} ({path})\n---\n{frontmatter}\n---\n"


DECISION_FM = "title: X\nstatus: accepted\nupdated_at: 2026-01-01"


def problems(build: object) -> list[tuple[str, str, str]]:
    return [(p.path, p.severity, p.message) for p in build.ledger.problems]  # type: ignore[attr-defined]


LOOP = "symbolic link loop (a link to a folder that contains it); skipped (remove the link)"


def test_links_to_the_root_an_ancestor_and_the_folder_itself_are_loops(
    ledger: Callable[[Files], Path],
) -> None:
    space = ledger({"decisions/sub/x.md": DECISION})
    sub = space / ".ledger/decisions/sub"
    os.symlink("../..", sub / "to-root")
    os.symlink("..", sub / "to-decisions")
    os.symlink(".", sub / "to-itself")
    build = build_context(space)
    assert build.pack == block("Decision", "X", D + "sub/x.md", DECISION_FM)
    assert problems(build) == [
        (D + "sub/to-decisions", "warning", LOOP),
        (D + "sub/to-itself", "warning", LOOP),
        (D + "sub/to-root", "warning", LOOP),
    ]


def test_a_kind_folder_linked_to_the_root_is_a_loop(ledger: Callable[[Files], Path]) -> None:
    space = ledger({"decisions/x.md": DECISION})
    os.symlink(".", space / ".ledger/findings")
    build = build_context(space)
    assert build.pack == block("Decision", "X", D + "x.md", DECISION_FM)
    assert problems(build) == [(".ledger/findings", "warning", LOOP)]


def test_a_link_to_a_sibling_folder_is_no_loop_and_its_files_are_read_once(
    ledger: Callable[[Files], Path],
) -> None:
    space = ledger({"decisions/a/x.md": DECISION})
    os.makedirs(space / ".ledger/decisions/b")
    os.symlink("../a", space / ".ledger/decisions/b/also-a")
    os.symlink("../b", space / ".ledger/decisions/a/to-b")  # a -> b -> also-a = a: a loop there
    build = build_context(space)
    assert build.pack == block("Decision", "X", D + "a/x.md", DECISION_FM)
    assert problems(build) == [
        (D + "a/to-b/also-a", "warning", LOOP),
        (D + "b/also-a/to-b", "warning", LOOP),
        (D + "b/also-a/x.md", "info", f"same file as {D}a/x.md; read once, under that path"),
    ]


def test_a_link_that_sorts_before_its_target_does_not_name_the_document(
    ledger: Callable[[Files], Path],
) -> None:
    space = ledger({"decisions/b.md": DECISION})
    os.symlink("b.md", space / ".ledger/decisions/a.md")
    build = build_context(space)
    assert build.pack == block("Decision", "X", D + "b.md", DECISION_FM)
    assert problems(build) == [(D + "a.md", "info", f"same file as {D}b.md; read once, under that path")]


def test_a_folder_link_from_experiments_into_findings_leaves_findings_findings(
    ledger: Callable[[Files], Path],
) -> None:
    space = ledger({"findings/f.md": FINDING, "experiments/e.md": "---\nupdated_at: 2026-01-02\n---\n"})
    os.symlink("../findings", space / ".ledger/experiments/x")
    build = build_context(space)
    assert [(d.kind, d.path) for d in build.ledger.documents] == [
        ("experiment", ".ledger/experiments/e.md"),
        ("finding", ".ledger/findings/f.md"),
    ]
    assert build.pack == (
        block("Finding", "F", ".ledger/findings/f.md", "title: F\nstatus: current\nupdated_at: 2026-01-01")
        + "\n---\nupdated_at: 2026-01-02\n---\n"
    )
    assert problems(build) == [
        (
            ".ledger/experiments/x/f.md",
            "warning",
            "same file as .ledger/findings/f.md, read once there with the findings, not with the "
            "experiments (remove the link, or copy the file)",
        )
    ]


def test_hard_links_take_the_first_path_in_code_point_order(ledger: Callable[[Files], Path]) -> None:
    space = ledger({"findings/z.md": DECISION})
    os.makedirs(space / ".ledger/decisions")
    os.link(space / ".ledger/findings/z.md", space / ".ledger/decisions/y.md")
    os.link(space / ".ledger/findings/z.md", space / ".ledger/decisions/Y.md")  # "Y" < "y"
    build = build_context(space)
    assert build.pack == block("Decision", "X", D + "Y.md", DECISION_FM)
    assert [p[:2] for p in problems(build)] == [(D + "y.md", "info"), (".ledger/findings/z.md", "warning")]


def test_a_file_reached_only_through_links_takes_the_first_link_path(
    ledger: Callable[[Files], Path],
) -> None:
    space = ledger({"attic/x.md": DECISION, "decisions/.keep": ""})
    os.symlink("../attic/x.md", space / ".ledger/decisions/b.md")
    os.symlink("../attic/x.md", space / ".ledger/decisions/a.md")
    build = build_context(space)
    assert build.pack == block("Decision", "X", D + "a.md", DECISION_FM)
    assert [p[:2] for p in problems(build)] == [(".ledger/attic", "warning"), (D + "b.md", "info")]


def test_agents_md_linked_to_a_decision_is_the_decision(ledger: Callable[[Files], Path]) -> None:
    # .ledger/agents.md goes through a link, .ledger/decisions/x.md does not: the file's own
    # path wins, although "agents.md" sorts first; there is no agents.md block.
    space = ledger({"decisions/x.md": DECISION})
    os.symlink("decisions/x.md", space / ".ledger/agents.md")
    build = build_context(space)
    assert build.pack == block("Decision", "X", D + "x.md", DECISION_FM)
    assert problems(build) == [
        (
            ".ledger/agents.md",
            "warning",
            f"same file as {D}x.md, read once there with the decisions, not with the agents.md "
            "(remove the link, or copy the file)",
        )
    ]


def test_agents_md_hard_linked_to_a_decision_is_agents_md(ledger: Callable[[Files], Path]) -> None:
    # Both paths are link-free: the first in code-point order, .ledger/agents.md, wins.
    space = ledger({"decisions/x.md": DECISION})
    os.link(space / ".ledger/decisions/x.md", space / ".ledger/agents.md")
    build = build_context(space)
    assert build.pack == DECISION
    assert [p[:2] for p in problems(build)] == [(D + "x.md", "warning")]


def test_nfc_and_nfd_names_are_two_documents(ledger: Callable[[Files], Path]) -> None:
    nfc, nfd = "caf\u00e9.md", "cafe\u0301.md"
    space = ledger({f"decisions/{nfc}": DECISION, f"decisions/{nfd}": DECISION.replace("X", "Y")})
    assert [s.path for s in walk_ledger(space).files] == [D + nfd, D + nfc]


def test_a_2000_deep_chain_of_folders_is_walked_in_linear_time(tmp_path: Path) -> None:
    # Issue 10: a realpath per folder made this take minutes (188 s here before).
    folder = tmp_path / ".ledger" / "decisions"
    folder.mkdir(parents=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(2000):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("x.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write(DECISION)
    finally:
        os.close(fd)
    start = time.perf_counter()
    build = build_context(tmp_path)
    elapsed = time.perf_counter() - start
    assert [d.path for d in build.ledger.documents] == [D + "d/" * 2000 + "x.md"]
    assert elapsed < 10, f"{elapsed:.1f} s"

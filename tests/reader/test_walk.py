"""The walk (spec §1): loops, files reached by several paths, depth, names as bytes.

Packs are hand-computed from the spec: one title line and the frontmatter per block.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    ACTIVE_HARNESS,
    EV,
    Files,
    H,
    X,
    assert_skipped,
    check,
    deadline,
    doc,
    doc_paths,
    fence,
    fm,
    harness,
    pack_of,
    problems_at,
    titled,
    write_ledger,
)
from ledger_context import build_context
from ledger_context.reader import walk as walk_module
from ledger_context.reader.walk import walk_ledger

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
    # As deep as the file's absolute path allows (PATH_MAX, 4096 on Linux: past it a file
    # cannot be opened by its path and is skipped, with advice): 2000 unless the temporary
    # folder's own path is long.
    depth = min(2000, (4096 - len(os.fsencode(folder)) - len("/x.md") - 1) // 2)
    assert depth > 1900
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("x.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write(DECISION)
    finally:
        os.close(fd)
    try:
        start = time.perf_counter()
        build = build_context(tmp_path)
        elapsed = time.perf_counter() - start
        assert [d.path for d in build.ledger.documents] == [D + "d/" * depth + "x.md"]
        assert elapsed < 10, f"{elapsed:.1f} s"
    finally:
        _remove_chain(folder, depth)  # shutil.rmtree recurses per level: pytest's clean-up would fail


def _remove_chain(folder: Path, depth: int) -> None:
    """Remove ``depth`` nested ``d`` folders under ``folder`` and the one file at the bottom,
    deepest first, without recursion."""
    fds = [os.open(folder, os.O_RDONLY)]
    try:
        for _ in range(depth):
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        for name in os.listdir(fds[-1]):
            os.unlink(name, dir_fd=fds[-1])
        while len(fds) > 1:
            os.close(fds.pop())
            os.rmdir("d", dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


# --------------------------------------------------------------------------- file system: empty, missing and unreadable folders (hostile input)
def test_empty_ledger_gives_an_empty_pack_and_a_clean_check(tmp_path, capsys):
    space = write_ledger(tmp_path / "space", {})
    result = build_context(space)
    assert result.pack == ""
    assert result.ledger.problems == []
    assert check(space, capsys)[0] == 0


def test_missing_kind_folders_are_not_an_error(tmp_path, capsys):
    space = write_ledger(tmp_path / "space", {"experiments/e.md": fm("updated_at: 2026-01-01")})
    result = build_context(space)
    assert result.pack == fence("updated_at: 2026-01-01")
    assert result.ledger.problems == []
    assert check(space, capsys)[0] == 0


def test_empty_kind_folders_are_not_an_error(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    for kind in ("harnesses", "evals", "findings", "decisions", "experiments"):
        (space / ".ledger" / kind).mkdir()
    result = build_context(space)
    assert result.pack == ""
    assert result.ledger.problems == []


def test_kind_folder_that_is_a_file_is_reported(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses": ACTIVE_HARNESS, "evals/e.md": fm("status: active")}
    )
    result = build_context(space)
    assert result.pack == titled("Eval", "e", EV + "e.md", "status: active")
    assert problems_at(result, ".ledger/harnesses")


def test_agents_md_that_is_a_folder_is_reported(tmp_path):
    space = write_ledger(tmp_path / "space", {"agents.md/inner.md": "hello\n"})
    result = build_context(space)
    assert result.pack == ""
    assert problems_at(result, ".ledger/agents.md")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_file_is_skipped_and_reported(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/h.md": ACTIVE_HARNESS, "harnesses/ok.md": ACTIVE_HARNESS}
    )
    target = space / ".ledger" / "harnesses" / "h.md"
    target.chmod(0)
    try:
        result = build_context(space)
    finally:
        target.chmod(0o644)
    assert_skipped(result, H + "h.md")
    assert result.pack == harness("ok", H + "ok.md", "status: active")


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists folders whatever their permissions")
def test_unreadable_folder_is_reported(tmp_path):
    space = write_ledger(
        tmp_path / "space", {"harnesses/sub/h.md": ACTIVE_HARNESS, "harnesses/ok.md": ACTIVE_HARNESS}
    )
    folder = space / ".ledger" / "harnesses" / "sub"
    folder.chmod(0)
    try:
        result = build_context(space)
    finally:
        folder.chmod(0o755)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert problems_at(result, H + "sub")


# --------------------------------------------------------------------------- file system: symbolic links (hostile input)


def test_link_to_a_file_elsewhere_inside_the_ledger_is_followed(tmp_path):
    space = write_ledger(tmp_path / "space", {"shared/h.md": ACTIVE_HARNESS})
    os.makedirs(space / ".ledger" / "harnesses")
    os.symlink("../shared/h.md", space / ".ledger" / "harnesses" / "h.md")
    result = build_context(space)
    assert result.pack == harness("h", H + "h.md", "status: active")
    # `shared` is an unexpected entry at the top of .ledger: a warning, nothing else.
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(".ledger/shared", "warning")]


def test_file_reached_by_two_paths_is_read_once_under_its_own_path(tmp_path):
    # Spec §1 (updated): the link-free path wins, though the link's sorts first.
    text = fm("status: accepted\nupdated_at: 2026-01-01")
    space = write_ledger(tmp_path / "space", {"decisions/b.md": text})
    os.symlink("b.md", space / ".ledger" / "decisions" / "a.md")
    result = build_context(space)
    assert doc_paths(result) == [D + "b.md"]
    assert result.pack == titled("Decision", "b", D + "b.md", "status: accepted\nupdated_at: 2026-01-01")
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(D + "a.md", "info")]


def test_file_linked_into_another_kind_keeps_the_kind_of_its_own_path(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm("status: active")})
    os.makedirs(space / ".ledger" / "decisions")
    os.symlink("../harnesses/h.md", space / ".ledger" / "decisions" / "d.md")
    result = build_context(space)
    # ".ledger/decisions/d.md" sorts first, but goes through a link: read once, as a harness.
    assert doc_paths(result) == [H + "h.md"]
    assert result.pack == harness("h", H + "h.md", "status: active")
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(D + "d.md", "warning")]


def test_agents_md_linked_to_a_harness_is_read_once_as_the_harness(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": ACTIVE_HARNESS})
    os.symlink("harnesses/h.md", space / ".ledger" / "agents.md")
    result = build_context(space)
    assert doc_paths(result) == [H + "h.md"]
    assert result.pack == harness("h", H + "h.md", "status: active")


def test_linked_folder_inside_is_followed_and_its_files_read_once(tmp_path):
    space = write_ledger(tmp_path / "space", {"experiments/real/e.md": fm("updated_at: 2026-01-01")})
    os.symlink("real", space / ".ledger" / "experiments" / "alias", target_is_directory=True)
    result = build_context(space)
    assert doc_paths(result) == [X + "real/e.md"]
    assert result.pack == fence("updated_at: 2026-01-01")


def test_link_that_leaves_and_reenters_the_ledger_is_followed(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/real.md": ACTIVE_HARNESS})
    os.symlink("../../.ledger/harnesses/real.md", space / ".ledger" / "harnesses" / "zlink.md")
    result = build_context(space)
    assert doc_paths(result) == [H + "real.md"]
    assert result.pack == harness("real", H + "real.md", "status: active")


def test_link_to_a_file_outside_the_ledger_is_skipped_as_an_error(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(ACTIVE_HARNESS)
    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    os.symlink(outside, space / ".ledger" / "harnesses" / "out.md")
    result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert_skipped(result, H + "out.md")


def test_relative_link_climbing_out_of_the_ledger_is_skipped(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    (space / "secret.md").write_text(ACTIVE_HARNESS)
    os.makedirs(space / ".ledger" / "harnesses")
    os.symlink("../../secret.md", space / ".ledger" / "harnesses" / "up.md")
    result = build_context(space)
    assert result.pack == ""
    assert_skipped(result, H + "up.md")


def test_link_into_a_sibling_whose_name_extends_the_ledger_root_is_outside(tmp_path):
    space = write_ledger(tmp_path / "space", {})
    (space / ".ledger2").mkdir()
    (space / ".ledger2" / "h.md").write_text(ACTIVE_HARNESS)
    os.makedirs(space / ".ledger" / "harnesses")
    os.symlink("../../.ledger2/h.md", space / ".ledger" / "harnesses" / "h.md")
    result = build_context(space)
    assert result.pack == ""
    assert_skipped(result, H + "h.md")


def test_agents_md_linked_outside_is_skipped(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("SECRET CONTENT\n")
    space = write_ledger(tmp_path / "space", {})
    os.symlink(outside, space / ".ledger" / "agents.md")
    result = build_context(space)
    assert result.pack == ""
    assert_skipped(result, ".ledger/agents.md")


def test_linked_folder_outside_the_ledger_is_skipped_and_reported(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "e.md").write_text(fm("updated_at: 2026-01-01"))
    space = write_ledger(tmp_path / "space", {"experiments/in.md": fm("updated_at: 2025-01-01")})
    os.symlink(outside, space / ".ledger" / "experiments" / "ext", target_is_directory=True)
    result = build_context(space)
    assert result.pack == fence("updated_at: 2025-01-01")
    assert problems_at(result, X + "ext")


def test_kind_folder_linked_outside_is_skipped_and_reported(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "e.md").write_text(fm("updated_at: 2026-01-01"))
    space = write_ledger(tmp_path / "space", {})
    os.symlink(outside, space / ".ledger" / "experiments", target_is_directory=True)
    result = build_context(space)
    assert result.pack == ""
    assert problems_at(result, ".ledger/experiments")


def test_dangling_link_is_skipped_and_reported(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    os.symlink("nowhere.md", space / ".ledger" / "harnesses" / "gone.md")
    result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert_skipped(result, H + "gone.md")


def test_link_to_itself_is_reported_without_a_hang(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    os.symlink("self.md", space / ".ledger" / "harnesses" / "self.md")
    with deadline(10):
        result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert problems_at(result, H + "self.md")


def test_two_links_pointing_at_each_other_are_reported_without_a_hang(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    folder = space / ".ledger" / "harnesses"
    os.symlink("b.md", folder / "a.md")
    os.symlink("a.md", folder / "b.md")
    with deadline(10):
        result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert problems_at(result, H + "a.md") and problems_at(result, H + "b.md")


def test_folder_link_loop_is_detected_and_each_file_read_once(tmp_path):
    space = write_ledger(tmp_path / "space", {"experiments/e.md": fm("updated_at: 2026-01-01")})
    os.symlink(".", space / ".ledger" / "experiments" / "loop", target_is_directory=True)
    os.makedirs(space / ".ledger" / "experiments" / "sub")
    os.symlink("..", space / ".ledger" / "experiments" / "sub" / "up", target_is_directory=True)
    with deadline(10):
        result = build_context(space)
    assert doc_paths(result) == [X + "e.md"]
    assert result.pack == fence("updated_at: 2026-01-01")
    assert problems_at(result, X + "loop")


def test_folder_link_to_the_ledger_root_is_a_loop_detected(tmp_path):
    space = write_ledger(tmp_path / "space", {"experiments/e.md": fm("updated_at: 2026-01-01")})
    os.symlink("..", space / ".ledger" / "experiments" / "root", target_is_directory=True)
    with deadline(10):
        result = build_context(space)
    assert result.pack == fence("updated_at: 2026-01-01")


def test_links_that_multiply_paths_finish_and_read_each_file_once(tmp_path):
    # d0/{a,b} -> d1, d1/{a,b} -> d2, ...: 2**12 paths to one file, no loop.
    space = write_ledger(tmp_path / "space", {"store/d12/e.md": fm("updated_at: 2026-01-01")})
    store = space / ".ledger" / "store"
    for level in range(12):
        (store / f"d{level}").mkdir(exist_ok=True)
        for name in ("a", "b"):
            os.symlink(f"../d{level + 1}", store / f"d{level}" / name, target_is_directory=True)
    os.makedirs(space / ".ledger" / "experiments")
    os.symlink("../store/d0", space / ".ledger" / "experiments" / "x", target_is_directory=True)
    with deadline(60):
        result = build_context(space)
    assert doc_paths(result) == [X + "x/" + "a/" * 12 + "e.md"]
    assert result.pack == fence("updated_at: 2026-01-01")


# --------------------------------------------------------------------------- file system: names (hostile input)


@pytest.mark.parametrize("name", ["h.MD", "h.Md", "h.markdown", "h.MARKDOWN", "h.mD"])
def test_misnamed_markdown_file_is_a_warning_and_ignored(tmp_path, name, capsys):
    space = write_ledger(tmp_path / "space", {"harnesses/" + name: ACTIVE_HARNESS})
    result = build_context(space)
    assert result.pack == ""
    assert result.ledger.documents == []
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(H + name, "warning")]
    assert check(space, capsys)[0] == 1


@pytest.mark.parametrize(
    "name", ["decision", "Decisions", "experiment", "README.md", "Agents.md", "AGENTS.md", "notes"]
)
def test_unexpected_top_level_entry_is_a_warning_and_ignored(tmp_path, name):
    space = write_ledger(tmp_path / "space", {f"{name}/x.md" if "." not in name else name: ACTIVE_HARNESS})
    result = build_context(space)
    assert result.pack == ""
    assert [(p.path, p.severity) for p in result.ledger.problems] == [(f".ledger/{name}", "warning")]


@pytest.mark.parametrize("name", ["image.png", "notes.txt", "h.md.bak", "h.mdx", "h.md~", "Makefile"])
def test_other_files_below_a_kind_folder_are_ignored_quietly(tmp_path, name):
    space = write_ledger(tmp_path / "space", {"harnesses/" + name: ACTIVE_HARNESS})
    result = build_context(space)
    assert result.pack == ""
    assert result.ledger.problems == []


def test_hidden_files_and_folders_are_ignored_quietly(tmp_path, capsys):
    space = write_ledger(
        tmp_path / "space",
        {
            ".git/config": "x",
            ".DS_Store": b"\x00\x01",
            ".agents.md": "hidden agents\n",
            ".harnesses/h.md": ACTIVE_HARNESS,
            "harnesses/.draft.md": ACTIVE_HARNESS,
            "harnesses/.archive/old.md": ACTIVE_HARNESS,
            "harnesses/.md": ACTIVE_HARNESS,
            b"harnesses/.bad\xff.md": ACTIVE_HARNESS,
            "harnesses/.x.MD": "x",
            "harnesses/ok.md": ACTIVE_HARNESS,
        },
    )
    result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert result.ledger.problems == []
    assert check(space, capsys)[0] == 0


def test_documents_in_subfolders_are_read(tmp_path):
    space = write_ledger(
        tmp_path / "space",
        {"harnesses/a/b/c/deep.md": ACTIVE_HARNESS, "harnesses/x.md/inner.md": ACTIVE_HARNESS},
    )
    result = build_context(space)
    assert result.pack == pack_of(
        harness("deep", H + "a/b/c/deep.md", "status: active"),
        harness("inner", H + "x.md/inner.md", "status: active"),
    )


# --------------------------------------------------------------------------- file system: many files (hostile input)


def test_twenty_thousand_experiments_finish_quickly_and_only_ten_are_packed(tmp_path):
    base = datetime(2020, 1, 1, tzinfo=UTC)
    files = {}
    for i in range(20_000):
        stamp = (base + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        files[f"experiments/e{i:05}.md"] = f"---\nupdated_at: {stamp}\nstatus: done\n---\n"
    space = write_ledger(tmp_path / "space", files)
    started = time.monotonic()
    with deadline(60):
        result = build_context(space)
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"{elapsed:.1f} s"
    assert len(result.ledger.documents) == 20_000
    blocks = result.budgeted.blocks
    assert [b.block.document.path for b in blocks] == [X + f"e{i:05}.md" for i in range(19_999, 19_989, -1)]
    assert result.pack == pack_of(*(b.block.text for b in blocks))
    assert result.ledger.problems == []


# Regression: a bug found by trying to break the product.
def test_a_link_that_moves_a_document_to_another_kind_is_a_warning(tmp_path: Path) -> None:
    space = write_ledger(tmp_path / "s", {"findings/f1.md": doc(status="current", updated_at="2026-01-01")})
    (space / ".ledger/decisions").mkdir()
    os.symlink("../findings/f1.md", space / ".ledger/decisions/see-also.md")
    build = build_context(space)
    assert [d.kind for d in build.ledger.documents] == ["finding"]  # spec §1: the link-free path wins
    (problem,) = build.ledger.problems
    assert problem.severity == "warning" and problem.path == ".ledger/decisions/see-also.md"
    assert "read once there with the findings, not with the decisions" in problem.message


# Regression: a bug found by trying to break the product.
def test_a_link_that_vanishes_during_the_walk_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    space = write_ledger(tmp_path / "s", {"harnesses/h.md": doc(status="active")})
    os.symlink("h.md", space / ".ledger/harnesses/link.md")
    real_realpath = os.path.realpath

    def vanishing(path: Any, **kwargs: Any) -> str:
        if str(path).endswith("link.md"):
            raise FileNotFoundError(2, "No such file or directory")
        return real_realpath(path, **kwargs)

    monkeypatch.setattr(walk_module.os.path, "realpath", vanishing)
    build = build_context(space)
    assert build.pack.startswith("## Harness: h (.ledger/harnesses/h.md)")
    assert [p.path for p in build.ledger.problems] == [".ledger/harnesses/link.md"]


# Regression: a bug found by trying to break the product.
def test_folders_nested_600_deep_are_walked_without_recursion(tmp_path: Path) -> None:
    space = write_ledger(tmp_path / "s", {})
    folder = space / ".ledger" / "experiments"
    os.makedirs(folder)
    for _ in range(600):
        folder = folder / "d"
        try:
            folder.mkdir()
        except OSError:  # the path grew past the file system's limit: deep enough
            break
    (folder / "x.md").write_text("---\nupdated_at: 2026-01-01\n---\n", encoding="utf-8")
    build = build_context(space)
    assert build.pack == "---\nupdated_at: 2026-01-01\n---\n"


# Regression: a bug found by trying to break the product.
def test_links_that_multiply_paths_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    space = write_ledger(tmp_path / "s", {"experiments/x.md": "---\nupdated_at: 2026-01-01\n---\n"})
    root = space / ".ledger" / "experiments"
    for level in range(12):  # each level links twice to the next: 4096 paths
        (root / f"l{level}").mkdir()
        for name in ("a", "b"):
            os.symlink(f"../l{level + 1}", root / f"l{level}" / name)
    (root / "l12").mkdir()
    monkeypatch.setattr(walk_module, "MAX_DIRECTORY_VISITS", 300)
    build = build_context(space)
    assert build.pack == "---\nupdated_at: 2026-01-01\n---\n"
    assert any(
        "more than 300 folders below .ledger/experiments/" in p.message and p.severity == "error"
        for p in build.ledger.problems
    )


# Regression: a bug found by trying to break the product.
def test_many_folders_under_one_kind_do_not_starve_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    space = write_ledger(
        tmp_path / "s",
        {
            "harnesses/h.md": doc(status="active"),
            "findings/f.md": doc(status="current", updated_at="2026-01-01"),
        },
    )
    for index in range(60):
        (space / ".ledger/experiments/runs" / f"{index:02}").mkdir(parents=True)
    monkeypatch.setattr(walk_module, "MAX_DIRECTORY_VISITS", 50)
    build = build_context(space)
    assert [d.kind for d in build.ledger.documents] == ["finding", "harness"]
    assert "## Harness: h" in build.pack and "## Finding: f" in build.pack


# Regression (an independent implementation's finding): the kind folder itself counted as
# one of the folders below it, so exactly MAX_DIRECTORY_VISITS subfolders lost the last one.
def test_exactly_the_folder_limit_below_a_kind_folder_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walk_module, "MAX_DIRECTORY_VISITS", 20)
    files = {f"experiments/d{n:02}/e.md": doc(updated_at=f"2026-01-{n + 1:02}") for n in range(20)}
    build = build_context(write_ledger(tmp_path / "at", files))
    assert len(build.ledger.documents) == 20 and not build.ledger.problems
    files["experiments/d20/e.md"] = doc(updated_at="2026-01-21")
    over = build_context(write_ledger(tmp_path / "over", files))
    assert len(over.ledger.documents) == 20
    assert [p.message.split(";")[0] for p in over.ledger.problems] == [
        "more than 20 folders below .ledger/experiments/ (or links that multiply paths)"
    ]


def test_a_walk_keeps_its_files_as_met_and_compares_by_them(ledger: Callable[[Files], Path]) -> None:
    """``found`` holds the files in the order the walk met them (before sorting), and walks
    compare by it: met in that order, a later walk's files lie in memory in the order it
    compares them (3x quicker at 100,000 files than in path order)."""
    space = ledger(
        {f"findings/f{n:02d}.md": "---\nstatus: open\n---\n" for n in range(30)} | {"agents.md": "# A\n"}
    )
    walk = walk_ledger(space)
    assert walk.found is not walk.files and sorted(walk.found, key=lambda f: f.path) == walk.files
    assert walk == walk_ledger(space)
    assert walk != walk._replace(found=walk.found[::-1])  # the same files met otherwise: a new walk
    assert walk != walk._replace(found=walk.found[:-1])
    (space / ".ledger/findings/f00.md").write_text("---\nstatus: closed\n---\n", encoding="utf-8")
    assert walk != walk_ledger(space)
    linked = ledger({"findings/a.md": "---\nstatus: open\n---\n"})
    (linked / ".ledger/findings/b.md").symlink_to("a.md")
    twice = walk_ledger(linked)
    assert [f.path for f in twice.files] == [".ledger/findings/a.md"] and len(twice.found) == 2

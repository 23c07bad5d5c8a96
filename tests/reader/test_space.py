"""Spec §1: finding the space — explicit path first, else upward from the working directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import ACTIVE_HARNESS, H, doc_paths, harness, write_ledger
from ledger_context import SpaceNotFoundError, build_context, find_space
from ledger_context.cli import main


def test_search_goes_upward_and_takes_the_nearest_space(tmp_path: Path) -> None:
    (tmp_path / ".ledger").mkdir()
    (tmp_path / "a" / ".ledger").mkdir(parents=True)
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert find_space(start=deep) == tmp_path / "a"
    assert find_space(start=tmp_path) == tmp_path


def test_explicit_space_wins_over_the_search(tmp_path: Path) -> None:
    (tmp_path / "one" / ".ledger").mkdir(parents=True)
    (tmp_path / "two" / ".ledger").mkdir(parents=True)
    assert find_space(tmp_path / "two", start=tmp_path / "one") == tmp_path / "two"


def test_explicit_path_to_the_ledger_folder_means_its_space(tmp_path: Path) -> None:
    (tmp_path / ".ledger").mkdir()
    assert find_space(tmp_path / ".ledger") == tmp_path


def test_no_space_names_where_the_search_started(tmp_path: Path) -> None:
    with pytest.raises(SpaceNotFoundError) as caught:
        find_space(start=tmp_path)
    assert str(tmp_path) in str(caught.value)
    assert "--space" in str(caught.value) and "LEDGER_SPACE" in str(caught.value)


def test_a_ledger_that_is_a_file_is_not_a_space(tmp_path: Path) -> None:
    (tmp_path / ".ledger").write_text("not a folder", encoding="utf-8")
    with pytest.raises(SpaceNotFoundError, match="not a directory"):
        find_space(tmp_path)
    with pytest.raises(SpaceNotFoundError):
        find_space(start=tmp_path)


def test_explicit_space_without_a_ledger_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SpaceNotFoundError, match=r"holds no \.ledger"):
        find_space(tmp_path)
    with pytest.raises(SpaceNotFoundError, match="does not exist"):
        find_space(tmp_path / "missing")


def test_ledger_root_may_be_a_symbolic_link(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    (real / "agents.md").write_text("hi", encoding="utf-8")
    space = tmp_path / "space"
    space.mkdir()
    (space / ".ledger").symlink_to(real)
    from ledger_context import build_context

    assert find_space(space) == space
    assert build_context(space).pack == "hi\n"


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_space_option_is_refused_with_exit_2(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 11: `--space ""` silently meant "no --space" and searched from the working directory.
    from ledger_context.cli import main

    monkeypatch.delenv("LEDGER_SPACE", raising=False)
    assert main(["pack", "--space", value]) == 2
    monkeypatch.setenv("LEDGER_SPACE", value)
    assert main(["pack"]) == 2
    assert main(["check"]) == 2


def test_an_empty_space_names_the_option_and_the_way_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from ledger_context.model.errors import InvalidArgumentError
    from ledger_context.reader.space import space_from_environment

    monkeypatch.setenv("LEDGER_SPACE", "")
    with pytest.raises(InvalidArgumentError, match="LEDGER_SPACE is set but empty: give the directory"):
        space_from_environment(None, os.environ)
    with pytest.raises(InvalidArgumentError, match="--space is empty"):
        space_from_environment("", os.environ)


# --------------------------------------------------------------------------- file system: the space (hostile input)


def test_find_space_names_an_explicit_path_without_a_ledger(tmp_path):
    with pytest.raises(SpaceNotFoundError) as info:
        find_space(tmp_path)
    assert str(tmp_path) in str(info.value)


def test_upward_search_passes_over_a_ledger_that_is_a_file(tmp_path):
    outer = write_ledger(tmp_path / "outer", {})
    inner = outer / "inner"
    inner.mkdir()
    (inner / ".ledger").write_text("not a folder")
    assert find_space(start=inner) == outer


def test_build_context_on_a_directory_without_a_ledger_is_a_clear_error(tmp_path):
    # build_context does not search: the missing ledger is an error problem, not a raise.
    result = build_context(tmp_path)
    assert result.pack == ""
    assert [(p.path, p.severity, p.message) for p in result.ledger.problems] == [
        (".ledger", "error", "cannot list the ledger (No such file or directory)")
    ]


def test_build_context_on_a_ledger_that_is_a_file_is_a_clear_error(tmp_path):
    (tmp_path / ".ledger").write_text("not a folder")
    result = build_context(tmp_path)
    assert result.pack == ""
    assert [(p.path, p.severity, p.message) for p in result.ledger.problems] == [
        (".ledger", "error", "cannot list the ledger (Not a directory)")
    ]


def test_check_on_a_directory_without_a_ledger_fails_and_names_it(tmp_path, capsys):
    status = main(["check", "--space", str(tmp_path)])
    captured = capsys.readouterr()
    assert status not in (0, 1)
    assert str(tmp_path) in captured.err


def test_ledger_may_be_a_symbolic_link(tmp_path):
    real = tmp_path / "elsewhere"
    write_ledger(tmp_path / "elsewhere", {"harnesses/h.md": ACTIVE_HARNESS})
    space = tmp_path / "space"
    space.mkdir()
    (space / ".ledger").symlink_to(real / ".ledger", target_is_directory=True)
    # A link inside pointing within the (real) root is followed.
    os.symlink("h.md", real / ".ledger" / "harnesses" / "l.md")
    result = build_context(space)
    assert doc_paths(result) == [H + "h.md"]
    assert result.pack == harness("h", H + "h.md", "status: active")


# Regression: a bug found by trying to break the product.
def test_a_deleted_working_directory_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(SpaceNotFoundError, match="working directory no longer exists"):
        find_space()

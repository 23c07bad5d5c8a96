"""Spec §1: finding the space — explicit path first, else upward from the working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger_context import SpaceNotFoundError, find_space


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
    from ledger_context.errors import InvalidArgumentError
    from ledger_context.space import space_from_environment

    monkeypatch.setenv("LEDGER_SPACE", "")
    with pytest.raises(InvalidArgumentError, match="LEDGER_SPACE is set but empty: give the directory"):
        space_from_environment(None)
    with pytest.raises(InvalidArgumentError, match="--space is empty"):
        space_from_environment("")

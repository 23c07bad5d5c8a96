"""Bugs found by trying to break the product, each pinned with its correct outcome."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import ListRootsResult, Root

from conftest import FIXTURES, doc, write_ledger
from ledger_context import SpaceNotFoundError, build_context, find_space
from ledger_context import walk as walk_module
from ledger_context.cli import main
from ledger_context.explain import explain
from ledger_context.mcp_server import create_server


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ledger_context", *args], capture_output=True, cwd=cwd, check=False, timeout=60
    )


def test_a_space_path_that_is_not_utf8_is_escaped_everywhere(tmp_path: Path) -> None:
    space = Path(os.fsdecode(os.fsencode(tmp_path) + b"/sp\xffce"))
    write_ledger(space, {"agents.md": "hi\n"})
    assert explain(build_context(space)).space.endswith("/sp\\xffce")
    for args in (["explain"], ["explain", "--json"], ["check"], ["check", "--json"]):
        result = _run(*args, "--space", os.fsdecode(os.fsencode(space)))
        assert result.returncode == 0, result.stderr
        assert b"Traceback" not in result.stderr and b"\\xffce" in result.stdout


@pytest.mark.anyio
async def test_the_server_keeps_answering_when_the_space_path_is_not_utf8(tmp_path: Path) -> None:
    missing = os.fsdecode(os.fsencode(tmp_path) + b"/gone\xe9")
    write_ledger(Path(missing), {"agents.md": "hi\n"})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_context", "serve", "--space", missing]
    )
    async with Client(params, mode="legacy") as client:
        shutil.rmtree(missing)  # gone after the start: every call says so, cleanly
        result = await client.call_tool("get_context", {})
        assert result.is_error and "gone\\xe9" in result.content[0].text  # type: ignore[union-attr]
        assert (await client.call_tool("explain_budget", {})).is_error
        assert len((await client.list_tools()).tools) == 3  # still answering


def test_serve_refuses_a_missing_space_whose_path_is_not_utf8(tmp_path: Path) -> None:
    missing = os.fsdecode(os.fsencode(tmp_path) + b"/gone\xe9")
    result = subprocess.run(
        [sys.executable, "-m", "ledger_context", "serve", "--space", missing],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2 and result.stdout == b""
    assert b"gone\\xe9 does not exist" in result.stderr


def test_an_empty_ceiling_is_refused_not_read_as_no_ceiling(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = str(FIXTURES / "demo")
    assert main(["pack", "--space", demo, "--max-data-class", ""]) == 2
    assert main(["pack", "--space", demo, "--max-data-class", "  "]) == 2
    monkeypatch.setenv("LEDGER_MAX_DATA_CLASS", "")
    assert main(["pack", "--space", demo]) == 2
    assert "allowed values: public, internal, confidential, restricted" in capsys.readouterr().err


@pytest.mark.parametrize("cap", ["٥٠", "1_000", "99999999999999999", "+5", " "])
def test_caps_are_ascii_digits_within_bounds(cap: str) -> None:
    with pytest.raises(SystemExit):
        main(["pack", "--space", str(FIXTURES / "demo"), "--cap-tokens", cap])


def test_a_link_that_moves_a_document_to_another_kind_is_a_warning(tmp_path: Path) -> None:
    space = write_ledger(tmp_path / "s", {"findings/f1.md": doc(status="current", updated_at="2026-01-01")})
    (space / ".ledger/decisions").mkdir()
    os.symlink("../findings/f1.md", space / ".ledger/decisions/see-also.md")
    build = build_context(space)
    assert [d.kind for d in build.ledger.documents] == ["finding"]  # spec §1: the link-free path wins
    (problem,) = build.ledger.problems
    assert problem.severity == "warning" and problem.path == ".ledger/decisions/see-also.md"
    assert "read once there with the findings, not with the decisions" in problem.message


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


def test_a_deleted_working_directory_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(SpaceNotFoundError, match="working directory no longer exists"):
        find_space()


@pytest.mark.anyio
async def test_resources_and_prompt_follow_the_space_the_roots_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = write_ledger(tmp_path / "cwd", {"agents.md": "the working directory's ledger\n"})
    chosen = write_ledger(tmp_path / "root", {"agents.md": "the root's ledger\n"})
    monkeypatch.chdir(here)

    async def roots(_: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=chosen.as_uri(), name="project")])  # type: ignore[arg-type]

    async with Client(create_server(), mode="legacy", list_roots_callback=roots) as client:
        assert (await client.call_tool("get_context", {})).content[0].text == "the root's ledger\n"  # type: ignore[union-attr]
        pack = await client.read_resource("ledger://pack")
        assert pack.contents[0].text == "the root's ledger\n"  # type: ignore[union-attr]
        prompt = await client.get_prompt("start-task", {"task": "go\ud800"})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "the root's ledger" in text and text.startswith("Task: go\ufffd\n")


@pytest.mark.anyio
async def test_instructions_state_the_cap_in_force_and_bad_details_are_not_echoed_whole() -> None:
    async with Client(create_server(FIXTURES / "demo", cap_tokens=1000), mode="legacy") as client:
        assert "capped at 1000 tokens" in (client.instructions or "")
        result = await client.call_tool("get_context", {"detail": "x" * 100_000})
        assert result.is_error and len(result.content[0].text) < 200  # type: ignore[union-attr]


def test_pack_with_stdout_closed_says_so() -> None:
    command = 'exec "$0" -m ledger_context pack --space "$1" >&-'
    result = subprocess.run(
        ["sh", "-c", command, sys.executable, str(FIXTURES / "demo")],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 2
    assert b"Error: standard output is closed" in result.stderr and b"Traceback" not in result.stderr


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


def test_documents_the_walk_skips_are_counted_as_read_and_skipped(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path / "s", {"decisions/ok.md": doc(status="accepted"), "decisions/bad.md": b"\xff"}
    )
    os.mkfifo(space / ".ledger/decisions/fifo.md")
    (space / ".ledger/decisions/tab\there.md").write_text(doc(status="accepted"), encoding="utf-8")
    with open(space / ".ledger/decisions/huge.md", "wb") as handle:
        handle.truncate(11 * 1024 * 1024)
    build = build_context(space)
    decisions = next(k for k in explain(build).kinds if k.kind == "decision")
    assert (decisions.read, decisions.skipped, decisions.selected) == (5, 4, 1)
    errors = [p for p in build.ledger.problems if p.severity == "error"]
    assert len(errors) == 4


def test_a_full_disk_is_a_clear_error() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "ledger_context", "pack", "--space", str(FIXTURES / "demo")],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
            timeout=60,
        )
    assert result.returncode == 2
    assert b"Error: cannot write the output (No space left on device)" in result.stderr
    assert b"Traceback" not in result.stderr


def test_an_empty_cap_from_the_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEDGER_CAP_TOKENS", "")
    assert main(["pack", "--space", str(FIXTURES / "demo")]) == 2

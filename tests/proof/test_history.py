"""Packs from history: ``--rev REV`` builds from git objects, byte for byte what a checkout
of REV builds, links included."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from test_provenance import commit_all, git, init

from conftest import doc, write_ledger
from ledger_context import build_context
from ledger_context.cli import main
from ledger_context.reader.check import check_ledger
from ledger_context.reader.ledger import read_ledger

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

KINDS = ("findings", "decisions", "experiments", "evals", "harnesses")
STATUS = {
    "findings": "current",
    "decisions": "accepted",
    "experiments": "done",
    "evals": "active",
    "harnesses": "active",
}


def cli(capsysbinary: pytest.CaptureFixture[bytes], *args: str) -> tuple[int, bytes]:
    capsysbinary.readouterr()
    code = main(list(args))
    return code, capsysbinary.readouterr().out


def _random_document(rng: random.Random, n: int, kind: str) -> str:
    fields = {"status": STATUS[kind] if rng.random() < 0.8 else "draft", "slug": f"s{n}"}
    if rng.random() < 0.9:
        fields["updated_at"] = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if rng.random() < 0.3:
        fields["data_class"] = rng.choice(["public", "internal", "restricted"])
    return doc(**fields)


def _history(repo: Path, space: Path, commits: int, seed: int) -> list[str]:
    """``commits`` commits of a ledger changing by adds, edits, renames, deletions and links."""
    rng = random.Random(seed)
    root = space / ".ledger"
    write_ledger(space, {"agents.md": "---\ndata_class: internal\n---\n# Agents\n"})
    (repo / "README.md").write_text("outside the ledger\n", encoding="utf-8")
    made: list[str] = []
    counter = 0
    for number in range(commits):
        documents = sorted(p for p in root.rglob("*.md") if p.is_file() and not p.is_symlink())
        action = ["add", "add", "edit", "rename", "delete", "link"][number % 6] if number >= 3 else "add"
        if action == "add" or not documents:
            for _ in range(rng.randint(1, 3)):
                counter += 1
                kind = rng.choice(KINDS)
                folder = root / kind / (rng.choice(["", "2026-10"]) if kind == "experiments" else "")
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"doc-{counter}.md").write_text(
                    _random_document(rng, counter, kind), encoding="utf-8"
                )
        elif action == "edit":
            target = rng.choice(documents)
            kind = next((k for k in KINDS if f"/{k}/" in target.as_posix()), "findings")
            target.write_text(_random_document(rng, counter, kind), encoding="utf-8")
        elif action == "rename":
            target = rng.choice(documents)
            other = root / rng.choice(KINDS)
            other.mkdir(exist_ok=True)
            target.rename(other / f"renamed-{number}.md")
        elif action == "delete":
            rng.choice(documents).unlink()
        else:  # links of every sort the walk rules on
            linked = rng.choice(documents)
            findings = root / "findings"
            findings.mkdir(exist_ok=True)
            links = {
                f"link-{number}.md": os.path.relpath(linked, findings),  # inside: read once
                f"outside-{number}.md": os.path.relpath(repo / "README.md", findings),  # outside: skipped
                f"dangling-{number}.md": "nowhere.md",
                f"loop-{number}": ".",  # a folder that contains itself
                f"up-{number}": "../decisions",  # a folder reached twice
            }
            for name, target_text in links.items():
                os.symlink(target_text, findings / name)
            hidden = root / ".shared"
            hidden.mkdir(exist_ok=True)
            (hidden / f"shared-{number}.md").write_text(
                doc(status="current", updated_at="2026-06-01"), encoding="utf-8"
            )
            os.symlink(
                f"../.shared/shared-{number}.md", findings / f"via-link-{number}.md"
            )  # only via a link
            (root / "evals").mkdir(exist_ok=True)
            (root / "evals" / f"notes-{number}.txt").write_text("attachment\n", encoding="utf-8")
            os.symlink(f"notes-{number}.txt", root / "evals" / f"text-{number}.md")  # a .md link to a .txt
            (root / "decisions" / f"LOUD-{number}.MD").parent.mkdir(exist_ok=True)
            (root / "decisions" / f"LOUD-{number}.MD").write_text("case\n", encoding="utf-8")
        made.append(commit_all(repo, f"commit {number}"))
    return made


def test_pack_rev_equals_a_checkout_over_twenty_commits(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    repo = init(tmp_path / "repo")
    space = repo / "project"  # a space in a subfolder of the repository
    commits = _history(repo, space, 20, seed=16)
    assert len(set(commits)) == 20
    seen_links = 0
    for index, commit in enumerate(commits):
        checkout = tmp_path / f"wt{index}"
        git(repo, "worktree", "add", "-q", "--detach", str(checkout), commit)
        expected = build_context(checkout / "project")
        code, out = cli(capsysbinary, "pack", "--rev", commit, "--space", str(space))
        assert code == 0
        assert out == expected.pack.encode("utf-8"), f"commit {index}"
        problems = check_ledger(read_ledger(checkout / "project")).problems
        code, out = cli(capsysbinary, "check", "--json", "--rev", commit, "--space", str(space))
        listed = json.loads(out)["problems"]
        assert [(p["path"], p["severity"], p["message"]) for p in listed] == [
            (p.path, p.severity, p.message) for p in problems
        ], f"commit {index}"
        seen_links += sum("symbolic link" in p.message or "same file" in p.message for p in problems)
        git(repo, "worktree", "remove", "--force", str(checkout))
    assert seen_links > 10  # the history did exercise the link rules


def test_explain_rev_names_the_commit_with_blob_ids_from_the_tree(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    repo = init(tmp_path / "repo")
    write_ledger(
        repo, {"agents.md": "first\n", "findings/f.md": doc(status="current", updated_at="2026-01-01")}
    )
    first = commit_all(repo)
    (repo / ".ledger" / "agents.md").write_text("second\n", encoding="utf-8")
    commit_all(repo)
    (repo / ".ledger" / "agents.md").write_text("work tree\n", encoding="utf-8")  # not committed
    code, out = cli(capsysbinary, "explain", "--json", "--full", "--rev", first, "--space", str(repo))
    explanation = json.loads(out)
    assert code == 0
    assert explanation["space"] == f"{os.path.realpath(repo)}@{first}"
    assert (explanation["pack"]["commit"], explanation["pack"]["dirty"]) == (first, False)
    tree = {line.split("\t")[1]: line.split()[2] for line in git(repo, "ls-tree", "-r", first).splitlines()}
    assert {b["path"]: b["git_blob"] for b in explanation["blocks"]} == {
        ".ledger/agents.md": tree[".ledger/agents.md"],
        ".ledger/findings/f.md": tree[".ledger/findings/f.md"],
    }
    code, out = cli(capsysbinary, "pack", "--rev", first, "--space", str(repo))
    assert out.startswith(b"first\n")


def test_a_ledger_that_is_a_link_in_git(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    repo = init(tmp_path / "repo")
    write_ledger(repo / "shared", {"agents.md": "linked\n", "decisions/d.md": doc(status="accepted")})
    (repo / "team").mkdir()
    os.symlink("../shared/.ledger", repo / "team" / ".ledger")
    commit = commit_all(repo)
    shutil.rmtree(repo / "team")  # gone from the work tree: history still has it
    code, out = cli(capsysbinary, "pack", "--rev", commit, "--space", str(repo / "team"))
    assert code == 0
    git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"), commit)
    assert out == build_context(tmp_path / "wt" / "team").pack.encode("utf-8")
    assert b"(.ledger/decisions/d.md)" in out


def test_the_space_is_found_upward_in_the_committed_tree(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = init(tmp_path / "repo")
    write_ledger(repo / "app", {"agents.md": "app ledger\n"})
    (repo / "app" / "src").mkdir()
    (repo / "app" / "src" / "keep").write_text("", encoding="utf-8")
    commit = commit_all(repo)
    shutil.rmtree(repo / "app" / ".ledger")
    monkeypatch.chdir(repo / "app" / "src")
    monkeypatch.delenv("LEDGER_SPACE", raising=False)
    assert cli(capsysbinary, "pack", "--rev", commit) == (0, b"app ledger\n")


def test_unknown_revision_and_no_repository_are_clear_errors(
    tmp_path: Path,
    ledger,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    repo = init(tmp_path / "repo")
    write_ledger(repo, {"agents.md": "hi\n"})
    commit_all(repo)
    assert main(["pack", "--rev", "no-such-branch", "--space", str(repo)]) == 2
    assert (
        f"unknown revision 'no-such-branch' in the git repository {os.path.realpath(repo)}"
        in capsys.readouterr().err
    )
    assert main(["pack", "--rev=--output=/tmp/x", "--space", str(repo)]) == 2  # never an option to git
    assert "unknown revision '--output=/tmp/x'" in capsys.readouterr().err
    outside = ledger({"agents.md": "hi\n"})
    assert main(["explain", "--rev", "HEAD", "--space", str(outside)]) == 2
    assert f"{outside} is not inside a git repository" in capsys.readouterr().err
    (repo / "empty").mkdir()
    (repo / "empty" / "f").write_text("", encoding="utf-8")
    commit = commit_all(repo)
    # No ledger at the space is exit 3 with --rev as without (found by breaking the product)
    assert main(["check", "--rev", "HEAD", "--space", str(repo / "empty")]) == 3
    assert (
        f"no .ledger in {os.path.realpath(repo)}/empty at revision HEAD ({commit[:12]})"
        in capsys.readouterr().err
    )


def test_a_ledger_that_is_no_folder_at_the_revision_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init(tmp_path / "repo")
    os.symlink("README.md", repo / ".ledger")
    (repo / "README.md").write_text("not a ledger\n", encoding="utf-8")
    commit = commit_all(repo)
    assert main(["pack", "--rev", "HEAD", "--space", str(repo)]) == 3  # as a work tree's
    shown = f"{os.path.realpath(repo)}@{commit}"
    assert f"Error: {shown} holds a .ledger that is not a folder (at HEAD)" in capsys.readouterr().err


def _live_ledger_beside_the_private_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary folder for --rev's private copy, with a never-committed ledger beside it."""
    import tempfile

    private = tmp_path / "tmp"
    write_ledger(
        private / "live",
        {"agents.md": "LIVE never committed\n", "findings/f.md": doc(status="current", title="LIVE")},
    )
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    return private


def test_a_committed_ledger_link_that_leaves_the_tree_is_refused_not_read_from_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _live_ledger_beside_the_private_copy(tmp_path, monkeypatch)
    repo = init(tmp_path / "repo")
    (repo / "team").mkdir()
    os.symlink("../../live/.ledger", repo / "team" / ".ledger")  # from the copy: tmp/live
    commit_all(repo)
    assert main(["pack", "--rev", "HEAD", "--space", str(repo / "team")]) == 2
    captured = capsys.readouterr()
    assert "LIVE" not in captured.out
    assert (
        "team/.ledger is a symbolic link to '../../live/.ledger', which leaves the committed tree"
        in captured.err
    )


def test_a_committed_document_link_that_leaves_the_tree_is_reported_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    _live_ledger_beside_the_private_copy(tmp_path, monkeypatch)
    repo = init(tmp_path / "repo")
    write_ledger(repo, {"agents.md": "committed\n"})
    (repo / ".ledger" / "findings").mkdir()
    os.symlink("../../../live/.ledger/findings/f.md", repo / ".ledger" / "findings" / "f.md")
    commit_all(repo)
    code, out = cli(capsysbinary, "pack", "--rev", "HEAD", "--space", str(repo))
    assert (code, out) == (0, b"committed\n")
    code, out = cli(capsysbinary, "check", "--rev", "HEAD", "--space", str(repo), "--json")
    problems = json.loads(out)["problems"]
    assert [(p["path"], p["message"].split(";")[0]) for p in problems if p["path"] != ".ledger"] == [
        (".ledger/findings/f.md", "symbolic link is dangling or loops")
    ]


def test_a_committed_link_to_a_file_outside_the_ledger_never_has_its_bytes_written(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # Found by trying to break the product: the target's blob was written into the private
    # copy, though the walk then skips the link as leaving the ledger.
    from ledger_context.proof.history import checkout

    repo = init(tmp_path / "repo")
    write_ledger(repo, {"agents.md": "committed\n"})
    (repo / "secrets.env").write_text("TOPSECRET=hunter9\n", encoding="utf-8")
    (repo / ".ledger" / "findings").mkdir()
    (repo / "README.md").write_text("TOPSECRET too\n", encoding="utf-8")
    os.symlink("../../secrets.env", repo / ".ledger" / "findings" / "leak.md")
    os.symlink("../../README.md", repo / ".ledger" / "findings" / "readme.md")
    commit = commit_all(repo)
    with checkout(commit, str(repo)) as revision:
        for name in ("secrets.env", "README.md"):  # stand-ins: the walk sees a file there
            copy = revision.space / name
            assert copy.is_file() and copy.read_bytes() == b"", name
    code, out = cli(capsysbinary, "pack", "--rev", commit, "--space", str(repo))
    git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"), commit)
    assert (code, out) == (0, build_context(tmp_path / "wt").pack.encode("utf-8"))

    def problems(*args: str) -> list[tuple[str, str]]:
        found = json.loads(cli(capsysbinary, "check", "--json", *args)[1])["problems"]
        return [(p["path"], p["message"]) for p in found]

    assert problems("--rev", commit, "--space", str(repo)) == problems("--space", str(tmp_path / "wt"))


def test_a_missing_blob_among_3000_documents_is_a_clear_error_in_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import time

    repo = init(tmp_path / "repo")
    write_ledger(
        repo, {f"experiments/e{n:04d}.md": doc(status="done", slug=f"e{n}") + "x" * 300 for n in range(3000)}
    )
    write_ledger(repo, {"agents.md": "agents\n"})
    commit_all(repo)
    blob = git(repo, "rev-parse", "HEAD:.ledger/experiments/e1500.md").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    started = time.monotonic()
    assert main(["pack", "--rev", "HEAD", "--space", str(repo)]) == 2
    assert time.monotonic() - started < 10
    assert f"git object {blob} is missing from the repository or cannot be read" in capsys.readouterr().err


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_sigterm_during_rev_removes_the_private_copy(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    repo = init(tmp_path / "repo")
    write_ledger(repo, {f"findings/f{n:04d}.md": doc(status="current", slug=f"f{n}") for n in range(4000)})
    commit_all(repo)
    private = tmp_path / "tmp"
    private.mkdir()
    env = dict(os.environ, TMPDIR=str(private))
    command = [sys.executable, "-m", "ledger_context", "pack", "--rev", "HEAD", "--space", str(repo)]
    # Every signal whose default action ends the process (found by trying to break the
    # product: SIGQUIT, SIGUSR1 and SIGALRM left the copy behind; so did, in a later round,
    # product: SIGXCPU, SIGPROF, a real-time signal, and a second signal during the clean-up).
    signals = [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGALRM]
    signals += [signal.SIGXCPU, signal.SIGPROF, signal.SIGRTMIN, signal.SIGINT]
    for signum, then in [*((s, None) for s in signals), (signal.SIGTERM, signal.SIGINT)]:
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not any(private.iterdir()) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        assert proc.poll() is None, "the command ended before its private copy was seen"
        time.sleep(0.05)  # copying
        proc.send_signal(signum)
        if then is not None:
            time.sleep(0.0005)
            proc.send_signal(then)
        # Two signals pending at once are handled in signal-number order (SIGINT first):
        # either may end the command, and the copy must be gone whichever did.
        assert proc.wait(30) in {128 + signum, 128 + (then or signum)}, signum
        assert list(private.iterdir()) == [], signum

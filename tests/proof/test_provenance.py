"""Provenance: per-source digests equal sha256sum and git hash-object; commit, dirty and the
fingerprint follow the work tree and HEAD."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, doc, write_ledger
from ledger_context import ContextBuilder, build_context
from ledger_context.explain.full import explain
from ledger_context.model.classify import is_withheld
from ledger_context.pack.settings import make_settings
from ledger_context.proof import provenance as provenance_module
from ledger_context.proof.provenance import fingerprint

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, **GIT_ENV)
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, check=True, env=env, text=True
    ).stdout


def init(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q")
    return repo


def commit_all(repo: Path, message: str = "c") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def _spy_on_git(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every git command provenance runs from now on, in order (each still run)."""
    calls: list[list[str]] = []
    real_git = provenance_module.git

    def spy(args: list[str], cwd: object, stdin: bytes | None = None) -> bytes | None:
        calls.append(args)
        return real_git(args, cwd, stdin)  # type: ignore[arg-type]

    monkeypatch.setattr(provenance_module, "git", spy)
    return calls


def demo_repo(tmp_path: Path) -> Path:
    repo = init(tmp_path / "repo")
    shutil.copytree(FIXTURES / "demo" / ".ledger", repo / ".ledger")
    commit_all(repo)
    return repo


def test_every_block_and_source_carries_the_sha256sum_and_git_hash_object_of_its_file(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    (repo / ".ledger" / "agents.md").write_bytes(b"\xef\xbb\xbfagents\r\n")  # BOM and CRLF: bytes, not text
    explanation = explain(build_context(repo), "full")
    assert explanation.blocks
    listed = [(b.path, b.sha256, b.git_blob) for b in explanation.blocks]
    listed += [(s.path, s.sha256, s.git_blob) for s in explanation.classification.sources]
    for path, sha256, git_blob in listed:
        sha256sum = subprocess.run(
            ["sha256sum", str(repo / path)], capture_output=True, check=True, text=True
        )
        assert sha256 == sha256sum.stdout.split()[0]
        assert git_blob == git(repo, "hash-object", path).strip()
    agents = next(b for b in explanation.blocks if b.path == ".ledger/agents.md")
    assert agents.sha256 == hashlib.sha256(b"\xef\xbb\xbfagents\r\n").hexdigest()


def test_commit_dirty_and_fingerprint_follow_edits_commits_and_untracked_files(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    builder = ContextBuilder(repo, cache=False)
    head = git(repo, "rev-parse", "HEAD").strip()
    clean = builder.build().provenance()
    assert (clean.commit, clean.dirty) == (head, False)

    finding = repo / ".ledger" / "findings" / "new.md"
    finding.parent.mkdir(exist_ok=True)
    finding.write_text(doc(status="current", updated_at="2026-11-30"), encoding="utf-8")
    untracked = builder.build().provenance()
    assert (untracked.commit, untracked.dirty) == (head, True)
    assert untracked.fingerprint != clean.fingerprint

    second = commit_all(repo)  # HEAD moves, the files do not: the same build, asked again
    build = builder.build()
    assert (build.provenance().commit, build.provenance().dirty) == (second, False)

    finding.write_text(doc(status="current", updated_at="2026-12-01"), encoding="utf-8")
    edited = builder.build().provenance()
    assert (edited.commit, edited.dirty) == (second, True)
    finding.write_text(doc(status="current", updated_at="2026-11-30"), encoding="utf-8")
    assert builder.build().provenance() == build.provenance()


def test_the_server_builder_reuses_its_build_but_sees_a_new_commit(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    builder = ContextBuilder(repo, cache=True)
    (repo / ".ledger" / "agents.md").write_text("changed\n", encoding="utf-8")
    first = builder.build()
    assert first.provenance().dirty is True
    new_head = commit_all(repo)
    assert first.provenance().commit == new_head
    assert first.provenance().dirty is False


def test_the_fingerprint_is_sha256_over_sorted_path_nul_sha256_newline(ledger, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = {"agents.md": "hi\n", "findings/b.md": doc(status="current"), "findings/a.md": "broken\n"}
    space = ledger(files)
    build = build_context(space)
    accepted = sorted((d.path, d.sha256) for d in build.ledger.documents)
    assert [p for p, _ in accepted] == [".ledger/agents.md", ".ledger/findings/b.md"]  # a.md was skipped
    expected = hashlib.sha256(
        b"".join(p.encode() + b"\0" + s.encode() + b"\n" for p, s in accepted)
    ).hexdigest()
    assert build.provenance().fingerprint == expected == fingerprint(reversed(accepted))
    elsewhere = write_ledger(tmp_path / "elsewhere" / "space", files)
    assert build_context(elsewhere).provenance().fingerprint == expected
    assert fingerprint([]) == hashlib.sha256(b"").hexdigest()


def test_outside_git_there_is_no_commit_dirty_or_blob(ledger) -> None:  # type: ignore[no-untyped-def]
    space = ledger({"agents.md": "hi\n"})
    explanation = explain(build_context(space), "full")
    assert (explanation.pack.commit, explanation.pack.dirty) == (None, None)
    assert [b.git_blob for b in explanation.blocks] == [None]
    assert explanation.blocks[0].sha256 == hashlib.sha256(b"hi\n").hexdigest()


def test_a_repository_without_a_commit_is_dirty_with_blob_ids(tmp_path: Path) -> None:
    repo = init(tmp_path / "fresh")
    write_ledger(repo, {"agents.md": "hi\n"})
    explanation = explain(build_context(repo), "full")
    assert (explanation.pack.commit, explanation.pack.dirty) == (None, True)
    assert explanation.blocks[0].git_blob == git(repo, "hash-object", ".ledger/agents.md").strip()


def test_a_space_in_a_subfolder_and_a_ledger_that_is_a_link(tmp_path: Path) -> None:
    repo = init(tmp_path / "repo")
    write_ledger(repo / "docs" / "real", {"agents.md": "hi\n", "decisions/d.md": doc(status="accepted")})
    os.rename(repo / "docs" / "real" / ".ledger", repo / "docs" / "ledger-files")
    space = repo / "projects" / "one"
    space.mkdir(parents=True)
    os.symlink("../../docs/ledger-files", space / ".ledger")
    head = commit_all(repo)
    origin = build_context(space).provenance()
    assert (origin.commit, origin.dirty) == (head, False)
    (repo / "docs" / "ledger-files" / "agents.md").write_text("changed\n", encoding="utf-8")
    assert build_context(space).provenance().dirty is True


def test_pack_builds_never_start_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    expected = build_context(FIXTURES / "demo").pack

    def no_git(*args: object) -> None:
        raise AssertionError("git was started")

    monkeypatch.setattr("ledger_context.proof.provenance.git", no_git)
    build = ContextBuilder(repo, cache=False, provenance=False).build()
    assert build.pack == expected
    assert all(d.git_blob is None for d in build.ledger.documents)


def test_a_server_asks_git_again_only_when_head_moved(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = demo_repo(tmp_path)
    builder = ContextBuilder(repo)
    build = builder.build()
    first = build.provenance()
    calls = _spy_on_git(monkeypatch)
    for _ in range(5):
        assert builder.build().provenance() == first
    assert calls == []
    second = commit_all(repo, "moved")
    assert builder.build().provenance().commit == second
    assert [args[:2] for args in calls] == [["rev-parse", "--verify"], ["ls-tree", "-r"]]


@pytest.mark.anyio
async def test_receipt_and_explanation_carry_the_same_provenance(tmp_path: Path) -> None:
    from mcp import Client

    from ledger_context.mcp.server import create_server

    repo = demo_repo(tmp_path)
    head = git(repo, "rev-parse", "HEAD").strip()
    async with Client(create_server(repo), mode="legacy") as client:
        receipt = (await client.call_tool("get_context", {})).meta["ledger-context/receipt"]  # type: ignore[index]
        assert (receipt["commit"], receipt["dirty"]) == (head, False)
        (repo / ".ledger" / "agents.md").write_text("edited\n", encoding="utf-8")
        edited = (await client.call_tool("get_context", {})).meta["ledger-context/receipt"]  # type: ignore[index]
        explained = await client.call_tool("explain_budget", {"detail": "full"})
    assert (edited["commit"], edited["dirty"]) == (head, True)
    assert edited["fingerprint"] != receipt["fingerprint"]
    pack = explained.structured_content["pack"]  # type: ignore[index]
    assert {k: pack[k] for k in ("sha256", "commit", "dirty", "fingerprint")} == {
        k: edited[k] for k in ("sha256", "commit", "dirty", "fingerprint")
    }
    assert explained.structured_content["audit"] == "off"  # type: ignore[index]
    agents = explained.structured_content["blocks"][0]  # type: ignore[index]
    assert agents["sha256"] == hashlib.sha256(b"edited\n").hexdigest()
    assert agents["git_blob"] == git(repo, "hash-object", ".ledger/agents.md").strip()


def test_under_a_ceiling_a_withheld_file_moves_no_digest_a_client_sees(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    secret = repo / ".ledger" / "findings" / "secret.md"
    secret.write_text(doc(status="current", data_class="restricted", pin="1234"), encoding="utf-8")
    commit_all(repo)
    before = ContextBuilder(repo, make_settings(max_data_class="internal")).build()
    secret.write_text(doc(status="current", data_class="restricted", pin="4321"), encoding="utf-8")
    after = ContextBuilder(repo, make_settings(max_data_class="internal")).build()
    seen = [(b.pack, b.provenance(), explain(b, "full")) for b in (before, after)]
    assert seen[0][1] == seen[1][1] and seen[1][1].dirty is False  # fingerprint and dirty
    assert seen[0][0] == seen[1][0] and seen[0][2] == seen[1][2]
    visible = [d for d in before.ledger.documents if not is_withheld(d.data_class, "internal")]
    assert len(visible) == len(before.ledger.documents) - 5  # the demo's 4 and the secret
    assert seen[0][1].fingerprint == fingerprint((d.path, d.sha256) for d in visible)
    unbounded = ContextBuilder(repo).build().provenance()
    assert unbounded.dirty is True and unbounded.fingerprint != seen[1][1].fingerprint  # no ceiling: all


# Regression: an undeclared source withheld by --undeclared-class was still in the
# fingerprint and in dirty (provenance read the ceiling alone), so editing it moved a digest
# every client sees, and a guess of its text could be confirmed (spec §8).
def test_an_undeclared_source_the_ceiling_withholds_moves_no_digest_a_client_sees(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    secret = repo / ".ledger" / "findings" / "undeclared.md"
    secret.write_text("---\nstatus: current\ntitle: PIN\n---\n1234\n", encoding="utf-8")
    commit_all(repo)
    settings = make_settings(max_data_class="internal")._replace(undeclared_class="confidential")
    before = ContextBuilder(repo, settings).build()
    assert before.is_withheld(".ledger/findings/undeclared.md")
    secret.write_text("---\nstatus: current\ntitle: PIN\n---\n4321\n", encoding="utf-8")
    after = ContextBuilder(repo, settings).build()
    assert before.provenance() == after.provenance() and after.provenance().dirty is False
    shown = [d for d in before.ledger.documents if not before.is_withheld(d.path)]
    assert before.provenance().fingerprint == fingerprint((d.path, d.sha256) for d in shown)


# Regression (a tester's finding): dirty looked only at the documents read, so a committed
# document that was deleted, renamed, broken or replaced by a link gave "dirty: false" with
# a commit whose pack (pack --rev) differs. dirty False must mean the commit reproduces it.
@pytest.mark.parametrize(
    "change",
    [
        "delete",
        "delete agents.md",
        "rename to .MD",
        "hide",
        "break the YAML",
        "not UTF-8",
        "a link",
        "over 10 MiB",
    ],
)
def test_a_committed_document_the_build_did_not_read_makes_it_dirty(tmp_path: Path, change: str) -> None:
    repo = demo_repo(tmp_path)
    decision = sorted((repo / ".ledger" / "decisions").glob("*.md"))[0]
    target = repo / ".ledger" / "agents.md" if change == "delete agents.md" else decision
    if change.startswith("delete"):
        target.unlink()
    elif change == "rename to .MD":
        target.rename(target.with_suffix(".MD"))
    elif change == "hide":
        target.rename(target.with_name("." + target.name))
    elif change == "break the YAML":
        target.write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    elif change == "not UTF-8":
        target.write_bytes(b"---\ntitle: \xff\n---\n")
    elif change == "a link":
        outside = tmp_path / "elsewhere.md"
        shutil.copy(target, outside)
        target.unlink()
        target.symlink_to(outside)
    else:
        with target.open("ab") as grown:
            grown.truncate(10 * 1024 * 1024 + 1)
    assert ContextBuilder(repo, cache=False).build().provenance().dirty is True


def test_a_committed_document_withheld_or_skipped_in_the_commit_too_leaves_it_clean(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    findings = repo / ".ledger" / "findings"
    secret, broken = findings / "secret.md", findings / "broken.md"
    secret.write_text(doc(status="current", data_class="restricted"), encoding="utf-8")
    broken.write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")  # skipped in the commit too
    commit_all(repo)
    assert ContextBuilder(repo, cache=False).build().provenance().dirty is False
    secret.unlink()  # under a ceiling that withholds it, the commit's pack is this one
    assert (
        ContextBuilder(repo, make_settings(max_data_class="internal"), cache=False).build().provenance().dirty
        is False
    )
    assert ContextBuilder(repo, cache=False).build().provenance().dirty is True  # without: it is lost


# Regressions found by a tester attacking the fix above.
def test_a_document_the_ceiling_now_withholds_that_the_commit_served_makes_it_dirty(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    finding = repo / ".ledger" / "findings" / "moved.md"
    finding.write_text(doc(status="current", data_class="internal"), encoding="utf-8")
    commit_all(repo)
    settings = make_settings(max_data_class="internal")
    assert ContextBuilder(repo, settings, cache=False).build().provenance().dirty is False
    finding.write_text(doc(status="current", data_class="restricted"), encoding="utf-8")
    build = ContextBuilder(repo, settings, cache=False).build()
    assert build.is_withheld(".ledger/findings/moved.md") and build.provenance().dirty is True


def test_a_committed_link_counts_by_its_target(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path)
    store = repo / "store"
    store.mkdir()
    (store / "old.md").write_text(doc(title="Old", status="active"), encoding="utf-8")
    (store / "new.md").write_text(doc(title="New", status="active"), encoding="utf-8")
    harness = repo / ".ledger" / "harnesses" / "linked.md"
    harness.symlink_to("../../store/old.md")
    outside = repo / ".ledger" / "findings" / "elsewhere.md"
    outside.symlink_to("/nonexistent/elsewhere.md")  # skipped now and in the commit alike
    commit_all(repo)
    assert ContextBuilder(repo, cache=False).build().provenance().dirty is False
    harness.unlink()
    harness.symlink_to("../../store/new.md")  # retargeted to another committed file
    assert ContextBuilder(repo, cache=False).build().provenance().dirty is True


def test_committed_files_the_walk_skips_by_name_or_size_leave_it_clean_and_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = demo_repo(tmp_path)
    findings = repo / ".ledger" / "findings"
    (findings / "bad\x01name.md").write_text(doc(status="current"), encoding="utf-8")
    with (findings / "huge.md").open("wb") as huge:
        huge.write(doc(status="current").encode())
        huge.truncate(10 * 1024 * 1024 + 1)
    commit_all(repo)
    asked = _spy_on_git(monkeypatch)
    assert ContextBuilder(repo, cache=False).build().provenance().dirty is False
    assert ["cat-file", "--batch"] not in asked  # the 10 MiB blob is sized, never read


def test_a_ledger_that_is_a_committed_link_must_name_the_same_ledger(tmp_path: Path) -> None:
    from ledger_context.proof.history import checkout

    repo = init(tmp_path / "repo")
    for name, title in (("a", "Ledger A"), ("b", "Ledger B")):
        write_ledger(repo / "ledgers" / name, {"harnesses/h.md": doc(title=title, status="active")})
        (repo / "ledgers" / name / ".ledger").rename(repo / "ledgers" / f"{name}.ledger")
        (repo / "ledgers" / name).rmdir()
    (repo / ".ledger").symlink_to("ledgers/a.ledger")
    commit = commit_all(repo)
    assert ContextBuilder(repo, cache=False).build().provenance().dirty is False
    with checkout(commit, str(repo), cwd=repo) as revision:  # a build of the commit agrees with itself
        assert (
            ContextBuilder(revision.space, cache=False, git=revision.head).build().provenance().dirty is False
        )
    (repo / ".ledger").unlink()
    (repo / ".ledger").symlink_to("ledgers/b.ledger")  # another committed ledger, unchanged itself
    build = ContextBuilder(repo, cache=False).build()
    assert "Ledger B" in build.pack and build.provenance().dirty is True


def test_lost_blobs_are_read_in_bounded_groups_and_the_first_that_counts_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = demo_repo(tmp_path)
    findings = repo / ".ledger" / "findings"
    for n in range(6):
        (findings / f"gone-{n}.md").write_text(
            doc(status="current", data_class="restricted"), encoding="utf-8"
        )
    (findings / "a-gone.md").write_text(doc(status="current"), encoding="utf-8")  # first in path order
    commit_all(repo)
    for gone in findings.glob("*gone*.md"):
        gone.unlink()
    monkeypatch.setattr(provenance_module, "_READ_AT_ONCE", 1)  # one blob a group
    asked = _spy_on_git(monkeypatch)
    settings = make_settings(max_data_class="internal")
    assert ContextBuilder(repo, settings, cache=False).build().provenance().dirty is True
    assert asked.count(["cat-file", "--batch"]) == 1  # a-gone counts: nothing more is read
    (findings / "a-gone.md").write_text(doc(status="current"), encoding="utf-8")  # back as committed
    asked.clear()
    assert ContextBuilder(repo, settings, cache=False).build().provenance().dirty is False
    assert asked.count(["cat-file", "--batch"]) == 6  # each withheld one read alone

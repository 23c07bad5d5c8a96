"""The pre-commit hook: `pre-commit try-repo` installs it from this repository and it
runs `ledger-context check` on a repository whose ledger has a broken document."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from conftest import REPO, write_ledger

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


def test_the_hook_is_defined_for_ledger_files_only() -> None:
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "ledger-context-check"
    assert (hook["entry"], hook["language"], hook["files"], hook["pass_filenames"]) == (
        "ledger-context check",
        "python",
        r"^\.ledger/",
        False,
    )


def test_the_readme_snippet_names_this_hook_at_a_rev_that_exists() -> None:
    # Issue 23: the snippet named a tag, v0.1.0, that the repository does not have.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    snippet = re.search(r"```yaml\n(repos:.*?)```", readme, re.S)
    assert snippet is not None
    (repo,) = yaml.safe_load(snippet.group(1))["repos"]
    assert [hook["id"] for hook in repo["hooks"]] == ["ledger-context-check"]
    rev = str(repo["rev"])
    tags = subprocess.run(["git", "tag", "--list"], cwd=REPO, capture_output=True, text=True, check=True)
    assert rev == "main" or re.fullmatch(r"[0-9a-f]{40}", rev) or rev in tags.stdout.split(), rev
    assert "rev: main" not in readme or "commit SHA" in readme  # the mutable form says how to pin


def test_pre_commit_try_repo_runs_the_check(tmp_path: Path) -> None:
    repo = write_ledger(
        tmp_path / "repo",
        {
            "agents.md": "# Agents\n",
            "decisions/0001-broken.md": "---\ntitle: [broken\nstatus: accepted\n---\nBody\n",
        },
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    # try-repo installs the hook's own environment from this repository's committed tree.
    ran = subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(REPO), "ledger-context-check", "--all-files"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "ledger-context check......" in ran.stdout and "Failed" in ran.stdout
    assert "- exit code: 2" in ran.stdout  # check's status when a document is skipped
    assert "error   .ledger/decisions/0001-broken.md:3:7: YAML does not parse" in ran.stdout

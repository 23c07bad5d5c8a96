"""Real clients over HTTP: the MCP Inspector CLI drives ``serve --http`` with a bearer
token, and the conformance baseline the CI run holds the server to matches the README."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, HttpServer, Issuer, require

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
RESOURCE = "https://ledger.example.test/mcp"
DEMO = FIXTURES / "demo"
DOCUMENT = ".ledger/decisions/0005-tool-calling-router.md"


@pytest.fixture(scope="module")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Issuer:
    return Issuer(tmp_path_factory.mktemp("issuer"))


@pytest.fixture(scope="module")
def team(issuer: Issuer) -> Iterator[HttpServer]:
    with HttpServer(
        "--space", str(DEMO), "--no-audit", "--public-url", RESOURCE,
        "--auth-issuer", Issuer.URL, "--auth-jwks", str(issuer.jwks_path),
    ) as running:  # fmt: skip
        yield running


def inspect(url: str, token: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    header = ["--header", f"Authorization: Bearer {token}"] if token is not None else []
    return subprocess.run(
        ["npx", "-y", INSPECTOR, "--cli", url, "--transport", "http", *header, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def cli_pack(*args: str) -> str:
    command = [sys.executable, "-m", "ledger_context", "pack", "--space", str(DEMO), *args]
    return subprocess.run(command, capture_output=True, check=True).stdout.decode("utf-8")


def test_the_inspector_cli_gets_every_surface_under_the_tokens_ceiling(
    team: HttpServer, issuer: Issuer
) -> None:
    require(shutil.which("npx") is not None, "Node.js and npx (the MCP Inspector CLI)", "node")
    token = issuer.token(RESOURCE, "ledger:internal")

    def answer(*args: str) -> dict[str, object]:
        done = inspect(team.url, token, *args)
        assert done.returncode == 0, done.stderr[-2000:]
        result: dict[str, object] = json.loads(done.stdout)
        return result

    tools = answer("--method", "tools/list")["tools"]
    context = answer("--method", "tools/call", "--tool-name", "get_context")
    budget = answer("--method", "tools/call", "--tool-name", "explain_budget", "--tool-arg", "detail=brief")
    document = answer(
        "--method", "tools/call", "--tool-name", "read_document", "--tool-arg", f"path={DOCUMENT}"
    )
    resource = answer("--method", "resources/read", "--uri", "ledger://pack")
    prompt = answer("--method", "prompts/get", "--prompt-name", "start-task", "--prompt-args", "task=x")
    assert {t["name"] for t in tools} >= {"explain_budget", "get_context", "read_document", "search_ledger"}  # type: ignore[attr-defined]
    internal = cli_pack("--max-data-class", "internal")
    assert context["content"][0]["text"] == internal  # type: ignore[index]
    assert resource["contents"][0]["text"] == internal  # type: ignore[index]
    assert internal in prompt["messages"][0]["content"]["text"]  # type: ignore[index]
    assert budget["structuredContent"]["classification"]["ceiling"] == "internal"  # type: ignore[index]
    assert document["content"][0]["text"] == (DEMO / DOCUMENT).read_text(encoding="utf-8")  # type: ignore[index]


def test_the_inspector_cli_without_a_token_gets_nothing(team: HttpServer) -> None:
    require(shutil.which("npx") is not None, "Node.js and npx (the MCP Inspector CLI)", "node")
    done = inspect(team.url, None, "--method", "tools/list")
    assert done.returncode != 0
    assert "get_context" not in done.stdout


def test_the_readme_gives_the_conformance_count_of_the_baseline() -> None:
    baseline = (REPO / ".ci/conformance-baseline.yml").read_text(encoding="utf-8")
    listed = re.findall(r"^  - ([a-z0-9-]+)$", baseline, re.MULTILINE)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    stated = re.search(r"(\d+) of its (\d+) server scenarios pass", readme)
    assert stated is not None, "the README must say how many conformance scenarios pass"
    passing, total = int(stated.group(1)), int(stated.group(2))
    assert total - passing == len(listed) == len(set(listed))
    assert (REPO / ".ci/conformance.sh").read_text(encoding="utf-8").count("--expected-failures") == 1
    assert ".ci/conformance.sh" in (REPO / ".ci/run").read_text(encoding="utf-8")


def test_the_http_load_benchmark_answers_every_call_with_the_clis_pack(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "bench/http_load.py"), "--clients", "3", "--calls", "4"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=dict(os.environ, TMPDIR=str(tmp_path)),
    )
    assert list(tmp_path.iterdir()) == []  # its signing key went with the run (it used to stay)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert "12 of 12 calls answered" in done.stdout
    assert "unanswered: 0; packs differing from the CLI's: 0" in done.stdout
    assert re.search(r"latency p50 [\d.]+ ms, p95 [\d.]+ ms", done.stdout)

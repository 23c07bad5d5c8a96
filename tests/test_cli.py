"""The command line: pack, explain, check, serve; exit codes and --help on every command."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, Files, doc, libyaml_only, write_ledger
from ledger_context import build_context
from ledger_context.cli import _write, main
from ledger_context.explain.full import explain

Ledger = Callable[[Files], Path]
DEMO = FIXTURES / "demo"


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ledger_context", *args], capture_output=True, cwd=cwd, env=env, check=False
    )


def test_pack_writes_exactly_the_pack_bytes() -> None:
    result = run_cli("pack", "--space", str(DEMO))
    assert result.returncode == 0
    assert result.stdout == build_context(DEMO).pack.encode("utf-8")
    assert result.stderr == b""


def test_pack_stats_go_to_stderr() -> None:
    result = run_cli("pack", "--space", str(DEMO), "--stats")
    assert result.stdout == build_context(DEMO).pack.encode("utf-8")
    from ledger_context.explain.readout import measured_line
    from ledger_context.pack.measure import measure

    build = build_context(DEMO)
    expected = (
        "pack: 12216 bytes = 3054 tokens of a 6000-token cap (24000 bytes); 0 blocks dropped; not truncated\n"
        + measured_line(measure(build.pack, build.budgeted.tokens))
        + "\n"
    )
    assert result.stderr == expected.encode()


def test_space_is_found_from_the_working_directory_and_the_environment(tmp_path: Path) -> None:
    inner = DEMO / ".ledger" / "experiments"
    assert run_cli("pack", cwd=inner).stdout == build_context(DEMO).pack.encode("utf-8")
    env = {"LEDGER_SPACE": str(DEMO), "PATH": "/usr/bin:/bin"}
    assert run_cli("pack", cwd=tmp_path, env=env).stdout == build_context(DEMO).pack.encode("utf-8")


def test_no_space_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("pack", cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 3
    assert result.stdout == b""
    assert f"No .ledger directory found in {tmp_path}".encode() in result.stderr


def test_cap_and_ceiling_options(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["pack", "--space", str(DEMO), "--cap-tokens", "100", "--max-data-class", "Internal"]) == 0
    out = capsysbinary.readouterr().out
    assert out == build_context(DEMO, cap_tokens=100, max_data_class="internal").pack.encode()
    assert len(out) <= 400


def test_invalid_ceiling_names_the_allowed_values(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pack", "--space", str(DEMO), "--max-data-class", "secret"]) == 2
    err = capsys.readouterr().err
    assert "public, internal, confidential, restricted" in err


def test_invalid_ceiling_from_the_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEDGER_MAX_DATA_CLASS", "top")
    assert main(["explain", "--space", str(DEMO)]) == 2


@pytest.mark.parametrize("cap", ["0", "-3", "ten"])
def test_invalid_cap_is_refused(cap: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["pack", "--space", str(DEMO), "--cap-tokens", cap])
    assert caught.value.code == 2


@pytest.mark.parametrize("cap", ["0", "1000000001"])
def test_a_cap_out_of_range_is_refused_with_the_one_message(
    cap: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["pack", "--space", str(DEMO), "--cap-tokens", cap])
    message = f"invalid cap {int(cap)}: the cap is a whole number of tokens from 1 to 1000000000\n"
    err = capsys.readouterr().err
    assert err.startswith("usage: ledger-context pack ")  # the usage of the command given
    assert err.endswith(f"ledger-context pack: error: argument --cap-tokens: {message}")


def test_a_cap_out_of_range_in_the_environment_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LEDGER_CAP_TOKENS", "0")
    assert main(["pack", "--space", str(DEMO)]) == 2
    assert capsys.readouterr().err == (
        "Error: LEDGER_CAP_TOKENS: invalid cap 0: the cap is a whole number of tokens from 1 to 1000000000\n"
    )


def test_check_exit_status_is_0_clean_1_warnings_2_skipped(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = ledger({"harnesses/h.md": doc(status="active")})
    assert main(["check", "--space", str(clean)]) == 0
    warned = ledger({"findings/f.md": doc(status="current")})  # undated
    assert main(["check", "--space", str(warned)]) == 1
    broken = ledger({"findings/f.md": "no frontmatter\n", "harnesses/h.md": doc(status="active")})
    assert main(["check", "--space", str(broken)]) == 2
    out = capsys.readouterr().out
    assert "error   .ledger/findings/f.md: no YAML frontmatter" in out


@libyaml_only
def test_check_json_lists_problems(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    space = ledger({"decisions/d.md": "---\nstatus: [\n---\n"})
    assert main(["check", "--json", "--space", str(space)]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["exit_status"] == 2
    assert data["problems"] == [
        {
            "path": ".ledger/decisions/d.md",
            "severity": "error",
            "line": 3,
            "column": 1,
            "message": "YAML does not parse: while parsing a flow node, did not find expected node content "
            "(fix the YAML there; "
            "quote a value that holds ': ' or starts with a special character); skipped",
        }
    ]


def test_check_warns_about_a_future_updated_at(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    space = ledger({"experiments/x.md": doc(updated_at="2999-01-01")})
    assert main(["check", "--space", str(space)]) == 1
    assert "updated_at is in the future (2999-01-01T00:00:00Z)" in capsys.readouterr().out


def test_pack_notes_skipped_documents_on_stderr(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    space = ledger({"findings/f.md": "nothing\n"})
    assert main(["pack", "--space", str(space)]) == 0
    assert "1 file(s) or folder(s) skipped" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [[], ["pack"], ["explain"], ["check"], ["serve"], ["audit"], ["audit", "list"], ["audit", "show"]],
)
def test_every_command_has_help(command: list[str]) -> None:
    result = run_cli(*command, "--help")
    assert result.returncode == 0
    assert b"usage: ledger-context" in result.stdout


def test_the_help_lists_every_command_and_a_command_s_help_its_own_options() -> None:
    # Issue 29: only the named command's options are built; the others must still show
    # wherever the command line names none.
    listing = run_cli("--help").stdout.decode()
    for name in ("pack", "explain", "search", "check", "serve", "audit"):
        assert f"\n    {name} " in listing
    pack = run_cli("pack", "--help").stdout.decode()
    assert "--stats" in pack and "--log-level" not in pack
    unknown = run_cli("unpack")
    assert unknown.returncode == 2
    assert (
        b"invalid choice: 'unpack' (choose from 'pack', 'explain', 'search', 'check', 'serve', 'audit', 'index')"
        in (unknown.stderr)
    )


@pytest.mark.parametrize(("columns", "width"), [("100", 100), ("0", None), ("wide", None), (None, None)])
def test_the_help_is_as_wide_as_shutil_says_the_terminal_is(
    monkeypatch: pytest.MonkeyPatch, columns: str | None, width: int | None
) -> None:
    import shutil

    from ledger_context.cli import _columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _columns() == shutil.get_terminal_size().columns
    if width is not None:
        assert _columns() == width


def test_version() -> None:
    result = run_cli("--version")
    assert result.stdout.startswith(b"ledger-context 0.")


@pytest.mark.parametrize(
    "command",
    [
        ["pack"],
        ["check"],
        ["check", "--json"],
        ["explain", "--full"],
        ["search", "jwt"],
        ["search", "jwt", "--json"],
    ],
)
def test_pack_check_search_and_the_full_explanation_import_neither_mcp_nor_pydantic(
    command: list[str],
) -> None:
    # Importing pydantic and building its models costs more than a third of a cold pack, and
    # was a quarter of a warm search's process.
    code = (
        "import sys; from ledger_context.cli import main; main(sys.argv[2:] + ['--space', sys.argv[1]]);"
        "sys.stderr.write(' '.join(m for m in ('mcp', 'pydantic') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code, str(DEMO), *command], capture_output=True)
    assert result.stderr == b""


SURROGATE_LEDGER: Files = {
    # Origin: issue 11, `explain --full --json` crashed under the pure-Python loader.
    "experiments/e.md": '---\nstatus: "run\\ud800"\nupdated_at: 2026-01-01\n---\n',
    "harnesses/h.md": '---\nstatus: active\ntitle: "a\\udfffb"\nslug: "\\ud83d\\ude00"\n---\n',
    "decisions/d.md": '---\nstatus: accepted\n"\\ud800": x\ndata_class: "\\udc00"\n---\n',
    "findings/ok.md": "---\nstatus: current\nupdated_at: 2026-01-01\n---\n",
}


@pytest.mark.parametrize("loader", ["libyaml", "python"])
def test_every_output_survives_lone_surrogate_escapes(ledger: Ledger, loader: str) -> None:
    space = ledger(SURROGATE_LEDGER)
    env = {**os.environ, "LEDGER_CONTEXT_YAML": loader}
    outputs = {}
    for args in (
        ["pack"],
        ["explain"],
        ["explain", "--full"],
        ["explain", "--full", "--json"],
        ["check"],
        ["check", "--json"],
    ):
        result = run_cli(*args, "--space", str(space), env=env)
        assert b"Traceback" not in result.stderr, result.stderr
        assert result.returncode in (0, 1, 2)
        outputs[" ".join(args)] = result.stdout.decode("utf-8")  # strict: no surrogate escaped out
    assert (
        outputs["pack"]
        == "## Finding: ok (.ledger/findings/ok.md)\n---\nstatus: current\nupdated_at: 2026-01-01\n---\n"
    )
    problems = json.loads(outputs["check --json"])["problems"]
    skipped = sorted(p["path"] for p in problems if p["severity"] == "error")
    assert skipped == [".ledger/decisions/d.md", ".ledger/experiments/e.md", ".ledger/harnesses/h.md"]
    explanation = json.loads(outputs["explain --full --json"])
    assert explanation["yaml_loader"] == {"quick": 1}  # the three others failed in the full loader


def test_the_pure_python_loader_is_reported_by_check(ledger: Ledger) -> None:
    space = ledger({"findings/ok.md": "---\nstatus: current\nupdated_at: 2026-01-01\n---\n"})
    env = {**os.environ, "LEDGER_CONTEXT_YAML": "python"}
    result = run_cli("check", "--space", str(space), env=env)
    assert result.returncode == 0
    assert result.stdout.startswith(f"Checked {space} (YAML read by the python loader)\n".encode())
    as_json = run_cli("check", "--json", "--space", str(space), env=env)
    assert json.loads(as_json.stdout)["yaml_loader"] == "python"
    bad = run_cli("check", "--space", str(space), env={**os.environ, "LEDGER_CONTEXT_YAML": "fast"})
    assert bad.returncode == 1
    assert b"LEDGER_CONTEXT_YAML is not one of libyaml, python" in bad.stdout


def _run_module(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ledger_context", *args], capture_output=True, cwd=cwd, check=False, timeout=60
    )


# Regression: a bug found by trying to break the product.
def test_a_space_path_that_is_not_utf8_is_escaped_everywhere(tmp_path: Path) -> None:
    space = Path(os.fsdecode(os.fsencode(tmp_path) + b"/sp\xffce"))
    write_ledger(space, {"agents.md": "hi\n"})
    shown = explain(build_context(space)).space
    assert shown.startswith('"/') and shown.endswith('/sp\\xffce"')
    for args in (["explain"], ["explain", "--json"], ["check"], ["check", "--json"]):
        result = _run_module(*args, "--space", os.fsdecode(os.fsencode(space)))
        assert result.returncode == 0, result.stderr
        assert b"Traceback" not in result.stderr and b"\\xffce" in result.stdout


# Regression: a bug found by trying to break the product.
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
    assert b'gone\\xe9" does not exist' in result.stderr


# Regression: a bug found by trying to break the product.
def test_an_empty_ceiling_is_refused_not_read_as_no_ceiling(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = str(FIXTURES / "demo")
    assert main(["pack", "--space", demo, "--max-data-class", ""]) == 2
    assert main(["pack", "--space", demo, "--max-data-class", "  "]) == 2
    monkeypatch.setenv("LEDGER_MAX_DATA_CLASS", "")
    assert main(["pack", "--space", demo]) == 2
    assert "allowed values: public, internal, confidential, restricted" in capsys.readouterr().err


# Regression: a bug found by trying to break the product.
@pytest.mark.parametrize("cap", ["٥٠", "1_000", "99999999999999999", "+5", " "])
def test_caps_are_ascii_digits_within_bounds(cap: str) -> None:
    with pytest.raises(SystemExit):
        main(["pack", "--space", str(FIXTURES / "demo"), "--cap-tokens", cap])


# Regression: a bug found by trying to break the product.
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


# Regression: a bug found by trying to break the product.
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


# Regression: a bug found by trying to break the product.
def test_an_empty_cap_from_the_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEDGER_CAP_TOKENS", "")
    assert main(["pack", "--space", str(FIXTURES / "demo")]) == 2


def test_check_advises_the_largest_cap_a_tokenizer_counts_within_the_cap(capsys) -> None:
    from conftest import FIXTURES, check, check_json

    status, text = check(FIXTURES / "overflow", capsys)
    (advice,) = [line for line in text.splitlines() if line.startswith("Advice: ")]
    assert advice == (
        "Advice: o200k_base counts 6100 tokens, over the 6000-token cap; "
        "--cap-tokens 5906 is the largest whose pack it counts within 6000"
    )
    assert status == 1  # the warning's status: advice never changes it
    _, data = check_json(FIXTURES / "overflow", capsys)
    assert data["advice"] == [
        {"tokenizer": "o200k_base", "cap_tokens": 6000, "measured_tokens": 6100, "fitting_cap_tokens": 5906}
    ]
    _, demo = check_json(FIXTURES / "demo", capsys)
    assert demo["advice"] == []


# Regression: the advice was counted over a pack selected by the ceiling alone, with the
# undeclared sources --undeclared-class withholds still in it: not the pack served.
def test_check_advises_on_the_pack_served_with_undeclared_sources_withheld(capsys) -> None:
    from dataclasses import asdict

    from conftest import FIXTURES, check
    from ledger_context.pack.build import ContextBuilder
    from ledger_context.pack.fit import cap_advice
    from ledger_context.pack.settings import make_settings

    space = FIXTURES / "overflow"
    settings = make_settings(max_data_class="internal")._replace(undeclared_class="confidential")
    build = ContextBuilder(space, settings, cache=False, provenance=False).build()
    counted = build.pack != ContextBuilder(space, make_settings(max_data_class="internal")).build().pack
    assert counted  # undeclared sources the pack would otherwise hold are withheld
    advice = cap_advice(build.selection.blocks, build.pack, 6000, "o200k_base")
    expected = [] if advice is None else [asdict(advice)]
    flags = ("--max-data-class", "internal", "--undeclared-class", "confidential", "--json")
    _, out = check(space, capsys, *flags)
    assert json.loads(out)["advice"] == expected


UNDECLARED = {
    "agents.md": "---\ndata_class: public\n---\n# Agents\n",
    "decisions/0001-plain.md": doc(title="Plain", status="accepted", updated_at="2026-01-02"),
    "findings/tagged.md": doc(
        title="Tagged", status="current", updated_at="2026-01-01", data_class="internal"
    ),
}


def test_undeclared_class_withholds_undeclared_sources_from_flag_or_environment(tmp_path: Path) -> None:
    # Issue 23: an operator can make sources without data_class count as a class for the ceiling.
    space = write_ledger(tmp_path / "space", UNDECLARED)
    plain = run_cli("pack", "--space", str(space), "--max-data-class", "internal")
    assert b"Plain" in plain.stdout  # undeclared sources pass by default
    flagged = run_cli(
        "pack", "--space", str(space), "--max-data-class", "internal", "--undeclared-class", "confidential"
    )
    from_env = run_cli(
        "pack",
        "--space",
        str(space),
        "--max-data-class",
        "internal",
        env={**os.environ, "LEDGER_UNDECLARED_CLASS": "confidential"},
    )
    assert flagged.returncode == from_env.returncode == 0
    assert flagged.stdout == from_env.stdout
    assert b"Plain" not in flagged.stdout and b"Tagged" in flagged.stdout
    answer = run_cli(
        "explain",
        "--space",
        str(space),
        "--max-data-class",
        "internal",
        "--undeclared-class",
        "confidential",
        "--path",
        ".ledger/decisions/0001-plain.md",
    )
    assert answer.stdout.decode().splitlines()[1] == (
        "withheld by the ceiling internal: it declares no data class, read as confidential "
        "(--undeclared-class), which is stricter"
    )
    bad = run_cli("pack", "--space", str(space), env={**os.environ, "LEDGER_UNDECLARED_CLASS": ""})
    assert bad.returncode == 2 and b"invalid undeclared class ''" in bad.stderr


@pytest.mark.anyio
async def test_serve_reads_undeclared_sources_as_the_class_given(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    from ledger_context.pack.build import ContextBuilder
    from ledger_context.pack.settings import make_settings

    space = write_ledger(tmp_path / "space", UNDECLARED)
    args = [
        "-m",
        "ledger_context",
        "serve",
        "--no-audit",
        "--space",
        str(space),
        "--max-data-class",
        "internal",
    ]
    env = {**os.environ, "LEDGER_UNDECLARED_CLASS": "restricted"}
    async with Client(
        StdioServerParameters(command=sys.executable, args=args, env=env), mode="legacy"
    ) as client:
        result = await client.call_tool("get_context", {})
        budget = await client.call_tool("explain_budget", {})
    expected = ContextBuilder(
        space, settings=make_settings(6000, "internal", "restricted"), cache=False
    ).build()
    assert result.content[0].text == expected.pack  # type: ignore[union-attr]
    assert "Plain" not in expected.pack
    classification = budget.structured_content["classification"]  # type: ignore[index]
    assert (classification["undeclared_class"], classification["withheld_count"]) == ("restricted", 1)


def test_check_reports_the_undeclared_sources_in_one_line(tmp_path: Path) -> None:
    space = write_ledger(tmp_path / "space", UNDECLARED | {"findings/other.md": doc(status="current")})
    result = run_cli("check", "--space", str(space))
    assert result.returncode == 1  # the undated finding warns; the info line changes no exit status
    assert (
        "info    .ledger: 2 of 4 documents declare no data_class (.ledger/decisions/0001-plain.md, "
        ".ledger/findings/other.md): they pass any ceiling; add data_class to each, or serve with "
        "--undeclared-class CLASS\n"
    ) in result.stdout.decode()


def _run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, bytes]:
    status = main(argv)
    captured = capsysbinary.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    "command",
    [["pack"], ["explain", "--full"], ["explain", "--full", "--json"], ["check"], ["check", "--json"]],
)
def test_every_command_gives_the_same_bytes_with_the_index_off_cold_warm_or_garbage(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary
) -> None:
    argv = [*command, "--space", str(DEMO)]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    off = _run([*argv, "--no-index"], capsysbinary)
    monkeypatch.setenv("LEDGER_INDEX", "off")
    assert _run(argv, capsysbinary) == off
    monkeypatch.setenv("LEDGER_INDEX", "on")
    assert not (tmp_path / "cache").exists()  # off writes nothing
    states = {}
    for state in ("cold", "warm", "garbage"):
        if state == "garbage":
            (index,) = (tmp_path / "cache" / "ledger-context").glob("*.index")
            index.write_bytes(b"garbage")
        status, out, err = _run(argv, capsysbinary)
        if (
            command[-1] == "--json" and command[0] == "explain" and state == "garbage"
        ):  # a fault: one field more
            states[state] = json.loads(out)["index"]
            before, _, field = out.rpartition(b',\n  "index": ')
            assert before + b"\n}\n" == off[1]
            assert field == json.dumps(states[state]).encode() + b"\n}\n"
        else:
            assert out == off[1], state
        states[state] = states.get(state) or err.decode()
        assert status == off[0]
    if command[0] == "explain" and command[-1] == "--json":
        assert states == {"cold": "", "warm": "", "garbage": "rebuilt (the file is not an index)"}
    if command[0] == "check":  # a fault of the index is said once, on stderr
        assert states == {
            "cold": "",
            "warm": "",
            "garbage": "index: rebuilt (the file is not an index)\n",
        }


def test_index_status_and_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "ledger-context"
    none_yet = b"search postings: none yet (the first search writes them)\n"
    assert _run(["index", "status", "--space", str(DEMO)], capsysbinary)[1].endswith(
        b"\nnone yet (the next command that reads the ledger writes it)\n" + none_yet
    )
    assert _run(["pack", "--space", str(DEMO)], capsysbinary)[0] == 0
    out = _run(["index", "status", "--space", str(DEMO)], capsysbinary)[1]
    (index,) = folder.glob("*.index")
    assert out == f"index: {index}\n125 entries, {index.stat().st_size} bytes\n".encode() + none_yet
    assert _run(["search", "jwt", "--space", str(DEMO)], capsysbinary)[0] == 0  # searched 125
    out = _run(["index", "status", "--space", str(DEMO)], capsysbinary)[1]
    (postings,) = folder.glob("*.postings")
    assert out.endswith(f"search postings: 125 documents, {postings.stat().st_size} bytes\n".encode())
    assert _run(["index", "clear", "--space", str(DEMO)], capsysbinary)[1] == (
        f"index: 2 index file(s) removed from {folder}\n".encode()
    )
    assert list(folder.glob("*.index")) == []
    assert _run(["index", "clear", "--all"], capsysbinary)[1].startswith(b"index: 0 index file(s) removed")
    monkeypatch.setenv("LEDGER_INDEX", "off")
    assert (
        _run(["index", "status", "--space", str(DEMO)], capsysbinary)[1] == b"index: off (LEDGER_INDEX=off)\n"
    )


def test_index_clear_names_what_it_cannot_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # Was "Error: cannot write the output (Is a directory)", status 2, naming no file.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["pack", "--space", str(DEMO)]) == 0
    (index,) = (tmp_path / "cache" / "ledger-context").glob("*.index")
    index.unlink()
    index.mkdir()
    (index / "kept").write_text("")
    capsys.readouterr()
    assert main(["index", "clear", "--space", str(DEMO)]) == 2
    out, err = capsys.readouterr()
    assert out == f"index: 0 index file(s) removed from {index.parent}\n"
    assert err == f"Error: cannot remove {index.name} from {index.parent}: is a folder that is not empty\n"


def test_index_clear_removes_the_index_of_a_ledger_that_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # An index holds what withheld documents parsed to: it must not outlive its ledger
    # unless every other ledger's index goes too (--all).
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    space = write_ledger(tmp_path / "gone", {"agents.md": "# Agents\n"})
    assert main(["pack", "--space", str(space)]) == 0
    shutil.rmtree(space)
    capsys.readouterr()
    assert main(["index", "clear", "--space", str(space)]) == 0
    assert capsys.readouterr().out.startswith("index: 1 index file(s) removed")
    assert list((tmp_path / "cache" / "ledger-context").glob("*.index")) == []
    assert main(["index", "clear", "--space", str(space)]) == 3  # nothing of it left: as before
    assert "does not exist" in capsys.readouterr().err
    write_ledger(space, {"agents.md": "# Agents\n"})
    assert main(["pack", "--space", str(space)]) == 0
    shutil.rmtree(space)
    capsys.readouterr()
    assert main(["index", "clear", "--space", str(space / ".ledger")]) == 0  # named as a live one may be
    assert capsys.readouterr().out.startswith("index: 1 index file(s) removed")


def test_index_status_of_an_index_removed_meanwhile_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # An index cleared by another process between its reading and its size: was "Error:
    # cannot write the output (No such file or directory)".
    import ledger_context.reader.index as index_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["pack", "--space", str(DEMO)]) == 0
    load = index_module.load_index

    def load_then_clear(*args: Any) -> Any:
        loaded = load(*args)
        index_module.clear_index(args[0], None)
        return loaded

    monkeypatch.setattr(index_module, "load_index", load_then_clear)
    capsys.readouterr()
    assert main(["index", "status", "--space", str(DEMO)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1] == "125 entries (removed since: the next command writes it anew)"


def test_the_no_index_flag_wins_over_its_variable(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # README: "A flag wins over its variable"; a bad LEDGER_INDEX failed even with --no-index.
    monkeypatch.setenv("LEDGER_INDEX", "maybe")
    assert main(["pack", "--space", str(DEMO), "--no-index"]) == 0
    assert capsys.readouterr().err == ""


def test_an_unknown_index_switch_is_refused(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("LEDGER_INDEX", "of")
    assert main(["pack", "--space", str(DEMO)]) == 2
    assert capsys.readouterr().err == "Error: LEDGER_INDEX: 'of' is not one of on, off\n"


@pytest.mark.parametrize("limit", ["abc", "1.5", "0", "51"])
def test_a_bad_search_limit_names_the_range(limit: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Was argparse's "invalid int value: 'abc'" for text, without the range.
    assert main(["search", "jwt", "--space", str(DEMO), "--limit", limit]) == 2
    assert "limit must be a whole number from 1 to 50 (default 10)" in capsys.readouterr().err


_END = (
    "import atexit, sys, threading\n"
    "from ledger_context.cli import _end\n"
    "atexit.register(lambda: print('teardown'))\n"
    "if sys.argv[1] == 'thread':\n"
    "    stop = threading.Event()\n"
    "    threading.Thread(target=stop.wait, daemon=True).start()\n"
    "print('flushed', end='')\n"
    "print(' returned', _end(3))\n"
)


@pytest.mark.parametrize(
    ("threads", "stdout", "status"),
    [("one", "flushed", 3), ("thread", "flushed returned 3\nteardown\n", 0)],
)
def test_the_program_ends_without_teardown_only_when_one_thread_runs(
    threads: str, stdout: str, status: int
) -> None:
    """A command's output is flushed and its status kept; the interpreter's teardown (freeing
    a build's objects, atexit) is skipped only while no other thread runs."""
    done = subprocess.run([sys.executable, "-c", _END, threads], capture_output=True, text=True, check=False)
    assert (done.stdout, done.returncode) == (stdout, status)


@pytest.mark.parametrize(("left", "unbuffered"), [("before", "1"), ("before", ""), ("after", "")])
def test_a_reader_that_goes_away_ends_the_command_with_status_1_and_no_message(
    left: str, unbuffered: str
) -> None:
    """A closed pipe (``| head``, ``| true``) gives status 1, silently: when the reader left
    before the command wrote (with ``PYTHONUNBUFFERED`` the write was partial and gave 0),
    and when it left before the final flush (was 0)."""
    program = (
        "import os, sys, threading\n"
        "from ledger_context import cli\n"
        "reader, writer = os.pipe()\n"
        "os.dup2(writer, 1)\n"
        "os.close(writer)\n"
        "def run(args):\n"
        f"    if {left == 'before'!r}:\n"
        # a reader that takes a little and goes while the write waits on the full pipe
        "        def head():\n"
        "            os.read(reader, 100)\n"
        "            os.close(reader)\n"
        "        threading.Thread(target=head).start()\n"
        "        cli._write('x' * 1_000_000)\n"
        "    else:\n"
        "        print('x' * 100)\n"
        "        os.close(reader)\n"
        "    return 0\n"
        "cli._COMMANDS['pack'] = run\n"
        "sys.argv = ['ledger-context', 'pack', '--space', '.']\n"
        "sys.exit(cli.main())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False, env=env
    )
    assert (done.returncode, done.stderr) == (1, "")


class _Trickle(io.RawIOBase):
    """A raw stream that takes at most 1,000 bytes a write, as an unbuffered stdout does
    when a signal interrupts a write to a pipe."""

    def __init__(self) -> None:
        self.taken = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data[:1000])
        self.taken += chunk
        return len(chunk)


def test_every_byte_of_the_output_is_written_when_a_write_takes_only_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = _Trickle()
    monkeypatch.setattr(sys, "stdout", types.SimpleNamespace(buffer=raw))
    _write("é" * 5_000)
    assert bytes(raw.taken) == ("é" * 5_000).encode()


class _Full(_Trickle):
    """A non-blocking raw stream that is full at first: its first write takes nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.full = True

    def write(self, data: Any) -> int | None:  # type: ignore[override]
        if self.full:
            self.full = False
            return None
        return super().write(data)


def test_a_full_non_blocking_stdout_is_waited_for_not_spun_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import select

    raw, waits = _Full(), []
    monkeypatch.setattr(sys, "stdout", types.SimpleNamespace(buffer=raw))
    monkeypatch.setattr(select, "select", lambda r, w, x: waits.append(w) or ([], w, []))
    _write("x" * 2_500)
    assert bytes(raw.taken) == b"x" * 2_500 and waits == [[raw]]

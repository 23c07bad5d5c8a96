"""File names read as bytes and decoded as UTF-8 whatever the locale (spec §1, §6; issue 11).

The CLI runs as a subprocess under UTF-8, under ``LC_ALL=C PYTHONUTF8=0`` (file-system
encoding ASCII) and under a real Latin-1 locale built with ``localedef`` into a temporary
``LOCPATH`` (skipped where it cannot be built): the same stdout bytes every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ACTIVE_HARNESS, H, assert_clean_text, check, check_json, doc_paths, harness, write_ledger
from ledger_context import build_context
from ledger_context.reader.paths import fs_path, name_text, path_fault, printable_path

DECISION = "---\ntitle: {title}\nstatus: accepted\nupdated_at: 2026-01-0{day}\n---\nBody.\n"
NAMES = ("caf\u00e9.md", "cafe\u0301.md", "\u6f22\u5b57.md")  # NFC, NFD, 漢字


def test_names_are_decoded_as_strict_utf8_and_bad_bytes_are_escaped() -> None:
    assert name_text("caf\u00e9".encode()) == "caf\u00e9"
    bad = name_text(b"caf\xe9.md")  # Latin-1 bytes: not UTF-8
    assert path_fault(bad) == "its name is not valid UTF-8"
    assert printable_path(bad) == '"caf\\xe9.md"'
    assert fs_path("/s", ".ledger/" + bad) == b"/s/.ledger/caf\xe9.md"


@pytest.fixture(scope="module")
def latin1_locale(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str] | None:
    """Environment for a real ISO-8859-1 locale, or ``None`` where it cannot be built."""
    localedef = shutil.which("localedef")
    if localedef is None or sys.platform != "linux":
        return None
    where = tmp_path_factory.mktemp("locales")
    made = subprocess.run(
        [localedef, "-i", "en_US", "-f", "ISO-8859-1", str(where / "en_US.ISO-8859-1")],
        capture_output=True,
        check=False,
    )
    if made.returncode not in (0, 1) or not (where / "en_US.ISO-8859-1").exists():
        return None
    return {"LOCPATH": str(where), "LC_ALL": "en_US.ISO-8859-1", "PYTHONUTF8": "0"}


def _space(tmp_path: Path) -> bytes:
    """A space whose own path is not ASCII either; returned as its file-system bytes."""
    space = os.path.join(os.fsencode(tmp_path), "sp\u00e4ce".encode())
    decisions = os.path.join(space, b".ledger", b"decisions")
    os.makedirs(decisions)
    for day, name in enumerate(NAMES, 1):
        with open(os.path.join(decisions, name.encode()), "wb") as f:
            f.write(DECISION.format(title=name[:-3], day=day).encode())
    return space


def _run(args: list[bytes], env: dict[str, str], space_env: bytes | None = None) -> bytes:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONUTF8"))}
    full_env.update(env)
    environb = {os.fsencode(k): os.fsencode(v) for k, v in full_env.items()}
    if space_env is not None:
        environb[b"LEDGER_SPACE"] = space_env
    result = subprocess.run(
        [os.fsencode(sys.executable), b"-m", b"ledger_context", *args],
        capture_output=True,
        env=environb,  # type: ignore[arg-type]
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_pack_and_explanation_are_the_same_bytes_under_every_locale(
    tmp_path: Path, latin1_locale: dict[str, str] | None
) -> None:
    space = _space(tmp_path)
    locales = {
        "utf-8": {"LC_ALL": "C.UTF-8"},
        "C, PYTHONUTF8=0": {"LC_ALL": "C", "PYTHONUTF8": "0"},
    }
    if latin1_locale is not None:
        locales["latin-1"] = latin1_locale
    outputs: dict[str, tuple[bytes, bytes, bytes]] = {}
    for label, env in locales.items():
        pack = _run([b"pack", b"--space", space], env)
        explained = _run([b"explain", b"--json", b"--space", space], env)
        from_env = _run([b"pack"], env, space_env=space)
        outputs[label] = (pack, explained, from_env)
    reference = outputs["utf-8"]
    pack = reference[0].decode("utf-8")
    # All three documents, under their own (NFD and NFC apart) names, in code-point order.
    assert pack.count("## Decision: ") == 3
    for name in NAMES:
        assert f"(.ledger/decisions/{name})" in pack
    assert reference[2] == reference[0]
    digests = {label: hashlib.sha256(out[0]).hexdigest() for label, out in outputs.items()}
    assert set(digests.values()) == {hashlib.sha256(reference[0]).hexdigest()}, digests
    for label, out in outputs.items():
        assert out == reference, label
    if latin1_locale is None:
        pytest.skip("no Latin-1 locale could be built here; UTF-8 and C compared only")


def _served_pack(space: bytes, env: dict[str, str]) -> tuple[str, str]:
    """(pack text, receipt SHA-256) of get_context from ``serve`` under ``env``, over raw JSON-RPC."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONUTF8"))}
    full_env.update(env)
    environb = {os.fsencode(k): os.fsencode(v) for k, v in full_env.items()}
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "get_context", "arguments": {}},
        },
    ]
    result = subprocess.run(
        [os.fsencode(sys.executable), b"-m", b"ledger_context", b"serve", b"--no-audit", b"--space", space],
        input="".join(json.dumps(line) + "\n" for line in lines).encode(),
        capture_output=True,
        env=environb,  # type: ignore[arg-type]
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    answer = next(m for m in map(json.loads, result.stdout.splitlines()) if m.get("id") == 2)
    return answer["result"]["content"][0]["text"], answer["result"]["_meta"]["ledger-context/receipt"][
        "sha256"
    ]


def test_the_server_serves_the_same_pack_under_every_locale(
    tmp_path: Path, latin1_locale: dict[str, str] | None
) -> None:
    space = _space(tmp_path)
    expected = _run([b"pack", b"--space", space], {"LC_ALL": "C.UTF-8"})
    locales = [{"LC_ALL": "C.UTF-8"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}]
    if latin1_locale is not None:
        locales.append(latin1_locale)
    for env in locales:
        text, sha256 = _served_pack(space, env)
        assert text.encode("utf-8") == expected, env
        assert sha256 == hashlib.sha256(expected).hexdigest(), env


# --------------------------------------------------------------------------- encodings: file names (hostile input)


def test_file_name_not_valid_utf8_is_skipped_and_reported_escaped(tmp_path):
    space = write_ledger(
        tmp_path / "space", {b"harnesses/bad\xff.md": ACTIVE_HARNESS, "harnesses/ok.md": ACTIVE_HARNESS}
    )
    result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    assert doc_paths(result) == [H + "ok.md"]
    bad = [p for p in result.ledger.problems if p.path.startswith('"' + H + "bad")]
    assert [p.severity for p in bad] == ["error"]
    assert bad[0].path == '"' + H + 'bad\\xff.md"'
    assert_clean_text(bad[0].path)


def test_folder_name_not_valid_utf8_skips_the_documents_inside(tmp_path):
    space = write_ledger(tmp_path / "space", {b"harnesses/dir\xfe/h.md": ACTIVE_HARNESS})
    result = build_context(space)
    assert result.pack == ""
    bad = [p for p in result.ledger.problems if p.severity == "error"]
    assert len(bad) == 1 and bad[0].path.startswith('"' + H + "dir\\xfe")
    assert_clean_text(bad[0].path)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("tab\there.md", id="tab"),
        pytest.param("new\nline.md", id="newline"),
        pytest.param("carriage\rreturn.md", id="cr"),
        pytest.param("bell\x07.md", id="bell"),
        pytest.param("esc\x1b[31m.md", id="ansi-escape"),
        pytest.param("del\x7f.md", id="del"),
        pytest.param("nel\x85.md", id="c1-nel"),
        pytest.param("csi\x9b.md", id="c1-csi"),
        pytest.param("line\u2028sep.md", id="u2028"),
        pytest.param("para\u2029sep.md", id="u2029"),
    ],
)
def test_file_name_with_a_control_character_is_skipped_and_reported_escaped(tmp_path, name, capsys):
    space = write_ledger(tmp_path / "space", {"harnesses/" + name: ACTIVE_HARNESS})
    result = build_context(space)
    assert result.pack == ""
    assert result.ledger.documents == []
    (problem,) = result.ledger.problems
    assert problem.severity == "error"
    assert problem.path.startswith('"' + H) and problem.path.endswith('.md"')
    assert_clean_text(problem.path)
    status, out = check(space, capsys)
    assert status == 2
    assert_clean_text(out.replace("\n", " "))


def test_folder_name_with_a_newline_skips_the_documents_inside(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/sub\ndir/h.md": ACTIVE_HARNESS})
    result = build_context(space)
    assert result.pack == ""
    (problem,) = result.ledger.problems
    assert problem.severity == "error"
    assert_clean_text(problem.path)


def test_misspelt_top_level_entry_with_a_control_character_is_reported_escaped(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/ok.md": ACTIVE_HARNESS})
    (space / ".ledger" / "bad\nname").mkdir()
    result = build_context(space)
    assert result.pack == harness("ok", H + "ok.md", "status: active")
    (problem,) = result.ledger.problems
    assert problem.severity == "warning"
    assert_clean_text(problem.path)


def test_file_name_with_a_bidi_override_is_clean_text_and_kept(tmp_path):
    # U+202E is category Cf: not a control character (Cc) nor a line separator (§1).
    name = "\u202eevil.md"
    space = write_ledger(tmp_path / "space", {"harnesses/" + name: ACTIVE_HARNESS})
    result = build_context(space)
    assert result.pack == harness("\u202eevil", H + name, "status: active")


def test_file_name_with_spaces_and_accents_is_kept(tmp_path):
    name = "été à Zürich.md"
    space = write_ledger(tmp_path / "space", {"harnesses/" + name: ACTIVE_HARNESS})
    assert build_context(space).pack == harness("été à Zürich", H + name, "status: active")


def test_check_json_with_bad_file_names_is_valid_json(tmp_path, capsys):
    space = write_ledger(
        tmp_path / "space",
        {b"harnesses/bad\xff.md": ACTIVE_HARNESS, "harnesses/new\nline.md": ACTIVE_HARNESS},
    )
    status, data = check_json(space, capsys)
    assert status == 2
    paths = [p["path"] for p in data["problems"]]
    assert len(paths) == 2
    for path in paths:
        assert_clean_text(path)


def test_a_path_that_needs_escapes_is_quoted_and_its_backslashes_escaped() -> None:
    # Issue 29: "\x08" written bare could not be told from a file named with a backslash.
    assert printable_path(".ledger/a\x08b.md") == '".ledger/a\\u0008b.md"'
    assert printable_path('.ledger/a\x08\\"b.md') == '".ledger/a\\u0008\\\\\\"b.md"'
    assert printable_path(".ledger/a\\x08b.md") == ".ledger/a\\x08b.md"  # clean: as it is
    assert printable_path(".ledger/l\u2028" + name_text(b"\xff")) == '".ledger/l\\u2028\\xff"'

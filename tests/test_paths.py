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

from ledger_context.paths import fs_path, name_text, path_fault, printable_path

DECISION = "---\ntitle: {title}\nstatus: accepted\nupdated_at: 2026-01-0{day}\n---\nBody.\n"
NAMES = ("caf\u00e9.md", "cafe\u0301.md", "\u6f22\u5b57.md")  # NFC, NFD, 漢字


def test_names_are_decoded_as_strict_utf8_and_bad_bytes_are_escaped() -> None:
    assert name_text("caf\u00e9".encode()) == "caf\u00e9"
    bad = name_text(b"caf\xe9.md")  # Latin-1 bytes: not UTF-8
    assert path_fault(bad) == "its name is not valid UTF-8"
    assert printable_path(bad) == "caf\\xe9.md"
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

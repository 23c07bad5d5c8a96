"""Search gives the same bytes whatever the locale (C, UTF-8, Latin-1), the YAML loader
(libyaml, pure Python, the quick path off), the files' modification times, and whether
the index is warm (spec §10)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import doc, write_ledger

QUERY = "Straße 東京 jwt café"


def _ledger(tmp_path: Path) -> Path:
    return write_ledger(
        tmp_path / "space",
        {
            "agents.md": "# Agents\nUse JWT everywhere.\n",
            "decisions/0001-jwt.md": doc(
                title="JWT für die Straße", status="accepted", updated_at="2026-01-02"
            )
            + "Café notes: jwt.\n",
            "findings/tokyo.md": doc(title="東京の遅延", status="current", data_class="internal")
            + "東京 jwt\n",
            "experiments/e.md": doc(status="done", updated_at="2026-01-01", tags="[café, jwt]") + "# Run\n",
        },
    )


def _latin1_locale(tmp_path: Path) -> dict[str, str] | None:
    """A Latin-1 locale built with localedef, where the system has the sources."""
    if shutil.which("localedef") is None or not Path("/usr/share/i18n/locales/en_US").exists():
        return None
    out = tmp_path / "locales"
    out.mkdir()
    made = subprocess.run(
        ["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(out / "en_US.ISO-8859-1")], capture_output=True
    )
    return {"LOCPATH": str(out), "LC_ALL": "en_US.ISO-8859-1"} if made.returncode in (0, 1) else None


def _search(space: Path, env: dict[str, str]) -> bytes:
    command = [sys.executable, "-m", "ledger_context", "search", QUERY, "--json", "--space", str(space)]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "LEDGER_"))}
    done = subprocess.run(command, capture_output=True, env={**clean, **env}, check=True)
    return done.stdout


def test_search_bytes_do_not_depend_on_locale_loader_or_mtimes(tmp_path: Path) -> None:
    space = _ledger(tmp_path)
    expected = _search(space, {"LC_ALL": "C.UTF-8"})
    assert b'"path":".ledger/decisions/0001-jwt.md"' in expected
    envs = [{"LC_ALL": "C"}, {"LEDGER_CONTEXT_YAML": "python"}, {"LEDGER_CONTEXT_QUICK_YAML": "off"}]
    latin1 = _latin1_locale(tmp_path)
    if latin1 is not None:
        envs.append(latin1)
    for env in envs:
        assert _search(space, env) == expected, env
    for number, path in enumerate(sorted((space / ".ledger").rglob("*.md"))):
        os.utime(path, (1_000_000 + number * 7919, 2_000_000_000 - number * 104_729))
    assert _search(space, {"LC_ALL": "C"}) == expected

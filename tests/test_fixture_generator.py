"""The fixture generator (``ledger_fixtures/generate.py``) writes exactly the committed fixtures.

It keeps the documents as data and checks each space with the package's own builder. Run
into a temporary folder, it must write the committed ``demo/``, ``overflow/`` and ``floor/``
byte for byte: a changed value in its data shows here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES

GENERATOR = FIXTURES / "generate.py"
SPACES = ("demo", "overflow", "floor")


def _files(root: Path) -> dict[str, bytes]:
    """Every file below ``root``: {path relative to it: bytes}."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """One run of the generator with ``--out``: the folder it wrote and its summary lines."""
    out = tmp_path_factory.mktemp("fixtures")
    (out / "keep.txt").write_text("not a space\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-B", str(GENERATOR), "--out", str(out)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    return out, run.stdout.splitlines()


@pytest.mark.parametrize("space", SPACES)
def test_the_generator_writes_the_committed_space_byte_for_byte(
    generated: tuple[Path, list[str]], space: str
) -> None:
    written, committed = _files(generated[0] / space), _files(FIXTURES / space)
    assert sorted(written) == sorted(committed)
    assert [name for name in sorted(written) if written[name] != committed[name]] == []


def test_the_generator_writes_only_the_three_spaces_into_out(generated: tuple[Path, list[str]]) -> None:
    out = generated[0]
    assert sorted(p.name for p in out.iterdir()) == ["demo", "floor", "keep.txt", "overflow"]
    assert (out / "keep.txt").read_text(encoding="utf-8") == "not a space\n"


def test_the_generator_prints_each_space_as_the_package_builds_it(generated: tuple[Path, list[str]]) -> None:
    demo, overflow, floor = generated[1]
    assert demo == (
        "demo: harnesses=3, evals=4, findings=9, decisions=8, experiments=100; "
        "blocks per group {1: 1, 2: 1, 3: 3, 4: 6, 5: 5, 6: 10}; groups 1-3 3651 B; "
        "pack before budget 12216 B; after budget 12216 B, "
        "blocks in the pack per group {1: 1, 2: 1, 3: 3, 4: 6, 5: 5, 6: 10}"
    )
    assert overflow == (
        "overflow: harnesses=3, evals=4, findings=40, decisions=40, experiments=30; "
        "blocks per group {1: 1, 2: 1, 3: 3, 4: 30, 5: 32, 6: 10}; groups 1-3 3651 B; "
        "pack before budget 47266 B; after budget 23626 B, "
        "blocks in the pack per group {1: 1, 2: 1, 3: 3, 4: 30, 5: 2, 6: 0}"
    )
    # zh-routing lies wholly past the cut, so only two of the three evals reach the pack.
    assert floor == (
        "floor: harnesses=2, evals=4, findings=3, decisions=3, experiments=12; "
        "blocks per group {1: 1, 2: 1, 3: 3, 4: 2, 5: 2, 6: 10}; groups 1-3 24365 B; "
        "pack before budget 27605 B; after budget 23998 B, truncated, "
        "blocks in the pack per group {1: 1, 2: 1, 3: 2, 4: 0, 5: 0, 6: 0}"
    )

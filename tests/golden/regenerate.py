"""Regenerate the golden packs: ``make golden`` (never edit the .pack files by hand).

Writes ``tests/golden/<fixture>.pack`` for every space under ``ledger_fixtures/`` with
the default cap and no ceiling, plus ``demo-internal.pack`` (ceiling ``internal``).
Review the diff before committing: a changed golden file is a changed contract.
"""

from __future__ import annotations

from pathlib import Path

from ledger_context import build_context

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parents[1] / "ledger_fixtures"

CASES: dict[str, tuple[str, str | None]] = {
    "demo": ("demo", None),
    "overflow": ("overflow", None),
    "floor": ("floor", None),
    "demo-internal": ("demo", "internal"),
}


def main() -> None:
    for name, (fixture, ceiling) in CASES.items():
        pack = build_context(FIXTURES / fixture, max_data_class=ceiling).pack
        (HERE / f"{name}.pack").write_bytes(pack.encode("utf-8"))
        print(f"{name}.pack: {len(pack.encode('utf-8'))} bytes")


if __name__ == "__main__":
    main()

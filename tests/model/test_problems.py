"""Problems: where they point (``location``) and the order ``check`` lists them in."""

from __future__ import annotations

from ledger_context.model.problems import SEVERITIES, Problem, problem_sort_key


def test_location_is_path_then_line_then_column_as_editors_expect() -> None:
    assert Problem(".ledger/a.md", "error", "m").location() == ".ledger/a.md"
    assert Problem(".ledger/a.md", "error", "m", line=4).location() == ".ledger/a.md:4"
    assert Problem(".ledger/a.md", "error", "m", line=4, column=2).location() == ".ledger/a.md:4:2"


def test_a_column_without_a_line_is_not_shown() -> None:
    assert Problem(".ledger/a.md", "warning", "m", column=9).location() == ".ledger/a.md"


def test_problems_sort_by_path_line_column_severity_then_message() -> None:
    problems = [
        Problem("b", "error", "x"),
        Problem("a", "info", "x", line=2),
        Problem("a", "warning", "z", line=2),
        Problem("a", "warning", "y", line=2),
        Problem("a", "error", "x", line=2, column=5),
        Problem("a", "error", "x", line=1),
        Problem("a", "error", "x"),
    ]
    ordered = sorted(problems, key=problem_sort_key)
    assert [(p.path, p.line, p.column, p.severity, p.message) for p in ordered] == [
        ("a", None, None, "error", "x"),
        ("a", 1, None, "error", "x"),
        ("a", 2, None, "warning", "y"),
        ("a", 2, None, "warning", "z"),
        ("a", 2, None, "info", "x"),
        ("a", 2, 5, "error", "x"),
        ("b", None, None, "error", "x"),
    ]


def test_paths_sort_by_code_point_not_by_locale() -> None:
    paths = ["é", "z", "Z", "a"]
    ordered = sorted((Problem(p, "error", "m") for p in paths), key=problem_sort_key)
    assert [p.path for p in ordered] == ["Z", "a", "z", "é"]


def test_the_severities_are_error_warning_info_in_that_order() -> None:
    assert SEVERITIES == ("error", "warning", "info")

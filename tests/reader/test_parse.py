"""parse_document: bytes to a document with no I/O (spec §2, §3, §7)."""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from conftest import (
    ACTIVE_HARNESS,
    FIXTURES,
    Files,
    MiB,
    assert_skipped,
    deadline,
    examples,
    fence,
    fm,
    harness,
    libyaml_only,
    problems_at,
    write_ledger,
)
from ledger_context import build_context
from ledger_context.explain.breakdown import explanation_json
from ledger_context.explain.full import explain
from ledger_context.explain.readout import budget_text, problems_text
from ledger_context.reader import parse
from ledger_context.reader.check import check_ledger
from ledger_context.reader.frontmatter import FrontmatterError, load_with_yaml
from ledger_context.reader.parse import parse_document
from ledger_context.reader.quick_yaml import quick_mapping
from reference.ledgers import SpaceSpec, max_data_class, spaces, write_space

Ledger = Callable[[Files], Path]
AGENTS = ".ledger/agents.md"
H = ".ledger/harnesses/"


def harness_block(title: str, path: str, frontmatter: str) -> str:
    return f"## Harness: {title} ({path})\n---\n{frontmatter}\n---\n"


def test_parse_document_reads_bytes_without_touching_the_disk() -> None:
    data = b"---\nstatus: active\ntitle: T\n---\n# H\n"
    result = parse_document("harness", "x/h.md", data)
    document = result.document
    assert document is not None
    assert (document.kind, document.path, document.status, document.title, document.slug) == (
        "harness",
        "x/h.md",
        "active",
        "T",
        "h",
    )
    assert document.sha256 == hashlib.sha256(data).hexdigest()
    assert document.yaml_loader == "quick"
    assert result.size == len(data)


# --------------------------------------------------------------------------- §7 misspelt class keys


@pytest.mark.parametrize(
    "key", ["Data_Class", "DATA-CLASS", "data class", "dataclass", "DATA_CLASS", "Data-Class"]
)
def test_a_misspelt_class_key_declares_unknown_and_names_the_right_spelling(key: str) -> None:
    result = parse_document("harness", "h.md", f"---\nstatus: active\n{key}: public\n---\n".encode())
    assert result.document is not None
    assert result.document.data_class == "unknown"
    (problem,) = result.problems
    assert problem.severity == "warning"
    assert "spell it data_class" in problem.message
    assert key not in problem.message


def test_a_misspelt_class_key_beside_the_right_one_still_declares_unknown() -> None:
    data = b"---\ndata_class: public\nData_Class: public\n---\n"
    document = parse_document("decision", "d.md", data).document
    assert document is not None and document.data_class == "unknown"


@pytest.mark.parametrize("key", ["data_classes", "class", "data_clas", "metadata_class"])
def test_other_keys_are_not_class_keys(key: str) -> None:
    result = parse_document("harness", "h.md", f"---\nstatus: active\n{key}: restricted\n---\n".encode())
    assert result.document is not None and result.document.data_class is None
    assert result.problems == ()


def test_a_misspelt_class_key_is_withheld_under_any_ceiling(ledger: Ledger) -> None:
    frontmatter = "status: active\nData_Class: public"
    space = ledger({"harnesses/h.md": f"---\n{frontmatter}\n---\n"})
    assert build_context(space).pack == harness_block("h", H + "h.md", frontmatter)
    ceiled = build_context(space, max_data_class="restricted")
    assert ceiled.pack == ""
    assert [(d.path, d.data_class) for d in ceiled.selection.withheld] == [(H + "h.md", "unknown")]


# --------------------------------------------------------------------------- §2 nesting


def _nested(style: str, level: int, value: bool) -> str:
    """A frontmatter whose deepest collection sits at ``level`` (the top mapping is 1),
    holding one scalar (``value``) or empty."""
    if style == "block-mapping":
        lines = [" " * (i - 2) + f"k{i}:" for i in range(2, level + (1 if value else 0))]
        last = " " * (level - 1) + "v: x" if value else " " * (level - 2) + f"k{level}: {{}}"
        return "\n".join([*lines, last])
    if style == "block-sequence":
        return "s:\n" + "- " * (level - 1) + "x" if value else "s:\n" + "- " * (level - 2) + "[]"
    inner = "x" if value else ""
    return "f: " + "[" * (level - 1) + inner + "]" * (level - 1)


@pytest.mark.parametrize("loader", ["libyaml", "python"])
@pytest.mark.parametrize("style", ["block-mapping", "block-sequence", "flow"])
@pytest.mark.parametrize("value", [True, False], ids=["with-value", "empty"])
def test_a_collection_at_level_64_loads_and_one_at_65_is_invalid(
    loader: str, style: str, value: bool
) -> None:
    ok = _nested(style, 64, value)
    mapping, _ = load_with_yaml(ok, loader)  # type: ignore[arg-type]
    depth, node = 1, mapping
    while True:  # walk down to the deepest collection
        children = [
            c for c in (node.values() if isinstance(node, dict) else node) if isinstance(c, (dict, list))
        ]
        if not children:
            break
        node, depth = children[0], depth + 1
    assert depth == 64
    assert (node == ["x"] or node == {"v": "x"}) if value else node in ([], {})
    with pytest.raises(FrontmatterError) as caught:
        load_with_yaml(_nested(style, 65, value), loader)  # type: ignore[arg-type]
    assert "nested more than 64 levels" in str(caught.value)
    assert caught.value.line is not None


@pytest.mark.parametrize("style", ["block-mapping", "block-sequence", "flow"])
def test_the_quick_path_leaves_deep_nesting_to_the_full_loader(style: str) -> None:
    assert quick_mapping(_nested(style, 64, True)) is None
    assert quick_mapping(_nested(style, 65, True)) is None


def test_an_alias_counts_its_depth_where_it_is_used() -> None:
    deep = "[" * 40 + "x" + "]" * 40
    for loader in ("libyaml", "python"):
        load_with_yaml(f"a: &d {deep}", loader)  # level 41: fine
        with pytest.raises(FrontmatterError):
            load_with_yaml(f"a: &d {deep}\nb: {'[' * 30}*d{']' * 30}", loader)  # level 71


@pytest.mark.parametrize("value", [True, False], ids=["with-value", "empty"])
def test_a_document_nested_to_level_64_is_packed_and_65_skipped(ledger: Ledger, value: bool) -> None:
    ok = "status: active\n" + _nested("flow", 64, value)
    deep = "status: active\n" + _nested("flow", 65, value)
    space = ledger({"harnesses/a.md": f"---\n{ok}\n---\n", "harnesses/b.md": f"---\n{deep}\n---\n"})
    result = build_context(space)
    assert result.pack == harness_block("a", H + "a.md", ok)
    (problem,) = [p for p in result.ledger.problems if p.path == H + "b.md"]
    assert (problem.severity, problem.line) == ("error", 3)


# --------------------------------------------------------------------------- §2, §7 agents.md fails closed


@pytest.mark.parametrize(
    ("text", "line"),
    [
        pytest.param('+++\ndata_class = "restricted"\n+++\nRead me.\n', 1, id="toml"),
        pytest.param('+++ data_class = "restricted" +++\nRead me.\n', 1, id="toml-one-line"),
        pytest.param('\n  \n{"data_class": "restricted"}\nRead me.\n', 3, id="json"),
        pytest.param("---\ndata_class: restricted\nRead me.\n", 1, id="unclosed"),
        pytest.param("---\ndata_class: [\n---\nRead me.\n", 3, id="unparsable", marks=libyaml_only),
        pytest.param("---\n- data_class\n---\nRead me.\n", 2, id="not-a-mapping"),
    ],
)
def test_agents_md_of_unknown_class_is_included_without_a_ceiling_and_withheld_under_one(
    ledger: Ledger, text: str, line: int
) -> None:
    space = ledger({"agents.md": text, "harnesses/h.md": "---\nstatus: active\n---\n"})
    block = harness_block("h", H + "h.md", "status: active")
    free = build_context(space)
    assert free.pack == text + "\n" + block
    (problem,) = [p for p in free.ledger.problems if p.path == AGENTS]
    assert (problem.severity, problem.line) == ("warning", line)
    assert "unknown" in problem.message and "restricted" not in problem.message.split("stricter than")[0]
    for ceiling in ("public", "restricted"):
        ceiled = build_context(space, max_data_class=ceiling)
        assert ceiled.pack == block
        assert [(d.path, d.data_class) for d in ceiled.selection.withheld] == [(AGENTS, "unknown")]
        assert [p for p in ceiled.ledger.problems if p.path == AGENTS] == [problem]


@pytest.mark.parametrize("text", ["Read me.\n", "\n\nplain { text\n", "---\ndata_class: public\n---\nhi\n"])
def test_agents_md_without_frontmatter_or_with_a_valid_one_is_not_unknown(ledger: Ledger, text: str) -> None:
    space = ledger({"agents.md": text})
    assert build_context(space, max_data_class="public").pack == text


# --------------------------------------------------------------------------- only what is used


def _outputs(space: Path, ceiling: str | None) -> tuple[str, str, str, str, str]:
    """The pack, ``explain --full --json`` and its text, ``check --json`` and its text."""
    build = build_context(space, max_data_class=ceiling)
    explanation = explain(build, "full")
    report = check_ledger(build.ledger, now_us=0)
    check_json = json.dumps([[p.path, p.severity, p.message, p.line, p.column] for p in report.problems])
    return (
        build.pack,
        explanation_json(explanation),
        budget_text(explanation),
        check_json,
        problems_text(report.problems),
    )


def _eager_outputs(space: Path, ceiling: str | None) -> tuple[str, str, str, str, str]:
    """:func:`_outputs` with every eval's metrics list computed, as before the reader
    learned to compute only what the pack uses (titles are computed for every document)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parse, "renders_metrics", lambda kind, status: kind == "eval")
        return _outputs(space, ceiling)


@pytest.mark.parametrize("fixture", ["demo", "overflow", "floor"])
@pytest.mark.parametrize("ceiling", [None, "internal"])
def test_computing_only_what_is_used_changes_no_output_on_the_fixtures(
    fixture: str, ceiling: str | None
) -> None:
    space = FIXTURES / fixture
    assert _outputs(space, ceiling) == _eager_outputs(space, ceiling)


@settings(max_examples=examples(60), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(spec=spaces(), ceiling=max_data_class())
def test_computing_only_what_is_used_changes_no_output_on_generated_ledgers(
    spec: SpaceSpec, ceiling: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        space = write_space(Path(tmp), spec)
        assert _outputs(space, ceiling) == _eager_outputs(space, ceiling)


def test_an_unselected_document_gets_its_title_and_body_but_an_inactive_eval_no_metrics() -> None:
    body = b"---\nstatus: draft\n---\n# Heading\n## Metrics\n- m\n"
    document = parse_document("eval", "e.md", body).document
    assert document is not None and (document.title, document.metrics) == ("Heading", ())
    assert document.body == "# Heading\n## Metrics\n- m\n"
    experiment = parse_document("experiment", "x/run-7.md", b"---\nstatus: done\n---\nno heading\n").document
    assert experiment is not None and experiment.title == "run-7"
    active = parse_document("eval", "e.md", body.replace(b"draft", b"active")).document
    assert active is not None and (active.title, active.metrics) == ("Heading", ("- m",))


# --------------------------------------------------------------------------- frontmatter shape: not a mapping (hostile input)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("- status\n- active", id="block-list"),
        pytest.param("[status, active]", id="flow-list"),
        pytest.param("just a sentence", id="plain-scalar"),
        pytest.param('"status: active"', id="quoted-scalar"),
        pytest.param("|\n  status: active", id="block-scalar"),
        pytest.param("~", id="null-scalar"),
    ],
)
def test_frontmatter_that_is_not_a_mapping_is_skipped(tmp_path, text):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text), "harnesses/ok.md": ACTIVE_HARNESS})
    result = build_context(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == harness("ok", H + "ok.md", "status: active")


# --------------------------------------------------------------------------- frontmatter shape: other formats (hostile input)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('+++\nstatus = "active"\n+++\n', id="toml"),
        pytest.param('{"status": "active"}\n', id="json"),
        pytest.param(';;;\n{"status": "active"}\n;;;\n', id="json-semicolons"),
        pytest.param("```yaml\nstatus: active\n```\n", id="fenced-code"),
    ],
)
def test_other_frontmatter_formats_are_not_recognised(tmp_path, text):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": text})
    result = build_context(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == ""


def test_toml_agents_md_is_included_verbatim_without_a_ceiling_and_withheld_under_one(tmp_path):
    # Spec §2 (updated): a +++ opening line leaves the class unknown (fail closed).
    text = '+++\ndata_class = "restricted"\n+++\nHello\n'
    space = write_ledger(tmp_path / "space", {"agents.md": text})
    assert build_context(space).pack == text
    result = build_context(space, max_data_class="public")
    assert result.pack == ""
    assert [(d.path, d.data_class) for d in result.selection.withheld] == [(".ledger/agents.md", "unknown")]


def test_json_inside_yaml_fences_is_a_yaml_flow_mapping(tmp_path):
    text = '{"status": "active", "slug": "j"}'
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("j", H + "h.md", text)


# --------------------------------------------------------------------------- frontmatter shape: keys that are not strings (hostile input)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        pytest.param("status: active\n? [a, b]\n: v", 3, id="list-key"),
        pytest.param("status: active\n? {a: b}\n: v", 3, id="mapping-key"),
        pytest.param("status: active\n[a, b]: v", 3, id="flow-list-key"),
    ],
)
def test_key_that_is_a_list_or_mapping_is_skipped(tmp_path, text, line):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert problem.line == line


def test_keys_that_look_like_numbers_booleans_or_null_are_strings(tmp_path):
    text = "1: one\ntrue: yes\n~: tilde\nnull: n\nstatus: active"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    assert result.pack == harness("h", H + "h.md", text)
    assert not result.ledger.problems


def test_keys_match_exactly_case_included(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm("Status: active\nSTATUS: active")})
    result = build_context(space)
    assert result.pack == ""
    assert [d.status for d in result.ledger.documents] == [None]


# --------------------------------------------------------------------------- frontmatter shape: anchors, aliases, tags (hostile input)


def test_alias_resolves_to_the_anchored_value_and_the_text_stays_verbatim(tmp_path):
    text = "word: &w active\nstatus: *w"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("h", H + "h.md", text)


def test_merge_key_is_not_applied_by_the_base_loader(tmp_path):
    # BaseLoader has no implicit types, the YAML 1.1 merge key included: "<<" is a plain key.
    text = "base: &b {status: active}\n<<: *b"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    assert result.pack == ""
    assert [d.status for d in result.ledger.documents] == [None]


def test_python_tags_are_not_constructed(tmp_path):
    text = "status: active\ntitle: !!python/object/apply:os.system [echo pwned]\nslug: !!int 7"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space)
    # title is a list, so the title falls back to the slug; slug stays the string "7".
    assert result.pack == harness("7", H + "h.md", text)


def test_duplicate_anchor_is_a_yaml_error_on_the_second_anchor(tmp_path):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm("a: &x 1\nb: &x 2\nstatus: active")})
    (problem,) = assert_skipped(build_context(space), H + "h.md")
    assert problem.line == 3


def _billion_laughs(levels: int = 12) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        refs = ", ".join([f"*l{level - 1}"] * 10)
        lines.append(f"l{level}: &l{level} [{refs}]")
    return "\n".join(lines)


def _mapping_bomb(levels: int = 12) -> str:
    lines = ["m0: &m0 {a: lol, b: lol, c: lol, d: lol, e: lol, f: lol, g: lol, h: lol, i: lol, j: lol}"]
    for level in range(1, levels):
        refs = ", ".join(f"k{i}: *m{level - 1}" for i in range(10))
        lines.append(f"m{level}: &m{level} {{{refs}}}")
    return "\n".join(lines)


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param("status: active", id="plain"),
        pytest.param("status: active\ntitle: *l11", id="bomb-as-title"),
        pytest.param("status: active\nslug: *l11", id="bomb-as-slug"),
        pytest.param("status: active\ndata_class: *l11", id="bomb-as-data-class"),
        pytest.param("status: active\nupdated_at: *l11", id="bomb-as-updated-at"),
    ],
)
def test_alias_bomb_returns_quickly_with_bounded_memory(tmp_path, extra):
    text = _billion_laughs() + "\n" + extra
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    tracemalloc.start()
    started = time.monotonic()
    try:
        with deadline(20):
            result = build_context(space)
        elapsed = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 5
    assert peak < 64 * MiB
    assert result.pack == harness("h", H + "h.md", text)


def test_alias_bomb_as_status_never_matches_and_is_reported(tmp_path):
    text = _billion_laughs() + "\nstatus: *l11"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    with deadline(20):
        result = build_context(space)
    assert result.pack == ""
    assert [p.severity for p in problems_at(result, H + "h.md")] == ["warning"]


def test_mapping_alias_bomb_returns_quickly_and_renders_verbatim(tmp_path):
    text = _mapping_bomb() + "\nstatus: active"
    space = write_ledger(tmp_path / "space", {"experiments/e.md": fm(text + "\nupdated_at: 2026-01-01")})
    started = time.monotonic()
    with deadline(20):
        result = build_context(space)
    assert time.monotonic() - started < 5
    assert result.pack == fence(text + "\nupdated_at: 2026-01-01")


# --------------------------------------------------------------------------- frontmatter shape: deep nesting (hostile input)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("[" * 10_000 + "]" * 10_000, id="10000-flow-lists"),
        pytest.param("{a: " * 10_000 + "x" + "}" * 10_000, id="10000-flow-mappings"),
        pytest.param("\n" + "".join(" " * (i + 1) + "- \n" for i in range(3_000)), id="3000-block-lists"),
        pytest.param("[" * 10_000, id="10000-unclosed"),
    ],
)
def test_very_deep_nesting_is_skipped_without_a_crash(tmp_path, value):
    space = write_ledger(
        tmp_path / "space",
        {"harnesses/h.md": fm(f"status: active\ndeep: {value}"), "harnesses/ok.md": ACTIVE_HARNESS},
    )
    with deadline(30):
        result = build_context(space)
    assert_skipped(result, H + "h.md")
    assert result.pack == harness("ok", H + "ok.md", "status: active")


def test_modest_nesting_is_accepted(tmp_path):
    text = "status: active\nnested: " + "[" * 20 + "x" + "]" * 20
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert build_context(space).pack == harness("h", H + "h.md", text)


def test_deeply_nested_agents_frontmatter_is_still_included_verbatim(tmp_path):
    text = "---\ndeep: " + "[" * 10_000 + "]" * 10_000 + "\n---\nRead me.\n"
    space = write_ledger(tmp_path / "space", {"agents.md": text})
    result = build_context(space)
    assert result.pack == text
    problems = problems_at(result, ".ledger/agents.md")
    assert problems and all(p.severity != "error" for p in problems)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("---\ndata_class: [\n---\nRead me.\n", id="yaml-error"),
        pytest.param("---\n- a list\n---\nRead me.\n", id="list"),
        pytest.param("---\ndata_class: restricted\nRead me.\n", id="unclosed"),
    ],
)
def test_agents_md_with_broken_frontmatter_is_included_verbatim_and_reported(tmp_path, text):
    # Spec §2 (updated): a broken frontmatter declares unknown: included verbatim
    # without a ceiling, withheld under any ceiling, reported either way.
    space = write_ledger(tmp_path / "space", {"agents.md": text})
    result = build_context(space)
    assert result.pack == text
    problems = problems_at(result, ".ledger/agents.md")
    assert problems and all(p.severity != "error" for p in problems)
    ceiled = build_context(space, max_data_class="restricted")
    assert ceiled.pack == ""
    assert problems_at(ceiled, ".ledger/agents.md") == problems


MERGED_CLASS = (
    "a YAML merge key (<<) would set data_class, but merge keys are not applied "
    "(spec §7 reads data_class at the top level only), so this document declares "
    "no class and passes any ceiling: write data_class out at the top level"
)
LOOKS_LIKE_CLASS = (
    "a key looks like data_class but holds invisible or non-ASCII characters, so it "
    "is not read (spec §7) and does not declare this document's class: spell it "
    "data_class in plain ASCII"
)


@pytest.mark.parametrize(
    "text",
    ["status: active\n<<: {data_class: confidential}", "status: active\nbase: &c {Data-Class: x}\n<<: [*c]"],
)
def test_a_class_set_through_a_merge_key_is_named_as_not_read(tmp_path, text):
    # Found by trying to break the product: spec §7 reads data_class at the top level only,
    # so the document declares none; the warning must say so, not only that << is plain.
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    result = build_context(space, max_data_class="internal")
    (document,) = result.ledger.documents
    assert document.data_class is None
    assert [(p.message, p.line) for p in result.ledger.problems if "<<" in p.message] == [
        (MERGED_CLASS, text.count("\n") + 2)
    ]


@pytest.mark.parametrize(
    "key", ["data\u200b_class", "d\u0430ta_class", "\uff44\uff41\uff54\uff41_class", "dat\u0430class"]
)
def test_a_key_that_looks_like_data_class_is_named(tmp_path, key):
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(f"status: active\n{key}: confidential")})
    result = build_context(space, max_data_class="internal")
    assert [d.data_class for d in result.ledger.documents] == [None]  # spec §7: not a class key
    assert [(p.message, p.line) for p in result.ledger.problems] == [(LOOKS_LIKE_CLASS, 3)]


def test_keys_beyond_ascii_that_do_not_look_like_data_class_are_not_named(tmp_path):
    text = "status: active\ncafé: x\nclasse: y\n数据: z"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    assert list(build_context(space).ledger.problems) == []


def test_a_merge_key_listing_one_large_mapping_many_times_is_read_in_linear_time(tmp_path):
    # Hostile input: 20,000 keys behind one anchor, merged 20,000 times.
    keys = ", ".join(f"k{i}: 1" for i in range(20_000))
    text = f"status: active\nbase: &b {{{keys}}}\n<<: [{', '.join(['*b'] * 20_000)}]"
    space = write_ledger(tmp_path / "space", {"harnesses/h.md": fm(text)})
    started = time.perf_counter()
    result = build_context(space)
    assert time.perf_counter() - started < 20
    assert [p.message for p in result.ledger.problems if "<<" in p.message] == [
        "a YAML merge key (<<) is not applied: frontmatter is read without YAML types, so << is a "
        "plain key; write the merged keys out"
    ]

"""Spec §4–5: which documents become blocks, in which order, rendered how."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from conftest import Files, doc, fm, write_ledger
from ledger_context import build_context
from ledger_context.pack.select import fenced

Ledger = Callable[[Files], Path]


def pack_of(space: Path, **options: object) -> str:
    return build_context(space, **options).pack  # type: ignore[arg-type]


def test_pack_is_the_six_groups_in_order_joined_by_blank_lines(ledger: Ledger) -> None:
    space = ledger(
        {
            "agents.md": "Be careful.",
            "harnesses/h.md": doc(title="H", status="active"),
            "evals/e.md": doc(title="E", status="active"),
            "findings/f.md": doc(title="F", status="current", updated_at="2026-01-01"),
            "decisions/d.md": doc(title="D", status="accepted", updated_at="2026-01-01"),
            "experiments/x.md": doc(status="done", updated_at="2026-01-01"),
        }
    )
    assert pack_of(space) == (
        "Be careful.\n"
        "\n## Harness: H (.ledger/harnesses/h.md)\n---\ntitle: H\nstatus: active\n---\n"
        "\n## Eval: E (.ledger/evals/e.md)\n---\ntitle: E\nstatus: active\n---\n"
        "\n## Finding: F (.ledger/findings/f.md)\n---\ntitle: F\nstatus: current\nupdated_at: 2026-01-01\n---\n"
        "\n## Decision: D (.ledger/decisions/d.md)\n---\ntitle: D\nstatus: accepted\nupdated_at: 2026-01-01\n---\n"
        "\n---\nstatus: done\nupdated_at: 2026-01-01\n---\n"
    )


def test_only_selected_statuses_reach_groups_2_to_5(ledger: Ledger) -> None:
    space = ledger(
        {
            "harnesses/a.md": doc(status="retired"),
            "harnesses/b.md": doc(status=" ACTIVE "),
            "evals/a.md": doc(status="deprecated"),
            "findings/a.md": doc(status="superseded", updated_at="2026-01-01"),
            "findings/b.md": doc(status="Current", updated_at="2026-01-01"),
            "decisions/a.md": doc(status="proposed", updated_at="2026-01-01"),
            "decisions/b.md": doc(status="accepted", updated_at="2026-01-01"),
        }
    )
    paths = [b.block.document.path for b in build_context(space).budgeted.blocks]
    assert paths == [".ledger/harnesses/b.md", ".ledger/findings/b.md", ".ledger/decisions/b.md"]


def test_harnesses_and_evals_sort_by_slug_then_path(ledger: Ledger) -> None:
    space = ledger(
        {
            "harnesses/z.md": doc(slug="alpha", status="active"),
            "harnesses/a.md": doc(slug="beta", status="active"),
            "harnesses/sub/m.md": doc(slug="alpha", status="active"),
            "evals/b.md": doc(status="active"),
            "evals/a.md": doc(status="active"),
        }
    )
    paths = [b.block.document.path for b in build_context(space).budgeted.blocks]
    assert paths == [
        ".ledger/harnesses/sub/m.md",
        ".ledger/harnesses/z.md",
        ".ledger/harnesses/a.md",
        ".ledger/evals/a.md",
        ".ledger/evals/b.md",
    ]


def test_newest_first_puts_dated_before_undated_then_slug_then_path(ledger: Ledger) -> None:
    space = ledger(
        {
            "findings/old.md": doc(status="current", updated_at="2025-01-01"),
            "findings/undated-b.md": doc(status="current", slug="b"),
            "findings/undated-a.md": doc(status="current", slug="b", updated_at="2024-02-30"),
            "findings/new.md": doc(status="current", updated_at="2026-03-01T10:00:00+02:00"),
            # The same instant as new.md, written in UTC: the slug breaks the tie.
            "findings/also-new.md": doc(status="current", updated_at="2026-03-01T08:00:00Z"),
            "findings/naive.md": doc(status="current", updated_at="2026-03-01T08:30:00"),
        }
    )
    paths = [b.block.document.path for b in build_context(space).budgeted.blocks]
    assert paths == [
        ".ledger/findings/naive.md",
        ".ledger/findings/also-new.md",
        ".ledger/findings/new.md",
        ".ledger/findings/old.md",
        ".ledger/findings/undated-a.md",
        ".ledger/findings/undated-b.md",
    ]


def test_experiments_group_takes_the_ten_latest_of_any_status(ledger: Ledger) -> None:
    files: Files = {
        f"experiments/e{n:02}.md": doc(status=("done", "abandoned", "x")[n % 3], updated_at=f"2026-01-{n:02}")
        for n in range(1, 16)
    }
    files["experiments/undated.md"] = doc(status="done")
    space = ledger(files)
    paths = [b.block.document.path for b in build_context(space).budgeted.blocks]
    assert paths == [f".ledger/experiments/e{n:02}.md" for n in range(15, 5, -1)]


def test_undated_experiments_fill_the_group_after_dated_ones(ledger: Ledger) -> None:
    files: Files = {f"experiments/u{n}.md": doc(slug=f"s{9 - n}") for n in range(9)}
    files["experiments/dated.md"] = doc(updated_at="1999-01-01")
    files["experiments/more/u9.md"] = doc(slug="s0")
    space = ledger(files)
    paths = [b.block.document.path for b in build_context(space).budgeted.blocks]
    assert paths[0] == ".ledger/experiments/dated.md"
    # Undated: slug ascending, then path: s0 is held by u8.md and more/u9.md.
    assert paths[1:4] == [
        ".ledger/experiments/more/u9.md",
        ".ledger/experiments/u8.md",
        ".ledger/experiments/u7.md",
    ]
    assert len(paths) == 10


def test_agents_md_is_verbatim_with_a_newline_appended_only_if_missing(ledger: Ledger) -> None:
    text = "---\ndata_class: internal\n---\n# Agents\n\nUse the ledger.\n\n"
    assert pack_of(ledger({"agents.md": text})) == text
    assert pack_of(ledger({"agents.md": "no newline"})) == "no newline\n"


def test_empty_agents_md_gives_no_block(ledger: Ledger) -> None:
    space = ledger({"agents.md": "\ufeff", "experiments/x.md": doc(a="1")})
    assert pack_of(space) == "---\na: 1\n---\n"


def test_agents_md_crlf_and_bom_are_normalised(ledger: Ledger) -> None:
    space = ledger({"agents.md": b"\xef\xbb\xbfline one\r\nline two\rend"})
    assert pack_of(space) == "line one\nline two\nend\n"


def test_title_comes_from_frontmatter_then_first_h1_then_slug(ledger: Ledger) -> None:
    space = ledger(
        {
            "harnesses/a.md": "---\nstatus: active\ntitle: '  From\tfrontmatter  '\n---\n# Heading\n",
            "harnesses/b.md": "---\nstatus: active\ntitle: ~\n---\n```\n# not a heading\n```\n## H2\n# Real ##\n",
            "harnesses/c.md": "---\nstatus: active\nslug: my-slug\n---\nNo heading.\n",
            "harnesses/d.md": "---\nstatus: active\ntitle: [a, b]\n---\n#\n# Second\n",
        }
    )
    titles = [line for line in pack_of(space).split("\n") if line.startswith("## ")]
    assert titles == [
        "## Harness: From frontmatter (.ledger/harnesses/a.md)",
        "## Harness: Real (.ledger/harnesses/b.md)",
        "## Harness: d (.ledger/harnesses/d.md)",
        "## Harness: my-slug (.ledger/harnesses/c.md)",
    ]


def test_title_clean_up_keeps_the_title_line_on_one_line(ledger: Ledger) -> None:
    space = ledger(
        {"decisions/a.md": '---\nstatus: accepted\ntitle: "one\\ntwo\\x07three\\u2028four\\u200fRTL"\n---\n'}
    )
    first = pack_of(space).split("\n")[0]
    assert first == "## Decision: one two three four\u200fRTL (.ledger/decisions/a.md)"


def test_frontmatter_is_rendered_verbatim_never_reserialised(ledger: Ledger) -> None:
    frontmatter = (
        "status: accepted   \n# a comment\n\nslug: 0007\nupdated_at: 2024-02-30\nflag: no\n"
        "nested:\n  - {a: 1}\nquote: 'it''s'"
    )
    space = ledger({"decisions/x.md": f"\n \t\n---\n{frontmatter}\n-----  \nbody\n"})
    assert pack_of(space) == f"## Decision: 0007 (.ledger/decisions/x.md)\n---\n{frontmatter}\n---\n"


def test_empty_frontmatter_renders_as_two_fence_lines(ledger: Ledger) -> None:
    space = ledger({"experiments/a.md": "---\n---\n", "experiments/b.md": "---\n\n---\n"})
    assert pack_of(space) == "---\n---\n\n---\n---\n"
    assert fenced("") == "---\n---\n"
    assert fenced("\n") == "---\n\n\n---\n"


def test_eval_block_carries_its_metrics_list(ledger: Ledger) -> None:
    body = (
        "Intro\n- not a metric\n```\n## Metrics\n```\n"
        "## Metrics ##\n- accuracy\n  * nested f1\n10. latency\n2) cost\n-no-space\n+ plus\n"
        "### Detail\n- in a subsection\n## Notes\n- not a metric\n"
    )
    space = ledger({"evals/e.md": f"---\nstatus: active\n---\n{body}"})
    assert pack_of(space) == (
        "## Eval: e (.ledger/evals/e.md)\n---\nstatus: active\n---\nMetrics:\n"
        "- accuracy\n  * nested f1\n10. latency\n2) cost\n+ plus\n- in a subsection\n"
    )


def test_eval_without_metrics_section_has_no_metrics_line(ledger: Ledger) -> None:
    space = ledger({"evals/e.md": "---\nstatus: active\n---\n# METRICS list\n- a\n## metrics\nnone\n"})
    assert pack_of(space) == "## Eval: METRICS list (.ledger/evals/e.md)\n---\nstatus: active\n---\n"


def test_newest_first_key_orders_instants_not_strings() -> None:
    from ledger_context.model.fields import parse_updated_at

    early = parse_updated_at("2026-03-01T23:00:00-05:00")  # 04:00Z on 2 March
    late = parse_updated_at("2026-03-02T03:00:00Z")
    assert early is not None and late is not None
    assert early.key > late.key
    assert early.iso == "2026-03-02T04:00:00Z"


# --------------------------------------------------------------------------- determinism (hostile input)


def test_pack_does_not_depend_on_creation_order_or_mtimes(tmp_path):
    files = {
        "harnesses/b.md": fm("status: active\nslug: same"),
        "harnesses/a.md": fm("status: active\nslug: same"),
        "findings/x.md": fm("status: current\nupdated_at: 2026-01-01"),
        "findings/y.md": fm("status: current\nupdated_at: 2026-01-01T00:00:00Z"),
        "experiments/p.md": fm("updated_at: ~"),
        "experiments/q.md": fm("updated_at: ~"),
    }
    first = write_ledger(tmp_path / "first", files)
    second = write_ledger(tmp_path / "second", dict(reversed(list(files.items()))))
    for i, path in enumerate(sorted((second / ".ledger").rglob("*.md"))):
        os.utime(path, (1_000_000 + i * 7919 % 1000, 1_000_000 + i * 7919 % 1000))
    assert build_context(first).pack == build_context(second).pack


def test_a_kind_with_two_statuses_orders_by_their_rank_first(ledger: Ledger, monkeypatch) -> None:
    from ledger_context.model import kinds
    from ledger_context.pack import select

    kept = kinds.KIND["decision"]
    fields = {name: getattr(kept, name) for name in kinds.Kind.__slots__}
    decision = kinds.Kind(**{**fields, "statuses": ("accepted", "superseded")})
    table = tuple(decision if k.name == "decision" else k for k in kinds.KIND_TABLE)
    monkeypatch.setattr(select, "KIND_TABLE", table)
    monkeypatch.setattr(select, "KIND", {k.name: k for k in table})
    space = ledger(
        {
            "decisions/old.md": fm("status: superseded\nupdated_at: 2026-05-01"),
            "decisions/new.md": fm("status: accepted\nupdated_at: 2026-01-01"),
            "decisions/no.md": fm("status: proposed\nupdated_at: 2026-06-01"),
        }
    )
    paths = [b.block.document.path for b in build_context(space).budgeted.blocks]
    assert paths == [".ledger/decisions/new.md", ".ledger/decisions/old.md"]

"""Issue 15: the brief is bounded for any ledger, carries the same fields as text and data,
and its group lines still close."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, doc, write_ledger
from ledger_context import build_context
from ledger_context.explain.breakdown import GroupLine, KindCount, PackTotals, Rule
from ledger_context.explain.brief import (
    AUDIT_BYTES,
    BOUND_STEPS,
    MAX_BYTES,
    MAX_COUNT,
    MAX_STRUCTURED_BYTES,
    MORE,
    NOTE_BYTES,
    PATH_BYTES,
    SPACE_BYTES,
    WHOLE_PATH_BYTES,
    Brief,
    BriefClassification,
    MeasuredLine,
    NamedSource,
    NotKept,
    ProblemSummary,
    structured_size,
)
from ledger_context.explain.full import explain
from ledger_context.explain.path import explain_path
from ledger_context.explain.readout import MAX_BRIEF_TEXT_BYTES, brief_readout, brief_text
from ledger_context.explain.shorten import shorten
from ledger_context.model.document import KINDS
from ledger_context.model.tokens import MAX_CAP_TOKENS
from ledger_context.pack.measure import TOKENIZERS, CapAdvice
from ledger_context.pack.select import GROUPS


def _sizes(space: Path, ceiling: str | None = None, cap: int = 6000) -> tuple[Brief, str]:
    return brief_readout(explain(build_context(space, cap_tokens=cap, max_data_class=ceiling), "full"))


@pytest.mark.parametrize(
    ("fixture", "text_bytes", "structured_bytes"),
    [("demo", 1562, 2606), ("overflow", 1722, 2744), ("floor", 1692, 2742)],
)
def test_brief_sizes_of_the_fixtures(
    fixture: str, text_bytes: int, structured_bytes: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A copy outside git (commit and dirty are null) at a relative space: the sizes depend
    # on neither the checkout's path nor its git state.
    shutil.copytree(FIXTURES / fixture, tmp_path / "ledger_fixtures" / fixture, symlinks=True)
    monkeypatch.chdir(tmp_path)
    brief, _ = _sizes(Path("ledger_fixtures") / fixture)
    # Measured tokens depend on which tokenizers this machine has: pinned in test_measure.
    brief = brief.model_copy(update={"measured": [], "advice": []})
    assert (len(brief_text(brief).encode()), structured_size(brief)) == (text_bytes, structured_bytes)


def test_overflow_brief_aggregates_the_dropped_blocks_in_drop_order() -> None:
    build = build_context(FIXTURES / "overflow")
    brief, text = brief_readout(explain(build, "full"))
    dropped = [o for o in build.budgeted.blocks if o.outcome == "dropped"]
    for n in brief.not_kept:
        mine = [o for o in dropped if o.block.group == n.group]
        assert n.blocks == len(mine)
        assert n.bytes == sum(o.bytes for o in mine)
        assert (n.first, n.last) == (
            shorten(mine[-1].block.document.path, PATH_BYTES),
            shorten(mine[0].block.document.path, PATH_BYTES),
        )
        group = brief.groups[n.group - 1]
        assert n.bytes == group.bytes - group.kept_bytes  # the aggregate closes with the group line
    assert sum(g.kept_bytes for g in brief.groups) == brief.pack.bytes
    assert [n.group for n in brief.not_kept] == [5, 6]
    assert "Not kept" in text and MORE in text


def _large_ledger(root: Path) -> Path:
    """5,000 dropped findings, 1,000 withheld decisions, 1,000 broken experiments; long names."""
    long = "x" * 200
    files: dict[str | bytes, str | bytes] = {"agents.md": "Be brief.\n"}
    for n in range(5000):
        files[f"findings/{n:04d}-{long}.md"] = (
            f"---\nstatus: current\nupdated_at: 2026-01-01\ntitle: finding {n}\n---\n"
        )
    for n in range(1000):
        files[f"decisions/{n:04d}-{long}.md"] = (
            "---\nstatus: accepted\nupdated_at: 2026-01-01\ndata_class: restricted\n---\n"
        )
        files[f"experiments/{n:04d}-{long}.md"] = "---\nstatus: [\n---\n"
    write_ledger(root, files)
    return root


def test_the_brief_is_bounded_on_a_large_ledger(tmp_path: Path) -> None:
    build = build_context(_large_ledger(tmp_path / ("s" * 150)), cap_tokens=10, max_data_class="internal")
    assert sum(o.outcome == "dropped" for o in build.budgeted.blocks) == 5000
    assert len(build.selection.withheld) == 1000
    assert len(build.ledger.problems) == 1000
    brief, text = brief_readout(explain(build, "full"))
    assert len(text.encode()) <= MAX_BRIEF_TEXT_BYTES
    assert structured_size(brief) <= MAX_STRUCTURED_BYTES
    assert len(brief.space.encode()) <= SPACE_BYTES
    assert brief.problems.counts == {"error": 1000, "warning": 0, "info": 0} and brief.problems.more == 997
    assert brief.classification.withheld_by_kind == {"decision": 1000}
    bound = len(brief.not_kept[0].first.encode())  # the largest that fits: cut, but not to 48
    assert PATH_BYTES < bound <= len(f".ledger/findings/4999-{'x' * 200}.md")  # whole once it fits
    assert brief.not_kept == [
        NotKept(
            group=4,
            blocks=5000,
            bytes=brief.groups[3].bytes,
            first=shorten(f".ledger/findings/4999-{'x' * 200}.md", bound),
            last=shorten(f".ledger/findings/0000-{'x' * 200}.md", bound),
        )
    ]
    print(f"large ledger brief: {len(text.encode())} text bytes, {structured_size(brief)} structured bytes")


def test_paths_that_fit_the_bound_are_whole_and_copyable_into_explain_path(tmp_path: Path) -> None:
    # Issue 23: the brief cut 44- and 49-byte paths mid-name although it had room.
    build = build_context(FIXTURES / "demo")
    brief, text = brief_readout(explain(build, "full"))
    named = [s.path for s in brief.classification.stricter]
    assert named == [
        ".ledger/decisions/0004-redact-pii-before-model.md",
        ".ledger/findings/2026-11-p1-undercalls-billing.md",
        ".ledger/experiments/2026-11/exp-095-dedupe.md",
    ]
    assert "…" not in text
    for path in named:
        assert path in text
        assert explain_path(build, path).outcome == "kept"
    long = f".ledger/findings/{'n' * 120}.md"  # 140 bytes: over the old 48, within the whole-path bound
    space = write_ledger(
        tmp_path / "s", {f"findings/{'n' * 120}.md": doc(status="current", data_class="restricted")}
    )
    shown = brief_readout(explain(build_context(space), "full"))[0].classification.stricter[0].path
    assert shown == long and len(long.encode()) <= WHOLE_PATH_BYTES


def _worst(path_bytes: int, space_bytes: int) -> Brief:
    """A brief with every list full, every path maximal and every figure at its proven limit."""
    path = shorten("界" * 4096, path_bytes)
    count, size = MAX_COUNT, MAX_BYTES
    return Brief(
        space=shorten("/" + "界" * 4096, space_bytes),
        rule=Rule(
            bytes_per_token=4, tokens_formula="-", cap_tokens=MAX_CAP_TOKENS, cap_bytes=4 * MAX_CAP_TOKENS
        ),
        pack=PackTotals(
            bytes=4 * MAX_CAP_TOKENS,
            tokens=MAX_CAP_TOKENS,
            bytes_left=4 * MAX_CAP_TOKENS,
            tokens_left=MAX_CAP_TOKENS,
            truncated=True,
            truncated_bytes=size,
            dropped_blocks=count,
            sha256="f" * 64,
            commit="f" * 64,  # a SHA-256 repository's object id, the longest
            dirty=False,
            fingerprint="f" * 64,
        ),
        groups=[
            GroupLine(
                group=g,
                name=name,
                candidates=count,
                kept=count,
                truncated=count,
                dropped=count,
                bytes=size,
                kept_bytes=size,
            )
            for g, name, _ in GROUPS
        ],
        kinds=[
            KindCount(kind=k, read=count, skipped=count, withheld=count, selected=count, not_selected=count)
            for k in KINDS
        ],
        not_kept=[NotKept(group=g, blocks=count, bytes=size, first=path, last=path) for g, _, _ in GROUPS],
        problems=ProblemSummary(
            counts={"error": count, "warning": count, "info": count}, first=[path] * 3, more=count
        ),
        classification=BriefClassification(
            effective_class="confidential",
            ceiling="confidential",
            sources=count,
            by_class={
                name: count
                for name in ("confidential", "internal", "none", "public", "restricted", "unknown")
            },
            stricter=[NamedSource(path=path, data_class="confidential")] * 3,
            stricter_more=count,
            withheld_count=count,
            withheld_by_kind=dict.fromkeys(KINDS, count),
        ),
        audit=shorten("failing: " + "界" * 4096, AUDIT_BYTES),
        measured=[
            MeasuredLine(
                tokenizer=spec.name,
                library=f"{spec.package} 9999.9999.9999",
                exact=spec.exact,
                tokens=None if i else MAX_CAP_TOKENS * 4,
                drift=None if i else -0.9999,
                note=shorten("界" * 4096, NOTE_BYTES) if i else None,
            )
            for i, spec in enumerate(TOKENIZERS)
        ],
        advice=[
            CapAdvice(spec.name, MAX_CAP_TOKENS, MAX_CAP_TOKENS * 4, MAX_CAP_TOKENS - 1)
            for spec in TOKENIZERS
        ],
        more=MORE,
    )


def test_the_bound_holds_by_construction_with_maximal_paths_and_figures() -> None:
    worst = _worst(*BOUND_STEPS[-1])
    assert len(brief_text(worst).encode()) <= MAX_BRIEF_TEXT_BYTES
    assert structured_size(worst) <= MAX_STRUCTURED_BYTES


def test_text_and_structured_output_carry_the_same_figures() -> None:
    brief, text = _sizes(FIXTURES / "floor", ceiling="internal")
    data = json.loads(brief.model_dump_json())
    assert data["pack"]["sha256"] in text
    for n in data["not_kept"]:
        assert f"{n['group']}: {n['blocks']}, {n['bytes']}, {n['first']}" in text
    assert f"withheld {data['classification']['withheld_count']}" in text
    row = next(line for line in text.splitlines() if line.startswith("3 evals"))
    g, k = data["groups"][2], data["kinds"][2]
    assert row.split()[2:] == [
        str(v)
        for v in (k["read"], k["skipped"], k["withheld"], k["not_selected"], g["candidates"], g["kept"])
    ] + [str(v) for v in (g["truncated"], g["dropped"], g["bytes"], g["kept_bytes"])]

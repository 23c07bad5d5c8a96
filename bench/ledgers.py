"""The short-body experiment ledgers: one per experiment count, shaped like ``ledger_fixtures/demo``.

Deterministic (a ``random.Random`` seeded by the generator version and the size, so the
same size always gives the same bytes). A space holds ``agents.md``, 6 harnesses (3
active), 6 evals (4 active, each with a ``## Metrics`` list), one finding and one decision
per 20 experiments (about 40 % ``current`` / ``accepted``), and the experiments, filed in
``experiments/YYYY-MM/`` as ``agents.md`` asks. An experiment has ~420 bytes of
frontmatter (title, slug, status, updated_at, harness, eval, owner, hypothesis, a nested
``config:`` and ``result:`` mapping, run_id, verdict, tags, ``data_class`` on about a
third) and a ~330-byte Markdown body. ``updated_at`` mixes dates, UTC times and times
with an offset; 1 experiment in 250 has none (undated, so reported).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from pathlib import Path

from spaces import cached_space, wait_until, write_file

GENERATOR_VERSION = 2
"""Bump whenever this generator changes what it writes: older spaces are regenerated."""

OWNERS = ("priya", "marco", "jun", "dana", "sam", "alex", "agent/triage-bot", "agent/eval-runner")
DATA_CLASSES = ("public", "internal", "internal", "confidential")
START = dt.datetime(2023, 1, 1, tzinfo=dt.UTC)
SPAN_DAYS = 1200

# (short name, title, hypothesis, eval, tags); {x} is filled per experiment.
TOPICS = (
    (
        "fewshot",
        "Few-shot examples raised to {x} on the router call",
        "Raising the routed examples to {x} lifts routing accuracy without hurting p95 latency.",
        "routing-accuracy",
        "[fewshot, prompt]",
    ),
    (
        "temp",
        "Temperature 0.{x} for the router call",
        "Routing is more stable at temperature 0.{x} without hurting reply quality.",
        "routing-accuracy",
        "[sampling]",
    ),
    (
        "kb-topk",
        "Top-{x} knowledge-base hits for reply drafts",
        "Top-{x} KB hits keep grounded_rate flat while cutting the prompt cost.",
        "reply-quality",
        "[retrieval, kb]",
    ),
    (
        "prio-rubric",
        "Priority rubric v{x}",
        "An explicit P1-P4 rubric (v{x}) reduces P1 under-calls.",
        "priority-calibration",
        "[priority, prompt]",
    ),
    (
        "sig-strip",
        "Strip email signatures before routing (rule set {x})",
        "Removing signatures with rule set {x} stops carrier names pulling tickets into shipping.",
        "routing-accuracy",
        "[preprocessing]",
    ),
    (
        "small-model",
        "Small model for confident tickets (threshold 0.{x})",
        "A small model handles tickets above confidence 0.{x} at a third of the cost.",
        "routing-accuracy",
        "[cost, cascade]",
    ),
    (
        "lang-detect",
        "Language detection before routing ({x} languages)",
        "Detecting the language first fixes misroutes of non-English tickets in {x} languages.",
        "routing-accuracy",
        "[i18n]",
    ),
    (
        "reply-tone",
        "Reply tone guide v{x}",
        "Tone guide v{x} raises the judge's empathy sub-score without longer drafts.",
        "reply-quality",
        "[reply, prompt]",
    ),
    (
        "dedupe",
        "Merge duplicate tickets within {x} minutes",
        "Merging duplicates sent within {x} minutes cuts queue load without losing P1s.",
        "priority-calibration",
        "[queue]",
    ),
    (
        "tool-schema",
        "Tool schema v{x} with enum queues",
        "Enum-typed queue arguments (schema v{x}) remove invalid tool calls.",
        "routing-accuracy",
        "[tools]",
    ),
)

# The demo ledger's agents.md: realistic, and one copy to keep.
AGENTS_MD = (Path(__file__).resolve().parents[1] / "ledger_fixtures/demo/.ledger/agents.md").read_text(
    encoding="utf-8"
)

HARNESSES = (
    ("triage-harness-v1", "Triage harness v1 (keyword rules)", "retired"),
    ("triage-harness-v2", "Triage harness v2 (single prompt)", "retired"),
    ("triage-harness-v3", "Triage harness v3 (tool-calling router)", "active"),
    ("triage-harness-v4", "Triage harness v4 (cascade)", "active"),
    ("reply-harness-v2", "Reply drafter v2 (grounded on KB hits)", "active"),
    ("triage-harness-v5", "Triage harness v5 (draft)", "draft"),
)

EVALS = (
    ("routing-accuracy", "Routing accuracy", "active", ("accuracy", "macro_f1", "p95_latency_ms")),
    ("priority-calibration", "Priority calibration (P1-P4)", "active", ("p1_recall", "weighted_kappa")),
    ("reply-quality", "Reply draft quality (LLM judge)", "active", ("judge_score", "grounded_rate")),
    ("cost-per-ticket", "Cost per thousand tickets", "active", ("cost_usd_per_1k", "tokens_per_ticket")),
    ("legacy-keyword-baseline", "Keyword router baseline", "deprecated", ("accuracy",)),
    ("abuse-recall", "Abuse queue recall", "draft", ("abuse_recall",)),
)


def timestamp(rng: random.Random, day: float) -> tuple[dt.datetime, str]:
    """A moment ``day`` days after the start, written as a date, a UTC time or a time with offset."""
    moment = START + dt.timedelta(days=max(day, 0.0), minutes=rng.randrange(24 * 60))
    style = rng.random()
    if style < 0.6:
        return moment, moment.strftime("%Y-%m-%d")
    if style < 0.9:
        return moment, moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    local = moment.astimezone(dt.timezone(dt.timedelta(hours=2)))
    return moment, local.isoformat(timespec="seconds")


def pick(rng: random.Random, weighted: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([name for name, _ in weighted], [weight for _, weight in weighted])[0]


def _experiment(rng: random.Random, index: int, count: int) -> tuple[str, str]:
    """(relative path below ``experiments/``, file text) of experiment ``index`` of ``count``."""
    short, title, hypothesis, eval_slug, tags = rng.choice(TOPICS)
    x = str(rng.randint(2, 16))
    status = pick(rng, (("done", 80), ("running", 8), ("planned", 5), ("abandoned", 7)))
    moment, updated = timestamp(rng, index / count * SPAN_DAYS + rng.uniform(-20, 20))
    slug = f"exp-{index:06d}-{short}"
    lines = [
        f"title: {title.format(x=x)}",
        f"slug: {slug}",
        f"status: {status}",
    ]
    if rng.random() >= 0.004:
        lines.append(f"updated_at: {updated}")
    lines += [
        f"harness: {rng.choice(('triage-harness-v3', 'triage-harness-v3', 'triage-harness-v4'))}",
        f"eval: {eval_slug}",
        f"owner: {rng.choice(OWNERS)}",
        f"hypothesis: {hypothesis.format(x=x)}",
        "config:",
        f"  prompt_version: v{rng.randint(3, 6)}.{rng.randint(0, 9)}",
        f"  temperature: {rng.choice(('0', '0.2', '0.7'))}",
        f"run_id: run-{index:06d}",
    ]
    if status != "planned":
        lines += [
            "result:",
            f"  accuracy: 0.{rng.randint(820, 940)}",
            f"  macro_f1: 0.{rng.randint(780, 900)}",
            f"  p95_latency_ms: {rng.randint(900, 2600)}",
            f"  cost_usd_per_1k: {rng.uniform(0.8, 3.5):.2f}",
        ]
        verdict = rng.choice(("supports", "refutes", "inconclusive"))
        lines.append(f"verdict: {verdict if status == 'done' else 'pending'}")
    lines.append(f"tags: {tags}")
    if rng.random() < 0.35:
        lines.append(f"data_class: {rng.choice(DATA_CLASSES)}")
    body = (
        f"# {title.format(x=x)}\n\n"
        f"Setup: {hypothesis.format(x=x)} We ran the `{eval_slug}` eval on the frozen\n"
        "split with the current harness and compared against the last accepted\n"
        "baseline. Ticket ids of notable failures are in the run log.\n\n"
        "## Notes\n\n"
        f"- Run id: run-{index:06d}\n"
        "- Seeds: 3, results averaged.\n"
    )
    text = "---\n" + "\n".join(lines) + "\n---\n\n" + body
    return f"{moment:%Y-%m}/{slug}.md", text


def _finding(rng: random.Random, index: int, count: int, experiments: int) -> tuple[str, str]:
    short, _, hypothesis, eval_slug, _ = rng.choice(TOPICS)
    status = pick(rng, (("current", 40), ("superseded", 30), ("retracted", 10), ("draft", 20)))
    moment, updated = timestamp(rng, index / count * SPAN_DAYS + rng.uniform(0, 30))
    slug = f"finding-{index:05d}-{short}"
    evidence = ", ".join(f"exp-{rng.randrange(experiments):06d}-{short}" for _ in range(rng.randint(1, 3)))
    lines = [
        f"title: What exp series {index} showed about {short}",
        f"slug: {slug}",
        f"status: {status}",
        f'summary: "{hypothesis.format(x=rng.randint(2, 16))} Measured on {eval_slug}."',
        f"updated_at: {updated}",
        f"owner: {rng.choice(OWNERS[:6])}",
        f"evidence: [{evidence}]",
        f"confidence: {rng.choice(('low', 'medium', 'high'))}",
    ]
    if rng.random() < 0.4:
        lines.append(f"data_class: {rng.choice(DATA_CLASSES)}")
    body = (
        f"\nReport {eval_slug} with a bootstrap interval, never as a single number.\n"
        "The evidence runs are listed above; see the run logs for ticket ids.\n"
    )
    return f"{moment:%Y}/{slug}.md", "---\n" + "\n".join(lines) + "\n---\n" + body


def _decision(rng: random.Random, index: int, count: int) -> tuple[str, str]:
    short, title, _, eval_slug, _ = rng.choice(TOPICS)
    status = pick(rng, (("accepted", 40), ("proposed", 20), ("superseded", 30), ("rejected", 10)))
    _, updated = timestamp(rng, index / count * SPAN_DAYS + rng.uniform(0, 30))
    slug = f"{index + 1:05d}-{short}"
    lines = [
        f"title: Adopt {title.format(x=rng.randint(2, 16)).lower()}",
        f"slug: {slug}",
        f"status: {status}",
        f'summary: "Adopt the {short} change everywhere; {eval_slug} must not regress."',
        f"updated_at: {updated}",
        f"deciders: [{rng.choice(OWNERS[:6])}, support-leads]",
    ]
    if rng.random() < 0.4:
        lines.append(f"data_class: {rng.choice(DATA_CLASSES)}")
    body = "\nContext, options and consequences are in the linked design doc.\n"
    return f"{slug}.md", "---\n" + "\n".join(lines) + "\n---\n" + body


def harness_text(slug: str, title: str, status: str, number: int) -> str:
    return (
        f"---\ntitle: {title}\nslug: {slug}\nstatus: {status}\nupdated_at: 2025-0{number + 1}-15\n"
        f"owner: {OWNERS[number]}\nmodel: router-llm-2025-0{number + 1}\n"
        f"entrypoint: src/triage/{slug.replace('-', '_')}.py\n"
        "tools: [kb_search, customer_lookup, queue_assign, set_priority]\n"
        "data_class: internal\n---\n\n"
        "One model call plans, then calls tools; the reply draft is a second call.\n"
    )


def eval_text(slug: str, title: str, status: str, metrics: tuple[str, ...], number: int) -> str:
    metric_lines = "".join(f"- {name}: see the eval runner for the exact definition\n" for name in metrics)
    return (
        f"---\ntitle: {title}\nslug: {slug}\nstatus: {status}\nupdated_at: 2025-0{number + 1}-01\n"
        f"owner: {OWNERS[number]}\ndataset: data/evals/{slug}.jsonl\nsize: {300 * (number + 1)}\n"
        f"baseline:\n  {metrics[0]}: 0.8{number}\n---\n\n"
        "Hand-labelled by two support leads; disagreements settled by a third.\n\n"
        f"## Metrics\n\n{metric_lines}\n## Notes\n\n- Re-label the set every quarter.\n"
    )


def _write_space(space: Path, experiments: int) -> dict[str, int]:
    rng = random.Random(f"ledger-context bench v{GENERATOR_VERSION} {experiments}")
    ledger = space / ".ledger"
    total = write_file(ledger / "agents.md", AGENTS_MD)
    files = 1
    for number, (slug, title, status) in enumerate(HARNESSES):
        total += write_file(ledger / "harnesses" / f"{slug}.md", harness_text(slug, title, status, number))
        files += 1
    for number, (slug, title, status, metrics) in enumerate(EVALS):
        total += write_file(ledger / "evals" / f"{slug}.md", eval_text(slug, title, status, metrics, number))
        files += 1
    others = max(1, experiments // 20)
    for index in range(others):
        rel, text = _finding(rng, index, others, experiments)
        total += write_file(ledger / "findings" / rel, text)
        rel, text = _decision(rng, index, others)
        total += write_file(ledger / "decisions" / rel, text)
        files += 2
    for index in range(experiments):
        rel, text = _experiment(rng, index, experiments)
        total += write_file(ledger / "experiments" / rel, text)
        files += 1
    return {"files": files, "bytes": total, "findings": others, "decisions": others}


@dataclass(frozen=True)
class Space:
    """A generated space: its directory, experiment count, and what the generator wrote."""

    path: Path
    experiments: int
    files: int
    bytes: int
    ready_at: float
    """Wall time after which every file is over a second old, so the cache trusts it."""


def generate_space(spaces_dir: Path, experiments: int) -> Space:
    """The space with ``experiments`` experiments under ``spaces_dir`` (``exp<N>``), generated if needed."""
    params = {"generator_version": GENERATOR_VERSION, "experiments": experiments}
    path, info, ready_at = cached_space(
        spaces_dir, f"exp{experiments}", params, lambda staging: _write_space(staging, experiments)
    )
    return Space(path, experiments, info["files"], info["bytes"], ready_at)


def wait_until_ready(space: Space) -> None:
    """Sleep until the space's files are old enough for the cache to trust them."""
    wait_until(space.ready_at)

"""``demo/``: a realistic ledger that fits (the "Triage" support-ticket agent).

Its harnesses and evals, and ``agents.md``, are shared with ``overflow/``; its 100
experiments come from :mod:`experiments`.
"""

from __future__ import annotations

from documents import Doc, Space
from experiments import make_experiments

DEMO_AGENTS = """\
---
data_class: internal
owner: triage-platform
---
# Agent instructions: ticket-triage repo

You work in the repository of **Triage**, the agent that reads incoming support
tickets, routes each to a queue (billing, technical, account, shipping, abuse),
sets a priority (P1-P4) and drafts a first reply for a human to review.

## Where things live

- `src/triage/`: the agent. Prompts are in `prompts/`, tools in `tools/`.
- `evals/`: eval runners. Datasets live in `data/evals/` and are read-only.
- `.ledger/`: this experiment ledger, one folder per kind of document.

## Conventions

- Python 3.11; `ruff check` and `pytest -q` must pass before a PR.
- Never paste ticket text into the ledger, commits or logs: tickets hold
  customer PII. Cite ticket ids (`TCK-123456`) instead.
- Prompts are versioned files. Change one by adding a new version.

## Logging an experiment

1. Add `.ledger/experiments/<YYYY-MM>/exp-NNN-short-name.md`.
2. Fill the frontmatter: title, slug, status (planned, running, done,
   abandoned), updated_at (ISO 8601, UTC preferred), harness, eval,
   hypothesis, owner, and `result:` with numbers only.
3. Run `make eval EVAL=<eval slug> HARNESS=<harness slug>`.
4. If a result changes what we believe, write a finding; if it changes what
   we do, propose a decision. Never edit an accepted decision: supersede it.

Set `data_class` on anything derived from customer data. Ask security before
using `restricted`.
"""

DEMO_HARNESSES: list[Doc] = [
    Doc(
        "harnesses",
        "triage-harness-v3.md",
        [
            ("title", "Triage harness v3 (tool-calling router)"),
            ("slug", "triage-harness-v3"),
            ("status", "active"),
            ("updated_at", "2026-10-02"),
            ("owner", "marco"),
            ("model", "router-llm-2026-08"),
            ("entrypoint", "src/triage/harness_v3.py"),
            ("tools", ["kb_search", "customer_lookup", "queue_assign", "set_priority"]),
            ("max_tool_calls", "6"),
            (
                "summary",
                "Plan-then-act router: KB search, customer lookup, queue and priority tools; the reply is drafted by a second call.",
            ),
            ("data_class", "internal"),
        ],
        """\
One model call plans, then calls tools: it searches the knowledge base, looks up
the customer's plan and open tickets, assigns a queue and sets a priority. The
reply draft is a second call that sees the KB hits.

Replaced v2 (single prompt, no tools) after ADR 0005.
""",
    ),
    Doc(
        "harnesses",
        "triage-harness-v2.md",
        [
            ("title", "Triage harness v2 (single prompt)"),
            ("slug", "triage-harness-v2"),
            ("status", "retired"),
            ("updated_at", "2026-07-21"),
            ("owner", "priya"),
            ("model", "router-llm-2026-03"),
            ("entrypoint", "src/triage/harness_v2.py"),
        ],
        """\
One prompt returns queue, priority and draft as JSON. Kept for reference runs
only; do not start new experiments on it.
""",
    ),
    Doc(
        "harnesses",
        "triage-harness-v4-draft.md",
        [
            ("title", "Triage harness v4 (cascade, draft)"),
            ("slug", "triage-harness-v4"),
            ("status", "draft"),
            ("updated_at", "2026-11-14"),
            ("owner", "jun"),
            ("model", "router-llm-2026-08 + small-llm-2026-09"),
        ],
        """\
Sketch: a small model handles tickets the router is confident about; everything
else goes to v3. Waiting on the small-model experiments.
""",
    ),
]


DEMO_EVALS: list[Doc] = [
    Doc(
        "evals",
        "routing-accuracy.md",
        [
            ("title", "Routing accuracy"),
            ("slug", "routing-accuracy"),
            ("status", "active"),
            ("updated_at", "2026-09-15"),
            ("owner", "priya"),
            ("dataset", "data/evals/routing-2026-09.jsonl"),
            ("size", "1200"),
            (
                "baseline",
                [
                    ("accuracy", "0.874"),
                    ("macro_f1", "0.829"),
                    ("harness", "triage-harness-v2"),
                ],
            ),
            ("data_class", "internal"),
        ],
        """\
Does the agent put each ticket in the right queue? 1200 tickets hand-labelled
by two support leads; disagreements were settled by a third.

## Metrics

- accuracy: share of tickets routed to the labelled queue
- macro_f1: F1 averaged over the five queues
* per_queue_recall: recall for each queue, reported separately
- p95_latency_ms: 95th percentile of end-to-end routing time

## Notes

- The abuse queue is small (41 tickets); read its recall with care.
- Re-label the set every quarter.
""",
    ),
    Doc(
        "evals",
        "priority-calibration.md",
        [
            ("title", "Priority calibration (P1-P4)"),
            ("slug", "priority-calibration"),
            ("status", "active"),
            ("updated_at", "2026-10-08T09:00:00Z"),
            ("owner", "dana"),
            ("dataset", "data/evals/priority-2026-10.jsonl"),
            ("size", "800"),
            ("baseline", [("p1_recall", "0.81"), ("weighted_kappa", "0.66")]),
            ("languages", ["en", "de", "fr", "es"]),
        ],
        """\
Are priorities set the way the on-call lead would set them? Under-calling a P1
is far worse than over-calling a P3, so the metrics are asymmetric.

## How to run

```bash
make eval EVAL=priority-calibration HARNESS=triage-harness-v3
# the report lands in out/priority-calibration/report.json
python -m evals.report out/priority-calibration/report.json
```

## Metrics

1. p1_recall: share of true P1 tickets the agent marked P1
2. weighted_kappa: quadratic-weighted Cohen's kappa over P1-P4
   - computed per language, then averaged
3. overcall_rate: share of P3/P4 tickets marked P1 or P2

## Caveats

- Labels come from one lead per ticket; expect noise near P2/P3.
""",
    ),
    Doc(
        "evals",
        "reply-quality.md",
        [
            ("title", "Reply draft quality (LLM judge)"),
            ("slug", "reply-quality"),
            ("status", "active"),
            ("updated_at", "2026-08-30"),
            ("owner", "sam"),
            ("dataset", "data/evals/replies-2026-08.jsonl"),
            ("size", "300"),
            ("judge", "judge-llm-2026-06"),
            ("rubric", "rubrics/reply-quality-v2.md"),
            ("baseline", [("judge_score", "3.9"), ("grounded_rate", "0.87")]),
            ("data_class", "internal"),
        ],
        """\
A judge model scores each draft against a rubric written with the support team;
we spot-check 10% of the judgements by hand every run.

## Metrics

- judge_score: mean rubric score, 1-5
- grounded_rate: share of drafts whose claims are all backed by a KB hit

### Secondary

- length_tokens: median draft length
- empathy: rubric sub-score, 1-5

## Known issues

- The judge prefers longer drafts; check length_tokens before celebrating.
""",
    ),
    Doc(
        "evals",
        "legacy-keyword-baseline.md",
        [
            ("title", "Keyword router baseline"),
            ("slug", "legacy-keyword-baseline"),
            ("status", "deprecated"),
            ("updated_at", "2026-06-01"),
            ("owner", "alex"),
        ],
        """\
The pre-LLM keyword rules, scored on the old 2025 set. Deprecated: the set no
longer matches our queues.

## Metrics

- accuracy: share routed to the labelled queue
""",
    ),
]


DEMO_FINDINGS: list[Doc] = [
    Doc(
        "findings",
        "2026-11-fewshot-plateau.md",
        [
            ("title", "Few-shot gains plateau after 8 examples"),
            ("slug", "fewshot-plateau"),
            ("status", "current"),
            (
                "summary",
                "Accuracy is flat from 8 to 16 examples (+0.2 points, inside noise) while prompt cost doubles.",
            ),
            ("updated_at", "2026-11-13T10:20:00Z"),
            ("owner", "priya"),
            ("evidence", ["exp-081-fewshot", "exp-091-fewshot"]),
            ("confidence", "medium"),
            ("data_class", "internal"),
        ],
        "Beyond 8 routed examples accuracy moves less than the run-to-run noise,\nwhile cost grows linearly.\n",
    ),
    Doc(
        "findings",
        "2026-11-p1-undercalls-billing.md",
        [
            ("title", "P1 under-calls cluster in billing disputes"),
            ("slug", "p1-undercalls-billing"),
            ("status", "current"),
            ("summary", "Missed P1s concentrate in billing disputes that mention chargebacks."),
            ("updated_at", "2026-11-04"),
            ("owner", "dana"),
            ("evidence", ["exp-084-prio-rubric"]),
            ("confidence", "high"),
            ("data_class", "confidential"),
        ],
        "Most missed P1s are chargeback threats from two enterprise customers.\nDetails in the restricted analysis notebook.\n",
    ),
    Doc(
        "findings",
        "2026-10-signature-noise.md",
        [
            ("slug", "signature-noise"),
            ("status", "current"),
            (
                "summary",
                "Carrier names in email signatures pull tickets into the shipping queue.",
            ),
            ("updated_at", "2026-10-19T15:00:00+02:00"),
            ("owner", "jun"),
            ("evidence", ["exp-079-sig-strip"]),
            ("confidence", "medium"),
        ],
        '# Email signatures cause most shipping misroutes\n\nCarrier names in signatures ("Sent from my DHL-tracked phone") pull\ntickets into shipping. Stripping signatures fixes 70% of these.\n',
    ),
    Doc(
        "findings",
        "2026-09-kb-top3-enough.md",
        [
            ("title", "Three KB hits are enough for grounded replies"),
            ("slug", "kb-top3-enough"),
            ("status", "current"),
            (
                "summary",
                "grounded_rate is flat from top-3 to top-8 KB hits; top-1 loses 9 points.",
            ),
            ("updated_at", "2026-09-22"),
            ("owner", "sam"),
            ("evidence", ["exp-063-kb-topk", "exp-073-kb-topk"]),
            ("confidence", "high"),
            ("data_class", "public"),
        ],
        "grounded_rate is flat from top-3 to top-8; top-1 drops it by 9 points.\n",
    ),
    Doc(
        "findings",
        "2026-08-temperature-zero.md",
        [
            ("title", "Temperature 0 routing is the most stable"),
            ("slug", "temperature-zero"),
            ("status", "current"),
            (
                "summary",
                "Queue assignment flips on 4% of re-runs at temperature 0.7 and under 1% at 0.",
            ),
            ("updated_at", "2026-08-14"),
            ("owner", "marco"),
            ("evidence", ["exp-041-temp"]),
            ("confidence", "medium"),
        ],
        "Re-running the same ticket changes its queue 4% of the time at 0.7 and\nunder 1% at 0.\n",
    ),
    Doc(
        "findings",
        "2026-10-abuse-recall-noisy.md",
        [
            ("title", "Abuse-queue recall swings by 6 points between runs"),
            ("slug", "abuse-recall-noisy"),
            ("status", "current"),
            (
                "summary",
                "The abuse queue has 41 eval tickets, so one ticket moves recall by 2.4 points.",
            ),
            ("updated_at", "2026-10-06T12:00:00Z"),
            ("owner", "alex"),
            ("evidence", ["exp-086-prio-rubric", "exp-088-tool-schema", "exp-089-reply-tone"]),
            ("confidence", "high"),
            ("data_class", "internal"),
        ],
        "Report abuse recall with a bootstrap interval, never as a single number.\n",
    ),
    Doc(
        "findings",
        "2026-07-fewshot-4-best.md",
        [
            ("title", "Four few-shot examples are the sweet spot"),
            ("slug", "fewshot-4-best"),
            ("status", "superseded"),
            ("updated_at", "2026-07-09"),
            ("owner", "priya"),
            ("superseded_by", "fewshot-plateau"),
        ],
        "Measured on the old harness; superseded by the plateau finding.\n",
    ),
    Doc(
        "findings",
        "2026-06-lang-misroutes.md",
        [
            ("title", "Non-English tickets are misrouted twice as often"),
            ("slug", "lang-misroutes"),
            ("status", "superseded"),
            ("updated_at", "2026-06-18"),
            ("owner", "jun"),
            ("superseded_by", "signature-noise"),
        ],
        "Mostly explained by signatures and quoted history, see the newer finding.\n",
    ),
    Doc(
        "findings",
        "2026-06-judge-bias.md",
        [
            ("title", "The judge rewards apologies"),
            ("slug", "judge-bias-apologies"),
            ("status", "retracted"),
            ("updated_at", "2026-06-25"),
            ("owner", "sam"),
            ("data_class", "internal"),
        ],
        "Retracted: the effect came from a rubric typo, fixed in rubric v2.\n",
    ),
]


DEMO_DECISIONS: list[Doc] = [
    Doc(
        "decisions",
        "0001-queue-taxonomy-v2.md",
        [
            ("title", "Use the five-queue taxonomy"),
            ("slug", "0001-queue-taxonomy-v2"),
            ("status", "accepted"),
            (
                "summary",
                "Five queues: billing, technical, account, shipping, abuse. Nothing is routed to other.",
            ),
            ("updated_at", "2026-05-12"),
            ("deciders", ["priya", "support-leads"]),
            ("data_class", "public"),
        ],
        'Billing, technical, account, shipping, abuse. "Other" is not a queue.\n',
    ),
    Doc(
        "decisions",
        "0002-log-experiments-in-ledger.md",
        [
            ("title", "Log every experiment in the ledger"),
            ("slug", "0002-log-experiments-in-ledger"),
            ("status", "accepted"),
            (
                "summary",
                "One markdown file per experiment; the frontmatter holds the numbers, the body the story.",
            ),
            ("updated_at", "2026-05-20"),
            ("deciders", ["marco", "priya"]),
        ],
        "One markdown file per experiment, frontmatter holds the numbers.\n",
    ),
    Doc(
        "decisions",
        "0003-single-llm-call.md",
        [
            ("title", "Route, prioritise and draft in one LLM call"),
            ("slug", "0003-single-llm-call"),
            ("status", "superseded"),
            ("updated_at", "2026-06-02"),
            ("superseded_by", "0005-tool-calling-router"),
        ],
        "Cheap and simple; superseded when we needed customer context.\n",
    ),
    Doc(
        "decisions",
        "0004-redact-pii-before-model.md",
        [
            ("title", "Redact customer PII before any model call"),
            ("slug", "0004-redact-pii-before-model"),
            ("status", "accepted"),
            (
                "summary",
                "The redaction service replaces names, emails, card fragments and addresses before any model call.",
            ),
            ("updated_at", "2026-10-28"),
            ("deciders", ["security", "dana"]),
            ("data_class", "restricted"),
        ],
        "Names, emails, card fragments and addresses are replaced with typed\nplaceholders by the redaction service before the router sees a ticket.\n",
    ),
    Doc(
        "decisions",
        "0005-tool-calling-router.md",
        [
            ("title", "Adopt the tool-calling router (harness v3)"),
            ("slug", "0005-tool-calling-router"),
            ("status", "Accepted"),
            (
                "summary",
                "Move to harness v3: +3.1 points routing accuracy for 18% more cost per ticket.",
            ),
            ("updated_at", "2026-09-30T17:45:00Z"),
            ("deciders", ["marco", "priya", "jun"]),
            ("supersedes", "0003-single-llm-call"),
            ("data_class", "internal"),
        ],
        "Accuracy +3.1 points on routing-accuracy at 18% more cost.\n",
    ),
    Doc(
        "decisions",
        "0006-fine-tune-small-model.md",
        [
            ("title", "Fine-tune a small model for routing"),
            ("slug", "0006-fine-tune-small-model"),
            ("status", "rejected"),
            ("updated_at", "2026-08-05"),
        ],
        "Rejected: labelling cost too high for the expected gain.\n",
    ),
    Doc(
        "decisions",
        "0008-refresh-eval-sets-quarterly.md",
        [
            ("title", "Refresh the eval sets every quarter"),
            ("slug", "0008-refresh-eval-sets-quarterly"),
            ("status", "accepted"),
            (
                "summary",
                "Each quarter, 20% of every eval set is replaced with freshly labelled tickets.",
            ),
            ("updated_at", "2026-11-18T09:00:00Z"),
            ("deciders", ["priya", "dana", "support-leads"]),
            ("data_class", "internal"),
        ],
        "Keeps the sets close to current ticket traffic; old runs stay comparable\non the 80% that is kept.\n",
    ),
    Doc(
        "decisions",
        "0007-use-jwt.md",
        [
            ("title", "Use JWT to authenticate helpdesk webhooks"),
            ("slug", "0007-use-jwt"),
            ("status", "proposed"),
            ("updated_at", "2026-11-16"),
            ("deciders", ["alex"]),
        ],
        "Replace the shared secret header with short-lived signed JWTs.\n",
    ),
]


def demo_space() -> Space:
    docs = DEMO_HARNESSES + DEMO_EVALS + DEMO_FINDINGS + DEMO_DECISIONS + make_experiments(100)
    return Space("demo", DEMO_AGENTS, docs)

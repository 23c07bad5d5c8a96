"""``overflow/``: groups 4-6 must be trimmed.

The same ``agents.md``, harnesses and evals as ``demo/``; 40 findings and 40 decisions
with fat frontmatter (about 600 B each), and demo's last 30 experiments.
"""

from __future__ import annotations

import datetime as dt

from demo_data import DEMO_AGENTS, DEMO_EVALS, DEMO_HARNESSES
from documents import Doc, Pairs, Space
from experiments import OWNERS, QUEUES, make_experiments

FINDING_TOPICS = [
    "refund wording",
    "VAT invoices",
    "password resets",
    "2FA lockouts",
    "carrier delays",
    "customs holds",
    "spam reports",
    "chargebacks",
    "plan downgrades",
    "API rate limits",
    "webhook retries",
    "SSO errors",
    "address changes",
    "gift cards",
    "account merges",
    "data export requests",
    "duplicate charges",
    "lost parcels",
    "phishing reports",
    "trial extensions",
]


def overflow_findings() -> list[Doc]:
    docs: list[Doc] = []
    for i in range(1, 41):
        topic = FINDING_TOPICS[(i - 1) % len(FINDING_TOPICS)]
        queue = QUEUES[i % len(QUEUES)]
        status = "current" if i <= 30 else ("superseded" if i % 2 else "retracted")
        day = dt.date(2026, 11, 20) - dt.timedelta(days=i * 4)
        pairs: Pairs = [
            ("title", f"Tickets about {topic} are routed to {queue} too often"),
            ("slug", f"f{i:03d}-{topic.replace(' ', '-').lower()}"),
            ("status", status),
        ]
        if i != 17:  # one undated current finding: last of group 4
            pairs.append(
                (
                    "updated_at",
                    day.isoformat() if i % 2 else f"{day.isoformat()}T{9 + i % 8:02d}:30:00Z",
                )
            )
        pairs += [
            ("owner", OWNERS[i % len(OWNERS)]),
            ("confidence", ["low", "medium", "high"][i % 3]),
            (
                "evidence",
                [
                    f"exp-{70 + (i * 3) % 30:03d}",
                    f"exp-{71 + (i * 7) % 29:03d}",
                    f"exp-{72 + (i * 5) % 28:03d}",
                ],
            ),
            ("queues_affected", [queue, QUEUES[(i + 2) % 5]]),
            (
                "summary",
                f"On the routing-accuracy set, {10 + i % 20}% of {topic} tickets land in "
                f"{queue}; the labelled queue is {QUEUES[(i + 2) % 5]}. The error survives "
                f"prompt changes and appears in every language we test.",
            ),
            ("next_step", f"Add two {topic} examples to the few-shot pool and re-run."),
        ]
        if i % 5 == 0:
            pairs.append(("data_class", "internal"))
        elif i % 11 == 0:
            pairs.append(("data_class", "confidential"))
        docs.append(
            Doc(
                "findings",
                f"f{i:03d}.md",
                pairs,
                f"Details for finding {i}: see the linked runs.\n",
            )
        )
    return docs


def overflow_decisions() -> list[Doc]:
    docs: list[Doc] = []
    for i in range(1, 41):
        topic = FINDING_TOPICS[(i + 6) % len(FINDING_TOPICS)]
        status = "accepted" if i <= 32 else ["proposed", "rejected", "superseded"][i % 3]
        day = dt.date(2026, 11, 18) - dt.timedelta(days=i * 3)
        pairs: Pairs = [
            ("title", f"Handle {topic} with a dedicated routing rule"),
            ("slug", f"{i:04d}-route-{topic.replace(' ', '-').lower()}"),
            ("status", status),
            ("updated_at", day.isoformat()),
            ("deciders", [OWNERS[i % len(OWNERS)], OWNERS[(i + 3) % len(OWNERS)], "support-leads"]),
            (
                "context",
                f"Misroutes of {topic} tickets cost the support team about {2 + i % 9} hours a "
                f"week in manual re-assignment, and customers wait a day longer for a reply.",
            ),
            (
                "consequences",
                f"A rule in src/triage/rules.py runs before the router for {topic}; "
                f"the router never sees these tickets, so evals must report them separately.",
            ),
            ("review_by", (day + dt.timedelta(days=90)).isoformat()),
        ]
        if i == 3:
            pairs.append(("data_class", "restricted"))
        elif i % 6 == 0:
            pairs.append(("data_class", "public"))
        docs.append(
            Doc(
                "decisions",
                f"{i:04d}-route-{topic.replace(' ', '-').lower()}.md",
                pairs,
                f"Decision {i}. Context and consequences are in the frontmatter.\n",
            )
        )
    return docs


def overflow_space() -> Space:
    docs = DEMO_HARNESSES + DEMO_EVALS + overflow_findings() + overflow_decisions() + make_experiments(30)
    return Space("overflow", DEMO_AGENTS, docs)

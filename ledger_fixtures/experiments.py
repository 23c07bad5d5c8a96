"""The shared vocabulary and the 100-experiment calendar of ``demo/`` and ``overflow/``.

``make_experiments(100)`` is demo's experiment folder; ``make_experiments(30)`` takes the
calendar's last 30, overflow's. The last ten are hand-made so the top ten of group 6 holds
ties, offsets, fractional seconds and a date-only value.
"""

from __future__ import annotations

import datetime as dt

from documents import Doc, Pairs

OWNERS = ["priya", "marco", "jun", "alex", "sam", "dana", "agent/triage-bot"]
QUEUES = ["billing", "technical", "account", "shipping", "abuse"]

EXP_THEMES: list[tuple[str, str, str, str, list[str]]] = [
    (
        "fewshot",
        "Few-shot with {n} routed examples",
        "Adding {n} routed examples to the system prompt lifts routing accuracy by at least 1 point.",
        "routing-accuracy",
        ["prompt", "few-shot"],
    ),
    (
        "temp",
        "Temperature {t} for the router call",
        "Routing is more stable at temperature {t} without hurting reply quality.",
        "routing-accuracy",
        ["sampling"],
    ),
    (
        "kb-topk",
        "KB retrieval top-{n}",
        "Retrieving {n} knowledge-base articles gives the drafter enough grounding.",
        "reply-quality",
        ["retrieval"],
    ),
    (
        "prio-rubric",
        "Priority rubric v{n}",
        "An explicit P1-P4 rubric (v{n}) reduces P1 under-calls.",
        "priority-calibration",
        ["priority", "prompt"],
    ),
    (
        "lang-detect",
        "Language detection before routing ({n} langs)",
        "Detecting the ticket language first fixes misroutes on non-English tickets.",
        "routing-accuracy",
        ["i18n"],
    ),
    (
        "dedupe",
        "Thread dedupe window {n}h",
        "Merging follow-ups within {n}h removes duplicate tickets from the queues.",
        "routing-accuracy",
        ["preprocessing"],
    ),
    (
        "tool-schema",
        "Tool schema v{n} for queue_assign",
        "A stricter queue_assign schema (v{n}) cuts invalid tool calls.",
        "routing-accuracy",
        ["tools"],
    ),
    (
        "reply-tone",
        "Reply tone guide v{n}",
        "Tone guide v{n} raises judge scores for empathy without longer replies.",
        "reply-quality",
        ["drafting"],
    ),
    (
        "small-model",
        "Small model for easy tickets (threshold {t})",
        "Sending tickets with router confidence above {t} to the small model saves cost at equal accuracy.",
        "routing-accuracy",
        ["cost", "cascade"],
    ),
    (
        "sig-strip",
        "Strip email signatures ({n} rules)",
        "Removing signatures and quoted history with {n} rules shortens input without losing signal.",
        "routing-accuracy",
        ["preprocessing"],
    ),
]


def experiment_date(i: int) -> str | None:
    """updated_at for experiment i (1-based) of 100; the last ten are hand-made
    so the top ten holds ties, offsets and a date-only value."""
    special: dict[int, str | None] = {
        37: None,  # the undated one
        20: "2026-06-10",
        21: "2026-06-10",  # an old tie
        91: "2026-10-27T16:05:00Z",
        92: "2026-10-30",
        93: "2026-11-03T09:30:00+02:00",  # same instant as 94 (07:30Z)
        94: "2026-11-03T07:30:00Z",
        95: "2026-11-06T11:00:00.250Z",
        96: "2026-11-10",
        97: "2026-11-12T08:15:00Z",  # tie with 98; slug order != path order
        98: "2026-11-12T08:15:00Z",
        99: "2026-11-18T23:30:00-05:00",  # = 2026-11-19T04:30Z, newest of all
        100: "2026-11-19T01:00:00Z",
    }
    if i in special:
        return special[i]
    day = dt.date(2026, 5, 4) + dt.timedelta(days=(i * 19) // 10)
    if i % 3 == 0:
        return f"{day.isoformat()}T{8 + i % 10:02d}:{(i * 7) % 60:02d}:00Z"
    return day.isoformat()


# Ties in the top ten whose slug order differs from path order and from the order of the
# raw updated_at strings.
TIE_SLUGS = {93: "prio-rubric-v2", 94: "lang-detect-5", 97: "tone-guide-v5", 98: "small-model-cascade"}


def make_experiments(count: int, numbering_offset: int = 0) -> list[Doc]:
    """count experiments, numbered numbering_offset+1 .. numbering_offset+count,
    using the 100-experiment calendar above (count=30 takes its last 30)."""
    positions = range(100 - count + 1, 101)  # positions in the 100-day calendar
    return [experiment(i, numbering_offset + i) for i in positions]


def status_of_experiment(i: int) -> str:
    if i <= 85:
        return ["done", "done", "done", "abandoned", "done", "done"][i % 6]
    return ["done", "running", "done", "planned", "running", "done"][i % 6]


def experiment(i: int, num: int) -> Doc:
    """Experiment number ``num``, at position ``i`` of the calendar."""
    key, title_t, hyp_t, ev, tags = EXP_THEMES[i % len(EXP_THEMES)]
    n = 2 + (i * 3) % 9
    t = f"0.{(i * 7) % 9 + 1}"
    title, hypothesis = title_t.format(n=n, t=t), hyp_t.format(n=n, t=t)
    stem = f"exp-{num:03d}-{key}"
    when = experiment_date(i)
    status = status_of_experiment(i)
    pairs: Pairs = [("title", title)]
    if i % 12 != 5:  # a few experiments have no slug field
        pairs.append(("slug", TIE_SLUGS.get(i, stem)))
    pairs.append(("status", status))
    if i in (57, 96):  # a YAML comment, kept verbatim in the pack
        pairs.append(("#", "re-run after the tokenizer fix; numbers replaced"))
    if when is not None:
        pairs.append(("updated_at", when))
    pairs += [
        ("harness", "triage-harness-v3" if i > 40 else "triage-harness-v2"),
        ("eval", ev),
        ("owner", OWNERS[i % len(OWNERS)]),
        ("hypothesis", hypothesis),
        (
            "config",
            [
                ("prompt_version", f"v{3 + i // 25}.{i % 10}"),
                ("temperature", "0" if i % 5 else t),
            ],
        ),
    ]
    if status != "planned":
        pairs.append(("run_id", f"run-{num:04d}"))
    pairs += outcome(i, status, ev)
    pairs.append(("tags", tags))
    if i in (40, 95):
        pairs.append(("data_class", "confidential"))
    elif i % 4 == 0:
        pairs.append(("data_class", "internal"))
    elif i % 7 == 0:
        pairs.append(("data_class", "public"))
    month = when[:7] if when is not None and when.startswith(("2026-10", "2026-11")) else None
    rel = f"{month}/{stem}.md" if month else f"{stem}.md"
    body = (
        f"# {title}\n\n"
        f"Setup: {hypothesis} We ran the `{ev}` eval on the frozen\n"
        f"October split with the current harness and compared against the last\n"
        f"accepted baseline. Ticket ids of notable failures are in the run log.\n\n"
        f"## Notes\n\n- Run id: run-{num:04d}\n- Seeds: 3, results averaged.\n"
    )
    return Doc("experiments", rel, pairs, body)


def outcome(i: int, status: str, ev: str) -> Pairs:
    """The ``result`` (and ``verdict``) of experiment ``i``, by its status."""
    acc = 0.84 + ((i * 37) % 90) / 1000
    if status == "done":
        res = [
            ("accuracy", f"{acc:.3f}"),
            ("macro_f1", f"{acc - 0.041:.3f}"),
            ("p95_latency_ms", str(1400 + (i * 53) % 900)),
            ("cost_usd_per_1k", f"{1.8 + (i % 7) * 0.11:.2f}"),
        ]
        if ev == "priority-calibration":
            res.append(("p1_recall", f"{0.78 + (i % 13) / 100:.2f}"))
        return [("result", res), ("verdict", "supports" if i % 4 else "refutes")]
    if status == "running":
        return [("result", [("accuracy", f"{acc:.3f}"), ("n_scored", str(300 + i * 4))])]
    if status == "abandoned":
        return [("result", [("accuracy", "n/a"), ("note", "stopped early, eval set leak")])]
    return []

#!/usr/bin/env python3
"""Regenerate the sample ledgers (fixtures) used by ledger-context's tests.

    python ledger_fixtures/generate.py

(Re)creates three spaces next to this file -- ``demo/``, ``overflow/`` and
``floor/`` -- each holding a ``.ledger/`` folder of markdown documents with
YAML frontmatter.  Standard library only, no randomness: the same script always
writes byte-identical files (UTF-8, ``\\n`` line endings).

The script also lays out each space's context pack with a small model of the
rules in ``docs/spec.md`` (sections 3-6) and asserts the
properties each fixture exists for:

* demo     -- all six groups present, pack well under 24000 bytes;
* overflow -- groups 1-3 fit easily, the whole pack is far over 24000 bytes, so
              group 4-6 blocks are dropped (all findings kept, decisions cut
              part-way, every experiment dropped);
* floor    -- groups 1-3 alone exceed 24000 bytes and byte offset 24000 of the
              pack falls inside a 4-byte UTF-8 character (an emoji).

The model only exists to check the fixtures; it is not the product.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SPACES = ("demo", "overflow", "floor")
CAP_BYTES = 24000

# ---------------------------------------------------------------------------
# documents
# ---------------------------------------------------------------------------

_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_ .:/+@()'-]*$")
_YAML_WORDS = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"}


def scalar(value: str, flow: bool = False) -> str:
    """Render a string as a YAML scalar: plain when unambiguous, else JSON-quoted
    (a JSON string is a valid YAML double-quoted scalar)."""
    plain = (
        _PLAIN.match(value) is not None
        and ": " not in value
        and " #" not in value
        and not value.endswith((":", " "))
        and value.casefold() not in _YAML_WORDS
        and not (flow and ":" in value)
    )
    return value if plain else json.dumps(value, ensure_ascii=False)


def render_frontmatter(pairs) -> str:
    """pairs: list of (key, value).  value is a str (scalar), a list of str
    (flow sequence) or a list of (key, str) tuples (nested block mapping).
    key "#" writes a YAML comment line, key "" a blank line."""
    lines = []
    for key, value in pairs:
        if key == "#":
            lines.append("# " + value)
        elif key == "":
            lines.append("")
        elif isinstance(value, str):
            lines.append(f"{key}: {scalar(value)}")
        elif value and isinstance(value[0], tuple):
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {scalar(v)}" for k, v in value)
        else:
            lines.append(f"{key}: [{', '.join(scalar(v, flow=True) for v in value)}]")
    return "\n".join(lines)


def fm_get(pairs, key):
    found = None
    for k, v in pairs:
        if k == key:
            found = v
    return found


class Doc:
    def __init__(self, kind: str, rel: str, pairs, body: str):
        self.kind = kind  # harnesses / evals / findings / decisions / experiments
        self.rel = rel  # path below the kind folder, e.g. "2026-10/exp-081.md"
        self.pairs = pairs
        self.body = body

    @property
    def path(self) -> str:
        return f".ledger/{self.kind}/{self.rel}"

    @property
    def fm(self) -> str:
        return render_frontmatter(self.pairs)

    def text(self) -> str:
        body = self.body.strip("\n")
        return f"---\n{self.fm}\n---\n\n{body}\n"


class Space:
    def __init__(self, name: str, agents: str | None, docs):
        self.name = name
        self.agents = agents
        self.docs = list(docs)

    def count(self, kind: str) -> int:
        return sum(1 for d in self.docs if d.kind == kind)

    def write(self) -> None:
        base = ROOT / self.name
        if base.exists():
            shutil.rmtree(base)
        ledger = base / ".ledger"
        for kind in ("harnesses", "evals", "findings", "decisions", "experiments"):
            (ledger / kind).mkdir(parents=True, exist_ok=True)
        if self.agents is not None:
            _write(ledger / "agents.md", self.agents)
        seen = set()
        for d in self.docs:
            assert d.path not in seen, d.path
            seen.add(d.path)
            target = base / d.path
            target.parent.mkdir(parents=True, exist_ok=True)
            _write(target, d.text())


def _write(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


# ---------------------------------------------------------------------------
# a model of the pack layout (spec sections 3-6), used only for assertions
# ---------------------------------------------------------------------------

LABEL = {"harnesses": "Harness", "evals": "Eval", "findings": "Finding", "decisions": "Decision"}
_NULLS = {"", "~", "null"}


def _missing(v) -> bool:
    return v is None or (isinstance(v, str) and v.strip().casefold() in _NULLS)


def _clean(s: str) -> str:
    s = "".join(" " if unicodedata.category(c) == "Cc" else c for c in s)
    return " ".join(s.split())


def slug_of(d: Doc) -> str:
    s = fm_get(d.pairs, "slug")
    if isinstance(s, str) and not _missing(s) and _clean(s):
        return _clean(s)
    name = d.rel.rsplit("/", 1)[-1]
    return name[:-3]


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")


def _headings(body: str):
    """(line index, level, text) of ATX headings outside fenced code."""
    out, fence = [], None
    lines = body.split("\n")
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and not line.strip()[len(m.group(1)) :].strip()
            ):
                fence = None
            continue
        h = _ATX.match(line)
        if h:
            text = re.sub(r"[ \t]+#+$", "", h.group(2) or "").strip()
            if re.fullmatch(r"#+", text):
                text = ""
            out.append((i, len(h.group(1)), text))
    return out, lines


def title_of(d: Doc) -> str:
    t = fm_get(d.pairs, "title")
    if isinstance(t, str) and not _missing(t) and _clean(t):
        return _clean(t)
    heads, _ = _headings(d.body)
    for _, level, text in heads:
        if level == 1 and _clean(text):
            return _clean(text)
    return slug_of(d)


_LIST = re.compile(r"^[ \t]*(?:[-*+]|[0-9]+[.)])[ \t]")


def metrics_of(d: Doc):
    heads, lines = _headings(d.body)
    for n, (i, level, text) in enumerate(heads):
        if text.strip().casefold() == "metrics":
            end = len(lines)
            for j, lvl, _ in heads[n + 1 :]:
                if lvl <= level:
                    end = j
                    break
            return [ln for ln in lines[i + 1 : end] if _LIST.match(ln)]
    return []


def status_of(d: Doc) -> str | None:
    s = fm_get(d.pairs, "status")
    return s.strip().casefold() if isinstance(s, str) else None


def when_of(d: Doc):
    v = fm_get(d.pairs, "updated_at")
    if not isinstance(v, str) or _missing(v):
        return None
    try:
        t = dt.datetime.fromisoformat(v.strip())
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.UTC)
    return t


def newest_first(docs):
    docs = sorted(docs, key=lambda d: (slug_of(d), d.path))
    dated = [d for d in docs if when_of(d) is not None]
    undated = [d for d in docs if when_of(d) is None]
    dated.sort(key=when_of, reverse=True)  # stable: ties keep slug, path order
    return dated + undated


def pack_blocks(space: Space):
    """[(group, path, text)] in pack order, before any budget; text includes
    the '\\n' separator charged to the block (every block but the first)."""
    blocks = []
    if space.agents:
        blocks.append(
            (
                1,
                ".ledger/agents.md",
                space.agents if space.agents.endswith("\n") else space.agents + "\n",
            )
        )

    def by_kind(kind: str) -> list[Doc]:
        return [d for d in space.docs if d.kind == kind]

    sel = [
        (
            2,
            sorted(
                (d for d in by_kind("harnesses") if status_of(d) == "active"),
                key=lambda d: (slug_of(d), d.path),
            ),
        ),
        (
            3,
            sorted(
                (d for d in by_kind("evals") if status_of(d) == "active"),
                key=lambda d: (slug_of(d), d.path),
            ),
        ),
        (4, newest_first(d for d in by_kind("findings") if status_of(d) == "current")),
        (5, newest_first(d for d in by_kind("decisions") if status_of(d) == "accepted")),
    ]
    for group, docs in sel:
        for d in docs:
            text = f"## {LABEL[d.kind]}: {title_of(d)} ({d.path})\n---\n{d.fm}\n---\n"
            if d.kind == "evals":
                m = metrics_of(d)
                if m:
                    text += "Metrics:\n" + "".join(ln + "\n" for ln in m)
            blocks.append((group, d.path, text))
    for d in newest_first(by_kind("experiments"))[:10]:
        blocks.append((6, d.path, f"---\n{d.fm}\n---\n"))
    out = []
    for n, (g, p, t) in enumerate(blocks):
        out.append((g, p, t if n == 0 else "\n" + t))
    return out


def size(blocks) -> int:
    return sum(len(t.encode("utf-8")) for _, _, t in blocks)


def apply_budget(blocks, cap=CAP_BYTES):
    kept = list(blocks)
    while size(kept) > cap and any(g >= 4 for g, _, _ in kept):
        idx = max(i for i, (g, _, _) in enumerate(kept) if g >= 4)
        del kept[idx]
    data = "".join(t for _, _, t in kept).encode("utf-8")
    if len(data) > cap:
        cut = cap
        while cut > 0 and (data[cut] & 0xC0) == 0x80:
            cut -= 1
        data = data[:cut]
    return kept, data


# ---------------------------------------------------------------------------
# shared vocabulary
# ---------------------------------------------------------------------------

OWNERS = ["priya", "marco", "jun", "alex", "sam", "dana", "agent/triage-bot"]
QUEUES = ["billing", "technical", "account", "shipping", "abuse"]

EXP_THEMES = [
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
    special = {
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


def make_experiments(count: int, numbering_offset: int = 0):
    """count experiments, numbered numbering_offset+1 .. numbering_offset+count,
    using the 100-experiment calendar above (count=30 takes its last 30)."""
    docs = []
    for k in range(1, count + 1):
        i = (100 - count) + k  # position in the 100-day calendar
        num = numbering_offset + i
        key, title_t, hyp_t, ev, tags = EXP_THEMES[i % len(EXP_THEMES)]
        n = 2 + (i * 3) % 9
        t = f"0.{(i * 7) % 9 + 1}"
        stem = f"exp-{num:03d}-{key}"
        slug = stem
        # ties in the top ten whose slug order differs from path order and from
        # the order of the raw updated_at strings
        if i == 93:
            slug = "prio-rubric-v2"
        if i == 94:
            slug = "lang-detect-5"
        if i == 97:
            slug = "tone-guide-v5"
        if i == 98:
            slug = "small-model-cascade"
        when = experiment_date(i)
        if i <= 85:
            status = ["done", "done", "done", "abandoned", "done", "done"][i % 6]
        else:
            status = ["done", "running", "done", "planned", "running", "done"][i % 6]
        acc = 0.84 + ((i * 37) % 90) / 1000
        pairs = [("title", title_t.format(n=n, t=t))]
        if i % 12 != 5:  # a few experiments have no slug field
            pairs.append(("slug", slug))
        pairs.append(("status", status))
        if i in (57, 96):  # a YAML comment, kept verbatim in the pack
            pairs.append(("#", "re-run after the tokenizer fix; numbers replaced"))
        if when is not None:
            pairs.append(("updated_at", when))
        pairs += [
            ("harness", "triage-harness-v3" if i > 40 else "triage-harness-v2"),
            ("eval", ev),
            ("owner", OWNERS[i % len(OWNERS)]),
            ("hypothesis", hyp_t.format(n=n, t=t)),
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
        if status == "done":
            res = [
                ("accuracy", f"{acc:.3f}"),
                ("macro_f1", f"{acc - 0.041:.3f}"),
                ("p95_latency_ms", str(1400 + (i * 53) % 900)),
                ("cost_usd_per_1k", f"{1.8 + (i % 7) * 0.11:.2f}"),
            ]
            if ev == "priority-calibration":
                res.append(("p1_recall", f"{0.78 + (i % 13) / 100:.2f}"))
            pairs.append(("result", res))
            pairs.append(("verdict", "supports" if i % 4 else "refutes"))
        elif status == "running":
            pairs.append(("result", [("accuracy", f"{acc:.3f}"), ("n_scored", str(300 + i * 4))]))
        elif status == "abandoned":
            pairs.append(("result", [("accuracy", "n/a"), ("note", "stopped early, eval set leak")]))
        pairs.append(("tags", tags))
        if i in (40, 95):
            pairs.append(("data_class", "confidential"))
        elif i % 4 == 0:
            pairs.append(("data_class", "internal"))
        elif i % 7 == 0:
            pairs.append(("data_class", "public"))
        if when is not None and when.startswith("2026-10"):
            rel = f"2026-10/{stem}.md"
        elif when is not None and when.startswith("2026-11"):
            rel = f"2026-11/{stem}.md"
        else:
            rel = f"{stem}.md"
        body = (
            f"# {title_t.format(n=n, t=t)}\n\n"
            f"Setup: {hyp_t.format(n=n, t=t)} We ran the `{ev}` eval on the frozen\n"
            f"October split with the current harness and compared against the last\n"
            f"accepted baseline. Ticket ids of notable failures are in the run log.\n\n"
            f"## Notes\n\n- Run id: run-{num:04d}\n- Seeds: 3, results averaged.\n"
        )
        docs.append(Doc("experiments", rel, pairs, body))
    return docs


# ---------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------

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


def demo_harnesses():
    return [
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


def demo_evals():
    return [
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


def demo_findings():
    F = "findings"
    return [
        Doc(
            F,
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
            F,
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
            F,
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
            F,
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
            F,
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
            F,
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
            F,
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
            F,
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
            F,
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


def demo_decisions():
    D = "decisions"
    return [
        Doc(
            D,
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
            D,
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
            D,
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
            D,
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
            D,
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
            D,
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
            D,
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
            D,
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
    docs = demo_harnesses() + demo_evals() + demo_findings() + demo_decisions() + make_experiments(100)
    return Space("demo", DEMO_AGENTS, docs)


# ---------------------------------------------------------------------------
# overflow
# ---------------------------------------------------------------------------

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


def overflow_findings():
    docs = []
    for i in range(1, 41):
        topic = FINDING_TOPICS[(i - 1) % len(FINDING_TOPICS)]
        queue = QUEUES[i % len(QUEUES)]
        status = "current" if i <= 30 else ("superseded" if i % 2 else "retracted")
        day = dt.date(2026, 11, 20) - dt.timedelta(days=i * 4)
        pairs = [
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


def overflow_decisions():
    docs = []
    for i in range(1, 41):
        topic = FINDING_TOPICS[(i + 6) % len(FINDING_TOPICS)]
        status = "accepted" if i <= 32 else ["proposed", "rejected", "superseded"][i % 3]
        day = dt.date(2026, 11, 18) - dt.timedelta(days=i * 3)
        pairs = [
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
    docs = demo_harnesses() + demo_evals() + overflow_findings() + overflow_decisions() + make_experiments(30)
    return Space("overflow", DEMO_AGENTS, docs)


# ---------------------------------------------------------------------------
# floor
# ---------------------------------------------------------------------------

FLOOR_OPENINGS = [
    ("お問い合わせありがとうございます", "感谢您的来信", "문의해 주셔서 감사합니다"),
    ("ご不便をおかけして申し訳ありません", "给您带来不便，非常抱歉", "불편을 드려 죄송합니다"),
    ("ご連絡いただきありがとうございます", "谢谢您联系我们", "연락 주셔서 감사합니다"),
    ("確認いたしました", "我们已经确认", "확인했습니다"),
]
FLOOR_CLOSINGS = [
    ("担当チームが確認いたします", "我们的团队会尽快处理", "담당 팀이 확인하겠습니다"),
    ("24時間以内にご連絡いたします", "我们会在24小时内回复您", "24시간 이내에 연락드리겠습니다"),
    ("詳細をお知らせください", "请告诉我们更多细节", "자세한 내용을 알려주세요"),
    ("引き続きよろしくお願いいたします", "感谢您的耐心等待", "양해해 주셔서 감사합니다"),
    ("返金手続きを開始しました", "退款流程已经开始", "환불 절차를 시작했습니다"),
]
FLOOR_QUEUE_EMOJI = {
    "billing": "💳",
    "technical": "🛠️",
    "account": "🔐",
    "shipping": "📦",
    "abuse": "🚨",
}
FLOOR_PRIO_EMOJI = ["🔴", "🟠", "🟡", "🟢"]


def floor_agents(rows: int, pad: int) -> str:
    head = """\
---
data_class: public
owner: triage-apac
---
# エージェント向け指示 / 智能体说明 / 에이전트 지침 🌏

This repo holds the APAC build of the triage agent. Tickets arrive in Japanese,
Chinese and Korean; the agent routes them, sets a priority and drafts a reply
from the phrase bank below. 絵文字はキューと優先度の目印です。表情符号标记队列和优先级。

| queue | 🏷️ | 日本語 | 中文 | 한국어 |
|---|---|---|---|---|
| billing | 💳 | 請求 | 账单 | 청구 |
| technical | 🛠️ | 技術 | 技术 | 기술 |
| account | 🔐 | アカウント | 账户 | 계정 |
| shipping | 📦 | 配送 | 物流 | 배송 |
| abuse | 🚨 | 不正利用 | 滥用 | 악용 |

## Phrase bank 📚

Use these phrases verbatim; do not translate them yourself. 翻訳しないこと。不要自行翻译。

"""
    lines = [head]
    for r in range(rows):
        q = QUEUES[r % 5]
        p = (r // 5) % 4
        o = FLOOR_OPENINGS[r % len(FLOOR_OPENINGS)]
        c = FLOOR_CLOSINGS[(r * 3) % len(FLOOR_CLOSINGS)]
        lines.append(
            f"- {FLOOR_QUEUE_EMOJI[q]}{FLOOR_PRIO_EMOJI[p]} {q} P{p + 1} #{r + 1:03d}: "
            f"ja「{o[0]}。{c[0]}🙏」 zh「{o[1]}，{c[1]}🙏」 ko「{o[2]}. {c[2]} 🙏」\n"
        )
    lines.append("\n## Review\n\n")
    lines.append(f"<!-- layout padding, keeps the fixture's byte offsets stable: {'x' * pad} -->\n")
    # deliberately no final newline: the pack appends one (spec section 5)
    lines.append("最終確認 / 最后审核 / 최종 검토: triage-apac 🎌🐉🐯")
    return "".join(lines)


def floor_docs():
    H, E = "harnesses", "evals"
    docs = [
        Doc(
            H,
            "apac-router-v1.md",
            [
                ("title", "APAC router v1 🌏 多言語ルーター"),
                ("slug", "apac-router-v1"),
                ("status", "active"),
                ("updated_at", "2026-10-20"),
                ("owner", "jun"),
                ("model", "router-llm-2026-08"),
                ("languages", ["ja", "zh", "ko"]),
                ("tools", ["kb_search", "queue_assign", "set_priority"]),
                ("notes", "言語判定 → ルーティング → 返信草案 ✅"),
                ("data_class", "internal"),
            ],
            "Routes after language detection; drafts from the phrase bank.\n",
        ),
        Doc(
            H,
            "apac-router-v0.md",
            [
                ("title", "APAC router v0"),
                ("slug", "apac-router-v0"),
                ("status", "retired"),
                ("updated_at", "2026-07-01"),
            ],
            "Retired.\n",
        ),
        Doc(
            E,
            "ja-routing.md",
            [
                ("title", "日本語ルーティング精度 🎯"),
                ("slug", "ja-routing"),
                ("status", "active"),
                ("updated_at", "2026-10-10"),
                ("owner", "jun"),
                ("dataset", "data/evals/ja-routing-2026-10.jsonl"),
                ("size", "600"),
                ("queues", ["💳 billing", "🛠️ technical", "🔐 account", "📦 shipping", "🚨 abuse"]),
            ],
            """\
日本語チケットのルーティング精度。

## Metrics

- accuracy 🎯: ラベル通りのキューに入った割合
- macro_f1 📊: 5キューの平均F1
""",
        ),
        Doc(
            E,
            "ko-tone.md",
            [
                ("title", "한국어 답변 톤 평가 😀😐😠"),
                ("slug", "ko-tone"),
                ("status", "active"),
                ("updated_at", "2026-10-12"),
                ("owner", "mina"),
                ("dataset", "data/evals/ko-tone-2026-10.jsonl"),
                ("size", "250"),
                ("labels", ["😀 긍정", "😐 중립", "😠 부정", "🙏 사과", "🎉 축하"]),
                (
                    "legend",
                    "😀😀😀😀😀😀😀😀😀😀😐😐😐😐😐😐😐😐😐😐😠😠😠😠😠😠😠😠😠😠🙏🙏🙏🙏🙏🙏🙏🙏🙏🙏",
                ),
            ],
            """\
판정 모델이 답변 초안의 톤을 평가합니다.

## Metrics

- tone_match 😀: 라벨과 같은 톤의 비율
- apology_rate 🙏: 사과 문구가 들어간 비율
""",
        ),
        Doc(
            E,
            "zh-routing.md",
            [
                ("title", "中文路由准确率 🐉"),
                ("slug", "zh-routing"),
                ("status", "active"),
                ("updated_at", "2026-10-14"),
                ("owner", "wei"),
                ("dataset", "data/evals/zh-routing-2026-10.jsonl"),
                ("size", "700"),
            ],
            """\
中文工单的路由准确率。

## Metrics

- accuracy 🎯: 进入正确队列的比例
- macro_f1 📊: 五个队列的平均F1
""",
        ),
        Doc(
            E,
            "ko-routing-old.md",
            [
                ("title", "한국어 라우팅 (old)"),
                ("slug", "ko-routing-old"),
                ("status", "deprecated"),
                ("updated_at", "2026-06-10"),
            ],
            "## Metrics\n\n- accuracy\n",
        ),
        Doc(
            "findings",
            "ja-keigo.md",
            [
                ("title", "敬語の誤りは請求キューに多い 💳"),
                ("slug", "ja-keigo"),
                ("status", "current"),
                ("updated_at", "2026-10-25"),
                ("owner", "jun"),
            ],
            "請求関連の返信で敬語の誤りが多い。\n",
        ),
        Doc(
            "findings",
            "zh-traditional.md",
            [
                ("title", "繁體中文工單被誤判為日語"),
                ("slug", "zh-traditional"),
                ("status", "current"),
                ("updated_at", "2026-10-22T08:00:00+08:00"),
                ("owner", "wei"),
                ("data_class", "internal"),
            ],
            "繁體字被語言偵測誤判。\n",
        ),
        Doc(
            "findings",
            "ko-spacing.md",
            [
                ("title", "Korean spacing errors hurt tone scores"),
                ("slug", "ko-spacing"),
                ("status", "superseded"),
                ("updated_at", "2026-09-01"),
            ],
            "Superseded.\n",
        ),
        Doc(
            "decisions",
            "0001-phrase-bank.md",
            [
                ("title", "返信はフレーズバンクから組み立てる 📚"),
                ("slug", "0001-phrase-bank"),
                ("status", "accepted"),
                ("updated_at", "2026-09-15"),
                ("deciders", ["jun", "wei", "mina"]),
            ],
            "Drafts are assembled from approved phrases only.\n",
        ),
        Doc(
            "decisions",
            "0002-detect-language-first.md",
            [
                ("title", "Detect language before routing"),
                ("slug", "0002-detect-language-first"),
                ("status", "accepted"),
                ("updated_at", "2026-10-01"),
                ("data_class", "confidential"),
            ],
            "Language detection runs first.\n",
        ),
        Doc(
            "decisions",
            "0003-machine-translate.md",
            [
                ("title", "Machine-translate tickets to English"),
                ("slug", "0003-machine-translate"),
                ("status", "rejected"),
                ("updated_at", "2026-08-20"),
            ],
            "Rejected: loses tone.\n",
        ),
    ]
    langs = ["ja", "zh", "ko"]
    for i in range(1, 13):
        lang = langs[i % 3]
        day = dt.date(2026, 10, 1) + dt.timedelta(days=i * 3)
        pairs = [
            ("title", f"{lang} routing run {i} {FLOOR_PRIO_EMOJI[i % 4]}"),
            ("slug", f"apac-exp-{i:02d}"),
            ("status", "done" if i < 11 else "running"),
            ("updated_at", day.isoformat()),
            ("harness", "apac-router-v1"),
            ("eval", "ko-tone" if lang == "ko" else f"{lang}-routing"),
            ("owner", {"ja": "jun", "zh": "wei", "ko": "mina"}[lang]),
            ("hypothesis", f"Phrase bank v{i} improves {lang} results 📈"),
            ("result", [("accuracy", f"0.{80 + i}")]),
        ]
        docs.append(Doc("experiments", f"apac-exp-{i:02d}.md", pairs, "Run log in the notebook.\n"))
    return docs


def floor_space() -> Space:
    docs = floor_docs()
    probe = Space("floor", floor_agents(0, 0), docs)
    # Choose the number of phrase-bank rows and the padding so that byte 24000 of
    # the pack falls on the 3rd byte of a 4-byte character inside the ko-tone
    # eval block (the 2nd of the three active evals, in slug order).
    for rows in range(0, 400):
        probe.agents = floor_agents(rows, 0)
        blocks = pack_blocks(probe)
        data = "".join(t for _, _, t in blocks).encode("utf-8")
        if len(data) < CAP_BYTES:
            continue
        starts, pos = [], 0
        for _, p, t in blocks:
            starts.append((pos, p))
            pos += len(t.encode("utf-8"))
        for pad in range(0, 40):
            off = CAP_BYTES - pad  # padding shifts everything after it by `pad` bytes
            if off < 0 or off >= len(data):
                continue
            lead = off
            while (data[lead] & 0xC0) == 0x80:
                lead -= 1
            block = [p for s, p in starts if s <= lead][-1]
            if (
                data[lead] >= 0xF0
                and off - lead == 2
                and block == ".ledger/evals/ko-tone.md"
                and lead > len(probe.agents.encode("utf-8"))
            ):
                return Space("floor", floor_agents(rows, pad), docs)
    raise SystemExit("floor: no layout found")


# ---------------------------------------------------------------------------
# checks and main
# ---------------------------------------------------------------------------


def groups_of(blocks):
    return sorted({g for g, _, _ in blocks})


def check(space: Space) -> str:
    blocks = pack_blocks(space)
    full = "".join(t for _, _, t in blocks).encode("utf-8")
    kept, data = apply_budget(blocks)
    g13 = size([b for b in blocks if b[0] <= 3])
    counts = ", ".join(
        f"{k}={space.count(k)}" for k in ("harnesses", "evals", "findings", "decisions", "experiments")
    )
    per_group = {g: sum(1 for b in blocks if b[0] == g) for g in range(1, 7)}
    kept_group = {g: sum(1 for b in kept if b[0] == g) for g in range(1, 7)}
    if space.name == "demo":
        assert space.count("experiments") == 100
        assert groups_of(blocks) == [1, 2, 3, 4, 5, 6], groups_of(blocks)
        assert per_group[6] == 10 and per_group[2] == 1 and per_group[3] == 3
        assert 11000 <= len(full) <= 18000, len(full)
    elif space.name == "overflow":
        assert g13 < CAP_BYTES // 2, g13
        assert len(full) > CAP_BYTES * 3 // 2, len(full)
        assert kept_group[4] == per_group[4], "every current finding should fit"
        assert 0 < kept_group[5] < per_group[5], "decisions should be cut part-way"
        assert kept_group[6] == 0 and per_group[6] == 10
        assert len(data) <= CAP_BYTES and len(data) == size(kept), "no truncation expected"
    elif space.name == "floor":
        assert g13 > CAP_BYTES, g13
        assert all(g <= 3 for g, _, _ in kept)
        full13 = "".join(t for g, _, t in blocks if g <= 3).encode("utf-8")
        assert (full13[CAP_BYTES] & 0xC0) == 0x80, "cut must fall inside a multi-byte character"
        lead = CAP_BYTES
        while (full13[lead] & 0xC0) == 0x80:
            lead -= 1
        assert full13[lead] >= 0xF0, "the character at the cut should be 4 bytes long"
        assert len(data) == lead == CAP_BYTES - 2, (len(data), lead)
        data.decode("utf-8")  # the truncated pack is valid UTF-8
    return (
        f"{space.name}: {counts}; blocks per group {per_group}; groups 1-3 {g13} B; "
        f"pack before budget {len(full)} B; after budget {len(data)} B, kept per group {kept_group}"
    )


def main() -> int:
    spaces = [demo_space(), overflow_space(), floor_space()]
    for s in spaces:
        s.write()
    for s in spaces:
        print(check(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())

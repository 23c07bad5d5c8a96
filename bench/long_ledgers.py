"""Realistic long-body ledgers: documentation-sized bodies, rich frontmatter, three shapes.

A ledger has ``documents`` ``.md`` files in all: ``agents.md``, the 6 harnesses and 6 evals
of the short-body ledgers, and the rest split by its **shape**: 90 % of one kind
(findings, decisions or experiments), 5 % of each of the other two.

Every finding, decision and experiment has

* a **body** of 2,000 to 30,000 bytes (log-uniform, so a median near 8 KB and a mean
  near 10 KB) of Markdown: ATX headings of every level (like documentation pages, 70 %
  of the documents with a ``title`` have no H1 of their own; of those without, 60 % open
  with an H1, 25 % have it halfway down, 15 % have none placed; a stray H1 is one
  heading in 20), fenced code (backticks and tildes) holding ``#`` lines that are no headings,
  tables, lists, block quotes, long lines of 1–4 KB, and non-ASCII text (accents, Greek,
  Cyrillic, CJK, emoji);
* a **frontmatter** of 10 to 40 lines with nested values: at least one nested mapping
  (two or three levels, some holding a sequence of mappings), flow and block sequences,
  quoted and folded strings. 85 % give a ``title``; 1 in 250 has no ``updated_at``;
* a **title** of 4-7 words naming its subject, drawn from a Zipf-like vocabulary of
  30,000 words (``vocabulary.py``), as real titles are: a small fixed word list would make
  titles and bodies near copies of each other, which no search can tell apart.

Everything is deterministic (``random.Random`` seeded by the generator version, the shape
and the size) and written in one pass: Markdown fragments are drawn once per ledger into
pools, each body opens with 60-200 words of its own (the vocabulary's, naming the title's
subject words, like a real page's introduction), then a sequence of pool fragments. No file is
a hard link of another: the product reads a file reached by several paths once (spec §1),
so linked copies would measure another behaviour, not a bigger ledger.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

import ledgers
from ledgers import AGENTS_MD, EVALS, HARNESSES, OWNERS
from spaces import cached_space, wait_until
from vocabulary import Vocabulary, vocabulary

LONG_GENERATOR_VERSION = 3
"""Bump whenever this generator changes what it writes: older ledgers are regenerated."""

SHAPES = ("findings", "decisions", "experiments")
"""Shape names: the kind that makes 90 % of the ledger (``findings`` is findings-heavy)."""
KINDS = ("finding", "decision", "experiment")
MIN_BODY, MAX_BODY = 2_000, 30_000
MIN_FRONTMATTER, MAX_FRONTMATTER = 10, 40
VOCABULARY = 30_000
"""Words of the ledger's own text (``vocabulary.py``): titles and each body's opening."""
FIXED_DOCUMENTS = 1 + len(HARNESSES) + len(EVALS)
"""``agents.md``, the harnesses and the evals, in every ledger."""


@dataclass(frozen=True)
class LongSpace:
    """A generated long-body ledger and what the generator wrote."""

    path: Path
    shape: str
    documents: int
    files: int
    bytes: int
    kinds: dict[str, int]
    ready_at: float

    @property
    def name(self) -> str:
        return f"{self.shape}-heavy {self.documents:,}"


def kind_counts(shape: str, documents: int) -> dict[str, int]:
    """How many findings, decisions and experiments a ledger of ``shape`` and ``documents`` holds."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; the shapes are {', '.join(SHAPES)}")
    rest = documents - FIXED_DOCUMENTS
    if rest < 3:
        raise ValueError(f"a ledger needs at least {FIXED_DOCUMENTS + 3} documents")
    minor = max(1, rest * 5 // 100)
    counts = {kind: minor for kind in KINDS}
    counts[KINDS[SHAPES.index(shape)]] = rest - 2 * minor
    return counts


# ---------------------------------------------------------------------------
# Markdown fragments
# ---------------------------------------------------------------------------

_WORDS = tuple(
    " ".join(
        (
            "the router sends each ticket to one queue and the reply drafter writes a first answer",
            "latency budget retrieval cache embedding shard replica tokenizer prompt harness eval",
            "baseline regression rollout canary threshold calibration bootstrap interval variance",
            "queue billing shipping account technical abuse priority escalation handover summary",
        )
    ).split(" ")
)
_FOREIGN = (
    "naïve café déjà-vu façade Größe Straße",
    "Ελληνικά κείμενα για δοκιμή",
    "Русский текст для проверки",
    "日本語のテキストと漢字の混在",
    "中文测试文本，包含标点。",
    "한국어 문장 예시",
    "emoji ✅ 🚀 🧪 — “quotes” ‘single’ …",
    "Ünïcödé ñandú ø å æ ł ß",
)
_LANGUAGES = ("python", "bash", "yaml", "toml", "text", "sql")


def _sentence(rng: random.Random) -> str:
    words = rng.choices(_WORDS, k=rng.randint(8, 22))
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), rng.choice(_FOREIGN))
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(_WORDS)}_{rng.randint(1, 99)}`")
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _paragraph(rng: random.Random) -> str:
    return _wrapped([_sentence(rng) for _ in range(rng.randint(2, 7))])


def _wrapped(sentences: list[str]) -> str:
    """The sentences as one paragraph wrapped near 80 columns, as people write Markdown."""
    lines, line = [], ""
    for sentence in sentences:
        for word in sentence.split(" "):
            if line and len(line) + len(word) > 79:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines) + "\n\n"


def _heading(rng: random.Random) -> str:
    level = rng.choices(range(1, 7), (1, 6, 6, 4, 2, 1))[0]  # a second H1 now and then
    return f"{'#' * level} {_sentence(rng)[:60].rstrip('.')}\n\n"


def _code(rng: random.Random) -> str:
    language = rng.choice(_LANGUAGES)
    fence = "~~~" if rng.random() < 0.2 else "```"
    lines = []
    for number in range(rng.randint(4, 30)):
        roll = rng.random()
        if roll < 0.25:
            lines.append(f"# {_sentence(rng)[:70]}")  # a comment, never a heading
        elif roll < 0.3:
            lines.append(f"{'#' * rng.randint(1, 3)} Title-like line {number} inside code")
        elif roll < 0.35:
            lines.append("#!/usr/bin/env bash" if language == "bash" else "#include <stdio.h>")
        else:
            indent = "    " * rng.randint(0, 2)
            lines.append(
                f"{indent}{rng.choice(_WORDS)}_{number} = {rng.choice(_WORDS)}({rng.randint(0, 999)})"
            )
    return f"{fence}{language}\n" + "\n".join(lines) + f"\n{fence}\n\n"


def _table(rng: random.Random) -> str:
    columns = rng.randint(3, 6)
    header = "| " + " | ".join(rng.choice(_WORDS) for _ in range(columns)) + " |"
    rule = "|" + "|".join(rng.choice((":---", "---:", ":---:", "---")) for _ in range(columns)) + "|"
    rows = [
        "| "
        + " | ".join(f"{rng.uniform(0, 100):.2f}" if c else rng.choice(_WORDS) for c in range(columns))
        + " |"
        for _ in range(rng.randint(3, 15))
    ]
    return "\n".join([header, rule, *rows]) + "\n\n"


def _long_line(rng: random.Random) -> str:
    parts: list[str] = []
    size = 0
    target = rng.randint(1_000, 4_000)
    while size < target:
        parts.append(_sentence(rng))
        size += len(parts[-1]) + 1
    return " ".join(parts) + "\n\n"


def _list(rng: random.Random) -> str:
    numbered = rng.random() < 0.4
    items = [
        f"{index + 1}. " if numbered else rng.choice(("- ", "* ", "+ ", "  - "))
        for index in range(rng.randint(3, 12))
    ]
    return "".join(f"{marker}{_sentence(rng)}\n" for marker in items) + "\n"


def _quote(rng: random.Random) -> str:
    return "".join(f"> {_sentence(rng)}\n" for _ in range(rng.randint(1, 4))) + "\n"


_MAKERS = (
    (_paragraph, 40),
    (_heading, 14),
    (_code, 12),
    (_table, 8),
    (_long_line, 4),
    (_list, 14),
    (_quote, 8),
)
_POOL_SIZE = 600


@dataclass(frozen=True)
class _Pool:
    """Fragments drawn once per ledger, with their UTF-8 sizes."""

    texts: tuple[str, ...]
    sizes: tuple[int, ...]


def _pool(rng: random.Random) -> _Pool:
    makers = [maker for maker, _ in _MAKERS]
    weights = [weight for _, weight in _MAKERS]
    texts = [rng.choices(makers, weights)[0](rng) for _ in range(_POOL_SIZE)]
    return _Pool(tuple(texts), tuple(len(text.encode("utf-8")) for text in texts))


def _own_text(rng: random.Random, words: Vocabulary, subject: list[str]) -> str:
    """What only this document says: 60-200 words of the ledger's vocabulary, in sentences,
    naming each subject word of its title 1-3 times, 7 times in 10."""
    drawn = words.draw(rng, rng.randint(60, 200))
    for word in subject:
        if rng.random() < 0.7:
            for _ in range(rng.randint(1, 3)):
                drawn.insert(rng.randrange(len(drawn) + 1), word)
    sentences = []
    while drawn:
        sentence, drawn = " ".join(drawn[:12]), drawn[12:]
        sentences.append(f"{sentence[0].upper()}{sentence[1:]}.")
    return _wrapped(sentences)


def _body(rng: random.Random, pool: _Pool, title: str, index: int, h1: str, own: str | None = None) -> str:
    """A body of ``MIN_BODY`` to ``MAX_BODY`` bytes opening with its ``own`` text (by
    default one sentence after ``Document {index}:``); ``h1`` is ``top``, ``deep`` or ``none``."""
    target = math.exp(rng.uniform(math.log(MIN_BODY), math.log(MAX_BODY - 200)))
    opening = f"Document {index}: {_sentence(rng)}\n\n" if own is None else own
    parts = [f"# {title}\n\n" if h1 == "top" else "", opening]
    size = sum(len(part.encode("utf-8")) for part in parts)
    deep_at = target / 2 if h1 == "deep" else math.inf
    picks = rng.choices(range(len(pool.texts)), k=64)
    while size < target:
        if not picks:
            picks = rng.choices(range(len(pool.texts)), k=64)
        choice = picks.pop()
        text, length = pool.texts[choice], pool.sizes[choice]
        if size + length > MAX_BODY - 100:
            text = f"Note {index}-{len(parts)}: see the run log.\n\n"  # pure ASCII, under 100 bytes
            length = len(text)
        if size >= deep_at:  # the first H1 halfway down, after fences holding `#` lines
            heading = f"# {title}\n\n"
            text, length = heading + text, length + len(heading.encode("utf-8"))
            deep_at = math.inf
        parts.append(text)
        size += length
    return "".join(parts)


# ---------------------------------------------------------------------------
# Frontmatter
# ---------------------------------------------------------------------------


def _nested_blocks(rng: random.Random, kind: str, index: int) -> list[list[str]]:
    """Optional multi-line frontmatter values (the first is always used: every document nests)."""
    reviewers = rng.sample(OWNERS[:6], rng.randint(1, 3))
    return [
        [
            "source:",
            f"  url: https://docs.example.com/{kind}s/{index}",
            f'  fetched_at: "2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:00:00Z"',
            "  sections:",
            *(f"    - {rng.choice(_WORDS)}" for _ in range(rng.randint(1, 4))),
        ],
        [
            "review:",
            "  reviewers:",
            *(
                line
                for name in reviewers
                for line in (f"    - name: {name}", f"      verdict: {rng.choice(('approve', 'changes'))}")
            ),
            "  checklist:",
            f"    tests: {rng.choice(('passed', 'failed', 'pending'))}",
            f"    docs: {rng.choice(('done', 'pending'))}",
        ],
        [
            "metrics:",
            f"  accuracy: 0.{rng.randint(700, 990)}",
            "  latency_ms:",
            f"    p50: {rng.randint(100, 900)}",
            f"    p95: {rng.randint(900, 4000)}",
        ],
        ["links:", *(f"  - rel: evidence\n    href: exp-{rng.randint(0, 99999):06d}" for _ in range(2))],
        ["description: >-", f"  {_sentence(rng)}", f"  {_sentence(rng)}"],
        [f"keywords: [{', '.join(rng.sample(_WORDS, rng.randint(2, 6)))}]"],
        ["tags:", *(f"  - {word}" for word in rng.sample(_WORDS, rng.randint(1, 5)))],
        [f'note: "{rng.choice(_FOREIGN)}"'],
    ]


def _frontmatter(
    rng: random.Random, words: Vocabulary, kind: str, index: int, count: int, slug: str
) -> tuple[list[str], str, list[str]]:
    """(frontmatter lines, title, the title's subject words) of document ``index`` of
    ``count`` of ``kind``."""
    statuses = {
        "finding": (("current", 40), ("superseded", 30), ("retracted", 10), ("draft", 20)),
        "decision": (("accepted", 40), ("proposed", 20), ("superseded", 30), ("rejected", 10)),
        "experiment": (("done", 80), ("running", 8), ("planned", 5), ("abandoned", 7)),
    }[kind]
    _, updated = ledgers.timestamp(rng, index / count * ledgers.SPAN_DAYS + rng.uniform(-20, 20))
    title, subject = words.title(rng)  # a plain YAML scalar
    if rng.random() < 0.1:
        title = f"{rng.choice(_FOREIGN)} — {title}"
    lines = [f"title: {title}"] if rng.random() < 0.85 else []
    lines += [f"slug: {slug}", f"status: {ledgers.pick(rng, statuses)}"]
    if rng.random() >= 0.004:
        lines.append(f"updated_at: {updated}")
    lines.append(f"owner: {rng.choice(OWNERS)}")
    if rng.random() < 0.35:
        lines.append(f"data_class: {rng.choice(ledgers.DATA_CLASSES)}")
    target = rng.randint(MIN_FRONTMATTER, MAX_FRONTMATTER)
    blocks = _nested_blocks(rng, kind, index)
    chosen = [blocks[0], *rng.sample(blocks[1:], len(blocks) - 1)]
    for block in chosen:
        block_lines = "\n".join(block).split("\n")
        if len(lines) + len(block_lines) <= target or block is blocks[0]:
            lines += block_lines
    filler = 0
    while len(lines) < target:
        filler += 1
        lines.append(f"extra_{filler}: {rng.choice(_WORDS)}")
    return lines, title, subject


# ---------------------------------------------------------------------------
# Writing a ledger
# ---------------------------------------------------------------------------

_FOLDERS = {"finding": "findings", "decision": "decisions", "experiment": "experiments"}


def _write_ledger(space: Path, shape: str, documents: int, seed: str) -> dict[str, int]:
    rng = random.Random(seed)
    pool = _pool(rng)
    words = vocabulary(rng, VOCABULARY)
    ledger = space / ".ledger"
    files: list[tuple[str, str]] = [("agents.md", AGENTS_MD)]
    for number, (slug, title, status) in enumerate(HARNESSES):
        files.append((f"harnesses/{slug}.md", ledgers.harness_text(slug, title, status, number)))
    for number, (slug, title, status, metrics) in enumerate(EVALS):
        files.append((f"evals/{slug}.md", ledgers.eval_text(slug, title, status, metrics, number)))
    total = 0
    made: set[Path] = set()

    def write(rel: str, text: str) -> None:
        nonlocal total
        path = ledger / rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        data = text.encode("utf-8")
        with open(path, "wb") as handle:
            handle.write(data)
        total += len(data)

    for rel, text in files:
        write(rel, text)
    counts = kind_counts(shape, documents)
    bodies = {"body_bytes_min": MAX_BODY, "body_bytes_max": 0, "body_bytes_total": 0}
    for kind, count in counts.items():
        for index in range(count):
            slug = f"{kind[:3]}-{index:06d}-{rng.choice(_WORDS)}"
            lines, title, subject = _frontmatter(rng, words, kind, index, count, slug)
            has_title = lines[0].startswith("title: ")
            # Like documentation pages: a frontmatter title mostly stands in for the H1.
            weights = (30, 0, 70) if has_title else (60, 25, 15)
            h1 = rng.choices(("top", "deep", "none"), weights)[0]
            body = _body(rng, pool, title, index, h1, _own_text(rng, words, subject))
            body_bytes = len(body.encode("utf-8"))
            bodies["body_bytes_min"] = min(bodies["body_bytes_min"], body_bytes)
            bodies["body_bytes_max"] = max(bodies["body_bytes_max"], body_bytes)
            bodies["body_bytes_total"] += body_bytes
            year = 2023 + index * 4 // count
            write(f"{_FOLDERS[kind]}/{year}/{slug}.md", "---\n" + "\n".join(lines) + "\n---\n\n" + body)
    return {"files": documents, "bytes": total, **bodies, **{f"{kind}s": n for kind, n in counts.items()}}


def generate_long_space(spaces_dir: Path, shape: str, documents: int) -> LongSpace:
    """The ledger of ``shape`` with ``documents`` documents under ``spaces_dir``, generated if needed."""
    counts = kind_counts(shape, documents)
    seed = f"ledger-context long bench v{LONG_GENERATOR_VERSION} {shape} {documents}"
    params = {"long_generator_version": LONG_GENERATOR_VERSION, "shape": shape, "documents": documents}
    path, info, ready_at = cached_space(
        spaces_dir,
        f"{shape}-{documents}",
        params,
        lambda staging: _write_ledger(staging, shape, documents, seed),
    )
    return LongSpace(path, shape, documents, info["files"], info["bytes"], counts, ready_at)


def wait_until_long_ready(space: LongSpace) -> None:
    """Sleep until the ledger's files are old enough for the cache to trust them."""
    wait_until(space.ready_at)

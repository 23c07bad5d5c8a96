#!/usr/bin/env python3
"""Search (spec §10): known-item quality, warm latency, the index's build cost and memory.

    python bench/search.py                 # 1,000, 10,000 and 50,000 documents, and findings-2500
    python bench/search.py 1000,10000      # only these sizes

Quality: for 200 documents sampled with a fixed seed, a query of 2-3 words of the title
and a query of the 3 rarest words of the body (fewest documents hold them) must find the
document in the top 5; the share of samples that do is printed per ledger. Latency: 200
distinct queries of 2-3 words drawn with the ledger's own word frequencies, each run
once on a warm index (built, the build cached): p50 and p95. Build cost: the index built
from scratch beside a cold build of the same ledger (no provenance), median of three.
Memory: what tracemalloc sees allocated by building the index.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from ledger_context.pack.build import ContextBuild, ContextBuilder
from ledger_context.search.inverted import SearchIndex, postings_of
from ledger_context.search.result import in_scope, search
from ledger_context.search.terms import terms
from long_ledgers import generate_long_space
from machine import BENCH_DIR
from spaces import cached_space

SEED = "ledger-context search bench v1"
KINDS = (("findings", 0.3), ("decisions", 0.2), ("experiments", 0.5))


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    syllables = [
        "ka",
        "lo",
        "mi",
        "ne",
        "ru",
        "sa",
        "to",
        "vi",
        "xe",
        "zu",
        "pra",
        "sten",
        "qua",
        "dor",
        "fel",
    ]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _write(space: Path, documents: int) -> dict[str, int]:
    """Documents with titles of 4-7 words and bodies of 80-200 words, drawn from a
    Zipf-like vocabulary of 30,000 words (a few common, most rare)."""
    rng = random.Random(f"{SEED} {documents}")
    vocabulary = _vocabulary(rng, 30_000)
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]
    total = 0
    for index in range(documents):
        folder = rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0]
        title = " ".join(rng.choices(vocabulary, weights, k=rng.randint(4, 7))).capitalize()
        body = " ".join(rng.choices(vocabulary, weights, k=rng.randint(80, 200)))
        status = rng.choice(("current", "draft", "accepted", "done"))
        text = (
            f"---\ntitle: {title}\nstatus: {status}\n"
            f"updated_at: 2026-{1 + index % 12:02d}-{1 + index % 28:02d}\n---\n\n# {title}\n\n{body}\n"
        )
        path = space / ".ledger" / folder / f"{index // 1000:03d}" / f"doc-{index:06d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        total += len(text.encode("utf-8"))
    return {"files": documents, "bytes": total}


def _space(documents: int) -> Path:
    path, _, _ = cached_space(
        BENCH_DIR / ".spaces",
        f"search-{documents}",
        {"search_bench": SEED, "documents": documents},
        lambda s: _write(s, documents),
    )
    return path


def _known_items(build: ContextBuild, index: SearchIndex, rng: random.Random) -> tuple[float, float]:
    """Shares of 200 sampled documents found in the top 5 by title words and rare body words."""
    documents = [d for d in in_scope(build) if d.kind != "agents"]
    df: dict[str, int] = {}
    for document in documents:
        for term in postings_of(document).counts:
            df[term] = df.get(term, 0) + 1
    sample = rng.sample(documents, min(200, len(documents)))
    by_title = by_body = 0
    for document in sample:
        title_terms = list(dict.fromkeys(terms(document.title)))
        words = rng.sample(title_terms, min(len(title_terms), rng.randint(2, 3)))
        top = search(build, " ".join(words), limit=5, index=index).hits
        by_title += any(hit.path == document.path for hit in top)
        body_terms = sorted(set(terms(document.body)), key=lambda t: (df[t], t))[:3]
        top = search(build, " ".join(body_terms), limit=5, index=index).hits
        by_body += any(hit.path == document.path for hit in top)
    return by_title / len(sample), by_body / len(sample)


def _latency(build: ContextBuild, index: SearchIndex, rng: random.Random) -> tuple[float, float]:
    counts: dict[str, int] = {}
    for document in in_scope(build):
        for term in terms(document.body):
            counts[term] = counts.get(term, 0) + 1
    vocabulary = sorted(counts)
    weights = [counts[t] for t in vocabulary]
    times = []
    for _ in range(200):
        query = " ".join(rng.choices(vocabulary, weights, k=rng.randint(2, 3)))
        started = time.perf_counter()
        search(build, query, index=index)
        times.append(time.perf_counter() - started)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95)]


def report(name: str, space: Path) -> None:
    builder = ContextBuilder(space, provenance=False)
    cold = []
    for _ in range(3):
        started = time.perf_counter()
        ContextBuilder(space, cache=False, provenance=False).build()
        cold.append(time.perf_counter() - started)
    build = builder.build()
    scope = in_scope(build)
    builds = []
    for _ in range(3):
        started = time.perf_counter()
        SearchIndex().sync(scope, None)
        builds.append(time.perf_counter() - started)
    tracemalloc.start()
    index = SearchIndex()
    index.sync(scope, scope)
    memory = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    rng = random.Random(f"{SEED} {name}")
    title, body = _known_items(build, index, rng)
    p50, p95 = _latency(build, index, rng)
    share = statistics.median(builds) / statistics.median(cold)
    print(
        f"| {name} | {len(scope):,} | {title:.1%} | {body:.1%} | {p50 * 1e3:.1f} ms | {p95 * 1e3:.1f} ms "
        f"| {statistics.median(builds):.2f} s = {share:.0%} of {statistics.median(cold):.2f} s "
        f"| {memory / 2**20:.0f} MiB |"
    )


def main(argv: list[str]) -> int:
    sizes = [int(n) for n in argv[1].split(",")] if len(argv) > 1 else [1000, 10_000, 50_000]
    print(
        "| ledger | documents | title words in top 5 | rare body words in top 5 | warm p50 | warm p95 "
        "| index build vs cold build | index memory |"
    )
    print("|:---|---:|---:|---:|---:|---:|---:|---:|")
    for documents in sizes:
        report(f"search-{documents}", _space(documents))
    if len(argv) <= 1:
        report("findings-2500", generate_long_space(BENCH_DIR / ".spaces", "findings", 2500).path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Search (spec §10): known-item quality, warm latency, the index's build cost and memory.

    python bench/search.py                 # 1,000, 10,000 and 50,000 documents, and the others below
    python bench/search.py 1000,10000      # only these sizes of the generated ledgers

Ledgers. ``search-N``: N documents whose bodies are 80-200 words drawn from a Zipf-like
vocabulary of 30,000 words, and whose titles name a subject, as real titles do: 4-7
words, most of them drawn from the vocabulary without its 100 most frequent words, which
the body then mentions a few times (``vocabulary.Vocabulary.title``). ``search-10000-zipf-titles``: the
first generator, titles drawn like body text, kept as a diagnostic: its titles are near
duplicates (a word like ``dordor`` is in nearly every one), so no ranking can find many
of them; the first ``separable`` column says for how many samples at most four other
documents hold every query word in their title. ``findings-2500`` and
``experiments-2500``: the real-shaped long-body ledgers of ``long_ledgers.py``
(documentation-sized Markdown, rich frontmatter, the benchmark's other suite): their
Markdown fragments are recycled from a pool, but each title names a subject and each body
opens with words of its own, as real pages do; the second ``separable`` column says for
how many samples at most four other documents hold all three body words anywhere.
``python-docstrings`` and
``python-modules``: real prose, the running Python's standard library read with ``ast``
(one document per documented function or class, and one per module that documents
itself at length: 2-70 KB bodies).

Quality: for 200 documents sampled with a fixed seed, a query of 2-3 words of the title
and a query of the 3 rarest words of the body (fewest documents hold them) must find the
document in the top 5; the share of samples that do is printed per ledger (goal 90 %).
Latency: on a warm index (built, the build cached, 200 queries served), 200 other
distinct queries of 2-3 words drawn with the ledger's own word frequencies, each run
once: p50 and p95 (goal at 50,000: p95 <= 50 ms). ``first`` is the p95 of the 200
queries served first, whose terms' ranked lists are computed on first use. Build cost:
the index built from scratch beside a cold build of the same ledger (no provenance),
median of three. Memory: what tracemalloc sees allocated by building the index, and
the ranked lists kept after the queries (bounded by ``CACHED_POSTINGS``).
"""

from __future__ import annotations

import ast
import gc
import json
import random
import statistics
import sys
import sysconfig
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

from ledger_context.model.document import Document
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.context import ContextBuild
from ledger_context.pack.served import served_document
from ledger_context.search.inverted import SearchIndex, postings_of
from ledger_context.search.result import search
from ledger_context.search.terms import terms
from long_ledgers import generate_long_space
from machine import BENCH_DIR
from spaces import cached_space, wait_until
from vocabulary import vocabulary

SEED = "ledger-context search bench v1"
KINDS = (("findings", 0.3), ("decisions", 0.2), ("experiments", 0.5))


def _write(space: Path, documents: int, zipf_titles: bool = False) -> dict[str, int]:
    """Documents with titles of 4-7 words and bodies of 80-200 words, drawn from a
    Zipf-like vocabulary of 30,000 words (a few common, most rare); the body mentions
    each subject word of the title 1-3 times, 7 times in 10 (``zipf_titles``: the first
    generator, titles drawn like the body)."""
    rng = random.Random(f"{SEED} {documents}")
    words = vocabulary(rng, 30_000)
    weights = [1.0 / (rank + 1) for rank in range(len(words.words))]
    total = 0
    for index in range(documents):
        folder = rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0]
        if zipf_titles:
            title = " ".join(rng.choices(words.words, weights, k=rng.randint(4, 7))).capitalize()
            text_words = rng.choices(words.words, weights, k=rng.randint(80, 200))
        else:
            title, subject = words.title(rng)
            text_words = words.draw(rng, rng.randint(80, 200))
            for word in subject:
                if rng.random() < 0.7:
                    for _ in range(rng.randint(1, 3)):
                        text_words.insert(rng.randrange(len(text_words) + 1), word)
        body = " ".join(text_words)
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


def _space(spaces_dir: Path, documents: int, zipf_titles: bool = False) -> Path:
    name = f"search-{documents}" + ("-zipf-titles" if zipf_titles else "")
    params = {"search_bench": SEED, "documents": documents, "titles": "zipf" if zipf_titles else "subject"}
    path, _, _ = cached_space(spaces_dir, name, params, lambda space: _write(space, documents, zipf_titles))
    return path


_STDLIB_SKIP = {"test", "idlelib", "lib2to3", "site-packages", "tkinter", "turtledemo", "pydoc_data"}


def _stdlib_trees() -> Iterator[tuple[Path, ast.Module]]:
    """Each module of the running Python's standard library (its path below the library,
    its syntax tree, read with ``ast``: nothing imported), tests and GUIs left out."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for source in sorted(stdlib.rglob("*.py")):
        relative = source.relative_to(stdlib)
        if _STDLIB_SKIP & set(relative.parts):
            continue
        try:
            yield relative, ast.parse(source.read_bytes())
        except (SyntaxError, ValueError):
            continue


def _prose_document(space: Path, number: int, name: str, title: str, body: str) -> int:
    """Write document ``number`` (its kind and date from the number) and return its bytes."""
    text = (
        f"---\ntitle: {json.dumps(title.strip().rstrip('.'))}\nstatus: current\n"
        f"updated_at: 2026-{1 + number % 12:02d}-{1 + number % 28:02d}\n---\n\n{body}\n"
    )
    path = space / ".ledger" / KINDS[number % 3][0] / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


def _documented(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node


def _write_docstrings(space: Path) -> dict[str, int]:
    """A ledger of real prose: one document per documented class and function of the
    running Python's standard library, its title the docstring's summary line, its body
    the rest; the kind and date from its order."""
    files = total = 0
    for _, tree in _stdlib_trees():
        for node in _documented(tree):
            summary, _, rest = (ast.get_docstring(node) or "").strip().partition("\n")
            if not 3 <= len(summary.split()) <= 14 or len(rest.split()) < 15:
                continue
            name = f"{files // 1000:03d}/{node.name[:60]}-{files:05d}.md"
            files, total = files + 1, total + _prose_document(space, files, name, summary, rest.strip())
    return {"files": files, "bytes": total}


def _write_modules(space: Path) -> dict[str, int]:
    """A ledger of real long prose: one document per module of the running Python's
    standard library that documents itself at length: its title the module docstring's
    summary line, its body the rest of that docstring and then every documented class and
    function as a ``##`` section, 2 KB and more (158 of them on Python 3.11)."""
    files = total = 0
    for relative, tree in _stdlib_trees():
        summary, _, rest = (ast.get_docstring(tree) or "").strip().partition("\n")
        sections = [rest.strip()]
        sections += [f"## {n.name}\n\n{d}" for n in _documented(tree) if (d := ast.get_docstring(n))]
        body = "\n\n".join(part for part in sections if part)
        if not 2 <= len(summary.split()) <= 20 or len(body.encode("utf-8")) < 2048:
            continue
        name = f"{'-'.join(relative.with_suffix('').parts)[:60]}-{files:04d}.md"
        files, total = files + 1, total + _prose_document(space, files, name, summary, body)
    return {"files": files, "bytes": total}


def _modules_space(spaces_dir: Path) -> Path:
    version = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    params = {"search_bench": SEED, "modules": version}
    return cached_space(spaces_dir, "search-python-modules", params, _write_modules)[0]


def _docstring_space(spaces_dir: Path) -> Path:
    version = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    params = {"search_bench": SEED, "docstrings": version}
    return cached_space(spaces_dir, "search-python-docstrings", params, _write_docstrings)[0]


def _known_items(
    build: ContextBuild, index: SearchIndex, bodies: dict[str, Document], rng: random.Random
) -> tuple[float, float, float, float]:
    """Shares of 200 sampled documents found in the top 5 by title words and by rare body
    words, and for each query the share that at most four other documents hold whole
    (the title query in their titles, the body query anywhere): above that, no ranking
    can be sure to find the document."""
    documents = [bodies[d.path] for d in build.servable() if d.kind != "agents"]
    df: dict[str, int] = {}
    in_titles: dict[str, set[str]] = {}
    for document in documents:
        for term in postings_of(document).counts:
            df[term] = df.get(term, 0) + 1
        for term in set(terms(document.title)):
            in_titles.setdefault(term, set()).add(document.path)
    sample = rng.sample(documents, min(200, len(documents)))
    by_title = by_body = separable = body_separable = 0
    for document in sample:
        title_terms = list(dict.fromkeys(terms(document.title)))
        words = rng.sample(title_terms, min(len(title_terms), rng.randint(2, 3)))
        top = search(build, " ".join(words), limit=5, index=index).hits
        by_title += any(hit.path == document.path for hit in top)
        separable += len(set.intersection(*(in_titles[word] for word in words))) <= 5
        body_terms = sorted(set(terms(document.body or "")), key=lambda t: (df[t], t))[:3]
        top = search(build, " ".join(body_terms), limit=5, index=index).hits
        by_body += any(hit.path == document.path for hit in top)
        holding = [index.holders(term).keys() for term in body_terms]
        body_separable += len(set(holding[0]).intersection(*holding[1:])) <= 5
    n = len(sample)
    return by_title / n, separable / n, by_body / n, body_separable / n


def _latency(
    build: ContextBuild, index: SearchIndex, bodies: dict[str, Document], rng: random.Random
) -> tuple[float, float, float]:
    """Warm p50 and p95 of 200 queries after 200 others, and the p95 of those first 200."""
    counts: dict[str, int] = {}
    for document in bodies.values():
        for term in terms(document.body or ""):
            counts[term] = counts.get(term, 0) + 1
    vocabulary = sorted(counts)
    weights = [counts[t] for t in vocabulary]
    queries: set[str] = set()
    while len(queries) < 400:
        queries.add(" ".join(rng.choices(vocabulary, weights, k=rng.randint(2, 3))))
    times = []
    for query in sorted(queries, key=lambda q: rng.random()):
        started = time.perf_counter()
        search(build, query, index=index)
        times.append(time.perf_counter() - started)
    first, warm = sorted(times[:200]), sorted(times[200:])
    return statistics.median(warm), warm[int(len(warm) * 0.95)], first[int(len(first) * 0.95)]


def _cached_bytes(index: SearchIndex) -> int:
    """The bytes of the ranked lists the index keeps (paths are shared, not counted)."""
    return sum(
        sys.getsizeof(r.paths) + sys.getsizeof(r.impacts) + sys.getsizeof(r.flags or 0)
        for r in index._ranking.values()
    )


HEADER = (
    "| ledger | documents | title words in top 5 | separable | rare body words in top 5 | separable "
    "| warm p50 | warm p95 | first p95 | index build vs cold build | index memory | ranked lists kept |"
)


def report(name: str, space: Path) -> tuple[str, tuple[float, float, float]]:
    """One row of the table for the ledger at ``space``, and its title share, body share
    and warm p95 (seconds)."""
    cold = []
    for _ in range(3):
        gc.collect()
        started = time.perf_counter()
        ContextBuilder(space, cache=False, provenance=False).build()
        cold.append(time.perf_counter() - started)
    build = ContextBuilder(space, provenance=False).build()
    scope = build.servable()

    def reread(document: Document) -> Document:
        return served_document(build, document.path)

    builds = []
    for _ in range(3):
        gc.collect()
        started = time.perf_counter()
        SearchIndex().sync(scope, scope, reread)  # a build keeps no bodies: each is read again
        builds.append(time.perf_counter() - started)
    gc.collect()
    tracemalloc.start()
    index = SearchIndex()
    index.sync(scope, scope, reread)
    memory = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    bodies = {document.path: reread(document) for document in scope}
    rng = random.Random(f"{SEED} {name}")
    title, separable, body, body_separable = _known_items(build, index, bodies, rng)
    p50, p95, first = _latency(build, index, bodies, rng)
    share = statistics.median(builds) / statistics.median(cold)
    return (
        f"| {name} | {len(scope):,} | {title:.1%} | {separable:.1%} | {body:.1%} | {body_separable:.1%} "
        f"| {p50 * 1e3:.1f} ms "
        f"| {p95 * 1e3:.1f} ms | {first * 1e3:.1f} ms "
        f"| {statistics.median(builds):.2f} s = {share:.0%} of {statistics.median(cold):.2f} s "
        f"| {memory / 2**20:.0f} MiB | {_cached_bytes(index) / 2**20:.0f} MiB |"
    ), (title, body, p95)


SIZES = (1000, 10_000, 50_000)


def search_lines(
    sizes: tuple[int, ...] = SIZES, real: bool = True, spaces_dir: Path = BENCH_DIR / ".spaces"
) -> list[str]:
    """The search section of the benchmark's report: a heading, the table, the goals."""
    lines = ["## Search (spec §10; `python bench/search.py`)", "", HEADER, "|:---|" + "---:|" * 11]
    ledgers = [(f"search-{documents}", _space(spaces_dir, documents)) for documents in sizes]
    if real:
        ledgers.append(("search-10000-zipf-titles", _space(spaces_dir, 10_000, zipf_titles=True)))
        ledgers.append(("python-docstrings", _docstring_space(spaces_dir)))
        ledgers.append(("python-modules", _modules_space(spaces_dir)))
        for shape, documents in (("findings", 2500), ("experiments", 2500)):
            long_space = generate_long_space(spaces_dir, shape, documents)
            wait_until(long_space.ready_at)
            ledgers.append((f"{shape}-{documents}", long_space.path))
    verdicts = []
    for name, space in ledgers:
        row, (title, body, p95) = report(name, space)
        lines.append(row)
        verdicts.append(f"{name}: title {_verdict(title >= 0.9)}, body {_verdict(body >= 0.9)}")
        if name == "search-50000":
            verdicts.append(f"{name}: warm p95 {_verdict(p95 <= 0.05)} ({p95 / 0.05:.2f}× the 50 ms goal)")
    lines += [
        "",
        "Goals: title words and rare body words in the top 5 for at least 90 % of 200 sampled "
        "documents; warm p95 at most 50 ms at 50,000 documents. `separable`: the samples whose "
        "title query at most four other titles hold whole, and whose body query at most four "
        "other documents hold whole; `first p95`: the first 200 queries "
        "after the index is built.",
        "",
        "Known-item (at least 90 %) and latency goals: " + "; ".join(verdicts) + ".",
    ]
    return lines


def _verdict(met: bool) -> str:
    return "PASS" if met else "MISS"


def main(argv: list[str]) -> int:
    sizes = tuple(int(n) for n in argv[1].split(",")) if len(argv) > 1 else SIZES
    for line in search_lines(sizes, real=len(argv) <= 1):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

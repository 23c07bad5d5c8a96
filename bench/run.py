#!/usr/bin/env python3
"""The speed and memory benchmark of ledger-context (``make bench``, i.e. ``python bench/run.py``).

It prints one Markdown report and writes it to ``bench/RESULTS.md`` with the machine's
core count, load average, the Python version and the date. It asserts no times: each
target is checked and printed as PASS or MISS with its ratio, and the script exits 0
either way. It stops with an error only when the package misbehaves: a child process
fails, or a warm build, ``get_context`` or ``ledger-context pack`` gives another pack
than the cold build.

Usage::

    python bench/run.py                      # everything (50 min on 2 busy cores; see the report)
    python bench/run.py --sizes 100,1000     # only these short-body sizes
    python bench/run.py --ledgers findings-2500,experiments-25000   # only these long-body ledgers
    python bench/run.py --sizes none --ledgers none                  # (either suite can be skipped)
    python bench/run.py --quick              # fewer repetitions; short-body sizes up to 10,000,
                                             # long-body ledgers of 500 documents
    python bench/run.py --profile 10000      # cProfile of one cold build; prints, writes nothing
    python bench/run.py --profile findings-2500
    python bench/run.py --tmp                # generate the ledgers in a temporary directory
    python bench/run.py --sizes none --ledgers none --docs 1000   # documentation-site and start-up
    python bench/run.py --search 1000        # search at these sizes only (none: skip search)

Two suites
----------
Short-body experiment ledgers (``ledgers.py``)
    100, 1,000, 10,000 and 100,000 experiments with ~330-byte bodies, shaped like
    ``ledger_fixtures/demo``: the first benchmark's ledgers and targets, kept as they were.
Long-body ledgers (``long_ledgers.py``)
    Bodies of 2–30 KB of Markdown and frontmatter of 10–40 lines with nested values, in
    three shapes (findings-, decisions- and experiments-heavy), at 2,500 and 25,000
    documents for every shape and 50,000 for the findings- and experiments-heavy shapes
    (about 590 MB each; the decisions-heavy one would measure the same reader on the
    same sizes, so its disk is saved).

Documentation-site ledgers (``doc_ledgers.py``, issue 29)
    1,000 and 10,000 pages shaped like real documentation sites: 10–20 keys with dotted
    and spaced names, US dates, CRLF and BOMs, long bodies, thousands of warnings. The
    report gives the quick YAML path's hit rate on them and ``pack`` beside the naive
    reader (``doc_builds.py``), then the start-up section (``startup.py``): ``pack`` on an
    empty and a 100-document ledger beside ``python -c pass``, ``import yaml`` and the
    naive reader.

Every ledger is generated deterministically and kept in ``bench/.spaces/`` (git-ignored;
``--spaces-dir`` elsewhere, ``--tmp`` in a throwaway directory), reused by later runs
while its marker names the same parameters and generator version (``spaces.py``); the
full set takes about 2.2 GB and a minute to generate the first time.

Method
------
Every timing is wall-clock (``time.perf_counter``) with a warm OS page cache (one untimed
read pass over the ledger first) and ``gc.collect()`` before each repetition (the
collector stays on, as in real use); the report shows the median of the repetitions.
"Cold" means no parse cache (a fresh builder, or a fresh process): there is no cache
across processes, and the page cache is warm on purpose, so a cold figure measures the
reader, not the disk. The measurements and their comparisons are described where they
are made: ``floors.py`` (stat, I/O, read-and-decode floors), ``naive.py`` (the naive
python-frontmatter reader), ``builds.py`` (short-body cold, warm, one file touched),
``long_builds.py`` (long-body suite), ``processes.py`` (whole processes, run in turn),
``memory.py`` (peak RSS in a fresh interpreter), ``mcp_calls.py`` (MCP over stdio),
``catalogue.py`` (the catalogue's bytes against its budget), ``search.py`` (search:
known-item quality, warm latency, the index's cost and memory; ``--search``), and
``targets.py`` (every target, PASS/MISS). ``steps.py``, run on its own, times each step of the
reader alone beside a cold build (``python bench/steps.py findings-2500``); ``compare.py``
runs two versions' whole ``pack`` beside the naive reader, in turn.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import TypeVar

from builds import ShortRun, bench_size
from catalogue import catalogue_lines
from catalogue import measure as measure_catalogue
from doc_builds import DocResult, bench_docs, doc_lines
from doc_ledgers import DOC_GENERATOR_VERSION
from hostile_packs import bench_hostile, hostile_lines
from ledgers import GENERATOR_VERSION, Space, generate_space
from long_builds import LongReps, LongResult, bench_long
from long_ledgers import LONG_GENERATOR_VERSION, SHAPES, generate_long_space
from machine import BENCH_DIR, load_average, log, machine_line
from mcp_calls import McpResult, bench_mcp
from measured import bench_measured, measured_lines
from memory import child_cold_build
from processes import NAIVE, PACK, bench_process, check_printed_pack, command, run_in_turn
from profiling import profile_build
from report import report
from search import SIZES as SEARCH_SIZES
from search import search_lines
from spaces import DEFAULT_SPACES_DIR, wait_until
from startup import bench_startup, startup_lines
from timing import Timing

DEFAULT_RESULTS = BENCH_DIR / "RESULTS.md"

ALL_SIZES = (100, 1_000, 10_000, 100_000)
QUICK_SIZES = (100, 1_000, 10_000)
REPS: dict[int, tuple[int, int, int]] = {
    # size: (naive and cold builds, warm and one-touched builds, floors) — full run
    100: (15, 30, 30),
    1_000: (9, 20, 20),
    10_000: (7, 15, 15),
    100_000: (3, 5, 5),
}
QUICK_REPS: dict[int, tuple[int, int, int]] = {
    100: (7, 15, 15),
    1_000: (5, 9, 9),
    10_000: (3, 5, 5),
    100_000: (1, 3, 3),
}
WHOLE_RUNS = {100: 10, 1_000: 5, 10_000: 3, 100_000: 1}
"""Whole-process runs of ``pack`` and the naive reader per short-body size."""
QUICK_WHOLE_RUNS = {100: 3, 1_000: 2, 10_000: 1, 100_000: 1}
MCP_CALLS = 100
QUICK_MCP_CALLS = 30
PROCESS_RUNS = 10
QUICK_PROCESS_RUNS = 5

LONG_LEDGERS = (
    *((shape, 2_500) for shape in SHAPES),
    *((shape, 25_000) for shape in SHAPES),
    ("findings", 50_000),
    ("experiments", 50_000),
)
QUICK_LONG_LEDGERS = tuple((shape, 500) for shape in SHAPES)
LONG_REPS = {
    2_500: LongReps(builds=5, naive=3, fast=9, processes=3, mcp_calls=20),
    25_000: LongReps(builds=2, naive=1, fast=5, processes=1, mcp_calls=10),
    50_000: LongReps(builds=1, naive=0, fast=3, processes=1, mcp_calls=10),
}
QUICK_LONG_REPS = {500: LongReps(builds=3, naive=1, fast=5, processes=1, mcp_calls=10)}

DOC_SIZES = (1_000, 10_000)
QUICK_DOC_SIZES = (1_000,)
DOC_RUNS = {1_000: 5, 10_000: 3}
QUICK_DOC_RUNS = {1_000: 2, 10_000: 1}
STARTUP_ROUNDS = 20
QUICK_STARTUP_ROUNDS = 8


V = TypeVar("V")


def nearest(table: dict[int, V], size: int) -> V:
    """The entry of ``table`` whose size is nearest to ``size`` (on a log scale)."""
    return table[min(table, key=lambda known: abs(math.log(known / size)))]


def parse_sizes(text: str) -> tuple[int, ...]:
    if text.strip().lower() == "none":
        return ()
    try:
        sizes = tuple(sorted({int(part.replace("_", "")) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give sizes as numbers, e.g. 100,1000, or none") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("sizes must be whole numbers of experiments, at least 1")
    return sizes


def parse_ledger(text: str) -> tuple[str, int]:
    """``findings-2500`` → ``("findings", 2500)``."""
    shape, _, size = text.strip().rpartition("-")
    if shape not in SHAPES or not size.replace("_", "").isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a ledger as SHAPE-DOCUMENTS, SHAPE one of {', '.join(SHAPES)}, "
            "e.g. findings-2500"
        )
    return shape, int(size.replace("_", ""))


def parse_ledgers(text: str) -> tuple[tuple[str, int], ...]:
    if text.strip().lower() == "none":
        return ()
    return tuple(parse_ledger(part) for part in text.split(",") if part.strip())


def parse_profile(text: str) -> tuple[str | None, int]:
    """``10000`` (short-body experiments) or ``findings-2500`` (a long-body ledger)."""
    if text.replace("_", "").isdigit():
        return None, parse_sizes(text)[0]
    return parse_ledger(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        help="short-body experiment counts, e.g. 100,1000, or none (default: all four)",
    )
    parser.add_argument(
        "--ledgers",
        type=parse_ledgers,
        help="long-body ledgers as SHAPE-DOCUMENTS, e.g. findings-2500,experiments-50000, or none "
        "(default: every shape at 2500 and 25000, findings and experiments at 50000; "
        f"shapes: {', '.join(SHAPES)})",
    )
    parser.add_argument(
        "--docs",
        type=parse_sizes,
        help="documentation-site ledgers (issue 29) of these sizes, e.g. 1000, or none "
        "(default: 1000,10000; with --quick 1000)",
    )
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up section")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fewer repetitions and calls; short-body sizes up to 10,000, long-body ledgers of 500",
    )
    parser.add_argument(
        "--profile",
        type=parse_profile,
        metavar="SIZE",
        help="cProfile one cold build: SIZE experiments (short bodies) or SHAPE-DOCUMENTS (long bodies)",
    )
    parser.add_argument(
        "--search",
        type=parse_sizes,
        help="search benchmark sizes, e.g. 1000,50000, or none (default: 1000,10000,50000 and the "
        "real-shaped ledgers; --quick: 1000)",
    )
    parser.add_argument("--tmp", action="store_true", help="generate ledgers in a temporary directory")
    parser.add_argument("--spaces-dir", type=Path, default=DEFAULT_SPACES_DIR, help="where ledgers are kept")
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="where the report is written")
    return parser


def run_short(spaces_dir: Path, sizes: tuple[int, ...], quick: bool) -> ShortRun:
    """The short-body suite: per size in-process builds, peak RSS, whole-process ``pack`` and naive."""
    reps_table = QUICK_REPS if quick else REPS
    results = {}
    spaces: dict[int, Space] = {}
    whole: dict[int, dict[str, Timing]] = {}
    for size in sizes:
        log(f"{size:,} experiments")
        space = spaces[size] = generate_space(spaces_dir, size)
        results[size] = bench_size(space, nearest(reps_table, size))
        log("  peak RSS in a child process")
        child = child_cold_build(space.path)
        results[size].rss_kib, results[size].child_cold = child.peak_kib, child.seconds
        runs = nearest(QUICK_WHOLE_RUNS if quick else WHOLE_RUNS, size)
        log(f"  whole-process pack and naive reader ({runs} each, in turn)")
        wait_until(space.ready_at)
        check_printed_pack(space.path)
        commands = {name: command(name, space.path) for name in (PACK, NAIVE)}
        whole[size] = run_in_turn(commands, runs, warmup=size < 10_000)
    if not sizes:
        return ShortRun({}, [], None, {}, 0)
    baseline_rss = child_cold_build(None).peak_kib

    mcp: list[McpResult] = []
    small = spaces.get(100)
    if small is None:
        log("100 experiments (for the MCP and whole-process figures)")
        small = generate_space(spaces_dir, 100)
    calls = QUICK_MCP_CALLS if quick else MCP_CALLS
    mcp.append(bench_mcp(small, calls))
    if 10_000 in spaces and not quick:
        mcp.append(bench_mcp(spaces[10_000], calls))
    process = bench_process(small, QUICK_PROCESS_RUNS if quick else PROCESS_RUNS)
    return ShortRun(results, mcp, process, whole, baseline_rss)


def run_long(spaces_dir: Path, ledgers: tuple[tuple[str, int], ...], quick: bool) -> list[LongResult]:
    """The long-body suite, smallest ledgers first; the server is timed on each shape's largest."""
    reps_table = QUICK_LONG_REPS if quick else LONG_REPS
    largest = {shape: max(size for s, size in ledgers if s == shape) for shape, _ in ledgers}
    results = []
    for shape, size in sorted(ledgers, key=lambda ledger: (ledger[1], SHAPES.index(ledger[0]))):
        log(f"{shape}-heavy ledger, {size:,} documents")
        reps = nearest(reps_table, size)
        if size != largest[shape]:
            reps = reps._replace(mcp_calls=0)
        results.append(bench_long(generate_long_space(spaces_dir, shape, size), reps))
    return results


def run_docs(spaces_dir: Path, sizes: tuple[int, ...] | None, quick: bool) -> list[DocResult]:
    """The documentation-site ledgers: the quick path's hit rate, ``pack`` beside the naive reader."""
    chosen = sizes if sizes is not None else QUICK_DOC_SIZES if quick else DOC_SIZES
    runs = QUICK_DOC_RUNS if quick else DOC_RUNS
    return [bench_docs(spaces_dir, size, nearest(runs, size)) for size in chosen]


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    raw_argv = sys.argv[1:] if argv is None else argv

    with tempfile.TemporaryDirectory(prefix="ledger-bench-") as scratch:
        spaces_dir = Path(scratch) if args.tmp else args.spaces_dir
        if args.profile:
            shape, size = args.profile
            if shape is None:
                space = generate_space(spaces_dir, size)
                path, title = space.path, f"{size:,} short-body experiments ({space.files:,} files)"
                wait_until(space.ready_at)
            else:
                long_space = generate_long_space(spaces_dir, shape, size)
                path, title = long_space.path, f"{long_space.name}-document ledger (long bodies)"
                wait_until(long_space.ready_at)
            print(profile_build(path, title))
            return 0

        started = time.perf_counter()
        generators = (
            f"generator v{GENERATOR_VERSION}, long-body generator v{LONG_GENERATOR_VERSION}, "
            f"documentation-site generator v{DOC_GENERATOR_VERSION}"
        )
        header = machine_line(dt.datetime.now().astimezone(), load_average(), generators)
        sizes = args.sizes if args.sizes is not None else QUICK_SIZES if args.quick else ALL_SIZES
        ledgers = (
            args.ledgers if args.ledgers is not None else QUICK_LONG_LEDGERS if args.quick else LONG_LEDGERS
        )
        short = run_short(spaces_dir, sizes, args.quick)
        long = run_long(spaces_dir, ledgers, args.quick)
        docs = run_docs(spaces_dir, args.docs, args.quick)
        startup = None
        if not args.no_startup:
            startup = bench_startup(spaces_dir, QUICK_STARTUP_ROUNDS if args.quick else STARTUP_ROUNDS)
        log("inputs built to be slow: a 100 KB heading line, a 2,000-deep folder chain")
        hostile = bench_hostile()
        log("measured tokens: the cost of counting")
        measured = bench_measured(spaces_dir, (100,) if args.quick else (100, 10_000))
        elapsed = time.perf_counter() - started
        text = report(header, raw_argv, short, long, elapsed, load_average())
        if docs:
            text += "\n" + "\n".join(doc_lines(docs)) + "\n"
        if startup is not None:
            text += "\n" + "\n".join(startup_lines(startup)) + "\n"
        text += "\n" + "\n".join(hostile_lines(hostile)) + "\n"
        log("the catalogue over stdio: tools/list and the instructions")
        text += "\n" + "\n".join(measured_lines(measured)) + "\n"
        text += "\n" + "\n".join(catalogue_lines(measure_catalogue())) + "\n"
        search_sizes = args.search if args.search is not None else (1000,) if args.quick else SEARCH_SIZES
        if search_sizes:
            log(f"search: {', '.join(f'{size:,}' for size in search_sizes)} documents")
            real = args.search is None and not args.quick
            text += "\n" + "\n".join(search_lines(search_sizes, real=real, spaces_dir=spaces_dir)) + "\n"
    print(text, end="")
    args.results.write_text(text, encoding="utf-8")
    log(f"wrote {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The ledger index, measured (issue 26): ``python bench/index.py`` (``make bench-index``).

For each short-body ledger (1,000 / 10,000 / 100,000 experiments, ``ledgers.py``) and each
long-body (``long_ledgers.py``: ``findings-2500``) or documentation-site ledger
(``doc_ledgers.py``: ``docs-10000``, many keys and many problems) asked for, in one run on
one machine:

- the stat floor (``os.stat`` of every document, the list made beforehand) and the walk
  floor (``os.scandir`` of every folder and ``lstat`` of every document, sorted,
  ``floors.py``: the least a new process that lists every folder does in Python; a warm
  build lists again only the folders whose stamp moved, so it may go under it);
- an in-process build by a *new* builder with a warm index (what every new process does),
  and its ratio to the stat floor (goal ≤ 2×) and to the walk floor;
- the first build ever: a new builder with an empty index folder (it reads, parses and
  writes the index), beside a build without the index (``--no-index``, as before): its
  ratio to that (goal ≤ 1×, no slower than today);
- whole processes in turn: ``ledger-context pack`` with a warm index, its first run (the
  index on, none written yet), ``pack --no-index``, the naive python-frontmatter reader
  (``bench/naive.py``) and ``python -c pass``; the naive ÷ warm ratio (goal ≥ 10× at
  10,000) and the first run ÷ naive (goal ≤ 1×: a first run no slower than the naive reader);
  ``ledger-context search`` with the postings kept by an earlier search, and with ``--no-index``;
- the index file's size on disk.

Then a fresh server over stdio on a 30,000-experiment ledger, with a warm index, with
none written yet (its first start: it writes one after its answer) and with ``--no-index``,
in turn: the time from starting the process to the ``initialize`` answer and to the first
``get_context`` answer (median of a few starts).

Every index lives in a private folder under the spaces folder (``XDG_CACHE_HOME`` of the
children points there), never in the user's cache. It prints a Markdown report; with
``--write`` it also appends it to ``bench/RESULTS.md`` (``make bench`` writes that file anew).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from doc_ledgers import generate_doc_space
from floors import list_documents, stat_floor, walk_floor
from ledgers import generate_space, wait_until_ready
from long_ledgers import generate_long_space, wait_until_long_ready
from machine import BENCH_DIR, child_env, load_average, log
from spaces import DEFAULT_SPACES_DIR, wait_until
from timing import Timing, fmt_time, measure, measure_in_turn, ratio_in_turn

SIZES = (1_000, 10_000, 100_000)
REPS = {1_000: 9, 10_000: 5, 30_000: 3, 100_000: 2}
WHOLE_RUNS = {1_000: 5, 10_000: 3, 30_000: 2, 100_000: 1}
SERVER_SIZE = 30_000
SEARCH_QUERY = "router latency"
"""What ``ledger-context search`` is asked, warm (its postings kept) and with ``--no-index``."""
SERVER_STARTS = 5


def _settings(folder: Path | None):  # type: ignore[no-untyped-def]
    from ledger_context.pack.settings import make_settings
    from ledger_context.reader.index import IndexOptions

    return make_settings(index=IndexOptions(folder) if folder is not None else None)


def _built(space: Path, folder: Path | None) -> tuple[object, object]:
    """A new builder's first build (a new process's), with the index in ``folder`` or none:
    the builder (its cache and index) and the build, for the caller to free."""
    from ledger_context.pack.build import ContextBuilder

    builder = ContextBuilder(space, _settings(folder), cache=False, provenance=False)
    return builder, builder.build()


def _build(space: Path, folder: Path | None) -> str:
    """The pack of a new builder's first build (:func:`_built`)."""
    return _built(space, folder)[1].pack  # type: ignore[attr-defined,no-any-return]


def _env(cache_home: Path, index: bool) -> dict[str, str]:
    env = child_env()
    env["XDG_CACHE_HOME"] = str(cache_home)
    env["LEDGER_INDEX"] = "on" if index else "off"
    return env


def _whole(space: Path, cache_home: Path, runs: int) -> dict[str, Timing]:
    """Whole processes in turn, after one untimed round (which also writes the index). The
    first run is a ``pack`` with the index on but none written yet (its folder is emptied
    before each run): what a user's first command on a ledger costs (issue 26: no slower
    than the naive reader)."""
    cli = [sys.executable, "-m", "ledger_context", "pack", "--space", str(space)]
    search = [sys.executable, "-m", "ledger_context", "search", SEARCH_QUERY, "--space", str(space)]
    first_home = cache_home.with_name(cache_home.name + "-first")
    commands = {
        "pack, warm index": (cli, _env(cache_home, True)),
        "pack, first run": (cli, _env(first_home, True)),
        "pack --no-index": (cli, _env(cache_home, False)),
        "search, warm postings": (search, _env(cache_home, True)),
        "search --no-index": (search, _env(cache_home, False)),
        "naive reader": ([sys.executable, str(BENCH_DIR / "naive.py"), str(space)], child_env()),
        "python -c pass": ([sys.executable, "-c", "pass"], child_env()),
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for rep in range(runs + 1):
        for name, (argv, env) in commands.items():
            if name == "pack, first run":
                shutil.rmtree(first_home, ignore_errors=True)
            started = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, check=True)
            if rep:
                times[name].append(time.perf_counter() - started)
    return {name: Timing(samples) for name, samples in times.items()}


def bench_ledger(name: str, space: Path, documents: int, work: Path) -> dict[str, object]:
    """Every in-process and whole-process figure of one ledger."""
    reps = REPS.get(documents, 3 if documents <= 30_000 else 2)
    paths = list_documents(space)
    _build(space, None)  # warms the page cache
    folder = work / f"index-{name}" / "ledger-context"
    shutil.rmtree(folder.parent, ignore_errors=True)
    expected = _build(space, None)
    if _build(space, folder) != expected:
        raise RuntimeError(f"{name}: the first build with the index gave another pack")
    if _build(space, folder) != expected:
        raise RuntimeError(f"{name}: a build from the warm index gave another pack")
    # In turn, so that each ratio is of times taken in the same moment of a shared machine.
    turns = measure_in_turn(
        {
            "floor": lambda: stat_floor(paths),
            "walk floor": lambda: walk_floor(space),
            "warm": lambda: _built(space, folder),
        },
        max(reps, 5),
    )
    floor, walked, warm = turns["floor"], turns["walk floor"], turns["warm"]

    def empty_folder(_rep: int) -> None:
        shutil.rmtree(folder, ignore_errors=True)

    first, _ = measure(lambda: _build(space, folder), reps, before=empty_folder)
    today, _ = measure(lambda: _build(space, None), reps)
    (index_file,) = folder.glob("*.index")
    log(f"  {name}: whole processes in turn")
    whole = _whole(space, work / f"home-{name}", WHOLE_RUNS.get(documents, 1))
    return {
        "name": name,
        "documents": len(paths),
        "floor": floor.median,
        "walk floor": walked.median,
        "warm": warm.median,
        "warm ÷ floor": ratio_in_turn(warm, floor),
        "warm ÷ walk floor": ratio_in_turn(warm, walked),
        "first": first.median,
        "today": today.median,
        "size": index_file.stat().st_size,
        "whole": {key: value.median for key, value in whole.items()},
    }


def _server_times(space: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from starting ``serve`` to its initialize answer and to its first get_context."""
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_context"}},
    ]
    argv = [sys.executable, "-m", "ledger_context", "serve", "--no-audit", "--log-level", "error"]
    started = time.perf_counter()
    process = subprocess.Popen(
        [*argv, "--space", str(space)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    process.stdin.flush()
    answered: dict[int, float] = {}
    while len(answered) < 2:
        message = json.loads(process.stdout.readline())
        if message.get("id") in (0, 1):
            answered[message["id"]] = time.perf_counter() - started
    process.stdin.close()
    process.wait()
    process.stdout.close()
    return answered[0], answered[1]


def bench_server(spaces_dir: Path, work: Path) -> dict[str, tuple[float, float]]:
    space = generate_space(spaces_dir, SERVER_SIZE)
    wait_until_ready(space)
    home = work / "home-server"
    subprocess.run(
        [sys.executable, "-m", "ledger_context", "pack", "--space", str(space.path)],
        stdout=subprocess.DEVNULL,
        env=_env(home, True),
        check=True,
    )
    first_home = work / "home-server-first"
    kinds = (("warm index", home, True), ("no index yet (its first start)", first_home, True),
             ("--no-index", home, False))  # fmt: skip
    starts: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in kinds}
    for _ in range(SERVER_STARTS):  # in turn
        for label, cache_home, index in kinds:
            if cache_home is first_home:
                shutil.rmtree(first_home, ignore_errors=True)
            starts[label].append(_server_times(space.path, _env(cache_home, index)))
    return {
        label: (
            sorted(s[0] for s in times)[SERVER_STARTS // 2],
            sorted(s[1] for s in times)[SERVER_STARTS // 2],
        )
        for label, times in starts.items()
    }


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def _ratio(value: float, goal: float, digits: int) -> str:
    """``value`` to ``digits`` decimals, one more while it would read as the goal itself
    (a MISS printed as 1.00× against ≤ 1×)."""
    while f"{value:.{digits}f}" == f"{goal:.{digits}f}" and value != goal and digits < 4:
        digits += 1
    return f"{value:.{digits}f}×"


def report(ledgers: list[dict[str, object]], server: dict[str, tuple[float, float]] | None) -> str:
    lines = [
        "## The ledger index (bench/index.py, issue 26)",
        "",
        f"{os.cpu_count()} cores, load {load_average()}, Python {sys.version.split()[0]}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Medians; the floors and the warm build "
        "in turn, each ratio the median of the turns' ratios; whole processes in turn.",
        "",
        "| ledger | docs | stat floor | walk floor | warm index build | ÷ stat floor (≤ 2×) | ÷ walk floor "
        "| first build, index written | --no-index build | ÷ (≤ 1×) | index size |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in ledgers:
        floor, walked, warm, first, today, by_floor, by_walk = (
            float(r[k])  # type: ignore[arg-type]
            for k in ("floor", "walk floor", "warm", "first", "today", "warm ÷ floor", "warm ÷ walk floor")
        )
        lines.append(
            f"| {r['name']} | {r['documents']:,} | {fmt_time(floor)} | {fmt_time(walked)} | {fmt_time(warm)} "
            f"| {_ratio(by_floor, 2, 1)} {_verdict(by_floor <= 2)} | {by_walk:.1f}× "
            f"| {fmt_time(first)} | {fmt_time(today)} | {_ratio(first / today, 1, 2)} "
            f"{_verdict(first / today <= 1.0)} | {int(r['size']) / 1e6:.1f} MB |"  # type: ignore[call-overload]
        )
    lines += [
        "",
        "| ledger | pack, warm index | pack, first run | pack --no-index | naive reader | python -c pass "
        "| naive ÷ warm | first ÷ naive (≤ 1×) | warm − pass |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in ledgers:
        w = r["whole"]
        assert isinstance(w, dict)
        ratio = w["naive reader"] / w["pack, warm index"]
        goal = f" {_verdict(ratio >= 10)} (goal ≥ 10×)" if str(r["name"]) == "exp10000" else ""
        first = w["pack, first run"] / w["naive reader"]
        lines.append(
            f"| {r['name']} | {fmt_time(w['pack, warm index'])} | {fmt_time(w['pack, first run'])} "
            f"| {fmt_time(w['pack --no-index'])} | {fmt_time(w['naive reader'])} "
            f"| {fmt_time(w['python -c pass'])} | {ratio:.1f}×{goal} "
            f"| {_ratio(first, 1, 2)} {_verdict(first <= 1)} "
            f"| {fmt_time(w['pack, warm index'] - w['python -c pass'])} |"
        )
    lines += [
        "",
        f"`ledger-context search {SEARCH_QUERY!r}`, whole process: with the postings a first search"
        " kept beside the index, and with `--no-index` (every body read again, as a first search does):",
        "",
        "| ledger | search, warm postings | search --no-index | ÷ |",
        "|---|---:|---:|---:|",
    ]
    for r in ledgers:
        w = r["whole"]
        assert isinstance(w, dict)
        warm, cold = w["search, warm postings"], w["search --no-index"]
        lines.append(f"| {r['name']} | {fmt_time(warm)} | {fmt_time(cold)} | {cold / warm:.1f}× |")
    if server is not None:
        lines += [
            "",
            f"A fresh server on {SERVER_SIZE:,} experiments (median of {SERVER_STARTS} starts, from "
            "starting the process):",
            "",
            "| server | initialize answered | first get_context answered |",
            "|---|---:|---:|",
        ]
        lines += [f"| {label} | {fmt_time(a)} | {fmt_time(b)} |" for label, (a, b) in server.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="short-body sizes, or none")
    parser.add_argument(
        "--ledgers", default="none", help="long-body (findings-2500) or doc-site ledgers (docs-10000)"
    )
    parser.add_argument("--no-server", action="store_true", help="skip the fresh server at 30,000")
    parser.add_argument("--spaces-dir", type=Path, default=DEFAULT_SPACES_DIR)
    parser.add_argument("--write", action="store_true", help="append the report to bench/RESULTS.md")
    args = parser.parse_args(argv)
    work = args.spaces_dir / ".index-bench"
    work.mkdir(parents=True, exist_ok=True)
    results = []
    for size in [int(s) for s in args.sizes.split(",") if s and s != "none"]:
        space = generate_space(args.spaces_dir, size)
        wait_until_ready(space)
        log(f"index bench: {size:,} experiments")
        results.append(bench_ledger(f"exp{size}", space.path, size, work))
    for name in [n for n in args.ledgers.split(",") if n and n != "none"]:
        shape, count = name.rsplit("-", 1)
        if shape == "docs":  # documentation-site frontmatter: many keys, many problems
            doc_space = generate_doc_space(args.spaces_dir, int(count))
            wait_until(doc_space.ready_at)
            path = doc_space.path
        else:
            long_space = generate_long_space(args.spaces_dir, shape, int(count))
            wait_until_long_ready(long_space)
            path = long_space.path
        log(f"index bench: {name}")
        results.append(bench_ledger(name, path, int(count), work))
    server = None if args.no_server else bench_server(args.spaces_dir, work)
    text = report(results, server)
    print(text)
    if args.write:
        with open(BENCH_DIR / "RESULTS.md", "a", encoding="utf-8") as out:
            out.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

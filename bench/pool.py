#!/usr/bin/env python3
"""Would a process pool pay for the first build? (issue 26, item 6): ``python bench/pool.py N``.

Reads and parses every file of the short-body ledger of N experiments (``ledgers.py``) in
this process, then with a pool of spawn-started workers (the server is multithreaded, so
fork is not safe) that each read and parse a share and send back their ``FileResult``
(pickled), the pool's start-up included. Prints the median of a few runs of each.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ledgers import generate_space, wait_until_ready
from spaces import DEFAULT_SPACES_DIR


def _read_share(space: str, sources: list) -> list:  # type: ignore[type-arg]
    from ledger_context.reader.ledger import read_file_safely, root_real_path

    root = root_real_path(Path(space))
    return [read_file_safely(Path(space), source, root, None, None) for source in sources]


def _serial(space: Path) -> float:
    from ledger_context.reader.walk import walk_ledger

    started = time.perf_counter()
    _read_share(str(space), walk_ledger(space).files)
    return time.perf_counter() - started


def _pooled(space: Path, workers: int) -> float:
    from ledger_context.reader.walk import walk_ledger

    started = time.perf_counter()
    files = walk_ledger(space).files
    shares = [files[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = list(pool.map(_read_share, [str(space)] * workers, shares))
    assert sum(len(r) for r in results) == len(files)
    return time.perf_counter() - started


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    space = generate_space(DEFAULT_SPACES_DIR, size)
    wait_until_ready(space)
    _serial(space.path)  # warms the page cache
    serial = sorted(_serial(space.path) for _ in range(3))[1]
    for workers in (2, os.cpu_count() or 2):
        pooled = sorted(_pooled(space.path, workers) for _ in range(3))[1]
        print(
            f"{size:,} experiments, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}: serial "
            f"{serial * 1e3:.0f} ms, pool of {workers} (spawn) {pooled * 1e3:.0f} ms, {serial / pooled:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

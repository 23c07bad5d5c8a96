#!/usr/bin/env python3
"""Where a cold build's time goes: each step of the reader timed alone over the same files.

    python bench/steps.py findings-2500,experiments-2500   # ledgers kept in bench/.spaces

A profiler inflates small functions; here every step runs on its own over every file of
the ledger (bytes and texts prepared beforehand, page cache warm), median of five, and the
whole cold build is timed beside them, so the steps can be read as shares of it. The steps
overlap (``parse_document`` holds decode, split, the quick YAML path and SHA-256); what a
cold build spends beyond the walk, the checked read, ``parse_document`` and the git blob
id is selection, rendering, the budget and the per-file bookkeeping.
"""

from __future__ import annotations

import gc
import hashlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ledger_context.pack.build import ContextBuilder
from ledger_context.reader import quick_yaml
from ledger_context.reader.frontmatter import decode_text, split_frontmatter
from ledger_context.reader.ledger import _read_bytes, git_blob_id, root_real_path
from ledger_context.reader.parse import parse_document
from ledger_context.reader.paths import fs_path
from ledger_context.reader.walk import walk_ledger
from machine import BENCH_DIR


def _median(step: Callable[[], object], reps: int = 5) -> float:
    times = []
    for _ in range(reps):
        gc.collect()
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _read_floor(paths: list[bytes]) -> None:
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        os.read(fd, os.fstat(fd).st_size + 1)
        os.close(fd)


def steps(space: Path) -> list[tuple[str, float]]:
    """Each step's median time over every file of ``space``, and the cold builds."""
    files = walk_ledger(space).files
    paths = [fs_path(space, source.path) for source in files]
    root = root_real_path(space)
    datas = [Path(os.fsdecode(path)).read_bytes() for path in paths]
    texts = [decode_text(data) for data in datas]
    frontmatters = [split_frontmatter(text).frontmatter or "" for text in texts]
    measured: dict[str, Callable[[], object]] = {
        "walk": lambda: walk_ledger(space),
        "read floor (open, fstat, read, close)": lambda: _read_floor(paths),
        "checked read (+ identity, kernel path)": lambda: [
            _read_bytes(path, source.identity, root) for path, source in zip(paths, files, strict=True)
        ],
        "decode (strict UTF-8)": lambda: [decode_text(data) for data in datas],
        "split at the frontmatter": lambda: [split_frontmatter(text) for text in texts],
        "quick YAML path": lambda: [quick_yaml.quick_mapping(text) for text in frontmatters],
        "SHA-256": lambda: [hashlib.sha256(data).hexdigest() for data in datas],
        "git blob id": lambda: [git_blob_id(data) for data in datas],
        "parse_document (all of the above but reading)": lambda: [
            parse_document(source.kind, source.path, data) for source, data in zip(files, datas, strict=True)
        ],
        "cold build without provenance": lambda: ContextBuilder(space, cache=False, provenance=False).build(),
        "cold build": lambda: ContextBuilder(space, cache=False).build(),
    }
    return [(name, _median(step)) for name, step in measured.items()]


def main(argv: list[str]) -> int:
    for name in argv[1].split(",") if len(argv) > 1 else ["findings-2500"]:
        space = BENCH_DIR / ".spaces" / name
        count = len(walk_ledger(space).files)
        print(f"\n{name} ({count:,} files)\n\n| step | median | per file |\n|:---|---:|---:|")
        for step, seconds in steps(space):
            print(f"| {step} | {seconds * 1e3:.1f} ms | {seconds / count * 1e6:.1f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

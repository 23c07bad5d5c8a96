"""Time the reader's text functions on inputs built to be slow (spec: linear on every input).

Each case runs in its own process with a time limit, so a quadratic pattern shows as a
timeout instead of a stalled run. Usage::

    python bench/hostile_inputs.py [SIZE] [LIMIT_SECONDS]

SIZE is the length of each hostile run (default 100000); the figures print one line per
case, in seconds, or ``>LIMIT`` when the case did not end in time.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Callable
from typing import Any


def _cases(n: int) -> dict[str, tuple[str, str]]:
    """name -> (function, argument) for a run of ``n`` characters."""
    return {
        "heading spaces": ("first_h1", "# a" + " " * n + "b"),
        "heading tabs": ("first_h1", "# a" + "\t" * n + "b"),
        "heading space-hash runs": ("first_h1", "# a" + " #" * (n // 2) + "b"),
        "closing hashes spaces": ("first_h1", "# a" + " " * n + "#x"),
        "heading hashes": ("first_h1", "#" * n),
        "many heading lines": ("first_h1", "## a\n" * (n // 5)),
        "fence backticks": ("first_h1", "`" * n + "\n# t"),
        "fence tildes spaces": ("first_h1", "~~~\n" + "~" * n + " " * n + "x\n# t"),
        "metrics spaces": ("metrics_list", "# Metrics\n" + " " * n + "x"),
        "metrics digits": ("metrics_list", "# Metrics\n" + "1" * n + "x"),
        "leading blank spaces": ("split", " " * n + "x"),
        "leading blank lines": ("split", " \t\n" * (n // 3) + "x"),
        "boundary dashes": ("split", "-" * n + " " * n + "x"),
        "closing dashes": ("split", "---\n" + ("-" * 50 + " x\n") * (n // 53)),
        "unclosed long": ("split", "---\n" + "a: b\n" * (n // 5)),
        "quick spaces": ("load", "a: b" + " " * n + ":x"),
        "quick colons": ("load", "a: " + "b:" * (n // 2) + " c"),
        "quick hashes": ("load", "a: " + "b #" * (n // 3) + ":"),
        "quick quotes": ("load", "a: '" + "''" * (n // 2)),
        "quick double": ("load", 'a: "' + "b" * n),
        "quick flow": ("load", "a: [" + "b, " * (n // 3) + "c"),
        "quick flow spaces": ("load", "a: [b" + " " * n + "c"),
        "quick indent": ("load", "a:\n" + " " * n + "- b: c:"),
        "yaml backslashes": ("load", 'a: "' + "\\\\" * (n // 2) + '"'),
        "yaml tabs": ("load", "a: b\n" + "\t" * n + "c: d"),
        "yaml dashes": ("load", "- " * (n // 2)),
        "error undefined alias": ("load", "a: *" + "x" * n),
        "error quotes in message": ("describe", "'" + " " * n + "'"),
        "error spaces in message": ("describe", " " * n + "x"),
        "error unclosed quote": ("load", "a: '" + "x " * (n // 2)),
        "error simple key": ("load", "a: b\n" + "c" * n + "\nd: e"),
        "clean-up spaces": ("clean", " \t" * (n // 2) + "x"),
        "clean-up controls": ("clean", "\x01 " * (n // 2)),
        "date spaces": ("date", "2026-01-01" + " " * n + "x"),
        "date digits": ("date", "1" * n),
    }


def _call(function: str, argument: str) -> Any:
    from ledger_context.model import fields
    from ledger_context.reader import frontmatter, markdown

    if function == "first_h1":
        return markdown.first_h1(argument)
    if function == "metrics_list":
        return markdown.metrics_list(argument)
    if function == "split":
        return frontmatter.split_frontmatter(argument)
    if function == "clean":
        return fields.clean_text(argument)
    if function == "date":
        return fields.parse_updated_at(argument)
    if function == "describe":
        return frontmatter._unquote_document(argument)
    try:
        return frontmatter.load_mapping(argument)
    except frontmatter.FrontmatterError as exc:
        return exc


def _timed(function: str, argument: str, out: Any) -> None:
    import ledger_context.reader.ledger  # noqa: F401  (imports are not part of the figure)

    start = time.perf_counter()
    _call(function, argument)
    out.put(time.perf_counter() - start)


def main(argv: list[str]) -> None:
    n = int(argv[1]) if len(argv) > 1 else 100_000
    limit = float(argv[2]) if len(argv) > 2 else 20.0
    run: Callable[..., Any] = _timed
    for name, (function, argument) in _cases(n).items():
        queue: Any = multiprocessing.Queue()
        process = multiprocessing.Process(target=run, args=(function, argument, queue))
        process.start()
        process.join(limit)
        if process.is_alive():
            process.terminate()
            process.join()
            figure = f">{limit:g}"
        else:
            figure = f"{queue.get():.4f}"
        print(f"{name:<26} {figure:>9} s", flush=True)


if __name__ == "__main__":
    main(sys.argv)

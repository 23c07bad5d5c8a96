"""The command line: ``pack``, ``explain``, ``check``, ``serve``; the only module that prints.

Every command reads the same core as the MCP server, so ``ledger-context pack`` writes
exactly the bytes ``get_context`` returns. Errors go to stderr as ``Error: ...`` with
the exit code of their :class:`~ledger_context.errors.LedgerContextError`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .budget import DEFAULT_CAP_TOKENS, MAX_CAP_TOKENS
from .classify import CLASSES, parse_ceiling
from .context import ContextBuild, ContextBuilder
from .errors import InvalidArgumentError, LedgerContextError
from .space import display_path, find_space, space_from_environment

CEILING_ENV = "LEDGER_MAX_DATA_CLASS"
CAP_ENV = "LEDGER_CAP_TOKENS"


def _cap_tokens(value: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit():
        raise argparse.ArgumentTypeError(f"{value[:40]!r} is not a whole number of tokens (digits 0-9)")
    cap = int(text)
    if not 1 <= cap <= MAX_CAP_TOKENS:
        raise argparse.ArgumentTypeError(f"the cap must be from 1 to {MAX_CAP_TOKENS} tokens")
    return cap


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--space",
        metavar="PATH",
        help="directory that contains .ledger/ (default: $LEDGER_SPACE, else the nearest "
        "directory holding .ledger from the working directory upward)",
    )
    budget = argparse.ArgumentParser(add_help=False)
    budget.add_argument(
        "--cap-tokens",
        type=_cap_tokens,
        metavar="N",
        help=f"cap in tokens of 4 UTF-8 bytes (default: ${CAP_ENV} or {DEFAULT_CAP_TOKENS})",
    )
    budget.add_argument(
        "--max-data-class",
        metavar="CLASS",
        help=f"withhold sources stricter than CLASS, one of {', '.join(CLASSES)} "
        f"(default: ${CEILING_ENV}, else no ceiling)",
    )

    parser = argparse.ArgumentParser(
        prog="ledger-context",
        description="Deterministic, byte-budgeted context packs of an experiment ledger, "
        "for AI agents over MCP and for people on the command line.",
    )
    parser.add_argument("--version", action="version", version=f"ledger-context {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    pack = commands.add_parser(
        "pack",
        parents=[common, budget],
        help="write the context pack to stdout, exactly as get_context returns it",
        description="Write the context pack to stdout: exactly the bytes get_context returns, "
        "no newline added.",
    )
    pack.add_argument(
        "--stats",
        action="store_true",
        help="also write the pack's size in bytes and tokens to stderr",
    )

    explain = commands.add_parser(
        "explain",
        parents=[common, budget],
        help="show the pack's budget: every block kept, dropped or truncated, and why",
        description="Show the breakdown of the pack get_context would return now.",
    )
    explain.add_argument("--full", action="store_true", help="list every block, source and problem")
    explain.add_argument("--json", action="store_true", help="print the structured data as JSON")

    check = commands.add_parser(
        "check",
        parents=[common],
        help="list every problem in the ledger; exit 0 clean, 1 warnings, 2 documents skipped",
        description="List every problem found in the ledger, with path, line, severity and how "
        "to fix it. Exit status: 0 clean, 1 warnings only, 2 documents skipped.",
    )
    check.add_argument("--json", action="store_true", help="print the problems as JSON")

    commands.add_parser(
        "serve",
        parents=[common, budget],
        help="run the MCP stdio server (tools get_context and explain_budget)",
        description="Run the MCP server over stdio. Only JSON-RPC goes to stdout; logs go to stderr.",
    )
    return parser


def _options(args: argparse.Namespace) -> tuple[int, str | None]:
    cap = getattr(args, "cap_tokens", None)
    if cap is None:
        raw = os.environ.get(CAP_ENV)  # set but empty is refused, like the flag
        try:
            cap = _cap_tokens(raw) if raw is not None else DEFAULT_CAP_TOKENS
        except argparse.ArgumentTypeError as exc:
            raise InvalidArgumentError(f"{CAP_ENV}: {exc}") from None
    ceiling = getattr(args, "max_data_class", None)
    if ceiling is None:
        ceiling = os.environ.get(CEILING_ENV)  # set but empty is refused, like the flag
    return cap, parse_ceiling(ceiling)


def _build(args: argparse.Namespace) -> ContextBuild:
    cap, ceiling = _options(args)
    space = find_space(space_from_environment(args.space))
    return ContextBuilder(space, cap, ceiling, cache=False).build()


def _write(text: str) -> None:
    if sys.stdout is None:  # started with stdout closed
        raise LedgerContextError("standard output is closed; nothing can be written")
    sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
    sys.stdout.buffer.flush()


def _skipped_note(build: ContextBuild) -> None:
    errors = sum(1 for p in build.ledger.problems if p.severity == "error")
    if errors:
        print(
            f"ledger-context: {errors} file(s) or folder(s) skipped; run 'ledger-context check' for details",
            file=sys.stderr,
        )


def _cmd_pack(args: argparse.Namespace) -> int:
    build = _build(args)
    _write(build.pack)
    if args.stats:
        b = build.budgeted
        print(
            f"pack: {b.pack_bytes} bytes = {b.tokens} tokens of a {b.cap_tokens}-token cap "
            f"({b.cap_bytes} bytes); {b.dropped} blocks dropped; "
            f"{'truncated' if b.truncated else 'not truncated'}",
            file=sys.stderr,
        )
    _skipped_note(build)
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    from .explain import explain
    from .readout import budget_text

    explanation = explain(_build(args), "full" if args.full else "brief")
    if args.json:
        _write(explanation.model_dump_json(indent=2) + "\n")
    else:
        _write(budget_text(explanation))
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .check import check_ledger
    from .ledger import read_ledger
    from .readout import problems_text

    space = find_space(space_from_environment(args.space))
    report = check_ledger(read_ledger(space))
    if args.json:
        import json

        data = {
            "space": display_path(space),
            "exit_status": report.exit_status,
            "yaml_loader": report.yaml_loader,
            "problems": [
                {
                    "path": p.path,
                    "severity": p.severity,
                    "line": p.line,
                    "column": p.column,
                    "message": p.message,
                }
                for p in report.problems
            ],
        }
        _write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        loader = "" if report.yaml_loader == "libyaml" else f" (YAML read by the {report.yaml_loader} loader)"
        _write(f"Checked {display_path(space)}{loader}\n" + problems_text(report.problems, report.selected))
    return report.exit_status


def _cmd_serve(args: argparse.Namespace) -> int:
    cap, ceiling = _options(args)
    explicit = space_from_environment(args.space)
    # The MCP SDK is imported here only: every other command stays fast to start.
    from .mcp_server import serve

    serve(explicit_space=Path(explicit) if explicit else None, cap_tokens=cap, max_data_class=ceiling)
    return 0


_COMMANDS = {"pack": _cmd_pack, "explain": _cmd_explain, "check": _cmd_check, "serve": _cmd_serve}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    reconfigure = getattr(sys.stderr, "reconfigure", None)
    if reconfigure is not None:  # a message must never fail on a console's encoding
        reconfigure(errors="backslashreplace")
    args = _parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except LedgerContextError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); nothing left to say.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as exc:  # e.g. a full disk under `> file`
        print(f"Error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The command line: ``pack``, ``explain``, ``check``, ``serve``, ``audit``; the only module that prints.

It is the edge: the only module that reads flags and environment variables. It turns
them into one checked :class:`~ledger_context.pack.settings.Settings` (cap, ceiling, YAML
loader options), a space and an audit log path, and hands them down.

Every command reads the same core as the MCP server, so ``ledger-context pack`` writes
exactly the bytes ``get_context`` returns. Errors go to stderr as ``Error: ...`` with
the exit code of their :class:`~ledger_context.model.errors.LedgerContextError`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from . import __version__
from .model.classify import CLASSES
from .model.errors import (
    DocumentChangedError,
    InvalidArgumentError,
    InvalidCapError,
    LedgerContextError,
    SpaceNotFoundError,
)
from .model.tokens import DEFAULT_CAP_TOKENS
from .model.values import Record
from .pack.build import ContextBuilder
from .pack.context import ContextBuild
from .pack.settings import Settings, make_settings
from .reader.frontmatter import yaml_options
from .reader.space import LEDGER_DIR, display_path, find_space, holds_ledger, space_from_environment

if TYPE_CHECKING:
    from .pack.measure import CapAdvice
    from .proof.audit import CallRecord
    from .proof.provenance import HeadSource
    from .reader.index import Cleared, IndexOptions

CEILING_ENV = "LEDGER_MAX_DATA_CLASS"
BUNDLE_CEILING = "restricted"
"""The MCP Bundle's ceiling field when left empty (``manifest.json`` names it its default):
a bundle user cannot leave the option out, as a config file user can."""
CAP_ENV = "LEDGER_CAP_TOKENS"
UNDECLARED_ENV = "LEDGER_UNDECLARED_CLASS"
INDEX_ENV = "LEDGER_INDEX"
INDEX_ENV_VALUES = ("on", "off")
LOG_LEVELS = ("debug", "info", "warning", "error")


def _cap_tokens(value: str) -> int:
    """The number a cap's text spells; whether it is a valid cap is the settings' check."""
    text = value.strip()
    if not text.isascii() or not text.isdigit():
        raise argparse.ArgumentTypeError(f"{value[:40]!r} is not a whole number of tokens (digits 0-9)")
    return int(text)


def _limit(value: str) -> int | str:
    """The number a limit's text spells, else the text: whether it is a valid limit is
    search's own check, whose message names the range."""
    text = value.strip()
    return int(text) if text.isascii() and text.isdigit() else value


class _Options(Record):
    """Options several commands share, as argparse parent parsers."""

    __slots__ = ("audit_file", "budget", "common", "history", "keep_days")

    def __init__(
        self,
        common: _Parser,
        budget: _Parser,
        history: _Parser,
        audit_file: _Parser,
        keep_days: _Parser,
    ) -> None:
        self.common = common
        self.budget = budget
        self.history = history
        self.audit_file = audit_file
        self.keep_days = keep_days


_Commands: TypeAlias = "argparse._SubParsersAction[_Parser]"


def _options_parsers() -> _Options:
    """--space; --cap-tokens and --max-data-class; --rev; --audit; --audit-keep-days."""
    common = _Parser(add_help=False)
    common.add_argument(
        "--space",
        metavar="PATH",
        help="directory that contains .ledger/ (default: $LEDGER_SPACE, else the nearest "
        "directory holding .ledger from the working directory upward)",
    )
    budget = _Parser(add_help=False)
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
    budget.add_argument(
        "--undeclared-class",
        metavar="CLASS",
        help="read sources that declare no data_class as CLASS for the ceiling (default: "
        f"${UNDECLARED_ENV}, else they pass any ceiling)",
    )
    budget.add_argument(
        "--no-index",
        action="store_true",
        help=f"read every file, without the ledger index in the user cache folder (also {INDEX_ENV}=off)",
    )

    history = _Parser(add_help=False)
    history.add_argument(
        "--rev",
        metavar="REV",
        help="build from the ledger as committed at REV (a commit, branch or tag), read from "
        "git objects, not the work tree",
    )
    audit_file = _Parser(add_help=False)
    audit_file.add_argument(
        "--audit",
        metavar="PATH",
        help="the audit log file (default: $LEDGER_AUDIT, else the user state folder, "
        "e.g. ~/.local/state/ledger-context/audit.sqlite3)",
    )
    keep_days = _Parser(add_help=False)
    keep_days.add_argument(
        "--audit-keep-days",
        type=_keep_days,
        metavar="DAYS",
        help="keep audit records this many days (default 90); older ones are pruned",
    )
    return _Options(common, budget, history, audit_file, keep_days)


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, its width read without importing shutil (and with it bz2 and
    lzma): argparse makes one per option added, so every command paid for it at start-up."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24) -> None:
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2)


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` gives it: $COLUMNS, else the tty's, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        stdout = sys.__stdout__
        return (os.get_terminal_size(stdout.fileno()).columns if stdout else 0) or 80
    except (AttributeError, ValueError, OSError):
        return 80


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser with :class:`_Formatter`; subcommands' parsers are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser; for ``argv`` naming a command first, that command's alone.

    Building every command's options cost about a third of a short ``pack`` process
    (argparse looks up a translation for each help string); the others' are needed only
    when the command line names none, and then every one is built.
    """
    parser = _Parser(
        prog="ledger-context",
        description="Deterministic, byte-budgeted context packs of an experiment ledger, "
        "for AI agents over MCP and for people on the command line.",
    )
    parser.add_argument("--version", action="version", version=f"ledger-context {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    options = _options_parsers()
    adders = {
        "pack": _add_pack,
        "explain": _add_explain,
        "search": _add_search,
        "check": _add_check,
        "serve": _add_serve,
        "audit": _add_audit,
        "index": _add_index,
    }
    first = argv[0] if argv else None
    for name, add in adders.items():
        if first not in adders or name == first:
            add(commands, options)
    return parser


def _add_pack(commands: _Commands, o: _Options) -> None:
    """``pack``: the pack on stdout."""
    pack = commands.add_parser(
        "pack",
        parents=[o.common, o.budget, o.history],
        help="write the context pack to stdout, exactly as get_context returns it",
        description="Write the context pack to stdout: exactly the bytes get_context returns, "
        "no newline added.",
    )
    pack.add_argument(
        "--stats",
        action="store_true",
        help="also write the pack's size in bytes and tokens to stderr",
    )


def _add_explain(commands: _Commands, o: _Options) -> None:
    """``explain``: the budget, one document's fate, or the HTML page."""
    explain = commands.add_parser(
        "explain",
        parents=[o.common, o.budget, o.history],
        help="show the pack's budget: every block kept, dropped or truncated, and why",
        description="Show the breakdown of the pack get_context would return now.",
    )
    explain.add_argument("--full", action="store_true", help="list every block, source and problem")
    explain.add_argument("--json", action="store_true", help="print the structured data as JSON")
    explain.add_argument(
        "--path",
        metavar="P",
        help="answer for one document: where it went and why (e.g. .ledger/decisions/0007-use-jwt.md)",
    )
    explain.add_argument(
        "--html", metavar="FILE", help="write the budget as one self-contained HTML page to FILE"
    )


def _add_search(commands: _Commands, o: _Options) -> None:
    """``search``: the ranked documents for a query, as search_ledger gives them."""
    search = commands.add_parser(
        "search",
        parents=[o.common, o.budget, o.history],
        help="rank the ledger's documents for a query (BM25F), as the search_ledger tool does",
        description="Rank every accepted document the ceiling lets through for QUERY: BM25F over "
        "title, frontmatter and body, then newest, then path. The same hits as search_ledger.",
    )
    search.add_argument("query", metavar="QUERY", help="words to look for (quote several words)")
    search.add_argument("--kind", metavar="K", help="only documents of this kind (harness, eval, ...)")
    search.add_argument(
        "--limit", metavar="N", type=_limit, default=10, help="at most N hits, 1 to 50 (default 10)"
    )
    search.add_argument("--json", action="store_true", help="print the result as JSON")


def _add_check(commands: _Commands, o: _Options) -> None:
    """``check``: every problem, and an exit status."""
    check = commands.add_parser(
        "check",
        parents=[o.common, o.budget, o.history],
        help="list every problem in the ledger; exit 0 clean, 1 warnings, 2 documents skipped",
        description="List every problem found in the ledger, with path, line, severity and how "
        "to fix it. Exit status: 0 clean, 1 warnings only, 2 documents skipped.",
    )
    check.add_argument("--json", action="store_true", help="print the problems as JSON")


def _add_serve(commands: _Commands, o: _Options) -> None:
    """``serve``: the MCP stdio server."""
    serve = commands.add_parser(
        "serve",
        parents=[o.common, o.budget, o.audit_file, o.keep_days],
        help="run the MCP server (tools get_context, explain_budget, read_document and search_ledger)",
        description="Run the MCP server over stdio. Only JSON-RPC goes to stdout; logs go to stderr. "
        "Every call answered is recorded in the audit log. "
        "An explicit space that holds no ledger stops it at once (exit 2). It ends, exit 0, when stdin "
        "closes (after answering what was read), the client closes stdout, or on SIGINT/SIGTERM/SIGHUP.",
    )
    serve.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="info",
        help="stderr log level (default: info); the MCP SDK's own logs show only with debug",
    )
    serve.add_argument("--no-audit", action="store_true", help="keep no audit log")
    serve.add_argument(
        "--bundle-max-data-class",
        metavar="CLASS",
        help=f"the MCP Bundle's ceiling field (manifest.json): as --max-data-class, but empty "
        f"means the bundle's default, {BUNDLE_CEILING}",
    )
    _add_http_options(serve)


def _add_http_options(serve: argparse.ArgumentParser) -> None:
    """``serve --http``: team mode over Streamable HTTP, with OAuth and limits."""
    http = serve.add_argument_group(
        "team mode (Streamable HTTP)",
        "Serve over HTTP instead of stdio. Without --auth-issuer only loopback is allowed; with "
        "it every request needs a JWT bearer token, whose ledger:<class> scope sets its ceiling.",
    )
    http.add_argument(
        "--http", metavar="[HOST:]PORT", help="listen on HOST:PORT (default host 127.0.0.1; port 0: any free)"
    )
    http.add_argument(
        "--public-url",
        metavar="URL",
        help="the URL clients use, e.g. https://ledger.example.com/mcp (behind a reverse proxy); "
        "tokens must be issued for it (audience). Default: http://HOST:PORT/mcp",
    )
    http.add_argument("--auth-issuer", metavar="URL", help="the OAuth authorization server (token iss)")
    http.add_argument("--auth-jwks", metavar="FILE|URL", help="the issuer's keys: a JWKS file or https URL")
    http.add_argument(
        "--allow-origin", metavar="ORIGIN", action="append", default=[], help="also accept this Origin"
    )
    http.add_argument("--max-body", type=int, default=1 << 20, metavar="BYTES", help="default 1048576")
    http.add_argument(
        "--rate-limit", type=int, default=600, metavar="N", help="requests a minute per identity (600)"
    )
    http.add_argument("--burst", type=int, default=60, metavar="N", help="requests at once (default 60)")


def _add_audit(commands: _Commands, o: _Options) -> None:
    """``audit``: list, show, verify and prune the audit log."""
    audit = commands.add_parser(
        "audit",
        help="what serve served: list the calls, show a pack's exact bytes, verify, prune",
        description="Read the audit log serve writes: every call answered, with the pack's SHA-256.",
    )
    audit_commands = audit.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    listing = audit_commands.add_parser(
        "list",
        parents=[o.audit_file],
        help="the calls recorded: time, client, call, sha256, bytes, commit, dirty",
        description="List the calls recorded, oldest first.",
    )
    listing.add_argument("--space", metavar="PATH", help="only calls answered from this space")
    listing.add_argument(
        "--since", metavar="ISO", help="only calls at or after this time (ISO 8601; UTC if no offset)"
    )
    listing.add_argument("--json", action="store_true", help="print the records as JSON")
    show = audit_commands.add_parser(
        "show",
        parents=[o.audit_file],
        help="print a served pack's exact bytes",
        description="Write the pack with this SHA-256 (or a unique prefix of 8+ hex digits) to stdout, "
        "exactly the bytes served, nothing added.",
    )
    show.add_argument("sha256", metavar="SHA256")
    verify = audit_commands.add_parser(
        "verify",
        parents=[o.audit_file],
        help="re-hash every stored pack and row chain; exit 1 on a mismatch",
        description="Re-hash every stored pack against its SHA-256, walk every row's hash chain (an edited, "
        "inserted, reordered or deleted row breaks it) and check each row's bytes against its pack; "
        "exit 1 naming each row or pack that fails.",
    )
    verify.add_argument(
        "--head",
        metavar="HASH",
        type=_row_hash,
        help="a receipt's audit_head (64 hex digits): fail unless that row is still in the log",
    )
    audit_commands.add_parser(
        "prune",
        parents=[o.audit_file, o.keep_days],
        help="remove records older than --audit-keep-days",
        description="Remove records older than --audit-keep-days days, and packs no record refers to.",
    )


def _add_index(commands: _Commands, o: _Options) -> None:
    """``index``: the ledger index's state, or remove it."""
    index = commands.add_parser(
        "index",
        parents=[o.common],
        help="show or remove the ledger index kept in the user cache folder",
        description="The ledger index keeps what reading each file gave, so that a new process "
        "starts warm. 'status' says where it is and whether it can be used; 'clear' removes it "
        "(it is rebuilt by the next command that reads the ledger).",
    )
    index.add_argument("action", choices=("status", "clear"))
    index.add_argument("--all", action="store_true", help="clear: every ledger's index, not just this one")


def _keep_days(value: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise argparse.ArgumentTypeError(f"{value[:40]!r} is not a number of days from 1 to 100000")
    return int(text)


class _UsageError(Exception):
    """A flag's value the settings refused: argparse reports it with the usage line."""


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of ``command``, whose usage line names the flags that command takes."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def _options(args: argparse.Namespace) -> Settings:
    """The settings of ``args``: each flag, else its environment variable, else the default;
    checked once, here (:func:`~ledger_context.pack.settings.make_settings`)."""
    flag = getattr(args, "cap_tokens", None)
    cap = flag
    if cap is None:
        raw = os.environ.get(CAP_ENV)  # set but empty is refused, like the flag
        try:
            cap = _cap_tokens(raw) if raw is not None else DEFAULT_CAP_TOKENS
        except argparse.ArgumentTypeError as exc:
            raise InvalidArgumentError(f"{CAP_ENV}: {exc}") from None
    ceiling = getattr(args, "max_data_class", None)
    bundle = getattr(args, "bundle_max_data_class", None)
    if ceiling is None and bundle is not None:
        ceiling = bundle if bundle.strip() else BUNDLE_CEILING
    if ceiling is None:
        ceiling = os.environ.get(CEILING_ENV)  # set but empty is refused, like the flag
    undeclared = getattr(args, "undeclared_class", None)
    if undeclared is None:
        undeclared = os.environ.get(UNDECLARED_ENV)  # set but empty is refused, like the flag
    try:
        return make_settings(cap, ceiling, undeclared, yaml_options(os.environ), _index_options(args))
    except InvalidCapError as exc:  # the settings' one message, named for where the cap came from
        if flag is not None:
            raise _UsageError(f"argument --cap-tokens: {exc}") from None
        raise InvalidCapError(f"{CAP_ENV}: {exc}") from None


def _index_options(args: argparse.Namespace) -> IndexOptions | None:
    """Where the ledger index lives, ``None`` when --no-index or LEDGER_INDEX=off; the one
    place that knows the user cache folder (``$XDG_CACHE_HOME`` or the platform's own)."""
    if getattr(args, "no_index", False) or getattr(args, "rev", None) is not None:
        return None  # a flag wins over its variable; a revision is a private copy: nothing to keep
    raw = os.environ.get(INDEX_ENV)
    value = "on" if raw is None else raw.strip().casefold()
    if value not in INDEX_ENV_VALUES:
        raise InvalidArgumentError(
            f"{INDEX_ENV}: {(raw or '')[:40]!r} is not one of {', '.join(INDEX_ENV_VALUES)}"
        )
    if value == "off":
        return None
    import platformdirs

    from .reader.index import IndexOptions

    return IndexOptions(Path(platformdirs.user_cache_dir("ledger-context", appauthor=False)))


@contextmanager
def _space(args: argparse.Namespace) -> Iterator[tuple[Path, str, HeadSource | None]]:
    """The space to read, how to show it, and where HEAD comes from: the work tree, or
    the ledger of ``--rev`` written out from git for the ``with`` block."""
    explicit = space_from_environment(args.space, os.environ)
    if getattr(args, "rev", None) is None:
        space = find_space(explicit)
        yield space, display_path(space), None
        return
    from .proof.history import checkout

    with _signals_exit(), checkout(args.rev, explicit) as revision:
        if not holds_ledger(revision.space):  # a file, or a link to no folder, at REV
            raise SpaceNotFoundError(f"{revision.shown} holds a .ledger that is not a folder (at {args.rev})")
        yield revision.space, revision.shown, revision.head


_DEFAULT_KEPT = frozenset(
    {"SIGKILL", "SIGSTOP", "SIGCHLD", "SIGCONT", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGWINCH"}
    | {"SIGPIPE", "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT"}
)
"""Signals left as they are: those that cannot be caught or do not end the process, SIGPIPE
(Python ignores it) and the faults of the process itself."""


@contextmanager
def _signals_exit() -> Iterator[None]:
    """Every other signal (SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU,
    the real-time ones…) ends the command through ``SystemExit`` (128 + the signal), so
    ``finally`` blocks run: the private copy of a revision, withheld files included, is
    removed whatever ends the command; a second signal meanwhile cannot cut that short.
    Only SIGKILL cannot be caught."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():  # signals are not ours
        yield
        return
    stopping: list[int] = []

    def stop(number: int, _frame: object) -> None:
        if not stopping:  # the first ends the command; later ones wait for its clean-up
            stopping.append(number)
            raise SystemExit(128 + number)

    before: dict[int, Any] = {}
    for number in sorted(int(valid) for valid in signal.valid_signals()):
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"SIG{number}"  # a real-time signal
        if name in _DEFAULT_KEPT:
            continue
        try:
            before[number] = signal.signal(number, stop)
        except (OSError, ValueError):  # reserved by the C library
            continue
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


@contextmanager
def _build(args: argparse.Namespace, provenance: bool) -> Iterator[tuple[ContextBuild, str]]:
    settings = _options(args)
    with _space(args) as (space, shown, git):
        builder = ContextBuilder(space, settings=settings, cache=False, provenance=provenance, git=git)
        build = builder.build()
        _KEPT.append((builder, build))
        yield build, shown


_KEPT: list[object] = []
"""What this run's command built, kept until the program ends (see :func:`_end`)."""


def _end(status: int) -> int:
    """End the program now, once its output is flushed, without freeing what it built:
    freeing a large ledger's objects one by one costs a warm ``pack`` of 10,000 documents
    about 20 ms, a tenth of its run (issue 26). Only a program with one thread ends so;
    otherwise, or when a flush fails, it ends as usual (``status`` is returned)."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return status
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BrokenPipeError:
        return _reader_gone()
    except (OSError, ValueError):
        return status
    os._exit(status)


def _reader_gone() -> int:
    """The reader of stdout went away (``| head``, ``| true``): nothing left to say, and
    the interpreter's last flush must not fail again. Status 1, as Python's own advice on
    SIGPIPE, whether the pipe closed before a write or before the final flush."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


def _argument_text(value: str) -> str:
    """A command-line argument as the UTF-8 text its bytes spell, whatever the locale
    (under ``LC_ALL=C`` Python decodes argv as ASCII with surrogate escapes)."""
    return os.fsencode(value).decode("utf-8", "surrogateescape")


def _write(text: str) -> None:
    if sys.stdout is None:  # started with stdout closed
        raise LedgerContextError("standard output is closed; nothing can be written")
    out = sys.stdout.buffer
    data = memoryview(text.encode("utf-8", "backslashreplace"))
    # Unbuffered (PYTHONUNBUFFERED, -u), stdout is a raw stream whose write may take only
    # part (a pipe whose reader left, a signal): the rest is written, or its error raised.
    while data:
        written = out.write(data)
        if written is None:  # a non-blocking stdout that is full: wait until it takes more
            import select

            select.select([], [out], [])
        data = data[written or 0 :]
    out.flush()


def _skipped_note(build: ContextBuild) -> None:
    errors = sum(1 for p in build.ledger.problems if p.severity == "error")
    if errors:
        print(
            f"ledger-context: {errors} file(s) or folder(s) skipped; run 'ledger-context check' for details",
            file=sys.stderr,
        )


def _cmd_pack(args: argparse.Namespace) -> int:
    with _build(args, provenance=False) as (build, _):
        pass
    _write(build.pack)
    if args.stats:
        b = build.budgeted
        print(
            f"pack: {b.pack_bytes} bytes = {b.tokens} tokens of a {b.cap_tokens}-token cap "
            f"({b.cap_bytes} bytes); {b.dropped} blocks dropped; "
            f"{'truncated' if b.truncated else 'not truncated'}",
            file=sys.stderr,
        )
        from .explain.readout import measured_line
        from .pack.measure import measure

        print(measured_line(measure(build.pack, b.tokens, sha256=b.sha256)), file=sys.stderr)
    _skipped_note(build)
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    from .explain.breakdown import explanation_json
    from .explain.full import explain
    from .explain.readout import brief_readout, budget_text, path_text

    with _build(args, provenance=True) as (build, shown):
        full = explain(build, "full")
        answer = None
        if args.path is not None:
            from .explain.path import explain_path

            answer = explain_path(build, _argument_text(args.path))
    if args.rev is not None:
        from dataclasses import replace  # here: the pack command imports no dataclasses

        full = replace(full, space=shown)
    if args.html is not None:
        from .explain.page import budget_page

        try:
            Path(args.html).write_text(budget_page(full), encoding="utf-8")
        except OSError as exc:
            raise LedgerContextError(
                f"cannot write {display_path(args.html)}: {exc.strerror or exc}"
            ) from None
        print(f"ledger-context: wrote {display_path(args.html)}", file=sys.stderr)
        return 0
    if answer is not None:
        _write(answer.model_dump_json(indent=2) + "\n" if args.json else path_text(answer))
        return 0
    if args.full:
        text = _with_index(explanation_json(full, indent=2), build) + "\n" if args.json else budget_text(full)
        _write(text)
        return 0
    brief, text = brief_readout(full)
    _write(_with_index(brief.model_dump_json(indent=2), build) + "\n" if args.json else text)
    return 0


def _with_index(text: str, build: ContextBuild) -> str:
    """An explanation's JSON object, with a last field ``index`` when the ledger index had a
    fault (rebuilt, or not written): otherwise the bytes are the same whatever became of the
    index (a command-line field: the MCP tools' answers stay as spec §8 has them)."""
    from .reader.indexed import is_fault

    if not is_fault(build.index) or not text.endswith("}"):
        return text
    import json

    return text[:-1].rstrip() + ',\n  "index": ' + json.dumps(build.index) + "\n}"


def _cmd_search(args: argparse.Namespace) -> int:
    from .search.result import search, search_json, search_text

    settings = _options(args)
    query = _argument_text(args.query)
    with _space(args) as (space, _, git):
        builder = ContextBuilder(space, settings=settings, cache=False, provenance=False, git=git)
        _KEPT.append(builder)
        try:
            result = search(builder.build(), query, args.kind, args.limit)
        except DocumentChangedError:
            # As search_ledger does: a document changed after the build read it (search
            # reads each again); one fresh build reads the change.
            result = search(builder.build(), query, args.kind, args.limit)
    _write(search_json(result) + "\n" if args.json else search_text(result))
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .explain.readout import problems_text
    from .reader.check import check_ledger
    from .reader.indexed import is_fault

    settings = _options(args)
    with _space(args) as (space, shown, _):
        builder = ContextBuilder(space, settings=settings, cache=False, provenance=False)
        build = builder.build()
        ledger = build.ledger
        report = check_ledger(ledger, yaml=settings.yaml)
    if is_fault(build.index):  # on stderr: the readout is the same whatever became of the index
        print(f"index: {build.index}", file=sys.stderr)
    advice = _cap_advice(build)
    if args.json:
        import json
        from dataclasses import asdict

        data = {
            "space": shown,
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
            "advice": [asdict(a) for a in advice],
        }
        _write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        loader = "" if report.yaml_loader == "libyaml" else f" (YAML read by the {report.yaml_loader} loader)"
        lines = "".join(f"Advice: {a.text()}\n" for a in advice)
        _write(f"Checked {shown}{loader}\n" + problems_text(report.problems, report.selected) + lines)
    return report.exit_status


def _cap_advice(build: ContextBuild) -> list[CapAdvice]:
    """Where a real tokenizer counts the pack over its cap, the largest cap that fits it
    (spec §9: advice, never a change to the pack or the exit status); over the build's own
    selection, so what a ceiling withholds is out of it as it is out of the pack."""
    from .pack.fit import cap_advice
    from .pack.measure import TOKENIZERS

    budgeted, blocks = build.budgeted, build.selection.blocks
    if budgeted.pack_bytes <= budgeted.cap_tokens:  # a token is at least a byte: it fits, unloaded
        return []
    found = (cap_advice(blocks, budgeted.pack, budgeted.cap_tokens, spec.name) for spec in TOKENIZERS)
    return [advice for advice in found if advice is not None]


def _cmd_serve(args: argparse.Namespace) -> int:
    import signal

    # A stop asked for while the server starts is a normal end too (exit 0, as once serving).
    # Over stdio, each request the client has sent by then is answered with an error first.
    # The process ends in the handler: an exception raised there would surface inside
    # whatever it interrupted (an import, pydantic building a schema) and be wrapped into a
    # traceback. Serving installs its own handlers.
    if args.http is None and args.auth_issuer is None and args.auth_jwks is None:
        from .mcp.early_stop import STOP_SIGNALS, answer_unread  # now: an import must not race a signal

        stopping: list[int] = []

        def stopped(signum: int, frame: object) -> None:
            if not stopping:  # a second signal, come while the first answers, waits for it
                stopping.append(signum)
                answer_unread(signal.Signals(signum).name)
                os._exit(0)

        for signum in STOP_SIGNALS:
            signal.signal(signum, stopped)
    else:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _stopped_while_starting)
    for signum in _HELD:  # come while the arguments were read: taken now, as they came
        signal.raise_signal(signum)
    settings = _options(args)
    explicit = space_from_environment(args.space, os.environ)
    if explicit:
        try:  # fail fast: a client then shows the server as failed, not as connected
            find_space(explicit)
        except SpaceNotFoundError as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 2
    # The MCP SDK is imported here only: every other command stays fast to start.
    from .mcp.server import serve
    from .proof.audit import DEFAULT_KEEP_DAYS, AuditLog, log_path

    keep = args.audit_keep_days or DEFAULT_KEEP_DAYS
    if args.http is not None or args.auth_issuer is not None or args.auth_jwks is not None:
        # A team server serves one ledger, chosen here: a remote client's roots never name a
        # directory of this host, and one session's choice never becomes another's.
        try:
            space = find_space(explicit or None)
        except SpaceNotFoundError as exc:
            print(f"Error: {exc}; serve --http needs --space PATH (or LEDGER_SPACE)", file=sys.stderr)
            return 2
        return _serve_http(args, settings, space)
    log = None if args.no_audit else AuditLog(log_path(args.audit, os.environ), keep)
    serve(
        explicit_space=Path(explicit) if explicit else None,
        settings=settings,
        audit=log,
        log_level=args.log_level,
    )
    # Serving is over, the audit log closed and the logs drained. End now: a build still
    # running in a worker thread, or the interpreter's teardown (about a second after a
    # signal), would hold the exit.
    os._exit(0)


def _row_hash(value: str) -> str:
    """``--head``: a row hash is a SHA-256, 64 hex digits (argparse says so for anything else)."""
    text = value.strip().lower()
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise argparse.ArgumentTypeError(
            f"{value[:70]!r} is not a row hash: give the receipt's audit_head, 64 hex digits"
        )
    return text


def _stopped_while_starting(signum: int, frame: object) -> None:
    os._exit(0)


_HELD: list[int] = []
"""Stop signals come while ``serve`` read its arguments, for its handlers to take."""


def _hold(signum: int, frame: object) -> None:
    _HELD.append(signum)


def _serve_http(args: argparse.Namespace, settings: Settings, explicit: Path) -> int:
    from .mcp.auth import check_auth_options
    from .mcp.http import HttpOptions, check_http_options, parse_address
    from .mcp.server import serve_http
    from .proof.audit import DEFAULT_KEEP_DAYS, AuditLog, log_path

    if args.http is None:
        raise InvalidArgumentError("--auth-issuer and --auth-jwks need --http [HOST:]PORT")
    if (args.auth_issuer is None) != (args.auth_jwks is None):
        raise InvalidArgumentError("give both --auth-issuer and --auth-jwks, or neither")
    host, port = parse_address(args.http)
    options = HttpOptions(
        host=host,
        port=port,
        public_url=args.public_url,
        allowed_origins=tuple(args.allow_origin),
        max_body=args.max_body,
        rate_per_minute=args.rate_limit,
        burst=args.burst,
    )
    auth = None
    if args.auth_issuer is not None:
        auth = check_auth_options(args.auth_issuer, args.auth_jwks, args.public_url or options.url)
    check_http_options(options, auth)
    log = (
        None
        if args.no_audit
        else AuditLog(log_path(args.audit, os.environ), args.audit_keep_days or DEFAULT_KEEP_DAYS)
    )
    import signal

    # uvicorn answers what is in flight, then raises SIGTERM again for the handler it found:
    # this one, which ends through the exception so the audit log and the logs close first,
    # and then by the signal itself (its status, as a service manager expects).
    signal.signal(signal.SIGTERM, _raise_signalled)
    try:
        serve_http(explicit, settings, log, options, auth, log_level=args.log_level)
    except _Signalled as stop:
        signal.signal(stop.signum, signal.SIG_DFL)
        os.kill(os.getpid(), stop.signum)
        os._exit(128 + stop.signum)  # where the default action does not end the process
    os._exit(0)


class _Signalled(BaseException):
    """A signal that ends ``serve --http`` with its own status."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_signalled(signum: int, frame: object) -> None:
    raise _Signalled(signum)


def _since(value: str) -> str:
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise InvalidArgumentError(
            f"--since {value[:40]!r} is not an ISO 8601 date or time "
            "(e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _cmd_audit(args: argparse.Namespace) -> int:
    from .proof import audit

    path = audit.log_path(args.audit, os.environ)
    action = args.audit_command
    if action == "show":
        data = audit.pack_body(path, args.sha256)
        if sys.stdout is None:
            raise LedgerContextError("standard output is closed; nothing can be written")
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return 0
    if action == "verify":
        checked, bad = audit.verify(path, args.head)
        rows, chains, anchored = audit.chain_counts(path)
        from .reader.paths import printable_text

        for problem in bad:  # it may quote an edited cell: never raw on the terminal
            print(f"mismatch: {printable_text(problem)}", file=sys.stderr)
        if missing := audit.arguments_not_kept(path):
            print(
                f"note: the whole arguments of {_count(missing, 'row', 'rows')} are not in the log, only "
                f"their first {audit.ARGUMENTS_PREFIX_BYTES} bytes (deleted, or recorded before whole "
                "arguments were kept)",
                file=sys.stderr,
            )
        pruned = (
            f" ({_count(anchored, 'chain starts', 'chains start')} after pruned rows)" if anchored else ""
        )
        print(
            f"{checked} packs and {_count(rows, 'row', 'rows')} in {_count(chains, 'chain', 'chains')} "
            f"checked{pruned} in {display_path(path)}: {len(bad) or 'no'} mismatch(es)"
        )
        return 1 if bad else 0
    if action == "prune":
        keep = args.audit_keep_days or audit.DEFAULT_KEEP_DAYS
        calls, packs = audit.prune(path, keep)
        print(f"removed {calls} calls and {packs} packs older than {keep} days")
        return 0
    space = None
    if args.space:  # as serve recorded it: absolute, the .ledger folder meaning its parent
        chosen = Path(os.path.abspath(os.path.expanduser(args.space)))
        space = display_path(chosen.parent if chosen.name == ".ledger" else chosen)
    records = audit.list_calls(path, space, _since(args.since) if args.since else None)
    if args.json:
        import json
        from dataclasses import asdict

        from .reader.paths import printable_json

        # what clients said of themselves reaches a terminal through jq or less: escaped
        _write(printable_json(json.dumps([asdict(r) for r in records], indent=2, ensure_ascii=False)) + "\n")
        return 0
    _write(audit_table(records))
    return 0


def _cmd_index(args: argparse.Namespace) -> int:
    from .reader.index import index_path, load_index, version_key

    settings = _options(args)
    if settings.index is None:
        _write(f"index: off ({INDEX_ENV}=off)\n")
        return 0
    if args.action == "clear":
        return _clear_index(args, settings.index)
    space = find_space(space_from_environment(args.space, os.environ))
    loaded = load_index(settings.index, space, version_key(settings.yaml))
    path = index_path(settings.index, space)
    if loaded.fault == "missing":  # as the postings' line says it: not a fault
        state = "none yet (the next command that reads the ledger writes it)"
    else:
        state = f"{len(loaded.entries)} entries" if loaded.fault is None else f"not usable: {loaded.fault}"
    size = _size(path) if loaded.fault is None else 0
    if loaded.fault is None and size is None:  # removed by another process meanwhile
        state += " (removed since: the next command writes it anew)"
    _write(f"index: {display_path(path)}\n{state}" + (f", {size} bytes" if size else "") + "\n")
    _write(_postings_status(settings, space))
    return 0


def _clear_index(args: argparse.Namespace, options: IndexOptions) -> int:
    """``index clear``: this ledger's index (``--all``: every one). A ledger folder that is
    gone still has its index removed: it holds what withheld documents parsed to."""
    from .reader.index import clear_index

    space: Path | None = None
    if not args.all:
        explicit = space_from_environment(args.space, os.environ)
        try:
            space = find_space(explicit)
        except SpaceNotFoundError:
            if explicit is None:
                raise
            gone = Path(os.path.abspath(os.path.expanduser(explicit)))
            if gone.name == LEDGER_DIR:  # the .ledger folder names its space, as find_space reads it
                gone = gone.parent
            cleared = clear_index(options, gone)
            if not cleared.removed and not cleared.failed:
                raise  # nothing of it here either: say why the space was not found
            return _cleared(cleared, options)
    return _cleared(clear_index(options, space), options)


def _cleared(cleared: Cleared, options: IndexOptions) -> int:
    from .reader.paths import printable_text

    folder = display_path(options.directory)
    _write(f"index: {cleared.removed} index file(s) removed from {folder}\n")
    for name, why in cleared.failed:  # a name in the folder may be anyone's: escaped
        what = f"remove {printable_text(name)} from" if name else "clear"
        print(f"Error: cannot {what} {folder}: {why}", file=sys.stderr)
    return 2 if cleared.failed else 0


def _postings_status(settings: Settings, space: Path) -> str:
    """``index status``'s line on search's postings kept beside the index."""
    from .search.stored import load_postings, postings_path, postings_version

    assert settings.index is not None
    kept, fault = load_postings(settings.index, space, postings_version(settings.yaml))
    if fault == "missing":
        return "search postings: none yet (the first search writes them)\n"
    if fault is not None:
        return f"search postings: not usable: {fault} (the next search writes them anew)\n"
    size = _size(postings_path(settings.index, space))
    count = len(kept) if kept is not None else 0
    held = f"{count} document{'' if count == 1 else 's'}"
    if size is None:
        return f"search postings: {held} (removed since: the next search writes them anew)\n"
    return f"search postings: {held}, {size} bytes\n"


def _size(path: Path) -> int | None:
    """The size of ``path``, ``None`` when it is gone (another process cleared it)."""
    try:
        return path.stat().st_size
    except OSError:
        return None


def _cell(text: str, width: int = 24) -> str:
    """``text`` cut to ``width`` characters, the cut marked with ``…``."""
    return text if len(text) <= width else text[: width - 1] + "…"


def audit_table(records: list[CallRecord]) -> str:
    """``audit list``'s table: one row a call; ``served`` says what it got (``pack``, the
    document's path, or ``refused: <why>``), ``sha256`` and ``bytes`` are of what was
    served (the document's own for a document), the call and its path are never cut."""
    from .reader.paths import printable_text

    header = ("time", "client", "call", "sha256", "bytes", "commit", "dirty", "served")
    rows: list[tuple[str, ...]] = [header]
    for r in records:
        # what a client says of itself reaches the operator's terminal: never raw
        name, version = (
            printable_text(_cell(text)) for text in (r.client_name or "?", r.client_version or "")
        )
        client = f"{name} {version}".strip()
        dirty = "-" if r.dirty is None else "yes" if r.dirty else "no"
        document = r.served not in (None, "pack")
        digest = r.document_sha256 if document else r.sha256
        size = r.document_bytes if document else r.bytes
        served = printable_text(f"refused: {r.refused}" if r.refused is not None else r.served or "-")
        values = (
            r.time, client, r.call, str(digest or "-")[:16], "-" if size is None else str(size),
            str(r.commit or "-")[:12], dirty, served,
        )  # fmt: skip
        rows.append(tuple(printable_text(str(value)) for value in values))  # an edited cell, too
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(w) if i == 4 else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row[:-1], widths, strict=True))
        ]
        lines.append("  ".join([*cells, row[-1]]))
    return "\n".join(lines) + "\n"


_COMMANDS = {
    "pack": _cmd_pack,
    "explain": _cmd_explain,
    "search": _cmd_search,
    "check": _cmd_check,
    "serve": _cmd_serve,
    "audit": _cmd_audit,
    "index": _cmd_index,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    reconfigure = getattr(sys.stderr, "reconfigure", None)
    if reconfigure is not None:  # a message must never fail on a console's encoding
        reconfigure(errors="backslashreplace")
    program = argv is None
    argv = sys.argv[1:] if program else argv
    if program and sys.argv[1:2] == ["serve"]:  # from here a stop waits for serve's handlers
        import signal

        for name in ("SIGINT", "SIGTERM", "SIGHUP"):  # mcp/early_stop.py's STOP_SIGNALS, not imported yet
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), _hold)
    parser = _parser(argv)
    args = parser.parse_args(argv)
    _KEPT.clear()
    try:
        status = _COMMANDS[args.command](args)
        return _end(status) if program and args.command != "serve" else status
    except _UsageError as exc:
        _command_parser(parser, args.command).error(str(exc))
    except LedgerContextError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return _reader_gone()
    except OSError as exc:  # e.g. a full disk under `> file`
        print(f"Error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

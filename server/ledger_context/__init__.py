"""ledger-context: deterministic, byte-budgeted context packs of an experiment ledger.

The core (reading, packing, budgeting, classifying) knows nothing of MCP or the command
line; :mod:`ledger_context.mcp.server` and :mod:`ledger_context.cli` are thin layers
over :class:`ContextBuilder`. The contract is ``docs/spec.md`` (ADR-0028).
"""

from .model.classify import CLASSES
from .model.errors import InvalidArgumentError, LedgerContextError, SpaceNotFoundError
from .model.problems import Problem
from .model.tokens import BYTES_PER_TOKEN, DEFAULT_CAP_TOKENS, tokens
from .pack.build import ContextBuilder, build_context
from .pack.context import ContextBuild
from .pack.settings import Settings, make_settings
from .reader.space import find_space

__version__ = "0.1.0"

__all__ = [
    "BYTES_PER_TOKEN",
    "CLASSES",
    "DEFAULT_CAP_TOKENS",
    "ContextBuild",
    "ContextBuilder",
    "InvalidArgumentError",
    "LedgerContextError",
    "Problem",
    "Settings",
    "SpaceNotFoundError",
    "__version__",
    "build_context",
    "find_space",
    "make_settings",
    "tokens",
]

"""Spec §1's units: one token is 4 UTF-8 bytes, the cap is 6000 tokens (ADR-0028).

Here, below the reader and the pack, so that settings, budget and every readout take the
numbers from one place without importing each other.
"""

from __future__ import annotations

__all__ = ["BYTES_PER_TOKEN", "DEFAULT_CAP_TOKENS", "MAX_CAP_TOKENS", "tokens"]

BYTES_PER_TOKEN = 4
"""ADR-0028: one token is 4 UTF-8 bytes of the whole pack, rounded up once."""

DEFAULT_CAP_TOKENS = 6000
"""ADR-0028's cap, in tokens (24000 bytes)."""

MAX_CAP_TOKENS = 1_000_000_000
"""The largest cap accepted, in tokens: far above any context window, and exact as a
JSON number in every client."""


def tokens(byte_count: int) -> int:
    """Tokens of a text of ``byte_count`` UTF-8 bytes: ``ceil(bytes / 4)`` (ADR-0028)."""
    return -(-byte_count // BYTES_PER_TOKEN)

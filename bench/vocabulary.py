"""A Zipf-like vocabulary of made-up words and titles that name a subject, shared by the
generated ledgers whose text search is measured on (``search.py``, ``long_ledgers.py``).

Real prose has a few very common words and a long tail of rare ones; a document's title
names what it is about with words of that tail. A generator with a small fixed word list
makes every title and body a near copy of many others, which no ranking can tell apart.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass

_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "xe", "zu", "pra", "sten", "qua", "dor", "fel")

HEAD_WORDS = 100
"""The vocabulary's most frequent words, the function words of its text: few in titles."""


@dataclass(frozen=True)
class Vocabulary:
    """Words sorted by name, the ``n``-th drawn with weight ``1 / (n + 1)``."""

    words: list[str]
    cumulative: list[float]

    def draw(self, rng: random.Random, k: int) -> list[str]:
        """``k`` words drawn with their frequencies."""
        return rng.choices(self.words, cum_weights=self.cumulative, k=k)

    def title(self, rng: random.Random) -> tuple[str, list[str]]:
        """A title of 4-7 words and its subject words: each word is, one time in four, one
        of the :data:`HEAD_WORDS` (like "the", "for"), else a word of the rest of the
        vocabulary drawn with its frequency (a real title names what the document is about)."""
        words, subject = [], []
        head, head_weights = self.words[:HEAD_WORDS], self.cumulative[:HEAD_WORDS]
        head_total = head_weights[-1]
        for _ in range(rng.randint(4, 7)):
            if rng.random() < 0.25:
                words.append(rng.choices(head, cum_weights=head_weights)[0])
            else:
                at = bisect.bisect_left(self.cumulative, rng.uniform(head_total, self.cumulative[-1]))
                words.append(self.words[min(at, len(self.words) - 1)])
                subject.append(words[-1])
        return " ".join(words).capitalize(), subject


def vocabulary(rng: random.Random, size: int) -> Vocabulary:
    """``size`` distinct words of 2-4 syllables, drawn with ``rng``."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    ordered = sorted(words)
    return Vocabulary(ordered, list(itertools.accumulate(1.0 / (rank + 1) for rank in range(size))))

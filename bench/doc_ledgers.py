"""Documentation-site ledgers: frontmatter shaped like real doc pages, BOMs, CRLF, many warnings.

Issue 29 mapped real public documentation, proposal and blog repositories into ledgers;
these generated ledgers have their shapes, so the quick YAML path's hit rate and whole
``pack`` processes can be measured on them without keeping the corpora. A ledger has
``documents`` ``.md`` files: ``agents.md``, the 6 harnesses and 6 evals of the other
ledgers, then findings (60 %), decisions (30 %) and experiments (10 %), each one page of
one of three **sites**:

* ``reference`` (PowerShell-Docs, Microsoft Learn): ``external help file``, ``Locale``,
  ``Module Name``, ``ms.date: 02/10/2026``, ``online version`` (a URL with a query),
  ``schema: 2.0.0``, a ``description`` continued on an indented line, ``ms.topic``, ...;
  written with CRLF line ends, and one in three with a byte order mark;
* ``guide`` (Hugo, Astro, react.dev): ``date`` as a timestamp, ``draft: false``,
  ``weight``, flow ``tags``, a block list of ``aliases``, nested ``sidebar:``/``menu:``
  mappings, a folded ``description: >-`` now and then, quoted titles holding ``: ``;
* ``proposal`` (EIPs, RFCs): ``eip: 1559``, ``author: Name <mail>, Name (@handle)``,
  ``discussions-to`` (a URL), ``type: Standards Track``, ``requires: 155, 2718``,
  ``created`` as an ISO date.

Each frontmatter has 10 to 20 keys besides ``status`` and ``updated_at``. ``updated_at``
is an ISO date or time (55 %), a US date ``MM/DD/YYYY`` (35 %) or absent (10 %), and one
status in four is not one the kind selects, so ``check`` reports thousands of warnings on
a 10,000-document ledger, as on the real ones. One page in 250 gives a key twice. Bodies
are the long-body ledgers' Markdown, 2 to 30 KB.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import ledgers
from ledgers import AGENTS_MD, EVALS, HARNESSES
from long_ledgers import _WORDS, _body, _pool, _sentence
from spaces import cached_space

DOC_GENERATOR_VERSION = 2
"""Bump whenever this generator changes what it writes: older ledgers are regenerated."""

SITES = ("reference", "guide", "proposal")
KINDS = (("finding", "findings", 60), ("decision", "decisions", 30), ("experiment", "experiments", 10))
STATUSES = {
    "finding": (("current", 75), ("draft", 15), ("superseded", 10)),
    "decision": (("accepted", 75), ("proposed", 15), ("rejected", 10)),
    "experiment": (("done", 80), ("running", 20)),
}
MIN_KEYS, MAX_KEYS = 10, 20
FIXED_DOCUMENTS = 1 + len(HARNESSES) + len(EVALS)


@dataclass(frozen=True)
class DocSpace:
    """A generated documentation-site ledger and what the generator wrote."""

    path: Path
    documents: int
    files: int
    bytes: int
    crlf: int
    bom: int
    ready_at: float

    @property
    def name(self) -> str:
        return f"docs-{self.documents}"


def _us_date(rng: random.Random) -> str:
    return f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(2019, 2026)}"


def _iso_date(rng: random.Random) -> str:
    return f"{rng.randint(2019, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _prose(rng: random.Random) -> str:
    """A sentence for a frontmatter value: no inline code (a plain scalar cannot start with a backtick)."""
    return _sentence(rng).replace("`", "")


def _words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choices(_WORDS, k=rng.randint(low, high)))


def _title(rng: random.Random) -> str:
    text = _words(rng, 2, 6).title()
    style = rng.random()
    if style < 0.15:  # a colon inside a title: real sites quote it
        return f'"{text}: {_words(rng, 1, 3)}"'
    if style < 0.25:
        return f"'It''s {text.lower()}'"
    if style < 0.35:
        return f"{text} (C# and .NET 8)"
    return text


def _reference_keys(rng: random.Random) -> list[str]:
    module = f"Microsoft.PowerShell.{rng.choice(('Utility', 'Management', 'Core', 'Security'))}"
    verb = rng.choice(("Add", "Get", "Set", "New", "Remove", "Invoke"))
    noun = rng.choice(("Member", "Item", "Content", "Process", "Service", "Location"))
    keys = [
        f"external help file: {module}.dll-Help.xml",
        "Locale: en-US",
        f"Module Name: {module}",
        f"ms.date: {_us_date(rng)}",
        f"online version: https://learn.microsoft.com/powershell/module/{module.lower()}/"
        f"{verb.lower()}-{noun.lower()}?view=powershell-7.4&WT.mc_id=ps-gethelp",
        "schema: 2.0.0",
        f"title: {verb}-{noun}",
        f"description: {_prose(rng)[:70]}",
    ]
    if rng.random() < 0.5:  # a description continued on the next line, as the real pages wrap it
        keys[-1] += "\n  " + _words(rng, 3, 9) + "."
    optional = [
        f"ms.topic: {rng.choice(('reference', 'conceptual', 'how-to'))}",
        f"ms.author: {rng.choice(('sewhee', 'mirobb', 'jasonh'))}",
        "ms.custom: " + rng.choice(("", "devx-track-azurepowershell", "sfi-image-nochange")),
        f"ms.assetid: {rng.getrandbits(128):032x}",
        f"Download Help Link: https://aka.ms/powershell74-help#{noun.lower()}",
        f"Help Version: 7.4.{rng.randint(0, 9)}.0",
        f"keywords: powershell, cmdlet, {verb.lower()}, {noun.lower()}",
        f"aliases: [{verb[0].lower()}{noun[:2].lower()}]",
        f"ms.service: {rng.choice(('powershell', 'azure-powershell'))}",
    ]
    return keys + rng.sample(optional, rng.randint(2, len(optional)))


def _guide_keys(rng: random.Random) -> list[str]:
    keys = [
        f"title: {_title(rng)}",
        f"linkTitle: {_words(rng, 1, 3)}",
        f"date: {_iso_date(rng)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00"
        + rng.choice(("Z", "+02:00", "-07:00", ".000Z")),
        f"draft: {rng.choice(('false', 'true', 'false'))}",
        f"weight: {rng.randint(1, 400)}",
        f"tags: [{', '.join(rng.sample(_WORDS, rng.randint(1, 4)))}]",
    ]
    if rng.random() < 0.3:
        keys.append("description: >-\n  " + _prose(rng) + "\n  " + _words(rng, 3, 10) + ".")
    else:
        keys.append(f"description: {_prose(rng)}")
    optional = [
        "aliases:\n" + "\n".join(f"  - /docs/{rng.choice(_WORDS)}/{n}/" for n in range(rng.randint(1, 3))),
        f"sidebar:\n  label: {_words(rng, 1, 3)}\n  order: {rng.randint(1, 30)}",
        f"menu:\n  docs:\n    parent: {rng.choice(_WORDS)}\n    weight: {rng.randint(1, 90)}",
        f"i18nReady: {rng.choice(('true', 'false'))}",
        f"github_url: https://github.com/withastro/docs/blob/main/src/{rng.choice(_WORDS)}.mdx",
        f"categories: [{rng.choice(('content-management', 'functions', 'getting-started'))}]",
        f"keywords: [{rng.choice(_WORDS)}, {rng.choice(_WORDS)}]",
        "toc: true",
        f"layout: {rng.choice(('docs', 'blog', 'single'))}",
        f"image: /images/{rng.choice(_WORDS)}-{rng.randint(1, 99)}.png",
        f"canonical: https://example.org/{rng.choice(_WORDS)}#section-{rng.randint(1, 9)}",
        f"version: '{rng.randint(0, 3)}.{rng.randint(0, 99)}'",
    ]
    return keys + rng.sample(optional, rng.randint(3, len(optional)))


def _proposal_keys(rng: random.Random) -> list[str]:
    number = rng.randint(1, 7999)
    keys = [
        f"eip: {number}",
        f"title: {_title(rng)}",
        f"description: {_prose(rng)[:90]}",
        "author: Vitalik Buterin (@vbuterin), Martin Becze <mb@ethereum.org>, Hudson Jameson (@hudson)",
        f"discussions-to: https://ethereum-magicians.org/t/eip-{number}-{rng.choice(_WORDS)}/"
        f"{rng.randint(1000, 20000)}",
        f"type: {rng.choice(('Standards Track', 'Meta', 'Informational'))}",
        f"created: {_iso_date(rng)}",
    ]
    optional = [
        f"category: {rng.choice(('Core', 'ERC', 'Networking', 'Interface'))}",
        f"requires: {rng.randint(1, 999)}, {rng.randint(1000, 4000)}",
        f"start-date: {_iso_date(rng)}",
        f"rfc-pr: https://github.com/emberjs/rfcs/pull/{rng.randint(1, 999)}",
        "shepherd-team: (find a buddy later to help out with the RFC)",
        f"last-call-deadline: {_iso_date(rng)}",
        "co-authors: [Alice <alice@example.org>, Bob]",
        f"related-issue: '#{rng.randint(1, 9999)}'",
        f"withdrawal-reason: {_words(rng, 4, 10)}",
        f"stage: {rng.choice(('accepted', 'ready-for-release', 'released'))}",
    ]
    return keys + rng.sample(optional, rng.randint(3, len(optional)))


_SITE_KEYS = {"reference": _reference_keys, "guide": _guide_keys, "proposal": _proposal_keys}


def _frontmatter(rng: random.Random, site: str, kind: str) -> tuple[list[str], str]:
    """The frontmatter's entries (some spanning lines) and the page's title for its body."""
    entries = _SITE_KEYS[site](rng)[:MAX_KEYS]
    rng.shuffle(entries)
    style = rng.random()
    if style < 0.55:
        entries.append(f"updated_at: {_iso_date(rng)}" + ("T10:00:00Z" if rng.random() < 0.2 else ""))
    elif style < 0.9:
        entries.append(f"updated_at: {_us_date(rng)}")
    entries.insert(rng.randrange(len(entries) + 1), f"status: {ledgers.pick(rng, STATUSES[kind])}")
    if rng.random() < 0.004:  # a key given twice: reported, its last value kept
        entries.append(rng.choice(entries).split("\n")[0])
    if rng.random() < 0.05:
        entries.insert(rng.randrange(len(entries)), "# generated from the site's metadata")
    if site == "guide" and rng.random() < 0.15:  # a blank line between groups of keys
        entries.insert(rng.randrange(1, len(entries)), "")
    if rng.random() < 0.1:
        entries.append("summary: |\n  " + _prose(rng) + "\n  " + _words(rng, 2, 8) + ".")
    if rng.random() < 0.02:
        entries.append(r'note: "Use \"quotes\" and a backslash \\ here"')
    if rng.random() < 0.03:  # trailing blanks, a tab among them, as editors leave them
        at = rng.randrange(len(entries))
        if entries[at][-1:].isalnum():  # after a ":" or a block header a tab would be an error
            entries[at] += rng.choice(("  ", "\t", " \t "))
    title = next((e[7:] for e in entries if e.startswith("title: ")), "Page").strip("'\"")
    return entries, title


def _write(space: Path, documents: int, seed: str) -> dict[str, int]:
    rng = random.Random(seed)
    pool = _pool(rng)
    ledger = space / ".ledger"
    texts: list[tuple[str, str]] = [("agents.md", AGENTS_MD)]
    for number, (slug, title, status) in enumerate(HARNESSES):
        texts.append((f"harnesses/{slug}.md", ledgers.harness_text(slug, title, status, number)))
    for number, (slug, title, status, metrics) in enumerate(EVALS):
        texts.append((f"evals/{slug}.md", ledgers.eval_text(slug, title, status, metrics, number)))
    counts = {"files": 0, "bytes": 0, "crlf": 0, "bom": 0}
    for rel, text in texts:
        counts["bytes"] += _write_file(ledger / rel, text.encode("utf-8"))
    rest = documents - FIXED_DOCUMENTS
    kinds = [kind for kind, _, share in KINDS for _ in range(share)]
    folders = {kind: folder for kind, folder, _ in KINDS}
    for index in range(rest):
        kind, site = kinds[index % len(kinds)], SITES[rng.randrange(len(SITES))]
        entries, title = _frontmatter(rng, site, kind)
        text = "---\n" + "\n".join(entries) + "\n---\n\n" + _body(rng, pool, title, index, "none")
        data = text.encode("utf-8")
        if site == "reference":
            data = data.replace(b"\n", b"\r\n")
            counts["crlf"] += 1
            if rng.random() < 1 / 3:
                data = b"\xef\xbb\xbf" + data
                counts["bom"] += 1
        slug = f"{site}-{index:06d}-{rng.choice(_WORDS)}"
        counts["bytes"] += _write_file(ledger / folders[kind] / site / f"{slug}.md", data)
    counts["files"] = len(texts) + rest
    return counts


def _write_file(path: Path, data: bytes) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def generate_doc_space(spaces_dir: Path, documents: int) -> DocSpace:
    """The documentation-site ledger of ``documents`` documents under ``spaces_dir``, generated if needed."""
    if documents < FIXED_DOCUMENTS + 1:
        raise ValueError(f"a documentation-site ledger needs at least {FIXED_DOCUMENTS + 1} documents")
    seed = f"ledger-context docs bench v{DOC_GENERATOR_VERSION} {documents}"
    params = {"doc_generator_version": DOC_GENERATOR_VERSION, "documents": documents}
    path, info, ready_at = cached_space(
        spaces_dir, f"docs-{documents}", params, lambda staging: _write(staging, documents, seed)
    )
    return DocSpace(path, documents, info["files"], info["bytes"], info["crlf"], info["bom"], ready_at)

#!/usr/bin/env python3
"""The catalogue's own footprint, over stdio (issue 25): ``tools/list`` plus the
instructions, and the part a client puts before the model, against their budgets
(``mcp/catalogue.py``; ``tests/mcp/test_catalogue.py`` fails above them). Bytes of compact
JSON as sent; tokens by the pack's rule (4 bytes a token), and by a measured tokenizer
when the package has one. Run alone: ``python bench/catalogue.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ledger_context.mcp.catalogue import (
    CATALOGUE_BUDGET,
    MODEL_FACING_BUDGET,
    CatalogueSize,
    catalogue_size,
    compact_json,
)
from ledger_context.pack.measure import count_with

DEMO = Path(__file__).resolve().parents[1] / "ledger_fixtures" / "demo"
_MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _session(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answers of one server over stdio to ``requests`` (each with an id)."""
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run(
        [sys.executable, "-m", "ledger_context", "serve", "--space", str(DEMO), "--log-level", "warning"],
        input=lines.encode("utf-8"),
        capture_output=True,
        check=True,
        timeout=60,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [a for a in answers if "id" in a]


MEASURED = "o200k_base"
"""The tokenizer the report counts the catalogue with (spec §9: beside the rule, never instead)."""


def measure() -> dict[str, tuple[CatalogueSize, int | None, int | None]]:
    """The figures in each protocol generation, with the measured tokens of the catalogue
    and of its model-facing part (``None``: the tokenizer cannot be loaded)."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    legacy = _session([init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, _list(2)])
    modern = _session([_list(1, _MODERN_META)])
    instructions = legacy[0]["result"]["instructions"]
    return {
        "2025-11-25": _figures(legacy[1]["result"], instructions),
        "2026-07-28": _figures(modern[0]["result"], instructions),
    }


def _figures(listed: dict[str, Any], instructions: str) -> tuple[CatalogueSize, int | None, int | None]:
    facing = "".join(
        t["name"] + t.get("description", "") + compact_json(t["inputSchema"]) for t in listed["tools"]
    )
    whole = count_with(MEASURED, compact_json(listed) + instructions)
    return catalogue_size(listed, instructions), whole, count_with(MEASURED, facing + instructions)


def _list(request_id: int, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}
    if meta is not None:
        request["params"] = {"_meta": meta}
    return request


def catalogue_lines(figures: dict[str, tuple[CatalogueSize, int | None, int | None]]) -> list[str]:
    """The report's section: one row per protocol generation."""
    lines = [
        "## Catalogue (tools/list + instructions, over stdio)",
        "",
        f"Budgets: {CATALOGUE_BUDGET:,} bytes in all, {MODEL_FACING_BUDGET:,} bytes model-facing "
        "(names, descriptions, input schemas, instructions). Tokens by the rule (4 bytes a token), "
        f"then measured by {MEASURED}.",
        "",
        "| protocol | tools/list + instructions | headroom | model-facing | headroom | output schemas |",
        "|---|---|---|---|---|---|",
    ]
    for protocol, (size, whole, facing) in figures.items():
        lines.append(
            f"| {protocol} | {size.total:,} B ({_tokens(size.total, whole)}) | "
            f"{CATALOGUE_BUDGET - size.total:,} B | {size.model_facing:,} B "
            f"({_tokens(size.model_facing, facing)}) | {MODEL_FACING_BUDGET - size.model_facing:,} B | "
            f"{size.output_schemas:,} B |"
        )
    return lines


def _tokens(size: int, measured: int | None) -> str:
    counted = "not measured" if measured is None else f"{measured:,} measured"
    return f"{-(-size // 4):,} tokens by the rule, {counted}"


if __name__ == "__main__":
    print("\n".join(catalogue_lines(measure())))

"""The budget as one self-contained HTML page (issue 15): for ``explain --html`` and
the MCP Apps view of ``explain_budget``.

One template serves both. The file carries the full explanation inside the page; the
Apps view carries none and renders the tool result the host posts to it. The page loads
nothing: no external script, style, font or image, and its CSP forbids connections.
"""

from __future__ import annotations

import json
from importlib.resources import files

from .breakdown import Explanation, explanation_data

_MARK = "__EXPLANATION__"


def _template() -> str:
    return files("ledger_context.explain").joinpath("templates/budget_page.html").read_text(encoding="utf-8")


def _script_json(data: object) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` can end it or
    open a comment, and U+2028/U+2029 are escaped too."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, escape in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


def budget_page(explanation: Explanation) -> str:
    """The page showing ``explanation`` (a full one, so the table lists every block)."""
    return _template().replace(_MARK, _script_json(explanation_data(explanation)), 1)


def budget_view() -> str:
    """The MCP Apps view: the same page, waiting for a tool result over postMessage."""
    return _template().replace(_MARK, "null", 1)

"""The MCP Apps view of ``explain_budget`` (issue 15), through the SDK's ``mcp.server.apps``.

The view is the budget page (:mod:`~ledger_context.explain.page`) served as the ``ui://``
resource :data:`VIEW_URI` (``text/html;profile=mcp-app``); ``explain_budget`` points at
it in ``_meta.ui.resourceUri``. Hosts without Apps ignore both and read the text result,
which stays complete.
"""

from __future__ import annotations

from typing import Any

from mcp.server.apps import Apps

from ..explain.page import budget_view

VIEW_URI = "ui://ledger-context/explain-budget.html"

VIEW_META: dict[str, Any] = {"ui": {"resourceUri": VIEW_URI}}
"""``_meta`` of the ``explain_budget`` tool: the view that renders its results."""


def budget_apps() -> Apps:
    """The Apps extension holding the view; pass it to ``MCPServer(extensions=[...])``."""
    apps = Apps()
    apps.add_html_resource(
        VIEW_URI,
        budget_view(),
        name="explain-budget-view",
        title="Context pack budget",
        description="Interactive view of explain_budget: the cap split by group, every block, "
        "the data classes and what the ceiling withheld",
        prefers_border=True,
    )
    return apps

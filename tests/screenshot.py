"""Write docs/explain-budget.png: the demo ledger's budget page (``make screenshot``)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import chromium
from ledger_context import build_context
from ledger_context.explain.full import explain
from ledger_context.explain.page import budget_page

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    out = REPO / "docs" / "explain-budget.png"
    # Relative to the repository, so the page shows "ledger_fixtures/demo" on every machine.
    os.chdir(REPO)
    page_html = budget_page(
        explain(build_context(Path("ledger_fixtures/demo"), max_data_class="internal"), "full")
    )
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "demo.html"
        file.write_text(page_html, encoding="utf-8")
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1100, "height": 900}, device_scale_factor=1)
            page.goto(file.as_uri())
            page.screenshot(path=str(out), full_page=False)
    print(f"wrote {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()

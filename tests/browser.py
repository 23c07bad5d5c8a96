"""Headless Debian chromium driven by Playwright (issue 15): no browser download, no network.

``make browser`` installs ``/usr/bin/chromium`` (``apt-get install chromium``); without it
the browser tests skip, and fail under CI (issue 23). ``LEDGER_CONTEXT_CHROMIUM`` names
another executable (or a missing one, to check the skip).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

CHROMIUM = Path(os.environ.get("LEDGER_CONTEXT_CHROMIUM") or "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


@contextmanager
def chromium() -> Iterator[Browser]:
    """The system chromium, headless; fails with the command to run if it is missing."""
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is missing: run 'make browser' (apt-get install -y chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()

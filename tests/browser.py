"""Headless Debian chromium driven by Playwright (issue 15): no browser download, no network.

``make test`` installs ``/usr/bin/chromium`` (``apt-get install chromium``) when it is
missing, so the browser tests never skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
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
        raise RuntimeError("chromium is missing: run 'apt-get install -y chromium' (or 'make browser')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()

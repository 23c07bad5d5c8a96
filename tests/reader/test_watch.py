"""The watcher: ready, then a change soon after an edit, a heartbeat when nothing happens,
and polling or the heartbeat alone when file events cannot be had."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from ledger_context.reader import watch
from ledger_context.reader.watch import ledger_changes

pytestmark = pytest.mark.anyio


async def test_a_change_is_reported_soon_after_the_edit(tmp_path: Path) -> None:
    changes = ledger_changes(tmp_path, heartbeat=60)
    with anyio.fail_after(5):
        assert await anext(changes) == "ready"
        started = time.monotonic()
        (tmp_path / "a.md").write_text("x", encoding="utf-8")
        assert await anext(changes) == "change"
    assert time.monotonic() - started < 2  # a generous bound: it takes about 0.1 s
    await changes.aclose()


async def test_a_heartbeat_comes_when_nothing_changes(tmp_path: Path) -> None:
    changes = ledger_changes(tmp_path, heartbeat=0.3)
    with anyio.fail_after(5):
        assert [await anext(changes) for _ in range(3)] == ["ready", "heartbeat", "heartbeat"]
    await changes.aclose()


def _failing_events(fail_polling: bool) -> Any:
    real = watch.awatch

    def awatch(*args: Any, force_polling: bool, **kwargs: Any) -> AsyncIterator[Any]:
        if not force_polling or fail_polling:
            raise OSError(28, "inotify watch limit reached")
        return real(*args, force_polling=force_polling, **kwargs)

    return awatch


async def test_without_file_events_it_polls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(watch, "awatch", _failing_events(fail_polling=False))
    changes = ledger_changes(tmp_path, heartbeat=60)
    with anyio.fail_after(5):
        assert await anext(changes) == "ready"
        (tmp_path / "a.md").write_text("x", encoding="utf-8")
        assert await anext(changes) == "change"
    await changes.aclose()
    assert "by file events failed ([Errno 28] inotify watch limit reached)" in caplog.text


async def test_without_any_watcher_the_heartbeat_still_comes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(watch, "awatch", _failing_events(fail_polling=True))
    changes = ledger_changes(tmp_path, heartbeat=0.2)
    with anyio.fail_after(5):
        assert [await anext(changes) for _ in range(2)] == ["ready", "heartbeat"]
    await changes.aclose()
    assert "by polling failed" in caplog.text
    assert "only the 0.2 s heartbeat will notice changes" in caplog.text

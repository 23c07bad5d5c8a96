"""Issue 15: the budget page, as a file and as the MCP Apps view, in a real headless chromium.

The browser is Debian's ``/usr/bin/chromium`` (``make browser`` installs it; without it these
tests skip, and fail under CI); no request may leave the page.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route

from browser import CHROMIUM, chromium
from conftest import FIXTURES, Files, doc, require
from ledger_context import build_context
from ledger_context.cli import main
from ledger_context.explain.breakdown import explanation_data
from ledger_context.explain.full import explain
from ledger_context.explain.page import budget_page, budget_view
from ledger_context.explain.readout import brief_readout

Ledger = Callable[[Files], Path]
EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require(CHROMIUM.is_file(), f"headless chromium at {CHROMIUM}", "browser")
    with chromium() as b:
        yield b


def _figures(page: Page) -> dict[str, object]:
    return page.evaluate(
        """() => ({
            groups: [...document.querySelectorAll('#bar .seg.group')].map(s => Number(s.dataset.bytes)),
            left: Number(document.querySelector('#bar .seg.left').dataset.bytes),
            sha: document.getElementById('sha256').textContent,
            rows: document.querySelectorAll('#blocks tbody tr').length,
            marks: [...document.querySelectorAll('#lost .mark')].map(m => m.textContent),
        })"""
    )


def test_the_page_escapes_every_path_and_value(ledger: Ledger) -> None:
    name = f"findings/{EVIL.replace('/', '_')}.md"
    space = ledger({name: doc(status="current", updated_at="2026-01-01")})
    page = budget_page(explain(build_context(space), "full"))
    assert page.count("<script") == 2  # the data block and the page's own script
    assert "<img" not in page and "<script>alert" not in page
    assert '"path":".ledger/findings/\\u003cscript\\u003ealert' in page
    view = budget_view()
    assert '<script id="explanation" type="application/json">null</script>' in view


def test_the_file_page_shows_the_pack_and_loads_nothing(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "overflow.html"
    assert main(["explain", "--space", str(FIXTURES / "overflow"), "--html", str(out)]) == 0
    full = explain(build_context(FIXTURES / "overflow"), "full")
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    figures = _figures(page)
    assert sum(figures["groups"]) == full.pack.bytes  # type: ignore[arg-type]
    assert figures["left"] == full.pack.bytes_left
    assert figures["sha"] == full.pack.sha256
    assert figures["rows"] == len(full.blocks)
    assert figures["marks"] == ["decisions: 30 dropped", "experiments: 10 dropped"]
    assert requests == [out.as_uri()]
    # Sorting by bytes, descending, puts the largest block first.
    page.click("th[data-key=bytes]")
    page.click("th[data-key=bytes]")
    first = page.locator("#blocks tbody tr").first.locator("td.num").nth(1).text_content()
    assert first == str(max(b.bytes for b in full.blocks))
    shot = page.screenshot()
    colours = page.evaluate(
        """async (png) => {
            const img = new Image(); img.src = 'data:image/png;base64,' + png; await img.decode();
            const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
            const g = c.getContext('2d'); g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, c.width, c.height).data; const seen = new Set();
            for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
            return seen.size;
        }""",
        base64.b64encode(shot).decode(),
    )
    assert colours > 20  # not blank: text, bar colours and table lines


def test_a_path_with_markup_is_shown_as_text(browser: Browser, ledger: Ledger, tmp_path: Path) -> None:
    name = f"findings/{EVIL.replace('/', '_')}.md"
    space = ledger({name: doc(status="current", updated_at="2026-01-01"), "agents.md": "Hi.\n"})
    out = tmp_path / "evil.html"
    out.write_text(budget_page(explain(build_context(space), "full")), encoding="utf-8")
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    cells = page.locator("#blocks td.path").all_text_contents()
    assert f".ledger/{name}" in cells
    assert page.locator("img").count() == 0 and dialogs == [] and requests == [out.as_uri()]


def _open(browser: Browser, tmp_path: Path, build: object, width: int = 1000) -> Page:
    out = tmp_path / "page.html"
    out.write_text(budget_page(explain(build, "full")), encoding="utf-8")  # type: ignore[arg-type]
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(out.as_uri())
    return page


def test_the_table_filters_rows_by_outcome(browser: Browser, tmp_path: Path) -> None:
    # Issue 23: thousands of rows need a filter; withheld sources are rows too.
    build = build_context(FIXTURES / "demo", cap_tokens=2500, max_data_class="internal")
    full = explain(build, "full")
    expected = {o: sum(b.outcome == o for b in full.blocks) for o in ("kept", "truncated", "dropped")}
    expected["withheld"] = full.classification.withheld_count
    assert expected["dropped"] > 0 and expected["withheld"] == 4
    page = _open(browser, tmp_path, build)
    options = page.locator("#filter option").all_text_contents()
    total = len(full.blocks) + expected["withheld"]
    assert options == [f"all ({total})"] + [f"{o} ({n})" for o, n in expected.items() if n]
    for outcome, count in expected.items():
        if not count:
            continue
        page.select_option("#filter", outcome)
        shown = page.locator("#blocks tbody td.outcome").all_text_contents()
        assert shown == [outcome] * count
        assert page.locator("#shown").text_content() == f"{count} of {total} rows"
    withheld = page.locator("#blocks tbody td.path").all_text_contents()
    assert sorted(withheld) == sorted(w.path for w in full.classification.withheld)
    page.select_option("#filter", "all")
    assert page.locator("#blocks tbody tr").count() == total


def test_a_long_path_wraps_only_after_a_slash(browser: Browser, ledger: Ledger, tmp_path: Path) -> None:
    # Issue 23: word-break: break-all cut names anywhere, hyphens or not.
    name = "findings/2026-11/retriever-undercalls-billing-tickets-after-the-reindex-of-november.md"
    space = ledger({name: doc(status="current", updated_at="2026-01-01"), "agents.md": "Hi.\n"})
    page = _open(browser, tmp_path, build_context(space), width=420)
    cell = page.locator("#blocks td.path", has_text="retriever")
    assert cell.text_content() == f".ledger/{name}"  # copies whole: no character added
    lines = cell.evaluate(
        """td => [...td.querySelectorAll('.name')].map(s => [s.textContent, s.getClientRects().length,
                                                           Math.round(s.getBoundingClientRect().top)])"""
    )
    assert [text for text, _, _ in lines] == [".ledger/", "findings/", "2026-11/", name.rsplit("/", 1)[1]]
    assert all(rects == 1 for _, rects, _ in lines)  # no name is split across lines
    assert len({top for _, _, top in lines}) > 1  # and the path did wrap, after a "/"
    held = _open(browser, tmp_path, build_context(FIXTURES / "demo", max_data_class="internal"), width=700)
    names = held.evaluate(
        "() => [...document.querySelectorAll('#withheld .name')].map(s => s.getClientRects().length)"
    )
    assert len(names) > 4 and set(names) == {1}  # the withheld list too


HOST_URL = "http://host.invalid/"


def _js(value: object) -> str:
    """``value`` as a JavaScript literal safe inside a <script> element."""
    return json.dumps(value).replace("<", "\\u003c")


HOST = """<!DOCTYPE html><html><body>
<iframe id="view" sandbox="allow-scripts" style="width:1000px;height:700px;border:0"></iframe>
<script>
  const frame = document.getElementById('view');
  window.log = [];
  window.addEventListener('message', (event) => {
    const m = event.data; window.log.push(m.method || ('reply ' + m.id));
    const reply = (result) => frame.contentWindow.postMessage({jsonrpc: '2.0', id: m.id, result}, '*');
    if (m.method === 'ui/initialize') reply({protocolVersion: '2026-01-26', hostInfo: {name: 'test', version: '1'},
                                              hostCapabilities: {serverTools: {}}, hostContext: {}});
    if (m.method === 'ui/notifications/initialized')
      frame.contentWindow.postMessage({jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: window.BRIEF}, '*');
    if (m.method === 'tools/call') { window.called = m.params; reply(window.FULL); }
  });
  frame.srcdoc = window.VIEW;
</script></body></html>"""


def test_the_apps_view_renders_the_tool_result_it_is_sent(browser: Browser) -> None:
    full = explain(build_context(FIXTURES / "demo"), "full")
    brief, text = brief_readout(full)
    result = {"content": [{"type": "text", "text": text}], "structuredContent": brief.model_dump(mode="json")}
    full_result = {
        "content": [{"type": "text", "text": "-"}],
        "structuredContent": explanation_data(full),
    }
    page = browser.new_page()
    data = {"VIEW": budget_view(), "BRIEF": result, "FULL": full_result}
    host = HOST.replace(
        "<script>", "<script>" + "".join(f"window.{k} = {_js(v)};" for k, v in data.items()), 1
    )
    left: list[str] = []

    def route(r: Route) -> None:
        if r.request.url == HOST_URL:
            r.fulfill(status=200, content_type="text/html", body=host)
        else:  # anything else would leave the page
            left.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(HOST_URL)
    view = page.frame_locator("#view")
    view.locator("#blocks tbody tr").nth(len(full.blocks) - 1).wait_for(timeout=10_000)
    frame = next(f for f in page.frames if f != page.main_frame)
    figures = _figures(frame)  # type: ignore[arg-type]
    assert sum(figures["groups"]) == full.pack.bytes == brief.pack.bytes  # type: ignore[arg-type]
    assert figures["sha"] == full.pack.sha256
    assert figures["rows"] == len(full.blocks)
    log = page.evaluate("window.log")
    assert log[:2] == ["ui/initialize", "ui/notifications/initialized"]
    assert "ui/notifications/size-changed" in log
    assert page.evaluate("window.called") == {"name": "explain_budget", "arguments": {"detail": "full"}}
    assert left == []


def test_html_to_a_path_that_cannot_be_written_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing" / "page.html"
    assert main(["explain", "--space", str(FIXTURES / "demo"), "--html", str(out)]) != 0
    err = capsys.readouterr().err
    assert err.startswith(f"Error: cannot write {out}") and "Traceback" not in err

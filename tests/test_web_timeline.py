"""The timeline (static/timeline.js) on its own, in headless Chromium: a
test page served from a temporary folder on 127.0.0.1 (with copies of the
packaged timeline.js and app.css) calls drawTimeline on fixture facts: a set
spanning 2019..2022 and one spanning ten days, at desktop and phone width."""

from __future__ import annotations

import functools
import re
import shutil
import threading
from collections.abc import Iterator
from datetime import datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from kronograph.server.web import HEADERS, STATIC  # noqa: E402
from tests.test_web import _FLAGS, SHOTS, _chromium  # noqa: E402

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css">
<link rel="stylesheet" href="/static/page.css">
<script src="/static/timeline.js"></script>
<script src="/static/page.js"></script>
</head><body><main><section><h3>Timeline</h3><div id="tl"></div></section></main></body></html>
"""


def _fact(uuid: str, relation: str, obj: str, valid_at: str, invalid_at: str | None = None, *,
          expired_at: str | None = None, event: bool = False) -> dict[str, Any]:
    return {"uuid": uuid, "subject": "Alice Moreno", "relation": relation, "object": obj,
            "fact": f"Alice Moreno {relation.lower().replace('_', ' ')} {obj}", "valid_at": valid_at,
            "invalid_at": invalid_at, "created_at": valid_at, "expired_at": expired_at, "event": event,
            "episodes": [f"ep-{uuid}"]}


YEARS = [
    _fact("paris", "LIVES_IN", "Paris", "2019-01-01T00:00:00Z", "2022-06-01T00:00:00Z"),
    _fact("berlin", "LIVES_IN", "Berlin", "2022-06-01T00:00:00Z"),
    _fact("acme", "WORKS_AT", "Acme Robotics", "2020-03-01T00:00:00+00:00"),
    _fact("bob", "KNOWS", "Bob Stone", "2021-01-01T00:00:00Z", expired_at="2022-09-01T00:00:00Z"),
    _fact("carol", "MET", "Carol Diaz", "2021-05-01T00:00:00Z", event=True),
    _fact("long", "MEMBER_OF", "The Very Long Name of an International Standards Committee on Temporal Things",
          "2019-09-15T00:00:00Z"),
]
DAYS = [
    _fact("d1", "ATTENDS", "Kickoff workshop", "2024-03-01T09:00:00Z", "2024-03-03T17:00:00Z"),
    _fact("d2", "WORKS_ON", "Release 4.2", "2024-03-02T00:00:00Z"),
    _fact("d3", "MET", "Dana Lee", "2024-03-05T14:30:00Z", event=True),
    _fact("d4", "STAYS_AT", "Hotel Adler", "2024-03-04T00:00:00Z", "2024-03-10T00:00:00Z"),
]

# drawTimeline with a sources callback and an onSelect that records what it was given.
_DRAW = """([facts, asOf]) => {
  window.selected = [];
  drawTimeline(document.getElementById("tl"), facts, {
    asOf: asOf ? new Date(asOf) : null,
    onSelect: (f) => window.selected.push(f.uuid),
    sources: (f) => Promise.resolve([`episode ${f.episodes[0]}: "a note about ${f.object}"`]),
  });
}"""


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("timeline")
    (root / "static").mkdir()
    for name in ("timeline.js", "app.css"):
        shutil.copy(STATIC / name, root / "static" / name)
    (root / "index.html").write_text(_PAGE, encoding="utf-8")
    (root / "static" / "page.css").write_text("main { display: block; }\n", encoding="utf-8")
    (root / "static" / "page.js").write_text(f"window.draw = {_DRAW};\n", encoding="utf-8")

    class Quiet(SimpleHTTPRequestHandler):
        def end_headers(self) -> None:  # the page's own headers: its CSP reports what it would block
            for name, value in HEADERS.items():
                self.send_header(name, value)
            super().end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def page(origin: str) -> Iterator[Page]:
    executable = _chromium()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
        page.goto(origin)
        yield page
        browser.close()


def _svg(page: Page) -> dict[str, Any]:
    return page.evaluate("""() => { const s = document.querySelector("#tl .tl-svg");
      return { unit: s.dataset.unit, start: s.dataset.start, end: s.dataset.end, ppd: Number(s.dataset.pxPerDay),
               width: s.getBoundingClientRect().width }; }""")


def _ticks(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("""() => [...document.querySelectorAll("#tl .tl-tick")].map((t) => {
      const r = t.getBoundingClientRect(); return { text: t.textContent, left: r.left, right: r.right }; })""")


def _assert_ticks_readable(page: Page, pattern: str) -> list[str]:
    ticks = sorted(_ticks(page), key=lambda t: t["left"])
    assert len(ticks) >= 3, ticks
    for a, b in zip(ticks, ticks[1:], strict=False):
        assert a["right"] <= b["left"], f"tick labels overlap: {a} {b}"
    texts = [t["text"] for t in ticks]
    assert all(re.fullmatch(pattern, t) for t in texts), texts
    return texts


def _when(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def test_a_timeline_of_years(page: Page) -> None:
    page.errors.clear()  # type: ignore[attr-defined]
    page.evaluate("(args) => window.draw(args)", [YEARS, None])
    # The axis: quarters or years, none overlapping, hugging 2019..2022 (not stretched to today).
    view = _svg(page)
    assert view["unit"] in ("quarter", "year"), view
    texts = _assert_ticks_readable(page, r"Q[1-4]( \d{4})?|\d{4}")
    assert "2019" in " ".join(texts) and "2022" in " ".join(texts)
    assert _when(view["start"]) > _when("2018-06-01T00:00:00Z")
    assert _when(view["end"]) < _when("2023-03-01T00:00:00Z")  # the last fact ends 2022-09-01
    assert page.locator("#tl .tl-asof").count() == 0  # now (2026) is far from the span: no marker

    # Rows: one per fact; a retired bar is closed, an open one has its arrow, an event is a point.
    assert page.locator("#tl .tl-item").count() == len(YEARS)
    paris = page.locator('#tl .tl-item[data-fact="paris"]')
    assert "tl-retired" in (paris.get_attribute("class") or "")
    assert paris.locator(".tl-cap").count() == 2 and paris.locator(".tl-arrow").count() == 0
    assert paris.locator(".tl-rect").evaluate("r => getComputedStyle(r).strokeDasharray") not in ("", "none")
    bob = page.locator('#tl .tl-item[data-fact="bob"]')  # expired (record superseded): also closed
    assert "tl-retired" in (bob.get_attribute("class") or "") and bob.locator(".tl-cap").count() == 2
    berlin = page.locator('#tl .tl-item[data-fact="berlin"]')
    assert "tl-open" in (berlin.get_attribute("class") or "")
    assert berlin.locator(".tl-arrow").count() == 1 and berlin.locator(".tl-cap").count() == 0
    carol = page.locator('#tl .tl-item[data-fact="carol"]')
    assert "tl-event" in (carol.get_attribute("class") or "")
    assert carol.locator(".tl-diamond").count() == 1 and carol.locator("rect").count() == 0
    for item in page.locator("#tl .tl-item").all():
        assert item.get_attribute("tabindex") == "0" and item.get_attribute("role") == "button"
        assert item.get_attribute("aria-label")
    # A long label is truncated; its title has it in full.
    long = page.locator('#tl .tl-item[data-fact="long"]')
    assert long.locator(".tl-label").text_content().endswith("…")  # type: ignore[union-attr]
    assert "Temporal Things" in (long.locator(".tl-labelbox title").text_content() or "")

    # Hover: the interval, that it is retired, and the source lines.
    tooltip = page.locator("#tl .tl-tooltip")
    paris.locator(".tl-rect").hover()
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text("2019-01-01 → 2022-06-01")
    expect(tooltip).to_contain_text("retired")
    expect(tooltip).to_contain_text('episode ep-paris: "a note about Paris"')
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "timeline-year.png"), full_page=True)
    # Focus (keyboard): an open fact says "since"; Enter selects.
    berlin.focus()
    expect(tooltip).to_contain_text("since 2022-06-01")
    expect(tooltip).to_contain_text("Berlin")
    page.keyboard.press("Enter")
    carol.focus()
    expect(tooltip).to_contain_text("on 2021-05-01")
    page.keyboard.press(" ")
    assert page.evaluate("window.selected") == ["berlin", "carol"]
    paris.click()
    assert page.evaluate("window.selected") == ["berlin", "carol", "paris"]

    # Zoom: in raises the pixels per day, keys zoom and pan the focused timeline, reset restores.
    before = _svg(page)
    page.click("#tl .tl-zoom-in")
    zoomed = _svg(page)
    assert zoomed["ppd"] > before["ppd"] * 1.4
    page.locator('#tl .tl-item[data-fact="carol"]').focus()
    page.keyboard.press("+")
    closer = _svg(page)
    assert closer["ppd"] > zoomed["ppd"] * 1.4
    assert page.evaluate("document.activeElement.dataset.fact") == "carol"  # focus stays on its row
    _assert_ticks_readable(page, r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)( \d{4})?|Q[1-4]( \d{4})?|\d{4}")
    page.keyboard.press("ArrowRight")
    panned = _svg(page)
    assert _when(panned["start"]) > _when(closer["start"]) and panned["ppd"] == pytest.approx(closer["ppd"])
    page.keyboard.press("-")
    assert _svg(page)["ppd"] < panned["ppd"]
    page.click("#tl .tl-zoom-out")
    page.click("#tl .tl-reset")
    assert _svg(page) == before
    # Dragging the plot pans it, and the click that ends a drag selects nothing.
    box = berlin.locator(".tl-rect").bounding_box()
    assert box
    page.mouse.move(box["x"] + 20, box["y"] + 4)
    page.mouse.down()
    page.mouse.move(box["x"] - 100, box["y"] + 4, steps=4)
    page.mouse.up()
    dragged = _svg(page)
    assert _when(dragged["start"]) > _when(before["start"]) and dragged["ppd"] == pytest.approx(before["ppd"])
    assert page.evaluate("window.selected") == ["berlin", "carol", "paris"]
    page.click("#tl .tl-reset")
    # Wheel over the plot zooms too; drawing again (e.g. a new as-of) keeps the window and marks the time.
    page.locator("#tl .tl-plot").hover()
    page.mouse.wheel(0, -300)
    wheeled = _svg(page)
    assert wheeled["ppd"] > before["ppd"]
    page.evaluate("(args) => window.draw(args)", [YEARS, "2021-02-01T00:00:00Z"])
    assert _svg(page) == wheeled
    page.click("#tl .tl-reset")
    marker = page.locator("#tl .tl-asof")
    assert marker.count() == 1 and "as of 2021-02-01" in (marker.text_content() or "")
    assert "tl-live" in (paris.get_attribute("class") or "") and "tl-live" not in (berlin.get_attribute("class") or "")
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_timeline_of_days_and_on_a_phone(page: Page) -> None:
    page.errors.clear()  # type: ignore[attr-defined]
    # Drawn while hidden (as a page may before it shows a view), it redraws to its width once shown.
    page.evaluate("document.querySelector('section').hidden = true")
    page.evaluate("(args) => window.draw(args)", [DAYS, None])
    page.evaluate("document.querySelector('section').hidden = false")
    expect(page.locator("#tl .tl-svg")).to_have_attribute("width", re.compile(r"^1\d{3}(\.\d+)?$"))  # not 640
    view = _svg(page)
    assert view["unit"] in ("day", "week"), view
    _assert_ticks_readable(page, r"\d{1,2} (Feb|Mar)( 2024)?")
    assert _when(view["start"]) > _when("2024-02-25T00:00:00Z") and _when(view["end"]) < _when("2024-03-15T00:00:00Z")
    assert page.locator("#tl .tl-item").count() == len(DAYS)
    page.locator('#tl .tl-item[data-fact="d3"]').focus()
    expect(page.locator("#tl .tl-tooltip")).to_contain_text("on 2024-03-05")
    page.screenshot(path=str(SHOTS / "timeline-days.png"), full_page=True)

    # A phone: the SVG takes the width it has, labels sit above their bars, ticks still readable.
    page.set_viewport_size({"width": 390, "height": 800})
    page.evaluate("(args) => window.draw(args)", [YEARS, None])
    view = _svg(page)
    assert view["width"] <= 390
    _assert_ticks_readable(page, r"Q[1-4]( \d{4})?|\d{4}")
    for item in page.locator("#tl .tl-item").all():
        label = item.locator(".tl-label").bounding_box()
        mark = item.locator(".tl-rect, .tl-diamond").first.bounding_box()
        assert label and mark and label["y"] + label["height"] <= mark["y"] + 1
    page.locator('#tl .tl-item[data-fact="paris"]').focus()
    tooltip = page.locator("#tl .tl-tooltip")
    expect(tooltip).to_contain_text("2019-01-01 → 2022-06-01")
    box = tooltip.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.screenshot(path=str(SHOTS / "timeline-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.errors == []  # type: ignore[attr-defined]

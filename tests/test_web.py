"""The web view in headless Chromium (Debian's, driven by Playwright): load
the page, search, open an entity, move the as-of slider, save a screenshot.
The REST app serves it on 127.0.0.1 over a real socket, in local mode."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kronograph import AsyncMemory

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

SHOTS = Path(__file__).resolve().parent.parent / "build" / "screenshots"
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str:
    """Debian's Chromium, which `make test` installs first (tests/system_packages.sh)."""
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    if os.environ.get("KRONOGRAPH_TEST_NO_BROWSER"):
        pytest.skip("KRONOGRAPH_TEST_NO_BROWSER is set")
    pytest.fail("the web view test needs Debian's chromium: run `make test` as root (it installs it), "
                "or apt-get install chromium, or set KRONOGRAPH_TEST_NO_BROWSER=1 to skip this test")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(memory: AsyncMemory, keys: object, *, local: bool, seed: object) -> Iterator[str]:
    """The service on a free port of 127.0.0.1, in a thread, until the caller is done."""
    import asyncio

    import uvicorn

    from kronograph.server.app import create_app

    port = _free_port()
    app = create_app(memory, keys, local=local)  # type: ignore[arg-type]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))

    def run() -> None:
        async def main() -> None:
            await seed()  # type: ignore[operator]
            await server.serve()

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from kronograph.server.keys import KeyRing

    memory = AsyncMemory(tmp_path_factory.mktemp("web") / "m.db", model=None,
                         relation_types={"LIVES_IN": {"cardinality": "many_to_one"}, "MET": {"event": True}})

    async def seed() -> None:
        await memory.add_fact("team", "Alice Moreno", "LIVES_IN", "Paris", valid_at="2019-01-01")
        await memory.add_fact("team", "Alice Moreno", "LIVES_IN", "Berlin", valid_at="2022-06-01")
        await memory.add_fact("team", "Alice Moreno", "WORKS_AT", "Acme Robotics", valid_at="2020-03-01")
        await memory.add_fact("team", "Alice Moreno", "KNOWS", "Bob Stone", valid_at="2021-01-01")
        await memory.add_fact("team", "Alice Moreno", "MET", "Carol Diaz", valid_at="2021-05-01")  # an event
        await memory.add_fact("other", "Zed", "KNOWS", "Yan")

    yield from _serve(memory, KeyRing(), local=True, seed=seed)


@pytest.fixture(scope="module")
def keyed_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A service with keys (not local): a key of group "team" only."""
    from kronograph.server.keys import KeyRing

    ring = KeyRing()
    _, secret = ring.add("viewer", ["team"])
    memory = AsyncMemory(tmp_path_factory.mktemp("keyed") / "m.db", model=None)

    async def seed() -> None:
        await memory.add_fact("team", "Alice Moreno", "WORKS_AT", "Acme Robotics", valid_at="2020-03-01")
        await memory.add_fact("other", "Zed", "KNOWS", "Yan")

    for url in _serve(memory, ring, local=False, seed=seed):
        yield url, secret


@pytest.fixture(scope="module")
def page(site: str) -> Iterator[Page]:
    executable = _chromium()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=_FLAGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
        page.on("request", lambda r: None if r.url.startswith(site[:-1]) or r.url.startswith("data:")
                else page.errors.append(f"request off-site: {r.url}"))  # type: ignore[attr-defined]
        yield page
        browser.close()


def _texts(page: Page, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_text_contents()]


def test_search_open_an_entity_and_move_through_time(site: str, page: Page) -> None:
    page.errors.clear()  # type: ignore[attr-defined]
    page.goto(site)
    page.wait_for_selector("#group option", state="attached")
    assert _texts(page, "#group option") == ["other", "team"]  # local mode: every group
    page.select_option("#group", "team")
    page.fill("#query", "Alice Moreno")
    page.press("#query", "Enter")
    page.wait_for_selector("#entity-hits a")
    assert "Alice Moreno" in _texts(page, "#entity-hits a")
    page.click("#entity-hits a >> text=Alice Moreno")
    page.wait_for_selector("#timeline .fact")

    # Now: Berlin, Acme, Bob; Paris is a closed (retired) bar; meeting Carol
    # is an event: a diamond on the timeline, not a neighbour that holds now.
    assert page.inner_text("#entity-name") == "Alice Moreno"
    assert sorted(_texts(page, "#graph .neighbour text")) == ["Acme Robotics", "Berlin", "Bob Stone"]
    assert page.locator("#timeline .fact").count() == 5
    retired = page.locator("#timeline .fact.retired")
    assert retired.count() == 1 and "Paris" in retired.text_content()
    assert page.locator("#timeline .fact.retired .cap").count() == 1  # visibly closed
    event = page.locator("#timeline .fact.event")
    assert event.count() == 1 and "Carol Diaz" in event.text_content()
    assert event.locator("path").count() == 1 and event.locator("rect").count() == 0  # a point, not a bar
    assert "on 2021-05-01" in event.locator("title").text_content()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "web-now.png"), full_page=True)

    # Back in early 2020: Paris was home, nothing else held yet.
    span = page.evaluate("[Date.parse('2019-06-01'), state.span]")
    start, end = span[1]
    value = round(1000 * (span[0] - start) / (end - start))
    page.fill("#asof", str(value))
    page.dispatch_event("#asof", "input")
    assert page.inner_text("#asof-label").startswith("2019")
    assert _texts(page, "#graph .neighbour text") == ["Paris"]
    assert page.locator("#timeline .fact.live").count() == 1
    page.screenshot(path=str(SHOTS / "web-2019.png"), full_page=True)
    assert (SHOTS / "web-2019.png").stat().st_size > 10_000

    # A neighbour opens its own view.
    page.click("#graph .neighbour")
    expect(page.locator("#entity-name")).to_have_text("Paris")
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_page_loads_nothing_from_elsewhere(site: str, page: Page) -> None:
    page.errors.clear()  # type: ignore[attr-defined]
    response = page.goto(site)
    assert response is not None and response.ok
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    for asset in ("static/app.js", "static/app.css"):
        r = page.request.get(site + asset)
        assert r.ok and r.headers["content-security-policy"] == csp
    assert page.errors == []  # type: ignore[attr-defined]


def test_without_local_mode_the_page_asks_for_a_key_and_shows_only_its_groups(
    keyed_site: tuple[str, str], page: Page
) -> None:
    url, secret = keyed_site
    page.goto(url)
    expect(page.locator("#status")).to_contain_text("Enter an API key")
    assert page.locator("#group option").count() == 0
    page.fill("#key", secret)
    page.dispatch_event("#key", "change")
    page.wait_for_selector("#group option", state="attached")
    assert _texts(page, "#group option") == ["team"]  # "other" exists, and is not this key's
    page.fill("#query", "Acme")
    page.press("#query", "Enter")
    page.wait_for_selector("#fact-hits li")
    assert "Acme Robotics" in page.inner_text("#fact-hits")

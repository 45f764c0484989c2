"""The web view in headless Chromium (Debian's, driven by Playwright): the
group overview and its links, an episode page, an entity with its as-of
slider, search, the context block and its copy button, hash routes across
reload, back and forward, the key prompt, a phone-width window; screenshots
go to build/screenshots/. The REST app serves it on 127.0.0.1 over a real
socket. One browser page for the module; the checks are grouped into few tests."""

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
        await memory.add_episode("team", "Dana Reyes works at Globex.", reference_time="2023-01-01",
                                 speaker="Dana Reyes")

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
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        page = context.new_page()
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
        page.on("request", lambda r: None if r.url.startswith(site[:-1]) or r.url.startswith("data:")
                else page.errors.append(f"request off-site: {r.url}"))  # type: ignore[attr-defined]
        yield page
        browser.close()


def _texts(page: Page, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_text_contents()]


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    assert (SHOTS / f"{name}.png").stat().st_size > 5_000


def _count(page: Page, key: str) -> str:
    return page.inner_text(f'#counts [data-count="{key}"] dd')


def test_overview_episode_and_entity_pages_with_links_reload_back_and_forward(site: str, page: Page) -> None:
    page.errors.clear()  # type: ignore[attr-defined]
    page.goto(site)
    expect(page).to_have_url(site + "#/g/other")  # the first group's overview is the landing page
    assert _texts(page, "#group option") == ["other", "team"]  # local mode: every group
    page.select_option("#group", "team")
    expect(page).to_have_url(site + "#/g/team")

    # Counts, the latest episodes (what each produced), the most connected entities, the change feed.
    expect(page.locator('#counts [data-count="entities"] dd')).to_have_text("8")
    assert (_count(page, "episodes"), _count(page, "episodes-complete")) == ("6", "6")
    assert (_count(page, "current"), _count(page, "retired"), _count(page, "events")) == ("4", "1", "1")
    assert _count(page, "contradictions") == "0"
    latest = page.locator("#latest-episodes li").first
    assert "Dana Reyes works at Globex." in latest.inner_text()
    expect(latest.locator(".produced")).to_contain_text("1 fact, 2 entities")
    assert _texts(page, "#connected a")[0] == "Alice Moreno"
    kinds = page.locator("#changes li").evaluate_all("items => items.map(i => i.dataset.kind)")
    assert "learned" in kinds and "retired" in kinds
    assert page.locator("#changes li[data-kind=retired]").first.inner_text().count("Paris") == 1
    _shot(page, "overview")

    # An episode: its text, speaker and times, what it produced; reload keeps it.
    latest.locator("a").first.click()
    expect(page.locator("#episode-content")).to_have_text("Dana Reyes works at Globex.")
    assert page.url.startswith(site + "#/g/team/episode/")
    episode_url = page.url
    meta = page.inner_text("#episode-meta")
    assert "Dana Reyes" in meta and "2023-01-01" in meta and "complete" in meta and "message" in meta
    assert "Globex" in page.inner_text("#episode-produced")
    assert sorted(_texts(page, "#episode-entities a")) == ["Dana Reyes", "Globex"]
    _shot(page, "episode")
    page.reload()
    expect(page.locator("#episode-content")).to_have_text("Dana Reyes works at Globex.")
    page.go_back()
    expect(page).to_have_url(site + "#/g/team")
    expect(page.locator("#latest-episodes li").first).to_be_visible()
    page.go_forward()
    expect(page).to_have_url(episode_url)
    expect(page.locator("#episode-content")).to_be_visible()

    # The episode's entity links, then the entity page from the overview's list.
    page.click("#episode-entities a >> text=Globex")
    expect(page.locator("#entity-name")).to_have_text("Globex")
    assert page.inner_text("#entity-summary") != ""  # a count when there is no summary, never blank
    page.go_back()
    page.go_back()
    expect(page).to_have_url(site + "#/g/team")
    page.click("#connected a >> text=Alice Moreno")
    expect(page.locator("#entity-name")).to_have_text("Alice Moreno")
    assert "current fact" in page.inner_text("#entity-summary")
    assert sorted(_texts(page, "#graph .neighbour text")) == ["Acme Robotics", "Berlin", "Bob Stone"]
    assert page.locator("#timeline *").count() > 0  # drawTimeline filled it
    # What the timeline shows on hover: each fact's source episodes, as text.
    lines = page.evaluate("factSources(state.facts.find(f => f.object === 'Paris'))")
    assert len(lines) == 1 and "add_fact" in lines[0] and "(stated 2019-01-01 → open)" in lines[0]
    _shot(page, "entity")

    # The slider: back in mid-2019 only Paris was home; the moment goes in the URL and survives reload.
    start, end = page.evaluate("state.span")
    value = round(1000 * (page.evaluate("Date.parse('2019-06-01')") - start) / (end - start))
    page.fill("#asof", str(value))
    page.dispatch_event("#asof", "input")
    assert page.inner_text("#asof-label").startswith("2019")
    assert _texts(page, "#graph .neighbour text") == ["Paris"]
    assert "?asof=2019-" in page.url
    page.reload()
    expect(page.locator("#asof-label")).to_contain_text("2019")
    assert _texts(page, "#graph .neighbour text") == ["Paris"]
    page.click("#asof-now")
    assert "asof" not in page.url

    # A neighbour is a real link: focus it and press Enter.
    page.focus("#graph .neighbour")
    page.keyboard.press("Enter")
    expect(page.locator("#entity-name")).to_have_text("Acme Robotics")
    assert page.errors == []  # type: ignore[attr-defined]


def test_search_context_block_and_phone_width(site: str, page: Page) -> None:
    page.errors.clear()  # type: ignore[attr-defined]
    page.goto(site + "#/g/team")
    page.fill("#query", "Alice Moreno")
    page.fill("#search-asof", "2019-06-01")
    page.press("#query", "Enter")
    expect(page.locator("#entity-hits a").first).to_be_visible()
    assert "/search?q=Alice%20Moreno&asof=2019-06-01" in page.url
    assert "Alice Moreno" in _texts(page, "#entity-hits a")
    page.reload()
    expect(page.locator("#entity-hits a").first).to_be_visible()
    assert page.input_value("#query") == "Alice Moreno" and page.input_value("#search-asof") == "2019-06-01"

    # The context block, as an agent receives it, and its copy button.
    page.click("#to-context")
    expect(page.locator("#context-text")).to_contain_text("Alice Moreno")
    assert "/context?q=Alice%20Moreno" in page.url
    text = page.inner_text("#context-text")
    page.click("#copy")
    expect(page.locator("#status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == text
    _shot(page, "context")
    page.fill("#context-query", "Dana")
    page.press("#context-query", "Enter")
    expect(page.locator("#context-text")).to_contain_text("Globex")

    # A phone-width window: nothing wider than the screen.
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        page.goto(site + "#/g/team")
        expect(page.locator("#connected a").first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        _shot(page, "phone")
        page.click("#connected a >> text=Alice Moreno")
        expect(page.locator("#entity-name")).to_have_text("Alice Moreno")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_page_loads_nothing_from_elsewhere(site: str, page: Page) -> None:
    page.errors.clear()  # type: ignore[attr-defined]
    response = page.goto(site)
    assert response is not None and response.ok
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    for asset in ("static/app.js", "static/timeline.js", "static/app.css"):
        r = page.request.get(site + asset)
        assert r.ok and r.headers["content-security-policy"] == csp
    assert page.errors == []  # type: ignore[attr-defined]  # and none over the pages of the tests before


def test_the_key_prompt_refuses_a_wrong_key_and_opens_the_overview_with_a_right_one(
    keyed_site: tuple[str, str], page: Page
) -> None:
    url, secret = keyed_site
    page.goto(url + "#/g/team/entity/nope")
    expect(page.locator("#key-form")).to_be_visible()
    assert page.inner_text("#key-error") == "" and page.inner_text("#status") == ""  # a form, not an error
    assert page.locator("#group option").count() == 0
    _shot(page, "keyprompt")
    page.fill("#key", "kg_wrong")
    page.press("#key", "Enter")
    expect(page.locator("#key-error")).to_have_text("That key was refused.")
    assert page.evaluate("sessionStorage.getItem('kronograph-key')") is None
    page.fill("#key", secret)
    page.click("#key-form button")
    expect(page.locator("#key-form")).to_be_hidden()
    page.goto(url)
    expect(page.locator('#counts [data-count="entities"] dd')).to_have_text("2")
    assert _texts(page, "#group option") == ["team"]  # "other" exists, and is not this key's
    assert "kg_" not in page.url and secret not in page.url
    page.fill("#query", "Acme")
    page.press("#query", "Enter")
    expect(page.locator("#fact-hits li").first).to_contain_text("Acme Robotics")

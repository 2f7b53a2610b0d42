"""The memory browser in a real browser: Debian's Chromium, headless, driven by Playwright, against a
real ``caim ui`` process on a free loopback port (``CAIM_AUTH_TOKENS`` naming two users, the scripted
provider, a data dir seeded through ``caim.Memory``).

A person signs in with the keyboard, searches and sees why each hit ranked, opens a memory, corrects
it, forgets one and denies a category; the store is then checked through ``caim.Memory`` (the server
stopped first: one process at a time holds a data dir). A second user's token sees none of the first
user's memories. Every page is written as a PNG screenshot to ``$CAIM_TEST_ARTEFACTS/ui`` (default
``test-artefacts/ui`` under the repository root).

Chromium comes from ``/usr/bin/chromium`` (``CAIM_CHROMIUM`` names another); ``.ci/run`` installs it.
Without it - or without the ``playwright`` package - these tests skip, and fail under
``CAIM_REQUIRE_SERVERS=1`` (``make test``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from caim import Memory
from tests.scripts import SCRIPT
from tests.test_ui import DOCTOR, LISBON, RUNNING, START, record, seed

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CAIM_CHROMIUM", "/usr/bin/chromium")
#: Headless, and nothing fetched from elsewhere (no component updates, sync, QUIC or first-run pages).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TOKENS = {"tok-ann": "ann", "tok-bob": "bob"}
ARTEFACTS = Path(os.environ.get("CAIM_TEST_ARTEFACTS") or ROOT / "test-artefacts") / "ui"
CELLO = "I play the cello in a quartet on Thursdays."
PASTA = "My favourite dish is my grandmother's lasagne."
SEARCH = "Where does my sister Ana live?"
CORRECTED = "My sister Ana lives in Porto now."


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "browser tests: the playwright package is missing (pip install -e '.[dev]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"browser tests: no Chromium at {CHROMIUM} (apt-get install chromium chromium-driver; .ci/run does)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, headless, for the module's tests (each test opens contexts of its own)."""
    why = missing()
    if why:
        if os.environ.get("CAIM_REQUIRE_SERVERS"):
            pytest.fail(why)
        pytest.skip(why)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)  # a shared, busy machine: a first search embeds the ontology too
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A data dir, seeded and checked through ``caim.Memory`` while no server holds it, and the real
    ``caim ui`` process serving it (``start``/``stop``)."""

    def __init__(self, tmp_path: Path, settings: Any, models: Any) -> None:
        self.tmp = tmp_path
        self.settings = settings
        self.models = models
        self.process: subprocess.Popen[bytes] | None = None
        self._memory: Memory | None = None
        self.url = ""

    def memory(self) -> Memory:
        """``caim.Memory`` on the data dir (the server must not be running)."""
        assert self.process is None, "stop the server before opening the data dir"
        if self._memory is None:
            self._memory = Memory(self.settings, models=self.models, background=False)
        return self._memory

    def start(self) -> str:
        """Close the test's memory, start ``caim ui`` on a free loopback port; its base URL."""
        if self._memory is not None:
            self._memory.close()
            self._memory = None
        script = self.tmp / "script.json"
        script.write_text(json.dumps({k: v for k, v in SCRIPT.items() if isinstance(v, str | dict)}))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
        env.update(
            CAIM_PROVIDER="scripted",
            CAIM_SCRIPT=str(script),
            CAIM_DATA_DIR=str(self.settings.data_dir),
            CAIM_AUTH_TOKENS=json.dumps(TOKENS),
        )
        port = free_port()
        self.log = self.tmp / "caim-ui.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "caim.agent.surfaces.cli", "ui", "--host", "127.0.0.1", "--port", str(port)],
                cwd=self.tmp,  # no .env of the repository
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=5) as r:
                    if r.status == 200:
                        return self.url
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"caim ui did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        """Stop the server (as Ctrl+C would) and wait for it."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def close(self) -> None:
        """Stop the server and close the memory."""
        self.stop()
        if self._memory is not None:
            self._memory.close()
            self._memory = None


@pytest.fixture
def served(tmp_path, settings, scripted) -> Iterator[Served]:
    models, _calls, _script = scripted
    s = Served(tmp_path, settings, models)
    yield s
    s.close()


@pytest.fixture
def context(browser) -> Iterator[Any]:
    """A fresh browser context (no cookies), English, a desktop-sized window."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB", accept_downloads=True)
    ctx.set_default_timeout(30_000)
    yield ctx
    ctx.close()


def seed_ann(memory: Memory) -> dict[str, str]:
    """Ann's memories: her sister (family), running and a doctor (health), a dish (food)."""
    lisbon = record("ann", LISBON, ["siblings"], START)
    running = record("ann", RUNNING, ["running", "exercise"], START + timedelta(days=8))
    doctor = record("ann", DOCTOR, ["doctor", "injury"], START + timedelta(days=9), links=[running["id"]])
    pasta = record("ann", PASTA, ["favorite", "recipes"], START + timedelta(days=10))
    seed(memory, "ann", [lisbon, running, doctor, pasta])
    return {"lisbon": lisbon["id"], "running": running["id"], "doctor": doctor["id"], "pasta": pasta["id"]}


def shot(page: Any, name: str) -> Path:
    """A PNG screenshot of the whole page as ``ARTEFACTS/<name>.png`` (a stale file is removed first)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / f"{name}.png"
    path.unlink(missing_ok=True)
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 0 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path
    return path


def sign_in(page: Any, url: str, token: str, name: str | None = None) -> None:
    """Sign in as a person would with the keyboard: the token field has the focus, type the token,
    Tab to the Sign in button, Enter."""
    from playwright.sync_api import expect

    page.goto(f"{url}/ui/")
    expect(page).to_have_url(f"{url}/ui/signin")  # no session: the sign-in page
    expect(page.get_by_label("Token")).to_be_focused()
    if name:
        shot(page, name)
    page.keyboard.type(token)
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Sign in")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{url}/ui/")


def nav(page: Any, name: str) -> None:
    """Follow the main navigation's link ``name``."""
    page.get_by_role("navigation", name="Main").get_by_role("link", name=name, exact=True).click()


def test_sign_in_search_open_a_memory_and_correct_it(served, context):
    from playwright.sync_api import expect

    ids = seed_ann(served.memory())
    job = served.memory().remember([{"role": "user", "content": "I adopted a cat called Miso."}], user_id="ann").job
    url = served.start()
    page = context.new_page()
    sign_in(page, url, "tok-ann", "signin")
    expect(page.get_by_text("Signed in as")).to_contain_text("ann")
    expect(page.get_by_text("4 memories, newest first.")).to_be_visible()
    expect(page.get_by_role("img", name=re.compile("Memories per week"))).to_be_visible()  # the SVG charts
    expect(page.locator("main").get_by_role("link", name=LISBON)).to_be_visible()
    shot(page, "timeline")

    # search: the hits, and why each ranked
    nav(page, "Search")
    page.get_by_label("Search", exact=True).fill(SEARCH)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=re.compile(r"\d+ results"))).to_be_visible()
    first = page.locator("ol.hits > li").first
    expect(first.get_by_role("link")).to_have_text(LISBON)
    expect(first.get_by_role("table", name="Why it ranked")).to_be_visible()
    shown = {s: float(first.locator(f'td[data-signal="{s}"]').inner_text()) for s in ("lexical", "dense", "total")}
    assert shown["lexical"] > 0 and shown["dense"] != 0 and shown["total"] > 0, shown
    shot(page, "search")

    # the memory page, then a correction
    first.get_by_role("link", name=LISBON).click()
    expect(page).to_have_url(f"{url}/ui/memories/{ids['lisbon']}")
    expect(page.locator("blockquote.thought")).to_have_text(LISBON)
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    shot(page, "memory")
    page.get_by_label("Correction").fill(CORRECTED)
    page.get_by_role("button", name="Save correction").click()
    expect(page.get_by_role("status")).to_contain_text("Corrected")
    expect(page.locator("blockquote.thought")).to_have_text(CORRECTED)
    expect(page.locator("table.history")).to_contain_text(LISBON)  # the old version, in its history
    new_id = page.url.split("/ui/memories/")[1].split("?")[0]
    shot(page, "memory-corrected")

    # the other pages: the ontology, a term, your data (with the export), pending sessions
    nav(page, "Ontology")
    expect(page.locator("#term-health > .count")).to_have_text("2")
    shot(page, "ontology")
    page.locator("#term-health > a").click()
    expect(page.get_by_text("2 memories under health.")).to_be_visible()
    shot(page, "term")
    nav(page, "Your data")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download all your memories (JSON)").click()
    exported = json.loads(Path(download.value.path()).read_text())
    assert CORRECTED in {m["thought"] for m in exported["memories"]}
    shot(page, "data")
    nav(page, "Pending")
    expect(page.locator("main table")).to_contain_text(job)
    shot(page, "pending")

    served.stop()
    memory = served.memory()
    old, new = memory.get(ids["lisbon"], user_id="ann"), memory.get(new_id, user_id="ann")
    assert new is not None and new.thought == CORRECTED and new.current
    assert old is not None and not old.current and old.superseded_by == new_id  # kept, closed
    assert {h["record"] for h in memory.history(new_id, user_id="ann")} >= {ids["lisbon"], new_id}
    assert CORRECTED in {h["thought"] for h in memory.search(SEARCH, user_id="ann", k=5)}


def test_forget_a_memory_and_deny_a_category(served, context):
    from playwright.sync_api import expect

    ids = seed_ann(served.memory())
    url = served.start()
    page = context.new_page()
    sign_in(page, url, "tok-ann")

    page.locator("ul.records").get_by_role("link", name=LISBON).click()
    page.get_by_role("button", name="Forget", exact=True).click()
    expect(page).to_have_url(re.compile(rf"^{re.escape(url)}/ui/\?done=forgot"))
    expect(page.get_by_role("status")).to_contain_text("Forgotten")
    expect(page.locator("main")).not_to_contain_text(LISBON)
    shot(page, "timeline-forgotten")

    nav(page, "Ontology")
    expect(page.locator("#term-health > .count")).to_have_text("2")
    page.locator("#term-health > form").get_by_role("button", name="Deny").click()
    expect(page.get_by_role("status")).to_contain_text("Denied: 2 memories under it were forgotten")
    expect(page.locator("#term-health > form .state")).to_have_text("denied by you")
    expect(page.locator("#term-health > .count")).to_have_text("0")
    expect(page.locator("#term-fitness > .state").first).to_have_text("denied by you with health")
    expect(page.locator("#term-food > .count")).to_have_text("1")
    shot(page, "ontology-denied")
    page.locator("#term-health > a").click()
    expect(page.get_by_text("0 memories under health.")).to_be_visible()
    expect(page.get_by_role("button", name="Allow")).to_be_visible()
    shot(page, "term-denied")

    served.stop()
    memory = served.memory()
    assert memory.get(ids["lisbon"], user_id="ann") is None  # forgotten
    assert memory.get(ids["running"], user_id="ann") is None and memory.get(ids["doctor"], user_id="ann") is None
    assert [r.thought for r in memory.list(user_id="ann")] == [PASTA]
    assert memory.denied(user_id="ann") == ["health"]
    assert all(h["id"] == ids["pasta"] for h in memory.search("knee injury doctor running", user_id="ann", k=10))


def test_a_second_users_token_sees_none_of_the_first_users_memories(served, context, browser):
    from playwright.sync_api import expect

    ids = seed_ann(served.memory())
    seed(served.memory(), "bob", [record("bob", CELLO, ["music"], START)])
    url = served.start()
    page = context.new_page()
    page.goto(f"{url}/ui/signin")
    page.get_by_label("Token").fill("tok-nobody")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text("That token is not valid.")
    shot(page, "signin-refused")

    sign_in(page, url, "tok-bob")
    expect(page.get_by_text("Signed in as")).to_contain_text("bob")
    expect(page.get_by_text("1 memories, newest first.")).to_be_visible()
    main = page.locator("main")
    expect(main).to_contain_text(CELLO)
    for thought in (LISBON, RUNNING, DOCTOR, PASTA):
        expect(main).not_to_contain_text(thought)
    shot(page, "bob-timeline")
    page.goto(f"{url}/ui/search?q={SEARCH.replace(' ', '+')}")
    expect(page.get_by_role("heading", name=re.compile(r"\d+ results"))).to_be_visible()
    for thought in (LISBON, RUNNING, DOCTOR, PASTA):
        expect(main).not_to_contain_text(thought)
    shot(page, "bob-search")
    page.goto(f"{url}/ui/ontology")
    expect(page.locator("#term-health > .count")).to_have_text("0")
    response = page.goto(f"{url}/ui/memories/{ids['lisbon']}")
    assert response is not None and response.status == 404
    expect(page.get_by_role("alert")).to_have_text("no such memory")
    shot(page, "bob-not-found")

    # ann, in another browser at the same time, still sees hers
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        ann = other.new_page()
        sign_in(ann, url, "tok-ann")
        expect(ann.locator("main")).to_contain_text(LISBON)
        expect(ann.locator("main")).not_to_contain_text(CELLO)
    finally:
        other.close()

    served.stop()
    memory = served.memory()
    assert len(memory.list(user_id="ann")) == 4 and [r.thought for r in memory.list(user_id="bob")] == [CELLO]

"""The memory browser (``caim ui``, ``/ui`` of ``caim serve``), server side: sign-in and sessions, bearer
tokens, CSRF, every page with the user's data, correct / forget / deny / export / import / pending,
another user's isolation, and bad input as one-line 4xx answers that change nothing."""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime, timedelta

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("multipart")
from fastapi.testclient import TestClient

from caim import Memory
from caim.agent.surfaces.tokens import TokenMap
from caim.agent.surfaces.ui import create_ui_app
from caim.agent.surfaces.ui.app import SIGNAL_WORDS, signal_groups
from caim.agent.surfaces.ui.session import COOKIE
from caim.memory.records import stable_id

TOKENS = {"tok-ann": "ann", "tok-bob": "bob"}
BASE = "http://127.0.0.1"
START = datetime(2024, 3, 4, 9, 0, tzinfo=UTC)  # a Monday

LISBON = "My sister Ana lives in Lisbon."
RUNNING = "I go running by the river every morning."
DOCTOR = "My doctor says my knee injury needs rest."


@pytest.fixture
def memory(settings, scripted):
    models, _calls, _script = scripted
    m = Memory(settings, models=models, background=False)  # queued sessions stay pending
    yield m
    m.close()


def record(user: str, thought: str, tags: list[str], when: datetime, **extra) -> dict:
    rid = stable_id(user, thought, when.isoformat())
    return {
        "id": rid,
        "user_id": user,
        "thought": thought,
        "tags": tags,
        "event_time": when.isoformat(),
        "sources": [{"role": "user", "text": thought, "time": when.isoformat()}],
        "history": [{"at": when.isoformat(), "change": "created", "session_id": "s1"}],
        **extra,
    }


def seed(memory: Memory, user: str, records: list[dict]) -> list[str]:
    """Store records as they are (tags, dates) through the import a user can make too."""
    memory.import_({"format": 1, "user_id": user, "memories": records}, user_id=user)
    return [r["id"] for r in records]


@pytest.fixture
def ann(memory) -> dict[str, str]:
    """Ann's memories: family, running (health/fitness), a doctor (health/medical), linked to each other."""
    lisbon = record("ann", LISBON, ["siblings"], START)
    running = record("ann", RUNNING, ["running", "exercise"], START + timedelta(days=8))
    doctor = record("ann", DOCTOR, ["doctor", "injury"], START + timedelta(days=9), links=[running["id"]])
    running["links"] = [doctor["id"]]
    seed(memory, "ann", [lisbon, running, doctor])
    return {"lisbon": lisbon["id"], "running": running["id"], "doctor": doctor["id"]}


@pytest.fixture
def app(memory):
    return create_ui_app(memory, verify=TOKENS.get)


def client(app) -> TestClient:
    return TestClient(app, base_url=BASE)


def sign_in(app, token: str = "tok-ann") -> tuple[TestClient, str]:
    """A client signed in with ``token`` and the CSRF token of its session."""
    c = client(app)
    r = c.post("/ui/signin", data={"token": token}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return c, csrf_of(c.get("/ui/").text)


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)


def alert(page: str) -> str:
    """The page's one error line."""
    found = re.findall(r'role="alert">(.*?)</p>', page, re.S)
    assert len(found) == 1, page
    assert "\n" not in found[0]
    return html.unescape(found[0])


def thoughts(memory: Memory, user: str = "ann") -> set[str]:
    return {r.thought for r in memory.list(user_id=user)}


# ---- identity --------------------------------------------------------------------------------------------
PAGES = [
    "/ui/",
    "/ui/ontology",
    "/ui/ontology/family",
    "/ui/search?q=Ana",
    "/ui/import",
    "/ui/export",
    "/ui/pending",
    "/ui/profile",
]


@pytest.mark.parametrize("path", [*PAGES, "/ui/memories/abc"])
def test_a_page_without_a_session_redirects_to_sign_in(app, path):
    r = client(app).get(path, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/signin"


def test_an_action_without_a_session_is_401_and_changes_nothing(app, memory, ann):
    c = client(app)
    for path, data in [
        (f"/ui/memories/{ann['lisbon']}/forget", {}),
        ("/ui/forget-all", {"confirm": "yes"}),
        ("/ui/ontology/health/deny", {}),
    ]:
        r = c.post(path, data=data, follow_redirects=False)
        assert r.status_code == 401 and "sign in first" in alert(r.text)
    assert len(thoughts(memory)) == 3 and memory.denied(user_id="ann") == []


def test_sign_in_sets_a_signed_session_cookie_never_the_token(app, ann):
    c = client(app)
    page = c.get("/ui/signin").text
    assert '<label for="token">Token</label>' in page and 'id="token" name="token" type="password"' in page
    bad = c.post("/ui/signin", data={"token": "tok-nobody"}, follow_redirects=False)
    assert bad.status_code == 401 and alert(bad.text) == "That token is not valid."
    assert COOKIE not in c.cookies
    r = c.post("/ui/signin", data={"token": "tok-ann"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/"
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Path=/ui" in cookie and "tok-ann" not in cookie
    assert LISBON in c.get("/ui/").text
    # a forged or tampered session is no session
    value = c.cookies[COOKIE]
    forged = client(app)
    forged.cookies.set(COOKIE, value[:-1] + ("0" if value[-1] != "0" else "1"), path="/ui")
    assert forged.get("/ui/", follow_redirects=False).status_code == 303


def test_sign_out_ends_the_session_even_if_its_cookie_is_replayed(app, ann):
    c, csrf = sign_in(app)
    value = c.cookies[COOKIE]
    r = c.post("/ui/signout", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/signin"
    assert f'{COOKIE}=""' in r.headers["set-cookie"] or "Max-Age=0" in r.headers["set-cookie"]
    replay = client(app)
    replay.cookies.set(COOKIE, value, path="/ui")
    assert replay.get("/ui/", follow_redirects=False).status_code == 303


def test_a_bearer_token_reads_pages_and_acts_without_csrf(app, memory, ann):
    c = client(app)
    r = c.get("/ui/", headers={"Authorization": "Bearer tok-ann"})
    assert r.status_code == 200 and LISBON in r.text
    bad = c.get("/ui/", headers={"Authorization": "Bearer tok-nobody"})
    assert bad.status_code == 401 and "bearer token" in alert(bad.text)
    gone = c.post(
        f"/ui/memories/{ann['lisbon']}/forget", headers={"Authorization": "Bearer tok-ann"}, follow_redirects=False
    )
    assert gone.status_code == 303 and memory.get(ann["lisbon"], user_id="ann") is None


def test_a_post_without_its_sessions_csrf_token_is_403_and_changes_nothing(app, memory, ann):
    c, csrf = sign_in(app)
    _other, other_csrf = sign_in(app, "tok-ann")  # another session of the same user
    target = f"/ui/memories/{ann['lisbon']}/correct"
    for token in ("", "0" * 64, other_csrf):
        r = c.post(target, data={"thought": "My sister Ana lives in Porto.", "csrf": token}, follow_redirects=False)
        assert r.status_code == 403 and "CSRF" in alert(r.text)
    assert thoughts(memory) == {LISBON, RUNNING, DOCTOR}
    ok = c.post(target, data={"thought": "My sister Ana lives in Porto.", "csrf": csrf}, follow_redirects=False)
    assert ok.status_code == 303


# ---- pages ---------------------------------------------------------------------------------------------
def test_every_page_has_a_skip_link_a_main_landmark_and_navigation(app, ann):
    c, _ = sign_in(app)
    for path in [p for p in PAGES if p != "/ui/export"] + [f"/ui/memories/{ann['lisbon']}"]:
        page = c.get(path).text
        assert '<a class="skip" href="#main">Skip to content</a>' in page, path
        assert '<main id="main"' in page and '<nav aria-label="Main">' in page, path
        assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', ""), path


def test_the_timeline_is_paged_by_date_with_weekly_and_category_charts(app, memory):
    records = [
        record("ann", f"Note number {i} about my garden.", ["gardening"], START + timedelta(days=i)) for i in range(60)
    ]
    records.append(record("ann", LISBON, ["siblings"], START + timedelta(days=2, hours=1)))
    seed(memory, "ann", records)
    c, _ = sign_in(app)
    first = c.get("/ui/").text
    assert "61 memories" in first and "Page 1 of 2" in first
    assert first.count('href="/ui/memories/') == 50
    assert "Note number 59 about my garden." in first and "Note number 0 about" not in first  # newest first
    second = c.get("/ui/?page=2").text
    assert second.count('href="/ui/memories/') == 11 and "Note number 0 about my garden." in second
    assert c.get("/ui/?page=3").status_code == 404
    # charts: seven a week (the week of 4 March has the Lisbon memory too), and per category
    assert "<svg" in first and "Memories per week" in first and "Memories per category" in first
    assert "<title>week of 4 Mar 2024: 8</title>" in first and "<title>week of 11 Mar 2024: 7</title>" in first
    assert "<title>personal: 60</title>" in first and "<title>family: 1</title>" in first
    # the weekly chart spans the user's own weeks, from the first memory to the newest, not a year
    weeks = re.findall(r"<title>week of ([^<]+): \d+</title>", first)
    assert len(weeks) == 9 and weeks[0] == "4 Mar 2024" and weeks[-1] == "29 Apr 2024"
    assert "61 memories in the 9 weeks from 4 Mar 2024 to 29 Apr 2024" in first


def test_the_timeline_says_in_words_what_its_labels_mean(app, memory):
    said = record("ann", "I can't stand crowded beaches.", ["travel"], START, kind="raw")
    old = record("ann", "I live in Porto.", ["location"], START, valid_until=(START + timedelta(days=1)).isoformat())
    seed(memory, "ann", [said, old])
    c, _ = sign_in(app)
    page = c.get("/ui/").text
    assert "verbatim" not in page and "superseded" not in page
    assert re.search(
        r"crowded beaches.</a>.*?<span class=\"badge\" title=\"The words as they were said[^>]*>as said</span>",
        page,
        re.S,
    )
    assert re.search(
        r"Porto.</a>.*?<span class=\"badge\" title=\"A newer memory replaced it[^>]*>replaced</span>", page, re.S
    )
    legend = " ".join(page.split('<p class="legend">')[1].split("</p>")[0].split())
    assert "keeps the words themselves, as they were said" in legend and "replaced by a newer memory" in legend


def test_the_weekly_chart_fits_a_new_users_span_and_says_what_it_leaves_out():
    from datetime import date

    from caim.agent.surfaces.ui.charts import MIN_SLOTS, WEEKS, weekly

    one = weekly([(date(2024, 3, 4), 3)])
    assert [b.label for b in one.bars] == ["week of 4 Mar 2024"] and one.bars[0].width <= one.width / MIN_SLOTS
    assert one.description == "3 memories, all in the week of 4 Mar 2024." and one.ticks == [
        (0.0, "week of 4 Mar 2024")
    ]
    two = weekly([(date(2024, 3, 4), 3), (date(2024, 3, 18), 1)])
    assert [b.value for b in two.bars] == [3, 0, 1] and two.bars[0].x < 2  # drawn from the left, not the right edge
    assert two.ticks == [(0.0, "4 Mar 2024 to 18 Mar 2024")]  # one label where two would overlap
    years = weekly([(date(2022, 1, 3), 5), (date(2024, 3, 4), 2)])
    assert len(years.bars) == WEEKS and "5 older memories are not shown" in years.description


def test_the_ontology_tree_counts_memories_per_term_and_a_term_lists_them(app, ann):
    c, _ = sign_in(app)
    tree = c.get("/ui/ontology").text
    for term, n in [("health", 2), ("fitness", 1), ("medical", 1), ("running", 1), ("family", 1), ("food", 0)]:
        assert re.search(
            rf'id="term-{term}">\s*<a href="/ui/ontology/{term}">{term}</a>\s*<span class="count">{n}</span>', tree
        ), term
    assert "forgotten now" in tree  # denying says what it does
    health = c.get("/ui/ontology/health").text
    assert RUNNING in health and DOCTOR in health and LISBON not in health and "2 memories under health" in health
    r = c.get("/ui/ontology/nosuchterm")
    assert r.status_code == 404 and "no ontology term" in alert(r.text)


def test_tags_the_ontology_lacks_count_as_other(app, memory, ann):
    seed(memory, "ann", [record("ann", "An old note with an old tag.", ["oldtag"], START)])
    c, _ = sign_in(app)
    assert "<title>other: 1</title>" in c.get("/ui/").text
    assert '<li>oldtag <span class="count">1</span></li>' in c.get("/ui/ontology").text
    overview = memory.overview(user_id="ann")
    assert overview.per_category == {"family": 1, "health": 2, "other": 1} and overview.total == 4


def test_search_shows_why_each_hit_ranked(app, memory, ann):
    c, _ = sign_in(app)
    page = c.get("/ui/search", params={"q": "Where does my sister Ana live? Lisbon"}).text
    assert '<label for="q">Search</label>' in page and 'id="q" name="q"' in page
    hits = memory.search("Where does my sister Ana live? Lisbon", user_id="ann", k=20)
    assert hits[0]["id"] == ann["lisbon"]
    first = page.split('<ol class="hits">')[1].split("</table>")[0]  # the first hit
    assert f'href="/ui/memories/{ann["lisbon"]}">{LISBON}</a>' in first
    expected = signal_groups(hits[0]["scores"])
    assert expected["lexical"] > 0 and expected["dense"] != 0
    for name in ("lexical", "dense", "time", "tag", "other", "total"):
        assert f'<td data-signal="{name}">{expected[name]:.3f}</td>' in first, name
    # every part in words a person reads, the largest first, with its sign; no internal names
    parts = sorted(((k, v) for k, v in hits[0]["scores"].items() if k != "total" and v), key=lambda kv: -abs(kv[1]))
    said = re.findall(r'<li><span class="part">([-+][\d.]+)</span> ([^<]+)</li>', first)
    assert said == [(f"{v:+.3f}", SIGNAL_WORDS[k]) for k, v in parts]
    assert "words it shares with your search" in first and "how close its meaning is to your search" in first
    for internal in ("bm25", "dense ", "prior", "timex", "informativeness"):
        assert internal not in page.split("<main", 1)[1], internal


def test_search_lists_only_relevant_memories_each_with_its_relevance(app, ann):
    c, _ = sign_in(app)
    page = c.get("/ui/search", params={"q": "running river"}).text
    hits = page.split('<ol class="hits">')[1].split("</ol>")[0]
    assert f'href="/ui/memories/{ann["running"]}"' in hits and ann["lisbon"] not in hits
    assert '<p class="relevance">relevance ' in hits and "holds the words &#34;running&#34;, &#34;river&#34;" in hits
    none = c.get("/ui/search", params={"q": "quantum chromodynamics lattice"}).text
    assert "<h2>0 results</h2>" in none and "/ui/memories/" not in none.split('<ol class="hits">')[1]


def test_a_memory_page_shows_dates_tags_sources_links_and_history(app, ann):
    c, _ = sign_in(app)
    page = c.get(f"/ui/memories/{ann['doctor']}").text
    assert f'<blockquote class="thought">{DOCTOR}</blockquote>' in page
    assert "<dt>Said</dt><dd>13 March 2024, 09:00 UTC</dd>" in page
    assert "<dt>Valid until</dt><dd>still valid</dd>" in page and "<dt>Stored</dt>" in page
    assert 'href="/ui/ontology/doctor">doctor</a>' in page and 'href="/ui/ontology/injury">injury</a>' in page
    assert f'linked to <a href="/ui/memories/{ann["running"]}">{RUNNING}</a>' in page
    assert "Source turns" in page and page.count(DOCTOR) >= 2  # thought and source turn
    assert "<td>created</td>" in page
    assert '<label for="thought">Correction</label>' in page and 'id="thought" name="thought"' in page


def test_a_memory_page_shows_what_the_memory_names(app, memory):
    people = [{"kind": "person", "value": "Ana", "relation": "sister"}, {"kind": "place", "value": "<Lisbon>"}]
    (rid,) = seed(memory, "ann", [record("ann", LISBON, ["siblings"], START, entities=people)])
    c, _ = sign_in(app)
    page = c.get(f"/ui/memories/{rid}").text
    assert "<dt>Names</dt>" in page
    assert "<li>person: Ana (sister)</li>" in page and "<li>place: &lt;Lisbon&gt;</li>" in page


def test_templates_escape_what_was_said(app, memory):
    seed(memory, "ann", [record("ann", "I said <script>alert(1)</script> & left", ["personal"], START)])
    c, _ = sign_in(app)
    page = c.get("/ui/").text
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; left" in page


def test_pending_lists_the_users_queued_sessions(app, memory):
    summary = memory.remember([{"role": "user", "content": "I adopted a cat called Miso."}], user_id="ann")
    memory.remember([{"role": "user", "content": "Bob's secret."}], user_id="bob")
    c, _ = sign_in(app)
    page = c.get("/ui/pending").text
    assert summary.job and summary.job in page and "pending" in page
    assert "bob:" not in page
    bob, _ = sign_in(app, "tok-bob")
    assert summary.job not in bob.get("/ui/pending").text


def test_profile_shows_the_users_aspects_and_preferences_escaped(app, memory):
    memory.add("I love <b>Italian</b> food, especially fresh pasta.", user_id="ann")
    memory.add("Bob's secret: I hate spinach.", user_id="bob")
    c, _ = sign_in(app)
    page = c.get("/ui/profile").text
    assert "fresh pasta" in page and "&lt;b&gt;Italian&lt;/b&gt;" in page and "<b>Italian" not in page
    (rid,) = [r.id for r in memory.list(user_id="ann")]
    assert f'href="/ui/memories/{rid}"' in page and "spinach" not in page
    bob, _ = sign_in(app, "tok-bob")
    assert "pasta" not in bob.get("/ui/profile").text


def test_search_filters_by_polarity(app, memory):
    memory.add("I love sushi, fresh and light.", user_id="ann")
    memory.add("I hate mayonnaise on my dinner.", user_id="ann")
    c, _ = sign_in(app)
    page = c.get("/ui/search", params={"q": "sushi dinner", "polarity": "dislike"}).text
    assert "mayonnaise" in page and "fresh and light" not in page and "(dislike" in page
    assert '<option value="dislike" selected>' in page
    both = c.get("/ui/search", params={"q": "sushi dinner"}).text
    assert "mayonnaise" in both and "fresh and light" in both
    r = c.get("/ui/search", params={"q": "sushi dinner", "polarity": "hate"})
    assert r.status_code == 400 and "polarity must be one of" in alert(r.text)


def test_a_pets_preference_is_shown_as_theirs(app, memory):
    memory.add("My dog Biscuit loves the beach.", user_id="ann")
    (rec,) = memory.list(user_id="ann")
    c, _ = sign_in(app)
    page = c.get(f"/ui/memories/{rec.id}").text
    assert "<dt>Preference</dt><dd>like, held by My dog Biscuit (not the user)" in page
    found = c.get("/ui/search", params={"q": "beach Biscuit"}).text
    assert "(like, held by My dog Biscuit)" in found
    assert "loves the beach" not in c.get("/ui/search", params={"q": "beach Biscuit", "polarity": "like"}).text


# ---- actions ---------------------------------------------------------------------------------------------
def test_correct_makes_a_new_version_and_keeps_the_old_in_its_history(app, memory, ann):
    c, csrf = sign_in(app)
    old = ann["lisbon"]
    r = c.post(
        f"/ui/memories/{old}/correct",
        data={"thought": "My sister Ana lives in Porto.", "csrf": csrf},
        follow_redirects=False,
    )
    assert r.status_code == 303
    new_id = re.fullmatch(r"/ui/memories/([0-9a-f]+)\?done=corrected", r.headers["location"]).group(1)
    new = memory.get(new_id, user_id="ann")
    kept = memory.get(old, user_id="ann")
    assert new is not None and new.thought == "My sister Ana lives in Porto." and new.supersedes == [old]
    assert kept is not None and kept.thought == LISBON and kept.valid_until is not None and kept.superseded_by == new_id
    chain = memory.history(new_id, user_id="ann")
    assert {e["record"] for e in chain} == {old, new_id} and "updated" in [e["change"] for e in chain]
    page = c.get(r.headers["location"]).text
    assert "Corrected" in page and f'href="/ui/memories/{old}">{LISBON}</a>' in page
    assert "Superseded by" in c.get(f"/ui/memories/{old}").text
    assert memory.search("Where does Ana live?", user_id="ann")[0]["id"] == new_id
    again = c.post(f"/ui/memories/{old}/correct", data={"thought": "Ana lives in Faro.", "csrf": csrf})
    assert again.status_code == 400 and "superseded" in alert(again.text)


def test_forget_removes_a_memory_everywhere(app, memory, ann):
    c, csrf = sign_in(app)
    health = r'id="term-health">.*?<span class="count">(\d+)</span>'
    assert re.search(health, c.get("/ui/ontology").text, re.S).group(1) == "2"  # counted (and kept) before
    r = c.post(f"/ui/memories/{ann['doctor']}/forget", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/?done=forgot"
    assert memory.get(ann["doctor"], user_id="ann") is None
    assert ann["doctor"] not in {h["id"] for h in memory.search("doctor knee injury", user_id="ann")}
    assert memory.services.store.vectors.has("ann", [ann["doctor"]]) == set()
    assert DOCTOR not in c.get("/ui/").text and c.get(f"/ui/memories/{ann['doctor']}").status_code == 404
    again = c.post(f"/ui/memories/{ann['doctor']}/forget", data={"csrf": csrf})
    assert again.status_code == 404 and alert(again.text) == "no such memory"
    assert re.search(health, c.get("/ui/ontology").text, re.S).group(1) == "1"  # the counts follow


def test_forget_all_needs_confirmation_then_forgets_every_memory_and_pending_session(app, memory, ann):
    memory.remember([{"role": "user", "content": "I adopted a cat called Miso."}], user_id="ann")
    c, csrf = sign_in(app)
    r = c.post("/ui/forget-all", data={"csrf": csrf})
    assert r.status_code == 400 and "confirm=yes" in alert(r.text)
    assert len(thoughts(memory)) == 3
    r = c.post("/ui/forget-all", data={"csrf": csrf, "confirm": "yes"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/?done=forgot-all&n=3"
    assert memory.list(user_id="ann") == [] and memory.pending(user_id="ann") == []
    assert "Forgot 3 memories." in c.get(r.headers["location"]).text


def test_deny_forgets_what_is_under_the_term_and_stores_nothing_under_it_later(app, memory, ann):
    export = memory.export(user_id="ann")
    c, csrf = sign_in(app)
    r = c.post("/ui/ontology/health/deny", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/ontology?done=denied&n=2#term-health"
    assert thoughts(memory) == {LISBON} and memory.denied(user_id="ann") == ["health"]
    tree = c.get(r.headers["location"]).text
    assert "2 memories under it were forgotten" in tree
    assert re.search(r'action="/ui/ontology/health/allow".*?<button type="submit"[^>]*>Allow</button>', tree, re.S)
    assert re.search(r'id="term-running">.*?denied by you with health', tree, re.S)
    # later: post-thinking (add) and import store nothing under health, for ann only
    summary = memory.add(RUNNING, user_id="ann", at=START.isoformat())
    assert summary.stored == [] and summary.denied == 1 and thoughts(memory) == {LISBON}
    assert memory.add(RUNNING, user_id="bob", at=START.isoformat()).stored
    refused = memory.import_(export, user_id="ann")
    assert (refused.refused, refused.written) == (2, 0) and thoughts(memory) == {LISBON}
    # allowing again lets them in from now on
    r = c.post("/ui/ontology/health/allow", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and memory.denied(user_id="ann") == []
    allowed = memory.import_(export, user_id="ann")
    assert (allowed.added, allowed.unchanged, allowed.refused) == (2, 1, 0) and len(thoughts(memory)) == 3
    again = c.post("/ui/ontology/health/allow", data={"csrf": csrf})
    assert again.status_code == 400 and "not among the terms you denied" in alert(again.text)


def test_the_denied_terms_are_kept_in_the_store(settings, scripted, ann, memory):
    memory.deny("music", user_id="ann")
    models, _, _ = scripted
    with Memory(settings, models=models, background=False) as other:  # another process on the same data dir
        assert other.denied(user_id="ann") == ["music"] and other.denied(user_id="bob") == []


def test_export_and_import_round_trip(app, memory, ann):
    c, csrf = sign_in(app)
    r = c.get("/ui/export")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.headers["content-disposition"].startswith("attachment")
    data, exported = r.json(), r.content
    assert {m["id"] for m in data["memories"]} == set(ann.values())
    before = {rec.id: rec.model_dump(mode="json") for rec in memory.list(user_id="ann")}
    memory.forget_all(user_id="ann")
    page = c.get("/ui/import").text
    assert '<label for="file">Export file</label>' in page and 'name="file" type="file"' in page
    r = c.post(
        "/ui/import",
        data={"csrf": csrf},
        files={"file": ("caim-memories.json", exported, "application/json")},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert r.headers["location"] == "/ui/import?done=imported&n=3&updated=0&unchanged=0&refused=0"
    assert {rec.id: rec.model_dump(mode="json") for rec in memory.list(user_id="ann")} == before
    assert "Imported: 3 added, 0 updated, 0 unchanged (already there), 0 left out" in c.get(r.headers["location"]).text
    again = c.post(
        "/ui/import",
        data={"csrf": csrf},
        files={"file": ("caim-memories.json", exported, "application/json")},
    )
    assert "Imported: 0 added, 0 updated, 3 unchanged (already there)" in again.text


def test_an_import_over_the_body_limit_is_413_and_stores_nothing(memory):
    app = create_ui_app(memory, verify=TOKENS.get, max_body_bytes=2000)
    c, csrf = sign_in(app)
    big = json.dumps({"memories": [record("ann", "x" * 3000, ["personal"], START)]}).encode()
    r = c.post("/ui/import", data={"csrf": csrf}, files={"file": ("big.json", big, "application/json")})
    assert r.status_code == 413 and memory.list(user_id="ann") == []


# ---- another user --------------------------------------------------------------------------------------
def test_a_second_users_token_sees_and_changes_none_of_the_first_users_memories(app, memory, ann):
    bob, csrf = sign_in(app, "tok-bob")
    for path in PAGES:
        page = bob.get(path).text
        assert not {LISBON, RUNNING, DOCTOR} & set(re.findall(r"[A-Z][^<>\"]*\.", page)), path
        assert all(i not in page for i in ann.values()), path
    assert "0 memories" in bob.get("/ui/").text
    assert bob.get("/ui/export").json()["memories"] == []
    assert re.search(r'id="term-health">.*?<span class="count">0</span>', bob.get("/ui/ontology").text, re.S)
    for rid in ann.values():
        assert bob.get(f"/ui/memories/{rid}").status_code == 404
        assert bob.post(f"/ui/memories/{rid}/forget", data={"csrf": csrf}).status_code == 404
        r = bob.post(f"/ui/memories/{rid}/correct", data={"thought": "Bob was here.", "csrf": csrf})
        assert r.status_code == 404
    bob.post("/ui/ontology/health/deny", data={"csrf": csrf})
    bob.post("/ui/forget-all", data={"csrf": csrf, "confirm": "yes"})
    assert thoughts(memory) == {LISBON, RUNNING, DOCTOR} and memory.denied(user_id="ann") == []
    # ann's session cookie does not open bob's pages, nor his token ann's
    ann_client, _ = sign_in(app)
    assert LISBON in ann_client.get("/ui/").text
    assert LISBON not in ann_client.get("/ui/", headers={"Authorization": "Bearer tok-bob"}).text


# ---- bad input -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("method", "path", "data", "status", "words"),
    [
        ("get", "/ui/?page=abc", None, 400, "page must be"),
        ("get", "/ui/?page=0", None, 400, "page must be"),
        ("get", "/ui/?page=123456789012", None, 400, "page must be"),
        ("get", "/ui/?page=2", None, 404, "no page 2"),
        ("get", "/ui/ontology/health?page=-1", None, 400, "page must be"),
        ("get", "/ui/memories/a%20b", None, 404, "no such memory"),
        ("get", "/ui/memories/" + "a" * 129, None, 404, "no such memory"),
        ("get", "/ui/memories/" + "a" * 32, None, 404, "no such memory"),
        ("get", "/ui/ontology/%3Cscript%3E", None, 404, "no ontology term"),
        ("get", "/ui/search?q=" + "x" * 16_001, None, 400, "at most 16000"),
        ("post", "/ui/memories/LISBON/correct", {"thought": "  "}, 400, "needs the words"),
        ("post", "/ui/memories/LISBON/correct", {"thought": "x" * 16_001}, 400, "at most 16000"),
        ("post", "/ui/memories/LISBON/correct", {"thought": LISBON}, 400, "already says"),
        ("post", "/ui/memories/bad%20id/forget", {}, 404, "no such memory"),
        ("post", "/ui/ontology/nosuchterm/deny", {}, 404, "no ontology term"),
        ("post", "/ui/forget-all", {"confirm": "YES"}, 400, "confirm=yes"),
        ("post", "/ui/import", {}, 400, "choose an export file"),
    ],
)
def test_bad_input_is_a_one_line_4xx_and_changes_nothing(app, memory, ann, method, path, data, status, words):
    c, csrf = sign_in(app)
    before = memory.export(user_id="ann")["memories"]
    path = path.replace("LISBON", ann["lisbon"])
    r = c.get(path) if data is None else c.post(path, data={**data, "csrf": csrf})
    assert r.status_code == status and words in alert(r.text), r.text
    assert memory.export(user_id="ann")["memories"] == before and memory.denied(user_id="ann") == []


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"not json at all", "not JSON"),
        (b'"a string"', "not a caim export"),
        (b'{"records": []}', "not a caim export"),
        (b'{"memories": [{"thought": "no tags or date"}]}', "not a memory record"),
    ],
)
def test_an_import_that_is_no_export_is_400_one_line_and_stores_nothing(app, memory, content, words):
    c, csrf = sign_in(app)
    r = c.post("/ui/import", data={"csrf": csrf}, files={"file": ("x.json", content, "application/json")})
    assert r.status_code == 400 and words in alert(r.text)
    assert memory.list(user_id="ann") == []


# ---- without authentication, and inside caim serve ---------------------------------------------------------
def test_without_auth_one_local_user_is_served_to_loopback_hosts_only(memory, ann):
    app = create_ui_app(memory, auth=False, user="ann")
    c = client(app)
    assert c.get("/ui/signin", follow_redirects=False).headers["location"] == "/ui/"
    assert LISBON in c.get("/ui/").text and COOKIE in c.cookies  # a session, for the CSRF token
    page = c.get(f"/ui/memories/{ann['lisbon']}").text
    r = c.post(f"/ui/memories/{ann['lisbon']}/forget", data={}, follow_redirects=False)
    assert r.status_code == 403 and memory.get(ann["lisbon"], user_id="ann") is not None
    r = c.post(f"/ui/memories/{ann['lisbon']}/forget", data={"csrf": csrf_of(page)}, follow_redirects=False)
    assert r.status_code == 303 and memory.get(ann["lisbon"], user_id="ann") is None
    for host in ("localhost:8080", "[::1]:8080", "127.0.0.2"):
        assert c.get("/ui/", headers={"host": host}).status_code == 200, host
    rebound = c.get("/ui/", headers={"host": "attacker.example"})
    assert rebound.status_code == 421 and RUNNING not in rebound.text and len(rebound.text.splitlines()) == 1


def test_every_answer_forbids_scripts_framing_and_outside_resources(app):
    r = client(app).get("/ui/signin")
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "script-src" not in csp
    assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
    assert client(app).get("/ui/style.css").headers["content-type"].startswith("text/css")


def test_caim_serve_mounts_the_browser_at_ui(settings, scripted, memory, ann):
    from caim import CaimAgent
    from caim.agent.surfaces.openai_server import create_app

    models, _, _ = scripted
    with CaimAgent(settings, models=models, memory=memory) as agent:
        served = TestClient(create_app(agent, verify=TOKENS.get, idle_seconds=None), base_url=BASE)
        assert served.get("/v1/models").status_code == 401  # the API still wants its bearer token
        assert served.get("/ui/", follow_redirects=False).headers["location"] == "/ui/signin"
        r = served.post("/ui/signin", data={"token": "tok-ann"}, follow_redirects=False)
        assert r.status_code == 303 and LISBON in served.get("/ui/").text
        assert LISBON in served.get("/ui/", headers={"Authorization": "Bearer tok-ann"}).text


# ---- the command -----------------------------------------------------------------------------------------
@pytest.fixture
def cli(served_cli):
    """The command in-process; uvicorn.run records its app (``served_cli`` in conftest)."""
    return served_cli


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["ui"], "set CAIM_AUTH_TOKENS"),
        (["ui", "--no-auth", "--host", "0.0.0.0"], "loopback host only"),
        (["ui", "--no-auth", "--user", ""], "user id is required"),
    ],
)
def test_caim_ui_refuses_to_serve_unauthenticated_off_loopback(cli, args, needle):
    result, started = cli(args)
    assert result.exit_code == 2 and not started
    assert needle in result.output and len(result.output.strip().splitlines()) == 1, result.output


def test_caim_ui_serves_the_browser_for_one_local_user(cli, monkeypatch):
    import uvicorn

    seen: list[tuple[str, str, int, str]] = []

    def run(app, **kw):  # while the command's memory is open
        c = TestClient(app, base_url=BASE)
        page = c.get("/ui/")
        seen.append((kw["host"], c.get("/", follow_redirects=False).headers["location"], kw["port"], page.text))

    monkeypatch.setattr(uvicorn, "run", run)
    result, _ = cli(["ui", "--no-auth", "--user", "ann", "--port", "8123"])
    assert result.exit_code == 0, result.output
    ((host, root, port, page),) = seen
    assert host == "127.0.0.1" and port == 8123 and root == "/ui/" and "/ui/" in result.output
    assert "Signed in as <strong>ann</strong>" in page and "0 memories" in page


def test_a_session_ends_when_the_deployment_tokens_change(memory, ann, monkeypatch, deployment_auth):
    """Sessions of the deployment's tokens are signed under them too: once a token is removed (the
    next start), a cookie it signed in is refused even with the same CAIM_UI_SECRET; unchanged
    tokens keep it."""
    auth = deployment_auth({"tok-ann": "ann"})
    secret = b"s" * 32
    c, _ = sign_in(create_ui_app(memory, secret=secret))
    cookie = {COOKIE: c.cookies[COOKIE]}
    same = TestClient(create_ui_app(memory, secret=secret), base_url=BASE, cookies=cookie)
    assert same.get("/ui/", follow_redirects=False).status_code == 200
    monkeypatch.setattr(auth, "_TOKENS", TokenMap({"tok-new": "ann"}))  # tok-ann removed
    changed = TestClient(create_ui_app(memory, secret=secret), base_url=BASE, cookies=cookie)
    r = changed.get("/ui/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].endswith("/ui/signin")


def test_a_session_page_shows_each_answer_with_the_memories_it_used(app, memory, ann):
    from caim.agent import CaimAgent

    with CaimAgent(memory=memory) as agent:
        agent.chat("Where does my sister Ana live? Do you remember?", user_id="ann", at="2024-06-01T09:00:00")
        job = agent.end_session(user_id="ann", background=True).job
    c, _ = sign_in(app)
    pending = c.get("/ui/pending").text
    link = f"/ui/pending/{job}"
    assert f'href="{link}"' in pending
    page = c.get(link).text
    assert "Where does my sister Ana live?" in page and 'aria-label="Memories this answer used"' in page
    used = page.split('aria-label="Memories this answer used"')[1].split("</ul>")[0]
    assert f'href="/ui/memories/{ann["lisbon"]}">you said (4 March 2024): &#34;{LISBON}&#34;</a>' in used
    other, _ = sign_in(app, "tok-bob")
    assert other.get(link).status_code == 404  # nobody sees another's session
    assert "runs beside no chat" in c.get("/ui/session").text


def test_the_timeline_says_who_said_a_memory_that_is_not_the_users(memory, app):
    seed(
        memory,
        "ann",
        [
            record("ann", "I started a new job in Harrogate.", ["work"], START, speaker="Sam <b>"),
            record("ann", "Try 'Dune' by Frank Herbert.", ["books"], START + timedelta(days=1), speaker="assistant"),
            record("ann", LISBON, ["siblings"], START + timedelta(days=2)),
        ],
    )
    c, _ = sign_in(app)
    page = c.get("/ui/").text
    assert "Sam &lt;b&gt; said:" in page and "the assistant said:" in page
    assert page.count('class="speaker"') == 2  # the user's own memory is not introduced

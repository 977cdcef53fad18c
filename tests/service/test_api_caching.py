"""Kept public answers (api.caching): ETag and 304, invalidation by the data, owners apart."""

from __future__ import annotations

import pytest

from service.conftest import Client, drain


@pytest.fixture
def app(make_service, db_url):
    """Each test on each kind of database (PostgreSQL reads the fingerprint its own way)."""
    return make_service(db_url)


def rated_matches(app, bots, games=2, game="toy-race"):
    """Rated matches between ``bots``, played by the real runner (as the ladder's are)."""
    from api.runner import run_match
    from ladder.work import rotations, schedule

    svc = app.extensions["referee"]
    ids = schedule(svc.engine, game, rotations(bots, games, "t"), rated=True)
    assert [run_match(svc.engine, pk, svc.policy, lease_s=30) for pk in ids] == \
        ["finished"] * games
    return ids


def alices_challenge(anon, bot_url):
    """Alice's bot ``mine`` and a 2-game challenge of it against bot 1: (alice, the first
    match's id), the matches not yet played."""
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": ["toy-race"]}).json["id"]
    return alice, alice.post("/api/v1/challenges", json={
        "game": "toy-race", "bots": [mine, 1], "games": 2}).json["match_ids"][0]


def test_an_anonymous_read_has_an_etag_and_a_304_for_it(anon):
    first = anon.get("/api/v1/leaderboards/toy-race")
    assert first.status_code == 200
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "public, max-age=5"
    assert {"Authorization", "Cookie"} <= {v.strip() for v in first.headers["Vary"].split(",")}
    again = anon.get("/api/v1/leaderboards/toy-race", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    assert again.headers["ETag"] == etag
    other = anon.get("/api/v1/leaderboards/toy-race", headers={"If-None-Match": '"nope"'})
    assert other.status_code == 200 and other.json == first.json


def test_a_kept_answer_is_served_without_building_it_again(app, anon, monkeypatch):
    import api.routes.leaderboards as route

    assert anon.get("/api/v1/leaderboards/toy-race").status_code == 200

    def refuse(*args, **kwargs):
        raise AssertionError("built again although nothing changed")

    monkeypatch.setattr(route, "leaderboard_page", refuse)
    assert anon.get("/api/v1/leaderboards/toy-race").status_code == 200


def test_a_finished_match_shows_at_once_and_its_old_etag_no_longer_matches(app, anon, bot_url):
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": ["toy-race"]}).json["id"]
    made = alice.post("/api/v1/challenges", json={"game": "toy-race", "bots": [mine, 1],
                                                  "games": 2}).json
    pk = made["match_ids"][0]
    before = anon.get(f"/api/v1/matches/{pk}")
    listed = anon.get("/api/v1/matches").json
    assert before.json["state"] == "scheduled" and listed["items"][0]["state"] == "scheduled"
    assert drain(app) == ["finished", "finished"]
    after = anon.get(f"/api/v1/matches/{pk}", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and after.json["state"] == "finished"
    assert after.headers["ETag"] != before.headers["ETag"]
    assert {m["state"] for m in anon.get("/api/v1/matches").json["items"]} == {"finished"}


def test_a_rating_change_shows_on_the_next_read_of_the_board(app, anon):
    from service.conftest import fast_bot

    other = fast_bot(app.extensions["referee"].engine)
    empty = anon.get("/api/v1/leaderboards/toy-race").json
    assert empty["items"] == empty["provisional"] == []
    rated_matches(app, [1, other])
    board = anon.get("/api/v1/leaderboards/toy-race").json
    rows = board["items"] + board["provisional"]
    assert sorted(r["bot"]["id"] for r in rows) == sorted([1, other])
    assert all(r["games"] == 2 for r in rows)


def test_owner_only_fields_never_reach_another_reader(app, anon, bot_url):
    alice = anon.owner("alice")
    bob = anon.owner("bob")
    mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": ["toy-race"]}).json["id"]
    path = f"/api/v1/bots/{mine}"
    assert alice.get(path).json["url"] == bot_url  # the owner first: kept nowhere
    public = anon.get(path)
    assert public.json.get("url") is None and public.json.get("verify_nonce") is None
    owned = alice.get(path, headers={"If-None-Match": public.headers["ETag"]})
    assert owned.status_code == 200 and owned.json["url"] == bot_url
    assert owned.headers["Cache-Control"] == "private, no-cache"
    assert bob.get(path).json.get("url") is None
    assert anon.get(path).json.get("url") is None


def test_pages_are_public_for_anonymous_readers_and_private_once_logged_in(app, anon):
    from pages.pages_support import csrf_of

    page = anon.get("/leaderboards/toy-race")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "public, max-age=5"
    alice = anon.owner("alice")
    browser = app.test_client()
    form = browser.get("/login")
    logged = browser.post("/login", data={"token": alice.token,
                                          "csrf": csrf_of(form.get_data(as_text=True))})
    assert logged.status_code == 303
    mine = browser.get("/leaderboards/toy-race")
    assert mine.status_code == 200 and mine.headers["Cache-Control"] == "private, no-cache"
    assert "alice" in mine.get_data(as_text=True)  # the logged-in header, never kept
    assert "alice" not in anon.get("/leaderboards/toy-race").get_data(as_text=True)


def test_a_log_keeps_its_content_hash_as_its_etag_and_answers_304_for_it(app, anon,
                                                                                bot_url):
    alice, pk = alices_challenge(anon, bot_url)
    drain(app)
    first = anon.get(f"/api/v1/matches/{pk}/log")
    again = anon.get(f"/api/v1/matches/{pk}/log")
    assert first.status_code == again.status_code == 200 and first.data == again.data
    assert first.headers["ETag"] == again.headers["ETag"] and \
        not first.headers["ETag"].startswith("W/")
    assert "immutable" in again.headers["Cache-Control"]
    cached = anon.get(f"/api/v1/matches/{pk}/log", headers={"If-None-Match":
                                                            first.headers["ETag"]})
    assert cached.status_code == 304


def test_a_log_read_again_asks_for_no_blob_and_is_the_same_for_its_owner(app, anon, bot_url,
                                                                         monkeypatch):
    """A log and its frames: no query, the same for their owner, 304 on their own tags."""
    import api.replays as replays
    import api.routes.matches as route

    alice, pk = alices_challenge(anon, bot_url)
    drain(app)
    first = anon.get(f"/api/v1/matches/{pk}/log")

    def refuse(*args, **kwargs):
        raise AssertionError("the log was read again although its match did not change")

    frames = anon.get(f"/api/v1/matches/{pk}/frames")
    monkeypatch.setattr(route.reads, "match_log", refuse)
    monkeypatch.setattr(replays, "match_log", refuse)  # the frames read the log too
    for reader in (anon, alice):
        for path, was in (("log", first), ("frames", frames)):
            again = reader.get(f"/api/v1/matches/{pk}/{path}")
            assert again.status_code == 200 and again.data == was.data
            assert again.headers["ETag"] == was.headers["ETag"]
            assert "immutable" in again.headers["Cache-Control"]
            cached = reader.get(f"/api/v1/matches/{pk}/{path}",
                                headers={"If-None-Match": was.headers["ETag"]})
            assert cached.status_code == 304 and cached.headers["ETag"] == was.headers["ETag"]


def test_an_error_is_never_kept_and_a_new_row_shows_at_once(app, anon, bot_url):
    assert anon.get("/api/v1/bots/4").status_code == 404
    missing = anon.get("/api/v1/bots/4/matches")
    assert missing.status_code == 404 and missing.json["message"] == "no bot 4"
    alice = anon.owner("alice")
    made = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": ["toy-race"]}).json["id"]
    assert made == 4 and Client(app).get("/api/v1/bots/4").status_code == 200


def test_every_kept_read_names_a_route_of_the_app(app):
    """A renamed route would silently stop being kept: the table follows the routes."""
    from api.caching import OWN_LIMITS, SCOPES

    assert set(SCOPES) | OWN_LIMITS <= set(app.view_functions)
    assert set(SCOPES.values()) == {"match", "bot", "ladder", "results", "all"}


def test_a_start_moves_the_match_lists_and_a_finish_the_results(app, anon, bot_url):
    """The leaderboard page shows finished matches only: a start leaves it kept, a finish
    shows at once; the match list shows states: a start shows at once too."""
    from api.execution import play
    from ladder.work import claim, finish

    alice, pk = alices_challenge(anon, bot_url)
    board, listed = anon.get("/leaderboards/toy-race"), anon.get("/api/v1/matches")
    engine = app.extensions["referee"].engine
    held = claim(engine, pk, "test", 30)
    assert held is not None
    started = anon.get("/api/v1/matches")
    assert started.headers["ETag"] != listed.headers["ETag"]
    assert [m["state"] for m in started.json["items"] if m["id"] == pk] == ["running"]
    assert anon.get("/leaderboards/toy-race").headers["ETag"] == board.headers["ETag"]
    assert finish(engine, held, play(held, app.extensions["referee"].policy))
    after = anon.get("/leaderboards/toy-race")
    assert after.headers["ETag"] != board.headers["ETag"]


def test_an_admin_void_refolds_and_the_next_anonymous_reads_show_it(app, anon):
    from sqlalchemy import update

    from ladder.models import Owner

    from service.test_api_admin import GAME, ladder_of

    admin = anon.owner("root")
    with app.extensions["referee"].engine.begin() as conn:
        conn.execute(update(Owner).where(Owner.name == "root").values(is_admin=True))
    ids, bots = ladder_of(app)
    board = anon.get(f"/api/v1/leaderboards/{GAME}").json
    later = anon.get(f"/api/v1/matches/{ids[-1]}").json
    ratings = anon.get(f"/api/v1/bots/{bots[0]}/ratings?game={GAME}").json
    assert admin.post(f"/api/v1/admin/matches/{ids[3]}/void").status_code == 200
    assert anon.get(f"/api/v1/leaderboards/{GAME}").json != board
    assert anon.get(f"/api/v1/matches/{ids[-1]}").json["seats"] != later["seats"]
    assert anon.get(f"/api/v1/bots/{bots[0]}/ratings?game={GAME}").json != ratings
    assert anon.get(f"/api/v1/matches/{ids[3]}").json["state"] == "voided"


def test_a_bots_solo_standing_follows_the_other_bots_games(app, anon, bot_url, second_bot_url):
    """A bot's page ranks it on its solo ladder among the others: their games move it."""
    from service.test_api_solo import DUO, play_until, put, register

    alice, bob = anon.owner("alice"), anon.owner("bob")
    weak, strong = register(alice, bot_url, "weak"), register(bob, second_bot_url, "strong")
    assert put(alice, f"/api/v1/bots/{weak}/solo-ladders/{DUO}/1",
               json={"active": True}).status_code == 200
    play_until(app, closed=1)  # the weak bot alone
    assert "</strong> of 1" in anon.get(f"/bots/{weak}").get_data(as_text=True)
    assert put(bob, f"/api/v1/bots/{strong}/solo-ladders/{DUO}/1",
               json={"active": True}).status_code == 200
    play_until(app, closed=3)
    assert "</strong> of 2" in anon.get(f"/bots/{weak}").get_data(as_text=True)


def test_the_kept_answers_bound_counts_their_keys_and_headers_too():
    """Pages ignore query parameters they do not take, so every new one is a new key: a
    reader sending long junk ones must not hold more memory than the bound says."""
    import time

    from api.caching import ENTRY_OVERHEAD, AnswerCache, Kept

    bound = 64 * 1024
    answers = AnswerCache(max_bytes=bound)
    for n in range(200):
        key = f"host|/leaderboards/x?junk={n:04d}{'x' * 4000}|1"
        answers.put(key, Kept("v1", 200, b"{}", (("ETag", 'W/"abc"'),), time.monotonic()))
    held = len(answers._items)
    assert 0 < held <= bound // (4000 + ENTRY_OVERHEAD)
    assert answers._bytes <= bound
    newest = f"host|/leaderboards/x?junk=0199{'x' * 4000}|1"
    assert answers.get(newest, "v1") is not None  # least recently read dropped first
    assert answers.get(newest.replace("0199", "0000"), "v1") is None


class Clock:
    """The caching module's clock, moved by hand (a freshness window with no sleeping)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def windowed(make_service, db_url, monkeypatch):
    """An app whose processes take a fingerprint as current for 1 s (the lists' for 5 s), on
    a hand-moved clock, and the fingerprints read from the database."""
    import api.caching as caching

    clock, asked = Clock(), []
    real = caching.data_version
    monkeypatch.setattr(caching, "time", clock)
    monkeypatch.setattr(caching, "data_version",
                        lambda *a, **k: asked.append(a[1:]) or real(*a, **k))
    return make_service(db_url, answer_fresh_s=1.0, list_fresh_s=5.0), clock, asked


def test_within_the_window_a_kept_read_asks_the_database_nothing(windowed):
    from sqlalchemy import update

    from ladder.models import Bot

    app, clock, asked = windowed
    anon = Client(app)
    first = anon.get("/api/v1/bots/1")
    assert first.status_code == 200 and len(asked) == 1
    with app.extensions["referee"].engine.begin() as conn:  # a change made elsewhere
        conn.execute(update(Bot).where(Bot.id == 1).values(version=Bot.version + 1))
    clock.now += 0.9
    assert [anon.get("/api/v1/bots/1").headers["ETag"] for _ in range(3)] == \
        [first.headers["ETag"]] * 3
    assert len(asked) == 1  # one fingerprint for every read of the scope in the window
    assert anon.get("/api/v1/bots/2").status_code == 200 and len(asked) == 2  # its own
    clock.now += 0.1
    moved = anon.get("/api/v1/bots/1", headers={"If-None-Match": first.headers["ETag"]})
    assert moved.status_code == 200 and moved.headers["ETag"] != first.headers["ETag"]
    assert len(asked) == 3


def test_the_lists_of_matches_keep_their_fingerprint_for_their_own_window(windowed):
    """A match list moves with every start and end: its fingerprint is taken for 5 s."""
    from ladder.work import rotations, schedule

    app, clock, asked = windowed
    anon = Client(app)
    assert anon.get("/api/v1/matches").json["items"] == [] and asked == [("all", None)]
    schedule(app.extensions["referee"].engine, "toy-race", rotations([1, 2], 2, "t"),
             rated=False)
    clock.now += 4.9
    assert anon.get("/api/v1/matches").json["items"] == []
    assert anon.get("/api/v1/bots/1").status_code == 200  # its own window, 1 s
    assert asked == [("all", None), ("bot", 1)]
    clock.now += 0.1
    assert len(anon.get("/api/v1/matches").json["items"]) == 2
    assert asked[-1] == ("all", None) and len(asked) == 3


def test_a_write_through_this_process_shows_at_once_within_the_window(windowed, bot_url):
    app, clock, asked = windowed
    anon = Client(app)
    assert anon.get("/api/v1/bots").json["items"] and len(asked) == 1
    alice = anon.owner("alice")
    made = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": ["toy-race"]}).json["id"]
    assert made in [b["id"] for b in anon.get("/api/v1/bots").json["items"]]
    assert len(asked) == 2  # asked again, though the clock has not moved


def test_the_window_setting_is_read_and_bounded_by_max_age(monkeypatch):
    from api.config import ServiceConfig

    built = ServiceConfig()  # built in code: every read asks
    assert built.answer_fresh_s == built.list_fresh_s == 0
    for name in ("REFEREE_ANSWER_FRESH_S", "REFEREE_LIST_FRESH_S"):
        monkeypatch.delenv(name, raising=False)
    read = ServiceConfig.from_env()
    assert (read.answer_fresh_s, read.list_fresh_s) == (1.0, 5.0)
    monkeypatch.setenv("REFEREE_ANSWER_FRESH_S", "0")
    monkeypatch.setenv("REFEREE_LIST_FRESH_S", "2.5")
    read = ServiceConfig.from_env()
    assert (read.answer_fresh_s, read.list_fresh_s) == (0, 2.5)
    for name in ("REFEREE_ANSWER_FRESH_S", "REFEREE_LIST_FRESH_S"):
        for bad, message in (("6", f"{name} must be 0 to 5 seconds, not 6"), ("-1", "not -1"),
                             ("soon", "must be a number of seconds")):
            monkeypatch.setenv(name, bad)
            with pytest.raises(ValueError, match=message):
                ServiceConfig.from_env()
        monkeypatch.setenv(name, "1")


def test_if_none_match_star_is_no_304_for_what_does_not_exist(app, anon):
    """``*`` asks for "any current answer": a fingerprint read is no proof that the bot or
    match asked for exists, so a missing one is still a 404 (a kept one is a 304)."""
    star = {"If-None-Match": "*"}
    assert anon.get("/api/v1/bots/999999", headers=star).status_code == 404
    assert anon.get("/api/v1/matches/999999", headers=star).status_code == 404
    assert anon.get("/api/v1/matches/999999/log", headers=star).status_code == 404
    assert anon.get("/api/v1/bots/1").status_code == 200
    assert anon.get("/api/v1/bots/1", headers=star).status_code == 304


def test_a_client_that_refuses_gzip_gets_its_log_plain(app, anon, bot_url):
    import json

    alice, pk = alices_challenge(anon, bot_url)
    drain(app)
    zipped = anon.get(f"/api/v1/matches/{pk}/log", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers.get("Content-Encoding") == "gzip"
    for refusal in ("gzip;q=0", "identity", "br, gzip;q=0"):
        plain = anon.get(f"/api/v1/matches/{pk}/log", headers={"Accept-Encoding": refusal})
        assert plain.status_code == 200 and "Content-Encoding" not in plain.headers, refusal
        assert json.loads(plain.data)["result"]


def test_a_fingerprint_read_across_a_write_is_not_kept_for_the_window(windowed):
    """A read that took its fingerprint before a write committed must not hold that old one
    for the window: the write's own reader would see the data as it was."""
    import api.caching as caching

    app, clock, asked = windowed
    cache = app.extensions[caching.EXTENSION]
    real = caching.data_version

    def write_meanwhile(*args, **kwargs):
        found = real(*args, **kwargs)
        cache.forget_versions()  # a write ends while this fingerprint is on its way back
        return found

    caching.data_version = write_meanwhile
    try:
        with app.app_context():
            cache.version(app.extensions["referee"].engine, "bot", 1)
    finally:
        caching.data_version = real
    assert cache._fresh(("bot", 1), 1.0) is None
    with app.app_context():
        cache.version(app.extensions["referee"].engine, "bot", 1)
    assert cache._fresh(("bot", 1), 1.0) is not None

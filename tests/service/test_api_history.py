"""History and transparency: a bot's rating series, its matches, head-to-head, the export.

Each test has a small ladder on each database kind: three built-in random bots (the house
``random`` and two CLI-style rows) play rated toy-race matches with the real runner.  The tests
that only read it share one per module and kind (``read_ladder``); the others build their own.
"""

from __future__ import annotations

from contextlib import ExitStack
from datetime import datetime, timedelta, timezone

import pytest

from api.runner import run_match
from ladder.models import Bot
from ladder.work import schedule

from service.conftest import Client, fast_bot, services
from support.ladder_db import KINDS, pg_head_database, sqlite_head_url

GAME = "toy-race"


@pytest.fixture
def ladder(make_service, db_url):
    """The app, an anonymous client and the bots ``a`` (house random), ``b``, ``c``; six
    rated matches a-b, a-c, b-c (both seat orders), played."""
    return build_ladder(make_service(db_url))


@pytest.fixture(scope="module", params=KINDS)
def read_ladder(request, tmp_path_factory):
    """:func:`ladder`, built once per module and database kind for the tests that only read:
    GET requests, no rate limits, nothing written."""
    folder, sqlite_head = tmp_path_factory.mktemp("history"), request.getfixturevalue(
        "sqlite_head_template")
    with ExitStack() as stack:
        if request.param == "sqlite":
            url = sqlite_head_url(sqlite_head, folder / "ladder.sqlite3")
        else:
            url = stack.enter_context(pg_head_database(
                request.getfixturevalue("pg_admin"), request.getfixturevalue("pg_head_template"),
                request.getfixturevalue("pg_session_prefix")))
        make = stack.enter_context(services(folder, sqlite_head))
        yield build_ladder(make(url))


def build_ladder(app):
    svc = app.extensions["referee"]
    with svc.engine.connect() as conn:
        a = conn.execute(Bot.__table__.select().where(Bot.name == "random")).one().id
    b, c = fast_bot(svc.engine, "random-b"), fast_bot(svc.engine, "random-c")
    seatings = [([a, b], 1, None), ([b, a], 2, None), ([a, c], 3, None), ([c, a], 4, None),
                ([b, c], 5, None), ([c, b], 6, None)]
    ids = play(app, seatings)
    return app, Client(app), {"a": a, "b": b, "c": c}, ids


def play(app, seatings, rated=True):
    svc = app.extensions["referee"]
    ids = schedule(svc.engine, GAME, seatings, rated=rated)
    assert [run_match(svc.engine, pk, svc.policy, lease_s=30) for pk in ids] == \
        ["finished"] * len(ids)
    return ids


# -- ratings ----------------------------------------------------------------------------------

def test_the_rating_series_is_the_fold_in_order(read_ladder):
    app, anon, bots, ids = read_ladder
    series = anon.get(f"/api/v1/bots/{bots['a']}/ratings?game={GAME}").json
    assert series["total"] == 4 and series["page"] == 1 and series["per_page"] == 100
    items = series["items"]
    assert [p["match_id"] for p in items] == ids[:4]
    for point in items:
        assert point["delta"] == pytest.approx(point["rating_after"] - point["rating_before"],
                                               abs=0.011)
        assert point["game"] == GAME and point["finished_at"] is not None
    for before, after in zip(items, items[1:]):
        assert after["rating_before"] == before["rating_after"]
    assert items[0]["rating_before"] == 1500
    board = anon.get(f"/api/v1/leaderboards/{GAME}").json
    row = next(r for r in board["provisional"] if r["bot"]["id"] == bots["a"])
    assert row["elo"] == pytest.approx(items[-1]["rating_after"], abs=0.06)
    second = anon.get(f"/api/v1/bots/{bots['a']}/ratings?game={GAME}&per_page=3&page=2").json
    assert second["total"] == 4 and second["items"] == items[3:]


@pytest.mark.parametrize("query, status", [
    ("", 422), ("?game=chess", 422), ("?game=toy-race&per_page=1001", 422),
    ("?game=toy-race&colour=red", 422), ("?game=toy-race&page=0", 422),
])
def test_the_rating_series_refuses_bad_queries(read_ladder, query, status):
    _, anon, bots, _ = read_ladder
    answer = anon.get(f"/api/v1/bots/{bots['a']}/ratings{query}")
    assert answer.status_code == status and answer.json["message"]


def test_an_unknown_bot_has_no_history(read_ladder):
    _, anon, _, _ = read_ladder
    for path in ("ratings?game=toy-race", "matches", "head-to-head?game=toy-race"):
        answer = anon.get(f"/api/v1/bots/999999/{path}")
        assert answer.status_code == 404 and "no bot 999999" in answer.json["message"]


# -- matches ----------------------------------------------------------------------------------

def test_a_bots_matches_with_its_outcomes_and_filters(ladder):
    app, anon, bots, ids = ladder
    a, b = bots["a"], bots["b"]
    unrated = play(app, [([a, b], 7, None)], rated=False)
    everything = anon.get(f"/api/v1/bots/{a}/matches").json
    assert everything["total"] == 5
    assert [m["id"] for m in everything["items"]] == [unrated[0], *reversed(ids[:4])]
    for m in everything["items"]:
        mine = next(s for s in m["seats"] if s["bot"]["id"] == a)
        others = [s["rank"] for s in m["seats"] if s["bot"]["id"] != a]
        expected = ("win" if mine["rank"] < min(others) else
                    "draw" if mine["rank"] == min(others) else "loss")
        assert m["outcome"] == expected
    by_result = {r: anon.get(f"/api/v1/bots/{a}/matches?result={r}").json
                 for r in ("win", "draw", "loss")}
    assert sum(page["total"] for page in by_result.values()) == 5
    for r, page in by_result.items():
        assert all(m["outcome"] == r for m in page["items"])
    rated = anon.get(f"/api/v1/bots/{a}/matches?rated=false").json
    assert [m["id"] for m in rated["items"]] == unrated
    versus_b = anon.get(f"/api/v1/bots/{a}/matches?opponent={b}&rated=true").json
    assert sorted(m["id"] for m in versus_b["items"]) == ids[:2]
    page = anon.get(f"/api/v1/bots/{a}/matches?per_page=2&page=3").json
    assert page["total"] == 5 and len(page["items"]) == 1
    future = (datetime.now(timezone.utc) + timedelta(days=1)).isoformat()
    assert anon.get(f"/api/v1/bots/{a}/matches", query_string={"since": future}
                    ).json["total"] == 0
    past = (datetime.now(timezone(timedelta(hours=5))) - timedelta(hours=1)).isoformat()
    assert anon.get(f"/api/v1/bots/{a}/matches", query_string={"since": past}
                    ).json["total"] == 5
    naive_past = (datetime.now(timezone.utc) - timedelta(hours=1)).replace(tzinfo=None)
    assert anon.get(f"/api/v1/bots/{a}/matches",
                    query_string={"since": naive_past.isoformat()}).json["total"] == 5
    assert anon.get(f"/api/v1/bots/{a}/matches?round=5").json["total"] == 0
    for edge in ("0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"):
        assert anon.get(f"/api/v1/bots/{a}/matches", query_string={"since": edge}
                        ).status_code == 200


@pytest.mark.parametrize("query", [
    "?result=maybe", "?opponent=0", "?opponent=x", "?since=yesterday", "?game=chess",
    "?state=lost", "?colour=red", "?round=-1",
])
def test_a_bots_matches_refuse_bad_queries(read_ladder, query):
    _, anon, bots, _ = read_ladder
    answer = anon.get(f"/api/v1/bots/{bots['a']}/matches{query}")
    assert answer.status_code == 422 and answer.json["errors"]["query"]


# -- head-to-head -----------------------------------------------------------------------------

def test_head_to_head_counts_each_opponent(read_ladder):
    _, anon, bots, _ = read_ladder
    a = bots["a"]
    h2h = anon.get(f"/api/v1/bots/{a}/head-to-head?game={GAME}").json
    assert h2h["game"] == GAME and h2h["total"] == 2
    assert {row["bot"]["id"] for row in h2h["items"]} == {bots["b"], bots["c"]}
    for row in h2h["items"]:
        assert row["played"] == 2 == row["ahead"] + row["level"] + row["behind"]
        wins = anon.get(f"/api/v1/bots/{a}/matches?opponent={row['bot']['id']}&result=win"
                        ).json["total"]
        assert row["ahead"] == wins  # two seats: ahead is a win
        assert row["last_met"] is not None and row["last_match"] is not None
    one = anon.get(f"/api/v1/bots/{a}/head-to-head?game={GAME}&per_page=1&page=2").json
    assert one["total"] == 2 and one["items"] == h2h["items"][1:]
    assert anon.get(f"/api/v1/bots/{a}/head-to-head?game=tokaido-duo").json["total"] == 0
    assert anon.get(f"/api/v1/bots/{a}/head-to-head").status_code == 422
    assert anon.get(f"/api/v1/bots/{a}/head-to-head?game=toy-race&x=1").status_code == 422


# -- export -----------------------------------------------------------------------------------

def test_the_export_walks_every_finished_match_with_a_cursor(read_ladder):
    app, anon, bots, ids = read_ladder
    seen, after = [], 0
    while True:
        page = anon.get("/api/v1/export/matches", query_string={"after_id": after,
                                                                  "limit": 4}).json
        seen += page["items"]
        after = page["next_after_id"]
        if not page["more"]:
            break
    assert [m["id"] for m in seen] == ids and page["waiting_on"] is None
    first = seen[0]
    assert first["log_url"] == f"/api/v1/matches/{ids[0]}/log" and first["rated"]
    assert len(first["log_sha256"]) == 64 and first["log_bytes"] > 0
    assert {s["bot"]["id"] for s in first["seats"]} == {bots["a"], bots["b"]}
    assert first["seats"][0]["rating_after"] is not None
    log = anon.get(first["log_url"])
    assert log.status_code == 200 and log.headers["ETag"] == f'"{first["log_sha256"]}"'
    again = anon.get("/api/v1/export/matches", query_string={"after_id": after}).json
    assert again == {"items": [], "next_after_id": after, "more": False, "waiting_on": None}


def test_the_export_stops_before_a_match_not_over_and_skips_voided_ones(ladder):
    from ladder.work import void

    app, anon, bots, ids = ladder
    svc = app.extensions["referee"]
    pending = schedule(svc.engine, GAME, [([bots["a"], bots["b"]], 8, None)], rated=True)
    doomed = schedule(svc.engine, GAME, [([bots["a"], bots["c"]], 9, None)], rated=True)
    later = play(app, [([bots["b"], bots["c"]], 10, None)])
    assert void(svc.engine, doomed[0], "test")
    page = anon.get("/api/v1/export/matches", query_string={"after_id": ids[-1]}).json
    assert page["items"] == [] and page["waiting_on"] == pending[0]
    assert page["next_after_id"] == ids[-1] and not page["more"]
    assert run_match(svc.engine, pending[0], svc.policy, lease_s=30) == "finished"
    page = anon.get("/api/v1/export/matches", query_string={"after_id": ids[-1]}).json
    assert [m["id"] for m in page["items"]] == [pending[0], later[0]]
    assert page["waiting_on"] is None
    other_game = anon.get("/api/v1/export/matches?game=tokaido-duo").json
    assert other_game["items"] == []


@pytest.mark.parametrize("query", [
    "?limit=0", "?limit=501", "?after_id=-1", "?game=chess", "?cursor=3", "?after_id=x",
])
def test_the_export_refuses_bad_queries(read_ladder, query):
    _, anon, _, _ = read_ladder
    answer = anon.get(f"/api/v1/export/matches{query}")
    assert answer.status_code == 422 and answer.json["message"]


def test_the_export_is_rate_limited(make_service):
    app = make_service(ratelimit=True)
    anon = Client(app)
    codes = [anon.get("/api/v1/export/matches").status_code for _ in range(11)]
    assert codes == [200] * 10 + [429]

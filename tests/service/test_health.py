"""Bot health: probes on a schedule pause a bot's ladder entries and resume them; alerts.

The bots are real HTTP servers on loopback (the apps allow 127.0.0.0/8); a bot that goes down
is a server stopped, and coming back is a new server on the same port.  The clock of each
health tick is passed in, an hour apart, so every tick finds every bot due.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from api.health import dry_run, probe_due
from bots.server import BotApp, BotServer
from ladder import health
from ladder.accounts import now_utc
from ladder.health import PAUSED, RESUMED, Verdict, decide
from ladder.models import HealthCheck, LadderEntry
from ladder.pauses import FORFEITS, HEALTH, is_auto
from ladder.work import schedule

from service.conftest import Client

GAME = "toy-race"


@pytest.fixture
def anon(make_service, db_url):
    """An anonymous client of an app on each database kind."""
    return Client(make_service(db_url))


# -- the rule alone ---------------------------------------------------------------------------

@pytest.mark.parametrize("paused, probes, forfeits, expected", [
    (None, [], 0, None),
    (None, [False, False], 0, None),
    (None, [False, False, True], 0, None),
    (None, [False, False, False], 0, PAUSED),
    (None, [False, False, False, True], 0, PAUSED),  # newest first: the last three failed
    (None, [True, False, False, False], 0, None),
    (None, [True], 4, None),
    (None, [True], 5, PAUSED),
    ("health: 3 failed probes in a row", [True], 0, None),
    ("health: 3 failed probes in a row", [True, True], 0, RESUMED),
    ("health: 3 failed probes in a row", [True, False, True], 0, None),
    ("forfeits: 5 forfeits in a row", [True, True, False], 9, RESUMED),
])
def test_the_rule(paused, probes, forfeits, expected):
    verdict = decide(paused, probes, forfeits)
    assert (verdict.kind if verdict else None) == expected


def test_the_reasons_say_which_rule():
    assert decide(None, [False] * 3, 0) == Verdict(PAUSED,
                                                    f"{HEALTH}: 3 failed probes in a row")
    assert decide(None, [True], 6) == Verdict(PAUSED, f"{FORFEITS}: 6 forfeits in a row")
    assert is_auto("health: x") and is_auto("away: gone") and not is_auto("retired")


# -- probing a real bot -----------------------------------------------------------------------

def register(client, url, name="mybot", join=True):
    """Register a bot; ``join``: it joins the toy-race ladder (POST /bots does by default)."""
    answer = client.post("/api/v1/bots", json={"name": name, "url": url, "games": [GAME],
                                               "ladder": join})
    assert answer.status_code == 201, answer.json
    return answer.json["id"]


def entries(engine, bot_id):
    with engine.connect() as conn:
        return {r.game: r.paused_reason for r in conn.execute(
            select(LadderEntry.game, LadderEntry.paused_reason)
            .where(LadderEntry.bot_id == bot_id))}


def test_the_dry_run_is_one_real_decision(app, bot_url):
    svc = app.extensions["referee"]
    outcome = dry_run(bot_url, GAME, svc.policy)
    assert outcome.ok and outcome.status == "ok" and outcome.latency_ms is not None
    assert "one " in outcome.detail and " decision" in outcome.detail


def test_a_bot_that_answers_wrong_fails_its_dry_run(app):
    class Wrong(BotApp):
        def _decide(self, msg):
            return {"choice": "no-such-option"}

    svc = app.extensions["referee"]
    with BotServer(Wrong("random", None, 1)) as server:
        outcome = dry_run(server.url, GAME, svc.policy)
    assert not outcome.ok and outcome.status == "unknown_option"


def test_a_blocked_url_fails_without_a_connection(make_service, bot_url):
    from api.health import probe

    app = make_service(allow_networks="")  # loopback no longer allowed
    found = probe(health.Target(1, "x", bot_url, GAME), app.extensions["referee"].policy)
    assert not found.ok and found.status == "blocked"


def test_three_failed_probes_pause_and_two_good_ones_resume(anon):
    svc = anon.app.extensions["referee"]
    engine, policy = svc.engine, svc.policy
    server = BotServer(BotApp("random", None, 3)).start()
    port = server.port
    alice = anon.owner("alice")
    bot_id = register(alice, server.url)
    clock = now_utc()

    def tick():
        nonlocal clock
        clock += timedelta(hours=1)
        return probe_due(engine, policy, clock)

    assert tick().probed == {bot_id: True}
    server.stop()
    first, second, third = tick(), tick(), tick()
    assert first.probed == second.probed == third.probed == {bot_id: False}
    assert not first.paused and not second.paused
    assert third.paused == {bot_id: "health: 3 failed probes in a row"}
    assert entries(engine, bot_id) == {GAME: "health: 3 failed probes in a row"}
    board = anon.get(f"/api/v1/leaderboards/{GAME}").json
    assert [p["bot"]["id"] for p in board["paused"]] == [bot_id]
    assert board["paused"][0]["reason"].startswith("health:")
    page = anon.http.get(f"/leaderboards/{GAME}").get_data(as_text=True)
    assert "<h2>Paused</h2>" in page and "health: 3 failed probes in a row" in page
    assert tick().probed == {bot_id: False} and entries(engine, bot_id)[GAME] is not None

    server = BotServer(BotApp("random", None, 3), port=port).start()
    try:
        one = tick()
        assert one.probed == {bot_id: True} and not one.resumed
        assert entries(engine, bot_id)[GAME] is not None  # one good probe is not enough
        two = tick()
        assert two.resumed == {bot_id: "2 good probes in a row"}
        assert entries(engine, bot_id) == {GAME: None}
        assert not tick().paused  # stays up
    finally:
        server.stop()
    assert anon.get(f"/api/v1/leaderboards/{GAME}").json["paused"] == []

    alerts = alice.get("/api/v1/me/alerts").json
    assert alerts["total"] == 2
    assert [a["kind"] for a in alerts["items"]] == ["resumed", "paused"]  # newest first
    paused = alerts["items"][1]
    assert paused["bot"] == {"id": bot_id, "name": "mybot"} and paused["games"] == [GAME]
    assert "connection" in paused["detail"]
    health_doc = alice.get(f"/api/v1/bots/{bot_id}").json["health"]
    assert health_doc["ok"] is True


def test_probes_wait_for_their_interval(anon, bot_url):
    svc = anon.app.extensions["referee"]
    bot_id = register(anon.owner("alice"), bot_url)
    clock = now_utc()
    assert probe_due(svc.engine, svc.policy, clock).probed == {}  # registration probed it
    later = clock + timedelta(seconds=health.PROBE_INTERVAL_S + 1)
    assert probe_due(svc.engine, svc.policy, later).probed == {bot_id: True}
    assert probe_due(svc.engine, svc.policy, later).probed == {}


def test_a_pause_for_another_reason_is_left_alone(anon):
    svc = anon.app.extensions["referee"]
    server = BotServer(BotApp("random", None, 4)).start()
    alice = anon.owner("alice")
    bot_id = register(alice, server.url, join=False)
    server.stop()
    with svc.engine.begin() as conn:
        conn.execute(LadderEntry.__table__.insert().values(
            bot_id=bot_id, game=GAME, active=True, paused_reason="admin: cheating",
            placement_remaining=0, joined_at=now_utc()))
    clock = now_utc()
    for hour in range(1, 6):
        run = probe_due(svc.engine, svc.policy, clock + timedelta(hours=hour))
        assert run.probed == {bot_id: False} and not run.paused
    assert entries(svc.engine, bot_id) == {GAME: "admin: cheating"}
    assert alice.get("/api/v1/me/alerts").json["total"] == 0


class Forfeiter(BotApp):
    """Answers GET / like a good bot, then never a valid choice: it forfeits every match."""

    def _decide(self, msg):
        return {"choice": "no-such-option"}


def play_rated(app, bot_id, opponent, n):
    from api.runner import run_match

    svc = app.extensions["referee"]
    ids = schedule(svc.engine, GAME, [([bot_id, opponent], 100 + i, None) for i in range(n)],
                   rated=True)
    assert [run_match(svc.engine, pk, svc.policy, lease_s=30) for pk in ids] == \
        ["finished"] * n
    return ids


def test_five_forfeits_in_a_row_pause(anon):
    from service.conftest import fast_bot

    app = anon.app
    svc = app.extensions["referee"]
    with BotServer(Forfeiter("random", None, 5)) as server:
        alice = anon.owner("alice")
        bot_id = register(alice, server.url)
        other = fast_bot(svc.engine)
        play_rated(app, bot_id, other, 4)
        assert health.check_forfeits(svc.engine) == {}
        play_rated(app, bot_id, other, 1)
        assert health.check_forfeits(svc.engine) == {
            bot_id: Verdict(PAUSED, "forfeits: 5 forfeits in a row")}
        assert health.check_forfeits(svc.engine) == {}  # once
    assert entries(svc.engine, bot_id) == {GAME: "forfeits: 5 forfeits in a row"}
    kinds = [a["kind"] for a in alice.get("/api/v1/me/alerts").json["items"]]
    assert kinds == ["paused"]
    matches = anon.get(f"/api/v1/bots/{bot_id}/matches?result=loss").json
    assert matches["total"] == 5 and all(m["outcome"] == "loss" for m in matches["items"])


def test_a_played_match_breaks_the_forfeit_streak(anon, bot_url):
    from service.conftest import fast_bot

    app = anon.app
    svc = app.extensions["referee"]
    with BotServer(Forfeiter("random", None, 6)) as server:
        bot_id = register(anon.owner("alice"), server.url)
        other = fast_bot(svc.engine)
        play_rated(app, bot_id, other, 4)
    good = BotServer(BotApp("random", None, 6), port=server.port).start()
    try:
        play_rated(app, bot_id, other, 1)  # plays properly
    finally:
        good.stop()
    with BotServer(Forfeiter("random", None, 6), port=server.port):
        play_rated(app, bot_id, other, 4)
    assert health.check_forfeits(svc.engine) == {}
    with svc.engine.connect() as conn:
        assert health.forfeit_streak(conn, bot_id) == 4


def test_alerts_need_a_token_and_refuse_unknown_parameters(anon):
    assert anon.get("/api/v1/me/alerts").status_code == 401
    alice = anon.owner("alice")
    empty = alice.get("/api/v1/me/alerts").json
    assert empty == {"items": [], "total": 0, "page": 1, "per_page": 20}
    bad = alice.get("/api/v1/me/alerts?colour=red")
    assert bad.status_code == 422 and "colour" in str(bad.json["errors"])
    assert alice.get("/api/v1/me/alerts?per_page=0").status_code == 422


def test_the_embedded_pool_runs_the_health_tick(tmp_path, bot_url):
    """The embedded server's health thread probes on its own (a short tick and interval)."""
    import time

    from api.config import ServiceConfig
    from api.startup import serving_app

    config = ServiceConfig(db_url=f"sqlite:///{tmp_path / 'e.sqlite3'}", ratelimit=False,
                           allow_networks="127.0.0.0/8", health_s=0.2, probe_interval_s=0.0,
                           workers=1)
    app = serving_app(config)
    svc = app.extensions["referee"]
    try:
        client = app.test_client()
        token = client.post("/api/v1/owners", json={"name": "alice"}).json["token"]
        answer = client.post("/api/v1/bots", headers={"Authorization": f"Bearer {token}"},
                             json={"name": "b", "url": bot_url, "games": [GAME]})
        bot_id = answer.json["id"]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with svc.engine.connect() as conn:
                probes = conn.execute(select(HealthCheck.id).where(
                    HealthCheck.bot_id == bot_id)).all()
            if len(probes) >= 3:  # the registration probe, then the health thread's
                break
            time.sleep(0.1)
        else:
            pytest.fail("the health thread did not probe")
    finally:
        svc.dispatcher.close()
        svc.engine.dispose()


def test_celery_beat_runs_the_health_tick(tmp_path, monkeypatch, bot_url):
    """The beat entry names the health task, every ``health_s``; the task probes the bots
    of the database the worker's environment names (run here in-process, no broker)."""
    import api.tasks
    from api.config import ServiceConfig
    from api.tasks import make_celery

    from support.apps import NoDispatcher, prepared_app

    url = f"sqlite:///{tmp_path / 'beat.sqlite3'}"
    app = prepared_app(ServiceConfig(db_url=url, ratelimit=False, allow_networks="127.0.0.0/8"),
                     dispatcher=NoDispatcher())
    client = Client(app)
    bot_id = register(client.owner("alice"), bot_url)
    monkeypatch.setenv("REFEREE_DB", url)
    monkeypatch.setenv("REFEREE_ALLOW_NETWORKS", "127.0.0.0/8")
    monkeypatch.setenv("REFEREE_PROBE_INTERVAL_S", "0")
    monkeypatch.setattr(api.tasks, "_engine", None)
    celery = make_celery("redis://127.0.0.1:6379/15", "health-test",
                         ServiceConfig(health_s=7.0))
    try:
        assert celery.conf.beat_schedule["referee-health"] == {"task": "referee.health",
                                                               "schedule": 7.0}
        summary = celery.tasks["referee.health"]()
        assert summary == {"probed": 1, "failed": [], "paused": {}, "resumed": {}}
        with app.extensions["referee"].engine.connect() as conn:
            probes = conn.execute(select(HealthCheck.status).where(
                HealthCheck.bot_id == bot_id).order_by(HealthCheck.id)).scalars().all()
        assert probes == ["ok", "ok"]  # registration, then the beat's probe
    finally:
        celery.close()
        if api.tasks._engine is not None:
            api.tasks._engine[1].dispose()
        app.extensions["referee"].engine.dispose()


def test_a_referee_failure_is_no_evidence_against_the_bot(anon, bot_url, monkeypatch):
    import api.health

    svc = anon.app.extensions["referee"]
    bot_id = register(anon.owner("alice"), bot_url)

    def broken(*args, **kwargs):
        raise RuntimeError("a referee bug")

    monkeypatch.setattr(api.health, "dry_run", broken)
    clock = now_utc()
    for hour in range(1, 5):
        run = probe_due(svc.engine, svc.policy, clock + timedelta(hours=hour))
        assert run.probed == {} and not run.paused
    assert entries(svc.engine, bot_id) == {GAME: None}


def test_overlapping_ticks_count_one_probe_once(anon):
    """A tick that finds a probe recorded since it chose the bot drops its own."""
    svc = anon.app.extensions["referee"]
    server = BotServer(BotApp("random", None, 9)).start()
    bot_id = register(anon.owner("alice"), server.url)
    server.stop()
    clock = now_utc() + timedelta(hours=1)
    [first] = health.due(svc.engine, clock)
    [second] = health.due(svc.engine, clock)  # a second tick, before the first records
    failed = health.ProbeOutcome(False, None, "connection_error", "down")
    health.record_probe(svc.engine, bot_id, failed, clock, due_since=first)
    assert health.record_probe(svc.engine, bot_id, failed, clock, due_since=second) is None
    with svc.engine.connect() as conn:
        statuses = conn.execute(select(HealthCheck.status).where(
            HealthCheck.bot_id == bot_id)).scalars().all()
    assert statuses == ["ok", "connection_error"]


def test_a_bot_on_no_ladder_has_nothing_to_pause(anon):
    svc = anon.app.extensions["referee"]
    server = BotServer(BotApp("random", None, 10)).start()
    alice = anon.owner("alice")
    bot_id = register(alice, server.url, join=False)
    server.stop()
    clock = now_utc()
    for hour in range(1, 5):
        run = probe_due(svc.engine, svc.policy, clock + timedelta(hours=hour))
        assert run.probed == {bot_id: False} and not run.paused  # probed all the same
    assert entries(svc.engine, bot_id) == {}
    assert alice.get("/api/v1/me/alerts").json["total"] == 0

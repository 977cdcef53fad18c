"""Bot checks are jobs: the request queues one and answers at once, a worker runs it, the owner
polls it; one pending check per bot; a check whose worker died fails instead of blocking."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from api.dispatch import EmbeddedPool
from api.execution import check as real_check
from ladder import checks
from ladder.accounts import now_utc
from ladder.models import BotCheck, HealthCheck
from ladder.work import SweepPolicy
from referee.netpolicy import UrlPolicy

from service.conftest import Client, checked, drain_checks
from support.http_bots import HostileServer

QUICK_S = 2.5
"""Well over what a request takes on a loaded machine, well under a check played in the
request (three strikes of the bot cost three 1 s deadlines before the match can even end)."""


def register(client, url, name="mybot", games=("toy-race",)):
    answer = client.post("/api/v1/bots", json={"name": name, "url": url, "games": list(games)})
    assert answer.status_code == 201, answer.json
    return answer.json["id"]


def timed(call, *args, **kwargs):
    began = time.monotonic()
    answer = call(*args, **kwargs)
    return answer, time.monotonic() - began


def wait_for(condition, timeout=60.0):
    give_up = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < give_up, "condition not met in time"
        time.sleep(0.05)
    return found


def over(check):
    return check if check["state"] in ("done", "failed") else None


def test_the_request_only_queues_the_check(anon, app):
    """A bot that never answers a decision in time: the request answers at once without
    touching it, with the queued check and where to poll it."""
    with HostileServer("sleep", delay=30) as bot:
        alice = anon.owner("alice")
        bot_id = register(alice, bot.url)
        seen = bot.connections
        asked, took = timed(alice.post, f"/api/v1/bots/{bot_id}/check")
        assert asked.status_code == 202 and took < QUICK_S, (asked.json, took)
        assert bot.connections == seen and not bot.arrivals  # nothing was asked of the bot
        check = asked.json
        assert check["state"] == "queued" and check["bot_id"] == bot_id
        assert check["game"] == "toy-race" and check["report"] is None
        assert check["started_at"] is None and check["bot_version"] is None
        assert asked.headers["Location"].endswith(f"/api/v1/bots/{bot_id}/checks/{check['id']}")
        assert alice.get(asked.headers["Location"]).json == check
        listed = alice.get(f"/api/v1/bots/{bot_id}/checks").json
        assert listed["total"] == 1 and listed["items"] == [check]
        assert app.extensions["referee"].dispatcher.checks == [check["id"]]


def test_one_pending_check_per_bot(make_service, db_url, bot_url):
    app = make_service(db_url)
    alice = Client(app).owner("alice")
    bot_id = register(alice, bot_url, games=["toy-race", "tokaido-duo"])
    first = alice.post(f"/api/v1/bots/{bot_id}/check?game=toy-race")
    assert first.status_code == 202
    again = alice.post(f"/api/v1/bots/{bot_id}/check?game=toy-race")
    assert again.status_code == 200 and again.json["id"] == first.json["id"]
    assert again.headers["Location"] == first.headers["Location"]
    other = alice.post(f"/api/v1/bots/{bot_id}/check?game=tokaido-duo")
    assert other.status_code == 409 and f"check {first.json['id']}" in other.json["message"]
    svc = app.extensions["referee"]
    running = checks.claim(svc.engine, first.json["id"], "a-worker", 30)  # now it runs
    assert running is not None
    assert alice.post(f"/api/v1/bots/{bot_id}/check?game=toy-race").json["state"] == "running"
    assert svc.dispatcher.checks == [first.json["id"]]  # enqueued once
    assert checks.claim(svc.engine, first.json["id"], "another", 30) is None  # a duplicate
    svc.dispatcher.checks = []
    checks.fail(svc.engine, running, "test")
    assert alice.post(f"/api/v1/bots/{bot_id}/check?game=tokaido-duo").status_code == 202


def test_an_owner_has_at_most_two_checks_pending(anon, app):
    """Each check takes a worker for up to a match: one owner's twenty bots cannot fill the
    workers the ladders share."""
    from ladder.checks import MAX_PENDING_PER_OWNER

    alice, bob = anon.owner("alice"), anon.owner("bob")
    servers = [HostileServer("ok") for _ in range(MAX_PENDING_PER_OWNER + 2)]
    with servers[0], servers[1], servers[2], servers[3]:
        bots = [register(alice, s.url, name=f"b{i}") for i, s in enumerate(servers[:3])]
        asked = [alice.post(f"/api/v1/bots/{b}/check") for b in bots]
        assert [a.status_code for a in asked] == [202] * MAX_PENDING_PER_OWNER + [409]
        assert f"at most {MAX_PENDING_PER_OWNER} at once" in asked[-1].json["message"]
        theirs = register(bob, servers[3].url, name="bobs")
        assert bob.post(f"/api/v1/bots/{theirs}/check").status_code == 202  # bob's own count
        drain_checks(app)  # the pending ones run
        assert alice.post(f"/api/v1/bots/{bots[-1]}/check").status_code == 202


def test_only_the_owner_sees_and_asks_for_checks(anon, bot_url):
    alice, bob = anon.owner("alice"), anon.owner("bob")
    bot_id = register(alice, bot_url)
    check = alice.post(f"/api/v1/bots/{bot_id}/check").json
    path = f"/api/v1/bots/{bot_id}/checks"
    assert bob.post(f"/api/v1/bots/{bot_id}/check").status_code == 403
    assert bob.get(path).status_code == 403 and bob.get(f"{path}/{check['id']}").status_code == 403
    assert anon.get(path).status_code == 401
    assert alice.get(f"{path}/{check['id'] + 1}").status_code == 404
    assert alice.get("/api/v1/bots/999999/checks").status_code == 404
    assert alice.post(f"/api/v1/bots/{bot_id}/check?game=doubletrack").status_code == 422
    assert alice.post(f"/api/v1/bots/{bot_id}/check?game=chess").status_code == 422
    assert alice.post("/api/v1/bots/1/check").status_code == 403  # a house bot


def test_a_finished_check_keeps_the_health_record_and_frees_the_bot(anon, app, bot_url):
    alice = anon.owner("alice")
    bot_id = register(alice, bot_url)
    svc = app.extensions["referee"]
    with svc.engine.connect() as conn:
        conn.execute(update(HealthCheck).values(ok=False, status="timeout"))  # an old probe
        conn.commit()
    done = checked(alice, bot_id)
    assert done["state"] == "done" and done["report"]["ok"] and done["error"] is None
    assert done["started_at"] and done["finished_at"] and done["bot_version"] == 1
    assert alice.get(f"/api/v1/bots/{bot_id}").json["health"]["ok"]  # the check's GET /
    assert drain_checks(app) == []
    assert alice.post(f"/api/v1/bots/{bot_id}/check").status_code == 202  # a new one


def test_the_embedded_workers_run_a_check_while_the_api_answers(make_service):
    """The issue's case: a bot that holds every decision.  The embedded pool's worker is
    inside the bot's decisions while the API answers the owner, the poll and /healthz."""
    app = make_service()
    svc = app.extensions["referee"]
    pool = EmbeddedPool(svc.engine, svc.policy, workers=1, lease_s=30, sweep_s=3600,
                        sweep_policy=SweepPolicy(), tick_s=3600)
    svc.dispatcher = pool
    try:
        with HostileServer("sleep", delay=30) as bot:
            alice = Client(app).owner("alice")
            bot_id = register(alice, bot.url)
            asked, took = timed(alice.post, f"/api/v1/bots/{bot_id}/check")
            assert asked.status_code == 202 and took < QUICK_S
            wait_for(lambda: bot.arrivals)  # a worker waits on the bot's first decision
            for path in (asked.headers["Location"], f"/api/v1/bots/{bot_id}/checks",
                         "/healthz"):
                answer, took = timed(alice.get, path)
                assert answer.status_code == 200 and took < QUICK_S, (path, took)
            again, took = timed(alice.post, f"/api/v1/bots/{bot_id}/check")
            assert again.status_code in (200, 202) and took < QUICK_S
            final = wait_for(lambda: over(alice.get(asked.headers["Location"]).json))
    finally:
        pool.close()
    assert final["state"] == "done" and not final["report"]["ok"]
    decide = next(c for c in final["report"]["calls"] if c["call"] == "/decide")
    assert decide["statuses"].get("timeout", 0) >= 1


def test_a_check_whose_worker_died_fails_and_frees_the_bot(anon, app, bot_url):
    alice = anon.owner("alice")
    bot_id = register(alice, bot_url)
    svc = app.extensions["referee"]
    first = alice.post(f"/api/v1/bots/{bot_id}/check").json
    past = now_utc() - timedelta(seconds=120)
    assert checks.claim(svc.engine, first["id"], "dead-worker", 60, now=past)  # then it died
    retried = alice.post(f"/api/v1/bots/{bot_id}/check")
    assert retried.status_code == 202 and retried.json["id"] != first["id"]
    old = alice.get(f"/api/v1/bots/{bot_id}/checks/{first['id']}").json
    assert old["state"] == "failed" and "worker stopped" in old["error"]
    assert old["finished_at"] is not None and old["report"] is None


def test_the_sweeper_fails_lapsed_checks_and_offers_lost_ones_again(make_service, db_url,
                                                                     bot_url):
    app = make_service(db_url)
    alice = Client(app).owner("alice")
    ids = [register(alice, bot_url), 1, 2]  # and two house bots, checked from here
    svc = app.extensions["referee"]
    lapsed = alice.post(f"/api/v1/bots/{ids[0]}/check").json["id"]
    lost, old = (checks.request(svc.engine, b, "toy-race", prove=False)[0]["id"]
                 for b in ids[1:])
    now = now_utc()
    held = checks.claim(svc.engine, lapsed, "w", 60, now=now - timedelta(seconds=61))
    assert held is not None
    assert checks.renew(svc.engine, held, 60)  # alive: renewed
    assert checks.sweep(svc.engine, requeue_after_s=120, max_wait_s=3600, now=now) == []
    with svc.engine.begin() as conn:
        conn.execute(update(BotCheck).where(BotCheck.id == old).values(
            created_at=now - timedelta(seconds=4000)))
    later = now + timedelta(seconds=200)  # past the lease and the requeue delay
    assert checks.sweep(svc.engine, requeue_after_s=120, max_wait_s=3600, now=later) == [lost]
    assert checks.sweep(svc.engine, requeue_after_s=120, max_wait_s=3600, now=later) == []
    states = {c: checks.check_detail(svc.engine, b, c)
              for b, c in zip(ids, (lapsed, lost, old))}
    assert states[lapsed]["state"] == "failed" and "worker stopped" in states[lapsed]["error"]
    assert states[lost]["state"] == "queued"
    assert states[old]["state"] == "failed" and "no worker took it" in states[old]["error"]
    assert not checks.finish(svc.engine, held, {}, passed=True,
                             info=checks.InfoProbe(True, 1.0, "ok", ""))  # too late


def test_a_check_cannot_run_past_its_bound(app, anon, bot_url):
    alice = anon.owner("alice")
    bot_id = register(alice, bot_url)
    svc = app.extensions["referee"]
    check_id = alice.post(f"/api/v1/bots/{bot_id}/check").json["id"]
    began = now_utc() - timedelta(seconds=checks.MAX_CHECK_S + 1)
    held = checks.claim(svc.engine, check_id, "w", 60, now=began)
    assert held is not None and not checks.renew(svc.engine, held, 60)  # no more extensions
    checks.sweep(svc.engine, requeue_after_s=120, max_wait_s=3600,
                 now=now_utc() + timedelta(seconds=120))
    failed = alice.get(f"/api/v1/bots/{bot_id}/checks/{check_id}").json
    assert failed["state"] == "failed" and "ran longer than" in failed["error"]


@pytest.mark.parametrize("what", ["retired", "refused", "referee error"])
def test_a_check_that_cannot_run_fails_with_the_reason(anon, app, bot_url, what):
    from api.execution import run_check

    alice = anon.owner("alice")
    bot_id = register(alice, bot_url)
    svc = app.extensions["referee"]
    check_id = alice.post(f"/api/v1/bots/{bot_id}/check").json["id"]
    policy, run = svc.policy, None
    if what == "retired":
        assert alice.delete(f"/api/v1/bots/{bot_id}").status_code == 204
    elif what == "refused":
        policy = UrlPolicy(resolver=svc.config.resolver)  # loopback is not allowed here

    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    if what == "referee error":
        run = broken
    with svc.engine.connect() as conn:
        probes = len(conn.execute(select(HealthCheck.id)).all())
    outcome = run_check(svc.engine, check_id, policy, lease_s=30, run=run)
    assert outcome == ("nothing" if what == "retired" else "failed")
    doc = alice.get(f"/api/v1/bots/{bot_id}/checks/{check_id}").json
    expected = {"retired": "retired", "refused": "bot URL refused",
                "referee error": "referee error (RecursionError)"}[what]
    assert doc["state"] == "failed" and expected in doc["error"] and doc["report"] is None
    with svc.engine.connect() as conn:
        assert len(conn.execute(select(HealthCheck.id)).all()) == probes  # no health record


def test_only_the_version_checked_is_verified(make_service):
    """A URL changed while its check ran: the passing check verifies the old URL, not the
    new one, so the bot stays unverified."""
    from api.execution import run_check

    app = make_service(ownership_proof=True)
    svc = app.extensions["referee"]
    alice = Client(app).owner("alice")
    info = {"name": "echo", "games": ["toy-race"], "protocol": 1}
    with HostileServer("ok", info=info) as first, HostileServer("ok", info=info) as second:
        bot = alice.post("/api/v1/bots", json={"name": "echo", "url": first.url,
                                               "games": ["toy-race"]}).json
        info["verify"] = bot["verify_nonce"]
        check_id = alice.post(f"/api/v1/bots/{bot['id']}/check").json["id"]

        def moving(*args, **kwargs):
            moved = alice.patch(f"/api/v1/bots/{bot['id']}", json={"url": second.url})
            assert moved.status_code == 200 and moved.json["version"] == 2
            return real_check(*args, **kwargs)

        assert run_check(svc.engine, check_id, svc.policy, lease_s=30, run=moving) == "done"
        svc.dispatcher.checks.clear()  # run here, by hand
        doc = alice.get(f"/api/v1/bots/{bot['id']}/checks/{check_id}").json
        assert doc["report"]["ok"] and doc["bot_version"] == 1
        assert alice.get(f"/api/v1/bots/{bot['id']}").json["status"] == "unverified"
        assert checked(alice, bot["id"])["bot_version"] == 2
        assert alice.get(f"/api/v1/bots/{bot['id']}").json["status"] == "active"


def test_old_checks_are_pruned(make_service, db_url, bot_url, monkeypatch):
    monkeypatch.setattr(checks, "KEEP_PER_BOT", 3)
    alice = Client(make_service(db_url)).owner("alice")
    bot_id = register(alice, bot_url)
    made = [checked(alice, bot_id)["id"] for _ in range(5)]
    listed = alice.get(f"/api/v1/bots/{bot_id}/checks").json
    assert [c["id"] for c in listed["items"]] == made[:-4:-1] and listed["total"] == 3


def test_a_restarted_embedded_server_runs_the_checks_left_queued(anon, app, bot_url):
    alice = anon.owner("alice")
    bot_id = register(alice, bot_url)
    check_id = alice.post(f"/api/v1/bots/{bot_id}/check").json["id"]  # then the server stops
    svc = app.extensions["referee"]
    pool = EmbeddedPool(svc.engine, svc.policy, workers=1, lease_s=30, sweep_s=3600,
                        sweep_policy=SweepPolicy(), tick_s=3600)
    try:
        done = wait_for(lambda: over(checks.check_detail(svc.engine, bot_id, check_id)))
    finally:
        pool.close()
    assert done["state"] == "done" and done["report"]["ok"]

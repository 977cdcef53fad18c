"""``/metrics`` scraped as Prometheus scrapes it (``prometheus_client``'s own text parser), the
counters moving as matches play, the access rule, and the structured log lines.

Counters are per process and these tests share one: each compares a scrape with the scrape
before the step it checks.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from api.config import ServiceConfig
from api.logs import JsonFormatter, RequestIds, log_format
from api.observability import serve_worker_metrics
from api.scheduling import tick_and_enqueue
from ladder import health, metrics
from ladder.accounts import now_utc
from ladder.admin import void_match
from ladder.work import MAX_ATTEMPTS, SweepPolicy, claim, schedule, sweep

from service.conftest import Client, drain

GAME = "toy-race"
ROOT = Path(__file__).resolve().parents[2]
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: Client, **kw: Any) -> Samples:
    answer = client.get("/metrics", **kw)
    assert answer.status_code == 200, answer.data
    assert answer.mimetype == "text/plain"
    return metrics.series(answer.data.decode())


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def challenge(anon: Client, bot_url: str, games: int = 2,
              headers: dict[str, str] | None = None) -> tuple[Client, int, Any]:
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": [GAME]}).json["id"]
    answer = alice.post("/api/v1/challenges", json={"game": GAME, "bots": [mine, 1],
                                                    "games": games}, headers=headers)
    assert answer.status_code == 202, answer.json
    return alice, mine, answer


def test_the_counters_move_as_matches_play(app, anon, bot_url):
    before = scrape(anon)
    challenge(anon, bot_url, games=2)
    waiting = scrape(anon)
    assert value(waiting, "referee_queue_matches", game=GAME, state="waiting") == 2
    assert value(waiting, "referee_queue_oldest_waiting_seconds") >= 0
    assert value(waiting, "referee_database_up") == 1
    assert moved(before, waiting, "referee_matches_total", game=GAME, state="scheduled") == 2
    assert moved(before, waiting, "referee_http_requests_total", route="/api/v1/challenges",
                 method="POST", status="202") == 1
    assert drain(app) == ["finished", "finished"]
    after = scrape(anon)
    assert moved(waiting, after, "referee_matches_total", game=GAME, state="running") == 2
    assert moved(waiting, after, "referee_matches_total", game=GAME, state="finished") == 2
    assert value(after, "referee_queue_matches", game=GAME, state="waiting") == 0
    decisions = moved(waiting, after, "referee_decision_seconds_count", game=GAME)
    assert decisions >= 2  # every decision of both matches, each observed once
    assert moved(waiting, after, "referee_decision_seconds_bucket", game=GAME,
                 le="+Inf") == decisions
    assert moved(waiting, after, "referee_http_request_seconds_count",
                 route="/metrics") == 1  # the scrape before this one


def test_voids_and_lease_expiries_are_counted_by_cause(app):
    engine = app.extensions["referee"].engine
    before = metrics.series(metrics.exposition(engine).decode())
    [pk] = schedule(engine, GAME, [([1, 2], 7, None)], rated=False)
    t = now_utc()
    for attempt in range(MAX_ATTEMPTS):  # each attempt's worker is lost: its lease lapses
        assert claim(engine, pk, f"w{attempt}", lease_s=5, now=t) is not None
        t += timedelta(seconds=10)
        due = sweep(engine, SweepPolicy(), now=t)
        assert due == ([pk] if attempt < MAX_ATTEMPTS - 1 else [])
    after = metrics.series(metrics.exposition(engine).decode())
    assert moved(before, after, "referee_lease_expiries_total", game=GAME) == MAX_ATTEMPTS - 1
    assert moved(before, after, "referee_voids_total", game=GAME, cause="attempts") == 1
    assert moved(before, after, "referee_matches_total", game=GAME, state="voided") == 1
    assert moved(before, after, "referee_matches_total", game=GAME,
                 state="running") == MAX_ATTEMPTS
    [other] = schedule(engine, GAME, [([1, 2], 8, None)], rated=False)
    void_match(engine, other, "the operator's own words")
    last = metrics.series(metrics.exposition(engine).decode())
    assert moved(after, last, "referee_voids_total", game=GAME, cause="admin") == 1


def test_void_causes_are_a_bounded_set():
    assert metrics.void_cause("no result after 3 attempts") == "attempts"
    assert metrics.void_cause("not over within the age cap") == "age_cap"
    assert metrics.void_cause("bot retired before the match: x") == "retired"
    assert metrics.void_cause("cancelled: bot 4 no longer eligible") == "cancelled"
    assert metrics.void_cause("an admin's own words") == "other"


def test_probes_ticks_and_strikes_are_counted(app, anon, bot_url):
    svc = app.extensions["referee"]
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": [GAME]}).json["id"]
    before = metrics.series(metrics.exposition().decode())
    health.record_probe(svc.engine, mine, health.ProbeOutcome(False, None, "timeout"))
    health.record_probe(svc.engine, mine, health.ProbeOutcome(True, 3.0, "ok"))
    tick_and_enqueue(svc.engine, svc.config.matchmaker(), None)
    metrics.finished(GAME, 0, {"decisions": [], "faults": [
        {"seat": 0, "reason": "timeout", "kind": "decide"},
        {"seat": 1, "reason": "timeout", "kind": "decide"},
        {"seat": 1, "reason": "crash", "kind": "end"}]})
    after = metrics.series(metrics.exposition().decode())
    assert moved(before, after, "referee_probes_total", result="timeout") == 1
    assert moved(before, after, "referee_probes_total", result="ok") == 1
    assert moved(before, after, "referee_tick_seconds_count") == 1
    assert moved(before, after, "referee_strikes_total", game=GAME, reason="timeout") == 2
    assert moved(before, after, "referee_strikes_total", game=GAME, reason="crash") == 0


def test_rate_limit_refusals_are_counted(make_service):
    anon = Client(make_service(ratelimit=True))
    before = scrape(anon)
    codes = [anon.http.post("/api/v1/owners", json={"name": f"o{i}"}).status_code
             for i in range(6)]
    assert codes == [201] * 5 + [429]
    after = scrape(anon)
    assert moved(before, after, "referee_rate_limited_total", route="/api/v1/owners") == 1
    assert moved(before, after, "referee_http_requests_total", route="/api/v1/owners",
                 method="POST", status="429") == 1


# -- who may read them -------------------------------------------------------------------------

ELSEWHERE = {"REMOTE_ADDR": "203.0.113.5"}


def test_loopback_may_read_the_metrics_and_no_one_else_without_the_token(anon):
    assert anon.get("/metrics").status_code == 200
    refused = anon.get("/metrics", environ_base=ELSEWHERE)
    assert refused.status_code == 403
    assert "REFEREE_METRICS_TOKEN" in refused.data.decode()
    # a proxy on this host forwarding a stranger's request is not a local reader
    assert anon.get("/metrics", headers={"X-Forwarded-For": "198.51.100.7"}).status_code == 403
    # /metrics is no API operation: not in the OpenAPI document
    assert "/metrics" not in anon.get("/api/openapi.json").json["paths"]


def test_the_metrics_token_and_the_allowed_networks_open_them(make_service):
    anon = Client(make_service(metrics_token="s3cret-metrics",
                               metrics_networks="10.0.0.0/8, 2001:db8::/32"))
    assert anon.get("/metrics", environ_base=ELSEWHERE,
                    headers={"Authorization": "Bearer s3cret-metrics"}).status_code == 200
    assert anon.get("/metrics", environ_base=ELSEWHERE,
                    headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert anon.get("/metrics", environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 200
    assert anon.get("/metrics", environ_base={"REMOTE_ADDR": "2001:db8::5"}).status_code == 200
    assert anon.get("/metrics", environ_base={"REMOTE_ADDR": "11.1.2.3"}).status_code == 403


def test_behind_trusted_proxies_loopback_is_the_socket_and_the_client_both(make_service):
    """With a proxy trusted, ``X-Forwarded-For`` names the client; a stranger reaching the app
    past the proxy writes ``127.0.0.1`` there himself, and is still a stranger."""
    anon = Client(make_service(trusted_proxies=1))
    local_proxy = {"REMOTE_ADDR": "127.0.0.1"}
    assert anon.get("/metrics", environ_base=ELSEWHERE,
                    headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 403
    assert anon.get("/metrics", environ_base=local_proxy,
                    headers={"X-Forwarded-For": "198.51.100.7"}).status_code == 403
    assert anon.get("/metrics", environ_base=local_proxy,
                    headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 200
    assert anon.get("/metrics", environ_base=local_proxy).status_code == 200


def test_a_bad_metrics_network_is_refused_at_start(monkeypatch):
    monkeypatch.setenv("REFEREE_METRICS_NETWORKS", "10.0.0.0/8, nonsense")
    with pytest.raises(ValueError, match="REFEREE_METRICS_NETWORKS: 'nonsense'"):
        ServiceConfig.from_env()


def test_a_workers_metrics_port_answers_under_the_same_rule():
    server = serve_worker_metrics(ServiceConfig(), "127.0.0.1", 0)
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        with urllib.request.urlopen(f"{base}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        assert ("referee_tick_seconds_count", ()) in metrics.series(text)
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{base}/elsewhere", timeout=10)
        assert missing.value.code == 404
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("given", [False, True])
def test_processes_sharing_the_directory_are_summed(tmp_path, given):
    """What gunicorn's workers and a Celery pool do: children count, the parent reports the
    sum.  A private directory is gone when the command exits; one named in the environment
    is emptied of a previous run's files at start (one left unreadable would break every
    scrape) and kept."""
    script = """
import os
from cli.observe import prepare_dir
folder = prepare_dir()
print(folder)
from ladder import metrics
pid = os.fork()
if pid == 0:
    metrics.MATCHES.labels("g", "finished").inc(3)
    os._exit(0)
os.waitpid(pid, 0)
metrics.MATCHES.labels("g", "finished").inc(2)
print(metrics.exposition().decode())
"""
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    if given:
        named = tmp_path / "metrics"
        named.mkdir()
        (named / "counter_999999.db").write_bytes(b"left by a crashed run")
        env["PROMETHEUS_MULTIPROC_DIR"] = str(named)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    folder, text = out.split("\n", 1)
    assert value(metrics.series(text), "referee_matches_total", game="g",
                 state="finished") == 5
    assert folder.startswith(str(tmp_path))
    if given:
        assert folder == str(named) and not (named / "counter_999999.db").exists()
    else:
        assert not Path(folder).exists()


# -- the log lines -----------------------------------------------------------------------------

@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """What the JSON log set-up writes, for the request and match loggers."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIds())
    loggers = [logging.getLogger(n) for n in ("referee.access", "referee.matches")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)
    try:
        yield out
    finally:
        for lg, level in zip(loggers, levels):
            lg.removeHandler(handler)
            lg.setLevel(level)


def test_json_lines_carry_the_ids_an_operator_greps_for(app, anon, bot_url, json_lines):
    alice, mine, answer = challenge(anon, bot_url, games=2,
                                    headers={"X-Request-Id": "req-42"})
    assert answer.headers["X-Request-Id"] == "req-42"
    drain(app)
    lines = [json.loads(line) for line in json_lines.getvalue().splitlines()]
    assert all({"ts", "level", "logger", "message"} <= set(line) for line in lines)
    [request] = [x for x in lines if x.get("event") == "request"
                 and x["route"] == "/api/v1/challenges"]
    assert request["request_id"] == "req-42" and request["status"] == 202
    assert request["owner"] == alice.get("/api/v1/me").json["id"]
    ids = answer.json["match_ids"]
    states = [(x["match"], x["state"]) for x in lines if x.get("event") == "match"]
    assert states == [(ids[0], "scheduled"), (ids[1], "scheduled"),
                      (ids[0], "running"), (ids[0], "finished"),
                      (ids[1], "running"), (ids[1], "finished")]
    scheduled = [x for x in lines if x.get("state") == "scheduled"]
    assert all(x["request_id"] == "req-42" and x["game"] == GAME and x["bots"] in
               ([mine, 1], [1, mine]) for x in scheduled)
    owner = alice.get("/api/v1/me").json["id"]
    running = [x for x in lines if x.get("state") == "running"]
    assert all(owner in x["owners"] and x["worker"] for x in running)
    finished = [x for x in lines if x.get("state") == "finished"]
    assert all(sorted(x["bots"]) == sorted([mine, 1]) and x["attempt"] == 1
               for x in finished)
    bot_page = [x for x in lines if x.get("route") == "/api/v1/bots"]
    assert bot_page and bot_page[0]["status"] == 201


def test_text_lines_append_the_ids():
    from api.logs import TextFormatter

    record = logging.LogRecord("referee.matches", logging.INFO, __file__, 1, "match %s %s",
                               (12, "running"), None)
    record.__dict__.update(match=12, game=GAME, bots=[3, 4], challenge=None)
    line = TextFormatter().format(record)
    assert line.endswith("INFO referee.matches: match 12 running "
                         f"[match=12 game={GAME} bots=[3, 4]]")


def test_a_request_id_is_made_when_none_or_a_bad_one_is_given(anon):
    made = anon.get("/api/v1/games").headers["X-Request-Id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    for bad in ("two words", "x" * 200, "<script>"):
        echoed = anon.get("/api/v1/games", headers={"X-Request-Id": bad})
        assert re.fullmatch(r"[0-9a-f]{32}", echoed.headers["X-Request-Id"])
    # refused before any view: still an id
    refused = anon.post("/api/v1/owners", data="x", content_type="text/plain")
    assert refused.status_code == 415 and refused.headers["X-Request-Id"]


def test_the_log_format_setting(monkeypatch):
    monkeypatch.setenv("REFEREE_LOG_FORMAT", "JSON")
    assert log_format() == "json"
    monkeypatch.setenv("REFEREE_LOG_FORMAT", "xml")
    with pytest.raises(ValueError, match="REFEREE_LOG_FORMAT must be text or json"):
        log_format()


def test_a_bad_log_format_is_a_one_line_error_of_the_commands(monkeypatch):
    from click.testing import CliRunner

    from cli import main

    monkeypatch.setenv("REFEREE_LOG_FORMAT", "xml")
    monkeypatch.delenv("REFEREE_BROKER", raising=False)
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    for command in ("serve", "worker", "beat"):
        done = CliRunner().invoke(main, [command])
        assert done.exit_code == 1
        assert done.output.strip() == "Error: REFEREE_LOG_FORMAT must be text or json, not 'xml'"


def test_a_command_run_in_process_leaves_the_logging_as_it_found_it(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_BROKER", raising=False)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    done = CliRunner().invoke(main, ["serve", "--db", "nosuch://x"])
    assert done.exit_code == 1 and "unsupported database" in done.output
    assert root.handlers == handlers and root.level == level

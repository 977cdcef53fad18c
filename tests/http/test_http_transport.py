"""The HTTP transport against real loopback bots: each hostile bot is struck for the right
reason within its deadline, the match still ends with a recorded result, other seats are
unaffected, and simultaneous decisions are asked concurrently."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from bots.random_bot import RandomBot
from referee.match import MatchRecord, TimeControl, play
from referee.players import InProcessPlayer, Player
from referee.protocol import schema_errors
from referee.replay import replay
from referee.transport import BotUrlError, HttpPlayer, fetch_info

from support.http_bots import HOSTILE_MATRIX, HostileServer, free_port

DEADLINE_MS = 200
CUT_SLACK_MS = 500
"""How late past its deadline a cut-off call may end: generous for a loaded CI machine, and
still well short of the 1 s a sleeping bot would need to answer."""


def run(game, seats: list[Player], seed: int = 4, deadline_ms: int = DEADLINE_MS,
        bank_ms: int = 0, strikes: int = 3) -> tuple[MatchRecord, float]:
    began = time.monotonic()
    record = play(game, seats, seed, time_control=TimeControl(deadline_ms, bank_ms),
                  strikes=strikes)
    return record, time.monotonic() - began


def randoms(n: int, first: int = 1) -> list[Player]:
    return [InProcessPlayer(name=f"random{i}", bot=RandomBot("toy-race", i))
            for i in range(first, first + n)]


def assert_recorded(record: MatchRecord) -> None:
    assert schema_errors("match-log", record.log) == []
    outcome = replay(record.log)
    assert outcome.matches, outcome.differences


def test_well_behaved_bot_plays_clean_on_one_connection(toy_game):
    with HostileServer("ok") as bot:
        record, _ = run(toy_game, [HttpPlayer(name="ok", url=bot.url), *randoms(1)])
    assert record.log["faults"] == [] and record.seats[0].strikes == 0
    mine = [d for d in record.log["decisions"] if d["seat"] == 0]
    assert mine and all(d["status"] == "ok" and d["log"] == "thinking" for d in mine)
    assert bot.connections == 1  # /start, every /decide and /end on one keep-alive connection
    assert len(bot.bodies["/start"]) == len(bot.bodies["/end"]) == 1
    assert_recorded(record)


HOSTILE = HOSTILE_MATRIX


@pytest.mark.parametrize("mode,delay,reason", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_bot_is_struck_with_the_right_reason(toy_game, mode, delay, reason):
    with HostileServer(mode, delay) as bot:
        record, seconds = run(toy_game, [HttpPlayer(name=mode, url=bot.url), *randoms(1)])
    faults = record.log["faults"]
    assert [f["reason"] for f in faults] == [reason] * 3, faults
    assert record.seats[0].forfeited and record.result.end.value == "forfeit"
    assert record.result.winners == (1,)
    assert all(d["status"] == "ok" for d in record.log["decisions"] if d["seat"] == 1)
    # three strikes at most a deadline each, then the fallback plays on without asking
    assert seconds < 3 * DEADLINE_MS / 1000 + 1.0
    for d in record.log["decisions"]:
        if d["seat"] == 0 and d["status"] == "timeout":
            assert DEADLINE_MS <= d["ms"] < DEADLINE_MS + CUT_SLACK_MS
    assert_recorded(record)


def test_redirect_is_reported_and_not_followed(toy_game):
    with HostileServer("redirect") as bot:
        record, _ = run(toy_game, [HttpPlayer(name="r", url=bot.url), *randoms(1)])
    assert "never followed" in record.log["faults"][0]["detail"]


def test_bot_not_listening_is_struck_at_start_without_waiting(toy_game):
    url = f"http://127.0.0.1:{free_port()}"
    record, seconds = run(toy_game, [HttpPlayer(name="down", url=url), *randoms(1)])
    faults = record.log["faults"]
    assert faults[0]["kind"] == "start" and faults[0]["reason"] == "connection_error"
    assert {f["reason"] for f in faults} == {"connection_error"}
    assert record.seats[0].forfeited and record.result.winners == (1,)
    assert seconds < 1.0
    assert_recorded(record)


def test_slow_seat_does_not_eat_other_seats_deadlines(toy_game):
    """A bot that always sleeps past the deadline next to one that answers at 40 % of it."""
    with HostileServer("sleep", 1.0) as hostile, HostileServer("sleep", 0.12) as steady:
        seats = [HttpPlayer(name="hostile", url=hostile.url),
                 HttpPlayer(name="steady", url=steady.url), *randoms(1)]
        record, _ = run(toy_game, seats, seed=9, deadline_ms=300, strikes=100)
    by_seat = {s: [d for d in record.log["decisions"] if d["seat"] == s] for s in range(3)}
    assert all(d["status"] == "timeout" for d in by_seat[0])
    assert by_seat[1] and all(d["status"] == "ok" for d in by_seat[1])
    assert record.seats[1].strikes == 0
    assert_recorded(record)


def test_sealed_bids_are_asked_concurrently(toy_game):
    """Three bots that each need 150 ms: a bid step costs about 150 ms, not 450 ms."""
    servers = [HostileServer("sleep", 0.15, choose="last") for _ in range(3)]
    for s in servers:
        s.__enter__()
    try:
        seats: list[Player] = [HttpPlayer(name=f"s{i}", url=s.url) for i, s in enumerate(servers)]
        record, seconds = run(toy_game, seats, seed=2, deadline_ms=400)
    finally:
        for s in servers:
            s.__exit__()
    assert record.log["faults"] == []
    steps: dict[str, list[float]] = {}
    for server in servers:
        for at, request_id in server.arrivals:
            steps.setdefault(request_id.rsplit(":", 1)[0], []).append(at)
    bids = [times for times in steps.values() if len(times) == 3]
    assert bids, "the toy game has sealed bid steps"
    assert all(max(t) - min(t) < 0.1 for t in bids)  # all three asked at once
    total_steps = len(steps)
    assert seconds < total_steps * 0.15 + 0.1 * len(bids) + 1.0


def test_bank_absorbs_overage_then_runs_out(toy_game):
    """100 ms per decision plus a 400 ms bank: a bot answering in 250 ms pays at least 150 ms
    of bank per answer, so it runs out after one or two answers and every later answer is cut
    off at its deadline. Only lower bounds on the bot's time are exact (it sleeps 250 ms); how
    much longer a loaded machine takes is left loose."""
    with HostileServer("sleep", 0.25) as bot:
        player = HttpPlayer(name="slow", url=bot.url)
        record, _ = run(toy_game, [player, *randoms(1)], seed=4, deadline_ms=100, bank_ms=400,
                        strikes=100)
    mine = [d for d in record.log["decisions"] if d["seat"] == 0]
    statuses = [d["status"] for d in mine]
    sent = bot.bodies["/decide"]
    banks = [b["bank_ms"] for b in sent]
    assert [b["deadline_ms"] for b in sent] == [100 + b for b in banks]
    assert banks[0] == 400 and statuses[0] == "ok"
    assert banks[1] <= 250, banks  # the first answer's overage came out of the bank
    late = statuses.index("timeout")
    assert late in (1, 2) and all(s == "timeout" for s in statuses[late:]), statuses
    for d, body in zip(mine[late:], sent[late:]):  # cut off at the deadline, not waited for
        assert body["deadline_ms"] <= d["ms"] < body["deadline_ms"] + CUT_SLACK_MS


def test_players_release_their_threads_and_connections(toy_game):
    """A tournament plays thousands of matches: closed players must leave nothing behind,
    not even after timeouts (the socket is shut down, so the worker is freed at once)."""
    import threading

    with HostileServer("ok") as good, HostileServer("sleep", 0.5) as slow:
        run(toy_game, [HttpPlayer(name="warm", url=good.url), *randoms(1)])
        before = threading.active_count()
        for seed in range(4):
            run(toy_game, [HttpPlayer(name="a", url=good.url),
                           HttpPlayer(name="b", url=slow.url)], seed=seed, deadline_ms=100)
        deadline = time.monotonic() + 2
        while threading.active_count() > before and time.monotonic() < deadline:
            time.sleep(0.05)
    assert threading.active_count() <= before


def test_a_closed_player_answers_a_fault_instead_of_raising(toy_game):
    with HostileServer("ok") as bot:
        player = HttpPlayer(name="x", url=bot.url)
        player.close()
        record, _ = run(toy_game, [player, *randoms(1)])
    assert {f["reason"] for f in record.log["faults"]} == {"connection_error"}


WORKER_PATH = [("sleep", 1.0, "timeout"), ("drip_head", 0.05, "timeout"),
               ("drip_body", 0.05, "timeout"), ("huge", 0.0, "too_large"),
               ("drop", 0.0, "connection_error"), ("unknown", 0.0, "unknown_option")]


@pytest.mark.parametrize("mode,delay,reason", WORKER_PATH, ids=[w[0] for w in WORKER_PATH])
def test_host_names_take_the_worker_thread_path_with_the_same_guarantees(toy_game, mode, delay,
                                                                         reason):
    """``localhost`` needs a name lookup, so its calls run on a worker thread (the caller waits
    on the future); an IP address runs inline under the watchdog. Both cut off at the deadline."""
    with HostileServer(mode, delay) as bot:
        url = bot.url.replace("127.0.0.1", "localhost")
        player = HttpPlayer(name=mode, url=url)
        assert not player._transport.inline and HttpPlayer(name="ip", url=bot.url)._transport.inline
        record, seconds = run(toy_game, [player, *randoms(1)])
    assert [f["reason"] for f in record.log["faults"]] == [reason] * 3
    assert seconds < 3 * DEADLINE_MS / 1000 + 1.0
    for d in record.log["decisions"]:
        if d["seat"] == 0 and d["status"] == "timeout":
            assert DEADLINE_MS <= d["ms"] < DEADLINE_MS + CUT_SLACK_MS


def test_worker_path_keeps_one_connection(toy_game):
    with HostileServer("ok") as bot:
        url = bot.url.replace("127.0.0.1", "localhost")
        record, _ = run(toy_game, [HttpPlayer(name="ok", url=url), *randoms(1)])
    assert record.log["faults"] == [] and bot.connections == 1


@pytest.mark.parametrize("url", ["http://[::1", "http://[::1]:99999", "http://host:-1",
                                 "http://[foo]/", "http://a b", "ftp://x", "http://",
                                 "http://x/?q=1", "http://x/#f"])
def test_every_malformed_bot_url_is_the_clear_error(url):
    with pytest.raises(BotUrlError, match="bad bot URL"):
        HttpPlayer(name="x", url=url)


def test_https_to_a_plain_http_bot_says_so():
    """A plain HTTP server answers the TLS ClientHello with an HTTP error page; OpenSSL calls
    that 'wrong version number', the referee names the likely cause."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        def answer() -> None:
            conn, _ = server.accept()
            with conn:
                conn.recv(4096)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n"
                             b"Connection: close\r\n\r\n")

        threading.Thread(target=answer, daemon=True).start()
        info, fault = fetch_info(f"https://127.0.0.1:{server.getsockname()[1]}", 2000)
    assert info is None and fault is not None
    assert fault.reason == "connection_error" and "http://" in fault.detail
    assert str(fault).startswith("connection_error: TLS handshake failed")


def test_https_to_a_silent_plain_http_bot_times_out_with_the_hint():
    """A plain HTTP server waiting for a request line never answers the ClientHello."""
    with socket.create_server(("127.0.0.1", 0)) as server:  # accepts (backlog), never answers
        info, fault = fetch_info(f"https://127.0.0.1:{server.getsockname()[1]}", 300)
    assert info is None and fault is not None
    assert fault.reason == "timeout" and "TLS handshake" in fault.detail and "http://" in fault.detail


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"], ids=["inline", "worker-thread"])
@pytest.mark.parametrize("bug", [AttributeError, RecursionError])
def test_a_bug_of_the_referee_raises_and_is_never_a_bots_strike(monkeypatch, caplog, host, bug):
    """An exception no peer can provoke (a library upgrade breaking the hooks the transport
    overrides) is the referee's: logged with its traceback and raised, on either path."""
    from referee.core import Decision, Option
    from referee.players import DecisionRequest
    from referee.transport import Transport

    def broken(self, call, response):
        raise bug("a hook changed under us")

    monkeypatch.setattr(Transport, "_read", broken)
    decision = Decision(0, "pick", "pick", (Option("a", "a", {}), Option("b", "b", {})))
    with HostileServer("ok") as bot:
        player = HttpPlayer(name="ok", url=bot.url.replace("127.0.0.1", host))
        try:
            with pytest.raises(bug):
                player.decide(DecisionRequest("m", "toy-race", 0, "m:0:0", decision,
                                              lambda: {}, 500, 0))
        finally:
            player.close()
    assert any(r.exc_info and "the referee failed, not the bot" in r.getMessage()
               for r in caplog.records)


def test_a_non_2xx_answer_shows_what_the_bot_said_about_it(toy_game):
    with HostileServer("status_500") as bot:
        record, _ = run(toy_game, [HttpPlayer(name="s", url=bot.url), *randoms(1)])
    assert record.log["faults"][0]["detail"] == "HTTP 500 Internal Server Error: boom"

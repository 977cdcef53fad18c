"""The match-execution layer: descriptions as data, the checks before a match, ``play_match``
as the one way to play, the registries for processes started apart, and the bot check."""

from __future__ import annotations

import json
import multiprocessing
import pickle
import threading
from typing import Any

import pytest
from hypothesis import given, strategies as st

from arena import (
    DeadBotError, DescriptionError, MatchDescription, Seat, ServeError, TimeControl, check_bot,
    check_match, parse_option_pairs, play_match, probe, restore, seated, snapshot,
)
from bots import UnknownBotError, find_bot, registered_bots, unregister_bot
from referee.core import BoardError, GameOptionsError, UnknownGameError
from referee.errors import RefereeError
from referee.games import find_game, registered_games, unregister_game
from referee.match import Runner
from referee.players import InProcessPlayer
from referee.transport import BotUrlError

from support.http_bots import HostileServer, free_port

# -- descriptions ------------------------------------------------------------------------------

names = st.text("abcxyz-_.", min_size=1, max_size=8)
json_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=6)
descriptions = st.builds(
    MatchDescription,
    game=names,
    seats=st.lists(st.builds(Seat, bot=st.sampled_from(["random", "greedy", "mcts:ms=5",
                                                        "http://u:pw@bot.example:81"]),
                             name=st.none() | names), min_size=1, max_size=4).map(tuple),
    seed=st.integers(-2**63, 2**63),
    board=st.none() | names | st.dictionaries(names, json_scalars, max_size=3),
    options=st.dictionaries(names, json_scalars, max_size=3),
    time_control=st.builds(TimeControl, st.integers(1, 10**6), st.integers(0, 10**6)),
    strikes=st.integers(1, 9),
    match_id=st.none() | names,
    over_http=st.booleans(),
)


@given(descriptions)
def test_a_description_round_trips_through_json_and_pickle(description):
    assert MatchDescription.from_dict(json.loads(json.dumps(description.to_dict()))) == description
    assert pickle.loads(pickle.dumps(description)) == description


def test_from_dict_fills_defaults_and_names_the_bad_field():
    least = {"game": "toy-race", "seats": [{"bot": "random"}, {"bot": "greedy"}], "seed": 3}
    d = MatchDescription.from_dict(least)
    assert d.time_control == TimeControl() and d.strikes == 3 and d.board is None
    assert d.names() == ("random", "greedy")
    for change, needle in [({"seed": "3"}, "seed is not an integer"),
                           ({"seed": True}, "seed is not an integer"),
                           ({"seats": [{"name": "x"}]}, "seats[0].bot is missing"),
                           ({"seats": "random"}, "seats is not an array"),
                           ({"time_control": {"decision_ms": 1.5}}, "time_control.decision_ms"),
                           ({"board": 7}, "board is not a path"),
                           ({"over_http": 1}, "over_http is not true or false"),
                           ({"game": None}, "game is missing")]:
        with pytest.raises(DescriptionError, match=change and needle.replace("[", r"\[")):
            MatchDescription.from_dict({**least, **change})
    with pytest.raises(DescriptionError, match="the description is not an object"):
        MatchDescription.from_dict([least])


def test_seats_are_named_and_urls_never_shown_with_their_credentials():
    assert Seat.parse("v2=mcts:ms=50") == Seat("mcts:ms=50", "v2")
    assert Seat.parse("mcts:ms=50").shown_name == "mcts:ms=50"
    url = Seat.parse("http://me:secret@bot:8000")
    assert url.remote and url.shown_name == "http://me:***@bot:8000" and "secret" in url.bot
    with pytest.raises(DescriptionError, match="no bot after v2="):
        Seat.parse("v2=")
    assert parse_option_pairs(["automa=2", "name=x", "list=[1]"]) == {
        "automa": 2, "name": "x", "list": [1]}
    with pytest.raises(DescriptionError, match="'automa' is not key=value"):
        parse_option_pairs(["automa"])


# -- the checks before a match ------------------------------------------------------------------

def described(**changes: Any) -> MatchDescription:
    base = MatchDescription("toy-race", (Seat("random"), Seat("mcts:playouts=2")), 5)
    return MatchDescription(**{**base.__dict__, **changes})


@pytest.mark.parametrize("changes, error, needle", [
    ({"game": "chess"}, UnknownGameError, "unknown game 'chess'"),
    ({"seats": (Seat("random"),) * 5}, GameOptionsError, "got 5 bot(s)"),
    ({"options": {"automa": 2}}, GameOptionsError, "takes no options"),
    ({"game": "tokaido-duo", "board": "/no/such/board.yaml"}, BoardError,
     "bad board file /no/such/board.yaml"),
    ({"seats": (Seat("random"), Seat("randon"))}, UnknownBotError, "did you mean 'random'"),
    ({"seats": (Seat("random"), Seat("mcts:ms=0"))}, UnknownBotError, "ms must be"),
    ({"seats": (Seat("random"), Seat("htp://x"))}, BotUrlError, "must start with http://"),
    ({"seats": ()}, DescriptionError, "at least one seat"),
    ({"strikes": 0}, DescriptionError, "strikes must be at least 1"),
    ({"time_control": TimeControl(0)}, DescriptionError, "decision time"),
])
def test_check_match_raises_the_users_error_typed(changes, error, needle):
    with pytest.raises(error, match=needle.replace("(", r"\(").replace(")", r"\)")) as caught:
        check_match(described(**changes))
    assert isinstance(caught.value, RefereeError)


def test_board_data_in_a_description_is_validated_and_played():
    game = find_game("doubletrack")
    data = json.loads(json.dumps(game.load_board().data))
    record = play_match(MatchDescription("doubletrack", (Seat("random"),) * 3, 2, board=data))
    assert record.log["board"] == data
    with pytest.raises(BoardError, match="bad board data"):
        check_match(MatchDescription("doubletrack", (Seat("random"),) * 3, 2, board={"x": 1}))


# -- play_match ---------------------------------------------------------------------------------

def test_play_match_is_the_runner_with_players_seeded_per_seat(toy_game):
    """What play_match adds to the runner is the set-up: bot seeds per seat, names, closing."""
    from arena import bot_seed

    record = play_match(described(seed=9, match_id="m-9", strikes=2))
    players = [InProcessPlayer(name=spec, bot=find_bot(spec, "toy-race", bot_seed(9, seat)))
               for seat, spec in enumerate(["random", "mcts:playouts=2"])]
    by_hand = Runner(toy_game, players, 9, strikes=2, match_id="m-9").run()
    for log in (record.log, by_hand.log):
        for d in log["decisions"]:
            d.pop("ms")
            d.pop("stall_ms", None)  # the referee's own stalls: a timing too
    assert record.log == by_hand.log


def test_over_http_plays_the_same_match_and_stops_its_servers():
    before = threading.active_count()
    local = play_match(described(seed=4, match_id="m"))
    remote = play_match(described(seed=4, match_id="m", over_http=True))
    for log in (local.log, remote.log):
        for d in log["decisions"]:
            d.pop("ms")
            d.pop("stall_ms", None)  # the referee's own stalls: a timing too
    assert local.log == remote.log and remote.log["players"][1]["name"] == "mcts:playouts=2"
    assert all(s.start_ms is not None and s.end_ms is not None for s in remote.seats)
    deadline = threading.Event()
    for _ in range(50):
        if threading.active_count() <= before + 1:  # the transport's one watchdog thread
            break
        deadline.wait(0.1)
    assert threading.active_count() <= before + 1


def test_seated_closes_what_it_opened_when_a_seat_fails():
    before = {t.name for t in threading.enumerate()}
    with pytest.raises(UnknownBotError):
        with seated((Seat("random"), Seat("nobody")), "toy-race", 1, over_http=True):
            pass
    assert not [t.name for t in threading.enumerate()
                if t.name.startswith("bot-server") and t.name not in before]
    with seated((Seat("random"), Seat("random", "shown")), "toy-race", 1) as players:
        pass
    assert [p.name for p in players] == ["random", "shown"]


def test_over_http_without_a_loopback_port_is_a_serve_error(monkeypatch):
    import bots.server

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError(98, "Address already in use")

    monkeypatch.setattr(bots.server, "serve_bot", refuse)
    with pytest.raises(ServeError, match="cannot serve the bots over HTTP"):
        play_match(described(over_http=True))


# -- the registries, for processes started apart -------------------------------------------------

def _registered_in_a_fresh_process(registries: Any, queue: Any) -> None:
    restore(registries)
    queue.put((registered_games().get("toy-arena"), registered_bots().get("arena-random")))


def test_a_spawned_process_gets_the_registries_through_the_snapshot():
    from bots import register_bot
    from referee.games import register_game

    register_game("toy-arena", "support.toy")
    register_bot("arena-random", "bots.random_bot:RandomBot")
    try:
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        process = context.Process(target=_registered_in_a_fresh_process,
                                  args=(snapshot(), queue))
        process.start()
        got = queue.get(timeout=60)
        process.join(timeout=30)
    finally:
        unregister_game("toy-arena")
        unregister_bot("arena-random")
    assert got == ("support.toy", {"*": "bots.random_bot:RandomBot"})


def test_restoring_a_conflicting_registry_is_refused():
    registries = snapshot()
    clash = type(registries)({**registries.games, "toy-race": "elsewhere"}, registries.bots)
    with pytest.raises(ValueError, match="already registered"):
        restore(clash)


# -- GET / before the first game, and the bot check ------------------------------------------------

def test_the_probe_names_dead_bots_and_those_that_do_not_play_the_game():
    dead = f"http://me:secret@127.0.0.1:{free_port()}"
    with HostileServer("ok") as alive, HostileServer("ok", info={"name": "x", "games": ["go"],
                                                                  "protocol": 1}) as other:
        found = probe([alive.url, dead, other.url, alive.url], "toy-race")
    assert list(found.infos) == [alive.url]
    assert len(found.dead) == 2 and all("secret" not in line for line in found.dead)
    assert any("does not play toy-race" in line for line in found.dead)
    with pytest.raises(DeadBotError, match="--allow-dead"):
        found.require_alive()
    probe([], "toy-race").require_alive()


def test_the_check_report_is_typed_and_json_ready():
    with HostileServer("html") as bot:
        report = check_bot(bot.url, "toy-race", time_ms=500, games=2, seed=1)
    assert report.reachable and not report.passed
    calls = {c.call: c for c in report.calls}
    assert list(calls) == ["GET /", "/start", "/decide", "/end"]
    assert calls["GET /"].statuses == {"ok": 1} and calls["/start"].statuses == {"ok": 2}
    assert calls["/decide"].statuses == {"bad_json": 6}  # 3 strikes a match, then forfeited
    assert calls["/decide"].bad_body == "<html><body>Hello from nginx</body></html>"
    assert calls["/decide"].p50_ms is not None and calls["/decide"].p95_ms is not None
    assert {f.reason for f in report.strikes} == {"bad_json"}
    assert [m.forfeited for m in report.matches] == [True, True]
    doc = json.loads(json.dumps(report.to_dict()))
    assert doc["passed"] is False and doc["strikes"][0]["body"].startswith("<html>")
    assert doc["problems"] == report.problems and doc["calls"][2]["count"] == 6


def test_a_clean_bot_passes_and_an_unreachable_one_plays_no_match():
    from bots.server import serve_bot

    server = serve_bot("random", "toy-race")
    try:
        report = check_bot(server.url, "toy-race", games=2, seed=3)
    finally:
        server.stop()
    assert report.passed and report.problems == [] and len(report.matches) == 2
    assert {k.kind for k in report.kinds} == {"move", "bid"}
    gone = check_bot(f"http://127.0.0.1:{free_port()}", "toy-race")
    assert not gone.reachable and not gone.passed and gone.matches == ()
    assert gone.info_fault is not None and gone.info_fault.reason == "connection_error"
    with pytest.raises(BotUrlError):
        check_bot("ftp://x", "toy-race")

"""Resuming from the ID alone, the SPRT's state file, gauntlets and names a bot declares."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from tournaments.fixtures import schedule
from tournaments.plan import Entrant, Plan, SprtTerms, declared_names, parse_entrants
from tournaments.sprt import Sprt, sprt_fixture
from tournaments.store import JsonlStateStore
from tournaments.tournament import Tournament

import tournament_bots
from support.cli import assert_clean_error


@pytest.fixture(autouse=True)
def with_test_bots():
    with tournament_bots.registered():
        yield


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def half_played(state: Path, plan: Plan, tid: str, games: int) -> None:
    """A state file as an interrupted run leaves it: the plan and the first ``games``
    outcomes (played here, with the pool a run uses)."""
    t = Tournament(plan, JsonlStateStore(state, tid), {})
    t.store.create(plan)
    if plan.sprt is None:
        fixtures = schedule(plan, tid)[:games]
    else:
        fixtures = [sprt_fixture(plan, tid, i) for i in range(games)]
    from tournaments.pool import play_fixture

    for fixture in fixtures:
        t.store.append(play_fixture(fixture, keep_log=False))


# -- tournament --resume ID ------------------------------------------------------------------


def test_resume_needs_only_the_id(tmp_path):
    plan = Plan("toy-race", tuple(parse_entrants(["strong", "weak", "n=noisy"])), 4, 2, 7,
                strikes=2)
    half_played(tmp_path, plan, "0000abcd", 5)
    code, out, err = run("tournament", "--resume", "0000abcd", "--state-dir", str(tmp_path),
                         "--json")
    assert code == 0, err
    assert "resuming 0000abcd: 3 entrants, 2 seats, 7 of 12 games to play" in err
    doc = json.loads(out)
    assert doc["complete"] and doc["played"] == 12 and doc["seed"] == 7
    assert [e["name"] for e in doc["entrants"]] == ["strong", "n", "weak"]


@pytest.mark.parametrize("args, message", [
    (["--game", "toy-race-34"], "started with --game toy-race, not toy-race-34"),
    (["--games", "8"], "started with --games 4, not 8"),
    (["--time-ms", "500"], "started with --time-ms 1000, not 500; leave --time-ms out"),
    (["--strikes", "3"], "started with --strikes 2, not 3"),
    (["--option", "x=1"], "started with --option (none), not x=1"),
    (["--gauntlet", "strong"], "started with --gauntlet (none), not strong"),
    (["strong", "noisy", "weak"], "started with entrants strong, weak, n=noisy"),
    (["--resume", "sprt0000"], "is not a tournament id"),
])
def test_resume_refuses_options_that_contradict_the_state_file(tmp_path, args, message):
    plan = Plan("toy-race", tuple(parse_entrants(["strong", "weak", "n=noisy"])), 4, 2, 7,
                strikes=2)
    half_played(tmp_path, plan, "0000abcd", 1)
    if "--resume" not in args:
        args = [*args, "--resume", "0000abcd"]
    out = CliRunner().invoke(main, ["tournament", *args, "--state-dir", str(tmp_path)])
    assert_clean_error(out, None, message)


def test_options_equal_to_the_stored_ones_are_accepted_on_resume(tmp_path):
    plan = Plan("toy-race", tuple(parse_entrants(["strong", "weak"])), 2, 2, 7)
    half_played(tmp_path, plan, "0000abcd", 1)
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--time-ms", "1000", "--resume", "0000abcd", "--state-dir",
                         str(tmp_path), "--json")
    assert code == 0, err
    assert json.loads(out)["played"] == 2


def test_a_new_tournament_still_needs_game_and_games(tmp_path):
    out = CliRunner().invoke(main, ["tournament", "strong", "weak", "--games", "2",
                                    "--state-dir", str(tmp_path)])
    assert out.exit_code == 2 and "Missing option '--game' (or --resume ID)" in out.output
    out = CliRunner().invoke(main, ["tournament", "strong", "weak", "--game", "toy-race",
                                    "--state-dir", str(tmp_path)])
    assert out.exit_code == 2 and "Missing option '--games'" in out.output


# -- gauntlet --------------------------------------------------------------------------------


def test_a_gauntlet_plays_only_the_gauntlet_entrants_pairings(tmp_path):
    code, out, err = run("tournament", "strong", "weak", "noisy", "o=other-noisy",
                         "--gauntlet", "o", "--game", "toy-race", "--games", "4", "--seed", "2",
                         "--json", "--state-dir", str(tmp_path))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["matches"] == 3 * 4 and doc["played"] == 12
    games = {e["name"]: e["games"] for e in doc["entrants"]}
    assert games == {"o": 12, "strong": 4, "weak": 4, "noisy": 4}
    played = {frozenset((p["a"], p["b"])) for p in doc["pairs"] if p["games"]}
    assert played == {frozenset(("o", other)) for other in ("strong", "weak", "noisy")}
    assert "weak" not in doc["crosstable"]["strong"] and doc["gauntlet"] == "o"
    assert len(doc["crosstable"]["o"]) == 3 and len(doc["pairs"]) == 3
    # the gauntlet is in the state file: the resume plays the same schedule
    tid = doc["tournament"]
    code, out, err = run("tournament", "--resume", tid, "--state-dir", str(tmp_path), "--json")
    assert code == 0 and "0 of 12 games to play" in err


def test_a_gauntlet_at_tables_of_three_always_seats_its_entrant():
    entrants = tuple(Entrant(f"e{i}", "random") for i in range(4))
    plan = Plan("toy-race-34", entrants, 3, 3, 1, gauntlet=2)
    fixtures = schedule(plan, "00000000")
    assert len(fixtures) == 3 * 3  # three tables with e2, each in three rotations
    assert all(2 in f.entrants for f in fixtures)


def test_gauntlet_errors(tmp_path):
    out = CliRunner().invoke(main, ["tournament", "strong", "weak", "--gauntlet", "nobody",
                                    "--game", "toy-race", "--games", "2",
                                    "--state-dir", str(tmp_path)])
    assert out.exit_code == 2
    assert "--gauntlet nobody: no such entrant (the entrants: strong, weak)" in out.output


# -- names from GET / ------------------------------------------------------------------------


def test_unnamed_http_bots_take_the_name_their_get_declares():
    a, b, c = "http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"
    entrants = parse_entrants([a, b, "weak", c, "mine=http://127.0.0.1:4", "e=weak"])
    infos = {a: {"name": "weak"}, b: {"name": "weak"}, c: {"name": "My bot!"},
             "http://127.0.0.1:4": {"name": "other"}}
    names = [e.name for e in declared_names(entrants, infos)]
    # unique (-2, -3 past the names taken), only name characters, NAME= wins over GET /
    assert names == ["weak-2", "weak-3", "weak", "Mybot", "mine", "e"]


def test_a_bot_without_a_usable_name_keeps_its_url():
    url = "http://127.0.0.1:1"
    entrants = parse_entrants([url, "weak"])
    for info in ({}, {"name": 5}, {"name": "???"}):
        assert declared_names(entrants, {url: info})[0].name == url


def test_a_tournament_shows_an_http_bot_by_its_declared_name(tmp_path):
    from support.http_bots import HostileServer

    info = {"name": "speedy", "games": ["toy-race"], "protocol": 1}
    with HostileServer("ok", info=info) as bot:
        code, out, err = run("tournament", bot.url, "strong", "--game", "toy-race",
                             "--games", "2", "--json", "--state-dir", str(tmp_path))
        assert code == 0, err
        doc = json.loads(out)
        assert {e["name"] for e in doc["entrants"]} == {"speedy", "strong"}
        # a resume naming the bot again by its URL is the same entrant
        code, out, err = run("tournament", bot.url, "strong", "--resume", doc["tournament"],
                             "--state-dir", str(tmp_path), "--json")
        assert code == 0, err


# -- sprt: state file, resume, logs --------------------------------------------------------


def sprt_plan(max_pairs: int, **terms) -> Plan:
    return Plan("toy-race", tuple(parse_entrants(["noisy", "other-noisy"])), 2, 2, 3,
                sprt=SprtTerms(0, 40, 0.05, 0.05, "normalized", max_pairs), **terms)


def test_sprt_resume_goes_on_where_the_state_file_stops(tmp_path):
    """An SPRT cut after 3 pairs and a half, resumed by ID: the same trace as one run."""
    code, out, err = run("sprt", "noisy", "other-noisy", "--game", "toy-race", "--seed", "3",
                         "--elo1", "40", "--max-pairs", "8", "--json",
                         "--state-dir", str(tmp_path / "whole"))
    assert code == 0, err
    whole = json.loads(out)
    half_played(tmp_path / "cut", sprt_plan(8), "5b7c0000", 7)
    code, out, err = run("sprt", "--resume", "5b7c0000", "--state-dir", str(tmp_path / "cut"),
                         "--json")
    assert code == 0, err
    assert "resuming sprt 5b7c0000 after 3 pairs" in err
    resumed = json.loads(out)
    assert resumed["trace"] == whole["trace"] and resumed["pairs"] == whole["pairs"] == 8
    assert resumed["sprt"] == "5b7c0000" and not resumed["interrupted"]


def test_sprt_resume_with_more_pairs_goes_on_past_the_old_limit(tmp_path):
    half_played(tmp_path, sprt_plan(2), "5b7c0000", 4)
    code, out, err = run("sprt", "--resume", "5b7c0000", "--state-dir", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["pairs"] == 2  # finished: nothing played
    code, out, err = run("sprt", "--resume", "5b7c0000", "--max-pairs", "5",
                         "--state-dir", str(tmp_path), "--json")
    assert code == 0, err
    assert json.loads(out)["pairs"] == 5


@pytest.mark.parametrize("args, message", [
    (["--elo1", "5"], "started with --elo1 40.0, not 5.0"),
    (["--bank-ms", "100"], "started with --bank-ms 0, not 100"),
    (["noisy", "strong"], "this sprt was started with entrants noisy, other-noisy"),
    (["noisy"], "name both NEW and BASE, or neither"),
])
def test_sprt_resume_refuses_a_different_test(tmp_path, args, message):
    half_played(tmp_path, sprt_plan(4), "5b7c0000", 2)
    out = CliRunner().invoke(main, ["sprt", *args, "--resume", "5b7c0000",
                                    "--state-dir", str(tmp_path)])
    assert_clean_error(out, None, message)


def test_a_tournament_and_an_sprt_are_not_resumed_by_each_other(tmp_path):
    half_played(tmp_path, sprt_plan(4), "5b7c0000", 2)
    half_played(tmp_path, Plan("toy-race", tuple(parse_entrants(["strong", "weak"])), 2, 2, 1),
                "70000000", 1)
    out = CliRunner().invoke(main, ["tournament", "--resume", "5b7c0000",
                                    "--state-dir", str(tmp_path)])
    assert_clean_error(out, 1, "is an SPRT, not a tournament", "referee sprt --resume 5b7c0000")
    out = CliRunner().invoke(main, ["sprt", "--resume", "70000000", "--state-dir", str(tmp_path)])
    assert_clean_error(out, 1, "is a tournament, not an SPRT")


def test_sprt_writes_logs_and_keeps_the_bank(tmp_path):
    code, out, err = run("sprt", "noisy", "other-noisy", "--game", "toy-race", "--seed", "3",
                         "--max-pairs", "2", "--bank-ms", "250", "--logs", str(tmp_path / "logs"),
                         "--json", "--state-dir", str(tmp_path / "state"))
    assert code == 0, err
    sid = json.loads(out)["sprt"]
    logs = sorted((tmp_path / "logs").glob("*.json"))
    assert [p.name for p in logs] == [f"{sid}-{i}.json" for i in range(4)]
    log = json.loads(logs[0].read_text())
    assert log["time_control"] == {"decision_ms": 1000, "bank_ms": 250}
    assert "4 match logs written" in err
    plan, done = JsonlStateStore(tmp_path / "state", sid).load()
    assert plan.sprt == SprtTerms(0, 10, 0.05, 0.05, "normalized", 2) and len(done) == 4


def test_sprt_says_its_pace_and_eta_after_the_first_pairs(tmp_path):
    code, out, err = run("sprt", "noisy", "other-noisy", "--game", "toy-race", "--seed", "1",
                         "--elo1", "150", "--max-pairs", "30", "--state-dir", str(tmp_path))
    assert code == 0, err
    assert "expected length: about" in err
    pace = [line for line in err.splitlines() if line.strip().startswith("pace:")]
    assert len(pace) == 1 and "4 pairs in" in pace[0] and "more to the expected ~" in pace[0]


def test_the_sprt_state_holds_its_pairs_in_schedule_order(tmp_path):
    """Games stored out of order (a pair's second game first, as concurrency leaves them)
    give the same test as in order."""
    plan = sprt_plan(3)
    store = JsonlStateStore(tmp_path, "5b7c0000")
    store.create(plan)
    from tournaments.pool import play_fixture

    outcomes = [play_fixture(sprt_fixture(plan, "5b7c0000", i), False) for i in range(6)]
    for i in (1, 0, 3, 5, 2, 4):
        store.append(outcomes[i])
    test = Sprt.resume(store).test()
    assert test.penta.pairs == 3 and [s.pairs for s in test.trace] == [1, 2, 3]


def test_ctrl_c_in_an_sprt_keeps_the_games_and_says_how_to_go_on(tmp_path, monkeypatch):
    import cli.sprt

    seen = []

    def interrupt_at_the_third_pair(self, test):
        seen.append(test.penta.pairs)
        if test.penta.pairs == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(cli.sprt.Progress, "__call__", interrupt_at_the_third_pair)
    code, out, err = run("sprt", "noisy", "other-noisy", "--game", "toy-race", "--seed", "3",
                         "--max-pairs", "8", "--json", "--state-dir", str(tmp_path))
    assert code == 130 and seen == [1, 2, 3]
    doc = json.loads(out)
    assert doc["interrupted"] and doc["pairs"] == 3
    assert (f"interrupted after 3 pairs; go on with:\n  referee sprt --resume {doc['sprt']} "
            f"--state-dir {tmp_path}") in err
    monkeypatch.undo()
    code, out, err = run("sprt", "--resume", doc["sprt"], "--state-dir", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["pairs"] == 8 and "after 3 pairs" in err


# -- a time control per entrant ------------------------------------------------------------


def test_an_entrant_with_its_own_time_is_held_to_it(tmp_path):
    """``slow`` sleeps 5 ms a decision: with 1 ms of its own it is struck until it forfeits,
    while its opponent keeps the tournament's second."""
    code, out, err = run("tournament", "slow", "noisy", "--game", "toy-race", "--games", "2",
                         "--time-ms", "1000", "--time-ms", "slow=1", "--json",
                         "--logs", str(tmp_path / "logs"), "--state-dir", str(tmp_path))
    assert code == 0, err
    doc = json.loads(out)
    entrants = {e["name"]: e for e in doc["entrants"]}
    assert entrants["slow"]["time_ms"] == 1 and entrants["noisy"]["time_ms"] == 1000
    assert entrants["slow"]["forfeits"] == 2 and entrants["noisy"]["strikes"] == 0
    log = json.loads(next((tmp_path / "logs").glob("*.json")).read_text())
    players = {p["name"]: p for p in log["players"]}
    assert players["slow"]["time_control"] == {"decision_ms": 1, "bank_ms": 0}
    assert "time_control" not in players["noisy"]
    assert log["time_control"] == {"decision_ms": 1000, "bank_ms": 0}
    # stored with the tournament: a resume that says otherwise is refused
    refused = CliRunner().invoke(main, ["tournament", "--resume", doc["tournament"],
                                    "--time-ms", "slow=5", "--state-dir", str(tmp_path)])
    assert_clean_error(refused, 1, "started with --time-ms 1000 slow=1, not 1000 slow=5")


@pytest.mark.parametrize("value, message", [
    ("nobody=5", "--time-ms nobody=5: no entrant is named nobody (the entrants: strong, weak)"),
    ("weak=0", "'weak=0' is not MS or NAME=MS"),
    ("fast", "'fast' is not MS or NAME=MS"),
    ("mcts:ms=50=500", "'mcts:ms=50=500' is not MS or NAME=MS"),
])
def test_bad_entrant_times_are_one_line(tmp_path, value, message):
    out = CliRunner().invoke(main, ["tournament", "strong", "weak", "--game", "toy-race",
                                    "--games", "2", "--time-ms", value,
                                    "--state-dir", str(tmp_path)])
    assert message in out.output and "Traceback" not in out.output
    assert not list(tmp_path.iterdir())


def test_a_seat_time_control_round_trips_in_a_match_description():
    from arena import MatchDescription, Seat, TimeControl

    d = MatchDescription("toy-race", (Seat("strong", "a", TimeControl(300, 50)), Seat("weak")),
                         seed=1, time_control=TimeControl(1000, 0))
    assert MatchDescription.from_dict(json.loads(json.dumps(d.to_dict()))) == d
    assert "time_control" not in d.to_dict()["seats"][1]


def test_sprt_gives_new_its_own_time(tmp_path):
    code, out, err = run("sprt", "noisy", "slow", "--game", "toy-race", "--max-pairs", "1",
                         "--time-ms", "slow=1", "--json", "--state-dir", str(tmp_path))
    assert code == 0, err
    plan, _ = JsonlStateStore(tmp_path, json.loads(out)["sprt"]).load()
    assert [e.time_ms for e in plan.entrants] == [None, 1]


def test_a_gauntlet_in_a_game_with_solo_play_seats_two(tmp_path):
    """Tokaido Duo is played by one (against the Automa) or two: a gauntlet is of pairs."""
    from cli.tournament import build_plan
    from referee.games import find_game

    plan = build_plan(("greedy", "random", "r2=random"), find_game("tokaido-duo"), 2, None, 1,
                      "greedy", {}, {})
    assert plan.seats == 2 and plan.gauntlet == 0


def test_each_seat_is_told_its_own_time_control_in_start():
    from arena import TimeControl
    from referee.games import find_game
    from referee.match import Runner
    from referee.players import InProcessPlayer

    told = {}

    class Telling(tournament_bots.Noisy):
        def start(self, info):
            told[info.seat] = dict(info.time_control)

    players = [InProcessPlayer(name=f"p{s}", bot=Telling("toy-race", s)) for s in range(2)]
    log = Runner(find_game("toy-race"), players, 1, time_control=TimeControl(800, 40),
                 seat_time_controls=[None, TimeControl(200, 40)]).run().log
    assert told == {0: {"decision_ms": 800, "bank_ms": 40}, 1: {"decision_ms": 200, "bank_ms": 40}}
    assert "time_control" not in log["players"][0]
    assert log["players"][1]["time_control"] == {"decision_ms": 200, "bank_ms": 40}

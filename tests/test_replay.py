"""``referee replay`` checks every step of a log, not only its result: each tampering is
caught and named by its step."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from click.testing import CliRunner

from bots.random_bot import RandomBot
from cli import main
from referee.core import Decision
from referee.match import Runner
from referee.players import Bot, InProcessPlayer
from referee.replay import log_board, replay

from support.cli import assert_clean_error
from support.matches import play_bots


class SometimesWrong(Bot):
    """Answers a bad id every second decision: faults, fallbacks, then a forfeit."""

    def __init__(self) -> None:
        self.calls = 0
        self.rng = RandomBot("toy-race", 3)

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        self.calls += 1
        return "nonsense" if self.calls % 2 == 0 else self.rng.decide(decision, view)


@pytest.fixture
def faulty_log(toy_game) -> dict[str, Any]:
    players = [InProcessPlayer(name="wrong", bot=SometimesWrong()),
               InProcessPlayer(name="random", bot=RandomBot("toy-race", 2))]
    log = Runner(toy_game, players, seed=5, strikes=3).run().log
    assert log["forfeited"] == [0] and any(d["status"] == "forfeited" for d in log["decisions"])
    assert replay(log).matches
    return json.loads(json.dumps(log))


def tampered(log: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    copied = copy.deepcopy(log)
    change(copied)
    return copied


def first(log: dict[str, Any], status: str) -> dict[str, Any]:
    entry: dict[str, Any] = next(d for d in log["decisions"] if d["status"] == status)
    return entry


def test_a_choice_that_was_not_offered_is_named_by_its_step(faulty_log):
    def change(log: dict[str, Any]) -> None:
        log["decisions"][5]["choice"] = "9"

    outcome = replay(tampered(faulty_log, change))
    step = faulty_log["decisions"][5]["step"]
    assert not outcome.matches and outcome.differences[0].startswith(f"step {step}, seat")
    assert "'9' was not offered" in outcome.differences[0]


@pytest.mark.parametrize("field, value, needle", [
    ("kind", "move-ish", "the engine asks"), ("options", 7, "with 7 options"),
    ("seat", 5, "seat 5"),
])
def test_a_changed_decision_is_named_by_its_step(faulty_log, field, value, needle):
    def change(log: dict[str, Any]) -> None:
        log["decisions"][3][field] = value

    outcome = replay(tampered(faulty_log, change))
    step = faulty_log["decisions"][3]["step"]
    assert not outcome.matches and outcome.differences[0].startswith(f"step {step}: the log has")
    assert needle in outcome.differences[0]


def test_a_changed_fallback_choice_is_caught(faulty_log):
    entry = first(faulty_log, "unknown_option")
    offered = {"move": ["1", "2", "3"], "bid": ["bid-0", "bid-1", "bid-2"]}[entry["kind"]]

    def change(log: dict[str, Any]) -> None:
        target = log["decisions"][faulty_log["decisions"].index(entry)]
        target["choice"] = next(o for o in offered if o != entry["choice"])

    outcome = replay(tampered(faulty_log, change))
    assert not outcome.matches and "the seeded fallback draws" in outcome.differences[0]
    assert outcome.differences[0].startswith(f"step {entry['step']}, seat 0")


@pytest.mark.parametrize("status, needle", [
    ("ok", "fallback draws"),  # the fallback generator is then one draw behind
    ("forfeited", "the log says the seat had forfeited, but it had not"),
])
def test_a_changed_status_is_caught(faulty_log, status, needle):
    entry = first(faulty_log, "unknown_option")

    def change(log: dict[str, Any]) -> None:
        log["decisions"][faulty_log["decisions"].index(entry)]["status"] = status

    outcome = replay(tampered(faulty_log, change))
    assert not outcome.matches and needle in " ".join(outcome.differences)


@pytest.mark.parametrize("change, needle", [
    (lambda log: log["players"][0].update(strikes=1), "seat 0: the log says 1 strikes"),
    (lambda log: log["players"][1].update(strikes=2), "seat 1: the log says 2 strikes"),
    (lambda log: log["players"][0].update(forfeited=False), "seat 0: forfeited is False"),
    (lambda log: log.update(forfeited=[]), "forfeited seats [] differ"),
    (lambda log: log["faults"].pop(), "fault 2: the log has no fault"),
    (lambda log: log["faults"][0].update(reason="timeout"), "fault 0: the log has timeout"),
    (lambda log: log["faults"].append({"step": None, "seat": 1, "kind": "start",
                                       "reason": "timeout", "detail": ""}), "fault 0"),
    (lambda log: log["game_result"].update(rounds=99), "game_result differs"),
    (lambda log: log["result"].update(winners=[0]), "result differs"),
])
def test_faults_strikes_forfeits_and_results_are_checked(faulty_log, change, needle):
    outcome = replay(tampered(faulty_log, change))
    assert not outcome.matches and needle in " ".join(outcome.differences), outcome.differences


@pytest.mark.parametrize("game, bots", [("tokaido-duo", ["random", "greedy"]),
                                        ("doubletrack", ["random", "greedy", "random"])])
def test_real_games_replay_and_any_bad_choice_is_caught(game, bots):
    log = json.loads(json.dumps(play_bots(game, bots, 4).log))
    assert replay(log).matches
    for index in range(0, len(log["decisions"]), 17):
        def change(doc: dict[str, Any], i: int = index) -> None:
            doc["decisions"][i]["choice"] = "not-an-option"

        outcome = replay(tampered(log, change))
        assert not outcome.matches
        assert outcome.differences[0].startswith(f"step {log['decisions'][index]['step']}, ")


def test_the_cli_prints_the_difference_and_fails(tmp_path, faulty_log):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(tampered(faulty_log, lambda log: log["players"][1].update(strikes=4))))
    out = CliRunner().invoke(main, ["replay", str(path)])
    assert_clean_error(out, 1, "replay does not match the log", "seat 1: the log says 4 strikes")


def test_deep_nesting_in_a_log_is_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert_clean_error(CliRunner().invoke(main, ["replay", str(path)]), 1, "nested too deep")
    log = {"format": "referee-match-log", "game": "doubletrack", "seed": 1,
           "players": [{}, {}, {}], "decisions": [], "board": {"version": "x"}}
    text = json.dumps(log).replace('"x"', "[" * 900 + "]" * 900)
    path.write_text(text)
    assert_clean_error(CliRunner().invoke(main, ["replay", str(path)]), 1, "malformed match log")


def test_a_logs_board_is_built_once_for_the_same_data(faulty_log):
    """Every log carries its board; equal data (another log, keys in another order) gives the
    board already built, other data another board, and a log without one the packaged board."""
    from referee.games import find_game

    game = find_game(faulty_log["game"])
    board = log_board(game, faulty_log)
    reordered = dict(reversed(list(copy.deepcopy(faulty_log["board"]).items())))
    assert log_board(game, {**faulty_log, "board": reordered}) is board
    other = copy.deepcopy(faulty_log["board"])
    other["version"] = "another"
    assert log_board(game, {**faulty_log, "board": other}) is not board
    tokaido = find_game("tokaido-duo")
    assert log_board(tokaido, {"board": None}) is tokaido.load_board()

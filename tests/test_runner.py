"""The match runner on the toy game: results, strikes, forfeits, logs and replay."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from bots.random_bot import RandomBot
from referee.core import Decision, EndReason
from referee.match import Runner
from referee.matchlog import LogError
from referee.players import Bot, InProcessPlayer
from referee.replay import replay


class Stubborn(Bot):
    """Always answers an id that is never offered."""

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        return "nonsense"


class Crashing(Bot):
    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        raise RuntimeError("boom")


def players(*bots: Bot) -> list[InProcessPlayer]:
    return [InProcessPlayer(name=f"p{i}", bot=b) for i, b in enumerate(bots)]


def test_same_seed_same_match(toy_game):
    logs = [
        Runner(toy_game, players(RandomBot("t", 1), RandomBot("t", 2)), seed=7).run().log
        for _ in range(2)
    ]
    choices = [[(d["step"], d["seat"], d["choice"]) for d in log["decisions"]] for log in logs]
    assert choices[0] == choices[1]
    assert logs[0]["result"] == logs[1]["result"]


def test_unknown_option_is_struck_and_forfeits_after_limit(toy_game):
    record = Runner(toy_game, players(Stubborn(), RandomBot("t", 2)), seed=3, strikes=2).run()
    assert record.seats[0].strikes >= 2 and record.seats[0].forfeited
    assert record.result.end is EndReason.FORFEIT
    assert record.result.winners == (1,)
    ranks = {s.seat: s.rank for s in record.result.seats}
    assert ranks == {0: 2, 1: 1}
    reasons = {f["reason"] for f in record.log["faults"]}
    assert reasons == {"unknown_option"}
    statuses = {d["status"] for d in record.log["decisions"] if d["seat"] == 0}
    assert "forfeited" in statuses  # later decisions are taken by the fallback, not asked


def test_crashing_bot_is_a_bot_error_strike(toy_game):
    record = Runner(toy_game, players(Crashing(), RandomBot("t", 2), RandomBot("t", 3)), seed=5).run()
    assert record.log["faults"][0]["reason"] == "bot_error"
    assert record.result.end is EndReason.FORFEIT


def test_replay_reproduces_including_forfeits(toy_game):
    record = Runner(toy_game, players(Stubborn(), RandomBot("t", 2)), seed=11, strikes=1).run()
    outcome = replay(record.log)
    assert outcome.matches, outcome.differences


def test_replay_detects_tampering(toy_game):
    record = Runner(toy_game, players(RandomBot("t", 1), RandomBot("t", 2)), seed=12).run()
    log = dict(record.log)
    log["result"] = dict(log["result"], winners=[9])
    assert not replay(log).matches


def test_a_log_of_other_rules_is_refused_naming_both_versions(toy_game):
    record = Runner(toy_game, players(RandomBot("t", 1), RandomBot("t", 2)), seed=12).run()
    log = dict(record.log, rules_version="0")
    with pytest.raises(LogError, match=f"rules version '0'.*plays version '{toy_game.rules_version}'"):
        replay(log)


def test_a_board_file_past_the_cap_is_refused_without_reading_it_all(tmp_path):
    """``--board /dev/zero`` must be a one-line error, not a MemoryError."""
    import os

    import pytest

    from referee.core import MAX_BOARD_BYTES, BoardError
    from referee.games import find_game

    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_BOARD_BYTES + 1))  # valid YAML (a comment), just too long
    paths = [str(big)] + (["/dev/zero"] if os.path.exists("/dev/zero") else [])
    for path in paths:
        with pytest.raises(BoardError, match="over"):
            find_game("tokaido-duo").load_board(path)


def test_summary_keeps_the_result_extra(toy_game):
    """The solo Automa's note reaches ``referee match --json``, not only the text summary;
    a game with nothing extra to say adds no empty key."""
    from referee.games import find_game

    from support.matches import play_bots

    game = find_game("tokaido-duo")
    record = play_bots(game.name, ["random"], 5, options={"automa": 2})
    assert record.summary()["extra"]["automa_numbers"] == "placeholder"
    plain = play_bots(toy_game.name, ["random", "random"], 5)
    assert plain.log["result"]["extra"] == {} and "extra" not in plain.summary()


class Sleepy(Bot):
    """Takes 30 ms a decision; ``timed`` says whether its play depends on the clock."""

    def __init__(self, timed: bool) -> None:
        self.timed = timed
        self.rng = RandomBot("t", 1)

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        import time

        time.sleep(0.03)
        return self.rng.decide(decision, view)


def test_a_bot_with_a_fixed_budget_is_never_struck_for_a_slow_machine(toy_game):
    """A machine too busy to answer in 5 ms changes nothing for a bot that does a fixed amount
    of work (its moves are the same): no timeout, and its bank is left alone."""
    from referee.match import TimeControl

    fixed = Runner(toy_game, players(Sleepy(timed=False), RandomBot("t", 2)), seed=3,
                   time_control=TimeControl(5, 10)).run()
    assert fixed.log["faults"] == [] and fixed.seats[0].bank_ms == 10
    assert all(d["ms"] >= 30 for d in fixed.log["decisions"] if d["seat"] == 0)
    timed = Runner(toy_game, players(Sleepy(timed=True), RandomBot("t", 2)), seed=3,
                   time_control=TimeControl(5, 10)).run()
    assert {f["reason"] for f in timed.log["faults"]} == {"timeout"}
    assert timed.seats[0].bank_ms == 0


def test_the_registry_says_which_built_in_bots_depend_on_the_clock():
    from bots import find_bot

    for game in ("tokaido-duo", "doubletrack"):
        assert not find_bot("random", game, 1).timed and not find_bot("greedy", game, 1).timed
        assert not find_bot("mcts:playouts=5", game, 1).timed
        assert find_bot("mcts", game, 1).timed and find_bot("mcts:ms=50", game, 1).timed


def test_a_fixed_playout_budget_plays_the_same_match_every_time():
    from click.testing import CliRunner

    from cli import main

    for game, bots in (("tokaido-duo", ["greedy", "mcts:playouts=6"]),
                       ("doubletrack", ["greedy", "mcts:playouts=2", "random"])):
        args = ["match", *bots, "--game", game, "--seed", "42", "--json", "--time-ms", "1"]
        first, second = (CliRunner().invoke(main, args) for _ in range(2))
        assert first.exit_code == 0, first.output
        assert first.output == second.output  # even at 1 ms a decision: never struck
        assert all(s["strikes"] == 0 for s in json.loads(first.output)["seats"])

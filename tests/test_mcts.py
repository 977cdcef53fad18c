"""The generic search bot, on the toy game (the real games have their own strength checks)."""

from __future__ import annotations

import pytest

from bots import UnknownBotError, find_bot

from support.matches import play_bots


def test_mcts_beats_random_on_the_toy_race(toy_game):
    wins = 0
    for seed in range(30):
        bots = ["mcts=mcts:playouts=150", "random"]
        record = play_bots(toy_game.name, bots if seed % 2 else bots[::-1], seed)
        wins += any(record.log["players"][w]["name"] == "mcts" for w in record.result.winners)
    assert wins >= 24


def test_fixed_playouts_are_reproducible(toy_game):
    state = toy_game.new_state(2, 3)
    decision = state.pending()[0]
    picks = {find_bot("mcts:playouts=50", "toy-race", 9).decide(decision, state.view(decision.seat))
             for _ in range(3)}
    assert len(picks) == 1


@pytest.mark.parametrize("spec", ["nobody", "mcts:ms", "mcts:ms=fast", "random:depth=3"])
def test_bad_bot_specs_are_named(spec):
    with pytest.raises(UnknownBotError, match="bot"):
        find_bot(spec, "toy-race", 1)

"""The generic search bot, on the toy game (the real games have their own strength checks)."""

from __future__ import annotations

import pytest

from bots import UnknownBotError, find_bot
from referee.match import Runner
from referee.players import InProcessPlayer


def test_mcts_beats_random_on_the_toy_race(toy_game):
    wins = 0
    for seed in range(30):
        mcts = InProcessPlayer(name="mcts", bot=find_bot("mcts:playouts=150", "toy-race", seed))
        rnd = InProcessPlayer(name="random", bot=find_bot("random", "toy-race", seed))
        players = [mcts, rnd] if seed % 2 else [rnd, mcts]
        result = Runner(toy_game, players, seed).run().result
        wins += any(players[w].name == "mcts" for w in result.winners)
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

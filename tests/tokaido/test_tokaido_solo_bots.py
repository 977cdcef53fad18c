"""The bots' solo path: what ``greedy`` and ``mcts`` believe about the Automa is what it does.

Both bots rebuild a state from their view (``determinize``) and play the Automa's turns with the
engine. If the rebuilt Automa had another level, other tracks or another die order, or if the
evaluation read its score from the wrong seat, the bots would lose to it for a reason that is
not the Automa's strength; these checks pin that down on fixed seeds (bench/solo_strength.py
measures the strength itself).
"""

from __future__ import annotations

import random

import pytest

from bots import BotSpecError, find_bot
from bots.tokaido_greedy import evaluate, leaf_values, player_value
from referee.games.tokaido_duo import GAME

from tokaido_position import BOARD


def automa_side(view: dict) -> tuple:
    """Everything of the Automa a seat can see, and which dice are used by whom."""
    return (view["automa"], view["players"][1], [d["used_by"] for d in view["dice"]])


@pytest.mark.parametrize("level", [1, 4, 6])
def test_a_rebuilt_state_answers_each_move_as_the_real_automa_does(level):
    """Within a round the Automa's turn is fixed by the public table: the rebuilt state must
    take the same die, move to the same place and rank up the same, whatever was sampled."""
    checked = 0
    for seed in range(4):
        s, rng = GAME.new_state(1, seed, options={"automa": level}), random.Random(seed)
        while s.pending():
            d = s.pending()[0]
            rebuilt = GAME.determinize(s.view(0), rng.getrandbits(63), BOARD)
            assert rebuilt.automa is not None and rebuilt.automa.level == level
            pick = rng.choice(d.options).id
            real = s.clone()
            real.apply({0: pick})
            rebuilt.apply({0: pick})
            if real.round == s.round and not real.over:
                assert automa_side(rebuilt.view(0)) == automa_side(real.view(0))
                checked += 1
            s.apply({0: pick})
    assert checked > 50  # the comparison ran on many moves, not on none


def test_the_evaluation_reads_the_automa_score_the_result_gives_it():
    """``evaluate`` (greedy) and ``leaf_values`` (mcts) compare seat 0 with the Automa's
    banked ranks, the very total its result will carry at the end."""
    s, rng = GAME.new_state(1, 3, options={"automa": 2}), random.Random(3)
    while s.pending():
        view = s.view(0)
        me, automa = view["players"]
        assert player_value(automa) == sum(automa["score"].values())
        spring = 1.5 if view["hot_spring"] == 0 else 0.0
        assert evaluate(view, 0) == pytest.approx(player_value(me) + spring - player_value(automa))
        first, second = leaf_values(s.view(None))
        assert (first > 0.5) == (player_value(me) + spring > player_value(automa))
        assert first + second == pytest.approx(1.0)
        s.apply({0: rng.choice(s.pending()[0].options).id})
    result = s.result()
    assert result is not None
    assert result.seats[1].score == sum(s.view(0)["players"][1]["score"].values())


def test_greedy_assets_is_checked_and_one_is_the_default():
    assert find_bot("greedy:assets=1", "tokaido-duo", 0).assets == 1.0
    assert find_bot("greedy", "tokaido-duo", 0).assets == 1.0
    with pytest.raises(BotSpecError, match="assets must be in"):
        find_bot("greedy:assets=-1", "tokaido-duo", 0)

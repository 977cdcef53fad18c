"""``mcts`` on Doubletrack: the fitted leaf evaluator and the search's greedy-led widening.

The full strength figures (hundreds of games at 100 ms per decision) come from
``bench/bot_strength.py``; here, fixed playout budgets keep every check exact and quick.
"""

from __future__ import annotations

from typing import Any

import pytest

from bots import find_bot
from bots.doubletrack_greedy import leaf_values
from referee.games import find_game
from referee.match import Runner, TimeControl
from referee.players import InProcessPlayer


def spectator(smalls: list[int], moneys: list[int], gates: list[list[str]] | None = None
              ) -> dict[str, Any]:
    gates = gates or [[] for _ in smalls]
    return {"inner": {"home": 60},
            "seats": [{"small": s, "money": m, "gates": g} for s, m, g in zip(smalls, moneys, gates)]}


@pytest.mark.parametrize("seats", [3, 4])
def test_leaf_values_are_win_chances(seats):
    values = leaf_values(spectator([10 * i for i in range(seats)], [125] * seats))
    assert sum(values) == pytest.approx(1.0)
    assert values == sorted(values)  # further along, likelier to win
    even = leaf_values(spectator([20] * seats, [125] * seats))
    assert even == pytest.approx([1 / seats] * seats)


def test_progress_counts_most_near_home():
    early = leaf_values(spectator([15, 5, 5], [125] * 3))
    late = leaf_values(spectator([55, 45, 45], [125] * 3))
    assert late[0] - late[1] > 3 * (early[0] - early[1])


def test_money_and_gates_count_little_against_progress():
    rich = leaf_values(spectator([40, 45, 30], [300, 50, 25], [["red", "blue"], [], []]))
    assert rich[1] > rich[0]


def test_the_search_plays_like_greedy_where_it_is_forced_to_choose_at_once():
    """Widening 0 leaves one candidate per node: the greedy bot's pick."""
    game = find_game("doubletrack")
    state = game.new_state(3, 4)
    greedy = find_bot("greedy", "doubletrack", 1)
    search = find_bot("mcts:playouts=20,widen=0,guided=0", "doubletrack", 1)
    checked = 0
    while not state.is_over and checked < 30:
        picks: dict[int, str] = {}
        for d in state.pending():
            view = state.view(d.seat)
            out = greedy.decide(d, view)
            picks[d.seat] = out[0] if isinstance(out, tuple) else out
            assert search.decide(d, view) == picks[d.seat]
            checked += 1
        state.apply(picks)
    assert checked == 30


def play(seed: int, seats: int) -> tuple[int, ...]:
    game = find_game("doubletrack")
    players = [InProcessPlayer(name=str(s), bot=find_bot(
        "mcts:playouts=60" if s == seed % seats else "greedy", "doubletrack", seed * 10 + s))
        for s in range(seats)]
    return tuple(Runner(game, players, seed, time_control=TimeControl(60_000)).run().result.winners)


@pytest.mark.parametrize("seats", [3, 4])
def test_fixed_playouts_play_whole_games_reproducibly(seats):
    assert play(7, seats) == play(7, seats)



def departures_from_greedy(spec: str, decisions: int = 20) -> int:
    state = find_game("doubletrack").new_state(3, 11)
    greedy = find_bot("greedy", "doubletrack", 2)
    search = find_bot(spec, "doubletrack", 2)
    checked = departed = 0
    while not state.is_over and checked < decisions:
        picks: dict[int, str] = {}
        for d in state.pending():
            view = state.view(d.seat)
            out = greedy.decide(d, view)
            picks[d.seat] = out[0] if isinstance(out, tuple) else out
            departed += search.decide(d, view) != picks[d.seat]
            checked += 1
        state.apply(picks)
    return departed


def test_a_search_that_must_be_sure_plays_the_greedy_pick():
    """With ``trust`` far above any margin a few playouts can show, the greedy pick stands;
    the same search without it departs from greedy."""
    assert departures_from_greedy("mcts:playouts=150,widen=3,trust=0") > 0
    assert departures_from_greedy("mcts:playouts=150,widen=3,trust=1000") == 0

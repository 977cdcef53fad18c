"""Forced passages agreed in one move (rules page, 'A turn', step 1): on a board whose forks
come close together, a big pawn may pass its own gate (the shortcut, forced) and then a gate
nobody controls (the corner, forced) before one roll; both passages are agreed without a
question, and no fee is owed for either."""

from __future__ import annotations

import copy

from referee.games.doubletrack.state import DoubletrackState
from referee.games.doubletrack.steps import ROUTE_START

from dt_support import BOARD, GAME, NO_ONE, ScriptedDice


def close_forks_board():
    """Quadrants of 13 and a one-square shortcut: through a shortcut the next fork is in reach."""
    data = copy.deepcopy(BOARD.data)
    data["outer"]["quadrant"] = data["outer"]["quadrant"][:13]
    data["outer"]["shortcut"] = data["outer"]["shortcut"][:1]
    return GAME.board_from_data(data)


def test_own_shortcut_then_an_uncontrolled_corner_in_one_move_of_a_three_player_game():
    board = close_forks_board()
    st = DoubletrackState(board, 3, 0, deal=False)
    st.hands = [["worthless", "number-1", "number-2"]] * 3
    st.pile = ["number-3"] * 10
    blue, green = 2, 3
    assert st.gates[blue] == 2 and st.gates[green] == NO_ONE  # nobody plays green
    st.big[2] = blue * 13  # on blue's TAKE_PASS square
    st.active, st.turns, st.rng = 2, 1, ScriptedDice([5, 6])
    st.stack = [ROUTE_START]
    money = list(st.money)
    st.resume()
    roll = next(e for e in st.events if e["type"] == "roll")
    assert roll["seat"] == 2 and roll["dice"] == [5, 6]
    assert roll["shortcuts"] == ["blue"]  # the own shortcut taken, green's corner gone round
    assert not any(e["type"] in ("fee", "gate_request") for e in st.events)
    assert st.money == money

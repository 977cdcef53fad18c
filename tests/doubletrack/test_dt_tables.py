"""Tables the engine derives from the board at load, checked against the rules they shortcut.

The route tree of each square (:class:`~referee.games.doubletrack.board.RouteNode`) replaces a
square-by-square walk of the outer track; the option menus are cached by shape and their
options built on first show. Either may only make the engine faster, never change a game.
"""

from __future__ import annotations

import copy
import itertools
import json
import random

import pytest

from referee.games.doubletrack.board import Board
from referee.games.doubletrack.flow import follow
from referee.games.doubletrack.state import DoubletrackState

from dt_support import BOARD, GAME

ONE_DIE = copy.deepcopy(BOARD.data)
ONE_DIE["dice"] = {"count": 1, "sides": 6}
LATE_REJOIN = copy.deepcopy(BOARD.data)
LATE_REJOIN["outer"]["rejoin_offset"] = 6
"""Shortcuts rejoining one square later: after one, the next fork is in reach of a 12."""
TWO_FORKS = Board(LATE_REJOIN)


def walk(board: Board, p: int, shortcut: dict[int, int], steps: int) -> tuple[int, list[int]]:
    """Where ``steps`` squares along the route from ``p`` end, and the shortcuts entered: at a
    fork, the gate's shortcut when ``shortcut`` says so, else the corner."""
    entered = []
    for _ in range(steps):
        g = board.fork_of[p]
        if g >= 0 and shortcut[g]:
            entered.append(g)
            p = board.next_short[p]
        else:
            p = board.next_corner[p]
    return p, entered


def forks_in_reach(board: Board, p: int, shortcut: dict[int, int]) -> list[int]:
    """The gates whose fork a move from ``p`` may pass (its TAKE_PASS square 0..max_roll-1
    squares ahead along the route), in the order met."""
    met = []
    for _ in range(board.max_roll):
        g = board.fork_of[p]
        if g >= 0:
            met.append(g)
        p = board.next_short[p] if g >= 0 and shortcut[g] else board.next_corner[p]
    return met


@pytest.mark.parametrize("board", [BOARD, Board(ONE_DIE), TWO_FORKS],
                         ids=["default", "one-die", "two-forks"])
def test_the_route_tree_of_every_square_is_the_walk_along_the_track(board: Board) -> None:
    for p in range(board.size):
        for ways in itertools.product((0, 1), repeat=len(board.colours)):
            shortcut = dict(enumerate(ways))
            node, met = board.routes[p], []
            while node.gate >= 0:
                met.append(node.gate)
                node = node.short if shortcut[node.gate] else node.corner
            assert met == forks_in_reach(board, p, shortcut)
            for k in range(board.max_roll + 1):
                to, entered = walk(board, p, shortcut, k)
                assert (node.to[k], list(node.entered[k])) == (to, entered)
                assert node.shortcuts[k] == tuple(board.colours[g] for g in entered)


def test_a_route_agreed_out_of_order_follows_the_forks_by_gate() -> None:
    """A flow built by hand may list the agreed forks in any order: each counts for its gate."""
    st = DoubletrackState(TWO_FORKS, 4, 0, deal=False)
    for p in range(TWO_FORKS.size):
        st.big[st.active] = p
        first = TWO_FORKS.routes[p]
        if first.gate < 0 or first.short.gate < 0:
            continue  # not two forks in reach
        second = first.short
        agreed = ((first.gate, 1, 0, -1), (second.gate, 0, 0, -1))
        assert follow(st, agreed) is second.corner
        assert follow(st, agreed[::-1]) is second.corner
        return
    pytest.fail("no square has two forks in reach")


def test_a_recurring_question_offers_the_very_same_options_tuple() -> None:
    """The runner caches each options tuple's encoding by identity: equal options offered again
    must be the same object, however they were reached (answered by index or by id)."""
    seen: dict[str, object] = {}
    for seed in range(4):
        st = GAME.new_state(4, seed)
        rng = random.Random(seed)
        while pending := st.pending():
            for d in pending:
                key = json.dumps([d.kind, [list(o) for o in d.options]])
                assert seen.setdefault(key, d.options) is d.options
            if rng.random() < 0.5:
                st.apply_index({d.seat: rng.randrange(len(d.options)) for d in pending})
            else:
                st.apply({d.seat: rng.choice(d.options).id for d in pending})
    assert len(seen) > 50

"""``greedy`` for Tokaido Duo: the best-looking whole move, one move deep.

The bot rebuilds a state from its view (``Game.determinize``: it sees no hidden tile), tries
each option, follows its own follow-up questions of the same action (the move after a die,
keeping wares, the hot spring) by the same rule, and scores the position it reaches with a
static evaluation of the view: points already banked plus what coins, wares, revealed
paintings, track balance, wave tiles and the hot spring are worth, minus the same for the
opponent. It does not look at the opponent's reply; that is what ``mcts`` is for.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from bots.boards import match_board
from referee.core import Decision, State
from referee.games import find_game
from referee.players import Bot, MatchInfo

# What unbanked assets are worth in points, tuned by self-play against ``random``.
COIN = 0.7
WARE = 1.2
REVEALED = 1.5
GIFT_PROGRESS = 2.0
"""A gift is worth more than its table step: the artist table is convex (1, 1, 3, 3, 5, ...),
so the early, cheap gifts are what unlock the valuable later ones."""
WAVE = 1.5
HOT_SPRING = 1.5
LEAF_SCALE = 8.0
"""Points of evaluation margin that make a position about 3:1 (logistic scale)."""
MAX_DEPTH = 3
"""Own follow-up decisions explored after the first (die -> move -> keep -> spring)."""


def player_value(p: Mapping[str, Any]) -> float:
    """Banked score plus the worth of what has not turned into points yet."""
    value = float(sum(p["score"].values()))
    if p.get("automa"):
        return value
    value += COIN * p["coins"] + WARE * sum(p["wares"].values())
    revealed = sum(1 for t in p["paintings"] if t["state"] == "revealed")
    value += REVEALED * revealed + GIFT_PROGRESS * p["gifts"]
    # temple x garden: a step on the shorter track is worth the other track's value.
    value += 0.5 * min(p["temple"], p["garden"])
    value += WAVE * len(p["waves"])
    return value


def evaluate(view: Mapping[str, Any], me: int) -> float:
    """My value minus the best opponent's (the Automa included)."""
    players = view["players"]
    mine = player_value(players[me])
    others = [player_value(p) for p in players if p["seat"] != me]
    spring = HOT_SPRING if view["hot_spring"] == me else 0.0
    return mine + spring - (max(others) if others else 0.0)


def leaf_values(view: Mapping[str, Any]) -> list[float]:
    """Per-seat chances in [0, 1] for search bots: a logistic of the evaluation margin."""
    values = [player_value(p) + (HOT_SPRING if view["hot_spring"] == p["seat"] else 0.0)
              for p in view["players"]]
    if len(values) == 1:  # pragma: no cover - the Automa always has an entry
        return [0.5]
    margin = values[0] - values[1]
    first = 1.0 / (1.0 + math.exp(-margin / LEAF_SCALE))
    return [first, 1.0 - first]


class TokaidoGreedyBot(Bot):
    name = "greedy"

    def __init__(self, game: str, seed: int) -> None:
        self.game = find_game(game)
        self.rng = random.Random(seed)
        self.board: Any = None

    def start(self, info: MatchInfo) -> None:
        self.board = match_board(self.game, info.board)  # warmed up here, off the clock

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        state = self.game.determinize(dict(view), self.rng.getrandbits(63), self.board)
        best_id, best_value = decision.options[0].id, float("-inf")
        for option in decision.options:
            value = self._value_after(state, decision.seat, option.id, MAX_DEPTH)
            if value > best_value:
                best_id, best_value = option.id, value
        return best_id

    def _value_after(self, state: State, me: int, option_id: str, depth: int) -> float:
        child = state.clone()
        child.apply({me: option_id})
        pending = child.pending()
        if depth > 0 and len(pending) == 1 and pending[0].seat == me:
            follow = pending[0]
            if follow.kind != "choose_die":  # a new die is a new move, not a follow-up
                return max(self._value_after(child, me, o.id, depth - 1) for o in follow.options)
        return evaluate(child.view(me), me)

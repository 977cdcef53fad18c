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


MAX_ASSETS = 4.0
"""Largest ``assets`` factor a spec may ask for."""


def player_value(p: Mapping[str, Any], assets: float = 1.0) -> float:
    """Banked score plus the worth of what has not turned into points yet, the latter
    (coins, wares, paintings, gifts, waves) times ``assets``. The Automa banks everything:
    its ranks are its score."""
    value = float(sum(p["score"].values()))
    if p.get("automa"):
        return value
    # Each weight times ``assets`` first: at 1 the sums are the tuned ones, bit for bit.
    value += COIN * assets * p["coins"] + WARE * assets * sum(p["wares"].values())
    revealed = sum(1 for t in p["paintings"] if t["state"] == "revealed")
    value += REVEALED * assets * revealed + GIFT_PROGRESS * assets * p["gifts"]
    # temple x garden: a step on the shorter track is worth the other track's value.
    value += 0.5 * min(p["temple"], p["garden"])
    value += WAVE * assets * len(p["waves"])
    return value


def evaluate(view: Mapping[str, Any], me: int, assets: float = 1.0) -> float:
    """My value minus the best opponent's (the Automa included)."""
    players = view["players"]
    mine = player_value(players[me], assets)
    others = [player_value(p, assets) for p in players if p["seat"] != me]
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
    """``assets`` scales what unbanked assets are worth (default 1: the tuned weights).
    Measured (bench/solo_strength.py and paired two-player games), ``assets=0.25`` plays
    better: the default weights make the bot hoard coins and wares that never score. The
    default stays until the two-player golden games and strength checks are redone."""

    name = "greedy"

    def __init__(self, game: str, seed: int, assets: float = 1.0) -> None:
        self.game = find_game(game)
        self.rng = random.Random(seed)
        self.board: Any = None
        if not (math.isfinite(assets) and 0 <= assets <= MAX_ASSETS):
            raise ValueError(f"assets must be in [0, {MAX_ASSETS:g}], got {assets:g}")
        self.assets = float(assets)

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
        return evaluate(child.view(me), me, self.assets)

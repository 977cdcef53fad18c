"""``mcts``: information-set Monte Carlo tree search over determinized simulations.

The bot sees only its view, like a remote bot. Each iteration asks the game for a full state
consistent with that view (``Game.determinize``: hidden tiles, hands and the future dice
sampled afresh), walks one shared tree by UCB over the options that are legal in *that*
determinization (single-observer ISMCTS: availability counts keep rarely legal moves fair),
plays the rest of the game out at random and backs up each seat's reward. Sampling the hidden
information anew every iteration is what stops the search from "seeing" the opponent's tiles.

Simultaneous decisions (sealed bids) are walked one seat after another inside an iteration,
the bot's own seat first: its bid never conditions on the others', while theirs condition on
its own, a pessimism (opponents play as if they saw the bid) accepted for one simple tree.

Where a game has a leaf evaluator (:data:`LEAF_EVALUATORS`, a function of the spectator view
of a simulated state giving each seat a value in [0, 1]), the playout is cut after
``rollout`` random steps and the evaluator scores the position: a full random playout of
Tokaido Duo costs as much as a hundred evaluations and says less.

Budget: ``ms`` of wall time per decision (default 100) or, for reproducible play, a fixed
number of ``playouts`` (iterations).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from typing import Any

import importlib
from collections.abc import Callable

from referee.core import Decision, Result, State
from referee.games import find_game
from referee.players import Bot, MatchInfo

EXPLORATION = 0.7
SCORE_WEIGHT = 0.2
"""Share of the reward given to the score margin, so that lost games are still lost by less."""


LEAF_EVALUATORS: dict[str, str] = {
    "tokaido-duo": "bots.tokaido_greedy:leaf_values",
    "doubletrack": "bots.doubletrack_greedy:leaf_values",
}
"""game -> "module:function"; the function maps a spectator view to per-seat values in [0, 1]."""


def leaf_evaluator(game: str) -> Callable[[Mapping[str, Any]], list[float]] | None:
    target = LEAF_EVALUATORS.get(game)
    if target is None:
        return None
    module, name = target.split(":")
    func: Callable[[Mapping[str, Any]], list[float]] = getattr(importlib.import_module(module), name)
    return func


class Node:
    """Statistics of one edge sequence, from the view of the seat that chose the last edge."""

    __slots__ = ("children", "visits", "reward", "available")

    def __init__(self) -> None:
        self.children: dict[tuple[int, str], Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


def rewards(result: Result) -> list[float]:
    """Per-seat reward in [0, 1]: rank utility (ties shared), plus a little score margin."""
    ranks = [s.rank for s in result.seats]
    scores = [s.score for s in result.seats]
    n = len(ranks)
    out = []
    for seat in range(n):
        rank_part = 1.0 if n == 1 else (n - ranks[seat]) / (n - 1)
        best_other = max((scores[o] for o in range(n) if o != seat), default=0)
        margin = math.tanh((scores[seat] - best_other) / 20.0)
        out.append((1 - SCORE_WEIGHT) * rank_part + SCORE_WEIGHT * (margin + 1) / 2)
    return out


class MctsBot(Bot):
    name = "mcts"

    def __init__(self, game: str, seed: int, ms: float = 100.0, playouts: float | None = None,
                 rollout: float = 4) -> None:
        self.game = find_game(game)
        self.rng = random.Random(seed)
        self.ms, self.playouts = float(ms), (int(playouts) if playouts is not None else None)
        self.evaluate = leaf_evaluator(game)
        self.rollout_steps = int(rollout) if self.evaluate else None
        self.board: Any = None

    def start(self, info: MatchInfo) -> None:
        self.board = self.game.board_from_data(info.board) if info.board else None

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        view = dict(view)  # materialise once: determinize reads it every iteration
        root = Node()
        deadline = time.perf_counter() + self.ms / 1000.0
        iterations = 0
        while True:
            if self.playouts is not None:
                if iterations >= self.playouts:
                    break
            elif iterations and time.perf_counter() >= deadline:
                break
            state = self.game.determinize(view, self.rng.getrandbits(63), self.board)
            self._iterate(state, root, decision.seat)
            iterations += 1
        return self._best(root, decision)

    def _best(self, root: Node, decision: Decision) -> str:
        def visits(option_id: str) -> tuple[int, float]:
            child = root.children.get((decision.seat, option_id))
            if child is None or child.visits == 0:
                return (0, 0.0)
            return (child.visits, child.reward / child.visits)

        return max(decision.options, key=lambda o: visits(o.id)).id

    def _iterate(self, state: State, root: Node, me: int) -> None:
        """Select and expand one leaf, play out at random, back the seats' rewards up."""
        path: list[tuple[Node, int]] = []
        node, expanded = root, False
        while not expanded:
            pending = state.pending()
            if not pending:
                break
            if len(pending) > 1:
                pending.sort(key=lambda d: d.seat != me)
            choices: dict[int, str] = {}
            for d in pending:
                if expanded:  # the rest of a simultaneous step is part of the playout
                    choices[d.seat] = self.rng.choice(d.options).id
                    continue
                node, choices[d.seat], expanded = self._select(node, d)
                path.append((node, d.seat))
            state.apply(choices)
        reward = self._playout(state)
        for n, seat in path:
            n.visits += 1
            n.reward += reward[seat]

    def _select(self, node: Node, d: Decision) -> tuple[Node, str, bool]:
        """UCB over the options legal here; an untried option is expanded at once."""
        untried = []
        best, best_value = "", -1.0
        for option in d.options:
            child = node.children.get((d.seat, option.id))
            if child is None:
                untried.append(option.id)
                continue
            child.available += 1
            value = child.reward / child.visits + EXPLORATION * math.sqrt(
                math.log(child.available) / child.visits
            )
            if value > best_value:
                best, best_value = option.id, value
        if untried:
            choice = self.rng.choice(untried)
            child = node.children[(d.seat, choice)] = Node()
            child.available = 1
            return child, choice, True
        return node.children[(d.seat, best)], best, False

    def _playout(self, state: State) -> list[float]:
        """Random moves to the end, or for ``rollout_steps`` and then the leaf evaluator."""
        choice, steps = self.rng.choice, 0
        while True:
            pending = state.pending()
            if not pending:
                result = state.result()
                assert result is not None
                return rewards(result)
            if self.rollout_steps is not None and steps >= self.rollout_steps:
                assert self.evaluate is not None
                return self.evaluate(state.view(None))
            state.apply({d.seat: choice(d.options).id for d in pending})
            steps += 1

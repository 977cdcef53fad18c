"""``mcts``: information-set Monte Carlo tree search over determinized simulations.

The bot sees only its view, like a remote bot. Each iteration asks the game for a full state
consistent with that view (``Game.determinize``: hidden tiles, hands and the future dice
sampled afresh), walks one shared tree by UCB over the options that are legal in *that*
determinization (single-observer ISMCTS: availability counts keep rarely legal moves fair),
plays the rest of the game out at random and backs up each seat's reward. Sampling the hidden
information anew every iteration is what stops the search from "seeing" the opponent's tiles.

Simultaneous decisions (sealed bids) are searched decoupled (DUCT): at such a node every
seat picks by UCB over its *own* statistics, blind to the others' picks, and the joint pick
leads to the child. A sequential walk would let the later bidders "see" the earlier bid and
teach the search that bidding never pays.

Where a game has a leaf evaluator (:data:`LEAF_EVALUATORS`, a function of the spectator view
of a simulated state giving each seat a value in [0, 1]), the playout is cut after
``rollout`` random steps and the evaluator scores the position: a full random playout of
Tokaido Duo costs as much as a hundred evaluations and says less.

Where the game has a ``greedy`` bot, options enter each node's search one by one, greedy's
pick first (progressive widening): with dozens of options, spreading a few hundred iterations
over all of them made the choice near random. The greedy bot can also play a share ``guided``
of the playout moves.

Doubletrack has a search of its own (``bots/doubletrack_search.py``): there two dice and
all-pay auctions made this tree search no stronger than greedy.

Budget: ``ms`` of wall time per decision (default 100) or, for reproducible play, a fixed
number of ``playouts`` (iterations).
"""

from __future__ import annotations

import importlib
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bots.boards import match_board
from referee.core import Decision, Option, Result, State
from referee.games import find_game
from referee.players import Bot, MatchInfo

EXPLORATION = 0.7
WIDEN = 0.5
"""Progressive widening: after t picks at a node a seat considers 1 + WIDEN * sqrt(t) options."""
SCORE_WEIGHT = 0.2
"""Share of the reward given to the score margin, so that lost games are still lost by less."""
MAX_MS = 60_000
"""Longest search per decision: past a minute a typo (``ms=1e9``) would hang the match."""
MAX_PLAYOUTS = 100_000
"""Most iterations per decision, for the same reason."""


LEAF_EVALUATORS: dict[str, str] = {
    "tokaido-duo": "bots.tokaido_greedy:leaf_values",
}
"""game -> "module:function"; the function maps a spectator view to per-seat values in [0, 1]."""


def greedy_policy(game: str, seed: int) -> Bot | None:
    """The game's ``greedy`` bot, to order options in the tree and guide playouts."""
    from bots import UnknownBotError, find_bot  # the registry imports this module

    try:
        return find_bot("greedy", game, seed)
    except UnknownBotError:
        return None


def leaf_evaluator(game: str) -> Callable[[Mapping[str, Any]], list[float]] | None:
    target = LEAF_EVALUATORS.get(game)
    if target is None:
        return None
    module, name = target.split(":")
    func: Callable[[Mapping[str, Any]], list[float]] = getattr(importlib.import_module(module), name)
    return func


class Stat:
    """One seat's record for one option at one node; ``available`` counts the iterations
    in which the option was legal (determinizations differ), for the ISMCTS exploration term."""

    __slots__ = ("visits", "reward", "available")

    def __init__(self) -> None:
        self.visits = 0
        self.reward = 0.0
        self.available = 0


class Node:
    """A position of the shared tree: per-(seat, option) statistics, children by joint pick,
    and per seat the order in which its options enter the search (``priority``, lowest
    first) with the number of times the seat picked here (``tries``)."""

    __slots__ = ("stats", "children", "priority", "tries")

    def __init__(self) -> None:
        self.stats: dict[tuple[int, str], Stat] = {}
        self.children: dict[tuple[tuple[int, str], ...], Node] = {}
        self.priority: dict[int, dict[str, float]] = {}
        self.tries: dict[int, int] = {}


def rewards(result: Result) -> list[float]:
    """Per-seat reward in [0, 1]: the share of the win (a tie for first splits it; places
    below first earn nothing, as a bot is judged by its wins), plus a little score margin.
    Leaf evaluators estimate the same thing: each seat's chance of winning."""
    scores = [s.score for s in result.seats]
    winners = [seat for seat, s in enumerate(result.seats) if s.rank == 1]
    n = len(scores)
    out = []
    for seat in range(n):
        win = 1.0 / len(winners) if seat in winners else 0.0
        best_other = max((scores[o] for o in range(n) if o != seat), default=0)
        margin = math.tanh((scores[seat] - best_other) / 20.0)
        out.append((1 - SCORE_WEIGHT) * win + SCORE_WEIGHT * (margin + 1) / 2)
    return out


def whole_number(name: str, value: float, low: int, high: int) -> int:
    """``value`` as a whole number in ``[low, high]``, or ``ValueError`` naming ``name``:
    a spec's numbers arrive as floats, and ``playouts=2.5`` must not quietly mean 2."""
    if not (math.isfinite(value) and value == int(value) and low <= value <= high):
        raise ValueError(f"{name} must be a whole number in [{low}, {high}], got {value:g}")
    return int(value)


class MctsBot(Bot):
    """Parameters (all checked here, so that a bad spec fails before a match starts): ``ms``
    per decision, or a fixed number of ``playouts``; ``rollout`` random steps before the leaf
    evaluator; ``guided``, the share of greedy playout moves; ``widen``, see :data:`WIDEN`."""

    name = "mcts"

    def __init__(self, game: str, seed: int, ms: float = 100.0, playouts: float | None = None,
                 rollout: float = 4, guided: float = 0.0, widen: float = WIDEN) -> None:
        self.game = find_game(game)
        self.rng = random.Random(seed)
        if not 0 < ms <= MAX_MS:
            raise ValueError(f"ms must be in (0, {MAX_MS}], got {ms:g}")
        self.ms = float(ms)
        self.playouts = (None if playouts is None
                         else whole_number("playouts", playouts, 1, MAX_PLAYOUTS))
        self.evaluate = leaf_evaluator(game)
        steps = whole_number("rollout", rollout, 0, 10_000)
        self.rollout_steps = steps if self.evaluate else None
        self.guided = float(guided)
        if not 0 <= self.guided <= 1:
            raise ValueError(f"guided is a probability, in [0, 1], got {self.guided:g}")
        self.widen = float(widen)
        if not (math.isfinite(self.widen) and self.widen >= 0):
            raise ValueError(f"widen must be a number >= 0, got {self.widen:g}")
        self.policy = greedy_policy(game, seed)
        self.board: Any = None

    def start(self, info: MatchInfo) -> None:
        """The board, warmed up here, off the clock (:mod:`bots.boards`), for the search and
        for the greedy policy that orders its options."""
        self.board = match_board(self.game, info.board)
        if self.policy is not None:
            self.policy.start(info)

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
            self._iterate(state, root)
            iterations += 1
        return self._best(root, decision)

    def _best(self, root: Node, decision: Decision) -> str:
        def visits(option_id: str) -> tuple[int, float]:
            stat = root.stats.get((decision.seat, option_id))
            if stat is None or stat.visits == 0:
                return (0, 0.0)
            return (stat.visits, stat.reward / stat.visits)

        return max(decision.options, key=lambda o: visits(o.id)).id

    def _iterate(self, state: State, root: Node) -> None:
        """Select down to a new pick, play out, back every picking seat's reward up."""
        path: list[tuple[Node, list[tuple[int, str]]]] = []
        node = root
        while True:
            pending = state.pending()
            if not pending:
                break
            picks = [self._select(node, d, state) for d in pending]
            path.append((node, [(d.seat, pick) for d, (pick, _) in zip(pending, picks)]))
            state.apply({d.seat: pick for d, (pick, _) in zip(pending, picks)})
            if any(new for _, new in picks):
                break
            key = tuple(path[-1][1])
            node = node.children.setdefault(key, Node())
        reward = self._playout(state)
        for n, picks_made in path:
            for seat, pick in picks_made:
                n.tries[seat] = n.tries.get(seat, 0) + 1
                stat = n.stats[(seat, pick)]
                stat.visits += 1
                stat.reward += reward[seat]

    def _select(self, node: Node, d: Decision, state: State) -> tuple[str, bool]:
        """UCB over ``d.seat``'s options legal here, widened progressively: only the first
        ``1 + widen * sqrt(tries)`` options in priority order compete (:meth:`_priorities`),
        an untried one among them first. Returns the pick and whether it is new (the walk
        then stops to play out)."""
        priority = node.priority.get(d.seat)
        if priority is None:
            priority = node.priority[d.seat] = self._priorities(d, state)
        width = 1 + int(self.widen * math.sqrt(node.tries.get(d.seat, 0)))
        options: Sequence[Option] = d.options
        if width < len(options):
            options = sorted(options, key=lambda o: priority.get(o.id, 2.0))[:width]
        best, best_value = "", -1.0
        stats = node.stats
        for option in options:
            stat = stats.get((d.seat, option.id))
            if stat is None:
                stat = stats[(d.seat, option.id)] = Stat()
                stat.available = 1
                return option.id, True
            stat.available += 1
            value = stat.reward / stat.visits + EXPLORATION * math.sqrt(
                math.log(stat.available) / stat.visits
            )
            if value > best_value:
                best, best_value = option.id, value
        return best, False

    def _priorities(self, d: Decision, state: State) -> dict[str, float]:
        """The order in which a seat's options enter the search at a new node: the greedy
        bot's pick first, the rest at random. With dozens of options and a few hundred
        iterations, trying every option would leave each a handful of noisy playouts and
        the pick near random; widening spends the iterations on few options, and where the
        search finds nothing better, it plays what the greedy bot would (its pick has the
        most visits)."""
        priority = {o.id: self.rng.random() for o in d.options}
        if self.policy is not None:
            out = self.policy.decide(d, state.view(d.seat))
            priority[out[0] if isinstance(out, tuple) else out] = -1.0
        return priority

    def _playout(self, state: State) -> list[float]:
        """Random moves to the end, or for ``rollout_steps`` and then the leaf evaluator.
        Unguided, it takes the engine's fast path: option indexes, no option built."""
        steps = 0
        guided = self.policy is not None and self.guided > 0
        pick = self.rng.randrange
        while True:
            counts = state.choice_counts()
            if not counts:
                result = state.result()
                assert result is not None
                return rewards(result)
            if self.rollout_steps is not None and steps >= self.rollout_steps:
                assert self.evaluate is not None
                return self.evaluate(state.view(None))
            if guided:
                state.apply({d.seat: self._rollout_pick(state, d) for d in state.pending()})
            else:
                state.apply_index({seat: pick(n) for seat, n in counts})
            steps += 1

    def _rollout_pick(self, state: State, d: Decision) -> str:
        """Random, or with probability ``guided`` what the game's greedy bot would play."""
        if self.policy is not None and self.rng.random() < self.guided:  # guided > 0 here
            out = self.policy.decide(d, state.view(d.seat))
            return out[0] if isinstance(out, tuple) else out
        return self.rng.choice(d.options).id

"""``mcts`` for Doubletrack: a determinized Monte Carlo search of the decision at hand.

The tree search of ``bots/mcts.py`` measured no better than ``greedy`` here: two dice and
all-pay auctions make each playout so noisy that a few hundred of them, spread over a tree,
cannot tell the options apart. This search spends its budget where the noise can be beaten:

- **Candidates**: the decision's options, or for bids and fees (dozens of amounts) a short
  list: the greedy pick and its neighbours, amounts spread evenly, every option that is not an
  amount (refuse, let through free), and in a sealed bid what each other bidder would bid by
  greedy's reckoning and one step above it.
- **Common random numbers**: each iteration samples one determinization (hidden hands, the
  card on sale, the pile order and the future dice: ``Game.determinize``) and plays *every*
  candidate from it. The other seats' simultaneous answers come from the greedy policy on
  their own views, blind to the candidate; then every seat plays greedy until ``horizon``
  more turns have begun, where the fitted value (:mod:`bots.doubletrack_value`) gives each
  seat's chance of winning (a finished game gives its result). All candidates meet the same
  cards and dice, so their *differences* are far less noisy than their values.
- **The pick**: the candidate with the best lower bound, ``margin`` standard errors of its
  paired difference from the greedy pick below its mean; greedy's pick unless one is above 0,
  or unless fewer than :data:`MIN_SAMPLES` iterations ran (one sampled game "proves" anything).

It is one-step policy improvement over greedy (the rollout algorithm of Tesauro and
Galperin's backgammon player): where the search sees nothing better, it plays what greedy
would. Budget: ``ms`` of wall time per decision (default 100) or, for reproducible play, a
fixed number of ``playouts`` (iterations, each playing every candidate).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bots.boards import match_board
from bots.doubletrack_greedy import DoubletrackGreedyBot
from bots.doubletrack_value import weights, win_chances
from bots.mcts import MAX_MS, MAX_PLAYOUTS, whole_number
from referee.core import Decision
from referee.games import find_game
from referee.games.doubletrack import Board, DoubletrackGame, DoubletrackState
from referee.players import Bot, MatchInfo

SPREAD = 6
"""Evenly spread amounts tried in a decision with more options than ``SPREAD + 2``."""
MIN_SAMPLES = 4
"""Fewer iterations than this (a tiny ``ms``, a slow machine) leave the greedy pick standing:
the spread of one or two paired differences says nothing about their noise."""


class DoubletrackSearchBot(Bot):
    """Parameters (checked here, so that a bad spec fails before a match starts): ``ms`` per
    decision or a fixed number of ``playouts``; ``horizon``, turns of greedy play before the
    value; ``margin``, standard errors a departure from greedy must clear; ``spread``."""

    name = "mcts"

    def __init__(self, game: str, seed: int, ms: float = 100.0, playouts: float | None = None,
                 horizon: float = 1, margin: float = 1.0, spread: float = SPREAD) -> None:
        found = find_game(game)
        assert isinstance(found, DoubletrackGame)
        self.game = found
        self.rng = random.Random(seed)
        if not 0 < ms <= MAX_MS:
            raise ValueError(f"ms must be in (0, {MAX_MS}], got {ms:g}")
        self.ms = float(ms)
        self.playouts = None if playouts is None else whole_number("playouts", playouts, 1,
                                                                   MAX_PLAYOUTS)
        self.horizon = whole_number("horizon", horizon, 1, 100)
        if not (math.isfinite(margin) and margin >= 0):
            raise ValueError(f"margin must be a number >= 0, got {margin:g}")
        self.margin = float(margin)
        self.spread = whole_number("spread", spread, 2, 1000)
        self.policy = DoubletrackGreedyBot(game, seed)
        self.board: Board = self.game.load_board()

    def start(self, info: MatchInfo) -> None:
        """The board and the value model's weights, ready before the first decision, off
        the clock (:mod:`bots.boards`)."""
        self.board = match_board(self.game, info.board)
        self.policy.start(info)
        weights(len(info.players))

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> tuple[str, str]:
        view = dict(view)  # materialise once: determinize reads it every iteration
        greedy = self.policy.decide(decision, view)
        if view["board_version"] != self.board.version:
            return greedy, "greedy: the view is of another board than this bot was started on"
        seat = decision.seat
        deadline = time.perf_counter() + self.ms / 1000.0
        base = self._determinize(view)
        others = self._others(base, seat)
        candidates = self._candidates(decision, greedy, base, others)
        if len(candidates) == 1:  # (a hand-made decision: the engine asks only real choices)
            return greedy, "greedy: the only candidate"
        scores: dict[str, list[float]] = {c: [] for c in candidates}
        while True:
            for choice in candidates:
                scores[choice].append(self._score(base, {**others, seat: choice}, seat))
            done = len(scores[greedy])
            if (done >= self.playouts if self.playouts is not None
                    else time.perf_counter() >= deadline):
                break
            base = self._determinize(view)
            others = self._others(base, seat)
        return self._pick(scores, greedy)

    def _determinize(self, view: Mapping[str, Any]) -> DoubletrackState:
        return self.game.determinize(view, self.rng.getrandbits(63), self.board)

    def _others(self, base: DoubletrackState, seat: int) -> dict[int, str]:
        """The greedy answers of the other seats asked at once (sealed bids), blind to ours."""
        return {d.seat: self.policy.decide(d, base.view(d.seat))
                for d in base.pending() if d.seat != seat}

    def _candidates(self, d: Decision, greedy: str, base: DoubletrackState,
                    others: Mapping[int, str]) -> list[str]:
        """Greedy's pick first, then the other options worth playing out (see the module)."""
        ids = [o.id for o in d.options]
        if len(ids) <= self.spread + 2:
            return [greedy] + [i for i in ids if i != greedy]
        at = ids.index(greedy)
        chosen = {ids[round(j * (len(ids) - 1) / (self.spread - 1))] for j in range(self.spread)}
        chosen.update(ids[max(at - 1, 0):at + 2])
        chosen.update(o.id for o in d.options if not o.data.get("amount", o.data.get("fee")))
        if d.kind == "bid":
            chosen.update(_bids_to_beat(d, base, others))
        return [greedy] + [i for i in ids if i in chosen and i != greedy]

    def _score(self, base: DoubletrackState, choices: Mapping[int, str], seat: int) -> float:
        """``seat``'s chance of winning after ``choices``, then greedy play to the horizon."""
        state = base.clone()
        state.apply(choices)
        stop = base.turns + self.horizon
        decide = self.policy.decide
        while True:
            pending = state.pending()
            result = None if pending else state.result()
            if result is not None:
                return result.win_share(seat)
            if not pending or state.turns >= stop:  # (no question, no result: a test's position)
                return win_chances([state.view(s) for s in range(state.num_players)])[seat]
            state.apply({d.seat: decide(d, state.view(d.seat)) for d in pending})

    def _pick(self, scores: Mapping[str, Sequence[float]], greedy: str) -> tuple[str, str]:
        """The best lower confidence bound on the gain over greedy's pick (see the module)."""
        base = scores[greedy]
        n = len(base)
        best, best_bound, best_gain = greedy, 0.0, 0.0
        for choice, values in scores.items() if n >= MIN_SAMPLES else ():
            if choice == greedy:
                continue
            gains = [a - b for a, b in zip(values, base)]
            mean = sum(gains) / n
            variance = sum((g - mean) ** 2 for g in gains) / max(n - 1, 1)
            bound = mean - self.margin * math.sqrt(max(variance, 1e-6) / n)
            if bound > best_bound:
                best, best_bound, best_gain = choice, bound, mean
        note = (f"search: {n} iterations x {len(scores)} candidates; "
                + (f"{best} gains {best_gain:+.3f} over greedy's {greedy}" if best != greedy
                   else f"greedy's {greedy} stands"))
        return best, note


def _bids_to_beat(d: Decision, base: DoubletrackState, others: Mapping[int, str]) -> set[str]:
    """In a sealed bid the amounts that matter are the others' bids and one step above (bids
    depend only on public facts, so greedy's bid in a sampled game is its bid in the real one)."""
    unit = d.options[1].data["amount"] - d.options[0].data["amount"]
    out = set()
    for other in base.pending():
        if other.seat in others:
            bid = next(o.data["amount"] for o in other.options if o.id == others[other.seat])
            out |= {f"bid:{bid}", f"bid:{bid + unit}"}
    return out

"""Rating maths: Elo (pairwise for 3-4 seats), Bradley-Terry with intervals, openskill.

Pure functions over plain numbers, no database: the store folds them over matches in order, and
tests check them against hand-computed values.  A match enters every model the same way, as the
seats' *standings* (1 = best, ties share): a seat's final rank, except that a forfeited seat is
placed below every seat that did not forfeit, and forfeited seats tie among themselves (issue 5:
"a forfeit counts as a loss to every other seat").
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from operator import mul
from typing import Literal, TypeVar

from openskill.models import PlackettLuce

from tournaments.stats import pair_score

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of strength: P(win) = 1 / (1 + 10^(-diff/400))."""

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the normal distribution."""

Outcome = Literal["win", "draw", "loss"]
K = TypeVar("K", bound=Hashable)


# -- standings ------------------------------------------------------------------------------

def standings(ranks: Sequence[int], forfeited: Sequence[bool]) -> list[int]:
    """Placings used by every model: the rank, or one place below all seats for a forfeit."""
    if len(ranks) != len(forfeited):
        raise ValueError("ranks and forfeited differ in length")
    last = len(ranks) + 1
    return [last if f else int(r) for r, f in zip(ranks, forfeited)]


def outcome(standing: Sequence[int], forfeited: Sequence[bool], seat: int) -> Outcome:
    """Win/draw/loss for the leaderboard's counts.

    A win is first place alone, a draw is first place shared, anything else (and every
    forfeit, even when all seats forfeited) is a loss.
    """
    if forfeited[seat]:
        return "loss"
    best = min(s for s, f in zip(standing, forfeited) if not f)
    if standing[seat] != best:
        return "loss"
    shared = sum(1 for s, f in zip(standing, forfeited) if s == best and not f) > 1
    return "draw" if shared else "win"


# -- Elo ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EloConfig:
    """Elo settings of one ladder (a game): the same settings must drive every fold."""

    k: float = 24.0
    k_provisional: float = 40.0
    """K for a bot's first ``provisional_games`` games, so a newcomer finds its level fast."""
    provisional_games: int = 10
    start: float = 1500.0

    def __post_init__(self) -> None:
        if not (self.k > 0 and self.k_provisional > 0):
            raise ValueError("Elo K factors must be positive")
        if self.provisional_games < 0:
            raise ValueError("provisional games must be 0 or more")

    def k_for(self, games_before: int) -> float:
        return self.k_provisional if games_before < self.provisional_games else self.k


def expected_score(rating: float, opponent: float) -> float:
    """Elo's expected score of ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def elo_update(
    ratings: Sequence[float], games_before: Sequence[int], standing: Sequence[int],
    config: EloConfig,
) -> list[float]:
    """New ratings of one match's seats, all computed from the ratings before the match.

    Every pair of seats is one Elo game scored by standing; a seat's K is divided by
    ``seats - 1`` so a 4-seat table moves a rating about as much as one 2-seat game.
    """
    n = len(ratings)
    if n < 2 or len(games_before) != n or len(standing) != n:
        raise ValueError("an Elo update needs two or more seats with a rating, games and standing")
    new = []
    for i in range(n):
        surprise = sum(
            pair_score(standing[i], standing[j]) - expected_score(ratings[i], ratings[j])
            for j in range(n) if j != i
        )
        new.append(ratings[i] + config.k_for(games_before[i]) / (n - 1) * surprise)
    return new


# -- openskill ------------------------------------------------------------------------------

@dataclass(frozen=True)
class SkillRating:
    """openskill's belief about a bot: mean ``mu`` and uncertainty ``sigma``."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: what the bot is almost surely at least as good as."""
        return self.mu - 3.0 * self.sigma


class OpenSkill:
    """openskill's Plackett-Luce model with its default settings (mu 25, sigma 25/3)."""

    def __init__(self) -> None:
        self.model = PlackettLuce()

    def initial(self) -> SkillRating:
        return SkillRating(self.model.mu, self.model.sigma)

    def rate(self, ratings: Sequence[SkillRating], standing: Sequence[int]) -> list[SkillRating]:
        """New ratings after one match; each seat is a team of one, ties allowed."""
        teams = [[self.model.create_rating([r.mu, r.sigma])] for r in ratings]
        rated = self.model.rate(teams, ranks=[float(s) for s in standing])
        return [SkillRating(team[0].mu, team[0].sigma) for team in rated]


# -- Bradley-Terry --------------------------------------------------------------------------

@dataclass(frozen=True)
class BTEstimate:
    """A Bradley-Terry rating on the Elo scale (field mean 1500) and its 95% half-width."""

    rating: float
    margin: float

    @property
    def low(self) -> float:
        return self.rating - self.margin

    @property
    def high(self) -> float:
        return self.rating + self.margin


def bradley_terry(
    results: Iterable[tuple[K, K, float, float]], prior_games: float = 2.0, center: float = 1500.0,
    tol: float = 1e-8, max_iter: int = 200,
) -> dict[K, BTEstimate]:
    """Fit P(a beats b) = 1 / (1 + 10^(-(Ra - Rb)/400)) to ``(a, b, score_a, games)`` records.

    ``score_a`` counts a's wins plus half its draws against b out of ``games`` (weights may be
    fractional).  The fit maximises the likelihood times a weak normal prior worth
    ``prior_games`` draws against an average bot: without it a bot that never lost would have
    an infinite rating, and a ladder split into groups that never met would have no common
    level.  Intervals come from the inverse of the observed information (Newton's Hessian),
    with the common level projected out, so they say how sure the bot's place *in this field* is.
    """
    if prior_games <= 0:
        raise ValueError("prior_games must be positive")
    index: dict[K, int] = {}
    pairs: dict[tuple[int, int], list[float]] = {}
    for a, b, score, games in results:
        if a == b or games <= 0:
            continue
        ia, ib = index.setdefault(a, len(index)), index.setdefault(b, len(index))
        key, s = ((ia, ib), score) if ia < ib else ((ib, ia), games - score)
        cell = pairs.setdefault(key, [0.0, 0.0])
        cell[0] += s
        cell[1] += games
    if not index:
        return {}
    flat = [(i, j, s, g) for (i, j), (s, g) in pairs.items()]
    strength, factor = _bt_newton(len(index), flat, prior_games / 4.0, tol, max_iter)
    variances = _centered_variances(factor)
    return {
        key: BTEstimate(center + ELO_SCALE * strength[i],
                        Z95 * ELO_SCALE * math.sqrt(max(variances[i], 0.0)))
        for key, i in index.items()
    }


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _bt_objective(theta: list[float], pairs: list[tuple[int, int, float, float]],
                  ridge: float) -> float:
    total = -0.5 * ridge * sum(t * t for t in theta)
    for i, j, s, g in pairs:
        d = theta[i] - theta[j]
        total += s * _log_sigmoid(d) + (g - s) * _log_sigmoid(-d)
    return total


def _bt_information(theta: list[float], pairs: list[tuple[int, int, float, float]],
                    ridge: float) -> list[list[float]]:
    """Minus the Hessian of the log posterior (positive definite thanks to the ridge)."""
    n = len(theta)
    h = [[0.0] * n for _ in range(n)]
    for i in range(n):
        h[i][i] = ridge
    for i, j, _s, g in pairs:
        p = _sigmoid(theta[i] - theta[j])
        w = g * p * (1.0 - p)
        h[i][i] += w
        h[j][j] += w
        h[i][j] -= w
        h[j][i] -= w
    return h


def _bt_newton(n: int, pairs: list[tuple[int, int, float, float]], ridge: float, tol: float,
               max_iter: int) -> tuple[list[float], list[list[float]]]:
    """Newton's method with step halving; the posterior is strictly concave, so it converges.

    Returns the strengths and the Cholesky factor of the information matrix from the last
    step (taken within ``tol`` of the optimum, so it also serves for the intervals).
    """
    theta = [0.0] * n
    value = _bt_objective(theta, pairs, ridge)
    for _ in range(max_iter):
        grad = [-ridge * t for t in theta]
        for i, j, s, g in pairs:
            r = s - g * _sigmoid(theta[i] - theta[j])
            grad[i] += r
            grad[j] -= r
        factor = cholesky(_bt_information(theta, pairs, ridge))
        step = cholesky_solve(factor, grad)
        scale = 1.0
        while True:
            trial = [t + scale * d for t, d in zip(theta, step)]
            trial_value = _bt_objective(trial, pairs, ridge)
            if trial_value >= value - 1e-12 * abs(value) or scale < 1e-6:
                break
            scale /= 2.0
        theta, value = trial, trial_value
        if max(abs(scale * d) for d in step) < tol:
            break
    return theta, factor


def _centered_variances(low: list[list[float]]) -> list[float]:
    """Diagonal of P H^-1 P with P = I - 11'/n (H = L L'): each strength's variance about the mean."""
    n = len(low)
    inv_low = _invert_lower(low)
    diag = [sum(inv_low[k][a] ** 2 for k in range(a, n)) for a in range(n)]
    row = cholesky_solve(low, [1.0] * n)  # H^-1 1
    total = sum(row)
    return [diag[a] - 2.0 * row[a] / n + total / (n * n) for a in range(n)]


# -- small dense linear algebra (plain Python; matrices are a few hundred wide at most) -------

def cholesky(a: Sequence[Sequence[float]]) -> list[list[float]]:
    """Lower-triangular L with L L' = a, for a symmetric positive definite ``a``."""
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        li = low[i]
        for j in range(i + 1):
            lj = low[j]
            s = a[i][j] - sum(map(mul, li[:j], lj[:j]))
            if i == j:
                if s <= 0.0:
                    raise ValueError("matrix is not positive definite")
                li[i] = math.sqrt(s)
            else:
                li[j] = s / lj[j]
    return low


def cholesky_solve(low: list[list[float]], b: Sequence[float]) -> list[float]:
    """Solve (L L') x = b given the Cholesky factor L."""
    n = len(low)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(map(mul, low[i][:i], y[:i]))) / low[i][i]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _invert_lower(low: list[list[float]]) -> list[list[float]]:
    """Inverse of a lower-triangular matrix, by forward substitution column by column."""
    n = len(low)
    inv = [[0.0] * n for _ in range(n)]
    for c in range(n):
        col = [0.0] * n
        col[c] = 1.0 / low[c][c]
        for i in range(c + 1, n):
            col[i] = -sum(map(mul, low[i][c:i], col[c:i])) / low[i][i]
        for i in range(c, n):
            inv[i][c] = col[i]
    return inv

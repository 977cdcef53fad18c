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
from typing import Literal, NamedTuple, TypeVar

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


def outcomes(standing: Sequence[int], forfeited: Sequence[bool]) -> list[Outcome]:
    """Every seat's win/draw/loss for the leaderboard's counts.

    A win is first place alone, a draw is first place shared, anything else (and every
    forfeit, even when all seats forfeited) is a loss.
    """
    if any(forfeited):
        played = [s for s, f in zip(standing, forfeited) if not f]
        if not played:
            return ["loss"] * len(standing)
        best = min(played)
        top: Outcome = "win" if played.count(best) == 1 else "draw"
        return [top if s == best and not f else "loss" for s, f in zip(standing, forfeited)]
    best = min(standing)
    top = "win" if standing.count(best) == 1 else "draw"
    return [top if s == best else "loss" for s in standing]


def outcome(standing: Sequence[int], forfeited: Sequence[bool], seat: int) -> Outcome:
    """One seat's entry of :func:`outcomes`."""
    return outcomes(standing, forfeited)[seat]


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
    if n == 2:
        return list(elo_two(ratings[0], ratings[1], games_before[0], games_before[1],
                            standing[0], standing[1], config))
    new = []
    for i in range(n):
        rating, mine = ratings[i], standing[i]
        surprise = 0.0
        for j in range(n):
            if j != i:
                surprise += pair_score(mine, standing[j]) - expected_score(rating, ratings[j])
        new.append(rating + config.k_for(games_before[i]) / (n - 1) * surprise)
    return new


def elo_two(a: float, b: float, games_a: int, games_b: int, place_a: int, place_b: int,
            config: EloConfig) -> tuple[float, float]:
    """:func:`elo_update` for two seats (most ladders): its loop unrolled, the same arithmetic
    (0.0 + x is x)."""
    return (a + config.k_for(games_a) * (pair_score(place_a, place_b) - expected_score(a, b)),
            b + config.k_for(games_b) * (pair_score(place_b, place_a) - expected_score(b, a)))


# -- openskill (Plackett-Luce) ---------------------------------------------------------------

SKILL_MU = 25.0
SKILL_SIGMA = 25.0 / 3.0
SKILL_BETA = 25.0 / 6.0
"""Performance spread: how far one game's result strays from the skill behind it."""
SKILL_TAU = 25.0 / 300.0
"""Additive dynamics: sigma grows by this much (in quadrature) before every match."""
SKILL_KAPPA = 0.0001
"""Floor of the factor that shrinks a variance, so that sigma never reaches zero."""


class SkillRating(NamedTuple):
    """openskill's belief about a bot: mean ``mu`` and uncertainty ``sigma``."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: what the bot is almost surely at least as good as."""
        return self.mu - 3.0 * self.sigma


INITIAL_SKILL = SkillRating(SKILL_MU, SKILL_SIGMA)
"""openskill's default prior for a new bot."""

Skill = tuple[float, float]
"""``(mu, sigma)``: what :func:`plackett_luce` takes and gives (a :class:`SkillRating` is one).
Plain tuples, because building a named tuple costs more than the update's arithmetic."""

_TAU_SQUARED = SKILL_TAU * SKILL_TAU
_BETA_SQUARED = SKILL_BETA ** 2


def plackett_luce(ratings: Sequence[Skill], standing: Sequence[int]) -> list[Skill]:
    """New ratings after one match: openskill's ``PlackettLuce().rate``, each seat a team of one.

    Weng & Lin (2011), Algorithm 4, written out for one-bot teams.  openskill 6.2 deep-copies
    its input and draws a uuid4 for every rating object it builds, which was most of the cost
    of a ladder recompute; this computes the same expressions in the same order (seats sorted
    by standing, stably, as openskill sorts them), so the results are equal to the last bit:
    a property test compares the two on random matches with ties and forfeits.  Two
    consequences of following openskill 6.2 exactly: tied seats' mu changes are not averaged
    (its averaging subtracts each updated rating from itself, adding 0), and a bot's share of
    its team's variance, 1 for a team of one, drops out of the updates.
    """
    n = len(ratings)
    if n < 2 or len(standing) != n:
        raise ValueError("a Plackett-Luce update needs two or more seats, each with a standing")
    if n == 2:
        return list(plackett_luce_two(ratings[0], ratings[1], standing[0], standing[1]))
    order = sorted(range(n), key=standing.__getitem__)
    ranks, sigmas, variances = [], [], []
    spread = 0.0
    for seat in order:
        ranks.append(standing[seat])
        sigma = ratings[seat][1]
        sigma = math.sqrt(sigma * sigma + _TAU_SQUARED)  # sigma grows before the match
        variance = sigma ** 2
        sigmas.append(sigma)
        variances.append(variance)
        spread += variance + _BETA_SQUARED
    c = math.sqrt(spread)
    strength = [math.exp(ratings[seat][0] / c) for seat in order]
    # per seat q: how many seats share its standing, and the strengths of the seats placed
    # at or below it, summed from its tie group down
    ties: list[int] = []
    below: list[float] = []
    for q in range(n):
        if q and ranks[q] == ranks[q - 1]:
            ties.append(ties[-1])
            below.append(below[-1])
            continue
        ties.append(ranks.count(ranks[q]))
        total = strength[q]
        for i in range(q + 1, n):
            total += strength[i]
        below.append(total)
    new = list(ratings)
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] > ranks[i]:
                break
            p = strength[i] / below[q]  # P(i comes first among the seats placed at or below q)
            delta += p * (1 - p) / ties[q]
            if q == i:
                omega += (1 - p) / ties[q]
            else:
                omega -= p / ties[q]
        seat = order[i]
        new[seat] = _moved(ratings[seat][0], sigmas[i], variances[i], omega, delta, c)
    return new


def plackett_luce_two(rating_a: Skill, rating_b: Skill, place_a: int,
                      place_b: int) -> tuple[Skill, Skill]:
    """:func:`plackett_luce` for two seats (most ladders), unrolled: the same operations in the
    same order (the first placed seat first, or seat a in a tie), at half the cost."""
    if place_a <= place_b:
        first, second = rating_a, rating_b
    else:
        first, second = rating_b, rating_a
    (mu_1, sigma_1), (mu_2, sigma_2) = first, second
    sigma_1 = math.sqrt(sigma_1 * sigma_1 + _TAU_SQUARED)
    sigma_2 = math.sqrt(sigma_2 * sigma_2 + _TAU_SQUARED)
    variance_1, variance_2 = sigma_1 ** 2, sigma_2 ** 2
    c = math.sqrt((variance_1 + _BETA_SQUARED) + (variance_2 + _BETA_SQUARED))
    strength_1, strength_2 = math.exp(mu_1 / c), math.exp(mu_2 / c)
    p_1 = strength_1 / (strength_1 + strength_2)
    p_2 = strength_2 / (strength_1 + strength_2)
    if place_a != place_b:  # 1's terms over q = 1; 2's over q = 1, then q = 2 (p = 1)
        omega_1, delta_1 = 1 - p_1, p_1 * (1 - p_1)
        omega_2, delta_2 = 0.0 - p_2, p_2 * (1 - p_2)
    else:  # one tie group of two: both seats take both terms, each divided by 2
        omega_1 = (1 - p_1) / 2 - p_1 / 2
        delta_1 = p_1 * (1 - p_1) / 2 + p_1 * (1 - p_1) / 2
        omega_2 = (0.0 - p_2 / 2) + (1 - p_2) / 2
        delta_2 = p_2 * (1 - p_2) / 2 + p_2 * (1 - p_2) / 2
    new_first = _moved(mu_1, sigma_1, variance_1, omega_1, delta_1, c)
    new_second = _moved(mu_2, sigma_2, variance_2, omega_2, delta_2, c)
    return (new_first, new_second) if place_a <= place_b else (new_second, new_first)


def _moved(mu: float, sigma: float, variance: float, omega: float, delta: float,
           c: float) -> Skill:
    """A seat's new rating from its summed terms (Algorithm 4's last step, gamma = sigma / c)."""
    omega *= variance / c
    delta *= variance / c ** 2
    delta *= math.sqrt(variance) / c
    return mu + omega, sigma * math.sqrt(max(1 - delta, SKILL_KAPPA))


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

"""The public rating: one model fitted to all of a ladder's rated results at once.

A bot's strength ``theta`` (natural-log units; shown on the Elo scale as ``center + ELO_SCALE *
theta``) is the maximum a posteriori estimate of a Plackett-Luce model with a weak normal prior:

- a table's result is its seats' *standings* (:func:`ladder.ratings.standings`: the rank, and
  every forfeited seat one place below all seats that played on, tied with the other
  forfeiters), so **a forfeit is a loss against every seat that did not forfeit** and a draw
  against any other forfeiter;
- a strict placing ``a > b > c`` has probability ``e^a/(e^a+e^b+e^c) * e^b/(e^b+e^c)``
  (Plackett-Luce); on two seats that is Bradley-Terry's ``1 / (1 + e^(b-a))``;
- seats tied at one level share it (Breslow's treatment of ties, each tied seat's factor taken
  to the power ``1/m`` for a tie of ``m``), so a two-seat draw counts as half a win each, as in
  :func:`ladder.ratings.bradley_terry`;
- the prior ``theta ~ N(0, 4 / prior_games)`` is worth ``prior_games`` draws against an average
  bot (the same prior as :func:`~ladder.ratings.bradley_terry`): it keeps an unbeaten bot finite,
  gives a bot without games the prior (1500), and ties separate groups to one level.

The log posterior is strictly concave, so Newton's method finds its one maximum.  It runs
matrix-free (truncated Newton with a Jacobi-preconditioned conjugate gradient) over tables
grouped by size into dense numpy arrays, with identical risk sets merged, so 10,000 bots and a
million results take seconds (``bench/rating_fit.py``).

**Uncertainty** is the Laplace approximation: the posterior's curvature at the maximum (the
Hessian ``H``) as an inverse covariance.  The ``±`` is the 95% half-width of a bot's strength
*about the field's mean* (the diagonal of ``P H^-1 P``, ``P`` the centring projection), so it
says how sure the bot's place in this field is.  Up to ``FitConfig.dense_limit`` bots that
diagonal is exact (a dense Cholesky).  Above it the second-order Neumann series of ``H^-1 = (D -
W)^-1``, ``D^-1 + D^-1 W D^-1 W D^-1``, is used: a bot's own information plus what its
opponents' uncertainty adds, on the diagonal only (``Fit.exact_intervals`` is False then; the
centring's correction, of order 1/n, is left out there too).  It leaves out the walks of four
and more steps through the field: on fields paired at random it is within 1% of the exact
margins, but where bots meet the same few neighbours again and again it understates them, by
about a quarter (``bench/README.md``).

A bot is *provisional* while the curvature of the posterior along its own strength, ``H_ii``
(the information its own games carry, as if its opponents' strengths were known), gives a 95%
half-width wider than ``FitConfig.provisional_margin``: 200 Elo points is about ten games
against even opponents (``1.96 / sqrt(10/4 + prior)``), more when its games were lopsided.  The
centred margin cannot serve: in a field of two, half the gap's uncertainty is small after two
games, and a field's common level is not a bot's own uncertainty.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from ladder.ratings import ELO_SCALE, Z95

K = TypeVar("K", bound=Hashable)
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

Seat = tuple[K, int, bool]
"""One seat of a rated result: ``(bot, standing, forfeited)``, as the ladder stores it."""


@dataclass(frozen=True)
class FitConfig:
    """Settings of the fit; every fit of one ladder must use the same ones."""

    prior_games: float = 2.0
    """The prior's weight in draws against an average bot (its variance is 4 / prior_games)."""
    center: float = 1500.0
    """The shown rating of a bot at the prior's mean."""
    provisional_margin: float = 200.0
    """A bot is provisional while the 95% half-width its own games give exceeds this many Elo
    points (about ten games against even opponents; see the module's docstring)."""
    tol: float = 1e-10
    """Newton stops when no strength moves by more than this (natural-log units)."""
    max_iter: int = 100
    dense_limit: int = 2000
    """Up to this many bots the intervals are exact (a dense n x n factorisation)."""

    def __post_init__(self) -> None:
        if not self.prior_games > 0:
            raise ValueError("prior_games must be positive")
        if not (self.tol > 0 and self.max_iter > 0 and self.provisional_margin > 0):
            raise ValueError("tol, max_iter and provisional_margin must be positive")
        if self.dense_limit < 0:
            raise ValueError("dense_limit must be 0 or more")

    @property
    def ridge(self) -> float:
        """The prior's precision: a draw's information is 1/4 per game."""
        return self.prior_games / 4.0


@dataclass(frozen=True)
class BotFit:
    """One bot's public rating: the fitted number, its 95% half-width, and its counts."""

    rating: float
    margin: float
    provisional: bool
    games: int
    played: int
    """Games it did not forfeit."""

    @property
    def low(self) -> float:
        return self.rating - self.margin

    @property
    def high(self) -> float:
        return self.rating + self.margin


@dataclass(frozen=True)
class Fit(Generic[K]):
    """A fit's result: every bot's rating, and the strengths to warm-start the next fit."""

    bots: dict[K, BotFit]
    strengths: dict[K, float]
    """Natural-log strengths: pass as ``start`` to the next fit."""
    iterations: int
    exact_intervals: bool

    def ranked(self) -> list[tuple[K, BotFit]]:
        """Best first (:func:`rank_key`); ties by the key's text."""
        return sorted(self.bots.items(), key=lambda kv: (*rank_key(kv[1]), str(kv[0])))


def rank_key(bot: BotFit) -> tuple[bool, float]:
    """Sort key, best first: by rating, except that a bot that has not played a game (it only
    forfeited, or has no games) comes after every bot that has (issue 27: a forfeit-only bot
    ranks last, whatever the opponents it forfeited to and however few its games)."""
    return bot.played == 0, -bot.rating


# -- input: tables grouped by size ------------------------------------------------------------

@dataclass
class Tables:
    """Rated results as arrays, one group per table size: ``bots[s]`` and ``standing[s]`` are
    ``(tables, s)`` arrays (bot indices ``0 .. n-1``), ``forfeited[s]`` likewise."""

    n: int
    bots: dict[int, Ints] = field(default_factory=dict)
    standing: dict[int, Ints] = field(default_factory=dict)
    forfeited: dict[int, Bools] = field(default_factory=dict)

    def counts(self) -> tuple[Ints, Ints]:
        """Per bot: games, and games not forfeited."""
        games = np.zeros(self.n, dtype=np.int64)
        played = np.zeros(self.n, dtype=np.int64)
        for s, b in self.bots.items():
            games += np.bincount(b.ravel(), minlength=self.n)
            played += np.bincount(b.ravel(), weights=(~self.forfeited[s]).ravel(),
                                  minlength=self.n).astype(np.int64)
        return games, played


def tables_from(results: Iterable[Sequence[Seat[K]]], bots: Iterable[K] = ()) -> tuple[
        Tables, list[K]]:
    """Index ``results`` (each a table's seats) into :class:`Tables`; also the bots in index
    order (``bots`` first, so a bot without games still gets its prior rating)."""
    index: dict[K, int] = {}
    for bot in bots:
        index.setdefault(bot, len(index))
    rows: dict[int, list[list[tuple[int, int, bool]]]] = {}
    for seats in results:
        if len(seats) < 2:
            raise ValueError("a rated result needs two or more seats")
        row = [(index.setdefault(b, len(index)), int(st), bool(f)) for b, st, f in seats]
        if len({i for i, _, _ in row}) != len(row):
            raise ValueError("a bot sits twice at one table")
        rows.setdefault(len(row), []).append(row)
    tables = Tables(len(index))
    for s, group in rows.items():
        arr = np.asarray(group, dtype=np.int64)
        tables.bots[s], tables.standing[s] = arr[:, :, 0], arr[:, :, 1]
        tables.forfeited[s] = arr[:, :, 2].astype(bool)
    return tables, list(index)


def tables_from_seats(match: Ints, bot: Ints, standing: Ints, forfeited: Bools) -> tuple[
        Tables, Ints]:
    """:class:`Tables` from one row per seat, the rows of a match together (as a query ordered
    by match gives them); also the bot keys in index order (sorted).  No Python loop per row,
    so a ladder of a million results indexes in a fraction of a second."""
    match, bot = np.asarray(match, dtype=np.int64), np.asarray(bot, dtype=np.int64)
    standing = np.asarray(standing, dtype=np.int64)
    forfeited = np.asarray(forfeited, dtype=bool)
    keys, index = np.unique(bot, return_inverse=True)
    tables = Tables(len(keys))
    if not len(match):
        return tables, keys
    starts = np.flatnonzero(np.r_[True, match[1:] != match[:-1]])
    sizes = np.diff(np.r_[starts, len(match)])
    if len(np.unique(match)) != len(starts):
        raise ValueError("the seats of a match must come together")
    if (sizes < 2).any():
        raise ValueError("a rated result needs two or more seats")
    for s in np.unique(sizes):
        rows = (starts[sizes == s][:, None] + np.arange(s)).ravel()
        b = index.ravel()[rows].reshape(-1, int(s))
        if (np.sort(b, axis=1)[:, 1:] == np.sort(b, axis=1)[:, :-1]).any():
            raise ValueError("a bot sits twice at one table")
        tables.bots[int(s)] = b
        tables.standing[int(s)] = standing[rows].reshape(-1, int(s))
        tables.forfeited[int(s)] = forfeited[rows].reshape(-1, int(s))
    return tables, keys


# -- the model: linear part and log-sum-exp terms over risk sets -----------------------------

@dataclass
class Model:
    """``log L(theta) = c . theta - sum_t w_t log sum_{i in R_t} e^theta_i``, the risk sets
    ``R_t`` grouped by size ``r`` into ``sets[r]`` (``(terms, r)``, merged when identical)
    with multiplicities ``weights[r]``."""

    n: int
    linear: Floats
    sets: dict[int, Ints]
    weights: dict[int, Floats]


def build_model(tables: Tables) -> Model:
    """Plackett-Luce with Breslow ties, as terms: every level of a table that has seats below
    it contributes ``mean(theta of the level's seats) - log sum_{seats at or below} e^theta``."""
    linear = np.zeros(tables.n)
    found: dict[int, list[Ints]] = {}
    for s, bots in tables.bots.items():
        st = tables.standing[s]
        for k in range(s):
            level = st[:, k:k + 1]
            risk = st >= level
            size = risk.sum(axis=1)
            tied = (st == level).sum(axis=1)
            first = ~(st[:, :k] == level).any(axis=1)
            live = size > 1
            linear += np.bincount(bots[live, k], weights=1.0 / tied[live], minlength=tables.n)
            keep = first & live
            for r in np.unique(size[keep]):
                sel = keep & (size == r)
                found.setdefault(int(r), []).append(bots[sel][risk[sel]].reshape(-1, int(r)))
    sets, weights = {}, {}
    for r, parts in found.items():
        sets[r], weights[r] = _merge(np.sort(np.concatenate(parts), axis=1), tables.n)
    return Model(tables.n, linear, sets, weights)


def _merge(rows: Ints, n: int) -> tuple[Ints, Floats]:
    """Identical risk sets (sorted rows) as one, with its multiplicity."""
    r = rows.shape[1]
    if (n + 1) ** r < 2 ** 62:
        key = np.zeros(len(rows), dtype=np.int64)
        for i in range(r):
            key = key * n + rows[:, i]
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    return rows[first], np.bincount(inverse.ravel()).astype(np.float64)


# -- evaluation -----------------------------------------------------------------------------

@dataclass
class _Point:
    """The model at one theta: objective, gradient, and per risk-set group the probabilities
    ``p`` (each row sums to 1) that the Hessian needs."""

    value: float
    grad: Floats
    probs: dict[int, Floats]


def _rowsum(a: Floats) -> Floats:
    """Row sums of a narrow ``(rows, r)`` array, column by column (numpy's ``sum(axis=1)``
    is several times slower on rows of 2-4)."""
    total = a[:, 0].copy()
    for i in range(1, a.shape[1]):
        total += a[:, i]
    return total


def _evaluate(model: Model, theta: Floats, ridge: float) -> _Point:
    shift = float(theta.max()) if model.n else 0.0
    value = float(model.linear @ theta) - 0.5 * ridge * float(theta @ theta)
    grad = model.linear - ridge * theta
    probs = {}
    for r, sets in model.sets.items():
        e = np.exp(theta[sets] - shift)
        total = _rowsum(e)
        w = model.weights[r]
        value -= float(w @ (np.log(total) + shift))
        p = e / total[:, None]
        probs[r] = p
        grad -= np.bincount(sets.ravel(), weights=(p * w[:, None]).ravel(), minlength=model.n)
    return _Point(value, grad, probs)


def _hess_vec(model: Model, point: _Point, v: Floats, ridge: float) -> Floats:
    """``H v`` for minus the Hessian: ``ridge v + sum_t w_t (diag(p_t) - p_t p_t') v``."""
    out = ridge * v
    for r, sets in model.sets.items():
        p, w = point.probs[r], model.weights[r][:, None]
        pv = p * v[sets]
        out += np.bincount(sets.ravel(), weights=(w * (pv - p * _rowsum(pv)[:, None])).ravel(),
                           minlength=model.n)
    return out


def _hess_diag(model: Model, point: _Point, ridge: float) -> Floats:
    out = np.full(model.n, ridge)
    for r, sets in model.sets.items():
        p = point.probs[r]
        out += np.bincount(sets.ravel(), weights=(model.weights[r][:, None] * p * (1 - p)).ravel(),
                           minlength=model.n)
    return out


def _pair_weights(model: Model, point: _Point) -> tuple[Ints, Ints, Floats]:
    """The Hessian's off-diagonal as ``(i, j, w)`` with ``i < j`` and ``H_ij = -w``, summed
    over every risk set holding both."""
    keys, ws = [], []
    for r, sets in model.sets.items():
        p, w = point.probs[r], model.weights[r]
        for a in range(r):
            for b in range(a + 1, r):  # rows are sorted, so sets[:, a] < sets[:, b]
                keys.append(sets[:, a] * model.n + sets[:, b])
                ws.append(w * p[:, a] * p[:, b])
    if not keys:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    unique, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    weight = np.bincount(inverse.ravel(), weights=np.concatenate(ws)).astype(np.float64)
    pairs = unique.astype(np.int64)
    return pairs // model.n, pairs % model.n, weight


# -- Newton -----------------------------------------------------------------------------------

def _cg(model: Model, point: _Point, ridge: float, rtol: float) -> tuple[Floats, int]:
    """Solve ``H d = grad`` by conjugate gradients preconditioned by ``diag(H)``."""
    b = point.grad
    inv_diag = 1.0 / _hess_diag(model, point, ridge)
    x = np.zeros(model.n)
    res = b.copy()
    z = inv_diag * res
    d = z.copy()
    rz = float(res @ z)
    goal = rtol * float(np.linalg.norm(b))
    for step in range(1, 10 * model.n + 10):
        hd = _hess_vec(model, point, d, ridge)
        alpha = rz / float(d @ hd)
        x += alpha * d
        res -= alpha * hd
        if float(np.linalg.norm(res)) <= goal:
            return x, step
        z = inv_diag * res
        rz, rz_old = float(res @ z), rz
        d = z + (rz / rz_old) * d
    return x, step


def maximise(model: Model, ridge: float, start: Floats, tol: float,
             max_iter: int) -> tuple[Floats, _Point, int]:
    """Truncated Newton with backtracking; returns theta, the model there, and Newton steps.

    Each step solves the Newton system to a relative residual of ``min(0.1, sqrt|grad|)``
    (Eisenstat-Walker), so early steps are cheap and the last ones converge quadratically.
    """
    theta = start.astype(np.float64, copy=True)
    point = _evaluate(model, theta, ridge)
    for iteration in range(1, max_iter + 1):
        gnorm = float(np.linalg.norm(point.grad))
        if gnorm == 0.0:
            return theta, point, iteration - 1
        step, _ = _cg(model, point, ridge, min(0.1, math.sqrt(gnorm)))
        scale = 1.0
        while True:  # the full step almost always holds; the posterior is strictly concave
            trial = _evaluate(model, theta + scale * step, ridge)
            if trial.value >= point.value - 1e-12 * abs(point.value) or scale < 1e-8:
                break
            scale /= 2.0
        theta, point = theta + scale * step, trial
        if float(np.abs(scale * step).max()) < tol:
            return theta, point, iteration
    return theta, point, max_iter


# -- uncertainty ------------------------------------------------------------------------------

def centred_variances(model: Model, point: _Point, ridge: float, dense_limit: int) -> tuple[
        Floats, bool]:
    """Each strength's variance about the field's mean under the Laplace approximation, and
    whether it is exact (see the module's docstring)."""
    n = model.n
    diag = _hess_diag(model, point, ridge)
    i, j, w = _pair_weights(model, point)
    if n <= dense_limit:
        h = np.diag(diag)
        h[i, j] -= w
        h[j, i] -= w
        low = np.linalg.cholesky(h)
        inv_low = np.linalg.inv(low)  # H^-1 = inv_low' inv_low
        own = (inv_low ** 2).sum(axis=0)
        row = inv_low.T @ inv_low.sum(axis=1)  # H^-1 1
        return own - 2.0 * row / n + row.sum() / (n * n), True
    walk = np.bincount(i, weights=w * w / diag[j], minlength=n)
    walk += np.bincount(j, weights=w * w / diag[i], minlength=n)
    return 1.0 / diag + walk / diag ** 2, False


# -- the public entry points ------------------------------------------------------------------

def fit_tables(tables: Tables, config: FitConfig = FitConfig(),
               start: Floats | None = None) -> tuple[Floats, Floats, Floats, int, bool]:
    """The fit over indexed tables: strengths, centred standard errors and the standard errors
    of each bot's own information (natural-log units), Newton steps, and whether the centred
    errors are exact."""
    if tables.n == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0), 0, True
    theta0 = np.zeros(tables.n) if start is None else np.asarray(start, dtype=np.float64)
    if theta0.shape != (tables.n,) or not np.isfinite(theta0).all():
        raise ValueError("a warm start needs one finite strength per bot")
    model = build_model(tables)
    theta, point, steps = maximise(model, config.ridge, theta0, config.tol, config.max_iter)
    variances, exact = centred_variances(model, point, config.ridge, config.dense_limit)
    own = 1.0 / np.sqrt(_hess_diag(model, point, config.ridge))
    return theta, np.sqrt(np.maximum(variances, 0.0)), own, steps, exact


def fit(results: Iterable[Sequence[Seat[K]]], bots: Iterable[K] = (),
        config: FitConfig = FitConfig(), start: Mapping[K, float] | None = None) -> Fit[K]:
    """Fit the public rating to ``results`` (each a rated table's seats as ``(bot, standing,
    forfeited)``); ``bots`` adds bots without games; ``start`` warm-starts from a previous
    fit's :attr:`Fit.strengths` (bots it lacks start at the prior's mean).

    Raises ValueError for a table of fewer than two seats, a bot seated twice at one table,
    or a non-finite warm start.
    """
    tables, keys = tables_from(results, bots)
    return fit_indexed(tables, keys, config, start)


def fit_indexed(tables: Tables, keys: Sequence[K], config: FitConfig = FitConfig(),
                start: Mapping[K, float] | None = None) -> Fit[K]:
    """:func:`fit` over tables already indexed, ``keys[i]`` naming bot ``i``."""
    if len(keys) != tables.n:
        raise ValueError("one key per bot of the tables")
    theta0 = None if start is None else np.array([float(start.get(k, 0.0)) for k in keys])
    theta, errors, own, steps, exact = fit_tables(tables, config, theta0)
    games, played = tables.counts()
    out: dict[K, BotFit] = {}
    for i, key in enumerate(keys):
        out[key] = BotFit(config.center + ELO_SCALE * float(theta[i]),
                          Z95 * ELO_SCALE * float(errors[i]),
                          Z95 * ELO_SCALE * float(own[i]) > config.provisional_margin,
                          int(games[i]), int(played[i]))
    return Fit(out, {k: float(theta[i]) for i, k in enumerate(keys)}, steps, exact)

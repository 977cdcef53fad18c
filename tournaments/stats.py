"""Match statistics: Elo difference with error bars, likelihood of superiority, and the SPRT.

Pure functions, no I/O. The conventions are those chess engine testers use (fastchess and
fishtest), so numbers printed here can be compared with theirs:

* A *block* is a set of games that share their luck: a seat-swapped game pair in a two-seat game
  (the same seed played in both seat orders), or a full seat rotation of one seed at a larger
  table. A block's score is the mean of the pairwise game scores in it (win 1, draw 1/2, loss 0)
  and blocks, not games, are the independent samples. For game pairs the block scores are
  0, 1/4, 1/2, 3/4, 1: the *pentanomial* LL, LD, WL+DD, WD, WW counts fastchess reports.
* Elo is logistic: ``score = 1 / (1 + 10^(-elo/400))``. The 95% error bar is the mapped normal
  interval of the mean score, halved (fastchess's ``+/-``). Normalized Elo (nElo) is
  ``(score - 1/2) / sigma * 800 / ln 10`` with ``sigma`` the standard deviation of one game's
  score; for pairs ``sigma = sqrt(2 * pair variance)``.
* The SPRT is the generalized SPRT of Michel Van den Bergh ("Comments on Normalized Elo"):
  the log-likelihood ratio of the maximum-likelihood block distributions under H0 and H1,
  with ``elo0``/``elo1`` either normalized (fishtest's and fastchess's default) or logistic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tournaments.errors import TournamentError

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""
NELO_SCALE = 800.0 / math.log(10.0)
PAIR_SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Pair scores (normalized to 0..1) of the pentanomial buckets LL, LD, WL+DD, WD, WW."""
WDL_SCORES: tuple[float, ...] = (0.0, 0.5, 1.0)
"""Game scores of the trinomial buckets L, D, W."""
MAX_NELO = 200.0
"""Normalized SPRT bounds beyond this make the fixed-point fit of :func:`_mle_t` diverge
(measured: it fails from about 240); such a strength gap shows in a few games anyway."""
REGULARIZE = 1e-3
"""An empty bucket counts this much in the LLR (as in fastchess), so the MLE stays finite."""

Model = Literal["normalized", "logistic"]
MODELS: tuple[str, ...] = ("normalized", "logistic")


def score_to_elo(score: float) -> float:
    """Logistic Elo difference for an expected score; +-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: an even score is 0, not -0


def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def los_from(score: float, variance_of_mean: float) -> float:
    """Likelihood of superiority: P(true score > 1/2) under the normal approximation."""
    if variance_of_mean <= 0.0:
        return 0.5 if score == 0.5 else float(score > 0.5)
    return (1.0 - math.erf(-(score - 0.5) / math.sqrt(2.0 * variance_of_mean))) / 2.0


def pair_score(mine: int, theirs: int) -> float:
    """One game's score of a seat against another from their standings (1 = best): 1 for a
    better one, 1/2 for the same, 0 for a worse one. The one definition both the tournament
    statistics and the ladder's ratings count with."""
    if mine == theirs:
        return 0.5
    return 1.0 if mine < theirs else 0.0


@dataclass(frozen=True)
class EloEstimate:
    """Elo difference of A over B from ``blocks`` independent block scores.

    ``error`` is the half-width of the 95% interval (``elo ± error``); ``los`` is the
    likelihood that A is the stronger. Infinite values (a clean sweep) are kept as ``inf``;
    :meth:`to_dict` writes them as ``None`` so JSON stays valid.
    """

    blocks: int
    score: float
    elo: float
    error: float
    lower: float
    upper: float
    los: float
    nelo: float
    nelo_error: float

    def to_dict(self) -> dict[str, float | int | None]:
        def finite(x: float) -> float | None:
            return round(x, 4) if math.isfinite(x) else None

        return {
            "blocks": self.blocks, "score": finite(self.score), "elo": finite(self.elo),
            "elo_error": finite(self.error), "elo_lower": finite(self.lower),
            "elo_upper": finite(self.upper), "los": finite(self.los),
            "nelo": finite(self.nelo), "nelo_error": finite(self.nelo_error),
        }


def format_elo(st: Mapping[str, Any] | None, nelo: bool = False) -> str:
    """``Elo +12.3 ± 4.5  LOS 99.1%  (20 blocks)`` from :meth:`EloEstimate.to_dict` (and nElo
    when asked), the one wording of the tournament and SPRT outputs. An infinite value (a clean
    sweep), ``None`` in the document, shows as ``+inf``/``-inf`` by the side of the score."""
    if not st:
        return "no complete block yet"

    def shown(key: str, signed: bool = True) -> str:
        x = st[key]
        if x is None:
            return ("+inf" if st["score"] > 0.5 else "-inf") if signed else "inf"
        return f"{x:+.1f}" if signed else f"{x:.1f}"

    los = f"{100 * st['los']:.1f}%" if st["los"] is not None else "?"
    if st["elo_error"] == 0.0 and st["elo"] is not None:
        # every block scored the same (two bots playing identically draw every pair): no
        # spread, hence no error bar; "± 0.0" would claim a certainty the data cannot give
        return (f"Elo {shown('elo')}, no spread: all {st['blocks']} blocks scored "
                f"{100 * st['score']:.1f}%  LOS {los}")
    text = f"Elo {shown('elo')} ± {shown('elo_error', False)}  LOS {los}  ({st['blocks']} blocks)"
    if nelo:
        text += f"  nElo {shown('nelo')} ± {shown('nelo_error', False)}"
    return text


def mean_variance(values: Sequence[float], weights: Sequence[float]) -> tuple[float, float]:
    """Mean and (population) variance of a weighted discrete distribution."""
    total = float(sum(weights))
    mu = sum(v * w for v, w in zip(values, weights)) / total
    var = sum(w * (v - mu) ** 2 for v, w in zip(values, weights)) / total
    return mu, var


def estimate(
    values: Sequence[float], counts: Sequence[float], games_per_block: int = 1,
) -> EloEstimate:
    """Elo, error bar, LOS and nElo from block scores ``values`` seen ``counts`` times.

    ``games_per_block`` converts the block variance to a per-game one for nElo (2 for pairs,
    which gives fastchess's ``sqrt(2 * variance)``). A single block gives an infinite error and
    an undefined (NaN) LOS. Raises ``ValueError`` with no blocks.
    """
    n = float(sum(counts))
    if n <= 0:
        raise ValueError("no complete blocks of games to estimate from")
    mu, var = mean_variance(values, counts)
    if n < 2:
        # One block says nothing about the spread: no error bar, no LOS (not a false "± 0").
        return EloEstimate(1, mu, score_to_elo(mu), math.inf, -math.inf, math.inf, math.nan,
                           math.nan, math.inf)
    var_of_mean = var / n
    half = Z95 * math.sqrt(var_of_mean)
    lower, upper = score_to_elo(mu - half), score_to_elo(mu + half)
    sigma_game = math.sqrt(games_per_block * var)

    def nelo(s: float) -> float:
        if sigma_game == 0.0:
            return 0.0 if s == 0.5 else math.copysign(math.inf, s - 0.5)
        return (s - 0.5) / sigma_game * NELO_SCALE

    return EloEstimate(
        blocks=int(n), score=mu, elo=score_to_elo(mu), error=(upper - lower) / 2.0,
        lower=lower, upper=upper, los=los_from(mu, var_of_mean), nelo=nelo(mu),
        nelo_error=(nelo(mu + half) - nelo(mu - half)) / 2.0,
    )


@dataclass(frozen=True)
class Pentanomial:
    """Counts of game-pair outcomes from A's side, in fastchess's buckets.

    ``ll``: lost both games; ``ld``: a loss and a draw; ``wl``/``dd``: one win and one loss, or
    two draws (both score 1 of 2 and share a bucket in the maths); ``wd``; ``ww``.
    """

    ll: int = 0
    ld: int = 0
    wl: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[float, float]]) -> Pentanomial:
        """Count pairs of A's game scores (each 0, 1/2 or 1)."""
        counts = dict.fromkeys(("ll", "ld", "wl", "dd", "wd", "ww"), 0)
        for a, b in pairs:
            counts[pair_bucket(a, b)] += 1
        return cls(**counts)

    def add(self, a: float, b: float) -> Pentanomial:
        """These counts plus one pair with A's game scores ``a`` and ``b``."""
        counts = self.to_dict()
        counts[pair_bucket(a, b)] += 1
        return Pentanomial(**counts)

    @property
    def pairs(self) -> int:
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def buckets(self) -> tuple[int, int, int, int, int]:
        """Counts for :data:`PAIR_SCORES` (LL, LD, WL+DD, WD, WW)."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)

    def to_dict(self) -> dict[str, int]:
        return {"ll": self.ll, "ld": self.ld, "wl": self.wl, "dd": self.dd, "wd": self.wd,
                "ww": self.ww}

    def estimate(self) -> EloEstimate:
        return estimate(PAIR_SCORES, self.buckets(), games_per_block=2)


def pair_bucket(a: float, b: float) -> str:
    """The pentanomial bucket of a game pair from A's two game scores."""
    if a + b == 1.0:
        return "dd" if a == 0.5 else "wl"
    return {0.0: "ll", 0.5: "ld", 1.5: "wd", 2.0: "ww"}[a + b]


def wdl_estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo from independent games (the trinomial model), for games not played in pairs."""
    return estimate(WDL_SCORES, (losses, draws, wins))


# -- the sequential probability ratio test ------------------------------------------------

def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds: accept H0 at or below the first, H1 at or above the second."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def validate_sprt(elo0: float, elo1: float, alpha: float, beta: float, model: str) -> None:
    """Raise :class:`~tournaments.TournamentError` (a ``ValueError``) naming the first bad
    SPRT parameter."""
    if not elo0 < elo1:
        raise TournamentError(f"elo0 ({elo0}) must be less than elo1 ({elo1})")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < value < 1.0:
            raise TournamentError(f"{name} must be between 0 and 1, got {value}")
    if alpha + beta >= 1.0:
        raise TournamentError(f"alpha + beta must be below 1, got {alpha + beta}")
    if model not in MODELS:
        raise TournamentError(f"unknown SPRT model {model!r}; use one of {', '.join(MODELS)}")
    if model == "normalized" and max(abs(elo0), abs(elo1)) > MAX_NELO:
        raise TournamentError(f"normalized elo0 and elo1 must lie within ±{MAX_NELO:g} (the test's "
                         "fit fails beyond; a gap that large needs no SPRT)")


def _root(f: Callable[[float], float], lo: float, hi: float, tol: float = 1e-12) -> float:
    """The root of a decreasing function on the open interval (lo, hi), by bisection.

    Bisection (not Newton) because the function has poles at both ends of the interval.
    """
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if hi - lo <= tol * max(1.0, abs(mid)):
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def _mle_mean(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution closest (in likelihood) to ``probs`` with mean ``s`` (VdB prop. 1.1)."""
    lo, hi = -1.0 / (max(scores) - s), -1.0 / (min(scores) - s)

    def f(x: float) -> float:
        return sum(p * (a - s) / (1.0 + x * (a - s)) for a, p in zip(scores, probs))

    theta = _root(f, lo, hi)
    return [p / (1.0 + theta * (a - s)) for a, p in zip(scores, probs)]


def _mle_t(scores: Sequence[float], probs: Sequence[float], t_star: float) -> list[float]:
    """The distribution closest to ``probs`` with ``(mean - 1/2) / sigma = t_star`` (VdB §4.1).

    A fixed-point iteration starting from the uniform distribution, as the paper suggests.
    """
    p = [1.0 / len(scores)] * len(scores)
    for _ in range(1000):
        mu, var = mean_variance(scores, p)
        sigma = math.sqrt(var)
        phi = [a - 0.5 - 0.5 * t_star * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        lo, hi = -1.0 / max(phi), -1.0 / min(phi)

        def f(x: float) -> float:
            return sum(q * g / (1.0 + x * g) for q, g in zip(probs, phi))

        theta = _root(f, lo, hi)
        new = [q / (1.0 + theta * g) for q, g in zip(probs, phi)]
        change = max(abs(x - y) for x, y in zip(new, p))
        p = new
        if change < 1e-9:
            break
    return p


def llr(
    scores: Sequence[float], counts: Sequence[float], elo0: float, elo1: float,
    model: str = "normalized",
) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``) for block counts.

    ``scores`` are the block scores (:data:`PAIR_SCORES` or :data:`WDL_SCORES`). Normalized
    bounds are in nElo per game; for pairs the per-pair ``t`` is ``sqrt(2)`` times larger.
    """
    regularized = [c if c > 0 else REGULARIZE for c in counts]
    total = float(sum(regularized))
    probs = [c / total for c in regularized]
    if model == "normalized":
        scale = math.sqrt(2.0) if len(scores) == len(PAIR_SCORES) else 1.0
        p0 = _mle_t(scores, probs, scale * elo0 / NELO_SCALE)
        p1 = _mle_t(scores, probs, scale * elo1 / NELO_SCALE)
    elif model == "logistic":
        p0 = _mle_mean(scores, probs, elo_to_score(elo0))
        p1 = _mle_mean(scores, probs, elo_to_score(elo1))
    else:
        raise ValueError(f"unknown SPRT model {model!r}; use one of {', '.join(MODELS)}")
    return total * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(probs, p0, p1))


def pentanomial_llr(
    penta: Pentanomial, elo0: float, elo1: float, model: str = "normalized",
) -> float:
    """:func:`llr` over game pairs."""
    return llr(PAIR_SCORES, penta.buckets(), elo0, elo1, model)


@dataclass(frozen=True)
class SprtStep:
    """The test's state after one more game pair."""

    pairs: int
    llr: float
    verdict: str | None
    """``"H1"`` (NEW is stronger: accepted), ``"H0"`` (rejected), or ``None`` (continue)."""


def sprt_verdict(value: float, bounds: tuple[float, float]) -> str | None:
    """``"H0"`` at or below the lower bound, ``"H1"`` at or above the upper, else ``None``."""
    if value <= bounds[0]:
        return "H0"
    if value >= bounds[1]:
        return "H1"
    return None


@dataclass(frozen=True)
class ExpectedLength:
    """How many game pairs an SPRT is expected to take (Wald's approximation, normal model):
    when the true strength is ``elo1`` (``at_h1``), ``elo0`` (``at_h0``), or halfway between
    them, where the test runs longest (``worst``)."""

    at_h0: float
    at_h1: float
    worst: float


def expected_pairs(elo0: float, elo1: float, alpha: float, beta: float,
                   model: str = "normalized", pair_sd: float | None = None) -> ExpectedLength | None:
    """The SPRT's expected length in game pairs, before or while it runs.

    With normalized Elo the bounds are in units of the spread, so the length depends on
    nothing else; logistic bounds need ``pair_sd`` (the standard deviation of a pair's mean
    score, 0 to 1), else ``None``. Per pair the LLR drifts by ``(t1 - t0) (t - (t0 + t1) / 2)``
    for a true ``t = (score - 1/2) / sd``: ``±(t1 - t0)^2 / 2`` at the hypotheses, 0 halfway.
    """
    validate_sprt(elo0, elo1, alpha, beta, model)
    if model == "normalized":
        t0, t1 = (math.sqrt(2.0) * e / NELO_SCALE for e in (elo0, elo1))
    elif pair_sd:
        t0, t1 = ((elo_to_score(e) - 0.5) / pair_sd for e in (elo0, elo1))
    else:
        return None
    lower, upper = sprt_bounds(alpha, beta)
    drift = (t1 - t0) ** 2 / 2.0
    return ExpectedLength(
        at_h0=((1.0 - alpha) * lower + alpha * upper) / -drift,
        at_h1=((1.0 - beta) * upper + beta * lower) / drift,
        worst=-lower * upper / (t1 - t0) ** 2,
    )


def sprt_trace(
    pairs: Iterable[tuple[float, float]], elo0: float, elo1: float, alpha: float, beta: float,
    model: str = "normalized",
) -> list[SprtStep]:
    """Run the test over a sequence of game pairs (A's two game scores each) until it stops.

    The returned trace has one step per pair consumed; its last step carries the verdict, or
    ``None`` if the pairs ran out first.
    """
    validate_sprt(elo0, elo1, alpha, beta, model)
    bounds = sprt_bounds(alpha, beta)
    penta = Pentanomial()
    trace: list[SprtStep] = []
    for a, b in pairs:
        penta = penta.add(a, b)
        value = pentanomial_llr(penta, elo0, elo1, model)
        trace.append(SprtStep(penta.pairs, value, sprt_verdict(value, bounds)))
        if trace[-1].verdict is not None:
            break
    return trace

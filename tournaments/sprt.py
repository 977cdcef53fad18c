"""The SPRT: is NEW stronger than BASE? Game pairs until the test decides (``referee sprt``).

The test is the pentanomial GSPRT of fishtest and fastchess over seat-swapped game pairs (see
:mod:`tournaments.stats`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tournaments import stats
from tournaments.errors import Interrupted
from tournaments.fixtures import Fixture, Outcome, block_seed
from tournaments.plan import Plan
from tournaments.pool import MatchPool
from tournaments.stats import pair_score


@dataclass
class SprtRun:
    """An SPRT in progress or finished: counts, the LLR after every pair, the verdict."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    penta: stats.Pentanomial = field(default_factory=stats.Pentanomial)
    trace: list[stats.SprtStep] = field(default_factory=list)

    @property
    def bounds(self) -> tuple[float, float]:
        return stats.sprt_bounds(self.alpha, self.beta)

    @property
    def verdict(self) -> str | None:
        return self.trace[-1].verdict if self.trace else None

    def add_pair(self, first: float, second: float) -> stats.SprtStep:
        """Book NEW's scores in both games of one pair and test again."""
        self.penta = self.penta.add(first, second)
        value = stats.pentanomial_llr(self.penta, self.elo0, self.elo1, self.model)
        step = stats.SprtStep(self.penta.pairs, value, stats.sprt_verdict(value, self.bounds))
        self.trace.append(step)
        return step


def sprt_fixtures(plan: Plan, max_pairs: int) -> Iterator[Fixture]:
    """Game pairs of the plan's two entrants, NEW then BASE, lazily: pair ``k`` plays one seed
    in both seat orders."""
    for k in range(max_pairs):
        pair_seed = block_seed(plan.seed, k)
        for index, seats in ((2 * k, (0, 1)), (2 * k + 1, (1, 0))):
            match = plan.describe(seats, pair_seed, f"sprt-{plan.seed}-{index}")
            yield Fixture(index, k, seats, match)


def run_sprt(test: SprtRun, plan: Plan, max_pairs: int, concurrency: int,
             progress: Callable[[SprtRun], None] | None = None) -> SprtRun:
    """Play pairs of ``plan.entrants`` (NEW, BASE) from ``plan.seed`` until the test decides
    or ``max_pairs`` are played.

    Pairs are booked in schedule order whatever order they finish in, so the trace (and the
    verdict) depends only on the seed, not on the concurrency. Raises
    :class:`~tournaments.Interrupted`.
    """
    stats.validate_sprt(test.elo0, test.elo1, test.alpha, test.beta, test.model)
    finished: dict[int, list[Outcome]] = {}
    outcomes = MatchPool(concurrency).run(sprt_fixtures(plan, max_pairs))
    try:
        for outcome in outcomes:
            finished.setdefault(outcome.block, []).append(outcome)
            while len(finished.get(test.penta.pairs, ())) == 2:
                games = sorted(finished.pop(test.penta.pairs), key=lambda o: o.index)
                scores = [pair_score(g.ranks[g.seats.index(0)], g.ranks[g.seats.index(1)])
                          for g in games]
                test.add_pair(scores[0], scores[1])
                if progress is not None:
                    progress(test)
                if test.verdict is not None:
                    outcomes.close()
                    return test
    except KeyboardInterrupt:
        outcomes.close()
        raise Interrupted("sprt") from None
    return test

"""The SPRT: is NEW stronger than BASE? Game pairs until the test decides (``referee sprt``).

The test is the pentanomial GSPRT of fishtest and fastchess over seat-swapped game pairs (see
:mod:`tournaments.stats`). An SPRT keeps its state as a tournament does (:mod:`tournaments.store`):
a plan whose ``sprt`` terms make it one, then the finished games, so ``--resume`` finishes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from tournaments import stats
from tournaments.errors import Interrupted, TournamentError
from tournaments.fixtures import Fixture, Outcome, block_seed
from tournaments.plan import Plan, SprtTerms
from tournaments.pool import MatchPool
from tournaments.stats import pair_score
from tournaments.store import StateStore
from tournaments.tournament import Recorder


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


def sprt_fixture(plan: Plan, sprt_id: str, index: int) -> Fixture:
    """Game ``index`` of the SPRT: pair ``index // 2`` plays one seed, NEW first in its
    even game and second in its odd one."""
    pair, swapped = divmod(index, 2)
    seats = (1, 0) if swapped else (0, 1)
    match = plan.describe(seats, block_seed(plan.seed, pair), f"{sprt_id}-{index}")
    return Fixture(index, pair, seats, match)


def pair_scores(games: list[Outcome]) -> tuple[float, float]:
    """NEW's (entrant 0's) scores in the two games of a pair, in schedule order."""
    first, second = sorted(games, key=lambda o: o.index)
    return (pair_score(first.ranks[first.seats.index(0)], first.ranks[first.seats.index(1)]),
            pair_score(second.ranks[second.seats.index(0)], second.ranks[second.seats.index(1)]))


@dataclass
class Sprt:
    """An SPRT bound to its state store (the tournaments' store: the plan, with its
    :class:`~tournaments.plan.SprtTerms`, then one line per finished game), so that it can be
    interrupted and resumed as a tournament can. The test itself is rebuilt from the stored
    games whenever it is needed: pairs are booked in schedule order, so the same games give
    the same trace, whatever order they finished in and however many runs played them."""

    plan: Plan
    store: StateStore
    done: dict[int, Outcome]

    @classmethod
    def start(cls, plan: Plan, store: StateStore) -> Sprt:
        assert plan.sprt is not None and len(plan.entrants) == 2
        store.create(plan)
        return cls(plan, store, {})

    @classmethod
    def resume(cls, store: StateStore) -> Sprt:
        plan, done = store.load()
        if plan.sprt is None:
            raise TournamentError(f"{store.tournament_id} is a tournament, not an SPRT: finish "
                                  f"it with referee tournament --resume {store.tournament_id}")
        return cls(plan, store, done)

    @property
    def sprt_id(self) -> str:
        return self.store.tournament_id

    @property
    def terms(self) -> SprtTerms:
        assert self.plan.sprt is not None
        return self.plan.sprt

    def test(self) -> SprtRun:
        """The test as the stored games tell it: complete pairs in order, up to the first
        missing one or the verdict."""
        t = self.terms
        test = SprtRun(t.elo0, t.elo1, t.alpha, t.beta, t.model)
        while test.verdict is None and test.penta.pairs < t.max_pairs:
            k = test.penta.pairs
            if 2 * k not in self.done or 2 * k + 1 not in self.done:
                break
            test.add_pair(*pair_scores([self.done[2 * k], self.done[2 * k + 1]]))
        return test

    def finished(self, test: SprtRun) -> bool:
        return test.verdict is not None or test.penta.pairs >= self.terms.max_pairs

    def run(self, concurrency: int, record: Recorder | None = None,
            progress: Callable[[SprtRun], None] | None = None) -> SprtRun:
        """Play pairs until the test decides or ``max_pairs`` are in, holding the SPRT
        (:class:`TournamentError` if another process has it); every game is stored as it
        ends. Raises :class:`~tournaments.Interrupted` on Ctrl-C (the games so far are kept).
        ``record`` runs for each game before it is stored (``--logs``)."""
        with self.store.exclusive():
            self.done = self.store.load()[1]
            test = self.test()
            if self.finished(test):
                return test
            first = 2 * test.penta.pairs
            missing = (sprt_fixture(self.plan, self.sprt_id, i)
                       for i in range(first, 2 * self.terms.max_pairs) if i not in self.done)
            outcomes = MatchPool(concurrency, self.plan.keep_logs).run(missing)
            try:
                for outcome in outcomes:
                    if record is not None:
                        record(outcome, sprt_fixture(self.plan, self.sprt_id, outcome.index))
                    self._book(outcome)
                    while not self.finished(test) and self._pair_in(test.penta.pairs):
                        k = test.penta.pairs
                        test.add_pair(*pair_scores([self.done[2 * k], self.done[2 * k + 1]]))
                        if progress is not None:
                            progress(test)
                    if self.finished(test):
                        outcomes.close()
                        break
            except KeyboardInterrupt:
                outcomes.close()
                raise Interrupted(self.sprt_id) from None
            return test

    def _pair_in(self, k: int) -> bool:
        return 2 * k in self.done and 2 * k + 1 in self.done

    def _book(self, outcome: Outcome) -> None:
        """Store a finished game (its log, which ``record`` has had, is dropped)."""
        if outcome.log is not None:
            outcome = replace(outcome, log=None)
        self.store.append(outcome)
        self.done[outcome.index] = outcome

"""A tournament: a deterministic schedule of matches, played in parallel, resumable.

The plan (:mod:`tournaments.plan`) gives the schedule (:mod:`tournaments.fixtures`), the pool
(:mod:`tournaments.pool`) plays what is missing, every finished match is booked in the state
store (:mod:`tournaments.store`) and the standings (:mod:`tournaments.standings`), and
:func:`report` is the result as one document. Nothing here touches a database: the ladder
records results through the ``record`` hook of :meth:`Tournament.run`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from referee.display import redact
from referee.games import find_game
from tournaments.errors import Interrupted, TournamentError
from tournaments.fixtures import Fixture, Outcome, schedule
from tournaments.plan import Plan, check_plan
from tournaments.pool import MatchPool, PoolFactory
from tournaments.standings import Standings
from tournaments.store import StateStore

Recorder = Callable[[Outcome, Fixture], None]
"""Called in the parent for each finished match before it is marked done (the database)."""
Stored = Callable[[Sequence[str]], Mapping[str, Mapping[str, Any]]]
"""The logs of those of the given match ids that the database already holds."""
Progress = Callable[[Outcome, Standings], None]


@dataclass
class Tournament:
    """A planned tournament bound to its state store."""

    plan: Plan
    store: StateStore
    done: dict[int, Outcome]
    _held: bool = field(default=False, init=False, repr=False)

    @classmethod
    def start(cls, plan: Plan, store: StateStore) -> Tournament:
        """A new tournament in a fresh store; raises :class:`~tournaments.TournamentError`
        for a plan that cannot be scheduled or an id already taken."""
        check_plan(find_game(plan.game), plan)
        store.create(plan)
        return cls(plan, store, {})

    @classmethod
    def resume(cls, store: StateStore) -> Tournament:
        plan, done = store.load()
        if plan.sprt is not None:
            raise TournamentError(f"{store.tournament_id} is an SPRT, not a tournament: finish "
                                  f"it with referee sprt --resume {store.tournament_id}")
        return cls(plan, store, done)

    @property
    def tournament_id(self) -> str:
        return self.store.tournament_id

    @property
    def fixtures(self) -> list[Fixture]:
        return schedule(self.plan, self.tournament_id)

    def missing(self) -> list[Fixture]:
        return [f for f in self.fixtures if f.index not in self.done]

    def standings(self) -> Standings:
        table = Standings(self.plan.entrants, self.plan.seats)
        for outcome in self.done.values():
            table.add(outcome)
        return table

    @property
    def complete(self) -> bool:
        return len(self.done) == len(self.fixtures)

    @contextmanager
    def playing(self) -> Iterator[Tournament]:
        """Hold the tournament (:class:`~tournaments.TournamentError` if another process
        has it) and reread what is done, which that process may have changed meanwhile."""
        if self._held:
            yield self
            return
        with self.store.exclusive():
            self._held = True
            try:
                self.done = self.store.load()[1]
                yield self
            finally:
                self._held = False

    def run(self, concurrency: int, record: Recorder | None = None,
            progress: Progress | None = None, stored: Stored | None = None,
            pool: PoolFactory | None = None) -> Standings:
        """Play the missing matches while holding the tournament; raise
        :class:`~tournaments.Interrupted` on Ctrl-C (progress is kept).

        ``record`` runs before a match is written to the state store. If the process dies
        between the two, the database has a result the store lacks: ``stored`` gives those
        results back and they are taken as they are, not played again (a second game could
        end otherwise, and the report would then disagree with the ladder).

        ``pool`` makes what plays the matches (default :class:`MatchPool`: processes and
        threads of this machine); whatever plays them, this process books every result.
        """
        with self.playing():
            table = self.standings()
            fixtures = {f.index: f for f in self.missing()}
            for outcome in self._recovered(fixtures, stored):
                self._book(outcome, table, progress)
                del fixtures[outcome.index]
            make_pool = pool or MatchPool
            outcomes = make_pool(concurrency, self.plan.keep_logs).run(fixtures.values())
            try:
                for outcome in outcomes:
                    if record is not None:
                        record(outcome, fixtures[outcome.index])
                    self._book(outcome, table, progress)
            except KeyboardInterrupt:
                outcomes.close()
                raise Interrupted(self.tournament_id) from None
            return table

    def _recovered(self, fixtures: Mapping[int, Fixture], stored: Stored | None) -> list[Outcome]:
        if stored is None or not fixtures:
            return []
        logs = stored([f.match_id for f in fixtures.values()])
        return [Outcome.from_log(f, logs[f.match_id], keep_log=False)
                for f in fixtures.values() if f.match_id in logs]

    def _book(self, outcome: Outcome, table: Standings, progress: Progress | None) -> None:
        """Store a finished match and count it. Its log, which the ``record`` hook has had, is
        dropped here: the tournament holds every outcome until it ends, and a log is about
        100 KiB, so keeping them made a long ``--db`` tournament grow without bound."""
        if outcome.log is not None:
            outcome = replace(outcome, log=None)
        self.store.append(outcome)
        self.done[outcome.index] = outcome
        table.add(outcome)
        if progress is not None:
            progress(outcome, table)


def report(tournament: Tournament, table: Standings) -> dict[str, Any]:
    """The tournament's results as one JSON-ready document (``--json``; the CSV and text
    outputs are views of it)."""
    plan, names = tournament.plan, [e.name for e in tournament.plan.entrants]
    order = table.order()
    entrants = [
        {"rank": rank, "name": names[i], "bot": redact(plan.entrants[i].bot),
         "time_ms": plan.entrants[i].time_ms or plan.time_control.decision_ms,
         "games": table.games[i],
         "points": round(table.points[i], 4),
         "score": round(table.points[i] / table.games[i], 4) if table.games[i] else None,
         "firsts": table.firsts[i], "strikes": table.strikes[i], "forfeits": table.forfeits[i]}
        for rank, i in enumerate(order, 1)
    ]
    def meet(a: int, b: int) -> bool:  # in a gauntlet, only pairs with its entrant
        return a != b and (plan.gauntlet is None or plan.gauntlet in (a, b))

    crosstable = {
        names[a]: {names[b]: {"games": h.games, "wins": h.wins, "draws": h.draws,
                              "losses": h.losses, "points": h.points}
                   for b, h in enumerate(table.heads[a]) if meet(a, b)}
        for a in order
    }
    pairs = []
    for x, a in enumerate(order):
        for b in order[x + 1:]:
            if not meet(a, b):
                continue
            head, est = table.heads[a][b], table.estimate(a, b)
            entry: dict[str, Any] = {"a": names[a], "b": names[b], "games": head.games,
                                     "points": head.points, "stats": est.to_dict() if est else None}
            if plan.seats == 2:
                entry["pentanomial"] = table.pentanomial(a, b).to_dict()
            pairs.append(entry)
    return {
        "tournament": tournament.tournament_id, "game": plan.game, "seed": plan.seed,
        "seats": plan.seats, "games_per_table": plan.games, "matches": len(tournament.fixtures),
        "played": table.played, "complete": tournament.complete,
        "gauntlet": None if plan.gauntlet is None else names[plan.gauntlet],
        "entrants": entrants, "crosstable": crosstable, "pairs": pairs,
    }



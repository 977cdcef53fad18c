"""The tick: every step over every ladder, in one transaction, until nothing changes.

The steps, per pass: cancel, settle and seat orphans (:mod:`~ladder.matchmaking.makeups`),
dispatch (:mod:`~ladder.matchmaking.applying`), open rounds while any may, dispatching after
each (:mod:`~ladder.matchmaking.planning`), close.  A step may make work for an earlier one (a
cancelled fixture's orphans, a closed round), so passes repeat until one changes nothing:
a second tick right after has nothing to do.  Both loops are bounded; a tick that has not
settled within its bound is a bug, and raises :class:`~ladder.matchmaking.state.UnsettledError`
(the transaction is rolled back) rather than leave half a tick's work for the next one.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Engine, select, text

from ladder.accounts import now_utc
from ladder.db import lock_key, lock_ladder, translate_errors
from ladder.matchmaking.applying import dispatch
from ladder.matchmaking.ladder_state import LadderState
from ladder.matchmaking.makeups import cancel, seat_orphans, settle
from ladder.matchmaking.planning import close, may_open, open_round
from ladder.matchmaking.slots import Slots
from ladder.matchmaking.state import LOCK, MatchmakerConfig, TickResult, UnsettledError
from ladder.models import LadderEntry, LadderPause

MAX_PASSES = 8
"""Passes of the steps a tick may take.  One pass settles a quiet ladder; a cancelled
fixture's orphans, their make-ups and a round closed and opened behind them take a few more."""


def tick(engine: Engine, now: datetime | None = None,
         config: MatchmakerConfig = MatchmakerConfig(),
         rng: random.Random | None = None, wait: bool = True) -> TickResult:
    """One run of the scheduler over every ladder, in one transaction (see the package's
    docstring).  Idempotent: a second run right after the first finds nothing to do.

    Every tick covers every ladder: a bot's slots are shared by its ladders, and only a
    tick that sees every ladder's waiting fixtures can hand them out fairly, whoever calls
    it.  ``wait=False`` (the trigger after every match): on PostgreSQL, skip the tick while
    another process runs one instead of queueing behind it (the beat's next tick picks up
    whatever that one could not see yet); SQLite always waits for its write lock."""
    result = TickResult()
    rng = rng or random.Random(secrets.randbits(64))
    with translate_errors(engine), engine.begin() as conn:
        if not wait and conn.dialect.name == "postgresql":
            if not conn.execute(text("SELECT pg_try_advisory_xact_lock(:key)"),
                                {"key": lock_key(LOCK)}).scalar_one():
                return result
        else:
            lock_ladder(conn, LOCK)
        games = _ladder_games(conn)
        Tick(conn, games, now or now_utc(), config, rng, result).run()
    return result


_LIVING = (select(LadderEntry.game).distinct()
           .where(LadderEntry.game.not_in(select(LadderPause.game)))
           .order_by(LadderEntry.game))
"""Built once (every tick reads it)."""


def _ladder_games(conn: Connection) -> list[str]:
    """The games with a living ladder (any entry) that an admin has not paused (a paused
    ladder stops: nothing of it is settled, opened or released)."""
    return list(conn.execute(_LIVING).scalars())


class Tick:
    """One tick over every ladder inside one transaction."""

    def __init__(self, conn: Connection, games: Sequence[str], now: datetime,
                 config: MatchmakerConfig, rng: random.Random, result: TickResult) -> None:
        self.slots = Slots(conn, now, config.depth)
        self.ladders = [LadderState(conn, game, now, config, rng, result, self.slots)
                        for game in games]
        self.max_opened = 1 + sum(config.max_open_rounds + len(lad.eligible)
                                  for lad in self.ladders)
        """Sweeps of :meth:`open_rounds` one pass may take, a bound no sound tick comes near:
        a ladder stops at ``max_open_rounds`` rounds, but for those waiting on a retry, whose
        bots (two at least a round) are left out of the next."""

    def changes(self) -> int:
        return sum(lad.changes for lad in self.ladders)

    def run(self) -> None:
        """The steps, repeated until a pass changes nothing."""
        for _ in range(MAX_PASSES):
            before = self.changes()
            for lad in self.ladders:
                cancel(lad)
                settle(lad)
                seat_orphans(lad)
            dispatch(self.ladders, self.slots)
            self.open_and_dispatch()
            for lad in self.ladders:
                close(lad)
            if self.changes() == before:
                return
        raise UnsettledError(f"the matchmaker's tick still changed rows after {MAX_PASSES} "
                             "passes")

    def open_and_dispatch(self) -> None:
        """Open the next round of every ladder that may, dispatching after each sweep, until
        none opens.  That comes: a new round's fixtures either start (and its ladder reaches
        its open rounds) or wait (and their bots are left out of the next round)."""
        for _ in range(self.max_opened):
            if not self.open_rounds():
                return
            dispatch(self.ladders, self.slots)
        raise UnsettledError(f"the matchmaker kept opening rounds ({self.max_opened} sweeps)")

    def open_rounds(self) -> bool:
        """Open the next round of every ladder that may; whether one did."""
        opened = False
        for lad in self.ladders:
            if may_open(lad) and open_round(lad):
                opened = True
        return opened

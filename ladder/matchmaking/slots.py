"""Caps and depth: the bots' free slots, shared by every ladder.

A bot plays at most ``max_concurrency`` matches at once over every game and challenge, and
the ladders together have at most ``depth`` matches in flight (workers x slots).  A fixture
that cannot start yet *claims* its bots' free slots for one pass of the dispatch, so nothing
behind it in the order takes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, select

from ladder.matchmaking.state import in_retry
from ladder.models import RUNNING, SCHEDULED, Match, MatchSeat

_IN_FLIGHT = (select(MatchSeat.bot_id, Match.id, Match.round_id, Match.state, Match.attempt,
                     Match.lease_until).join(Match, Match.id == MatchSeat.match_pk)
              .where(Match.state.in_((SCHEDULED, RUNNING)), Match.held.is_(False)))
"""The seats of released matches not over (built once: every tick reads it)."""


class Slots:
    """The released matches not over (every game and challenge count against a bot's
    ``max_concurrency``), the ladder matches in flight against ``depth``, and the bots held
    by a match in retry."""

    def __init__(self, conn: Connection, now: datetime, depth: int) -> None:
        rows = conn.execute(_IN_FLIGHT).all()
        self.busy: Counter[int] = Counter(r.bot_id for r in rows)
        self.depth, self.depth_used = depth, len({r.id for r in rows if r.round_id is not None})
        self.held = {r.bot_id for r in rows if in_retry(r.state, r.attempt, r.lease_until, now)}
        """Bots seated in a match whose attempt was lost: their slot waits for the retry."""
        self.cap: dict[int, int] = {}
        """Each eligible bot's ``max_concurrency`` (filled in by the ladders)."""
        self.claimed: Counter[int] = Counter()
        """Free slots promised to a fixture that waits for its other bots (one pass)."""

    def full(self) -> bool:
        return self.depth_used >= self.depth

    def free(self, bot: int) -> bool:
        return self.busy[bot] + self.claimed[bot] < self.cap.get(bot, 0)

    def room(self, bots: Sequence[int]) -> bool:
        return not self.full() and all(self.free(b) for b in bots)

    def reserve(self, bots: Sequence[int]) -> None:
        for b in bots:
            self.busy[b] += 1
        self.depth_used += 1

    def claim(self, bots: Sequence[int]) -> None:
        """Keep the free slots of ``bots`` from any fixture later in the order."""
        for b in bots:
            if self.free(b):
                self.claimed[b] += 1


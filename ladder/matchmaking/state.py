"""The matchmaker's working state, typed: what a tick reads into memory, changes and writes
back, and the names it gives the states of fixtures.

A tick loads the open rounds of a ladder (:class:`RoundRow`), their fixtures
(:class:`FixtureRow`) and the matches made of them (:class:`MatchView`), and keeps them in
step with the rows it writes: every change of a fixture goes through one method that writes
the row and the object together (:meth:`ladder.matchmaking.ladder.LadderState.update_fixture`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import RowMapping

from ladder.accounts import utc
from ladder.models import FINISHED, RUNNING, SCHEDULED, VOIDED, Fixture
from ladder.newmatches import STANDARD, MatchSettings

LOCK = "<matchmaker>"
"""The matchmaker's lock (every tick, join, leave, pause and resume takes it)."""
HEALTH_WINDOW = timedelta(days=1)
"""Probes older than this do not count (a bot is re-probed every 30 minutes while paused)."""
MAX_MAKEUPS = 3
"""A fixture voided again after this many make-ups is given up: its bots rest instead."""
CANCEL_PREFIX = "cancelled:"
"""Void reasons the matchmaker writes itself: no make-up for the bot that caused them."""
FIXTURE_KEY = "fx"
"""``pair_key`` of a fixture's matches is this and the fixture's id: they share a seed."""
DEFAULT_DEPTH = 16
"""Ladder matches in flight at most, unless configured: what a broker's workers take on.
An embedded server uses its number of match threads instead (``api.config``)."""


class Kind(enum.StrEnum):
    """What a fixture row is."""

    FIXTURE = "fixture"
    """A round's own: its bots in seat order, ``games`` matches on one seed."""
    MAKEUP = "makeup"
    """Fills the slot of a voided or cancelled one, filed under the same round."""
    BYE = "bye"
    """A bot resting this round."""
    ORPHAN = "orphan"
    """A bot whose fixture was cancelled under it, waiting for a make-up partner."""


class Stage(enum.StrEnum):
    """Where a fixture is."""

    PLANNED = "planned"
    DISPATCHED = "dispatched"
    """Its matches are created (some may be held)."""
    DONE = "done"
    CANCELLED = "cancelled"


PLAYED = frozenset({Kind.FIXTURE, Kind.MAKEUP})
"""Kinds that are played (the others only rest or wait)."""
OPEN = frozenset({Stage.PLANNED, Stage.DISPATCHED})
OVER = frozenset({Stage.DONE, Stage.CANCELLED})


class UnsettledError(RuntimeError):
    """A tick whose steps still changed something after their bound of passes: a bug of the
    matchmaker, never a state of the ladders.  Raised inside the tick's transaction, so
    nothing of that tick is kept; the next tick starts again from the rows."""


@dataclass(frozen=True)
class MatchmakerConfig:
    depth: int = DEFAULT_DEPTH
    """Ladder matches in flight at most (workers x slots)."""
    daily_cap: int = 200
    """Rated matches a bot may be given per game in 24 hours."""
    placement_games: int = 10
    new_version_games: int = 5
    recent_rounds: int = 10
    """Meetings counted over this many last rounds."""
    max_open_rounds: int = 2
    p_far: float = 0.1
    settings: MatchSettings = STANDARD
    """How the ladder's matches are played."""


@dataclass
class TickResult:
    enqueue: list[int] = field(default_factory=list)
    """Match ids released to the workers (enqueue them after the tick returned)."""
    opened: list[int] = field(default_factory=list)
    closed: list[int] = field(default_factory=list)
    created: int = 0
    """Match rows created (released or held)."""


@dataclass
class EligibleBot:
    """A bot the tick may seat in this ladder, with what planning needs of it."""

    bot_id: int
    owner: int | None
    cap: int
    """Its ``max_concurrency``: matches in flight at once, over every ladder."""
    rating: float
    games: int
    placement: int
    """Rated games left before it is ranked."""
    last_rest: int | None
    byes: int
    seats: list[int]
    """Tables it sat at, per seat (tables of more than two only)."""
    version: int


@dataclass(frozen=True)
class RoundRow:
    id: int
    number: int


FIXTURE_COLUMNS = (Fixture.id, Fixture.round_id, Fixture.kind, Fixture.state, Fixture.bots,
                   Fixture.games, Fixture.made, Fixture.seed, Fixture.makeup_of,
                   Fixture.reason)
"""What a tick reads of a fixture (:class:`FixtureRow`'s fields)."""


@dataclass
class FixtureRow:
    """A fixture of an open round as the tick holds it."""

    id: int
    round_id: int
    kind: Kind
    state: Stage
    bots: list[int]
    games: int
    made: int
    """Matches of it released to the workers so far."""
    seed: int | None
    makeup_of: int | None
    reason: str | None

    @classmethod
    def from_row(cls, row: RowMapping) -> FixtureRow:
        return cls(int(row["id"]), int(row["round_id"]), Kind(row["kind"]), Stage(row["state"]),
                   list(row["bots"]), int(row["games"]), int(row["made"] or 0), row["seed"],
                   row["makeup_of"], row["reason"])

    @property
    def played(self) -> bool:
        return self.kind in PLAYED

    @property
    def open(self) -> bool:
        return self.state in OPEN

    @property
    def to_start(self) -> bool:
        """A played fixture none of whose matches is created yet."""
        return self.played and self.state == Stage.PLANNED


@dataclass
class MatchView:
    """A match of a fixture, as far as the tick cares."""

    id: int
    state: str
    void_reason: str | None
    attempt: int
    lease_until: datetime | None
    held: bool
    """Created but not released to the workers yet (:attr:`ladder.models.Match.held`)."""

    @property
    def over(self) -> bool:
        return self.state in (FINISHED, VOIDED)

    def in_retry(self, now: datetime) -> bool:
        return in_retry(self.state, self.attempt, self.lease_until, now)


def in_retry(state: str, attempt: int | None, lease_until: datetime | None,
             now: datetime) -> bool:
    """Whether a match not over has lost an attempt: a later one is playing or due, or the
    lease of the current one ran out (its worker died or froze; the sweeper hands it on)."""
    if state not in (SCHEDULED, RUNNING) or not attempt:
        return False
    until = utc(lease_until)
    lapsed = state == RUNNING and until is not None and until < now
    return attempt >= 2 or state == SCHEDULED or lapsed


def big_table(game: str) -> int:
    """Seats at a table of ``game``'s ladder: 2 means pairs (two games, seats swapped)."""
    from referee.games import find_game

    return max(find_game(game).player_counts)


def games_per_fixture(big: int) -> int:
    return 2 if big == 2 else 1

"""One game's ladder within a tick: its eligible bots, open rounds, fixtures and their
matches in memory, and the few writes that keep memory and rows in step."""

from __future__ import annotations

import random
import secrets
from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, bindparam, case, func, insert, select, update

from ladder import metrics
from ladder.matchmaking.entries import placement_due
from ladder.matchmaking.slots import Slots
from ladder.matchmaking.state import (
    FIXTURE_COLUMNS, HEALTH_WINDOW, OVER, PLAYED, EligibleBot, FixtureRow, Kind, MatchmakerConfig,
    MatchView, RoundRow, Stage, TickResult, big_table, games_per_fixture,
)
from ladder.models import (
    ACTIVE, SCHEDULED, VOIDED, Bot, Fixture, HealthCheck, LadderEntry, Match, Owner, Rating, Round,
)
from ladder.pairing import Entrant
from ladder.ratings import EloConfig


def _eligible_statement() -> Any:
    """A ladder's eligible bots with what planning needs (built once: a tick runs after
    every match, and building a statement costs more than the database's work on it)."""
    e, b = LadderEntry, Bot
    return (select(e.bot_id, b.owner_id, b.max_concurrency, b.version,
                   e.version.label("placed"), e.placement_remaining, e.last_rest, e.byes,
                   e.seat_counts, Rating.elo, Rating.games)
            .join(b, b.id == e.bot_id)
            .outerjoin(Owner, Owner.id == b.owner_id)
            .outerjoin(Rating, and_(Rating.bot_id == e.bot_id, Rating.game == e.game))
            .where(e.game == bindparam("game"), e.active.is_(True), e.paused_reason.is_(None),
                   b.status == ACTIVE, Owner.suspended_at.is_(None)))


def _unhealthy_statement() -> Any:
    """A ladder's bots whose last three probes (within ``since``) all failed."""
    h = HealthCheck
    ranked = (select(h.bot_id, h.ok, func.row_number().over(
        partition_by=h.bot_id, order_by=h.id.desc()).label("n"))
        .join(LadderEntry, and_(LadderEntry.bot_id == h.bot_id,
                                LadderEntry.game == bindparam("game")))
        .where(h.at >= bindparam("since"))  # probes come every 30 min at most
        .subquery())
    return (select(ranked.c.bot_id).where(ranked.c.n <= 3).group_by(ranked.c.bot_id)
            .having(and_(func.count() == 3,
                         func.sum(case((ranked.c.ok.is_(True), 1), else_=0)) == 0)))


_ELIGIBLE = _eligible_statement()
_UNHEALTHY = _unhealthy_statement()
_OPEN_ROUNDS = select(Round.id, Round.number).where(
    Round.game == bindparam("game"), Round.closed_at.is_(None)).order_by(Round.number)
_FIXTURES = (select(*FIXTURE_COLUMNS).where(Fixture.round_id.in_(bindparam("ids", expanding=True)))
             .order_by(Fixture.id))
_MATCHES = (select(Match.id, Match.fixture_id, Match.state, Match.void_reason, Match.held,
                   Match.attempt, Match.lease_until)
            .where(Match.round_id.in_(bindparam("ids", expanding=True)),
                   Match.fixture_id.is_not(None))
            .order_by(Match.id))


class LadderState:
    """What a tick knows of one ladder, and the writes every step shares."""

    def __init__(self, conn: Connection, game: str, now: datetime, config: MatchmakerConfig,
                 rng: random.Random, result: TickResult, slots: Slots) -> None:
        self.conn, self.game, self.now, self.config = conn, game, now, config
        self.rng, self.result, self.slots = rng, result, slots
        self.big = big_table(game)
        self.k = games_per_fixture(self.big)
        self.changes = 0
        """Rows this tick changed in this ladder (the tick runs its steps until none does)."""
        self.eligible = self._eligible()
        for bot in self.eligible.values():
            slots.cap[bot.bot_id] = bot.cap
        self.rounds: dict[int, RoundRow] = {}
        self.fixtures: dict[int, FixtureRow] = {}
        self.matches: dict[int, list[MatchView]] = defaultdict(list)
        """Each fixture's matches, by fixture id."""
        self._load_open_rounds()

    # -- reading ---------------------------------------------------------------------------

    def _eligible(self) -> dict[int, EligibleBot]:
        rows = self.conn.execute(_ELIGIBLE, {"game": self.game}).all()
        sick = set(self._unhealthy())
        start = EloConfig().start
        bots: dict[int, EligibleBot] = {}
        renewed = []
        empty = [0] * self.big
        for (bot_id, owner, cap, version, placed, placement, last_rest, byes, seats, elo,
             games) in rows:
            if bot_id in sick:
                continue
            if placed != version:  # a new version is placed again
                placement = placement_due(placement, placed, version, self.config)
                renewed.append({"b_id": bot_id, "b_version": version, "b_left": placement})
            bots[bot_id] = EligibleBot(bot_id, owner, cap if cap and cap > 1 else 1,
                                       start if elo is None else elo, games or 0, placement,
                                       last_rest, byes or 0, seats or empty, version)
        if renewed:
            self.conn.execute(update(LadderEntry).where(
                LadderEntry.bot_id == bindparam("b_id"), LadderEntry.game == self.game).values(
                version=bindparam("b_version"), placement_remaining=bindparam("b_left")), renewed)
        return bots

    def _unhealthy(self) -> list[int]:
        """Bots whose last three probes all failed."""
        return list(self.conn.execute(_UNHEALTHY, {"game": self.game,
                                                   "since": self.now - HEALTH_WINDOW}).scalars())

    def _load_open_rounds(self) -> None:
        rows = self.conn.execute(_OPEN_ROUNDS, {"game": self.game}).all()
        self.rounds = {r.id: RoundRow(r.id, r.number) for r in rows}
        if not self.rounds:
            return
        ids = {"ids": list(self.rounds)}
        for f in self.conn.execute(_FIXTURES, ids).mappings():
            self.fixtures[f["id"]] = FixtureRow.from_row(f)
        for m in self.conn.execute(_MATCHES, ids):
            self.matches[m.fixture_id].append(MatchView(
                m.id, m.state, m.void_reason, m.attempt or 0, m.lease_until,
                bool(m.held) and m.state == SCHEDULED))

    # -- what a fixture is waiting for -----------------------------------------------------

    def in_round(self, round_id: int) -> list[FixtureRow]:
        return [f for f in self.fixtures.values() if f.round_id == round_id]

    def waiting(self) -> list[FixtureRow]:
        """Fixtures that want slots: planned ones, and dispatched ones with games held."""
        return [f for f in self.fixtures.values() if f.played and (
            f.state == Stage.PLANNED
            or (f.state == Stage.DISPATCHED and any(m.held for m in self.matches[f.id])))]

    def since(self, f: FixtureRow) -> int:
        """Since when ``f`` has been owed, as a fixture id (ids grow with time, across
        ladders): a make-up's is that of the fixture it makes up, first of its chain."""
        while f.kind == Kind.MAKEUP and f.makeup_of in self.fixtures:
            f = self.fixtures[f.makeup_of]
        return f.id

    def generation(self, f: FixtureRow) -> int:
        """How many make-ups deep ``f`` is (0: the round's own fixture)."""
        depth = 0
        step: FixtureRow | None = f
        while step is not None and step.kind == Kind.MAKEUP:
            depth += 1
            step = self.fixtures.get(step.makeup_of) if step.makeup_of is not None else None
        return depth

    def lagging(self, f: FixtureRow) -> bool:
        """Whether ``f`` waits on a retry: a match of it lost an attempt, or it has not
        started and one of its bots sits in such a match (of any ladder or challenge).  Until
        the retry is over it is treated like a make-up: the next round does not wait for it."""
        if not f.played or not f.open:
            return False
        ms = self.matches[f.id]
        if any(m.in_retry(self.now) for m in ms):
            return True
        unstarted = f.state == Stage.PLANNED or any(m.held for m in ms)
        return unstarted and any(b in self.slots.held for b in f.bots)

    def entrant(self, bot_id: int) -> Entrant:
        """What the pairing needs of an eligible bot."""
        b = self.eligible[bot_id]
        done = max(0, self.config.placement_games - b.placement)
        return Entrant(bot_id, b.rating, b.owner, b.last_rest if b.last_rest is not None else -1,
                       b.games, b.placement > 0, done // self.k, tuple(b.seats))

    # -- writing (rows and memory together) ------------------------------------------------

    def fixture_row(self, round_id: int, kind: Kind, bots: list[int], games: int, *,
                    reason: str | None = None, state: Stage = Stage.PLANNED,
                    makeup_of: int | None = None) -> dict[str, Any]:
        """A new fixture's row (a played one gets its seed here)."""
        return {"round_id": round_id, "game": self.game, "kind": kind, "reason": reason,
                "bots": bots, "state": state, "games": games, "made": 0,
                "seed": secrets.randbits(63) if kind in PLAYED else None,
                "makeup_of": makeup_of, "created_at": self.now,
                "dispatched_at": None, "finished_at": self.now if state in OVER else None}

    def add_fixtures(self, rows: list[dict[str, Any]]) -> None:
        """Insert fixtures (rows of :meth:`fixture_row`) and hold them in memory."""
        if not rows:
            return
        for f in self.conn.execute(insert(Fixture).returning(*FIXTURE_COLUMNS),
                                   rows).mappings():
            self.fixtures[f["id"]] = FixtureRow.from_row(f)
        self.changes += 1

    def add_fixture(self, round_id: int, kind: Kind, bots: list[int], games: int, *,
                    reason: str | None = None, state: Stage = Stage.PLANNED,
                    makeup_of: int | None = None) -> None:
        self.add_fixtures([self.fixture_row(round_id, kind, bots, games, reason=reason,
                                            state=state, makeup_of=makeup_of)])

    def update_fixture(self, f: FixtureRow, *, state: Stage | None = None,
                       kind: Kind | None = None, reason: str | None = None,
                       made: int | None = None) -> None:
        """Change a fixture's row and ``f`` alike; reaching an end stamps ``finished_at``,
        being dispatched ``dispatched_at``."""
        values: dict[str, Any] = {}
        if state is not None:
            f.state = values["state"] = state
            if state in OVER:
                values["finished_at"] = self.now
            elif state == Stage.DISPATCHED:
                values["dispatched_at"] = self.now
        if kind is not None:
            f.kind = values["kind"] = kind
        if reason is not None:
            f.reason = values["reason"] = reason
        if made is not None:
            f.made = values["made"] = made
        self.conn.execute(update(Fixture).where(Fixture.id == f.id).values(**values))
        self.changes += 1

    def release_match(self, m: MatchView) -> None:
        """Hand a held match to the workers (enqueued once the tick has committed)."""
        self.conn.execute(update(Match).where(Match.id == m.id).values(
            held=False, enqueued_at=self.now))
        m.held = False
        self.result.enqueue.append(m.id)

    def void_held(self, held: list[MatchView], reason: str) -> None:
        """Void held matches (their fixture lost a bot): their rows and objects alike."""
        self.conn.execute(update(Match).where(
            Match.id.in_([m.id for m in held]), Match.state == SCHEDULED).values(
            state=VOIDED, held=False, finished_at=self.now, void_reason=reason))
        metrics.voided(self.game, [m.id for m in held], reason)
        for m in held:
            m.state, m.held, m.void_reason = VOIDED, False, reason
        self.changes += 1

    def rest(self, bot: int, number: int | None) -> None:
        """Count a bye; ``number``: a rotation bye in that round (moves the bot back in
        the rotation)."""
        values: dict[str, Any] = {"byes": LadderEntry.byes + 1}
        if number is not None:
            values["last_rest"] = number
            if bot in self.eligible:
                self.eligible[bot].last_rest = number
        self.conn.execute(update(LadderEntry).where(
            LadderEntry.bot_id == bot, LadderEntry.game == self.game).values(**values))

"""The living ladder's scheduler: rounds of fixtures, kept topped up by an idempotent tick.

:func:`tick` is run by ``referee beat`` (every 20 s), after every finished match, by
``referee ladder tick`` and by the embedded server's ticker thread.  Each run covers every
ladder (a bot's slots are shared by its ladders, so only a tick that sees them all can share
them fairly), in one transaction holding the matchmaker's lock (``pg_advisory_xact_lock`` on
PostgreSQL; on SQLite the transaction's ``BEGIN IMMEDIATE`` is the lock), so two ticks at
once never schedule more than one tick's worth:

1. **cancel** what can no longer be played as planned: a planned fixture with a bot that is
   no longer eligible is cancelled (so is a not-yet-released game of a dispatched pair); the
   other bots in it become *orphans*;
2. **settle** fixtures whose matches are all over: placement counts down per finished game;
   a match voided for an infrastructure reason gets a **make-up** (same bots, same seat
   order, fresh seed) filed under the same round; when a bot of it is gone, the others are
   orphans instead;
3. **orphans** of a round are seated together (pairs or tables, one owner per table) as
   make-ups; those left take a bye when nothing else of their round waits, or at the latest
   when the next round opens (so they play it: a bot is never left out of a round because it
   was waiting for a partner);
4. **release and dispatch**, every ladder at once: a fixture's matches are created together
   (a pair shares one seed, so both rows must exist before either log is public), the first
   released to the workers and the others *held* until the bots have room; a fixture is
   dispatched only when each of its bots has fewer than ``max_concurrency`` matches in
   flight, and the ladders as a whole have fewer than ``depth`` (workers x slots).  The
   waiting fixtures of all ladders are served in the order they became due (fixture ids grow
   with time; a make-up is due since the fixture it makes up), and one that cannot start yet
   *claims* its bots' free slots, so nothing behind it takes them: a table of four is not
   starved by pairs that need only two bots free at once, nor one ladder by another whose
   matches end more often;
5. **open** round r+1 once every fixture of round r has started, with at most two rounds
   open, from the eligible bots under their daily cap that have no fixture waiting to start
   (:mod:`ladder.pairing` plans it).  A fixture *waiting on a retry* (a match of it lost an
   attempt: its lease ran out, or a later attempt is playing; or it has not started and one
   of its bots sits in such a match, of any game) is treated like a make-up: round r+1 does
   not wait for it, a round left with only such fixtures does not count as open (it stays
   open until they are over), and it claims no slot (its bots sit new rounds out until it
   starts, then it goes first on them);
6. **close** rounds whose fixtures are all over.

Eligible (service.md §4.4): bot active, ladder entry active and not paused, owner not
suspended, the last three health probes not all failed, and under the daily cap of rated
matches.  The returned :class:`TickResult` lists the match ids to enqueue (after commit).

The guarantees (checked by ``tests/service/test_matchmaker.py`` after every step of a state
machine): every bot of a round's snapshot has exactly one fixture or one bye in it; over any
stretch of rounds in which two bots stayed eligible and undisturbed, their rotation byes
differ by at most one and their rated games by at most ``k (1 + |byes(x) - byes(y)|)``
(k = 2 for a pair, 1 for a table), a voided game counting while its make-up is due; pairs
play both seat orders, tables even out seat counts; no rated table holds two bots of one
owner; nothing is released for a bot that is not eligible; no bot has more matches in flight
than its ``max_concurrency``, nor more than one fixture waiting to start; a second tick right
after one does nothing.  A fixture waits only for those due before it on its bots (of the
other ladders: at most one per open round and bot, each of its games): no ladder starves
another (``tests/service/test_matchmaker_fairness.py``, which also plays a match in retry).

Deviations from service.md §4.4, and why:

* Make-ups are filed under the round whose slot they fill (not "the next round"), and that
  round stays open until they are over: the evenness bound then holds per round, and being
  due since the fixture they make up, they go before the fixtures of later rounds.
* A match whose attempt was lost is retried under its own id and seed, not made up, but the
  round treats it like a make-up (above).  A frozen worker cannot be told from a slow match
  until its lease runs out: until then the round waits for it as for any match in play.
* Byes rotate least-recently-rested first (joining and resuming count as a rest) rather than
  "most rated games first": the same intent, and "byes differ by at most one over any window"
  becomes a theorem.  A bye given to an orphan (a bot whose fixture was cancelled because of
  another bot, with no other orphan to play) is counted as a bye but leaves the rotation alone.
* Seeds are random (``secrets``), not derived from a master seed and the fixture id: a derived
  seed is only as secret as the master seed, and nothing needs to re-derive one.
* No extra placement fixture per round: a bot in placement plays its one fixture a round
  against the spread of the field (so placement does not touch the evenness bound).
* The daily cap is applied when a round is planned (a capped bot is left out of the snapshot,
  counting the games already planned for it), so a planned fixture never waits for a cap.
"""

from __future__ import annotations

import json
import random
import secrets
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import (
    JSON, Connection, Engine, and_, bindparam, case, func, insert, or_, select, text, update,
)

from ladder import ConflictError, InvalidError, NotFoundError
from ladder.accounts import now_utc, utc
from ladder.admin import ladder_paused
from ladder.db import DriverStatement, lock_key, lock_ladder, reader, translate_errors
from ladder.models import (
    ACTIVE, FINISHED, REASON_LEN, RUNNING, SCHEDULED, UNVERIFIED, VOIDED, Bot, Fixture,
    HealthCheck, LadderEntry, Match, MatchSeat, Owner, Rating, Round,
)
from ladder.pairing import ROTATION, Entrant, Plan, pair_key, plan_round, table_sizes
from ladder.ratings import EloConfig

_SET_SEATS = update(LadderEntry).where(
    LadderEntry.bot_id == bindparam("b_id"), LadderEntry.game == bindparam("b_game")).values(
    seat_counts=bindparam("b_seats", type_=JSON()))
_SET_SEATS_FIELDS = ("b_seats", "b_id", "b_game")
"""Seat counts of many entries at once, as plain tuples (JSON text: what the column stores)."""
HELD = datetime(9000, 1, 1, tzinfo=timezone.utc)
"""``enqueued_at`` of a created match not yet released to the workers (the second game of a
pair waiting for its bots): the sweeper never re-enqueues it."""
LOCK = "<matchmaker>"
HEALTH_WINDOW = timedelta(days=1)
"""Probes older than this do not count (a bot is re-probed every 30 minutes while paused)."""
PLANNED, DISPATCHED, DONE, CANCELLED = "planned", "dispatched", "done", "cancelled"
FIXTURE, MAKEUP, BYE, ORPHAN = "fixture", "makeup", "bye", "orphan"
MAX_MAKEUPS = 3
"""A fixture voided again after this many make-ups is given up: its bots rest instead."""
CANCEL_PREFIX = "cancelled:"
"""Void reasons the matchmaker writes itself: no make-up for the bot that caused them."""


@dataclass(frozen=True)
class MatchmakerConfig:
    depth: int = 32
    """Ladder matches in flight at most (workers x slots)."""
    daily_cap: int = 200
    """Rated matches a bot may be given per game in 24 hours."""
    placement_games: int = 10
    new_version_games: int = 5
    recent_rounds: int = 10
    """Meetings counted over this many last rounds."""
    max_open_rounds: int = 2
    p_far: float = 0.1
    settings: Mapping[str, Any] | None = None


@dataclass
class TickResult:
    enqueue: list[int] = field(default_factory=list)
    """Match ids released to the workers (enqueue them after the tick returned)."""
    opened: list[int] = field(default_factory=list)
    closed: list[int] = field(default_factory=list)
    created: int = 0
    """Match rows created (released or held)."""


@dataclass
class _Bot:
    bot_id: int
    owner: int | None
    cap: int
    rating: float
    games: int
    placement: int
    last_rest: int | None
    byes: int
    seats: list[int]
    version: int


def big_table(game: str) -> int:
    """Seats at a table of ``game``'s ladder: 2 means pairs (two games, seats swapped)."""
    from referee.games import find_game

    return max(find_game(game).player_counts)


def games_per_fixture(big: int) -> int:
    return 2 if big == 2 else 1


# -- entries ----------------------------------------------------------------------------------

JOINABLE = (ACTIVE, UNVERIFIED)
"""Bot states that may join a ladder (an unverified bot's entry waits: only active bots are
eligible)."""


def join(engine: Engine, bot_id: int, game: str, config: MatchmakerConfig = MatchmakerConfig(),
         now: datetime | None = None) -> None:
    """Enter (or re-enter) ``bot_id`` in ``game``'s ladder; a bot without rated games there
    starts placement.  Joining counts as a rest, so a newcomer does not take the next bye."""
    now = now or now_utc()
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, LOCK)
        bot = conn.execute(select(Bot.id, Bot.version, Bot.status, Bot.games)
                           .where(Bot.id == bot_id)).one_or_none()
        if bot is None:
            raise NotFoundError(f"no bot {bot_id}")
        if bot.status not in JOINABLE:
            raise ConflictError(f"bot {bot_id} is {bot.status}, not active")
        if bot.games is not None and game not in bot.games:
            raise InvalidError(f"bot {bot_id} does not play {game}")
        latest = _latest_round(conn, game)
        entry = conn.execute(select(LadderEntry.active).where(
            LadderEntry.bot_id == bot_id, LadderEntry.game == game)).one_or_none()
        if entry is None:
            rated = conn.execute(select(Rating.games).where(
                Rating.bot_id == bot_id, Rating.game == game)).scalar_one_or_none() or 0
            conn.execute(insert(LadderEntry).values(
                bot_id=bot_id, game=game, active=True, paused_reason=None,
                placement_remaining=0 if rated else config.placement_games, joined_at=now,
                version=bot.version, last_rest=latest, byes=0, seat_counts=None))
        elif not entry.active:
            conn.execute(update(LadderEntry).where(
                LadderEntry.bot_id == bot_id, LadderEntry.game == game).values(
                active=True, last_rest=latest))


def leave(engine: Engine, bot_id: int, game: str) -> None:
    """Take ``bot_id`` off ``game``'s ladder (its unstarted fixtures are cancelled at the
    next tick; its history stays)."""
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, LOCK)
        _must(conn.execute(update(LadderEntry).where(
            LadderEntry.bot_id == bot_id, LadderEntry.game == game).values(active=False)
        ).rowcount, bot_id, game)


def pause(engine: Engine, bot_id: int, game: str, reason: str) -> None:
    with translate_errors(engine), engine.begin() as conn:
        _must(pause_entries(conn, bot_id, [game], reason), bot_id, game)


def resume(engine: Engine, bot_id: int, game: str) -> None:
    with translate_errors(engine), engine.begin() as conn:
        _must(resume_entries(conn, bot_id, [game]), bot_id, game)


def pause_entries(conn: Connection, bot_id: int, games: Sequence[str], reason: str, *,
                  only_running: bool = False) -> int:
    """Pause the bot's entries of ``games`` (``only_running``: those not paused already, so
    an earlier reason stays), inside the caller's transaction and under the matchmaker's
    lock (the tick never sees half of it); how many were paused.  Every pause goes through
    here (the owner's, the health rules')."""
    lock_ladder(conn, LOCK)
    cond = [LadderEntry.bot_id == bot_id, LadderEntry.game.in_(list(games))]
    if only_running:
        cond.append(LadderEntry.paused_reason.is_(None))
    return int(conn.execute(update(LadderEntry).where(*cond)
                            .values(paused_reason=reason[:REASON_LEN])).rowcount)


def resume_entries(conn: Connection, bot_id: int, games: Sequence[str]) -> int:
    """Lift the pause of the bot's entries of ``games`` in the caller's transaction; how many.
    Resuming counts as a rest (``last_rest`` becomes the game's latest round), so a bot back
    from a pause does not take the next bye.  Every resume goes through here (the owner's,
    the health rules')."""
    lock_ladder(conn, LOCK)
    done = 0
    for game in games:
        done += conn.execute(update(LadderEntry).where(
            LadderEntry.bot_id == bot_id, LadderEntry.game == game).values(
            paused_reason=None, last_rest=_latest_round(conn, game))).rowcount
    return done


def _must(rowcount: int, bot_id: int, game: str) -> None:
    if not rowcount:
        raise NotFoundError(f"bot {bot_id} is not on the {game} ladder")


def _latest_round(conn: Connection, game: str) -> int:
    number = conn.execute(select(func.max(Round.number)).where(Round.game == game)
                          ).scalar_one_or_none()
    return int(number or 0)


# -- the tick ---------------------------------------------------------------------------------

def _ladder_games(conn: Connection) -> list[str]:
    """The games with a living ladder (any entry)."""
    return list(conn.execute(select(LadderEntry.game).distinct().order_by(LadderEntry.game))
                .scalars())


def tick(engine: Engine, game: str | None = None, now: datetime | None = None,
         config: MatchmakerConfig = MatchmakerConfig(),
         rng: random.Random | None = None, wait: bool = True) -> TickResult:
    """One run of the scheduler over every ladder, in one transaction; see the module
    docstring.  Idempotent: a second run right after the first finds nothing to do.

    ``game`` names the ladder that asked for the tick (the finished match's game, ``referee
    ladder tick --game``) and narrows nothing: a bot's slots are shared by its ladders, and
    only a tick that sees every ladder's waiting fixtures can hand them out fairly, whoever
    calls it.  ``wait=False`` (the trigger after every match): on PostgreSQL, skip the tick
    while another process runs one instead of queueing behind it (the beat's next tick picks
    up whatever that one could not see yet); SQLite always waits for its write lock."""
    result = TickResult()
    rng = rng or random.Random(secrets.randbits(64))
    with translate_errors(engine), engine.begin() as conn:
        if not wait and conn.dialect.name == "postgresql":
            if not conn.execute(text("SELECT pg_try_advisory_xact_lock(:key)"),
                                {"key": lock_key(LOCK)}).scalar_one():
                return result
        else:
            lock_ladder(conn, LOCK)
        # an admin's pause stops a ladder: nothing of it is settled, opened or released
        games = [name for name in _ladder_games(conn) if not ladder_paused(conn, name)]
        _Tick(conn, games, now or now_utc(), config, rng, result).run()
    return result


def placement_left(engine: Engine, game: str,
                   config: MatchmakerConfig = MatchmakerConfig()) -> dict[int, int]:
    """Rated games each bot on ``game``'s living ladder still has to play before it is ranked
    (0 once placed; a bot with no entry is absent): a leaderboard shows the bots with games
    left as provisional.  A new version not yet seen by a tick counts as re-entering
    placement already."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(select(LadderEntry.bot_id, LadderEntry.placement_remaining,
                                   LadderEntry.version.label("placed"), Bot.version)
                            .join(Bot, Bot.id == LadderEntry.bot_id)
                            .where(LadderEntry.game == game)).all()
    return {r.bot_id: placement_due(r.placement_remaining, r.placed, r.version, config)
            for r in rows}


def placement_due(remaining: int, placed: int | None, version: int,
                  config: MatchmakerConfig = MatchmakerConfig()) -> int:
    """An entry's placement games left: a new version of a placed bot (``placed``, the
    version the entry was placed with, differs) plays ``new_version_games`` again."""
    if placed is not None and placed != version:
        return max(remaining or 0, config.new_version_games)
    return remaining or 0


class _Slots:
    """The bots' free slots, shared by every ladder: the released matches not over (every
    game and challenge count against a bot's ``max_concurrency``), the ladder matches in
    flight against ``depth``, and the bots held by a match in retry."""

    def __init__(self, conn: Connection, now: datetime, depth: int) -> None:
        live = and_(Match.state.in_((SCHEDULED, RUNNING)),
                    or_(Match.enqueued_at.is_(None), Match.enqueued_at < HELD))
        rows = conn.execute(
            select(MatchSeat.bot_id, Match.id, Match.round_id, Match.state, Match.attempt,
                   Match.lease_until).join(Match, Match.id == MatchSeat.match_pk).where(live)
        ).all()
        self.busy: Counter[int] = Counter(r.bot_id for r in rows)
        self.depth, self.depth_used = depth, len({r.id for r in rows if r.round_id is not None})
        self.held = {r.bot_id for r in rows if _in_retry(r.state, r.attempt, r.lease_until, now)}
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


class _Tick:
    """One tick over every ladder inside one transaction."""

    def __init__(self, conn: Connection, games: Sequence[str], now: datetime,
                 config: MatchmakerConfig, rng: random.Random, result: TickResult) -> None:
        self.slots = _Slots(conn, now, config.depth)
        self.ladders = [_Ladder(conn, game, now, config, rng, result, self.slots)
                        for game in games]

    def changes(self) -> int:
        return sum(ladder.changes for ladder in self.ladders)

    def run(self) -> None:
        """The steps, repeated until a pass changes nothing (a step may make work for an
        earlier one: a cancelled fixture's orphans, a closed round): so a second tick right
        after this one has nothing to do."""
        for _ in range(8):  # the in-memory state is kept up to date by every step
            before = self.changes()
            for ladder in self.ladders:
                ladder.cancel()
                ladder.settle()
                ladder.seat_orphans()
            self.dispatch()
            while self.open_rounds():
                self.dispatch()
            for ladder in self.ladders:
                ladder.close()
            if self.changes() == before:
                return

    def open_rounds(self) -> bool:
        """Open the next round of every ladder that may; whether one did.  Called until none
        does, which comes: a new round's fixtures either start (and its ladder reaches its
        open rounds) or wait (and their bots are left out of the next round)."""
        opened = False
        for ladder in self.ladders:
            if ladder.may_open() and ladder.open_round():
                opened = True
        return opened

    def dispatch(self) -> None:
        """Hand the free slots out, every ladder's waiting fixtures in one order: the one
        that has waited longest first (a make-up waits since the fixture it makes up).  A
        fixture that cannot start yet claims the free slots of its bots, so no fixture behind
        it takes them: a table of four is not starved by pairs that need only two bots free
        at once.  A fixture waiting on a retry claims nothing (it may wait for minutes)."""
        self.slots.claimed.clear()
        order = sorted(((ladder.since(f), f["id"], ladder, f) for ladder in self.ladders
                        for f in ladder.waiting()), key=lambda item: item[:2])
        chosen: dict[str, list[tuple[dict[str, Any], int]]] = defaultdict(list)
        for _, _, ladder, f in order:
            if self.slots.full():
                break
            if not all(b in ladder.eligible for b in f["bots"]):
                continue
            if self.slots.room(f["bots"]):
                if f["state"] == DISPATCHED:
                    ladder.release(f)
                else:
                    released = 0
                    while released < f["games"] and self.slots.room(f["bots"]):
                        self.slots.reserve(f["bots"])
                        released += 1
                    chosen[ladder.game].append((f, released))
            elif not ladder.lagging(f):
                self.slots.claim(f["bots"])
        for ladder in self.ladders:
            if chosen[ladder.game]:
                ladder.create_matches(chosen[ladder.game])


class _Ladder:
    """One game's ladder within a tick: its rounds, fixtures and matches in memory."""

    def __init__(self, conn: Connection, game: str, now: datetime, config: MatchmakerConfig,
                 rng: random.Random, result: TickResult, slots: _Slots) -> None:
        self.conn, self.game, self.now, self.config = conn, game, now, config
        self.rng, self.result, self.slots = rng, result, slots
        self.big = big_table(game)
        self.k = games_per_fixture(self.big)
        self.changes = 0
        self.eligible = self._eligible()
        for bot in self.eligible.values():
            slots.cap[bot.bot_id] = bot.cap
        self._load_open_rounds()

    # -- reading -----------------------------------------------------------------------------------

    def _eligible(self) -> dict[int, _Bot]:
        e, b = LadderEntry, Bot
        rows = self.conn.execute(
            select(e.bot_id, b.owner_id, b.max_concurrency, b.version, e.version.label("placed"),
                   e.placement_remaining, e.last_rest, e.byes, e.seat_counts, Rating.elo,
                   Rating.games)
            .join(b, b.id == e.bot_id)
            .outerjoin(Owner, Owner.id == b.owner_id)
            .outerjoin(Rating, and_(Rating.bot_id == e.bot_id, Rating.game == e.game))
            .where(e.game == self.game, e.active.is_(True), e.paused_reason.is_(None),
                   b.status == ACTIVE, Owner.suspended_at.is_(None))).all()
        sick = set(self._unhealthy())
        start = EloConfig().start
        bots: dict[int, _Bot] = {}
        renewed = []
        empty = [0] * self.big
        for (bot_id, owner, cap, version, placed, placement, last_rest, byes, seats, elo,
             games) in rows:
            if bot_id in sick:
                continue
            if placed != version:  # a new version is placed again
                placement = placement_due(placement, placed, version, self.config)
                renewed.append({"b_id": bot_id, "b_version": version, "b_left": placement})
            bots[bot_id] = _Bot(bot_id, owner, cap if cap and cap > 1 else 1,
                                start if elo is None else elo, games or 0, placement,
                                last_rest, byes or 0, seats or empty, version)
        if renewed:
            self.conn.execute(update(LadderEntry).where(
                LadderEntry.bot_id == bindparam("b_id"), LadderEntry.game == self.game).values(
                version=bindparam("b_version"), placement_remaining=bindparam("b_left")), renewed)
        return bots

    def _unhealthy(self) -> list[int]:
        """Bots whose last three probes all failed."""
        h = HealthCheck
        ranked = (select(h.bot_id, h.ok, func.row_number().over(
            partition_by=h.bot_id, order_by=h.id.desc()).label("n"))
            .join(LadderEntry, and_(LadderEntry.bot_id == h.bot_id,
                                    LadderEntry.game == self.game))
            .where(h.at >= self.now - HEALTH_WINDOW)  # probes come every 30 min at most
            .subquery())
        return list(self.conn.execute(
            select(ranked.c.bot_id).where(ranked.c.n <= 3).group_by(ranked.c.bot_id)
            .having(and_(func.count() == 3,
                         func.sum(case((ranked.c.ok.is_(True), 1), else_=0)) == 0))).scalars())

    def _load_open_rounds(self) -> None:
        rows = self.conn.execute(select(Round.id, Round.number).where(
            Round.game == self.game, Round.closed_at.is_(None)).order_by(Round.number)).all()
        self.rounds: dict[int, _RoundRow] = {r.id: _RoundRow(r.id, r.number) for r in rows}
        self.fixtures: dict[int, dict[str, Any]] = {}
        self.matches: dict[int, list[dict[str, Any]]] = defaultdict(list)
        if not self.rounds:
            return
        ids = list(self.rounds)
        for f in self.conn.execute(select(Fixture.__table__).where(Fixture.round_id.in_(ids))
                                   .order_by(Fixture.id)).mappings():
            self.fixtures[f["id"]] = dict(f)
        for m in self.conn.execute(
                select(Match.id, Match.pair_key, Match.state, Match.void_reason,
                       Match.enqueued_at, Match.attempt, Match.lease_until)
                .where(Match.round_id.in_(ids)).order_by(Match.id)
        ).mappings():
            key = m["pair_key"] or ""
            if key.startswith("fx"):
                self.matches[int(key[2:])].append(dict(m))

    # -- steps -------------------------------------------------------------------------------------

    def cancel(self) -> None:
        """Cancel planned fixtures with a bot gone; void held games of a bot gone."""
        for f in list(self.fixtures.values()):
            if f["kind"] not in (FIXTURE, MAKEUP, ORPHAN) or f["state"] not in (PLANNED,
                                                                                 DISPATCHED):
                continue
            gone = [b for b in f["bots"] if b not in self.eligible]
            if not gone:
                continue
            if f["state"] == PLANNED:
                self._update_fixture(f, state=CANCELLED, finished_at=self.now,
                                     reason=f"bot {gone[0]} no longer eligible")
                if f["kind"] != ORPHAN:
                    self._orphan(f, [b for b in f["bots"] if b not in gone], f["games"])
                continue
            held = [m for m in self.matches[f["id"]] if _held(m)]
            if held:
                ids = [m["id"] for m in held]
                self.conn.execute(update(Match).where(Match.id.in_(ids), Match.state == SCHEDULED)
                                  .values(state=VOIDED, finished_at=self.now,
                                          void_reason=f"{CANCEL_PREFIX} bot {gone[0]} "
                                                      "no longer eligible"))
                self.changes += 1
                for m in held:
                    m["state"], m["enqueued_at"] = VOIDED, None
                    m["void_reason"] = CANCEL_PREFIX

    def settle(self) -> None:
        """Fixtures whose matches are all over: done, placement counted, voids made up."""
        for f in list(self.fixtures.values()):
            if f["state"] != DISPATCHED:
                continue
            ms = self.matches[f["id"]]
            if len(ms) < f["games"] or any(m["state"] not in (FINISHED, VOIDED) for m in ms):
                continue
            self._update_fixture(f, state=DONE, finished_at=self.now)
            finished = sum(m["state"] == FINISHED for m in ms)
            if finished:
                self._count_placement(f["bots"], finished)
            voided = [m for m in ms if m["state"] == VOIDED]
            if not voided:
                continue
            seatings = self._seatings_of([m["id"] for m in voided])
            present = [b for b in f["bots"] if b in self.eligible]
            cancelled = any((m["void_reason"] or "").startswith(CANCEL_PREFIX) for m in voided)
            if self._generation(f) >= MAX_MAKEUPS:  # it keeps failing: rest its bots
                for bot in present:
                    self._add_fixture(f["round_id"], BYE, [bot], 0, reason="void",
                                      state=DONE, makeup_of=f["id"])
                    self._rest(bot, None)
            elif len(present) == len(f["bots"]) and not cancelled:
                bots = seatings[0]
                self._add_fixture(f["round_id"], MAKEUP, bots, len(voided),
                                  reason=f"make-up of fixture {f['id']}", makeup_of=f["id"])
            else:
                self._orphan(f, present, len(voided))

    def _generation(self, f: dict[str, Any]) -> int:
        """How many make-ups deep ``f`` is (0: the round's own fixture)."""
        depth = 0
        step: dict[str, Any] | None = f
        while step is not None and step["kind"] == MAKEUP:
            depth += 1
            step = self.fixtures.get(step["makeup_of"])
        return depth

    def _seatings_of(self, match_ids: list[int]) -> list[list[int]]:
        rows = self.conn.execute(select(MatchSeat.match_pk, MatchSeat.bot_id)
                                 .where(MatchSeat.match_pk.in_(match_ids))
                                 .order_by(MatchSeat.match_pk, MatchSeat.seat)).all()
        by_match: dict[int, list[int]] = defaultdict(list)
        for pk, bot in rows:
            by_match[pk].append(bot)
        return [by_match[pk] for pk in match_ids]

    def _count_placement(self, bots: Sequence[int], games: int) -> None:
        self.conn.execute(update(LadderEntry).where(
            LadderEntry.game == self.game, LadderEntry.bot_id.in_(list(bots)),
            LadderEntry.placement_remaining > 0).values(
            placement_remaining=func.max(LadderEntry.placement_remaining - games, 0)
            if self.conn.dialect.name == "sqlite" else
            func.greatest(LadderEntry.placement_remaining - games, 0)))

    def _orphan(self, f: dict[str, Any], bots: Sequence[int], games: int) -> None:
        for bot in bots:
            self._add_fixture(f["round_id"], ORPHAN, [bot], games,
                              reason=f"fixture {f['id']} was cancelled", makeup_of=f["id"])

    def seat_orphans(self) -> None:
        """Seat each round's orphans together; a bye for those who cannot be, once nothing
        else of their round waits to be dispatched (another orphan could come from it)."""
        by_round: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
        for f in self.fixtures.values():
            if f["kind"] == ORPHAN and f["state"] == PLANNED:
                by_round[(f["round_id"], f["games"])].append(f)
        for (round_id, games), orphans in sorted(by_round.items()):
            sizes = table_sizes(len(orphans), self.big)
            entrants = [self._entrant(o["bots"][0]) for o in orphans]
            plan = plan_round(entrants, self.big, {}, self.rng, p_far=0.0) if sizes else Plan(
                byes=[])
            seated = {b for t in plan.fixtures for b in t}
            for table in plan.fixtures:
                self._add_fixture(round_id, MAKEUP, list(table), games,
                                  reason="orphans of cancelled fixtures",
                                  makeup_of=next(o["makeup_of"] for o in orphans
                                                 if o["bots"][0] == table[0]))
            waiting = any(f["round_id"] == round_id and f["state"] == PLANNED
                          and f["kind"] in (FIXTURE, MAKEUP) for f in self.fixtures.values())
            for o in orphans:
                bot = o["bots"][0]
                if bot in seated:
                    self._update_fixture(o, state=DONE, finished_at=self.now,
                                         reason="seated in a make-up")
                elif not waiting:
                    self._orphan_rests(o)

    def _orphan_rests(self, o: dict[str, Any]) -> None:
        """An orphan no make-up seated rests in its round: a bye, not a rotation one (the
        rotation is untouched)."""
        self._update_fixture(o, state=DONE, kind=BYE, finished_at=self.now, reason="orphan")
        self._rest(o["bots"][0], None)

    # -- waiting fixtures (the tick hands the slots out over every ladder) -------------------

    def waiting(self) -> list[dict[str, Any]]:
        """Fixtures that want slots: planned ones, and dispatched ones with games held."""
        return [f for f in self.fixtures.values() if f["kind"] in (FIXTURE, MAKEUP) and (
            f["state"] == PLANNED
            or (f["state"] == DISPATCHED and any(_held(m) for m in self.matches[f["id"]])))]

    def since(self, f: dict[str, Any]) -> int:
        """Since when ``f`` has been owed, as a fixture id (ids grow with time, across
        ladders): a make-up's is that of the fixture it makes up, first of its chain."""
        while f["kind"] == MAKEUP and f["makeup_of"] in self.fixtures:
            f = self.fixtures[f["makeup_of"]]
        return int(f["id"])

    def lagging(self, f: dict[str, Any]) -> bool:
        """Whether ``f`` waits on a retry: a match of it lost an attempt, or it has not
        started and one of its bots sits in such a match (of any ladder or challenge).  Until
        the retry is over it is treated like a make-up: the next round does not wait for it."""
        if f["kind"] not in (FIXTURE, MAKEUP) or f["state"] not in (PLANNED, DISPATCHED):
            return False
        ms = self.matches[f["id"]]
        if any(_in_retry(m["state"], m["attempt"], m["lease_until"], self.now) for m in ms):
            return True
        unstarted = f["state"] == PLANNED or any(_held(m) for m in ms)
        return unstarted and any(b in self.slots.held for b in f["bots"])

    def release(self, f: dict[str, Any]) -> None:
        """Release ``f``'s held games while its bots and the ladders have room."""
        for m in self.matches[f["id"]]:
            if not _held(m):
                continue
            if not self.slots.room(f["bots"]):
                return
            self.conn.execute(update(Match).where(Match.id == m["id"]).values(
                enqueued_at=self.now))
            m["enqueued_at"] = self.now
            self.slots.reserve(f["bots"])
            self.result.enqueue.append(m["id"])
            self._update_fixture(f, made=f["made"] + 1)

    def create_matches(self, chosen: list[tuple[dict[str, Any], int]]) -> None:
        """All the matches of the chosen fixtures in one batch: the first ``released`` of
        each go to the workers, the rest are held."""
        from referee.games import find_game

        from ladder.work import DEFAULT_SETTINGS

        rules = find_game(self.game).rules_version
        settings = dict(self.config.settings or DEFAULT_SETTINGS)
        rows, seatings = [], []
        for f, released in chosen:
            bots = list(f["bots"])
            for i, seats in enumerate([bots, bots[::-1]][:f["games"]]):
                seatings.append((f, i < released, seats))
                rows.append({
                    "match_id": f"svc-{secrets.token_hex(12)}", "game": self.game,
                    "rules_version": rules, "num_seats": len(seats), "recorded_at": self.now,
                    "state": SCHEDULED, "rated": True, "seed": f["seed"],
                    "settings": settings, "attempt": 0,
                    "enqueued_at": self.now if i < released else HELD,
                    "challenge_id": None, "round_id": f["round_id"],
                    "pair_key": f"fx{f['id']}"})
        ids = list(self.conn.execute(
            insert(Match).returning(Match.id, sort_by_parameter_order=True), rows).scalars())
        self.conn.execute(insert(MatchSeat), [
            {"match_pk": pk, "seat": seat, "bot_id": bot,
             "bot_version": self.eligible[bot].version}
            for pk, (_, _, seats) in zip(ids, seatings) for seat, bot in enumerate(seats)])
        self.result.created += len(ids)
        for pk, (f, released, _) in zip(ids, seatings):
            self.matches[f["id"]].append({"id": pk, "pair_key": f"fx{f['id']}",
                                          "state": SCHEDULED, "void_reason": None,
                                          "attempt": 0, "lease_until": None,
                                          "enqueued_at": self.now if released else HELD})
            if released:
                self.result.enqueue.append(pk)
        for f, released in chosen:
            self._update_fixture(f, state=DISPATCHED, dispatched_at=self.now, made=released)

    def may_open(self) -> bool:
        """Round r+1 opens once every fixture of round r has started, with at most
        ``max_open_rounds`` rounds open; a fixture waiting on a retry holds neither back (a
        round left with only such fixtures does not count as open)."""
        if sum(not self._behind(r) for r in self.rounds) >= self.config.max_open_rounds:
            return False
        if not self.rounds:
            return True
        latest = max(self.rounds.values(), key=lambda r: r.number)
        return not any(f["round_id"] == latest.id and f["state"] == PLANNED
                       and f["kind"] in (FIXTURE, MAKEUP) and not self.lagging(f)
                       for f in self.fixtures.values())

    def _behind(self, round_id: int) -> bool:
        """Whether everything of the round not over waits on a retry."""
        return all(self.lagging(f) for f in self.fixtures.values()
                   if f["round_id"] == round_id and f["state"] in (PLANNED, DISPATCHED))

    def open_round(self) -> bool:
        """Plan and store the next round; False when too few bots are eligible.  Orphans
        still waiting for a partner rest first, in their own round, and play this one: one
        left pending would sit it out (its bot has a fixture waiting), a round lost through
        no doing of its own, that the evenness bound does not allow."""
        for o in list(self.fixtures.values()):
            if o["kind"] == ORPHAN and o["state"] == PLANNED:
                self._orphan_rests(o)
        capped = self._daily_counts()
        pending = {b for f in self.fixtures.values() if f["state"] == PLANNED for b in f["bots"]}
        bots = [b for b in self.eligible.values() if b.bot_id not in pending
                and capped[b.bot_id] + self.k <= self.config.daily_cap]
        if not table_sizes(len(bots), self.big):
            return False
        number = _latest_round(self.conn, self.game) + 1
        entrants = [self._entrant(b.bot_id) for b in bots]
        plan = plan_round(entrants, self.big, self._meetings(), self.rng,
                          p_far=self.config.p_far)
        if not plan.fixtures:  # nobody can play anybody (one owner's bots only)
            return False
        round_id = self.conn.execute(insert(Round).values(
            game=self.game, number=number, opened_at=self.now, closed_at=None,
            eligible=sorted(b.bot_id for b in bots)).returning(Round.id)).scalar_one()
        self.rounds[round_id] = _RoundRow(round_id, number)
        self.result.opened.append(round_id)
        rows = [self._fixture_row(round_id, FIXTURE, list(t), self.k) for t in plan.fixtures]
        rows += [self._fixture_row(round_id, BYE, [b.bot_id], 0, reason=b.reason, state=DONE)
                 for b in plan.byes]
        created = self.conn.execute(insert(Fixture).returning(Fixture.__table__),
                                    rows).mappings().all()
        for f in created:
            self.fixtures[f["id"]] = dict(f)
        self.changes += 1
        self._record_seats(plan, number)
        return True

    def close(self) -> None:
        for round_id in list(self.rounds):
            mine = [f for f in self.fixtures.values() if f["round_id"] == round_id]
            if all(f["state"] in (DONE, CANCELLED) for f in mine):
                self.conn.execute(update(Round).where(Round.id == round_id)
                                  .values(closed_at=self.now))
                self.result.closed.append(round_id)
                del self.rounds[round_id]
                self.changes += 1

    # -- helpers -----------------------------------------------------------------------------------

    def _entrant(self, bot_id: int) -> Entrant:
        b = self.eligible[bot_id]
        done = max(0, self.config.placement_games - b.placement)
        return Entrant(bot_id, b.rating, b.owner, b.last_rest if b.last_rest is not None else -1,
                       b.games, b.placement > 0, done // self.k, tuple(b.seats))

    def _daily_counts(self) -> Counter[int]:
        """Rated matches per bot in this game over the last 24 hours, with those planned."""
        since = self.now - timedelta(days=1)
        counts: Counter[int] = Counter(dict(self.conn.execute(
            select(MatchSeat.bot_id, func.count()).join(Match, Match.id == MatchSeat.match_pk)
            .where(Match.game == self.game, Match.rated.is_(True), Match.state != VOIDED,
                   Match.recorded_at >= since).group_by(MatchSeat.bot_id)).all()))
        for f in self.fixtures.values():
            if f["state"] == PLANNED and f["kind"] in (FIXTURE, MAKEUP):
                for b in f["bots"]:
                    counts[b] += f["games"]
        return counts

    def _meetings(self) -> dict[tuple[int, int], int]:
        last = _latest_round(self.conn, self.game)
        recent = select(Round.id).where(Round.game == self.game,
                                        Round.number > last - self.config.recent_rounds)
        met: Counter[tuple[int, int]] = Counter()
        for (bots,) in self.conn.execute(select(Fixture.bots).where(
                Fixture.round_id.in_(recent), Fixture.kind.in_((FIXTURE, MAKEUP)))):
            for i, a in enumerate(bots):
                for b in bots[i + 1:]:
                    met[pair_key(a, b)] += 1
        return dict(met)

    def _record_seats(self, plan: Plan, number: int) -> None:
        """Byes rest the bot; each fixture adds to its bots' seat counts."""
        rows = []
        if self.k == 1:  # a pair plays both seats: nothing to balance
            for table in plan.fixtures:
                for seat, bot in enumerate(table):
                    counts = list(self.eligible[bot].seats)
                    counts[seat] += 1
                    self.eligible[bot].seats = counts
                    rows.append((json.dumps(counts), bot, self.game))
        if rows:
            DriverStatement(self.conn, _SET_SEATS, _SET_SEATS_FIELDS).executemany(rows)
        for bye in plan.byes:
            self._rest(bye.bot_id, number)

    def _rest(self, bot: int, number: int | None) -> None:
        """Count a bye; ``number``: a rotation bye in that round (moves the bot back in
        the rotation)."""
        values: dict[str, Any] = {"byes": LadderEntry.byes + 1}
        if number is not None:
            values["last_rest"] = number
            if bot in self.eligible:
                self.eligible[bot].last_rest = number
        self.conn.execute(update(LadderEntry).where(
            LadderEntry.bot_id == bot, LadderEntry.game == self.game).values(**values))

    def _fixture_row(self, round_id: int, kind: str, bots: list[int], games: int, *,
                     reason: str | None = None, state: str = PLANNED,
                     makeup_of: int | None = None) -> dict[str, Any]:
        return {"round_id": round_id, "game": self.game, "kind": kind, "reason": reason,
                "bots": bots, "state": state, "games": games, "made": 0,
                "seed": secrets.randbits(63) if kind in (FIXTURE, MAKEUP) else None,
                "makeup_of": makeup_of, "created_at": self.now,
                "dispatched_at": None, "finished_at": self.now if state == DONE else None}

    def _add_fixture(self, round_id: int, kind: str, bots: list[int], games: int,
                     **kw: Any) -> None:
        row = self.conn.execute(insert(Fixture).returning(Fixture.__table__),
                                [self._fixture_row(round_id, kind, bots, games, **kw)]
                                ).mappings().one()
        self.fixtures[row["id"]] = dict(row)
        self.changes += 1

    def _update_fixture(self, f: dict[str, Any], **values: Any) -> None:
        self.changes += 1
        self.conn.execute(update(Fixture).where(Fixture.id == f["id"]).values(**values))
        f.update(values)


@dataclass(frozen=True)
class _RoundRow:
    id: int
    number: int


def _held(m: Mapping[str, Any]) -> bool:
    at = utc(m["enqueued_at"])
    return m["state"] == SCHEDULED and at is not None and at >= HELD


def _in_retry(state: str, attempt: int | None, lease_until: datetime | None,
              now: datetime) -> bool:
    """Whether a match not over has lost an attempt: a later one is playing or due, or the
    lease of the current one ran out (its worker died or froze; the sweeper hands it on)."""
    if state not in (SCHEDULED, RUNNING) or not attempt:
        return False
    until = utc(lease_until)
    lapsed = state == RUNNING and until is not None and until < now
    return attempt >= 2 or state == SCHEDULED or lapsed


def runnable(engine: Engine, ids: Sequence[int]) -> list[int]:
    """Those of ``ids`` that are not held back by the matchmaker (a restarted embedded pool
    re-queues only these)."""
    if not ids:
        return []
    with translate_errors(engine), reader(engine) as conn:
        held = set(conn.execute(select(Match.id).where(
            Match.id.in_(list(ids)), Match.state == SCHEDULED, Match.enqueued_at >= HELD)
        ).scalars())
    return [i for i in ids if i not in held]


# -- reading (the rounds endpoints) -----------------------------------------------------------

def list_rounds(engine: Engine, game: str | None = None, page: int = 1,
                per_page: int = 20) -> tuple[list[dict[str, Any]], int]:
    """A page of rounds, newest first, each with its progress; and the total."""
    where = [Round.game == game] if game is not None else []
    with translate_errors(engine), reader(engine) as conn:
        total = conn.execute(select(func.count()).select_from(Round).where(*where)).scalar_one()
        rows = conn.execute(select(Round.__table__).where(*where)
                            .order_by(Round.opened_at.desc(), Round.id.desc())
                            .offset((page - 1) * per_page).limit(per_page)).all()
        counts: dict[int, Counter[str]] = defaultdict(Counter)
        if rows:
            for round_id, kind, state, n in conn.execute(
                    select(Fixture.round_id, Fixture.kind, Fixture.state, func.count())
                    .where(Fixture.round_id.in_([r.id for r in rows]))
                    .group_by(Fixture.round_id, Fixture.kind, Fixture.state)):
                counts[round_id][f"{kind}:{state}"] += n
    return [_round_dict(r, counts[r.id]) for r in rows], int(total)


def _round_dict(r: Any, counts: Counter[str]) -> dict[str, Any]:
    def count(kinds: tuple[str, ...], states: tuple[str, ...]) -> int:
        return sum(counts[f"{k}:{s}"] for k in kinds for s in states)

    played = (FIXTURE, MAKEUP)
    return {"id": r.id, "game": r.game, "number": r.number, "opened_at": utc(r.opened_at),
            "closed_at": utc(r.closed_at), "eligible": len(r.eligible or []),
            "progress": {"fixtures": count(played, (PLANNED, DISPATCHED, DONE, CANCELLED)),
                         "planned": count(played, (PLANNED,)),
                         "dispatched": count(played, (DISPATCHED,)),
                         "done": count(played, (DONE,)),
                         "cancelled": count(played, (CANCELLED,)),
                         "byes": count((BYE,), (DONE,))}}


def round_detail(engine: Engine, round_id: int) -> dict[str, Any]:
    """A round: its eligible bots, fixtures (with their matches) and byes."""
    with translate_errors(engine), reader(engine) as conn:
        r = conn.execute(select(Round.__table__).where(Round.id == round_id)).one_or_none()
        if r is None:
            raise NotFoundError(f"no round {round_id}")
        fixtures = conn.execute(select(Fixture.__table__).where(Fixture.round_id == round_id)
                                .order_by(Fixture.id)).all()
        matches: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for m in conn.execute(select(Match.id, Match.pair_key, Match.state)
                              .where(Match.round_id == round_id).order_by(Match.id)):
            matches[m.pair_key or ""].append({"id": m.id, "state": m.state})
        ids = set(r.eligible or []) | {b for f in fixtures for b in f.bots}
        names = dict(conn.execute(select(Bot.id, Bot.name).where(Bot.id.in_(list(ids)))).all())
        counts: Counter[str] = Counter(f"{f.kind}:{f.state}" for f in fixtures)
    def bot(b: int) -> dict[str, Any]:
        return {"id": b, "name": names.get(b)}

    doc = _round_dict(r, counts)
    doc["eligible_bots"] = [bot(b) for b in r.eligible or []]
    doc["fixtures"] = [
        {"id": f.id, "kind": f.kind, "state": f.state, "reason": f.reason,
         "bots": [bot(b) for b in f.bots], "games": f.games, "released": f.made,
         "makeup_of": f.makeup_of, "matches": matches.get(f"fx{f.id}", [])}
        for f in fixtures if f.kind in (FIXTURE, MAKEUP)]
    doc["byes"] = [{"bot": bot(f.bots[0]), "reason": f.reason or ROTATION}
                   for f in fixtures if f.kind == BYE]
    return doc


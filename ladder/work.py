"""Matches as work: scheduling, and the exactly-once state machine workers drive.

The database owns the work.  A match row goes ``scheduled → running → finished | voided``:

* :func:`claim` is a compare-and-swap that moves a ``scheduled`` row (or a ``running`` one
  whose lease expired) to ``running``, adds one to ``attempt`` and takes a lease; a duplicate
  delivery of the same task, or a second worker, gets ``None``;
* the match is played with no transaction open, the lease renewed by :func:`renew`;
* :func:`finish` commits the result, the log and the rating step in one transaction, and only
  if the row is still ``running`` under the same attempt (a newer attempt, or the sweeper,
  took it over otherwise: the result is dropped, never counted twice);
* :func:`sweep` finds expired leases and lost enqueues to re-enqueue, and voids matches that
  used :data:`MAX_ATTEMPTS` attempts or outlived the age cap;
* :func:`fail_attempt` books an attempt the referee itself failed (never a bot: a bot's
  faults are strikes in the log) as an :class:`~ladder.models.Incident` and gives the match
  its next attempt at once, or voids it after its last.

Bots see a per-attempt match id (``m12.2``) so that a bot keeping state per match is not
confused when a match is played again.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import random
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, and_, bindparam, func, insert, or_, select, update

from ladder import ForbiddenError, InvalidError, NotFoundError, metrics
from ladder.accounts import now_utc, utc
from ladder.db import lock_ladder, reader, translate_errors
from ladder.fold import apply_rating
from ladder.logfacts import seat_score
from ladder.models import (
    ACTIVE, CODE_LEN, FINISHED, NAME_LEN, REASON_LEN, RETIRED, RUNNING, SCHEDULED, VOIDED, Bot,
    Challenge, Incident, LadderEntry, Match, MatchLog, MatchSeat, SoloEntry,
)
from ladder.newmatches import STANDARD, MatchSettings, NewMatch, insert_matches
from ladder.ratings import standings
from referee.protocol import encode

MAX_ATTEMPTS = 3
REFEREE_FAILURE = (f"the referee failed on {MAX_ATTEMPTS} attempts (no bot's fault; the "
                   "operator was told)")
"""The public void reason: what failed is the incident's, for the operator only (an error's
text may name a database or a path)."""
MAX_INCIDENT_DETAIL = 8000
"""Characters of a traceback an incident keeps (its end: where it was raised)."""
MAX_CHALLENGE_GAMES = 10
SUMMARY_FAULTS = 200
"""Faults a match's summary lists (the match page's; the log keeps them all)."""


@dataclass(frozen=True)
class SeatPlan:
    """Who sits in a seat: the bot's id, name, what it is (URL or built-in spec), version."""

    seat: int
    bot_id: int
    name: str
    url: str | None
    spec: str
    version: int


@dataclass(frozen=True)
class Claim:
    """A worker's hold on one attempt of a match: everything needed to play it."""

    match_pk: int
    attempt: int
    game: str
    seed: int
    seats: tuple[SeatPlan, ...]
    settings: MatchSettings
    rated: bool
    worker: str
    lease_until: datetime = field(compare=False)
    round_id: int | None = None
    """The ladder round the match was scheduled in (``None``: a challenge, a bench's)."""

    @property
    def attempt_id(self) -> str:
        """The id bots are told: one per attempt."""
        return f"m{self.match_pk}.{self.attempt}"


# -- scheduling -------------------------------------------------------------------------------

def new_seed() -> int:
    return secrets.randbits(63)


def schedule(engine: Engine, game: str, seatings: Sequence[tuple[Sequence[int], int, str | None]],
             *, rated: bool, challenge_id: int | None = None, round_id: int | None = None,
             settings: MatchSettings | None = None) -> list[int]:
    """Create ``scheduled`` matches, one per ``(bot ids in seat order, seed, pair_key)``, in one
    transaction; their ids.  Enqueue them after this returns (the sweeper re-enqueues any
    whose enqueue was lost)."""
    with translate_errors(engine), engine.begin() as conn:
        return _schedule(conn, game, seatings, rated=rated, challenge_id=challenge_id,
                         round_id=round_id, settings=settings)


def _schedule(conn: Connection, game: str,
              seatings: Sequence[tuple[Sequence[int], int, str | None]], *, rated: bool,
              challenge_id: int | None, round_id: int | None,
              settings: MatchSettings | None) -> list[int]:
    new = [NewMatch(bots, seed, pair_key, round_id) for bots, seed, pair_key in seatings]
    return insert_matches(conn, game, new, now_utc(), rated=rated,
                          settings=settings or STANDARD, challenge_id=challenge_id)


def rotations(bot_ids: Sequence[int], games: int, tag: str,
              rng: random.Random | None = None) -> list[tuple[list[int], int, str]]:
    """Seatings for ``games`` matches between ``bot_ids``: blocks of one seed played once per
    cyclic seat rotation (both orders for two bots, as in tournaments); a block shares a
    ``pair_key`` so no log of it is public until all of its games are over."""
    n = len(bot_ids)
    draw = rng or random.SystemRandom()
    out = []
    for block in range(games // n):
        seed = draw.getrandbits(63)
        for shift in range(n):
            out.append((list(bot_ids[shift:]) + list(bot_ids[:shift]), seed, f"{tag}.{block}"))
    return out


def create_challenge(engine: Engine, owner_id: int, game: str, bot_ids: Sequence[int],
                     games: int, settings: MatchSettings | None = None
                     ) -> tuple[int, list[int]]:
    """An unrated challenge between ``bot_ids`` (one of them the owner's): its id and its
    matches' ids.  InvalidError names what is wrong with the request."""
    from referee.games import find_game

    seats_allowed = find_game(game).player_counts
    if len(set(bot_ids)) != len(bot_ids):
        raise InvalidError("a bot may sit in only one seat of a challenge")
    if len(bot_ids) not in seats_allowed:
        raise InvalidError(f"{game} is played by {', '.join(map(str, seats_allowed))} bots, "
                           f"not {len(bot_ids)}")
    if games % len(bot_ids) or not 1 <= games <= MAX_CHALLENGE_GAMES:
        raise InvalidError(f"games must be a multiple of {len(bot_ids)} (each seed is played "
                           f"once per seat rotation) and at most {MAX_CHALLENGE_GAMES}")
    with translate_errors(engine), engine.begin() as conn:
        rows = {r.id: r for r in conn.execute(
            select(Bot.id, Bot.name, Bot.status, Bot.games, Bot.owner_id, Bot.house)
            .where(Bot.id.in_(list(bot_ids)))).all()}
        for bot_id in bot_ids:
            row = rows.get(bot_id)
            if row is None or (row.owner_id is None and not row.house):
                raise NotFoundError(f"no bot {bot_id}")
            if row.status != ACTIVE:
                raise InvalidError(f"bot {bot_id} ({row.name}) is {row.status}, not active")
            if game not in (row.games or []):
                raise InvalidError(f"bot {bot_id} ({row.name}) does not play {game}")
        if not any(rows[b].owner_id == owner_id for b in bot_ids):
            raise ForbiddenError("a challenge must include one of your own bots")
        challenge_id = conn.execute(insert(Challenge).values(
            owner_id=owner_id, game=game, bot_ids=list(bot_ids), games=games,
            created_at=now_utc()).returning(Challenge.id)).scalar_one()
        ids = _schedule(conn, game, rotations(bot_ids, games, f"c{challenge_id}"), rated=False,
                        challenge_id=challenge_id, round_id=None, settings=settings)
    return challenge_id, ids


# -- the state machine ------------------------------------------------------------------------

def claim(engine: Engine, match_pk: int, worker: str, lease_s: float,
          now: datetime | None = None) -> Claim | None:
    """Take the next attempt of ``match_pk`` (compare-and-swap); None when there is nothing to
    do: already finished or voided, held by a live lease, held back by the matchmaker (not
    released yet), or just voided here because its attempts are used up or one of its bots
    was retired."""
    now = now or now_utc()  # a test may pass the time
    until = now + timedelta(seconds=lease_s)
    claimable = or_(and_(Match.state == SCHEDULED, Match.held.is_(False)),
                    and_(Match.state == RUNNING, Match.lease_until < now))
    with translate_errors(engine), engine.begin() as conn:
        row = conn.execute(
            update(Match).where(Match.id == match_pk, claimable, Match.attempt < MAX_ATTEMPTS)
            .values(state=RUNNING, attempt=Match.attempt + 1, lease_owner=worker,
                    lease_until=until, started_at=func.coalesce(Match.started_at, now))
            .returning(Match.attempt, Match.game, Match.seed, Match.settings, Match.rated,
                       Match.round_id)
        ).one_or_none()
        if row is None:
            spent = conn.execute(update(Match).where(
                Match.id == match_pk, claimable, Match.attempt >= MAX_ATTEMPTS).values(
                state=VOIDED, finished_at=now, lease_owner=None, lease_until=None,
                void_reason=f"no result after {MAX_ATTEMPTS} attempts").returning(Match.game)
            ).scalar_one_or_none()
            if spent is not None:
                metrics.voided(spent, [match_pk], f"no result after {MAX_ATTEMPTS} attempts")
            return None
        seats = conn.execute(
            select(MatchSeat.seat, MatchSeat.bot_id, MatchSeat.bot_version, Bot.name, Bot.url,
                   Bot.spec, Bot.status, Bot.owner_id)
            .join(Bot, Bot.id == MatchSeat.bot_id).where(MatchSeat.match_pk == match_pk)
            .order_by(MatchSeat.seat)).all()
        retired = [s.name for s in seats if s.status == RETIRED]
        if retired:
            reason = f"bot retired before the match: {', '.join(retired)}"
            conn.execute(update(Match).where(Match.id == match_pk).values(
                state=VOIDED, finished_at=now, lease_owner=None, lease_until=None,
                void_reason=reason))
            metrics.voided(row.game, [match_pk], reason, bots=metrics.seat_bots(seats))
            return None
    plans = tuple(SeatPlan(s.seat, s.bot_id, s.name, s.url, s.spec or s.name, s.bot_version)
                  for s in seats)
    metrics.changed(RUNNING, row.game, [match_pk], attempt=row.attempt, worker=worker,
                    bots=metrics.seat_bots(seats), owners=[s.owner_id for s in seats])
    return Claim(match_pk, row.attempt, row.game, int(row.seed), plans,
                 MatchSettings.from_json(row.settings), bool(row.rated), worker, until,
                 row.round_id)


def renew(engine: Engine, held: Claim, lease_s: float) -> bool:
    """Extend the lease while this attempt still owns the row; False once it does not."""
    now = now_utc()
    with translate_errors(engine), engine.begin() as conn:
        done = conn.execute(update(Match).where(
            Match.id == held.match_pk, Match.state == RUNNING, Match.attempt == held.attempt,
        ).values(lease_until=now + timedelta(seconds=lease_s)))
        return bool(done.rowcount)


def finish(engine: Engine, held: Claim, log: Mapping[str, Any]) -> bool:
    """Commit this attempt's result, log and rating step in one transaction, only if the
    attempt still owns the row; False (nothing written) if a newer attempt or the sweeper
    took it over.  Everything written is built before the transaction opens (the ladder's
    lock is held for the statements alone), and the log is encoded and compressed once."""
    now = now_utc()
    result = log["result"]
    forfeited = {int(i) for i in log.get("forfeited", [])}
    ranks = {int(s["seat"]): int(s["rank"]) for s in result["seats"]}
    n = len(held.seats)
    places = standings([ranks[i] for i in range(n)], [i in forfeited for i in range(n)])
    seats = [{"s_seat": plan.seat, "rank": ranks[plan.seat], "standing": places[plan.seat],
              "score": seat_score(result["seats"][plan.seat].get("score")),
              "forfeited": plan.seat in forfeited, **seat_stats(log, plan.seat)}
             for plan in held.seats]
    stored = stored_log(log)
    with translate_errors(engine), engine.begin() as conn:
        if held.rated:
            lock_ladder(conn, held.game)
        won = conn.execute(update(Match).where(
            Match.id == held.match_pk, Match.state == RUNNING, Match.attempt == held.attempt,
        ).values(state=FINISHED, finished_at=now, lease_owner=None, lease_until=None,
                 end_reason=str(result["end"])[:CODE_LEN], rounds=int(result["rounds"]),
                 result=summary(log))).rowcount
        if not won:
            return False
        conn.execute(update(MatchSeat).where(
            MatchSeat.match_pk == held.match_pk, MatchSeat.seat == bindparam("s_seat")),
            seats)
        conn.execute(insert(MatchLog).values(match_pk=held.match_pk, **stored))
        if held.rated:
            apply_rating(conn, held.game, held.match_pk, now,
                         [(p.bot_id, places[p.seat], p.seat in forfeited) for p in held.seats])
    metrics.finished(held.game, held.match_pk, log, attempt=held.attempt,
                     bots=metrics.seat_bots(held.seats))
    return True


LOG_GZIP_LEVEL = 6
"""zlib's own default: a third of level 9's CPU (gzip's default) for a log about 7% larger."""


def stored_log(log: Mapping[str, Any]) -> dict[str, Any]:
    """A ``match_logs`` row's values: the public log as compact JSON, compressed once, with
    its digest and size, and each seat's own lines (:func:`split_log`)."""
    public, seat_logs = split_log(log)
    # Keys keep their order: a board's mappings are ordered data (Tokaido Duo's wares and
    # painting sets), and a log whose keys were sorted no longer replays.
    raw = encode(public)
    return {"gz": gzip.compress(raw, compresslevel=LOG_GZIP_LEVEL, mtime=0),
            "sha256": hashlib.sha256(raw).hexdigest(), "size": len(raw),
            "seat_logs": seat_logs}


def void(engine: Engine, match_pk: int, reason: str, attempt: int | None = None) -> bool:
    """Void a match that is not over (and, given ``attempt``, only that attempt of it)."""
    cond = [Match.id == match_pk, Match.state.in_((SCHEDULED, RUNNING))]
    if attempt is not None:
        cond.append(Match.attempt == attempt)
    with translate_errors(engine), engine.begin() as conn:
        game = conn.execute(update(Match).where(*cond).values(
            state=VOIDED, held=False, finished_at=now_utc(), lease_owner=None,
            lease_until=None, void_reason=reason[:REASON_LEN]).returning(Match.game)
        ).scalar_one_or_none()
    if game is not None:
        metrics.voided(game, [match_pk], reason)
    return game is not None


def fail_attempt(engine: Engine, held: Claim, error: str, detail: str = "",
                 now: datetime | None = None) -> str:
    """Book this attempt as the referee's failure: an incident, then the match's next attempt
    (``retried``: it is ``scheduled`` again, to enqueue now) or, after its last, ``voided``.
    ``superseded`` when this attempt no longer owns the row (nothing changes but the incident).
    """
    now = now or now_utc()
    last = held.attempt >= MAX_ATTEMPTS
    with translate_errors(engine), engine.begin() as conn:
        owned = (Match.id == held.match_pk, Match.state == RUNNING,
                 Match.attempt == held.attempt)
        if last:
            changed = conn.execute(update(Match).where(*owned).values(
                state=VOIDED, finished_at=now, lease_owner=None, lease_until=None,
                void_reason=REFEREE_FAILURE)).rowcount
        else:
            changed = conn.execute(update(Match).where(*owned).values(
                state=SCHEDULED, lease_owner=None, lease_until=None, enqueued_at=now)).rowcount
        outcome = "superseded" if not changed else "voided" if last else "retried"
        conn.execute(insert(Incident).values(
            at=now, match_pk=held.match_pk, attempt=held.attempt, outcome=outcome,
            error=error[:REASON_LEN], detail=detail[-MAX_INCIDENT_DETAIL:],
            worker=held.worker[:NAME_LEN]))
    metrics.attempt_failed(held.game, held.match_pk, outcome, attempt=held.attempt,
                           worker=held.worker, error=error[:REASON_LEN])
    return outcome


def incidents(engine: Engine, page: int = 1, per_page: int = 50
              ) -> tuple[list[dict[str, Any]], int]:
    """The referee's failures, newest first, with their tracebacks (for admins)."""
    with translate_errors(engine), reader(engine) as conn:
        total = conn.execute(select(func.count()).select_from(Incident)).scalar_one()
        rows = conn.execute(select(Incident.__table__).order_by(Incident.id.desc())
                            .limit(per_page).offset((page - 1) * per_page)).all()
    return [{"id": r.id, "at": utc(r.at), "match_id": r.match_pk, "attempt": r.attempt,
             "outcome": r.outcome, "error": r.error, "detail": r.detail, "worker": r.worker,
             "bot_id": r.bot_id}
            for r in rows], int(total)


@dataclass(frozen=True)
class SweepPolicy:
    requeue_after_s: float = 120.0
    """A scheduled match not claimed this long after its enqueue is enqueued again."""
    max_age_s: float = 3600.0
    """A match not over this long after it was created is voided."""


def sweep(engine: Engine, policy: SweepPolicy = SweepPolicy(),
          now: datetime | None = None) -> list[int]:
    """Void what cannot finish any more; the ids to enqueue again (expired leases with
    attempts left, and lost enqueues), marked as enqueued now (``now``: a test's clock).
    A match the matchmaker holds back (:attr:`~ladder.models.Match.held`) is never enqueued
    here: it waits for its bots to have room, however long; only the age cap voids it."""
    now = now or now_utc()
    stale = now - timedelta(seconds=policy.requeue_after_s)
    aged, spent = "not over within the age cap", f"no result after {MAX_ATTEMPTS} attempts"
    with translate_errors(engine), engine.begin() as conn:
        gone = [(aged, r) for r in conn.execute(update(Match).where(
            Match.state.in_((SCHEDULED, RUNNING)),
            Match.recorded_at < now - timedelta(seconds=policy.max_age_s),
        ).values(state=VOIDED, held=False, finished_at=now, lease_owner=None,
                 lease_until=None, void_reason=aged).returning(Match.id, Match.game))]
        gone += [(spent, r) for r in conn.execute(update(Match).where(
            Match.state == RUNNING, Match.lease_until < now, Match.attempt >= MAX_ATTEMPTS,
        ).values(state=VOIDED, finished_at=now, lease_owner=None, lease_until=None,
                 void_reason=spent).returning(Match.id, Match.game))]
        rows = conn.execute(select(Match.id, Match.state, Match.game).where(or_(
            and_(Match.state == RUNNING, Match.lease_until < now,
                 or_(Match.enqueued_at.is_(None), Match.enqueued_at < Match.lease_until)),
            and_(Match.state == SCHEDULED, Match.held.is_(False),
                 or_(Match.enqueued_at.is_(None), Match.enqueued_at < stale)),
        )).order_by(Match.id)).all()
        due = [r.id for r in rows]
        if due:
            conn.execute(update(Match).where(Match.id.in_(due)).values(enqueued_at=now))
    for reason, v in gone:
        metrics.voided(v.game, [v.id], reason)
    for r in rows:
        if r.state == RUNNING:
            metrics.lease_expired(r.game, [r.id])
    return due


def queue_stats(engine: Engine) -> dict[str, Any]:
    """Matches waiting and running, the age of the oldest waiting one, and the referee's own
    failures in the last hour (for /healthz)."""
    now = now_utc()
    with translate_errors(engine), reader(engine) as conn:
        counts = dict(conn.execute(select(Match.state, func.count()).where(
            Match.state.in_((SCHEDULED, RUNNING))).group_by(Match.state)).all())
        oldest = conn.execute(select(func.min(Match.recorded_at))
                              .where(Match.state == SCHEDULED)).scalar_one()
        failures = conn.execute(select(func.count()).select_from(Incident).where(
            Incident.at >= now - timedelta(seconds=3600))).scalar_one()
    since = utc(oldest)
    age = (now - since).total_seconds() if since is not None else None
    return {"scheduled": counts.get(SCHEDULED, 0), "running": counts.get(RUNNING, 0),
            "oldest_scheduled_s": None if age is None else round(max(0.0, age), 3),
            "incidents_1h": int(failures)}


def may_reschedule(engine: Engine, held: Claim) -> bool:
    """Whether the end of ``held``'s match may let the matchmakers do something: a ladder
    round's match (its fixture settles, its place in the depth frees), or one with a bot on
    a ladder or a solo ladder (its slot frees for a fixture or a waiting solo game of that
    bot; a solo round closes with its last game).  Any other match (a challenge between
    bots on no ladder) frees nothing the matchmakers hand out."""
    if held.round_id is not None:
        return True
    bots = [p.bot_id for p in held.seats]
    on_ladder = select(LadderEntry.bot_id).where(LadderEntry.bot_id.in_(bots))
    on_solo_ladder = select(SoloEntry.bot_id).where(SoloEntry.bot_id.in_(bots))
    with translate_errors(engine), reader(engine) as conn:
        return conn.execute(on_ladder.union_all(on_solo_ladder).limit(1)).first() is not None


def pending_ids(engine: Engine) -> list[int]:
    """Every match not over and not held back by the matchmaker (the embedded pool's queue
    after a restart)."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(select(Match.id).where(
            Match.state.in_((SCHEDULED, RUNNING)), Match.held.is_(False)).order_by(Match.id)
        ).scalars())


# -- what a finished log leaves behind --------------------------------------------------------

OWNER_ONLY = ("log", "stderr")
"""A decision's fields that are its bot's own words, for the bot's owner only: the ``log`` text
the bot sent with its answer, the ``stderr`` lines of a bot the referee started. Every public
copy of a log (the log and frames endpoints, the match pages, the export) goes through
:func:`split_log`, which keeps these out."""


def split_log(log: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """The public log (bots' own words removed: :data:`OWNER_ONLY`) and each seat's lines for
    its owner: ``{step, kind, ms, log}`` (``log`` empty when the bot sent none), with
    ``stderr`` when there were lines."""
    public = dict(log)
    decisions: list[dict[str, Any]] = []
    seat_logs: dict[str, list[dict[str, Any]]] = {}
    for d in log.get("decisions", []):
        if any(d.get(k) for k in OWNER_ONLY):
            line = {"step": d["step"], "kind": d["kind"], "ms": d["ms"], "log": d.get("log") or ""}
            if d.get("stderr"):
                line["stderr"] = list(d["stderr"])
            seat_logs.setdefault(str(d["seat"]), []).append(line)
        if any(k in d for k in OWNER_ONLY):
            d = {k: v for k, v in d.items() if k not in OWNER_ONLY}
        decisions.append(d)
    public["decisions"] = decisions
    return public, seat_logs


def seat_stats(log: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """Strikes by reason and decision latency (mean, p95) of one seat."""
    times = sorted(d["ms"] for d in log.get("decisions", [])
                   if d["seat"] == seat and d.get("status") != "forfeited")
    reasons = Counter(f["reason"] for f in log.get("faults", [])
                      if f["seat"] == seat and f.get("kind") != "end")
    player = log["players"][seat]
    p95 = times[max(0, math.ceil(0.95 * len(times)) - 1)] if times else None
    return {"strikes": int(player.get("strikes", 0)), "strike_reasons": dict(reasons),
            "mean_ms": round(sum(times) / len(times), 3) if times else None,
            "p95_ms": p95}


def summary(log: Mapping[str, Any]) -> dict[str, Any]:
    """What the match page shows of a finished match (the log's result and faults)."""
    result = log["result"]
    return {"winners": result.get("winners", []), "reason": result.get("reason", ""),
            "seats": [{"seat": s["seat"], "score": s.get("score"), "rank": s["rank"],
                       "breakdown": s.get("breakdown", {})} for s in result["seats"]],
            "faults": list(log.get("faults", []))[:SUMMARY_FAULTS], "rounds": result.get("rounds")}


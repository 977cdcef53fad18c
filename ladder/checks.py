"""Bot checks as work: asked for by the bot's owner, run by a worker, polled until over.

A check plays a whole match against a built-in bot, so it never runs inside a request.  Its
row goes ``queued → running → done | failed``:

* :func:`request` queues one for a bot, unless one is queued or running already: a bot has at
  most one pending check, and asking again gets that one back; an owner has at most
  :data:`MAX_PENDING_PER_OWNER` (each takes a worker for up to a match: the workers are the
  ladders' too);
* :func:`claim` moves a ``queued`` row to ``running`` under a lease (compare-and-swap): a
  duplicate delivery gets ``None``.  A check is tried once: when its worker dies the lease
  lapses and the check is failed with the reason, for the owner to ask again;
* :func:`renew` extends the lease while the check runs, never past :data:`MAX_CHECK_S`;
* :func:`finish` stores the report, the bot's health record and, for a passing check of an
  unverified bot's current version, its verification, in one transaction; :func:`fail`
  stores why a check could not run;
* :func:`sweep` fails the checks whose lease lapsed (a dead worker, or one past the bound)
  and returns the queued ones to enqueue again (an enqueue lost with the broker).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, insert, select, update

from ladder import ConflictError, NotFoundError
from ladder.accounts import now_utc, utc
from ladder.db import reader, translate_errors
from ladder.models import (
    DONE, FAILED, PULL, QUEUED, REASON_LEN, RETIRED, RUNNING, Bot, BotCheck, Owner,
)
from ladder.registry import add_health, mark_verified

PENDING = (QUEUED, RUNNING)
MAX_CHECK_S = 900.0
"""The longest a check may run.  A check plays one match with 1 s decisions: about 180 of
the bot's decisions in Tokaido Duo, three minutes for a bot that uses all of its time."""
MAX_PENDING_PER_OWNER = 2
"""Checks an owner may have queued or running at once, over all of their bots."""
KEEP_PER_BOT = 50
"""Finished checks kept per bot (the oldest beyond these are deleted)."""


@dataclass(frozen=True)
class CheckClaim:
    """A worker's hold on a running check: what to check, and what to hold it by."""

    check_id: int
    bot_id: int
    game: str
    url: str
    """The bot's URL, or a pull bot's spec (``pull:<id>``)."""
    nonce: str | None
    """The nonce the bot's ``GET /`` must echo (ownership proof), or None."""
    version: int
    """The bot's version (its URL) being checked: only it can be verified by the result."""
    worker: str


@dataclass(frozen=True)
class InfoProbe:
    """What the check's ``GET /`` gave, kept as a health record of the bot."""

    ok: bool
    latency_ms: float | None
    status: str
    detail: str


def request(engine: Engine, bot_id: int, game: str, *, prove: bool) -> tuple[dict[str, Any],
                                                                                bool]:
    """The bot's pending check of ``game`` and False, or a new queued one and True.
    ConflictError when the pending check is of another game.  ``prove``: the bot's
    ``GET /`` must echo its ownership nonce."""
    now = now_utc()
    with translate_errors(engine), engine.begin() as conn:
        owner = conn.execute(select(Bot.owner_id).where(Bot.id == bot_id)).scalar_one_or_none()
        conn.execute(select(Owner.id).where(Owner.id == owner).with_for_update())  # one at a time
        _expire(conn, now, bot_id)
        pending = conn.execute(select(BotCheck.__table__).where(
            BotCheck.bot_id == bot_id, BotCheck.state.in_(PENDING))).first()
        if pending is not None:
            if pending.game != game:
                raise ConflictError(f"check {pending.id} of {pending.game} is still "
                                    f"{pending.state}: ask for {game} when it is over")
            return _doc(pending), False
        others = conn.execute(select(BotCheck.id).join(Bot, Bot.id == BotCheck.bot_id).where(
            Bot.owner_id == owner, BotCheck.state.in_(PENDING))).scalars().all()
        if owner is not None and len(others) >= MAX_PENDING_PER_OWNER:
            raise ConflictError(f"your checks {', '.join(map(str, others))} are still pending: "
                                f"at most {MAX_PENDING_PER_OWNER} at once")
        check_id = conn.execute(insert(BotCheck).values(
            bot_id=bot_id, game=game, state=QUEUED, prove=prove, created_at=now,
            enqueued_at=now).returning(BotCheck.id)).scalar_one()
        _prune(conn, bot_id)
        row = conn.execute(select(BotCheck.__table__).where(BotCheck.id == check_id)).one()
    return _doc(row), True


def _prune(conn: Connection, bot_id: int) -> None:
    kept = (select(BotCheck.id).where(BotCheck.bot_id == bot_id)
            .order_by(BotCheck.id.desc()).limit(KEEP_PER_BOT))
    conn.execute(delete(BotCheck).where(
        BotCheck.bot_id == bot_id, BotCheck.state.in_((DONE, FAILED)),
        BotCheck.id.not_in(kept.scalar_subquery())))


def claim(engine: Engine, check_id: int, worker: str, lease_s: float,
          now: datetime | None = None) -> CheckClaim | None:
    """Start a queued check (compare-and-swap); None when it is not queued any more (a
    duplicate delivery) or its bot was retired meanwhile (the check is failed)."""
    now = now or now_utc()  # a test may pass the time
    with translate_errors(engine), engine.begin() as conn:
        row = conn.execute(update(BotCheck).where(
            BotCheck.id == check_id, BotCheck.state == QUEUED,
        ).values(state=RUNNING, started_at=now, lease_owner=worker,
                 lease_until=now + timedelta(seconds=lease_s))
            .returning(BotCheck.bot_id, BotCheck.game, BotCheck.prove)).one_or_none()
        if row is None:
            return None
        bot = conn.execute(select(Bot.url, Bot.spec, Bot.mode, Bot.status, Bot.version,
                                  Bot.verify_nonce).where(Bot.id == row.bot_id)).one()
        pull = bot.mode == PULL  # asked through its connection: its spec, ``pull:<id>``
        played = bot.spec if pull else bot.url
        if bot.status == RETIRED or not played:
            _end(conn, check_id, worker, FAILED, now,
                 error="the bot was retired before its check ran")
            return None
        conn.execute(update(BotCheck).where(BotCheck.id == check_id)
                     .values(bot_version=bot.version))
    return CheckClaim(check_id, row.bot_id, row.game, played,  # a pull bot's token proved it
                      bot.verify_nonce if row.prove and not pull else None, bot.version, worker)


def renew(engine: Engine, held: CheckClaim, lease_s: float) -> bool:
    """Extend the lease while this worker holds the check and it is within
    :data:`MAX_CHECK_S` of its start; False once either is no longer so."""
    now = now_utc()
    with translate_errors(engine), engine.begin() as conn:
        return bool(conn.execute(update(BotCheck).where(
            BotCheck.id == held.check_id, BotCheck.state == RUNNING,
            BotCheck.lease_owner == held.worker,
            BotCheck.started_at > now - timedelta(seconds=MAX_CHECK_S),
        ).values(lease_until=now + timedelta(seconds=lease_s))).rowcount)


def finish(engine: Engine, held: CheckClaim, report: dict[str, Any], *, passed: bool,
           info: InfoProbe) -> bool:
    """Store the report with the health record of its ``GET /`` and, when it passed, verify
    the bot (an unverified bot still at the version checked); False (nothing written) when
    the check was failed meanwhile (its lease lapsed)."""
    now = now_utc()
    with translate_errors(engine), engine.begin() as conn:
        if not _end(conn, held.check_id, held.worker, DONE, now, report=report):
            return False
        add_health(conn, held.bot_id, info.ok, info.latency_ms, info.status, info.detail)
        if passed:
            mark_verified(conn, held.bot_id, held.version)
    return True


def fail(engine: Engine, held: CheckClaim, reason: str) -> bool:
    """The check could not run (``reason`` says why); False when it was over already."""
    with translate_errors(engine), engine.begin() as conn:
        return _end(conn, held.check_id, held.worker, FAILED, now_utc(), error=reason[:REASON_LEN])


def _end(conn: Connection, check_id: int, worker: str, state: str, now: datetime,
         **values: Any) -> bool:
    return bool(conn.execute(update(BotCheck).where(
        BotCheck.id == check_id, BotCheck.state == RUNNING, BotCheck.lease_owner == worker,
    ).values(state=state, finished_at=now, lease_owner=None, lease_until=None,
             **values)).rowcount)


def sweep(engine: Engine, *, requeue_after_s: float, max_wait_s: float,
          now: datetime | None = None) -> list[int]:
    """Fail the running checks whose lease lapsed and the queued ones no worker took within
    ``max_wait_s``; the ids of the queued ones to enqueue again (not enqueued within
    ``requeue_after_s``), marked as enqueued now (``now``: a test's clock)."""
    now = now or now_utc()
    with translate_errors(engine), engine.begin() as conn:
        _expire(conn, now)
        conn.execute(update(BotCheck).where(
            BotCheck.state == QUEUED,
            BotCheck.created_at < now - timedelta(seconds=max_wait_s),
        ).values(state=FAILED, finished_at=now,
                 error=f"no worker took it within {max_wait_s:.0f} s: ask for a new check"))
        due = list(conn.execute(select(BotCheck.id).where(
            BotCheck.state == QUEUED,
            BotCheck.enqueued_at < now - timedelta(seconds=requeue_after_s),
        ).order_by(BotCheck.id)).scalars())
        if due:
            conn.execute(update(BotCheck).where(BotCheck.id.in_(due)).values(enqueued_at=now))
    return due


def _expire(conn: Connection, now: datetime, bot_id: int | None = None) -> None:
    """Fail the running checks (of ``bot_id``, or all) whose lease lapsed: past the bound,
    or their worker stopped renewing it."""
    lapsed = [BotCheck.state == RUNNING, BotCheck.lease_until < now,
              *([BotCheck.bot_id == bot_id] if bot_id is not None else [])]
    too_long = BotCheck.started_at <= now - timedelta(seconds=MAX_CHECK_S)
    end = {"state": FAILED, "finished_at": now, "lease_owner": None, "lease_until": None}
    conn.execute(update(BotCheck).where(*lapsed, too_long).values(
        error=f"ran longer than the {MAX_CHECK_S:.0f} s a check may take", **end))
    conn.execute(update(BotCheck).where(*lapsed).values(
        error="its worker stopped before the end: ask for a new check", **end))


def pending_ids(engine: Engine) -> list[int]:
    """The queued checks (the embedded pool's queue after a restart)."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(select(BotCheck.id).where(BotCheck.state == QUEUED)
                                 .order_by(BotCheck.id)).scalars())


# -- reading ----------------------------------------------------------------------------------

def check_detail(engine: Engine, bot_id: int, check_id: int) -> dict[str, Any]:
    with translate_errors(engine), reader(engine) as conn:
        row = conn.execute(select(BotCheck.__table__).where(
            BotCheck.id == check_id, BotCheck.bot_id == bot_id)).one_or_none()
    if row is None:
        raise NotFoundError(f"bot {bot_id} has no check {check_id}")
    return _doc(row)


def list_checks(engine: Engine, bot_id: int, page: int = 1,
                per_page: int = 20) -> tuple[list[dict[str, Any]], int]:
    """A page of the bot's checks, newest first, and their total."""
    with translate_errors(engine), reader(engine) as conn:
        total = conn.execute(select(func.count()).select_from(BotCheck)
                             .where(BotCheck.bot_id == bot_id)).scalar_one()
        rows = conn.execute(select(BotCheck.__table__).where(BotCheck.bot_id == bot_id)
                            .order_by(BotCheck.id.desc())
                            .offset((page - 1) * per_page).limit(per_page)).all()
    return [_doc(r) for r in rows], total


def _doc(row: Any) -> dict[str, Any]:
    return {"id": row.id, "bot_id": row.bot_id, "game": row.game, "state": row.state,
            "bot_version": row.bot_version, "created_at": utc(row.created_at),
            "started_at": utc(row.started_at), "finished_at": utc(row.finished_at),
            "error": row.error, "report": row.report}

"""Bot health: when a bot's ladder entries pause and resume on their own, and the records.

The service probes every entrant bot on a schedule (``GET /`` and one decision: the probing
itself needs the network and lives in :mod:`api.health`); each probe is a ``health_checks``
row.  The rules, applied after every probe and on every health tick, are:

* **pause** a bot's entries (in the ladders it joined and the solo ladders it entered: a
  bot on no ladder has nothing to pause) after :data:`FAILED_PROBES_TO_PAUSE` failed probes
  in a row, or after :data:`FORFEITS_TO_PAUSE` forfeits in a row in its rated matches
  finished since it was last resumed (a bot that crashes in every match is not down, but no
  better for it);
* **resume** them after :data:`GOOD_PROBES_TO_RESUME` good probes in a row made after the
  pause.

Only the reasons written here (``health: …``, ``forfeits: …``) are lifted automatically; a
pause for any other reason (retirement, an admin) is left alone (:mod:`ladder.pauses`).
Each pause and resume is an ``alerts`` row its owner reads through ``GET /me/alerts``.
Pausing and resuming go through :func:`ladder.matchmaking.pause_entries` /
:func:`ladder.matchmaking.resume_entries`, as the owner's do: under the matchmaker's lock,
and a resume counts as a rest (the resumed bot does not take the next bye).  :func:`decide`
is the rule alone, with no database, so it can be tested on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, or_, select, update

from ladder import matchmaking, metrics, pauses
from ladder.accounts import now_utc, utc
from ladder.db import lock_ladder, reader, translate_errors
from ladder.models import (
    ACTIVE, DETAIL_LEN, FINISHED, PROBE_STATUS_LEN, REASON_LEN, Alert, Bot, HealthCheck,
    LadderEntry, Match, MatchSeat,
)
from ladder.pauses import AUTO_REASONS, FORFEITS, HEALTH, auto_pause_reason

FAILED_PROBES_TO_PAUSE = 3
FORFEITS_TO_PAUSE = 5
GOOD_PROBES_TO_RESUME = 2
PROBE_INTERVAL_S = 1800.0
"""How often each entrant bot is probed (Battlesnake Arena re-probes every 30 minutes)."""
PAUSED, RESUMED = "paused", "resumed"


@dataclass(frozen=True)
class Target:
    """A bot to probe: where it is and the game its dry-run decision is of."""

    bot_id: int
    name: str
    url: str
    game: str
    last_at: datetime | None = None
    """Its latest probe when it was found due (a probe recorded since makes this one moot)."""


@dataclass(frozen=True)
class ProbeOutcome:
    """One probe: passed or not, how long it took, the failing call's status and detail."""

    ok: bool
    latency_ms: float | None
    status: str
    detail: str = ""


@dataclass(frozen=True)
class Verdict:
    """What the rules say to do: ``paused`` or ``resumed``, and why."""

    kind: str
    reason: str


def decide(paused: str | None, probes: Sequence[bool], forfeits: int) -> Verdict | None:
    """The health rule alone.

    ``paused``: the bot's automatic pause reason, None when it is not paused automatically;
    ``probes``: its probes' results, newest first (when paused, only those since the pause);
    ``forfeits``: its forfeits in a row, newest first, in rated matches since its last resume.
    """
    if paused is None:
        window = probes[:FAILED_PROBES_TO_PAUSE]
        if len(window) == FAILED_PROBES_TO_PAUSE and not any(window):
            return Verdict(PAUSED, f"{HEALTH}: {FAILED_PROBES_TO_PAUSE} failed probes in a row")
        if forfeits >= FORFEITS_TO_PAUSE:
            return Verdict(PAUSED, f"{FORFEITS}: {forfeits} forfeits in a row")
        return None
    good = 0
    for ok in probes:
        if not ok:
            break
        good += 1
    if good >= GOOD_PROBES_TO_RESUME:
        return Verdict(RESUMED, f"{good} good probes in a row")
    return None


# -- which bots -------------------------------------------------------------------------------

def _entrants() -> Any:
    """Bots the health rules cover: owners' live HTTP bots (not house or CLI bots)."""
    return (Bot.status == ACTIVE, Bot.url.is_not(None), Bot.owner_id.is_not(None))


def due(engine: Engine, now: datetime | None = None,
        interval_s: float = PROBE_INTERVAL_S) -> list[Target]:
    """The entrant bots not probed within ``interval_s`` (never probed first, then the
    longest unprobed), each with the game its dry run is of (the first it plays)."""
    now = now or now_utc()
    last = (select(HealthCheck.bot_id, func.max(HealthCheck.at).label("at"))
            .group_by(HealthCheck.bot_id).subquery())
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(
            select(Bot.id, Bot.name, Bot.url, Bot.games, last.c.at)
            .outerjoin(last, last.c.bot_id == Bot.id)
            .where(*_entrants(), or_(last.c.at.is_(None),
                                     last.c.at <= now - timedelta(seconds=interval_s)))
            .order_by(last.c.at.is_not(None), last.c.at, Bot.id)).all()
    return [Target(r.id, r.name, r.url, sorted(r.games)[0], utc(r.at)) for r in rows if r.games]


# -- recording and applying -------------------------------------------------------------------

def record_probe(engine: Engine, bot_id: int, outcome: ProbeOutcome,
                 now: datetime | None = None, *, due_since: Target | None = None
                 ) -> Verdict | None:
    """Store one probe and apply the rules to the bot in the same transaction; the pause or
    resume it caused, if any.  Given the ``due_since`` target it was probed as, a probe is
    dropped if another was recorded meanwhile (two health ticks overlapping must not count
    one outage twice)."""
    now = now or now_utc()
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, f"health:{bot_id}")
        if due_since is not None:
            latest = utc(conn.execute(select(func.max(HealthCheck.at)).where(
                HealthCheck.bot_id == bot_id)).scalar_one())
            if latest != due_since.last_at:
                return None
        conn.execute(insert(HealthCheck).values(
            bot_id=bot_id, at=now, ok=outcome.ok, latency_ms=outcome.latency_ms,
            status=outcome.status[:PROBE_STATUS_LEN], detail=outcome.detail[:DETAIL_LEN]))
        metrics.probed(outcome.status[:PROBE_STATUS_LEN])
        return _evaluate(conn, bot_id, now, detail=outcome.detail)


def check_forfeits(engine: Engine, now: datetime | None = None) -> dict[int, Verdict]:
    """Apply the rules to every entrant bot without a new probe (the forfeit rule needs
    none: matches finish between probes); what it changed, by bot."""
    now = now or now_utc()
    with translate_errors(engine), reader(engine) as conn:
        ids = list(conn.execute(select(Bot.id).where(*_entrants()).order_by(Bot.id)).scalars())
    out = {}
    for bot_id in ids:
        with translate_errors(engine), reader(engine) as conn:
            if _verdict(conn, bot_id) is None:
                continue  # the common case: no write transaction
        with translate_errors(engine), engine.begin() as conn:
            lock_ladder(conn, f"health:{bot_id}")
            verdict = _evaluate(conn, bot_id, now)
        if verdict is not None:
            out[bot_id] = verdict
    return out


def _evaluate(conn: Connection, bot_id: int, now: datetime, detail: str = "") -> Verdict | None:
    """Apply the rules' verdict on the bot, if any: its entries, its alert."""
    if _verdict(conn, bot_id) is None:
        return None
    # something to change: read again under the matchmaker's lock, which the owner's pause
    # and resume take too (so a resume here never lifts a pause the owner just made)
    lock_ladder(conn, matchmaking.LOCK)
    found = _verdict(conn, bot_id)
    if found is None:
        return None
    bot, verdict = found
    if verdict.kind == PAUSED:
        games = _entry_games(conn, bot_id, paused=None)
        changed = _pause_entries(conn, bot_id, verdict.reason)
        solo = pauses.pause_solo(conn, bot_id, verdict.reason)
    else:
        games = _entry_games(conn, bot_id, paused=AUTO_REASONS)
        changed = matchmaking.resume_entries(conn, bot_id, games)
        solo = pauses.resume_solo(conn, bot_id, AUTO_REASONS)
    games, changed = games + solo, changed + len(solo)
    if not changed:  # no entry, or every one paused for another reason: nothing happened
        return None
    conn.execute(update(Bot).where(Bot.id == bot_id).values(updated_at=now))
    conn.execute(insert(Alert).values(owner_id=bot.owner_id, bot_id=bot_id, kind=verdict.kind,
                                      reason=verdict.reason[:REASON_LEN],
                                      detail=detail[:DETAIL_LEN], games=games, at=now))
    return verdict


def _verdict(conn: Connection, bot_id: int) -> tuple[Any, Verdict] | None:
    """The bot's row and what the rules say about it now (None: nothing to do)."""
    bot = conn.execute(select(Bot.id, Bot.owner_id, Bot.status)
                       .where(Bot.id == bot_id)).one_or_none()
    if bot is None or bot.owner_id is None or bot.status != ACTIVE:
        return None
    paused = auto_pause_reason(conn, bot_id)
    if paused is None and not (_entry_games(conn, bot_id, paused=None)
                               or pauses.running_solo(conn, bot_id)):
        return None  # on no ladder, or only paused for other reasons: nothing to pause
    if paused is not None:
        probes = _recent_probes(conn, bot_id, _last_alert_at(conn, bot_id, PAUSED))
        forfeits = 0
    else:
        probes = _recent_probes(conn, bot_id, None)
        forfeits = forfeit_streak(conn, bot_id, _last_alert_at(conn, bot_id, RESUMED))
    verdict = decide(paused, probes, forfeits)
    return None if verdict is None else (bot, verdict)


def _pause_entries(conn: Connection, bot_id: int, reason: str) -> int:
    """Pause the bot's ladder entries (those of the ladders it joined); entries paused for
    another reason keep theirs.  The number of entries paused."""
    games = _entry_games(conn, bot_id, paused=None)
    return matchmaking.pause_entries(conn, bot_id, games, reason, only_running=True)


def _entry_games(conn: Connection, bot_id: int, paused: tuple[str, ...] | None
                 ) -> list[str]:
    """The games of the bot's entries that are not paused (``paused`` None), or paused for
    one of the reasons starting with ``paused``."""
    reason = LadderEntry.paused_reason
    cond = reason.is_(None) if paused is None else or_(*(reason.startswith(p) for p in paused))
    return list(conn.execute(select(LadderEntry.game).where(LadderEntry.bot_id == bot_id, cond)
                             .order_by(LadderEntry.game)).scalars())


def _last_alert_at(conn: Connection, bot_id: int, kind: str) -> datetime | None:
    return utc(conn.execute(select(func.max(Alert.at)).where(
        Alert.bot_id == bot_id, Alert.kind == kind)).scalar_one())


def _recent_probes(conn: Connection, bot_id: int, since: datetime | None) -> list[bool]:
    """The bot's latest probes' results, newest first (enough for either rule)."""
    cond = [HealthCheck.bot_id == bot_id]
    if since is not None:
        cond.append(HealthCheck.at > since)
    return [bool(ok) for ok in conn.execute(
        select(HealthCheck.ok).where(*cond)
        .order_by(HealthCheck.at.desc(), HealthCheck.id.desc())
        .limit(max(FAILED_PROBES_TO_PAUSE, GOOD_PROBES_TO_RESUME))).scalars()]


def forfeit_streak(conn: Connection, bot_id: int, since: datetime | None = None) -> int:
    """The bot's forfeits in a row, newest first, over its rated matches finished after
    ``since`` (at most :data:`FORFEITS_TO_PAUSE` are looked at)."""
    cond = [MatchSeat.bot_id == bot_id, Match.state == FINISHED, Match.rated.is_(True)]
    if since is not None:
        cond.append(Match.finished_at > since)
    rows = conn.execute(
        select(MatchSeat.forfeited).join(Match, Match.id == MatchSeat.match_pk).where(*cond)
        .order_by(Match.finished_at.desc(), Match.id.desc()).limit(FORFEITS_TO_PAUSE)).scalars()
    streak = 0
    for forfeited in rows:
        if not forfeited:
            break
        streak += 1
    return streak


# -- reading ----------------------------------------------------------------------------------

def alerts(engine: Engine, owner_id: int, *, bot: int | None = None, page: int = 1,
           per_page: int = 20) -> tuple[list[dict[str, Any]], int]:
    """A page of the owner's alerts, newest first, and the total."""
    cond = [Alert.owner_id == owner_id]
    if bot is not None:
        cond.append(Alert.bot_id == bot)
    with translate_errors(engine), reader(engine) as conn:
        total = conn.execute(select(func.count()).select_from(Alert).where(*cond)).scalar_one()
        rows = conn.execute(
            select(Alert.__table__, Bot.name.label("bot_name"))
            .join(Bot, Bot.id == Alert.bot_id).where(*cond).order_by(Alert.id.desc())
            .offset((page - 1) * per_page).limit(per_page)).all()
    return [{"id": r.id, "at": utc(r.at), "kind": r.kind, "reason": r.reason,
             "detail": r.detail, "games": list(r.games or []),
             "bot": {"id": r.bot_id, "name": r.bot_name}} for r in rows], total


def entries_paused(engine: Engine, bot_id: int) -> dict[str, str]:
    """The bot's paused ladder entries: game -> reason."""
    with translate_errors(engine), reader(engine) as conn:
        return {r.game: r.paused_reason for r in conn.execute(
            select(LadderEntry.game, LadderEntry.paused_reason).where(
                LadderEntry.bot_id == bot_id, LadderEntry.paused_reason.is_not(None)))}


"""Presence is a pull bot's health: a pull bot with no open connection is *away*.

A pull bot (``bots.mode = 'pull'``) has no address to probe: it is up while its connection
polls for requests. Whether it does is the relay's to know (:mod:`referee.relay`, in the web
process); this module applies it to the ladder: :func:`sweep` pauses the ladder entries
(and solo entries) of every pull bot that is not connected, with the reason :data:`AWAY_REASON`, and lifts that
pause for every one that is; :func:`back` lifts it at once when a bot connects again. Each
pause and resume is an ``alerts`` row, as the health rules' are, through the same
:func:`ladder.matchmaking.pause_entries` / :func:`~ladder.matchmaking.resume_entries` (under
the matchmaker's lock). A pause for another reason (its owner's, an admin's, the forfeit rule)
is left alone, and an entry paused for one is not paused again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Engine, insert, select, union_all, update

from ladder import matchmaking, pauses
from ladder.accounts import now_utc
from ladder.db import lock_ladder, reader, translate_errors
from ladder.models import ACTIVE, PULL, REASON_LEN, Alert, Bot, LadderEntry, SoloEntry
from ladder.pauses import AWAY

AWAY_REASON = f"{AWAY} not connected (a pull bot plays while its connection polls)"
PAUSED, RESUMED = "paused", "resumed"


def sweep(engine: Engine, connected: Callable[[int], bool],
          now: datetime | None = None) -> dict[int, str]:
    """Pause the entries of the live pull bots that are not ``connected``, resume those of
    the ones that are; what changed, by bot (``paused`` or ``resumed``)."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(union_all(*(
            select(e.bot_id, e.paused_reason).join(Bot, Bot.id == e.bot_id)
            .where(Bot.mode == PULL, Bot.status == ACTIVE, e.active.is_(True))
            for e in (LadderEntry, SoloEntry)))).all()
    running: set[int] = {r.bot_id for r in rows if r.paused_reason is None}
    away: set[int] = {r.bot_id for r in rows if (r.paused_reason or "").startswith(AWAY)}
    out: dict[int, str] = {}
    for bot_id in sorted(running | away):
        here = connected(bot_id)
        if (not here and bot_id in running and _set(engine, bot_id, away=True, now=now,
                                                    connected=connected)) or (
                here and bot_id in away and _set(engine, bot_id, away=False, now=now)):
            out[bot_id] = RESUMED if here else PAUSED
    return out


def back(engine: Engine, bot_id: int, now: datetime | None = None) -> bool:
    """The bot connected: lift its away pause, if it has one (whether it did)."""
    return _set(engine, bot_id, away=False, now=now)


def _set(engine: Engine, bot_id: int, *, away: bool, now: datetime | None,
         connected: Callable[[int], bool] | None = None) -> bool:
    """Pause (``away``) or resume the bot's entries; whether any changed. ``connected``:
    asked again once the locks are held, a pause does not land on a bot that is back. The
    sweep read the bot's presence before; a poll may have come since, and found nothing to
    resume (:func:`back` takes the same lock): pausing then would leave a connected bot out
    of its rounds until the next sweep (which is still the bound for a poll caught between
    its :func:`back` and its relay's take, an instant rather than the whole sweep)."""
    now = now or now_utc()
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, f"health:{bot_id}")
        lock_ladder(conn, matchmaking.LOCK)  # the reasons read are the reasons changed
        if away and connected is not None and connected(bot_id):
            return False
        owner = conn.execute(select(Bot.owner_id).where(Bot.id == bot_id)).scalar_one_or_none()
        reason = LadderEntry.paused_reason
        cond = reason.is_(None) if away else reason.startswith(AWAY)
        games = list(conn.execute(select(LadderEntry.game).where(
            LadderEntry.bot_id == bot_id, LadderEntry.active.is_(True), cond)
            .order_by(LadderEntry.game)).scalars())
        if owner is None:
            return False
        if away:
            changed = matchmaking.pause_entries(conn, bot_id, games, AWAY_REASON,
                                                only_running=True)
            solo = pauses.pause_solo(conn, bot_id, AWAY_REASON)
        else:
            changed = matchmaking.resume_entries(conn, bot_id, games)
            solo = pauses.resume_solo(conn, bot_id, (AWAY,))
        games, changed = games + solo, changed + len(solo)
        if not changed:
            return False
        conn.execute(update(Bot).where(Bot.id == bot_id).values(updated_at=now))
        conn.execute(insert(Alert).values(
            owner_id=owner, bot_id=bot_id, kind=PAUSED if away else RESUMED,
            reason=(AWAY_REASON if away else "connected again")[:REASON_LEN], detail="",
            games=games, at=now))
        return True

"""Automatic pauses: the reasons the service itself writes on a bot's entries, and the share
of them its solo entries take.

The health rules (:mod:`ladder.health`: failed probes, forfeits) and the presence rule
(:mod:`ladder.presence`: a pull bot not connected) pause a bot's ladder entries and its solo
entries together, and lift only the reasons they wrote (:data:`AUTO_REASONS`); a pause for any
other reason (its owner's, an admin's, a retirement) is left alone.  The solo entries' half
lives here rather than in :mod:`ladder.solo_ladder` because entering a solo ladder asks
whether the bot is paused now (it enters paused), and the rules write the pause.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, or_, select, union_all, update

from ladder.accounts import now_utc
from ladder.models import REASON_LEN, LadderEntry, SoloEntry
from ladder.solo import ladder_name

HEALTH, FORFEITS = "health", "forfeits"
AWAY = "away:"
AUTO_REASONS = (f"{HEALTH}:", f"{FORFEITS}:", AWAY)
"""Pause reasons the service writes, and so may lift (``away:`` is a pull bot's, written and
lifted by :mod:`ladder.presence`; push bots never have it)."""


def is_auto(reason: str | None) -> bool:
    return reason is not None and reason.startswith(AUTO_REASONS)


def auto_pause_reason(conn: Connection, bot_id: int) -> str | None:
    """The reason of the bot's automatic pause (of a ladder entry or an entered solo one),
    None when it has none."""
    reasons = conn.execute(union_all(
        select(LadderEntry.paused_reason).where(LadderEntry.bot_id == bot_id,
                                                LadderEntry.paused_reason.is_not(None)),
        select(SoloEntry.paused_reason).where(SoloEntry.bot_id == bot_id,
                                              SoloEntry.active.is_(True),
                                              SoloEntry.paused_reason.is_not(None)))).scalars()
    return next((r for r in reasons if is_auto(r)), None)


def pause_solo(conn: Connection, bot_id: int, reason: str) -> list[str]:
    """Pause the bot's entered solo entries not paused already, in the caller's transaction
    (under the matchmaker's lock, which the solo tick holds); the names of the ladders
    paused.  The solo tick voids their waiting games and leaves them out of new rounds."""
    return _set(conn, bot_id, SoloEntry.paused_reason.is_(None), reason[:REASON_LEN])


def resume_solo(conn: Connection, bot_id: int, reasons: Sequence[str]) -> list[str]:
    """Lift the pause of the bot's solo entries paused for a reason starting with one of
    ``reasons`` (those the caller's rule wrote); the names of the ladders resumed."""
    return _set(conn, bot_id, or_(*(SoloEntry.paused_reason.startswith(r) for r in reasons)),
                None)


def running_solo(conn: Connection, bot_id: int) -> list[str]:
    """The names of the bot's entered solo ladders that are not paused."""
    return [ladder_name(g, lv) for g, lv in conn.execute(
        select(SoloEntry.game, SoloEntry.level).where(
            SoloEntry.bot_id == bot_id, SoloEntry.active.is_(True),
            SoloEntry.paused_reason.is_(None)).order_by(SoloEntry.game, SoloEntry.level))]


def _set(conn: Connection, bot_id: int, cond: Any, reason: str | None) -> list[str]:
    key = (SoloEntry.bot_id == bot_id, SoloEntry.active.is_(True), cond)
    rows = conn.execute(select(SoloEntry.game, SoloEntry.level).where(*key)
                        .order_by(SoloEntry.game, SoloEntry.level)).all()
    if rows:
        conn.execute(update(SoloEntry).where(*key).values(
            paused_reason=reason, paused_at=None if reason is None else now_utc()))
    return [ladder_name(g, lv) for g, lv in rows]

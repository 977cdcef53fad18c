"""What admins do to a ladder: pause and resume it, void a match, recompute its ratings.

A paused ladder schedules nothing (the matchmaker asks :func:`ladder_paused` before each
tick); matches already scheduled still play.  Voiding a finished rated match takes it out of
the rating fold and refolds the game in the same transaction, under the ladder lock, so the
ratings afterwards are exactly what ``referee ladder recompute`` gives.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, delete, select, update

from ladder import ConflictError, NotFoundError, metrics
from ladder.accounts import now_utc, utc
from ladder.db import insert_ignoring, lock_ladder, reader, translate_errors
from ladder.models import FINISHED, REASON_LEN, VOIDED, LadderPause, Match, RatingHistory
from ladder.recompute import refold

# -- pausing a ladder -------------------------------------------------------------------------

def ladder_paused(conn: Connection, game: str) -> bool:
    """Whether an admin paused ``game``'s ladder (then nothing new is scheduled on it)."""
    return conn.execute(select(LadderPause.game).where(LadderPause.game == game)
                        ).first() is not None


def ladder_state(engine: Engine, game: str) -> dict[str, Any]:
    """``{game, paused, reason, paused_at}`` of ``game``'s ladder."""
    with translate_errors(engine), reader(engine) as conn:
        row = conn.execute(select(LadderPause.__table__).where(LadderPause.game == game)
                           ).one_or_none()
    if row is None:
        return {"game": game, "paused": False, "reason": None, "paused_at": None}
    return {"game": game, "paused": True, "reason": row.reason, "paused_at": utc(row.paused_at)}


def pause_ladder(engine: Engine, game: str, reason: str, by_owner_id: int | None) -> dict[str, Any]:
    """Pause ``game``'s ladder (pausing a paused one keeps the first pause)."""
    with translate_errors(engine), engine.begin() as conn:
        conn.execute(insert_ignoring(conn, LadderPause).values(
            game=game, reason=reason[:REASON_LEN], paused_at=now_utc(), by_owner_id=by_owner_id,
        ).on_conflict_do_nothing(index_elements=["game"]))
    return ladder_state(engine, game)


def resume_ladder(engine: Engine, game: str) -> dict[str, Any]:
    """Resume ``game``'s ladder (resuming one that runs changes nothing)."""
    with translate_errors(engine), engine.begin() as conn:
        conn.execute(delete(LadderPause).where(LadderPause.game == game))
    return ladder_state(engine, game)


# -- voiding a match --------------------------------------------------------------------------

def void_match(engine: Engine, match_pk: int, reason: str) -> dict[str, Any]:
    """Void a match.  One not over is voided as the sweeper would void it; a finished one
    loses its result from the ladder: out of the rating fold, its rating history deleted,
    and its game's ratings refolded, all in one transaction.  ConflictError for a match
    already voided; the answer says what was done."""
    with translate_errors(engine), engine.begin() as conn:
        m = conn.execute(select(Match.id, Match.game, Match.state, Match.rated,
                                Match.rating_seq).where(Match.id == match_pk)).one_or_none()
        if m is None:
            raise NotFoundError(f"no match {match_pk}")
        if m.state == VOIDED:
            raise ConflictError(f"match {match_pk} is already voided")
        folded = m.state == FINISHED and m.rated and m.rating_seq is not None
        if folded:
            lock_ladder(conn, m.game)
        done = conn.execute(update(Match).where(
            Match.id == match_pk, Match.state == m.state).values(
            state=VOIDED, finished_at=now_utc() if m.state != FINISHED else Match.finished_at,
            lease_owner=None, lease_until=None, rating_seq=None,
            void_reason=reason[:REASON_LEN])).rowcount
        if not done:  # finished or voided between the read and the write: say so
            raise ConflictError(f"match {match_pk} changed state while being voided; try again")
        refolded = 0
        if folded:
            conn.execute(delete(RatingHistory).where(RatingHistory.match_pk == match_pk))
            refolded = refold(conn, m.game)
    metrics.voided(m.game, [match_pk], reason, cause="admin", was=m.state)
    return {"id": match_pk, "game": m.game, "was": m.state, "state": VOIDED,
            "reason": reason[:REASON_LEN], "ratings_recomputed": folded,
            "matches_refolded": refolded}


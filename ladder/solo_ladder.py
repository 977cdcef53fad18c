"""Solo ladders: per game with a solo mode and per level of its opponent, bots entered play
the same fresh seeds against it, round after round, and rank by their fitted strength.

A **round** (:func:`tick`) draws :data:`ROUND_SEEDS` seeds and schedules one match per seed for
every bot entered and active at its opening; the next round of that ladder opens once every
match of this one is over.  Every bot of a round meets the same luck, so comparing them costs
fewer games; seeds are never played again (their logs become public: a bot's owner could
learn the dice), so a bot joining later meets later seeds, and the fit corrects for how kind
those were.  The matches of one seed share a ``pair_key``: no log of it is public until all of
its games are over.  A round's matches wait (``held``) until their bot has a free slot: a
bot plays at most its ``max_concurrency`` matches at once over every ladder, challenge and
solo ladder, and :func:`tick` releases them, under the matchmaker's lock, as slots free up
(the scheduler ticks after every match); the waiting games of a bot withdrawn, paused or
retired are voided.  The health and presence rules (:mod:`ladder.health`,
:mod:`ladder.presence`) pause a bot's solo entries with its ladder entries
(:mod:`ladder.pauses`): a bot that is down or away is not given games it can only forfeit.  A bot stops being scheduled after :data:`MAX_GAMES` games at a level:
its estimate is then good to a few points, and the ladder's cost is bounded.  An owner
enters one bot per solo ladder: a second one could play a seed after the first, which saw
its dice.

The ranking (:mod:`ladder.solo`) reads every finished game of the ladder; bots with fewer than
:data:`PLACEMENT` games are listed apart, unranked.  Solo matches are unrated: they never move
the two-player ladder's rating.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, func, insert, or_, select, text, update

from ladder import ConflictError, NotFoundError, metrics, pauses, solo
from ladder.accounts import now_utc, utc
from ladder.db import lock_key, lock_ladder, reader, translate_errors
from ladder.matchmaking.state import LOCK as MATCHMAKER_LOCK
from ladder.models import (
    ACTIVE, FINISHED, REASON_LEN, RETIRED, RUNNING, SCHEDULED, VOIDED, Bot, Match, MatchSeat, Owner,
    SoloEntry, SoloGame, SoloRound,
)
from ladder.newmatches import NewMatch, insert_matches
from ladder.solo import ladder_name

ROUND_SEEDS = 4
"""Seeds a round draws: the games each of its bots plays in it."""
MAX_GAMES = 200
"""Games a bot plays at one level before the ladder stops scheduling it (its margin's
interval is then about ±3 points at the spread of Tokaido Duo's solo games)."""
PLACEMENT = ROUND_SEEDS
"""Finished games before a bot is ranked."""
RANKING = ("by fitted strength against the Automa: the bot's mean score margin (its score "
           "less the Automa's), corrected for the luck of the seeds it played, which every bot "
           "of a round shares; equal strengths by win rate (draws count half). A forfeited game "
           "is a loss, the bot's score counted as 0. Bots with fewer than "
           f"{PLACEMENT} finished games are listed apart, unranked.")


# -- entries ----------------------------------------------------------------------------------

def set_entry(engine: Engine, bot_id: int, game: str, level: int, active: bool
              ) -> dict[str, Any]:
    """Enter (``active``) or withdraw a bot (one that plays ``game``, checked by the caller)
    from the solo ladder of ``game`` at ``level``; the entry.  A bot the health or presence
    rules hold paused (down, away) enters paused for the same reason, lifted with the rest."""
    solo.check_level(game, level)
    now = now_utc()
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, MATCHMAKER_LOCK)  # the pause read is the pause written; and two
        # requests cannot both insert the entry
        key = (SoloEntry.bot_id == bot_id, SoloEntry.game == game, SoloEntry.level == level)
        new = conn.execute(select(SoloEntry.bot_id).where(*key)).first() is None
        if new and not active:
            raise NotFoundError(f"bot {bot_id} is not in the {ladder_name(game, level)} "
                                "solo ladder")
        if active:
            _one_per_owner(conn, bot_id, game, level)
        held = pauses.auto_pause_reason(conn, bot_id) if active else None
        pause = {"paused_reason": held, "paused_at": now if held else None}
        if new:
            conn.execute(insert(SoloEntry).values(bot_id=bot_id, game=game, level=level,
                                                  active=True, joined_at=now, **pause))
        else:
            conn.execute(update(SoloEntry).where(*key).values(active=active, **pause))
    return entries_of(engine, bot_id, game, level)[0]


def _one_per_owner(conn: Connection, bot_id: int, game: str, level: int) -> None:
    """An owner enters one bot per solo ladder: the bots of a round play the same seeds, so
    a second bot of the same owner could play a seed already played by the first one, which
    saw its dice, and so know them (ConflictError naming the bot already there)."""
    owner = conn.execute(select(Bot.owner_id).where(Bot.id == bot_id)).scalar_one_or_none()
    if owner is None:  # the house's own bots, entered by the operator
        return
    other = conn.execute(
        select(Bot.id, Bot.name).join(SoloEntry, SoloEntry.bot_id == Bot.id)
        .where(Bot.owner_id == owner, Bot.id != bot_id, Bot.status != RETIRED,
               SoloEntry.game == game, SoloEntry.level == level, SoloEntry.active.is_(True))
    ).first()
    if other is not None:
        raise ConflictError(
            f"your bot {other.name} (id {other.id}) is already on the "
            f"{ladder_name(game, level)} solo ladder: one bot per owner at a level, since "
            "its bots play the same seeds and one could learn their dice from the other; "
            "withdraw it first, or enter this one at another level")


def entries_of(engine: Engine, bot_id: int, game: str | None = None,
               level: int | None = None) -> list[dict[str, Any]]:
    """The bot's solo entries (its bot page lists them), by game and level."""
    cond = [SoloEntry.bot_id == bot_id]
    if game is not None:
        cond.append(SoloEntry.game == game)
    if level is not None:
        cond.append(SoloEntry.level == level)
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(select(SoloEntry.__table__).where(*cond)
                            .order_by(SoloEntry.game, SoloEntry.level)).all()
    return [{"bot_id": r.bot_id, "game": r.game, "level": r.level,
             "ladder": ladder_name(r.game, r.level), "active": r.active,
             "joined_at": utc(r.joined_at), "paused": r.paused_reason is not None,
             "paused_reason": r.paused_reason, "paused_at": utc(r.paused_at)} for r in rows]


# -- rounds -----------------------------------------------------------------------------------

def tick(engine: Engine, rng: random.Random | None = None, now: datetime | None = None,
         wait: bool = True) -> list[int]:
    """Close the rounds whose matches are all over, open a round on every solo ladder with
    none open and a bot to play, and release the waiting solo matches whose bot has a free
    slot; the released matches' ids (to enqueue after the commit; the sweeper enqueues any
    whose enqueue was lost).  A second tick right after does nothing.

    Holds the matchmaker's lock: both release matches into the same bots' slots.
    ``wait=False`` (the tick after every match): on PostgreSQL, skip it while another process
    holds that lock, as the matchmaker's own tick does (the next tick catches up)."""
    if not _anything_to_do(engine):
        return []
    now = now or now_utc()
    draw = rng or fresh_rng()
    with translate_errors(engine), engine.begin() as conn:
        if not wait and conn.dialect.name == "postgresql":
            if not conn.execute(text("SELECT pg_try_advisory_xact_lock(:key)"),
                                {"key": lock_key(MATCHMAKER_LOCK)}).scalar_one():
                return []
        else:
            lock_ladder(conn, MATCHMAKER_LOCK)
        _close_rounds(conn, now)
        busy = set(conn.execute(select(SoloRound.game, SoloRound.level)
                                .where(SoloRound.closed_at.is_(None))))
        ladders = conn.execute(select(SoloEntry.game, SoloEntry.level).where(
            SoloEntry.active.is_(True)).distinct().order_by(SoloEntry.game, SoloEntry.level)
        ).all()
        for game, level in ladders:
            if (game, level) not in busy:
                _open_round(conn, game, level, draw, now)
        _cancel(conn, now)
        return _release(conn, now)


def _anything_to_do(engine: Engine) -> bool:
    """Whether a solo ladder has a bot (entered or withdrawn) or an open round: without
    either, a tick has nothing to close, open, void or release. Read without the lock (and,
    on SQLite, without taking the write lock), since every matchmaker tick, after every
    match, runs this one too."""
    with translate_errors(engine), reader(engine) as conn:
        return bool(conn.execute(select(or_(
            select(SoloEntry.bot_id).exists(),
            select(SoloRound.id).where(SoloRound.closed_at.is_(None)).exists()))).scalar())


def _cancel(conn: Connection, now: datetime) -> None:
    """Void the waiting solo matches of a bot withdrawn from that ladder, paused there (down
    or away) or no longer active (paused by its owner, retired): as the living ladder cancels
    a leaver's unstarted fixtures.  The round then closes without them; the bot plays the
    next round's seeds once it is back."""
    rows = conn.execute(
        select(Match.id, Match.game, Bot.status, SoloEntry.active, SoloEntry.paused_reason)
        .join(SoloGame, SoloGame.match_pk == Match.id)
        .join(SoloRound, SoloRound.id == SoloGame.round_id)
        .join(Bot, Bot.id == SoloGame.bot_id)
        .join(SoloEntry, and_(SoloEntry.bot_id == SoloGame.bot_id,
                              SoloEntry.game == SoloRound.game,
                              SoloEntry.level == SoloRound.level))
        .where(Match.state == SCHEDULED, Match.held.is_(True),
               or_(Bot.status != ACTIVE, SoloEntry.active.is_(False),
                   SoloEntry.paused_reason.is_not(None)))).all()
    for r in rows:
        reason = (f"bot {r.status} before the game" if r.status != ACTIVE else
                  "bot withdrawn from the solo ladder before the game" if not r.active else
                  f"bot paused before the game ({r.paused_reason})")[:REASON_LEN]
        conn.execute(update(Match).where(Match.id == r.id).values(
            state=VOIDED, held=False, finished_at=now, void_reason=reason))
        metrics.voided(r.game, [r.id], reason)


def _release(conn: Connection, now: datetime) -> list[int]:
    """Release held solo matches, oldest first, while their bot plays fewer matches than its
    ``max_concurrency`` (counting every released match not over: ladders, challenges, solo)."""
    waiting = conn.execute(
        select(Match.id, SoloGame.bot_id, Bot.max_concurrency)
        .join(SoloGame, SoloGame.match_pk == Match.id).join(Bot, Bot.id == SoloGame.bot_id)
        .where(Match.state == SCHEDULED, Match.held.is_(True)).order_by(Match.id)).all()
    if not waiting:
        return []
    bots = {w.bot_id for w in waiting}
    playing = Counter(conn.execute(
        select(MatchSeat.bot_id).join(Match, Match.id == MatchSeat.match_pk)
        .where(MatchSeat.bot_id.in_(bots), Match.state.in_((SCHEDULED, RUNNING)),
               Match.held.is_(False))).scalars())
    released = []
    for w in waiting:
        if playing[w.bot_id] < w.max_concurrency:
            playing[w.bot_id] += 1
            released.append(w.id)
    if released:
        conn.execute(update(Match).where(Match.id.in_(released)).values(held=False,
                                                                         enqueued_at=now))
    return released


def fresh_rng() -> random.Random:
    """Where a round's seeds come from when the caller gives none: unpredictable, so no
    owner knows a round's dice before its games are played."""
    return random.Random(secrets.randbits(64))


def _close_rounds(conn: Connection, now: datetime) -> None:
    unfinished = select(SoloGame.round_id).join(Match, Match.id == SoloGame.match_pk).where(
        Match.state.in_((SCHEDULED, RUNNING)))
    conn.execute(update(SoloRound).where(SoloRound.closed_at.is_(None),
                                         SoloRound.id.not_in(unfinished)).values(closed_at=now))


def _open_round(conn: Connection, game: str, level: int, draw: random.Random,
                now: datetime) -> None:
    """A new round of one ladder, its matches held until their bot has a free slot."""
    from referee.games import game_names

    if game not in game_names():  # a game this service no longer plays
        return
    played = (select(SoloGame.bot_id, func.count().label("n"))
              .join(SoloRound, SoloRound.id == SoloGame.round_id)
              .where(SoloRound.game == game, SoloRound.level == level)
              .group_by(SoloGame.bot_id).subquery())
    bots = list(conn.execute(
        select(SoloEntry.bot_id).join(Bot, Bot.id == SoloEntry.bot_id)
        .outerjoin(played, played.c.bot_id == SoloEntry.bot_id)
        .where(SoloEntry.game == game, SoloEntry.level == level, SoloEntry.active.is_(True),
               SoloEntry.paused_reason.is_(None), Bot.status == ACTIVE,
               func.coalesce(played.c.n, 0) < MAX_GAMES)
        .order_by(SoloEntry.bot_id)).scalars())
    if not bots:
        return
    number = conn.execute(select(func.coalesce(func.max(SoloRound.number), 0)).where(
        SoloRound.game == game, SoloRound.level == level)).scalar_one() + 1
    seeds = [draw.getrandbits(63) for _ in range(ROUND_SEEDS)]
    round_id = conn.execute(insert(SoloRound).values(
        game=game, level=level, number=number, seeds=seeds, opened_at=now)
        .returning(SoloRound.id)).scalar_one()
    plan = [(bot, k) for k in range(ROUND_SEEDS) for bot in bots]
    ids = insert_matches(conn, game, [NewMatch([bot], seeds[k], f"solo{round_id}.{k}",
                                               held=True) for bot, k in plan],
                         now, rated=False, settings=solo.settings(game, level))
    conn.execute(insert(SoloGame), [{"match_pk": pk, "round_id": round_id, "bot_id": bot,
                                     "seed_index": k} for pk, (bot, k) in zip(ids, plan)])


# -- reads ------------------------------------------------------------------------------------

def challenge_outcome(conn: Connection, challenge_id: int, game: str) -> dict[str, Any] | None:
    """A solo challenge's result against the opponent: its level, the tally (wins, margins
    and their intervals) and each finished game; None for a challenge that is not solo."""
    rows = conn.execute(
        select(Match.id, Match.settings, Match.result, MatchSeat.bot_id, MatchSeat.forfeited)
        .join(MatchSeat, and_(MatchSeat.match_pk == Match.id, MatchSeat.seat == 0))
        .where(Match.challenge_id == challenge_id).order_by(Match.id)).all()
    level = next((solo.level_of(r.settings, game) for r in rows), None)
    if level is None or any(r.settings != rows[0].settings for r in rows):
        return None
    results = [solo.read_result(r.id, r.bot_id, r.result, bool(r.forfeited))
               for r in rows if r.result]
    done = [r for r in results if r is not None]
    return {"automa_level": level, **solo.tally(done), "matches": [r.to_json() for r in done]}


def board(engine: Engine, game: str, level: int) -> dict[str, Any]:
    """The solo ladder of ``game`` at ``level``: ranked bots, then provisional ones (retired
    bots left out), and the ranking rule in words."""
    solo.check_level(game, level)
    with translate_errors(engine), reader(engine) as conn:
        games = conn.execute(
            select(SoloGame.match_pk, SoloGame.bot_id, SoloGame.round_id, SoloGame.seed_index,
                   Match.result, MatchSeat.forfeited)
            .join(SoloRound, SoloRound.id == SoloGame.round_id)
            .join(Match, Match.id == SoloGame.match_pk)
            .join(MatchSeat, and_(MatchSeat.match_pk == Match.id, MatchSeat.seat == 0))
            .where(SoloRound.game == game, SoloRound.level == level,
                   Match.state == FINISHED)).all()
        entries = {r.bot_id: r for r in conn.execute(
            select(Bot.id.label("bot_id"), Bot.name, Bot.status, Bot.owner_id, Bot.house,
                   Owner.name.label("owner_name"), SoloEntry.active)
            .join(Bot, Bot.id == SoloEntry.bot_id).outerjoin(Owner, Owner.id == Bot.owner_id)
            .where(SoloEntry.game == game, SoloEntry.level == level))}
        rounds = conn.execute(select(func.count()).select_from(SoloRound).where(
            SoloRound.game == game, SoloRound.level == level)).scalar_one()
    results = [r for r in (solo.read_result(g.match_pk, g.bot_id, g.result, bool(g.forfeited),
                                            f"{g.round_id}.{g.seed_index}")
                           for g in games if g.result) if r is not None]
    return {"game": game, "level": level, "ladder": ladder_name(game, level),
            "opponent": "automa", "rounds": int(rounds), "ranking": RANKING,
            **_rows(results, entries)}


def _rows(results: list[solo.SoloResult], entries: dict[int, Any]) -> dict[str, Any]:
    strengths = solo.fit(results)
    rows = []
    for bot_id, e in entries.items():
        if e.status == RETIRED:
            continue
        mine = [r for r in results if r.bot_id == bot_id]
        s = strengths.get(bot_id)
        rows.append({
            "bot": {"id": bot_id, "name": e.name, "house": bool(e.house)},
            "owner": None if e.owner_id is None else {"id": e.owner_id, "name": e.owner_name},
            "active": bool(e.active),
            "strength": None if s is None else s.value,
            "strength_interval": None if s is None else s.interval, **solo.tally(mine)})
    ranked = sorted((r for r in rows if r["games"] >= PLACEMENT),
                    key=lambda r: (-r["strength"], -r["win_rate"], r["bot"]["id"]))
    for i, r in enumerate(ranked, 1):
        r["rank"] = i
    waiting = sorted((r for r in rows if r["games"] < PLACEMENT),
                     key=lambda r: (-r["games"], r["bot"]["id"]))
    return {"items": ranked, "provisional": waiting}


def ladders(engine: Engine, games: Sequence[str]) -> list[dict[str, Any]]:
    """Every solo ladder of ``games`` (the service's: each level of each with a solo mode),
    with its active entries and rounds so far."""
    from referee.games import find_game

    with translate_errors(engine), reader(engine) as conn:
        bots = dict(((g, lv), n) for g, lv, n in conn.execute(
            select(SoloEntry.game, SoloEntry.level, func.count()).join(
                Bot, Bot.id == SoloEntry.bot_id).where(SoloEntry.active.is_(True),
                                                       Bot.status != RETIRED)
            .group_by(SoloEntry.game, SoloEntry.level)))
        rounds = dict(((g, lv), n) for g, lv, n in conn.execute(
            select(SoloRound.game, SoloRound.level, func.count())
            .group_by(SoloRound.game, SoloRound.level)))
    return [{"game": g, "level": lv, "ladder": ladder_name(g, lv),
             "bots": bots.get((g, lv), 0), "rounds": rounds.get((g, lv), 0),
             "url": f"/api/v1/solo-ladders/{g}/{lv}"}
            for g in games for lv in find_game(g).solo_levels]

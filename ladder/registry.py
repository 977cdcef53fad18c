"""The service's bots: registration, changes, retirement, house bots and health checks.

A service bot is a row of the ladder's one ``bots`` table, with an owner and a URL; the house
bots (``random``, ``greedy``, ``mcts``) are rows without an owner whose spec names a built-in
bot, so a new author always has opponents.  The URL policy and the ``GET /`` probe are the
caller's business (they need the network); this module only stores what passed them.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import (
    Connection, Engine, Integer, and_, bindparam, func, insert, or_, select, update,
)
from sqlalchemy.exc import IntegrityError

from ladder import ConflictError, ForbiddenError, NotFoundError
from ladder.accounts import now_utc, utc
from ladder.db import insert_ignoring, lock_ladder, reader, translate_errors
from ladder.models import (
    ACTIVE, DETAIL_LEN, PROBE_STATUS_LEN, PULL, PUSH, RETIRED, UNVERIFIED, Bot, HealthCheck,
    LadderEntry, Owner, Rating,
)

HOUSE_BOTS = ("random", "greedy", "mcts")
MAX_BOTS_PER_OWNER = 20
DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str) -> str:
    """Scheme and host in lower case, the default port and a trailing slash dropped: two
    spellings of one address compare equal (one live bot per address)."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port in (None, DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), "", ""))


def ensure_house_bots(engine: Engine) -> None:
    """Create (or mark) the house bots; a CLI ladder's row of the same name and spec is the
    same bot, one that stands for something else keeps its name and is left alone."""
    from bots import bot_games
    from referee.games import game_names

    now = now_utc()
    with translate_errors(engine), engine.begin() as conn:
        for name in HOUSE_BOTS:
            listed = bot_games(name) or []
            games = game_names() if "*" in listed else [g for g in game_names() if g in listed]
            row = conn.execute(select(Bot.id, Bot.spec, Bot.owner_id)
                               .where(Bot.name == name)).one_or_none()
            if row is None:  # several server processes may start at once: first one wins
                conn.execute(insert_ignoring(conn, Bot).values(
                    name=name, spec=name, created_at=now, house=True, status=ACTIVE,
                    games=games, description=f"built-in {name} bot",
                ).on_conflict_do_nothing(index_elements=["name"]))
            elif row.owner_id is None and row.spec in (None, name):
                conn.execute(update(Bot).where(Bot.id == row.id).values(
                    spec=name, house=True, status=ACTIVE, games=games))


def register_bot(engine: Engine, owner_id: int, *, name: str, url: str | None,
                 games: list[str], description: str, status: str, nonce: str) -> int:
    """Store a bot that passed the URL policy and the probe, or a pull bot (``url`` None:
    it connects out, its spec is ``pull:<id>``); its id.  ConflictError for a taken name, a
    URL another live bot has, or an owner at the bot limit."""
    from arena.description import PULL_PREFIX

    now = now_utc()
    normalized = None if url is None else normalize_url(url)
    try:
        with translate_errors(engine, keep=(IntegrityError,)), engine.begin() as conn:
            count = conn.execute(select(func.count()).select_from(Bot).where(
                Bot.owner_id == owner_id, Bot.status != RETIRED)).scalar_one()
            if count >= MAX_BOTS_PER_OWNER:
                raise ConflictError(f"you have {count} live bots, the limit: retire one first")
            if normalized is not None:
                _check_url_free(conn, normalized, owner_id, None)
            bot_id: int = conn.execute(insert(Bot).values(
                name=name, spec=normalized, version=1, owner_id=owner_id, url=url,
                url_normalized=normalized, description=description, games=games,
                status=status, house=False, verify_nonce=nonce, created_at=now,
                updated_at=now, max_concurrency=1, mode=PUSH if url else PULL,
            ).returning(Bot.id)).scalar_one()
            if url is None:
                conn.execute(update(Bot).where(Bot.id == bot_id).values(
                    spec=f"{PULL_PREFIX}{bot_id}"))
    except IntegrityError:
        raise ConflictError(f"the bot name {name!r} is taken") from None
    return bot_id


def _check_url_free(conn: Connection, normalized: str, owner_id: int,
                    bot_id: int | None) -> None:
    """ConflictError when another live bot has the address: the owner's own is named, another
    owner's is not (its id, name and owner are that owner's business)."""
    clash = conn.execute(select(Bot.id, Bot.owner_id).where(
        Bot.url_normalized == normalized, Bot.status != RETIRED,
        *([Bot.id != bot_id] if bot_id is not None else []))).first()
    if clash is None:
        return
    if clash.owner_id == owner_id:
        raise ConflictError(f"your bot {clash.id} already uses this URL: retire it or change "
                            f"its URL first")
    raise ConflictError("this URL is registered to another owner's bot: one URL, one owner")


def owned_bot(engine: Engine, owner_id: int, bot_id: int, *,
              allow_retired: bool = False) -> dict[str, Any]:
    """``bot_id``'s row for a change by ``owner_id``: NotFoundError, ForbiddenError (someone
    else's, or a house bot), ConflictError (retired, unless ``allow_retired``: a read)."""
    with translate_errors(engine), reader(engine) as conn:
        row = conn.execute(select(Bot.__table__).where(Bot.id == bot_id)).one_or_none()
        if row is None:
            raise NotFoundError(f"no bot {bot_id}")
        if row.owner_id != owner_id:
            raise ForbiddenError(f"bot {bot_id} is not yours")
        if row.status == RETIRED and not allow_retired:
            raise ConflictError(f"bot {bot_id} is retired")
        return {"id": row.id, "name": row.name, "url": row.url, "games": list(row.games or []),
                "status": row.status, "version": row.version, "nonce": row.verify_nonce,
                "verified": row.verified_at is not None, "mode": row.mode}


def update_bot(engine: Engine, owner_id: int, bot_id: int, changes: dict[str, Any], *,
               reverify: bool = False) -> None:
    """Apply an owner's changes (already checked by :func:`owned_bot` and, for a URL, probed).
    A new URL is a new version of the bot (its rating carries on; matches record the version)
    and, with ``reverify`` (ownership proof on), makes an active bot unverified again: the
    proof was of the old URL."""
    now = now_utc()
    values: dict[str, Any] = {k: v for k, v in changes.items()
                              if k in ("name", "description", "games", "max_concurrency",
                                       "status")}
    try:
        with translate_errors(engine, keep=(IntegrityError,)), engine.begin() as conn:
            row = conn.execute(select(Bot.url_normalized, Bot.version, Bot.owner_id,
                                      Bot.status).where(Bot.id == bot_id)).one()
            if row.owner_id != owner_id:  # pragma: no cover - checked by owned_bot
                raise ForbiddenError(f"bot {bot_id} is not yours")
            if "url" in changes:
                normalized = normalize_url(changes["url"])
                if normalized != row.url_normalized:
                    _check_url_free(conn, normalized, owner_id, bot_id)
                    values.update(url=changes["url"], url_normalized=normalized, spec=normalized,
                                  version=row.version + 1, verified_at=None)
                    if reverify and row.status == ACTIVE:
                        values["status"] = UNVERIFIED
                else:
                    values["url"] = changes["url"]
            values["updated_at"] = now
            conn.execute(update(Bot).where(Bot.id == bot_id).values(**values))
    except IntegrityError:
        raise ConflictError(f"the bot name {changes.get('name')!r} is taken") from None


def retire_bot(engine: Engine, owner_id: int, bot_id: int) -> None:
    """Retire a bot: it plays no more matches; its history and name stay."""
    owned_bot(engine, owner_id, bot_id)
    now = now_utc()
    with translate_errors(engine), engine.begin() as conn:
        conn.execute(update(Bot).where(Bot.id == bot_id)
                     .values(status=RETIRED, updated_at=now))
        conn.execute(update(LadderEntry).where(LadderEntry.bot_id == bot_id)
                     .values(active=False, paused_reason="retired", paused_at=now))


def mark_verified(conn: Connection, bot_id: int, version: int) -> bool:
    """An unverified bot whose version ``version`` passed a check becomes active; a bot whose
    URL changed since (a newer version) stays unverified: what was checked is not its URL."""
    now = now_utc()
    return bool(conn.execute(update(Bot).where(
        Bot.id == bot_id, Bot.version == version, Bot.status == UNVERIFIED,
    ).values(verified_at=now, status=ACTIVE, updated_at=now)).rowcount)


def record_health(engine: Engine, bot_id: int, ok: bool, latency_ms: float | None,
                  status: str, detail: str) -> None:
    with translate_errors(engine), engine.begin() as conn:
        add_health(conn, bot_id, ok, latency_ms, status, detail)


def add_health(conn: Connection, bot_id: int, ok: bool, latency_ms: float | None,
               status: str, detail: str) -> None:
    """:func:`record_health` inside the caller's transaction (a check's result and its
    health record are written together)."""
    conn.execute(insert(HealthCheck).values(
        bot_id=bot_id, at=now_utc(), ok=ok, latency_ms=latency_ms, status=status[:PROBE_STATUS_LEN],
        detail=detail[:DETAIL_LEN]))


# -- reading ----------------------------------------------------------------------------------

def bot_detail(engine: Engine, bot_id: int, viewer: int | None = None) -> dict[str, Any]:
    """A bot's public profile; its URL and verification nonce only for its owner."""
    items = _bots(engine, [Bot.id == bindparam("bot_id", type_=Integer)], viewer, 0, 1,
                  params={"bot_id": bot_id})[0]
    if not items:
        raise NotFoundError(f"no bot {bot_id}")
    return items[0]


def list_bots(engine: Engine, *, game: str | None = None, owner: int | None = None,
              status: str | None = None, viewer: int | None = None, page: int = 1,
              per_page: int = 20) -> tuple[list[dict[str, Any]], int]:
    """A page of bots (by id) and the total, filtered by game played, owner and status."""
    where: list[Any] = []
    if owner is not None:
        where.append(Bot.owner_id == owner)
    if status is not None:
        where.append(Bot.status == status)
    else:
        where.append(or_(Bot.house.is_(True), Bot.owner_id.is_not(None)))
    items, total = _bots(engine, where, viewer, (page - 1) * per_page, per_page, game)
    return items, total


def _bots(engine: Engine, where: list[Any], viewer: int | None, offset: int, limit: int,
          game: str | None = None, params: dict[str, Any] | None = None
          ) -> tuple[list[dict[str, Any]], int]:
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(_bot_rows().where(*where), params or {}).all()
        if game is not None:
            rows = [r for r in rows if game in (r.games or [])]
        total = len(rows)
        rows = rows[offset:offset + limit]
        ids = [r.id for r in rows]
        ratings = conn.execute(_ratings(), {"ids": ids}).all()
        health = _last_health(conn, ids)
    by_bot: dict[int, list[dict[str, Any]]] = {}
    for r in ratings:
        by_bot.setdefault(r.bot_id, []).append(
            {"game": r.game, "rating": round(r.elo, 1), "games": r.games,
             "last_played": utc(r.last_played)})
    return [_bot_dict(b, viewer, by_bot.get(b.id, []), health.get(b.id)) for b in rows], total


@cache
def _bot_rows() -> Any:
    """The statements of :func:`_bots`, built once (the bots' ids an expanding parameter):
    building them cost more than running them, on every read of a bot."""
    return (select(Bot.__table__, Owner.name.label("owner_name"))
            .outerjoin(Owner, Owner.id == Bot.owner_id).order_by(Bot.id))


@cache
def _ratings() -> Any:
    return (select(Rating.bot_id, Rating.game, Rating.elo, Rating.games, Rating.last_played)
            .where(Rating.bot_id.in_(bindparam("ids", expanding=True))))


@cache
def _latest_probes() -> Any:
    latest = (select(HealthCheck.bot_id, func.max(HealthCheck.id).label("last"))
              .where(HealthCheck.bot_id.in_(bindparam("ids", expanding=True)))
              .group_by(HealthCheck.bot_id).subquery())
    return select(HealthCheck.__table__).join(latest, and_(latest.c.last == HealthCheck.id))


def _last_health(conn: Connection, ids: list[int]) -> dict[int, dict[str, Any]]:
    rows = conn.execute(_latest_probes(), {"ids": ids}).all()
    return {h.bot_id: {"at": utc(h.at), "ok": h.ok, "latency_ms": h.latency_ms,
                       "status": h.status} for h in rows}


def _bot_dict(b: Any, viewer: int | None,
              ratings: list[dict[str, Any]], health: dict[str, Any] | None) -> dict[str, Any]:
    mine = viewer is not None and b.owner_id == viewer
    doc: dict[str, Any] = {
        "id": b.id, "name": b.name, "house": b.house, "status": b.status,
        "version": b.version, "games": list(b.games or []), "description": b.description,
        "owner": None if b.owner_id is None else {"id": b.owner_id, "name": b.owner_name},
        "created_at": utc(b.created_at), "max_concurrency": b.max_concurrency,
        "verified": b.verified_at is not None, "mode": b.mode,
        "ratings": sorted(ratings, key=lambda r: r["game"]),
        "health": health,
    }
    if mine:
        doc["url"] = b.url
        doc["verify_nonce"] = b.verify_nonce
    return doc


def bots_for_match(engine: Engine, bot_ids: list[int]) -> dict[int, dict[str, Any]]:
    """What scheduling needs of each bot: status, games, owner, version."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(select(Bot.id, Bot.name, Bot.status, Bot.games, Bot.owner_id,
                                   Bot.version, Bot.house, Bot.verified_at)
                            .where(Bot.id.in_(bot_ids))).all()
    return {r.id: r._asdict() for r in rows}



# -- ladder entries ---------------------------------------------------------------------------

OWNER_PAUSE = "owner: paused by its owner"
"""The reason of a pause the bot's owner asked for (only the owner lifts it)."""


def ladder_entries(engine: Engine, bot_id: int, game: str | None = None) -> list[dict[str, Any]]:
    """The bot's living-ladder entries (by game): joined or left, why paused, the placement
    games it has left (a bot with games left is provisional on the leaderboard)."""
    from ladder.matchmaking import placement_due

    cond = [LadderEntry.bot_id == bot_id]
    if game is not None:
        cond.append(LadderEntry.game == game)
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(
            select(LadderEntry.__table__, Bot.version.label("bot_version"))
            .join(Bot, Bot.id == LadderEntry.bot_id).where(*cond)
            .order_by(LadderEntry.game)).all()
    out = []
    for r in rows:
        left = placement_due(r.placement_remaining, r.version, r.bot_version)
        out.append({"game": r.game, "active": bool(r.active), "paused": r.paused_reason is not None,
                    "paused_reason": r.paused_reason, "paused_at": utc(r.paused_at),
                    "placement_remaining": left,
                    "provisional": left > 0, "joined_at": utc(r.joined_at), "byes": r.byes or 0})
    return out


def set_owner_pause(engine: Engine, bot_id: int, game: str, paused: bool) -> None:
    """The owner pauses or resumes the bot's entry of ``game``.  Pausing replaces an automatic
    (health) pause, so the bot stays paused once it is healthy again; resuming lifts only the
    owner's own pause: ConflictError for one the health rules hold (they lift it after good
    probes) or an admin's; NotFoundError when the bot never joined."""
    from ladder.health import GOOD_PROBES_TO_RESUME
    from ladder.matchmaking import LOCK, pause_entries, resume_entries
    from ladder.pauses import is_auto

    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, LOCK)  # the reason read is the reason changed
        reason = conn.execute(select(LadderEntry.paused_reason).where(
            LadderEntry.bot_id == bot_id, LadderEntry.game == game)).one_or_none()
        if reason is None:
            raise NotFoundError(f"bot {bot_id} has not joined the {game} ladder")
        current = reason.paused_reason
        if paused:
            if current is None or is_auto(current):
                pause_entries(conn, bot_id, [game], OWNER_PAUSE)
        elif current == OWNER_PAUSE:
            resume_entries(conn, bot_id, [game])
        elif is_auto(current):
            when = ("when it connects" if current.startswith("away:") else
                    f"after {GOOD_PROBES_TO_RESUME} good probes in a row")
            raise ConflictError(f"bot {bot_id} is paused on the {game} ladder ({current}); it "
                                f"resumes by itself {when}")
        elif current is not None:
            raise ConflictError(f"bot {bot_id} is paused on the {game} ladder ({current}): "
                                "only an admin can lift that")


def join_house_bots(engine: Engine, names: tuple[str, ...] | list[str],
                    games: list[str] | None = None) -> list[tuple[str, str]]:
    """Enter the house bots ``names`` in the ladders of ``games`` (None: every game with an
    owner's bot on its living ladder), so a lone author's bot has opponents; a game's ladder
    with no owner's bot gets none (house bots would only play each other).  A house bot that
    left a ladder (an admin took it off) is not put back.  The (bot, game) entries made."""
    from ladder.matchmaking import join

    if not names:
        return []
    with translate_errors(engine), reader(engine) as conn:
        if games is None:
            games = list(conn.execute(
                select(LadderEntry.game).join(Bot, Bot.id == LadderEntry.bot_id)
                .where(Bot.owner_id.is_not(None)).distinct()).scalars())
        house = conn.execute(select(Bot.id, Bot.name, Bot.games).where(
            Bot.house.is_(True), Bot.status == ACTIVE, Bot.name.in_(list(names)))).all()
        have = {(r.bot_id, r.game) for r in conn.execute(
            select(LadderEntry.bot_id, LadderEntry.game).where(
                LadderEntry.bot_id.in_([h.id for h in house])))}
    made = []
    for h in house:
        for game in games:
            if game in (h.games or []) and (h.id, game) not in have:
                join(engine, h.id, game)
                made.append((h.name, game))
    return made

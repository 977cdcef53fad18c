"""What an owner does to their bots, whichever door they come in by: the API's routes and the
owner pages (:mod:`api.pages.owner`) both call these, so each rule lives in one place.

Each raises the ladder's errors, which both doors turn into their status codes
(NotFoundError 404, ForbiddenError 403, ConflictError 409, InvalidError 422), with a message
for a person.  The rate limits the two doors share are here too, by the API endpoint whose
allowance they count against (:data:`LIMITS`): an owner has one allowance, whichever door.
"""

from __future__ import annotations

import logging
from typing import Any

from werkzeug.exceptions import ServiceUnavailable

from api.context import service
from api.relays import pull_check_refusal
from ladder import (
    ConflictError, InvalidError, NotFoundError, checks, matchmaking, registry, solo, solo_ladder,
)
from ladder.models import PULL
from ladder.reads import challenge_detail
from ladder.work import create_challenge
from referee.relay import RelayError

log = logging.getLogger("referee.api")

LIMITS = {
    "bots.check_bot": "6 per minute",
    "bot_ladders.set_entry": "30 per minute",
    "challenges.create": "20 per day",
    "owners.mint_token": "30 per hour",
    "solo.set_entry": "30 per minute",
}
"""Per owner, by the API endpoint that counts them (its Flask endpoint name, which is the
limiter's bucket: a page's form shares the bucket of the endpoint it does the work of)."""


def set_ladder_entry(owner_id: int, bot_id: int, game: str, *, active: bool | None = None,
                     paused: bool | None = None) -> dict[str, Any]:
    """Join (``active``), leave (not ``active``), pause or resume the owner's bot on
    ``game``'s ladder; the entry as it is then.  Joining brings the house bots along (so
    the bot has opponents); only the owner's own pause can be lifted by the owner."""
    svc = service()
    bot = registry.owned_bot(svc.engine, owner_id, bot_id)
    if game not in svc.games:
        raise NotFoundError(f"no game {game!r}")
    if game not in bot["games"]:
        raise ConflictError(f"bot {bot_id} does not play {game} (it plays "
                            f"{', '.join(bot['games'])}): add it with PATCH /bots/{bot_id}")
    try:
        if active is True:
            matchmaking.join(svc.engine, bot_id, game, svc.config.matchmaker())
            registry.join_house_bots(svc.engine, svc.config.house_ladders, [game])
        elif active is False:
            matchmaking.leave(svc.engine, bot_id, game)
        if paused is not None:
            registry.set_owner_pause(svc.engine, bot_id, game, paused)
    except NotFoundError as exc:  # the bot exists: it is the entry that does not
        raise ConflictError(f"{exc}: join it first") from None
    return registry.ladder_entries(svc.engine, bot_id, game)[0]


def known_solo_ladder(game: str, level: int) -> None:
    """NotFoundError for a game this service does not play, or a level its Automa lacks."""
    from referee.games import find_game

    games = service().games
    if game not in games:
        raise NotFoundError(f"no game {game!r}; games: {', '.join(games)}")
    levels = find_game(game).solo_levels
    if not levels:
        raise NotFoundError(f"{game} has no solo mode, so no solo ladder")
    if level not in levels:
        raise NotFoundError(f"no solo ladder {game} level {level}: its Automa has levels "
                            f"{levels[0]}-{levels[-1]}")


def set_solo_entry(owner_id: int, bot_id: int, game: str, level: int, active: bool
                   ) -> dict[str, Any]:
    """Enter (``active``) or withdraw the owner's bot on the solo ladder of ``game`` at
    ``level``; the entry.  Entering opens a round at once where the ladder has none open, so
    the bot does not wait for the next beat."""
    svc = service()
    bot = registry.owned_bot(svc.engine, owner_id, bot_id)
    known_solo_ladder(game, level)
    if game not in bot["games"]:
        raise ConflictError(f"bot {bot_id} does not play {game} (it plays "
                            f"{', '.join(bot['games'])}): add it with PATCH /bots/{bot_id}")
    entry = solo_ladder.set_entry(svc.engine, bot_id, game, level, active)
    if active:
        try:
            svc.dispatcher.enqueue(solo_ladder.tick(svc.engine))
        except Exception:  # the broker is down: the sweeper enqueues them later
            log.exception("opening a solo round of %s level %s", game, level)
    return entry


def request_check(owner_id: int, bot_id: int, game: str | None = None
                  ) -> tuple[dict[str, Any], bool]:
    """Queue a check of the owner's bot (``game``: its first by default) and hand it to the
    workers; the check and whether it is new (False: the one still pending is answered)."""
    svc = service()
    bot = registry.owned_bot(svc.engine, owner_id, bot_id)
    game = game or bot["games"][0]
    if game not in bot["games"]:
        raise InvalidError(f"bot {bot_id} does not play {game!r} (it plays "
                           f"{', '.join(bot['games'])})")
    if bot["mode"] == PULL:  # played through its connection: it must be connected
        try:
            away = pull_check_refusal(bot_id, svc.mode)
        except RelayError:
            log.exception("presence of bot %s", bot_id)
            raise ServiceUnavailable("the service cannot reach its relay now: ask for the "
                                     "check again in a moment") from None
        if away is not None:
            raise ConflictError(away)
    check, created = checks.request(svc.engine, bot_id, game, prove=svc.config.proves_ownership)
    if created:
        try:
            svc.dispatcher.enqueue_checks([check["id"]])
        except Exception:  # the broker is down: the sweeper enqueues it later
            log.exception("enqueueing check %s", check["id"])
    return check, created


def start_challenge(owner_id: int, game: str, bots: list[int], games: int | None = None,
                    automa_level: int | None = None) -> dict[str, Any]:
    """Create an unrated challenge (``games``: one per seat order by default; one bot and
    ``automa_level``: a solo challenge against the game's Automa) and hand its matches to the
    workers; the challenge."""
    svc = service()
    settings = solo.challenge_settings(game, len(bots), automa_level)
    challenge_id, ids = create_challenge(svc.engine, owner_id, game, bots, games or len(bots),
                                         settings=settings)
    try:
        svc.dispatcher.enqueue(ids)
    except Exception:  # the broker is down: the sweeper enqueues them later
        log.exception("enqueueing challenge %s", challenge_id)
    return challenge_detail(svc.engine, challenge_id)

"""Turning seats into players: built-in bots in-process, URLs as HTTP bots, or built-in bots
behind real loopback servers (``over_http``).

The one place a bot spec becomes a player, so that every match (the CLI's, a tournament's, the
bot check's, a worker's) seeds and names its bots alike: a built-in bot in seat ``s`` of the
match seeded ``seed`` gets its own generator seeded :func:`bot_seed` ``(seed, s)``, in-process
or behind ``over_http`` alike.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

from arena.description import Seat
from bots import find_bot
from referee.errors import RefereeError
from referee.players import InProcessPlayer, Player

if TYPE_CHECKING:
    from referee.transport import ConnectGuard


class ServeError(RefereeError):
    """``over_http`` could not serve a built-in bot (no free local port, say)."""


def bot_seed(seed: int, seat: int) -> int:
    """The seed of a built-in bot's own generator in seat ``seat`` of the match seeded ``seed``
    (the same whether the bot runs in-process or behind ``over_http``)."""
    return random.Random(f"{seed}:bot:{seat}").getrandbits(63)


def check_seat(seat: Seat, game: str) -> None:
    """Fail now, for a URL that cannot be a bot's base URL
    (:class:`~referee.transport.BotUrlError`) or a built-in bot that does not exist for
    ``game`` or takes other parameters (:class:`~bots.UnknownBotError`), rather than in the
    middle of a match."""
    if seat.remote:
        from referee.transport import check_url  # loads requests: only for URLs

        check_url(seat.bot)
    else:
        find_bot(seat.bot, game, 0)


def make_player(seat: Seat, game: str, seed: int, index: int,
                guard: ConnectGuard | None = None) -> Player:
    """The player of ``seat``, seat number ``index`` of a match of ``game`` seeded ``seed``;
    an HTTP seat connects through ``guard`` when given (the service's address policy).

    Raises :class:`~bots.UnknownBotError` (its subclass ``BotSpecError`` for bad parameters)
    or :class:`~referee.transport.BotUrlError`.
    """
    if seat.remote:
        from referee.transport import HttpPlayer  # loads requests: only for URLs

        return HttpPlayer(name=seat.shown_name, url=seat.bot, guard=guard)
    bot = find_bot(seat.bot, game, bot_seed(seed, index))
    return InProcessPlayer(name=seat.shown_name, bot=bot)


@contextmanager
def seated(seats: Sequence[Seat], game: str, seed: int, over_http: bool = False,
           guard: ConnectGuard | None = None) -> Iterator[list[Player]]:
    """The players of ``seats``, closed (and their servers stopped) when the block ends.

    ``over_http`` puts every built-in bot behind its own loopback server, seeded exactly as
    in-process (so the match is the same one); URLs stay as they are. Raises what
    :func:`make_player` raises, or :class:`ServeError`.
    """
    with ExitStack() as servers:
        players: list[Player] = []
        try:
            for index, seat in enumerate(seats):
                if over_http and not seat.remote:
                    url = servers.enter_context(_served(seat.bot, game, bot_seed(seed, index)))
                    seat = Seat(url, seat.shown_name)
                players.append(make_player(seat, game, seed, index, guard))
            yield players
        finally:
            for player in players:
                player.close()


@contextmanager
def _served(spec: str, game: str, seed: int) -> Iterator[str]:
    """A loopback server of the built-in bot ``spec`` with its seed fixed; yields its URL."""
    from bots.server import serve_bot  # loads waitress: only for over_http

    try:
        server: Any = serve_bot(spec, game, seed, per_match=False)
    except OSError as exc:  # no free local port, or no loopback at all
        raise ServeError(f"cannot serve the bots over HTTP: {exc}") from exc
    try:
        yield server.url
    finally:
        server.stop()

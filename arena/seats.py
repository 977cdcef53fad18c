"""Turning seats into players: built-in bots in-process, URLs as HTTP bots, built-in bots
behind real loopback servers (``over_http``), and, for the command line only, bots the referee
runs itself: ``cmd:`` programs started for the match (:mod:`arena.launch`) and ``py:`` files
played in-process (:mod:`arena.py_seat`).

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

from arena.description import PULL_PREFIX, DescriptionError, Seat, runs_here
from bots import find_bot
from referee.errors import RefereeError
from referee.players import InProcessPlayer, Player

if TYPE_CHECKING:
    from referee.relay import Relay
    from referee.transport import ConnectGuard


class ServeError(RefereeError):
    """``over_http`` could not serve a built-in bot (no free local port, say)."""


def bot_seed(seed: int, seat: int) -> int:
    """The seed of a built-in bot's own generator in seat ``seat`` of the match seeded ``seed``
    (the same whether the bot runs in-process or behind ``over_http``)."""
    return random.Random(f"{seed}:bot:{seat}").getrandbits(63)


def check_seat(seat: Seat, game: str) -> None:
    """Fail now, for a URL that cannot be a bot's base URL
    (:class:`~referee.transport.BotUrlError`), a built-in bot that does not exist for
    ``game`` or takes other parameters (:class:`~bots.UnknownBotError`), a ``cmd:`` program
    that is not there (:class:`~arena.launch.LaunchError`) or a ``py:`` file that does not
    load (:class:`~arena.py_seat.PySeatError`), rather than in the middle of a match."""
    if seat.launched:
        from arena.launch import command_argv

        command_argv(seat.bot)
    elif seat.pulled:
        if not seat.bot[len(PULL_PREFIX):]:
            raise DescriptionError(f"seat {seat.shown_name}: pull: names no bot")
    elif runs_here(seat.bot):
        from arena.py_seat import load_bot

        load_bot(seat.bot)
    elif seat.remote:
        from referee.transport import check_url  # loads requests: only for URLs

        check_url(seat.bot)
    else:
        find_bot(seat.bot, game, 0)


def refuse_local(seats: Sequence[Seat]) -> None:
    """:class:`~arena.description.DescriptionError` for a seat that would run code on this
    machine (``cmd:``, ``py:``): what a service does before anything else with a match."""
    for seat in seats:
        if runs_here(seat.bot):
            raise DescriptionError(f"seat {seat.shown_name}: cmd: and py: bots run programs "
                                   "on this machine; only the command line plays them")


def make_player(seat: Seat, game: str, seed: int, index: int,
                guard: ConnectGuard | None = None, relay: Relay | None = None) -> Player:
    """The player of ``seat``, seat number ``index`` of a match of ``game`` seeded ``seed``;
    an HTTP seat connects through ``guard`` when given (the service's address policy), a
    ``pull:`` seat is asked through ``relay`` (the service's; :class:`DescriptionError`
    without one).

    Raises :class:`~bots.UnknownBotError` (its subclass ``BotSpecError`` for bad parameters),
    :class:`~referee.transport.BotUrlError` or :class:`~arena.py_seat.PySeatError`; a
    ``cmd:`` seat has no player without its program: :func:`seated` starts it.
    """
    if seat.launched:
        raise DescriptionError(f"seat {seat.shown_name}: a cmd: bot is started by seated()")
    if seat.pulled:
        if relay is None:
            raise DescriptionError(f"seat {seat.shown_name}: a pull: bot connects to the "
                                   "service; only the service's matches seat one")
        from referee.pull_player import RelayPlayer

        return RelayPlayer(name=seat.shown_name, relay=relay, bot=seat.bot[len(PULL_PREFIX):])
    if runs_here(seat.bot):
        from arena.py_seat import PyPlayer, load_bot

        return PyPlayer(name=seat.shown_name, make=load_bot(seat.bot))
    if seat.remote:
        from referee.transport import HttpPlayer  # loads requests: only for URLs

        return HttpPlayer(name=seat.shown_name, url=seat.bot, guard=guard)
    bot = find_bot(seat.bot, game, bot_seed(seed, index))
    return InProcessPlayer(name=seat.shown_name, bot=bot)


@contextmanager
def seated(seats: Sequence[Seat], game: str, seed: int, over_http: bool = False,
           guard: ConnectGuard | None = None, outputs: str | None = None,
           relay: Relay | None = None) -> Iterator[list[Player]]:
    """The players of ``seats``, closed (and their servers and programs stopped) when the
    block ends, however it ends.

    ``over_http`` puts every built-in bot behind its own loopback server, seeded exactly as
    in-process (so the match is the same one); URLs stay as they are. A ``cmd:`` seat's
    program is started now, its output going to ``<outputs>.seat<N>.*`` (a temporary folder
    when ``outputs`` is ``None``). With a ``guard`` (the service's address policy) a seat
    that would run code here (``cmd:``, ``py:``) is refused. Raises what :func:`make_player`
    raises, :class:`ServeError`, :class:`~arena.launch.LaunchError` or
    :class:`~arena.description.DescriptionError`. ``pull:`` seats are asked through ``relay``.
    """
    with ExitStack() as servers:
        players: list[Player] = []
        try:
            if guard is not None:
                refuse_local(seats)
            for index, seat in enumerate(seats):
                if seat.launched:
                    players.append(_launched(servers, seat, game, outputs, index))
                    continue
                if over_http and not seat.waits and not runs_here(seat.bot):
                    url = servers.enter_context(_served(seat.bot, game, bot_seed(seed, index)))
                    seat = Seat(url, seat.shown_name)
                players.append(make_player(seat, game, seed, index, guard, relay))
            yield players
        finally:
            for player in players:
                player.close()


def _launched(servers: ExitStack, seat: Seat, game: str, outputs: str | None,
              index: int) -> Player:
    """The player of a ``cmd:`` seat, its program started (and stopped by ``servers``)."""
    from arena.cmd_seat import LaunchedPlayer  # loads requests: only for cmd: seats
    from arena.launch import launch

    bot = launch(seat.bot, game, None if outputs is None else f"{outputs}.seat{index}",
                 stem=f"seat{index}")
    servers.callback(bot.stop)
    return LaunchedPlayer(name=seat.shown_name, url=bot.url, bot=bot)


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

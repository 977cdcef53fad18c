"""``play_match(description) -> record``: the one entry that plays a match.

The CLI (``referee match``, with or without ``--over-http``), the tournament pool, the SPRT,
``referee bot check``, the benches, the strength tests and a service worker all play through
it, so a match is set up one way everywhere: the game and board loaded (a board file once per
process), the options validated, every seat checked, the players made and seeded
(:mod:`arena.seats`), the runner run, and the players closed and servers stopped however the
match ends.

Errors are the user's, typed (subclasses of :class:`~referee.errors.RefereeError`), raised
before the first decision: an unknown game, bad options, a board that does not load, a bad
seat, a malformed description. A bot's faults during the match are not errors: they are in
the record.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.description import MatchDescription
from arena.seats import check_seat, refuse_local, seated
from referee.core import BoardError, Game, GameOptionsError
from referee.games import find_game
from referee.match import MatchRecord, Runner

if TYPE_CHECKING:
    from referee.relay import Relay
    from referee.transport import ConnectGuard


@dataclass(frozen=True)
class Prepared:
    """A description checked and resolved: the game, its board and its validated options."""

    description: MatchDescription
    game: Game
    board: Any
    options: dict[str, Any]


def check_match(description: MatchDescription) -> Prepared:
    """Everything about ``description`` that can be checked without playing, in the order a
    user fixes it: its shape, the game, the seat count, the options, the board, the options
    with the seat count (the game set up once), each seat.

    Raises :class:`~arena.description.DescriptionError`,
    :class:`~referee.core.UnknownGameError`, :class:`~referee.core.GameOptionsError`,
    :class:`~referee.core.BoardError`, :class:`~bots.UnknownBotError` or
    :class:`~referee.transport.BotUrlError`.
    """
    description.check_shape()
    game = find_game(description.game)
    seats = len(description.seats)
    if seats not in game.player_counts:
        counts = ", ".join(map(str, game.player_counts))
        raise GameOptionsError(f"{game.name} is played by {counts} seat(s); got {seats} bot(s)")
    options = game.validate_options(description.options)
    board = load_board(game.name, description.board)
    # what only the game checks, as it sets up: options that need a seat count (Tokaido Duo's
    # Automa is for one seat); tens of microseconds
    game.new_state(seats, description.seed, board, options)
    for seat in description.seats:
        check_seat(seat, game.name)
    return Prepared(description, game, board, options)


def play_match(description: MatchDescription, guard: ConnectGuard | None = None,
               relay: Relay | None = None,
               watch: Callable[[Runner], object] | None = None) -> MatchRecord:
    """Play the match ``description`` describes and return its record (the result with
    forfeits applied, the match log, each seat's tally).

    The same description plays the same match: the game's chance, the built-in bots and the
    fallback for struck decisions are all seeded from ``description.seed`` (bots that play by
    the clock, ``mcts:ms=…``, and HTTP bots apart). HTTP seats connect through ``guard`` when
    one is given (the service's address policy, checked at every connection), and then no
    seat may run code here (``cmd:``, ``py:``: refused before anything is loaded). Raises
    what :func:`check_match` raises, and :class:`~arena.seats.ServeError` when ``over_http``
    cannot serve a bot. ``pull:`` seats (bots that connect out to the service) are asked
    through ``relay``. ``watch`` is handed the runner before it plays (the service follows a
    match's progress through it, for live spectators); it must only read.
    """
    if guard is not None:
        refuse_local(description.seats)
    prepared = check_match(description)
    return play_prepared(prepared, guard, relay, watch)


def play_prepared(prepared: Prepared, guard: ConnectGuard | None = None,
                  relay: Relay | None = None,
                  watch: Callable[[Runner], object] | None = None) -> MatchRecord:
    """Play a match :func:`check_match` has checked (a caller that checks first, to report
    before it plays, need not check twice)."""
    d = prepared.description
    with seated(d.seats, prepared.game.name, d.seed, d.over_http, guard,
                d.outputs, relay) as players:
        runner = Runner(prepared.game, players, d.seed, board=prepared.board,
                        options=prepared.options, time_control=d.time_control,
                        strikes=d.strikes, match_id=d.match_id,
                        seat_time_controls=[s.time_control for s in d.seats])
        if watch is not None:
            watch(runner)
        return runner.run()


def load_board(game: str, board: str | Mapping[str, Any] | None) -> Any:
    """The board of a description: the packaged one (``None``), a board file (read once per
    process: validating one costs about as much as playing a quick game), or board data.
    :class:`~referee.core.BoardError` names the file or the problem."""
    if board is None or isinstance(board, str):
        return _board_file(game, board, _stamp(board))
    try:
        return find_game(game).board_from_data(board)
    except BoardError as exc:
        raise BoardError(f"bad board data: {exc}") from None


def _stamp(path: str | None) -> tuple[int, int] | None:
    """What tells a changed board file from the one cached (its size and modification time)."""
    try:
        return None if path is None else (os.stat(path).st_mtime_ns, os.stat(path).st_size)
    except OSError:
        return None  # loading it says what is wrong


@functools.lru_cache(maxsize=8)
def _board_file(game: str, path: str | None, stamp: tuple[int, int] | None) -> Any:
    try:
        return find_game(game).load_board(path)
    except BoardError as exc:
        raise BoardError(f"bad board file {path}: {exc}") from None

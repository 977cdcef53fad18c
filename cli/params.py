"""Shared click parameter types: each fails with the reason, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import click

from referee.core import BoardError, Game, UnknownGameError
from referee.games import find_game, game_names
from referee.lineup import is_url


class GameType(click.ParamType):
    """A registered game name, resolved to its :class:`~referee.core.Game`."""

    name = "game"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Game:
        if not isinstance(value, str):
            return value  # already converted
        try:
            return find_game(value)
        except UnknownGameError as exc:
            self.fail(str(exc), param, ctx)


GAME = GameType()


def bad_bot_url(spec: str) -> str | None:
    """Why ``spec`` cannot be a bot's base URL, or None (also for a built-in bot's name)."""
    if not is_url(spec):
        return None
    from referee.transport import BotUrlError, check_url  # loads requests: only for URLs

    try:
        check_url(spec)
    except BotUrlError as exc:
        return str(exc)
    return None


def game_option(**kwargs: Any) -> Any:
    return click.option(
        "--game", "-g", type=GAME, required=True, help=f"One of: {', '.join(game_names())}.",
        **kwargs,
    )


def load_board(game: Game, path: str | None) -> Any:
    """The game's board from ``--board FILE`` (or the packaged default), as a one-line error."""
    try:
        return game.load_board(path)
    except BoardError as exc:
        raise click.ClickException(f"bad board file {path}: {exc}") from exc


def board_option() -> Any:
    return click.option(
        "--board", "board_path", type=click.Path(dir_okay=False), default=None,
        help="A board data file replacing the packaged default.",
    )


F = TypeVar("F", bound=Callable[..., Any])


def game_options_option() -> Callable[[F], F]:
    """``--option KEY=VALUE`` (repeatable), read by :func:`parse_options`."""
    return click.option(
        "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
        help="A game option, e.g. automa=2 for Tokaido Duo's solo mode.",
    )


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``key=value`` pairs; values read as JSON when they parse (``2`` is a number)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{pair!r} is not key=value", param_hint="--option")
        try:
            options[key] = json.loads(raw)
        except ValueError:
            options[key] = raw
    return options


def clock_options(bank: bool = True) -> Callable[[F], F]:
    """``--time-ms``, ``--bank-ms`` (unless ``bank`` is false) and ``--strikes``: the time
    control and fault tolerance every command that plays matches shares."""
    def decorate(func: F) -> F:
        func = click.option("--strikes", type=click.IntRange(1), default=3, show_default=True,
                            help="Strikes before a seat forfeits.")(func)
        if bank:
            func = click.option("--bank-ms", type=click.IntRange(0), default=0,
                                show_default=True, help="Overage bank per seat.")(func)
        return click.option("--time-ms", type=click.IntRange(1), default=1000,
                            show_default=True, help="Time per decision.")(func)
    return decorate

"""Shared click parameter types: each fails with the reason, never a traceback."""

from __future__ import annotations

from typing import Any

import click

from referee.core import BoardError, Game, UnknownGameError
from referee.games import find_game, game_names


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

"""The ladder database as the CLI opens it: the ``--db`` option, one-line errors for a missing
file, and the game check shared by the ``ladder`` commands."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from sqlalchemy import Engine

from ladder import LadderError


def db_option() -> Callable[[Any], Any]:
    return click.option(
        "--db", "db_url", default=None, metavar="URL",
        help="sqlite:///FILE or postgresql+psycopg://… (default: REFEREE_DB, else the "
             "ladder file in your data directory).",
    )


def require_database(url: str | None) -> None:
    """Refuse an SQLite file that does not exist, for commands that only read: opening it
    would create an empty ladder, and a typo in ``--db`` would read as "no results yet"."""
    from ladder.db import default_url, parse_url

    try:
        parsed = parse_url(url or default_url())
    except LadderError:
        return  # opening the database reports a bad URL
    if parsed.get_backend_name() == "sqlite" and not Path(str(parsed.database)).is_file():
        raise click.ClickException(f"no ladder database at {parsed.database}: nothing has "
                                   "been recorded there (check --db or REFEREE_DB)")


@contextmanager
def database(url: str | None, read_only: bool = False) -> Iterator[Engine]:
    """The ladder database (a storage failure is a :class:`~ladder.LadderError`, one line);
    ``read_only`` commands refuse a missing SQLite file instead of creating it."""
    from ladder.store import open_db

    if read_only:
        require_database(url)
    engine = open_db(url)
    try:
        yield engine
    finally:
        engine.dispose()


class LadderGame(click.ParamType):
    """A ladder's game name, shown in the help as the registered games.

    Only the name is taken here: a game with a ladder in the database may be one this
    installation does not register, which only :func:`check_game` can tell once the database
    is open."""

    name = "game"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        from referee.games import game_names

        return f"[{'|'.join(game_names())}]"


LADDER_GAME = LadderGame()


def game_option(what: str, required: bool = False) -> Callable[[Any], Any]:
    """``--game`` / ``-g`` of the ``ladder`` commands."""
    return click.option("--game", "-g", "game", type=LADDER_GAME, required=required,
                        default=None, help=what)


def check_game(engine: Engine, game: str) -> None:
    """A game is known if it is registered here or has a ladder in this database."""
    from bots import did_you_mean
    from ladder.leaderboard import games
    from referee.games import game_names

    known = games(engine)
    if game not in known and game not in game_names():
        names = sorted({*game_names(), *known})
        raise click.BadParameter(f"unknown game {game!r}{did_you_mean(game, names)}: known "
                                 f"games are {', '.join(names)}", param_hint="'--game' / '-g'")

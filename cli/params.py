"""Shared click parameter types: each fails with the reason, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import click

from referee.core import BoardError, Game, UnknownGameError
from referee.display import printable, redact
from referee.faults import Fault
from referee.games import find_game, game_names
from referee.lineup import is_url

F = TypeVar("F", bound=Callable[..., Any])


class GameType(click.ParamType):
    """A registered game name, resolved to its :class:`~referee.core.Game`."""

    name = "game"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Game:
        if not isinstance(value, str):
            return value  # already converted
        try:
            return find_game(value)
        except UnknownGameError as exc:
            from bots import did_you_mean

            self.fail(str(exc) + did_you_mean(value, game_names()), param, ctx)


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


def allow_dead_option() -> Callable[[F], F]:
    return click.option(
        "--allow-dead", is_flag=True,
        help="Play even when an HTTP bot does not answer GET / before the first game (its "
             "decisions are then struck and played by the fallback).",
    )


def check_http_bots(urls: Sequence[str], game: str, allow_dead: bool) -> dict[str, Any]:
    """``GET /`` of every HTTP bot before the first game (the protocol's own check): a bot
    that does not answer, or does not play ``game``, stops the command in one line unless
    ``allow_dead``; a dead bot would otherwise "play" a whole match of fallback moves.
    Returns the ``GET /`` documents of the bots that answered, by URL."""
    if not urls:
        return {}
    from referee.transport import fetch_infos

    infos: dict[str, Any] = {}
    dead = []
    for url, (info, fault) in fetch_infos(urls).items():
        problem = liveness_problem(info, fault, game)
        if problem:
            dead.append(f"bot {redact(url)} {problem}")
        else:
            infos[url] = info
    if dead and not allow_dead:
        raise click.ClickException(
            f"{'; '.join(dead)}: check it with `referee bot check URL --game {game}`, or "
            "pass --allow-dead to play anyway")
    for line in dead:
        click.echo(f"warning: {line}; playing anyway (--allow-dead)", err=True)
    return infos


def liveness_problem(info: Any, fault: Fault | None, game: str) -> str | None:
    """Why a bot's ``GET /`` answer says it cannot play ``game`` now, or ``None``."""
    if fault is not None:
        return f"does not answer GET / ({printable(str(fault))})"
    if not isinstance(info, dict):
        return "answers GET / with something that is not a JSON object"
    games = info.get("games")
    if isinstance(games, list) and game not in games:
        return f"does not play {game} (its GET / lists {printable(repr(games))[:200]})"
    return None


def capacity_warnings(infos: Mapping[str, Any], needed: Mapping[str, int],
                      advice: str) -> list[str]:
    """A line for every bot whose ``GET /`` announces fewer ``max_connections`` than the
    matches will hold open to it at once (one kept-alive connection per seat per match)."""
    lines = []
    for url, need in needed.items():
        cap = infos.get(url, {}).get("max_connections") if isinstance(infos.get(url), dict) else None
        if isinstance(cap, int) and not isinstance(cap, bool) and need > cap:
            lines.append(f"warning: bot {redact(url)} takes at most {cap} connections (its GET /), "
                         f"but the matches may hold {need} open to it at once: {advice}")
    return lines


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

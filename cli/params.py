"""Shared click options and parameter types: each fails with the reason, never a traceback.

The checks themselves are domain functions (``arena``, ``referee.matchlog``) that raise typed
errors; here they become click's usage errors where the user typed the value, and the
group turns every other :class:`~referee.errors.RefereeError` into one line (``cli.LazyGroup``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import click

from arena import DescriptionError, Probe, parse_option_pairs, probe
from arena.description import NAME_RE
from bots import did_you_mean
from referee.core import Game, UnknownGameError
from referee.games import find_game, game_names
from referee.match import DEFAULT_STRIKES, TimeControl
from referee.matchlog import LogError, check_log_path

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
            self.fail(str(exc) + did_you_mean(value, game_names()), param, ctx)


GAME = GameType()


def game_option(**kwargs: Any) -> Any:
    return click.option(
        "--game", "-g", type=GAME, required=True, help=f"One of: {', '.join(game_names())}.",
        **kwargs,
    )


def board_option() -> Any:
    return click.option(
        "--board", "board_path", type=click.Path(dir_okay=False), default=None,
        help="A board data file replacing the packaged default.",
    )


def _options(ctx: click.Context, param: click.Parameter, pairs: tuple[str, ...]) -> dict[str, Any]:
    try:
        return parse_option_pairs(pairs)
    except DescriptionError as exc:
        raise click.BadParameter(str(exc), ctx, param_hint="--option") from None


def game_options_option() -> Callable[[F], F]:
    """``--option KEY=VALUE`` (repeatable), given to the command as ``options``, a dict."""
    return click.option(
        "--option", "options", multiple=True, metavar="KEY=VALUE", callback=_options,
        help="A game option, e.g. automa=2 for Tokaido Duo's solo mode.",
    )


def _log_path(ctx: click.Context, param: click.Parameter, path: str | None) -> str | None:
    """Refuse, before playing, a ``--log`` that could not be written after the match."""
    if path is not None:
        try:
            check_log_path(path)
        except LogError as exc:
            raise click.BadParameter(str(exc), ctx, param) from None
    return path


def log_option() -> Callable[[F], F]:
    return click.option("--log", "log_path", type=click.Path(dir_okay=False, writable=True),
                        callback=_log_path, help="Write the match log here.")


def clock_options(bank: bool = True, per_entrant: bool = False) -> Callable[[F], F]:
    """``--time-ms``, ``--bank-ms`` (unless ``bank`` is false) and ``--strikes``: the time
    control and fault tolerance every command that plays matches shares. ``per_entrant``
    (tournaments): ``--time-ms`` repeats, ``MS`` for everyone and ``NAME=MS`` for one entrant,
    and the command gets :class:`EntrantTimes`."""
    clock = TimeControl()

    def decorate(func: F) -> F:
        func = click.option("--strikes", type=click.IntRange(1), default=DEFAULT_STRIKES,
                            show_default=True, help="Strikes before a seat forfeits.")(func)
        if bank:
            func = click.option("--bank-ms", type=click.IntRange(0), default=clock.bank_ms,
                                show_default=True, help="Overage bank per seat.")(func)
        if per_entrant:
            return click.option(
                "--time-ms", multiple=True, metavar="[NAME=]MS", callback=_entrant_times,
                help=f"Time per decision (default {clock.decision_ms}); NAME=MS gives entrant "
                     "NAME its own (repeat it: --time-ms 1000 --time-ms new=500).")(func)
        return click.option("--time-ms", type=click.IntRange(1), default=clock.decision_ms,
                            show_default=True, help="Time per decision.")(func)
    return decorate


@dataclass(frozen=True)
class EntrantTimes:
    """``--time-ms`` of a tournament: ``default_ms`` for every entrant, ``own`` by name."""

    default_ms: int = TimeControl().decision_ms
    own: Mapping[str, int] = field(default_factory=dict)


def _entrant_times(ctx: click.Context, param: click.Parameter,
                   values: tuple[str, ...]) -> EntrantTimes:
    """``MS`` (the last one given wins) and ``NAME=MS`` words; a name is what ``NAME=BOT``
    may be (so ``mcts:ms=50=500`` is refused: name that entrant first)."""
    default, own = EntrantTimes.default_ms, {}
    for value in values:
        name, sep, ms = value.rpartition("=")
        if not ms.isdigit() or int(ms) < 1 or (sep and not NAME_RE.fullmatch(name)):
            raise click.BadParameter(
                f"{value!r} is not MS or NAME=MS (a whole number of milliseconds, at least "
                "1; NAME as in NAME=BOT)", ctx, param_hint="--time-ms")
        if sep:
            own[name] = int(ms)
        else:
            default = int(ms)
    return EntrantTimes(default, own)


def allow_dead_option() -> Callable[[F], F]:
    return click.option(
        "--allow-dead", is_flag=True,
        help="Play even when an HTTP bot does not answer GET / before the first game (its "
             "decisions are then struck and played by the fallback).",
    )


def require_live(urls: Sequence[str], game: str, allow_dead: bool) -> Probe:
    """``GET /`` of every HTTP bot before the first game: a bot that does not answer, or does
    not play ``game``, stops the command (:class:`~arena.DeadBotError`) unless ``allow_dead``,
    which prints a warning for it instead."""
    found = probe(urls, game)
    if not allow_dead:
        found.require_alive()
    for line in found.dead:
        click.echo(f"warning: {line}; playing anyway (--allow-dead)", err=True)
    return found

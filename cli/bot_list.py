"""``referee bot list``: the built-in bots, the games each plays and the parameters each takes.

Read from the bots registry and from each bot class's signature (a parameter is a keyword of
its constructor, ``game`` and ``seed`` apart), so the list is the one ``find_bot`` checks a spec
against: ``mcts:ms=500`` is accepted exactly when ``ms`` is listed for the game.
"""

from __future__ import annotations

import importlib
import inspect
import json
from dataclasses import asdict, dataclass
from typing import Any

import click

from cli.params import GAME
from referee.core import Game

EVERY_GAME = "*"
"""The registry's key for a version of a bot that plays any game."""


@dataclass(frozen=True)
class BotVersion:
    """One built-in bot for one game: what it is, and its parameters with their defaults."""

    name: str
    game: str
    about: str
    parameters: dict[str, Any]


def versions(game: str | None = None) -> list[BotVersion]:
    """Every built-in bot for every game (or for ``game``), by name then game; a bot that plays
    any game is listed for each registered game it has no specific version for."""
    from bots import registered_bots
    from referee.games import game_names

    games = [game] if game else game_names()
    found = []
    for name, by_game in sorted(registered_bots().items()):
        for g in games:
            target = by_game.get(g) or by_game.get(EVERY_GAME)
            if target is not None:
                found.append(describe(name, g, target))
    return found


def describe(name: str, game: str, target: str) -> BotVersion:
    """The bot class at ``target`` (``module:Class``) as listed: its module's first docstring
    line (``"``mcts``: …"`` without the name) and its constructor's parameters."""
    module_name, class_name = target.split(":")
    module = importlib.import_module(module_name)
    cls = getattr(module, class_name)
    about = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""
    about = about.split(": ", 1)[1] if about.startswith("``") and ": " in about else about
    parameters = {p.name: p.default for p in inspect.signature(cls).parameters.values()
                  if p.name not in ("game", "seed")}
    return BotVersion(name, game, about, parameters)


def spelled(parameters: dict[str, Any]) -> str:
    """``ms=100 playouts=- rollout=4``: a default of ``None`` (off unless given) as ``-``."""
    if not parameters:
        return "no parameters"
    return " ".join(f"{k}={'-' if v is None else format(v, 'g') if isinstance(v, float) else v}"
                    for k, v in parameters.items())


@click.command("list")
@click.option("--game", "-g", type=GAME, default=None, help="Only the bots for this game.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list and nothing else.")
def bot_list(game: Game | None, as_json: bool) -> None:
    """List the built-in bots: the games each plays, and its parameters with their defaults
    (give them as NAME:KEY=VALUE,..., e.g. mcts:playouts=200; "-" is off unless given)."""
    found = versions(game.name if game else None)
    if as_json:
        click.echo(json.dumps([asdict(v) for v in found]))
        return
    last = None
    for v in found:
        if v.name != last:
            click.echo(v.name)
            last = v.name
        click.echo(f"  {v.game}: {v.about}\n    {spelled(v.parameters)}")

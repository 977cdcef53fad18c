"""The registry of games: ``find_game(name)`` and ``GAMES``.

Games register by module path so that importing the registry stays cheap; a game module is
imported the first time it is asked for.
"""

from __future__ import annotations

import importlib

from referee.core import Game, UnknownGameError

_MODULES: dict[str, str] = {
    "tokaido-duo": "referee.games.tokaido_duo",
    "doubletrack": "referee.games.doubletrack",
}
_loaded: dict[str, Game] = {}


def game_names() -> list[str]:
    """Every registered game name, sorted."""
    return sorted(_MODULES)


def find_game(name: str) -> Game:
    """The game called ``name``; :class:`UnknownGameError` lists the known names otherwise."""
    if name not in _loaded:
        if name not in _MODULES:
            raise UnknownGameError(
                f"unknown game {name!r}; known games: {', '.join(game_names())}"
            )
        module = importlib.import_module(_MODULES[name])
        _loaded[name] = module.GAME
    return _loaded[name]

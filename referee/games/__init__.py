"""The registry of games: ``find_game(name)``, ``game_names()`` and ``register_game``.

Games register by module path so that importing the registry stays cheap; a game module is
imported the first time it is asked for. The module must define ``GAME``, a
:class:`~referee.core.Game`. Only this module writes the registry: other code registers
through :func:`register_game` and :func:`unregister_game`, and a process started apart (a
pool worker) gets the same games from :func:`registered_games` (see ``arena.registry``).
"""

from __future__ import annotations

import importlib

from referee.core import Game, UnknownGameError

_MODULES: dict[str, str] = {
    "tokaido-duo": "referee.games.tokaido_duo",
    "doubletrack": "referee.games.doubletrack",
}
_loaded: dict[str, Game] = {}


def register_game(name: str, module_path: str) -> None:
    """Register the game ``name``, whose module ``module_path`` defines ``GAME``.

    Registering a name again with the same module does nothing (so set-up code may run twice);
    with another module it raises ``ValueError``, as a name must keep meaning one game.
    """
    if not name or not module_path:
        raise ValueError(f"register_game needs a game name and a module path, "
                         f"got {name!r} and {module_path!r}")
    known = _MODULES.get(name)
    if known is not None and known != module_path:
        raise ValueError(f"game {name!r} is already registered (module {known})")
    _MODULES[name] = module_path


def unregister_game(name: str) -> None:
    """Forget the game ``name`` (nothing happens for an unknown name): for set-up code that
    registered a game for a while, such as a test, and must leave the registry as it was."""
    _MODULES.pop(name, None)
    _loaded.pop(name, None)


def registered_games() -> dict[str, str]:
    """Every registered game's module path by name (a copy: a worker process started apart
    registers the same games from it)."""
    return dict(_MODULES)


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

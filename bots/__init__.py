"""Built-in bots, found by name: ``find_bot("greedy", "tokaido-duo", seed)``.

``random`` and ``mcts`` play every game; ``greedy`` has one heuristic per game. Every bot reads
only the decision and the view it is given, like a bot behind HTTP.
"""

from __future__ import annotations

import importlib

from referee.players import Bot

# name -> {game name or "*": "module:Class"}
_BOTS: dict[str, dict[str, str]] = {
    "random": {"*": "bots.random_bot:RandomBot"},
    "greedy": {
        "tokaido-duo": "bots.tokaido_greedy:TokaidoGreedyBot",
        "doubletrack": "bots.doubletrack_greedy:DoubletrackGreedyBot",
    },
    "mcts": {"*": "bots.mcts:MctsBot"},
}


class UnknownBotError(LookupError):
    """A bot name that is not built in (or not for that game); the message lists the names."""


def bot_names() -> list[str]:
    return sorted(_BOTS)


def find_bot(name: str, game: str, seed: int) -> Bot:
    """A fresh built-in bot called ``name`` for ``game``, its own randomness seeded by ``seed``."""
    by_game = _BOTS.get(name)
    if by_game is None:
        raise UnknownBotError(
            f"unknown bot {name!r}; built-in bots: {', '.join(bot_names())} (or an http:// URL)"
        )
    target = by_game.get(game) or by_game.get("*")
    if target is None:
        raise UnknownBotError(f"bot {name!r} has no version for game {game!r}")
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    bot: Bot = cls(game=game, seed=seed)
    return bot

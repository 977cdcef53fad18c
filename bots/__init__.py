"""Built-in bots, found by name: ``find_bot("greedy", "tokaido-duo", seed)``.

``random`` and ``mcts`` play every game; ``greedy`` has one heuristic per game. Every bot reads
only the decision and the view it is given, like a bot behind HTTP. A name may carry numeric
parameters after a colon: ``mcts:ms=500`` or ``mcts:playouts=200``.

The registry maps a name to a ``module:Class`` per game (``"*"``: any game), imported only when
the bot is asked for. Only this module writes it: other code adds bots with
:func:`register_bot`, and a process started apart gets the same bots from
:func:`registered_bots` (see ``arena.registry``).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import math
import re
from collections.abc import Iterable

from referee.errors import RefereeError
from referee.players import Bot

# name -> {game name or "*": "module:Class"}
_BOTS: dict[str, dict[str, str]] = {
    "random": {"*": "bots.random_bot:RandomBot"},
    "greedy": {
        "tokaido-duo": "bots.tokaido_greedy:TokaidoGreedyBot",
        "doubletrack": "bots.doubletrack_greedy:DoubletrackGreedyBot",
    },
    "mcts": {
        "doubletrack": "bots.doubletrack_search:DoubletrackSearchBot",
        "*": "bots.mcts:MctsBot",
    },
}


_FIXED_BUDGET: dict[str, str | None] = {"random": None, "greedy": None, "mcts": "playouts"}
"""Built-in bots whose play does not depend on the clock: always (``None``), or when given
this parameter (a fixed number of playouts instead of the default time budget). They play
the same moves for the same seed on any machine, so they are never struck for time (see
:attr:`~referee.players.Bot.timed`); a time-budgeted bot is held to the limit like any bot."""


class UnknownBotError(RefereeError, LookupError):
    """A bot name that is not built in (or not for that game); the message lists the names."""


class BotSpecError(UnknownBotError):
    """A built-in bot's parameters that are malformed, unknown or out of range.

    A subclass of :class:`UnknownBotError` so that every caller that turns a bad bot name into
    a one-line error (the CLI catches ``LookupError``) does the same for a bad parameter.
    """


def register_bot(name: str, target: str, game: str = "*") -> None:
    """Register the bot ``name`` for ``game`` (``"*"``: every game): ``target`` is
    ``"module:Class"``, a :class:`~referee.players.Bot` taking ``game`` and ``seed`` (and its
    numeric parameters) as keywords.

    Registering the same target again does nothing (set-up code may run twice); another target
    for a name and game already registered raises ``ValueError``, as a name must keep meaning
    one bot.
    """
    module, sep, cls = target.partition(":")
    if not name or not game or not sep or not module or not cls:
        raise ValueError(f"register_bot needs a name, a game and a 'module:Class' target, got "
                         f"{name!r}, {game!r} and {target!r}")
    if ":" in name or "=" in name or "://" in name:
        raise ValueError(f"bot name {name!r}: a name holds no ':', '=' or '://' (they separate "
                         "parameters, seat names and URLs)")
    known = _BOTS.get(name, {}).get(game)
    if known is not None and known != target:
        raise ValueError(f"bot {name!r} is already registered for {game!r} ({known})")
    _BOTS.setdefault(name, {})[game] = target


def unregister_bot(name: str) -> None:
    """Forget the bot ``name`` for every game (nothing happens for an unknown name): for set-up
    code that registered a bot for a while, such as a test."""
    _BOTS.pop(name, None)


def registered_bots() -> dict[str, dict[str, str]]:
    """Every registered bot's ``module:Class`` by name and game (a copy: a worker process
    started apart registers the same bots from it)."""
    return {name: dict(by_game) for name, by_game in _BOTS.items()}


def bot_names() -> list[str]:
    """The built-in bot names (the registry itself stays private)."""
    return sorted(_BOTS)


def bot_games(name: str) -> list[str] | None:
    """The games the built-in bot ``name`` (no parameters) has a version for, ``"*"`` for
    every game; ``None`` for an unknown name."""
    by_game = _BOTS.get(name)
    return None if by_game is None else sorted(by_game)


def parse_bot_spec(spec: str) -> tuple[str, dict[str, float]]:
    """``"mcts:ms=50,playouts=9"`` -> ``("mcts", {"ms": 50.0, "playouts": 9.0})``.

    Values must be finite numbers (``nan`` or ``inf`` would reach a bot's budget arithmetic);
    whether a value is in range is the bot's own check, made in its constructor.
    """
    name, _, raw = spec.partition(":")
    params: dict[str, float] = {}
    for pair in filter(None, raw.split(",")):
        key, sep, value = pair.partition("=")
        try:
            if not sep or not key.isidentifier() or key in params:
                raise ValueError
            params[key] = float(value)
        except ValueError:
            raise BotSpecError(f"bad bot parameter {pair!r} in {spec!r}: expected key=number, "
                               "each key once") from None
        if not math.isfinite(params[key]):
            raise BotSpecError(f"bad bot parameter {pair!r} in {spec!r}: not a finite number")
    return name, params


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``" (did you mean 'greedy'?)"`` for a near miss of one of ``known``, else ``""``."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


ADDRESS = re.compile(r"(localhost|\[[0-9A-Fa-f:.]+\]|[\w-]+(\.[\w-]+)*):\d{1,5}(/\S*)?")
"""``host:port`` (or ``host:port/path``): a bot's address typed without its scheme."""


def find_bot(spec: str, game: str, seed: int) -> Bot:
    """A fresh built-in bot for ``game`` from ``spec`` (a name, maybe with parameters),
    its own randomness seeded by ``seed``."""
    if ADDRESS.fullmatch(spec) and spec.partition(":")[0] not in _BOTS:
        raise UnknownBotError(f"{spec!r} is not a built-in bot; an HTTP bot's address needs "
                              f"its scheme: did you mean http://{spec} ?")
    name, params = parse_bot_spec(spec)
    by_game = _BOTS.get(name)
    if by_game is None:
        raise UnknownBotError(
            f"unknown bot {name!r}{did_you_mean(name, _BOTS)}; built-in bots: "
            f"{', '.join(bot_names())} (or an http:// URL)"
        )
    target = by_game.get(game) or by_game.get("*")
    if target is None:
        raise UnknownBotError(f"bot {name!r} has no version for game {game!r}")
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    accepted = [p for p in inspect.signature(cls).parameters if p not in ("game", "seed")]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        takes = f"takes {', '.join(accepted)}" if accepted else "takes no parameters"
        hint = did_you_mean(unknown[0], accepted) if len(unknown) == 1 else ""
        raise BotSpecError(f"bot {name!r} has no parameter {', '.join(unknown)}{hint}; "
                           f"for {game or 'any game'} it {takes}")
    try:
        bot: Bot = cls(game=game, seed=seed, **params)
    except ValueError as exc:  # a bot's range check on its parameters
        raise BotSpecError(f"bad bot spec {spec!r}: {exc}") from None
    if name in _FIXED_BUDGET and _FIXED_BUDGET[name] in (None, *params):
        bot.timed = False
    return bot

"""The game and bot registries as data, for processes started apart.

A process started with the ``spawn`` method (a tournament's pool worker, a service worker)
imports the packages afresh and sees only the built-in games and bots; whatever the parent
registered since (a test's toy game, a plug-in's bot) reaches it as a :class:`Registries`
snapshot, which :func:`restore` registers through the registries' own public functions.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from dataclasses import dataclass

from arena.watchdog import exit_with_parent
from bots import register_bot, registered_bots
from referee.games import register_game, registered_games


@dataclass(frozen=True)
class Registries:
    """Every registered game's module path by name, every bot's ``module:Class`` by name and
    game: plain data, picklable."""

    games: Mapping[str, str]
    bots: Mapping[str, Mapping[str, str]]


def snapshot() -> Registries:
    """The registries as this process sees them."""
    return Registries(registered_games(), registered_bots())


def restore(registries: Registries) -> None:
    """Register every game and bot of ``registries`` here (those already registered the same
    way stay; one registered otherwise raises ``ValueError``, as a name must keep meaning one
    game or bot)."""
    for name, module in registries.games.items():
        register_game(name, module)
    for name, by_game in registries.bots.items():
        for game, target in by_game.items():
            register_bot(name, target, game)


def init_worker(registries: Registries, parent_pid: int) -> None:
    """Set up a pool worker that plays matches for ``parent_pid``: the parent's registries,
    Ctrl-C left to the parent, and an exit when the parent dies (:mod:`arena.watchdog`: a
    killed parent must not leave its workers behind).

    The terminal sends SIGINT to the whole process group; workers ignore it so that only the
    parent reacts (it cancels the rest and stops the pool) and no worker prints a traceback.
    """
    exit_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    restore(registries)

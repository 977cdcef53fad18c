"""The board a built-in bot plays on, built from its ``/start`` and warmed up off the clock.

A bot is told the board in ``/start`` (:attr:`~referee.players.MatchInfo.board`): board data,
which it turns into the game's board object. Building one, and the tables a search reads from
it (Tokaido Duo's move tables), took 100 to 400 ms, and lazily, in the bot's first decision:
on the clock, where a time-budgeted ``mcts`` was struck for it. So a built-in bot gets its
board here, in ``start``, which the referee calls before the first decision and does not
time against the decision limit (an HTTP bot has 2 s for it: the protocol's ``/start``):

- the board is built once per process for the same data (the same board, every match of a
  tournament), and kept (a few, the most recently used);
- :data:`WARM_UPS` builds what the game's engine would otherwise build at its first use.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from referee.core import Game

WARM_UPS: dict[str, str] = {
    "tokaido-duo": "referee.games.tokaido_duo.tables:move_tables",
}
"""game -> "module:function" taking the board: builds (and keeps on the board) the tables the
game's states read, which a state otherwise builds in the first decision of a match."""

KEEP = 8
"""Boards kept per process (a tournament uses one; a bot server may see a few)."""

_boards: OrderedDict[tuple[str, str], Any] = OrderedDict()
_lock = threading.Lock()


def match_board(game: Game, data: Mapping[str, Any] | None) -> Any:
    """The board of ``data`` (``None`` or empty: the game's packaged board), warmed up: the
    same object for the same data while it is kept, so its tables are built once."""
    if not data:
        return warm_up(game.name, game.load_board())
    key = (game.name, json.dumps(data, sort_keys=True, separators=(",", ":")))
    with _lock:
        board = _boards.get(key)
        if board is not None:
            _boards.move_to_end(key)
            return board
    board = warm_up(game.name, game.board_from_data(data))  # outside the lock: slow
    with _lock:
        _boards[key] = board
        while len(_boards) > KEEP:
            _boards.popitem(last=False)
    return board


def warm_up(game: str, board: Any) -> Any:
    """Build what ``game``'s engine reads from ``board`` (once: the tables stay on it)."""
    target = WARM_UPS.get(game)
    if target is not None:
        module, name = target.split(":")
        getattr(importlib.import_module(module), name)(board)
    return board

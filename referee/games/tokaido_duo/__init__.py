"""Tokaido Duo (Antoine Bauza, Funforge): two travellers' pilgrim, merchant and artist on
Shikoku, driven by a 1-2-1 draft of three dice; plus the solo variant against the Automa.

The rules are in the project's rules page for the game; the board, dice, tiles and score tables
are data (``board.yaml`` beside this module, or another file).  ``GAME`` is the registry entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.core import Game, GameOptionsError

from .board import Board
from .determinize import determinize
from .state import TokaidoState
from .views import RULES_VERSION

OPTION_KEYS = ("automa",)


class TokaidoDuoGame(Game):
    """The registry entry: 2 seats, or 1 seat against the Automa (``options={"automa": 1..6}``)."""

    name = "tokaido-duo"
    title = "Tokaido Duo"
    rules_version = RULES_VERSION
    player_counts = (1, 2)
    solo_option = "automa"
    solo_levels = tuple(range(1, 7))

    def board_from_data(self, data: Mapping[str, Any]) -> Board:
        return Board(data)

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``automa``: the solo level, an integer 1-6; unknown keys are rejected."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(OPTION_KEYS))
        if unknown:
            raise GameOptionsError(f"tokaido-duo: unknown option(s) {unknown}; known: automa")
        if "automa" in options:
            level = options["automa"]
            if not isinstance(level, int) or isinstance(level, bool) or level not in self.solo_levels:
                raise GameOptionsError(f"tokaido-duo: automa must be a level 1-6, got {level!r}")
        return options

    def new_state(self, num_players: int, seed: int, board: Any | None = None,
                  options: Mapping[str, Any] | None = None) -> TokaidoState:
        opts = self.validate_options(options)
        if num_players not in self.player_counts:
            raise GameOptionsError(
                f"tokaido-duo: 1 (solo, with automa=LEVEL) or 2 players, got {num_players}")
        level = opts.get("automa")
        if num_players == 1 and level is None:
            raise GameOptionsError("tokaido-duo: solo play needs the option automa=LEVEL (1-6)")
        if num_players == 2 and level is not None:
            raise GameOptionsError("tokaido-duo: the automa option is for 1 player only")
        return TokaidoState(board if board is not None else self.load_board(), seed,
                            num_players, level)

    def determinize(self, view: Mapping[str, Any], seed: int,
                    board: Any | None = None) -> TokaidoState:
        return determinize(view, seed, board if board is not None else self.load_board())


GAME = TokaidoDuoGame()

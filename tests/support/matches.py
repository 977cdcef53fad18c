"""Matches between bots named by spec, played as every match is: by ``arena.play_match``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena import MatchDescription, MatchRecord, parse_seats, play_match


def play_bots(game: str, bots: Sequence[str], seed: int, **terms: Any) -> MatchRecord:
    """The match of ``bots`` (built-in specs, URLs or ``NAME=BOT``) seeded ``seed``; ``terms``
    are the other fields of :class:`~arena.MatchDescription` (``options``, ``board``, ...)."""
    return play_match(MatchDescription(game, parse_seats(bots), seed, **terms))

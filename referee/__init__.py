"""Referee: runs board-game matches between bots and enforces the rules."""

__version__ = "0.1.0"

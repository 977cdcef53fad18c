"""The tournament package's errors: one the user caused, and the user's Ctrl-C."""

from __future__ import annotations

from referee.errors import RefereeError


class TournamentError(RefereeError, ValueError):
    """A tournament that cannot be set up or resumed; the message says why, in one line."""


class Interrupted(Exception):
    """Raised by :meth:`~tournaments.tournament.Tournament.run` and
    :meth:`~tournaments.sprt.Sprt.run` after Ctrl-C, once the pools have been stopped (the
    games finished so far are kept)."""

"""The ladder: bots, matches and ratings in a database, and the rating models themselves.

``ladder.store`` is the front door (``open_db``, ``record_match``); ``ladder.leaderboard``
reads a ladder and ``ladder.recompute`` rebuilds one; ``ladder.ratings`` holds the maths (Elo,
Bradley-Terry, openskill) and imports no database code, so it can be tested and reused on its
own.  Importing this package is cheap:
SQLAlchemy loads only when a store module is imported.
"""

from __future__ import annotations

from referee.errors import RefereeError


class LadderError(RefereeError):
    """A bad input or an unusable database, with a one-line message fit for the CLI."""


class NotFoundError(LadderError):
    """The thing asked for does not exist (HTTP 404)."""


class ForbiddenError(LadderError):
    """It exists, but it is someone else's (HTTP 403)."""


class ConflictError(LadderError):
    """The request clashes with the current state: a name taken, a log not ready (HTTP 409)."""


class InvalidError(LadderError):
    """Well-formed but unacceptable input, e.g. a bot that does not play the game (HTTP 422)."""

"""The one root of every error a user can cause: :class:`RefereeError`.

A bad game name, a bad bot spec or URL, a board file that does not load, a log that is not a
match log, a ladder database that cannot be used, a tournament that cannot be resumed: each is a
subclass of :class:`RefereeError` defined beside the code that detects it, and its message is one
line that says what is wrong, fit to show as it is. So a front end maps errors to what its user
sees in one place: the CLI prints the message (``cli.errors``), the service answers a 4xx with it.
Anything else that escapes is a bug of the referee, not a user's mistake.

Several subclasses keep a built-in base too (``ValueError``, ``LookupError``), so that code that
caught those before still does.

Bot faults are not errors: a bot that times out or answers nonsense is struck and the match goes
on (:mod:`referee.faults`).
"""

from __future__ import annotations


class RefereeError(Exception):
    """Something a user asked for cannot be done; the message says why, in one line."""

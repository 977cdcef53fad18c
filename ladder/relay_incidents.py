"""A web process that cannot reach the relay for a pull bot: the referee's failure, so never
the bot's strike.

A pull bot's requests and answers pass through the relay (Redis in production) between the
worker that plays the match and the web process that holds the bot's connection.  When only
the web process loses the relay (a partition, a store too slow for its socket timeouts), the
bot's poll or answer gets a 503 while the worker, which still reaches the relay, waits out the
deadline: a timeout, which the match would charge to the bot.  So the web process books what it
saw (:func:`book`: an :class:`~ladder.models.Incident` naming the bot, outcome
:data:`RELAY_DOWN`), and the worker, before finishing a match in which such a bot was struck,
asks whether one was booked while it played (:func:`failed_for`): if so the attempt is the
referee's failure and the match is played again, as any other failure of the referee's.
Only the store's own errors are booked (a relay raises :class:`~referee.relay.RelayError` for
nothing a bot sends: a bad answer is a strike, a second connection a 409), so a bot cannot
book one to have a match it is losing played again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import Engine, insert, select

from ladder.accounts import now_utc
from ladder.db import reader, translate_errors
from ladder.models import NAME_LEN, REASON_LEN, Incident

RELAY_DOWN = "relay_down"
BOOK_EVERY_S = 5.0
"""A web process books one incident per bot at most this often (a poll comes every second or
so while the relay is down); the worker looks this far before the attempt began."""


def book(engine: Engine, bot_id: int, error: str, worker: str,
         now: datetime | None = None) -> None:
    """The web process ``worker`` could not reach the relay for ``bot_id``'s poll or answer."""
    with translate_errors(engine), engine.begin() as conn:
        conn.execute(insert(Incident).values(
            at=now or now_utc(), match_pk=None, attempt=0, outcome=RELAY_DOWN,
            error=error[:REASON_LEN], detail="", worker=worker[:NAME_LEN], bot_id=bot_id))


def failed_for(engine: Engine, bot_ids: Sequence[int], since: datetime,
               until: datetime | None = None) -> list[int]:
    """Which of ``bot_ids`` a web process could not relay for between ``since`` (less
    :data:`BOOK_EVERY_S`, since bookings are spaced) and ``until``."""
    if not bot_ids:
        return []
    with translate_errors(engine), reader(engine) as conn:
        return sorted({b for b in conn.execute(select(Incident.bot_id).where(
            Incident.outcome == RELAY_DOWN, Incident.bot_id.in_(list(bot_ids)),
            Incident.at >= since - timedelta(seconds=BOOK_EVERY_S),
            Incident.at <= (until or now_utc()))).scalars() if b is not None})

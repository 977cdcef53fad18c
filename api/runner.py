"""One attempt of one match, as every worker runs it (Celery task or embedded thread).

Claim (compare-and-swap), play with no transaction open while a timer renews the lease, then
finish (compare-and-swap on the attempt, with the rating step in the same transaction).  A
duplicate delivery claims nothing and returns at once; a crash mid-match leaves the lease to
expire and the sweeper to hand the match to the next attempt.

Whose fault an exception is was settled below this module: a bot's faults never raise (the
transport and the players turn everything a bot sends, or fails to send, into a strike), so
whatever raises out of playing or finishing is the referee's own failure.  It is never charged
to a bot and never voids a match at once: it is booked as an incident for the operator, and
the match is given its next attempt (returned as ``retry``: the caller enqueues it again); only
after its last attempt is it voided.  Finishing is retried a few times first, since a database
hiccup there would otherwise cost a whole replay.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from ladder import LadderError
from ladder.accounts import now_utc
from ladder.work import Claim, claim, fail_attempt, finish, renew
from referee.netpolicy import UrlPolicy

log = logging.getLogger("referee.runner")
Play = Callable[[Claim, UrlPolicy], dict[str, Any]]
FINISH_TRIES = (0.5, 1.0, 2.0)
"""Pauses between the tries of finishing a played match when storage fails: a result in hand
is worth waiting a few seconds for, rather than a whole replay."""
RETRY_DELAY_S = 2.0
"""How long a caller waits before the next attempt of a match the referee failed."""


def run_match(engine: Engine, match_pk: int, policy: UrlPolicy, *, lease_s: float,
              play: Play | None = None, worker: str | None = None,
              after: Callable[[Claim], object] | None = None) -> str:
    """Run the next attempt of ``match_pk``; what happened: ``nothing`` (no claim),
    ``finished``, ``superseded`` (another attempt owns it now), ``retry`` (the referee
    failed this attempt: enqueue the match again) or ``voided`` (it failed the last one).
    ``after`` is called with the claim once the match is over (finished or voided: its bots
    are free again), to run the matchmaker; its failures are logged, never the match's."""
    from api.execution import Heartbeat, play as default_play, relay_failed, worker_name

    began = time.perf_counter()
    held = claim(engine, match_pk, worker or worker_name(), lease_s)
    if held is None:
        return "nothing"
    try:
        with Heartbeat(lambda: renew(engine, held, lease_s), lease_s / 3,
                       f"lease-m{held.match_pk}"):
            claimed, cpu, since = time.perf_counter(), time.process_time(), now_utc()
            record = (play or default_play)(held, policy)
            played, cpu = time.perf_counter(), time.process_time() - cpu
        relay_failed(engine, held, record, since)  # a pull bot struck for the relay's failure
        outcome = "finished" if _finish(engine, held, record) else "superseded"
    except Exception as exc:  # the referee's own failure: a bot's faults never raise
        log.exception("match %s attempt %s: the referee failed", match_pk, held.attempt)
        outcome = fail_attempt(engine, held, f"{type(exc).__name__}: {exc}",
                               traceback.format_exc())
        if outcome == "voided":
            _after(after, held)
        return "retry" if outcome == "retried" else outcome
    log.info("match %s attempt %s %s: claim %.3f s, play %.3f s (cpu %.3f s), finish %.3f s",
             match_pk, held.attempt, outcome, claimed - began, played - claimed, cpu,
             time.perf_counter() - played)
    if outcome == "finished":
        _after(after, held)
    return outcome


def _finish(engine: Engine, held: Claim, record: dict[str, Any]) -> bool:
    """:func:`ladder.work.finish`, tried again after a pause when storage fails (a bug fails
    at once: trying it again would only fail again)."""
    for pause in FINISH_TRIES:
        try:
            return finish(engine, held, record)
        except LadderError:
            log.warning("finishing match %s attempt %s failed; trying again in %.1f s",
                        held.match_pk, held.attempt, pause, exc_info=True)
            time.sleep(pause)
    return finish(engine, held, record)


def _after(after: Callable[[Claim], object] | None, held: Claim) -> None:
    if after is None:
        return
    try:
        after(held)
    except Exception:  # the beat's next tick does the same work
        log.exception("matchmaker tick after match %s of %s", held.match_pk, held.game)

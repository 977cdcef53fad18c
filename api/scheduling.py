"""The service's scheduling loop, once for every runner: the embedded pool's threads, the
Celery tasks (``referee worker`` and ``referee beat``) and ``referee ladder tick``.

Two jobs, each "change the database, then enqueue what it made runnable": a **tick** of the
matchmaker releases matches (:func:`tick_and_enqueue`; also run after every match, see
:func:`after_match`), a **sweep** hands lost work on (:func:`sweep_and_enqueue`).  The database
is what counts: an enqueue lost after the commit is found by the next sweep.  A runner only
says where ids go (:class:`Enqueue`: threads' queues, or Celery tasks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from sqlalchemy import Engine

from ladder import metrics
from ladder.matchmaking import MatchmakerConfig, TickResult, tick
from ladder.solo_ladder import tick as solo_tick
from ladder.work import Claim, SweepPolicy, may_reschedule, sweep


class Enqueue(Protocol):
    """Where a runner sends work: match ids and bot check ids."""

    def enqueue(self, ids: Sequence[int]) -> None: ...

    def enqueue_checks(self, ids: Sequence[int]) -> None: ...


def tick_and_enqueue(engine: Engine, config: MatchmakerConfig, to: Enqueue | None, *,
                     wait: bool = True) -> TickResult:
    """Run the matchmaker once, then send what it released to ``to`` (``None``: leave it to
    the sweeper of whatever runs the matches).  ``wait=False``: skip the tick while another
    runs (see :func:`ladder.matchmaking.tick`)."""
    with metrics.TICK_SECONDS.time():
        result = tick(engine, config=config, wait=wait)
    if to is not None and result.enqueue:
        to.enqueue(result.enqueue)
    solo = solo_tick(engine, wait=wait)  # the solo ladders' rounds (ladder.solo_ladder)
    if to is not None and solo:
        to.enqueue(solo)
    return result


def after_match(engine: Engine, config: MatchmakerConfig,
                to: Enqueue) -> Callable[[Claim], object]:
    """What a runner calls once a match is over (its bots have a slot free again): a tick
    that does not queue behind another one (the next beat's tick catches up), unless the
    match freed nothing the matchmaker hands out (:func:`ladder.work.may_reschedule`: one
    indexed read instead of a tick reading every ladder)."""
    def run(held: Claim) -> object:
        if not may_reschedule(engine, held):
            return None
        return tick_and_enqueue(engine, config, to, wait=False)
    return run


def sweep_and_enqueue(engine: Engine, policy: SweepPolicy, to: Enqueue) -> int:
    """Sweep the matches and the bot checks, then send what is due again; how many ids."""
    from api.execution import sweep_checks

    ids = sweep(engine, policy)
    to.enqueue(ids)
    check_ids = sweep_checks(engine, policy)
    to.enqueue_checks(check_ids)
    return len(ids) + len(check_ids)

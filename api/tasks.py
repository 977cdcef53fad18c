"""Celery: the production transport of match ids to ``referee worker`` processes.

Celery only carries ids; exactly-once lives in the database (``ladder.work``).  The settings
follow from that: ``acks_late`` and ``reject_on_worker_lost`` so a task whose worker died is
delivered again (a duplicate claims nothing), prefetch 1 so a busy worker does not sit on
queued matches, a Redis visibility timeout above the longest match (the age cap) so a running
match is not re-delivered while it plays, and the prefork pool (matches are CPU work too).
Each worker process opens its own database engine after the fork.

``referee.run_check`` runs a bot check (``api.execution.run_check``): it plays a whole match,
so it is a job like a match, never the work of a request; the same workers run it.  Celery
kills it past the longest a check may run (with a margin): its lease then lapses and the
sweeper fails it.

``referee.play_description`` is the other kind of work: a match of a ``referee tournament
--broker`` run, sent whole as a description (``api.broker_pool``). Its log is its result, kept
in the broker's Redis (the result backend) until the tournament reads it; it touches no
database.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from celery import Celery
from celery.signals import worker_process_init
from sqlalchemy import Engine

from api.config import ServiceConfig
from ladder.checks import MAX_CHECK_S

_engine: tuple[int, Engine] | None = None
BROKER_SOCKET = {"socket_timeout": 10, "socket_connect_timeout": 5}
"""A broker that hangs (accepts, then never answers) costs a call this long, not for ever;
the consumer's own blocking reads are much shorter (kombu's BRPOP waits a second)."""


def config() -> ServiceConfig:
    return ServiceConfig.from_env()


def engine() -> Engine:
    """This process's engine (a forked child never reuses its parent's connections)."""
    global _engine
    if _engine is None or _engine[0] != os.getpid():
        from ladder.store import open_db

        _engine = (os.getpid(), open_db(config().db_url))
    return _engine[1]


@worker_process_init.connect
def _forget_parent_engine(**_: Any) -> None:
    global _engine
    _engine = None


def make_celery(broker_url: str, queue_name: str, cfg: ServiceConfig | None = None) -> Celery:
    cfg = cfg or config()
    app = Celery("referee", broker=broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue=queue_name,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # ride out a broker outage of any length
        broker_transport_options={"visibility_timeout": int(cfg.max_match_s + 600),
                                  **BROKER_SOCKET},
        redis_socket_timeout=BROKER_SOCKET["socket_timeout"],
        redis_socket_connect_timeout=BROKER_SOCKET["socket_connect_timeout"],
        worker_hijack_root_logger=False,
        beat_schedule={"referee-sweep": {"task": "referee.sweep", "schedule": cfg.sweep_s},
                       "referee-ladder-tick": {"task": "referee.ladder_tick",
                                               "schedule": cfg.tick_s},
                       "referee-health": {"task": "referee.health", "schedule": cfg.health_s}},
        # the tournaments' match logs (the only results kept) come back through Redis
        result_backend=broker_url if broker_url.startswith(("redis://", "rediss://")) else None,
        result_expires=86400,
    )

    class Tasks:
        """Where the scheduling loop sends ids: this app's tasks."""

        def enqueue(self, ids: Sequence[int]) -> None:
            for match_pk in ids:
                run_match_task.apply_async(args=[match_pk])

        def enqueue_checks(self, ids: Sequence[int]) -> None:
            for check_id in ids:
                run_check_task.apply_async(args=[check_id])

    @app.task(name="referee.run_match", shared=False)
    def run_match_task(match_pk: int) -> str:
        from api.runner import RETRY_DELAY_S, run_match
        from api.scheduling import after_match

        settings = config()
        outcome = run_match(engine(), int(match_pk), settings.policy(),
                            lease_s=settings.lease_s,
                            after=after_match(engine(), settings.matchmaker(), Tasks()))
        if outcome == "retry":  # the referee failed that attempt: the next one, soon
            run_match_task.apply_async(args=[match_pk], countdown=RETRY_DELAY_S)
        return outcome

    @app.task(name="referee.run_check", shared=False, time_limit=int(MAX_CHECK_S + 120))
    def run_check_task(check_id: int) -> str:
        from api.execution import run_check

        settings = config()
        return run_check(engine(), int(check_id), settings.policy(), lease_s=settings.lease_s)

    @app.task(name="referee.ladder_tick", shared=False)
    def ladder_tick_task() -> int:
        """The matchmaker: open rounds and release fixtures (lock-protected, idempotent)."""
        from api.scheduling import tick_and_enqueue

        return len(tick_and_enqueue(engine(), config().matchmaker(), Tasks()).enqueue)

    # the worker's own bound on a match, whatever the sender asks: past the visibility
    # timeout Redis would hand the message to a second worker while the first still plays
    @app.task(name="referee.play_description", shared=False, ignore_result=False,
              track_started=True, time_limit=int(cfg.max_match_s))
    def play_description_task(description: Any, keep_log: bool = True) -> dict[str, Any]:
        from api.broker_pool import play_description

        return play_description(description, bool(keep_log), config().policy())

    @app.task(name="referee.sweep", shared=False)
    def sweep_task() -> int:
        from api.scheduling import sweep_and_enqueue

        return sweep_and_enqueue(engine(), config().sweep_policy(), Tasks())

    @app.task(name="referee.health", shared=False)
    def health_task() -> dict[str, Any]:
        from api.health import probe_now

        settings = config()
        return probe_now(engine(), settings.policy(), settings.probe_interval_s)

    return app


def app_from_env() -> Celery:
    """The app ``referee worker`` and ``referee beat`` run (broker and queue from the env)."""
    cfg = config()
    if not cfg.broker_url:
        raise ValueError("no broker: set REFEREE_BROKER or --broker (redis://…)")
    return make_celery(cfg.broker_url, cfg.queue, cfg)

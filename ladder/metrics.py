"""The service's metrics and match events: every Prometheus metric is defined here, once, and
each place that changes what they count makes one call into this module.

A match's state change is one call (:func:`changed`, :func:`voided`, :func:`finished`, ...):
it counts the change and writes one log line on ``referee.matches`` carrying the match's ids
(match, game, bots, attempt, worker), so an operator can grep a match's life in the logs of
every process, and a JSON log (:mod:`api.logs`) carries them as fields.

Counters are per process.  Under gunicorn and in a Celery worker's pool the processes share a
multiprocess directory (``PROMETHEUS_MULTIPROC_DIR``, prepared by :mod:`api.metricsdir`
before this module is imported) and :func:`exposition` sums them; in one process (``referee
serve`` embedded) the default registry is read.  What the database knows (the queue) is read
at scrape time (:class:`QueueCollector`), never counted, so it is right whichever process
scrapes and however many restarted.
"""

from __future__ import annotations

import logging
import os
from collections import Counter as Tally
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy import Engine, func, select

from ladder.accounts import now_utc, utc
from ladder.db import reader, translate_errors
from ladder.models import RUNNING, SCHEDULED, Match

log = logging.getLogger("referee.matches")
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

MATCHES = Counter("referee_matches", "Match state changes, by game and the state entered "
                  "(scheduled, running, finished, voided)", ["game", "state"])
VOIDS = Counter("referee_voids", "Matches voided, by game and cause", ["game", "cause"])
LEASE_EXPIRIES = Counter("referee_lease_expiries", "Running matches whose lease expired "
                         "(their worker was lost), handed to their next attempt", ["game"])
REFEREE_FAILURES = Counter("referee_attempt_failures", "Attempts the referee itself failed "
                           "(incidents), by game and what followed", ["game", "outcome"])
DECISION_SECONDS = Histogram(
    "referee_decision_seconds", "Bots' decision latency in finished matches, by game",
    ["game"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0))
STRIKES = Counter("referee_strikes", "Strikes in finished matches, by game and reason",
                  ["game", "reason"])
PROBES = Counter("referee_probes", "Bot health probes, by result (ok or the failure)",
                 ["result"])
TICK_SECONDS = Histogram("referee_tick_seconds", "Matchmaker tick duration",
                         buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0))
RATE_LIMITED = Counter("referee_rate_limited", "Requests refused by a rate limit (429), by "
                       "route", ["route"])
HTTP_REQUESTS = Counter("referee_http_requests", "HTTP requests, by route, method and status",
                        ["route", "method", "status"])
HTTP_SECONDS = Histogram("referee_http_request_seconds", "HTTP request duration, by route",
                         ["route"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                                             2.5, 5.0, 10.0))

VOID_CAUSES: tuple[tuple[str, str], ...] = (
    ("no result after", "attempts"),
    ("not over within the age cap", "age_cap"),
    ("the referee failed", "referee_failure"),
    ("bot retired", "retired"),
    ("cancelled:", "cancelled"),
)
"""A void reason's first words -> its cause label (a bounded set; anything else is
``other``, e.g. an admin's void with a reason of their own)."""


def void_cause(reason: str) -> str:
    return next((cause for prefix, cause in VOID_CAUSES if reason.startswith(prefix)), "other")


# -- the calls the state machine makes ---------------------------------------------------------

def changed(state: str, game: str, matches: Iterable[int], **ids: Any) -> None:
    """``matches`` of ``game`` entered ``state``: counted, and one log line each."""
    pks = list(matches)
    if not pks:
        return
    MATCHES.labels(game, state).inc(len(pks))
    for pk in pks:
        log.info("match %s %s", pk, state,
                 extra={"event": "match", "match": pk, "game": game, "state": state, **ids})


def voided(game: str, matches: Iterable[int], reason: str, cause: str | None = None,
           **ids: Any) -> None:
    """``matches`` voided for ``reason`` (counted by cause too: ``cause``, else the
    reason's, :func:`void_cause`)."""
    pks = list(matches)
    if pks:
        VOIDS.labels(game, cause or void_cause(reason)).inc(len(pks))
    changed("voided", game, pks, reason=reason, **ids)


def lease_expired(game: str, matches: Iterable[int]) -> None:
    """Running matches whose lease lapsed, to be played again (the state stays ``running``
    until the next attempt claims them)."""
    for pk in matches:
        LEASE_EXPIRIES.labels(game).inc()
        log.warning("match %s lease expired: enqueued again", pk,
                    extra={"event": "lease_expired", "match": pk, "game": game})


def attempt_failed(game: str, match: int, outcome: str, **ids: Any) -> None:
    """The referee failed an attempt: ``retried`` (scheduled again), ``voided`` (its last)
    or ``superseded`` (another attempt owned the match already)."""
    REFEREE_FAILURES.labels(game, outcome).inc()
    if outcome == "retried":
        changed(SCHEDULED, game, [match], retry=True, **ids)
    elif outcome == "voided":
        voided(game, [match], "the referee failed", **ids)


def finished(game: str, match: int, record: Mapping[str, Any], **ids: Any) -> None:
    """A match finished with this log: its decisions' latencies and its strikes counted."""
    latency = DECISION_SECONDS.labels(game)
    for d in record.get("decisions", []):
        if d.get("status") != "forfeited" and isinstance(d.get("ms"), (int, float)):
            latency.observe(d["ms"] / 1000.0)
    reasons = Tally(str(f.get("reason")) for f in record.get("faults", [])
                    if f.get("kind") != "end")
    for reason, count in reasons.items():
        STRIKES.labels(game, reason).inc(count)
    result = record.get("result", {})
    changed("finished", game, [match], end=str(result.get("end", "")), **ids)


def probed(result: str) -> None:
    PROBES.labels(result).inc()


# -- what the database knows, read at scrape time ----------------------------------------------

class QueueCollector(Collector):
    """The work queue from the database: matches waiting, held back by the matchmaker and
    running, by game, and the age of the oldest waiting one; ``referee_database_up`` 0 when
    the database cannot be read (the rest of the scrape still answers)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("referee_database_up", "Whether the database answered the "
                               "scrape's queue query")
        try:
            rows, oldest = self._read()
        except Exception as exc:  # the storage layer logged the detail
            log.warning("metrics: the queue could not be read: %s", type(exc).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        depth = GaugeMetricFamily("referee_queue_matches", "Matches not over, by game and "
                                  "state (waiting, held, running)", labels=["game", "state"])
        for (game, state), count in sorted(rows.items()):
            depth.add_metric([game, state], count)
        yield depth
        age = GaugeMetricFamily("referee_queue_oldest_waiting_seconds", "Age of the oldest "
                                "match waiting for a worker (0: none)")
        since = utc(oldest)
        age.add_metric([], max(0.0, (now_utc() - since).total_seconds()) if since else 0.0)
        yield age

    def _read(self) -> tuple[dict[tuple[str, str], int], Any]:
        rows: dict[tuple[str, str], int] = {}
        with translate_errors(self.engine), reader(self.engine) as conn:
            for game, state, held, count in conn.execute(
                    select(Match.game, Match.state, Match.held, func.count())
                    .where(Match.state.in_((SCHEDULED, RUNNING)))
                    .group_by(Match.game, Match.state, Match.held)):
                name = "running" if state == RUNNING else "held" if held else "waiting"
                rows[(game, name)] = rows.get((game, name), 0) + int(count)
            oldest = conn.execute(select(func.min(Match.recorded_at)).where(
                Match.state == SCHEDULED, Match.held.is_(False))).scalar_one()
        return rows, oldest


class _Default(Collector):
    """This process's own metrics (the default registry), when there is no multiprocess
    directory."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def registry(engine: Engine | None = None) -> CollectorRegistry:
    """A registry for one scrape: every process's counters when a multiprocess directory is
    set, else this process's; the queue from ``engine`` when given."""
    found = CollectorRegistry(auto_describe=False)
    if os.environ.get(MULTIPROC_ENV):
        MultiProcessCollector(found)
    else:
        found.register(_Default())
    if engine is not None:
        found.register(QueueCollector(engine))
    return found


def exposition(engine: Engine | None = None) -> bytes:
    """The metrics in Prometheus's text format."""
    return generate_latest(registry(engine))


def series(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Parsed samples ``{(name, sorted labels): value}`` of an exposition (for tests and
    tools: what a scraper would see)."""
    from prometheus_client.parser import text_string_to_metric_families

    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def seat_bots(seats: Sequence[Any]) -> list[int]:
    """The bot ids of a match's seats, in seat order (for its log lines)."""
    return [int(s.bot_id) for s in seats]

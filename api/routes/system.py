"""Health: `/api/v1/healthz` (and `/healthz` for load balancers).

It answers 503 when the service cannot do its job: the database does not answer, or (Celery
mode) the broker that carries matches to the workers does not.  The rate limits' storage is
reported but never makes it a 503: while it is down the limits are counted in each process's
memory.  An answer names no host, URL or database: the log has the detail.

It is open to everyone and never rate-limited (load balancers poll it), so each dependency is
probed by one request at a time per process: a request arriving while a probe of the broker
runs (up to its timeout, against a broker that hangs) gets the last answer instead of tying
up one more request thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from flask import current_app
from flask_limiter import Limiter
from flask_smorest import Blueprint

from api.context import service
from api.schemas import HealthzOut
from ladder import LadderError
from ladder.work import queue_stats

log = logging.getLogger("referee.api")
OK, UNREACHABLE = "ok", "unreachable"
BROKER_TIMEOUT_S = 2.0
"""How long the broker may take to accept a connection."""


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("system", __name__, url_prefix="/api/v1", description="Service health")

    @blp.route("/healthz", methods=["GET"])
    @limiter.exempt
    @blp.response(200, HealthzOut)
    @blp.alt_response(503, schema=HealthzOut,
                      description="The database, or in Celery mode the broker, is unreachable")
    def healthz() -> Any:
        """Whether the service can do its job, each dependency's state (``database``;
        ``broker`` in Celery mode; ``ratelimit``, the rate limits' storage, which never
        fails the check), the mode (embedded or celery), matches waiting and running, and
        the age of the oldest waiting one (``queue``: null when the database is down)."""
        return healthz_answer()

    return blp


def healthz_answer() -> tuple[dict[str, Any], int]:
    """The health document and its status: 200, or 503 when a dependency the service needs
    is unreachable."""
    svc = service()
    checks: dict[str, str] = {}
    queue = None
    try:
        queue = queue_stats(svc.engine)
        checks["database"] = OK
    except LadderError as exc:
        log.error("healthz: %s", exc)
        checks["database"] = UNREACHABLE
    if svc.config.broker_url:
        checks["broker"] = probed("broker", lambda: broker_state(svc.config.broker_url or ""))
    checks["ratelimit"] = probed("ratelimit", ratelimit_state)
    ok = all(checks[name] == OK for name in ("database", "broker") if name in checks)
    return {"ok": ok, "mode": svc.mode, "checks": checks, "queue": queue}, 200 if ok else 503


class _Probe:
    """One dependency's probe, run by one request at a time; the others read its last state."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last: str | None = None


def probed(name: str, probe: Callable[[], str]) -> str:
    probes: dict[str, _Probe] = current_app.extensions.setdefault("referee_health", {})
    state = probes.setdefault(name, _Probe())
    if not state.lock.acquire(blocking=state.last is None):
        assert state.last is not None
        return state.last  # probed right now by another request: its last answer
    try:
        state.last = probe()
        return state.last
    finally:
        state.lock.release()


def broker_state(url: str) -> str:
    """One connection to the broker, without retrying (a Celery broker of any transport)."""
    from kombu import Connection

    try:
        with Connection(url, connect_timeout=BROKER_TIMEOUT_S,
                        transport_options={"socket_timeout": BROKER_TIMEOUT_S}) as conn:
            conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_S)
    except Exception as exc:  # each transport fails in its own way: all mean unreachable
        log.error("healthz: the broker: %s", exc)
        return UNREACHABLE
    return OK


def ratelimit_state() -> str:
    """``ok``, ``off`` (no limits), or ``unreachable`` (counted in memory meanwhile)."""
    limiter: Limiter = current_app.extensions["referee_limiter"]
    if not limiter.enabled:
        return "off"
    try:
        return OK if limiter.storage.check() else UNREACHABLE
    except Exception:  # a storage's check that raises instead of answering False
        return UNREACHABLE

"""Liveness: `/api/v1/healthz` (and `/healthz` for load balancers)."""

from __future__ import annotations

from typing import Any

from flask_limiter import Limiter
from flask_smorest import Blueprint

from api.app import service
from api.schemas import HealthzOut
from ladder.work import queue_stats


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("system", __name__, url_prefix="/api/v1", description="Service health")

    @blp.route("/healthz", methods=["GET"])
    @limiter.exempt
    @blp.response(200, HealthzOut)
    def healthz() -> Any:
        """Alive, the mode (embedded or celery), matches waiting and running, and the age
        of the oldest waiting one."""
        return healthz_doc()

    return blp


def healthz_doc() -> dict[str, Any]:
    svc = service()
    return {"ok": True, "mode": svc.mode, "queue": queue_stats(svc.engine)}

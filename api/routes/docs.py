"""`/api/docs`: a self-contained page rendering the OpenAPI document (no CDN, no build
step), and `/healthz` beside the documented `/api/v1/healthz` for load balancers."""

from __future__ import annotations

from importlib import resources
from typing import Any

from flask import Flask, Response


def register(app: Flask) -> None:
    page = (resources.files("api") / "docs.html").read_text(encoding="utf-8")

    def docs() -> Response:
        return Response(page, mimetype="text/html")

    def healthz() -> Any:
        from api.routes.system import healthz_answer
        return healthz_answer()

    app.add_url_rule("/api/docs", "api_docs", docs, methods=["GET"])
    app.add_url_rule("/healthz", "healthz_alias", healthz, methods=["GET"])

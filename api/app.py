"""The app factory: the service's parts put together into a Flask app, and nothing else.

Building an app reads and writes no database and starts no thread, so a test or a shell may
build as many as it likes; a server prepares the database and starts the workers as steps of
their own (:mod:`api.startup`).  The parts: the request context (:mod:`api.context`), the
authentication (:mod:`api.auth`), the request guards (:mod:`api.guards`), the error shape
(:mod:`api.errors`), the request ids, access log and ``/metrics`` (:mod:`api.observability`),
the OpenAPI document (:mod:`api.openapi`), the resources (:mod:`api.routes`) and the pages
(:mod:`api.pages`).
"""

from __future__ import annotations

import secrets

from flask import Flask
from flask_limiter import Limiter
from sqlalchemy import Engine
from werkzeug.middleware.proxy_fix import ProxyFix

from api import caching, errors, guards, observability, relays
from api.auth import rate_key
from api.config import ServiceConfig
from api.context import EXTENSION, Service
from api.dispatch import Dispatcher
from api.openapi import RefApi
from referee.netpolicy import UrlPolicy

API_DESCRIPTION = (
    "Register HTTP bots, challenge other bots, read match records and leaderboards. "
    "Writes need `Authorization: Bearer <token>` (create an owner with POST /api/v1/owners). "
    "Errors are JSON `{code, status, message, errors?}`; lists are paginated in the body "
    "(`page`, `per_page`); unknown query parameters are refused."
)


def create_app(config: ServiceConfig | None = None, *, engine: Engine | None = None,
               dispatcher: Dispatcher | None = None) -> Flask:
    """The service app.  ``engine`` and ``dispatcher`` default to what ``config`` names (a
    database URL; a Celery broker, or the embedded thread pool, not started)."""
    from ladder.db import default_url, make_engine
    from referee.games import game_names

    config = config or ServiceConfig.from_env()
    engine = engine or make_engine(config.db_url or default_url())  # connects when used
    policy = config.policy()
    mode = "celery" if config.broker_url else "embedded"
    if dispatcher is None:
        dispatcher = _dispatcher(config, engine, policy)
    app = Flask("referee.api")
    if config.trusted_proxies:  # else X-Forwarded-For is the client's own word: ignored
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=config.trusted_proxies)
    app.secret_key = config.secret_key or secrets.token_hex(32)
    app.config.update(
        API_TITLE="Referee", API_VERSION="v1", OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api", OPENAPI_JSON_PATH="openapi.json",
        RATELIMIT_ENABLED=config.ratelimit, RATELIMIT_HEADERS_ENABLED=True,
        RATELIMIT_STORAGE_URI=config.limiter_storage(), JSON_SORT_KEYS=False,
        RATELIMIT_STORAGE_OPTIONS=config.limiter_storage_options(),
        RATELIMIT_KEY_PREFIX=f"referee:{config.queue}",
        # a storage that fails (Redis down) is logged and the limits are counted in this
        # process's memory until it answers again; anything else failing lets requests pass
        RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=True, RATELIMIT_SWALLOW_ERRORS=True,
        API_SPEC_OPTIONS={"info": {"description": API_DESCRIPTION}},
        SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_SECURE=config.secure_cookies,
        SESSION_COOKIE_NAME="referee_session",
    )
    app.extensions[EXTENSION] = Service(config, engine, policy, dispatcher, game_names(), mode)
    relays.configure(config.broker_url, config.queue)  # how matches reach pull bots
    api = RefApi(app, app.extensions[EXTENSION].games)
    limiter = Limiter(rate_key, app=app, default_limits=["120 per minute"],
                      on_breach=observability.rate_limited)
    app.extensions["referee_limiter"] = limiter
    errors.register(app, api)
    observability.register(app)  # first: the request id exists before a guard refuses
    limiter.exempt(observability.metrics_view)
    guards.register(app)
    caching.register(app, config.answer_fresh_s, config.list_fresh_s)  # after the guards
    from api.pages import register as register_pages
    from api.routes import register
    register(app, api, limiter)
    register_pages(app, api, limiter)
    api.share_document()
    return app


def _dispatcher(config: ServiceConfig, engine: Engine, policy: UrlPolicy) -> Dispatcher:
    """What ``config`` names: Celery's when it names a broker, else the embedded pool, built
    but not started (:func:`api.startup.start` starts it)."""
    if config.broker_url:
        from api.dispatch import CeleryDispatcher

        return CeleryDispatcher(config.broker_url, config.queue)
    from api.dispatch import EmbeddedPool

    return EmbeddedPool(engine, policy, workers=config.workers, lease_s=config.lease_s,
                        sweep_s=config.sweep_s, sweep_policy=config.sweep_policy(),
                        start=False, tick_s=config.tick_s, matchmaker=config.matchmaker(),
                        health_s=config.health_s, probe_interval_s=config.probe_interval_s)

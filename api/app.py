"""The app factory, the JSON error shape, authentication, rate limits and the bounds of a
request body."""

from __future__ import annotations

import functools
import logging
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import flask_smorest
from apispec import APISpec
from flask import Flask, current_app, g, request
from flask_limiter import Limiter
from flask_smorest import abort
from flask_smorest.spec import openapi_cli
from sqlalchemy import Engine
from werkzeug.exceptions import (
    Conflict, Forbidden, HTTPException, InternalServerError, NotFound, ServiceUnavailable,
    UnprocessableEntity,
)
from werkzeug.middleware.proxy_fix import ProxyFix

from api.config import ServiceConfig
from api.dispatch import Dispatcher
from ladder import ConflictError, ForbiddenError, InvalidError, LadderError, NotFoundError
from ladder.accounts import Principal, authenticate
from referee.netpolicy import UrlPolicy
from referee.protocol import decode_json

log = logging.getLogger("referee.api")
BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
"""The OpenAPI security requirement of every operation that needs a token."""
STORE_ERRORS: dict[type[LadderError], type[HTTPException]] = {
    NotFoundError: NotFound, ForbiddenError: Forbidden, ConflictError: Conflict,
    InvalidError: UnprocessableEntity,
}
STORAGE_DOWN = "the service's database cannot be reached just now; try again in a moment"
"""The 503 of any other storage failure: the detail (which names the database, its host,
user or file) goes to the log, never into an answer."""
MAX_BODY_BYTES = 64 * 1024
"""The largest request body.  The largest legitimate one, a bot's registration with a
2,000-character URL and description, each character an escaped astral one (12 bytes), is
under 50 KB."""
MAX_JSON_DEPTH = 32
"""How deep a request's JSON may nest (the schemas need 2 levels).  The standard library's
parser, which webargs uses, recurses: past about 1,000 levels it raises RecursionError."""
MAX_LISTED_ERRORS = 20
"""An error body lists this many field errors at most (and says how many there were)."""


class RefApi(flask_smorest.Api):
    """flask-smorest with every error as ``{code, status, message[, errors]}`` and werkzeug's
    own ``Allow`` (405) and ``Retry-After`` (429, 503) headers kept (flask-smorest drops them).

    The OpenAPI document depends on the code and on the service's games (their names are the
    enumerations of the schemas), on nothing else of the configuration.  The first app of a
    process with a list of games builds it, the later ones share it: building it is half the
    cost of :func:`create_app`, and the tests build hundreds of apps.
    """

    documents: ClassVar[dict[tuple[str, ...], APISpec]] = {}
    """The finished documents, by the games they describe."""
    spec: APISpec

    def __init__(self, app: Flask, games: Sequence[str]) -> None:
        self.games = tuple(games)
        self.shared = self.documents.get(self.games)
        super().__init__(app)

    def _init_spec(self, **kwargs: Any) -> None:
        if self.shared is None:
            super()._init_spec(**kwargs)
            self.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
        else:
            self.spec = self.shared
            self._app.cli.add_command(openapi_cli)

    def register_blueprint(self, blp: flask_smorest.Blueprint, *, parameters: Any = None,
                           **options: Any) -> None:
        if self.shared is None:
            super().register_blueprint(blp, parameters=parameters, **options)
            return
        # flask-smorest's registration, less documenting the views: the document has them
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)

    def share_document(self) -> None:
        """Once every blueprint is registered: later apps with the same games take the
        document as it is now."""
        self.documents.setdefault(self.games, self.spec)

    def handle_http_exception(self, error: HTTPException) -> Any:
        payload, code, headers = super().handle_http_exception(error)
        headers = dict(headers or {})
        for key, value in error.get_headers():
            if key.lower() in ("allow", "retry-after", "www-authenticate"):
                headers.setdefault(key, value)
        payload.setdefault("message", error.description or error.name)
        if isinstance(payload.get("errors"), dict):
            listed, total = cap_errors(payload["errors"], MAX_LISTED_ERRORS)
            if total > MAX_LISTED_ERRORS:
                payload["errors"] = listed
                payload["message"] = (f"{payload['message']} ({total} errors, the first "
                                      f"{MAX_LISTED_ERRORS} listed)")
        return payload, code, headers


def cap_errors(errors: dict[str, Any], limit: int) -> tuple[dict[str, Any], int]:
    """The first ``limit`` field errors of a nested error dict (each a list of messages at
    its path), and how many there were: a body of 10,000 unknown keys must not answer with
    10,000 lines."""
    leaves = list(_error_leaves(errors))
    kept: dict[str, Any] = {}
    for path, messages in leaves[:limit]:
        node = kept
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = messages
    return kept, len(leaves)


def _error_leaves(errors: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in errors.items():
        if isinstance(value, dict) and value:
            yield from (((key, *path), leaf) for path, leaf in _error_leaves(value))
        else:
            yield (key,), value


@dataclass
class Service:
    """What the views reach through ``service()``."""

    config: ServiceConfig
    engine: Engine
    policy: UrlPolicy
    dispatcher: Dispatcher
    games: list[str]
    mode: str


def service() -> Service:
    svc: Service = current_app.extensions["referee"]
    return svc


def create_app(config: ServiceConfig | None = None, *, engine: Engine | None = None,
               dispatcher: Dispatcher | None = None) -> Flask:
    """The service app.  ``engine`` and ``dispatcher`` default to what ``config`` names
    (a database URL; a Celery broker, or the embedded thread pool)."""
    from ladder.registry import ensure_house_bots, join_house_bots
    from ladder.store import open_db
    from ladder.work import SweepPolicy
    from referee.games import game_names

    config = config or ServiceConfig.from_env()
    engine = engine or open_db(config.db_url)
    ensure_house_bots(engine)
    join_house_bots(engine, config.house_ladders)  # the ladders owners' bots are on
    policy = config.policy()
    mode = "celery" if config.broker_url else "embedded"
    if dispatcher is None:
        if config.broker_url:
            from api.dispatch import CeleryDispatcher
            dispatcher = CeleryDispatcher(config.broker_url, config.queue)
        else:
            from api.dispatch import EmbeddedPool
            dispatcher = EmbeddedPool(engine, policy, workers=config.workers,
                                      lease_s=config.lease_s, sweep_s=config.sweep_s,
                                      sweep_policy=SweepPolicy(config.requeue_after_s,
                                                               config.max_match_s),
                                      start=config.start_pool, tick_s=config.tick_s,
                                      matchmaker=config.matchmaker(), health_s=config.health_s,
                                      probe_interval_s=config.probe_interval_s)
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
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES + 1,  # a chunked body is read one byte past
        API_SPEC_OPTIONS={"info": {"description": API_DESCRIPTION}},
        SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_SECURE=config.secure_cookies,
        SESSION_COOKIE_NAME="referee_session",
    )
    app.extensions["referee"] = Service(config, engine, policy, dispatcher, game_names(), mode)
    api = RefApi(app, app.extensions["referee"].games)
    limiter = Limiter(rate_key, app=app, default_limits=["120 per minute"])
    app.extensions["referee_limiter"] = limiter
    _register_errors(app, api)
    app.before_request(refuse_large_body)
    app.before_request(require_json_body)
    app.before_request(refuse_undeclared_query)
    from api.pages import register as register_pages
    from api.routes import register
    register(app, api, limiter)
    register_pages(app, api, limiter)
    api.share_document()
    return app


API_DESCRIPTION = (
    "Register HTTP bots, challenge other bots, read match records and leaderboards. "
    "Writes need `Authorization: Bearer <token>` (create an owner with POST /api/v1/owners). "
    "Errors are JSON `{code, status, message, errors?}`; lists are paginated in the body "
    "(`page`, `per_page`); unknown query parameters are refused."
)


def _register_errors(app: Flask, api: RefApi) -> None:
    def store_error(exc: LadderError) -> Any:
        kind = next((http for cls, http in STORE_ERRORS.items() if isinstance(exc, cls)),
                    ServiceUnavailable)
        message = str(exc)
        if kind is ServiceUnavailable:
            log.error("storage: %s", exc)
            message = STORAGE_DOWN
        http = kind(description=message)
        http.data = {"message": message}  # type: ignore[attr-defined]
        return api.handle_http_exception(http)

    def unexpected(exc: Exception) -> Any:
        if isinstance(exc, HTTPException):
            return api.handle_http_exception(exc)
        log.exception("unhandled error")
        return api.handle_http_exception(InternalServerError(description="internal error"))

    app.register_error_handler(LadderError, store_error)
    app.register_error_handler(Exception, unexpected)


def api_operation() -> dict[str, Any] | None:
    """The OpenAPI description of the request's view, None for anything else (the pages)."""
    view = current_app.view_functions.get(request.endpoint or "")
    doc: dict[str, Any] | None = getattr(view, "_apidoc", None)
    return doc


def refuse_large_body() -> None:
    """413 for a body over :data:`MAX_BODY_BYTES`: one that declares its length is refused
    unread; a chunked one is read up to one byte past the limit (``MAX_CONTENT_LENGTH``
    stops it there) and kept for the views."""
    size = request.content_length
    if size is None and "chunked" in request.headers.get("Transfer-Encoding", "").lower():
        size = len(request.get_data(cache=True))
    if (size or 0) > MAX_BODY_BYTES:
        abort(413, message=f"the body is over {MAX_BODY_BYTES // 1024} KiB, "
                           "the most this service takes")


def require_json_body() -> None:
    """415 for a body that is not JSON (flask-smorest would call it missing: a confusing 422),
    400 for JSON that the schemas' parser could not take safely.

    webargs parses with the standard library, which recurses (a RecursionError, so a 500,
    past about 1,000 levels) and refuses integers of over 4,300 digits with a ValueError (a
    500 too).  :func:`referee.protocol.decode_json` reads the body first, as it reads a bot's
    answers: strict JSON (no NaN, no invalid Unicode, no number beyond a double's range, so
    no integer of over 309 digits), at most :data:`MAX_JSON_DEPTH` levels deep.  The pages'
    forms are not API operations: they post form data."""
    if request.routing_exception is not None or request.method not in ("POST", "PUT", "PATCH"):
        return
    if api_operation() is None:
        return
    has_body = bool(request.content_length) or "chunked" in request.headers.get(
        "Transfer-Encoding", "").lower()
    if not has_body:
        return
    if not request.is_json:
        abort(415, message="send the body as JSON (Content-Type: application/json)")
    body = request.get_data(cache=True)
    if not body:
        return  # an empty chunked body: the schemas say whether one is needed
    try:
        decode_json(body, max_depth=MAX_JSON_DEPTH)
    except ValueError as exc:
        abort(400, message=f"the body is not JSON this service reads: {exc}")


def refuse_undeclared_query() -> None:
    """A query string on an endpoint that takes none is a 422, like an unknown parameter of
    one that does (those are refused by their schemas, ``unknown=RAISE``)."""
    if request.routing_exception is not None or not request.args:
        return
    doc = api_operation()
    if doc is None:
        return  # not an API operation (the docs page, the pages check their own)
    declared = doc.get("arguments", {}).get("parameters", [])
    if any(p.get("in") == "query" for p in declared):
        return
    abort(422, message="this endpoint takes no query parameters",
          errors={"query": {name: ["Unknown field."] for name in request.args}})


# -- authentication ---------------------------------------------------------------------------

def principal() -> Principal | None:
    """The request's owner from ``Authorization: Bearer <token>`` (cached per request)."""
    if "principal" not in g:
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        found = None
        if scheme.lower() == "bearer" and token.strip():
            found = authenticate(service().engine, token.strip())
        g.principal = found
    result: Principal | None = g.principal
    return result


def require_owner() -> Principal:
    """The authenticated owner, or 401 (no token, a malformed, unknown or revoked one)."""
    found = principal()
    if found is None:
        abort(401, message="a valid token is required: Authorization: Bearer <token>",
              headers={"WWW-Authenticate": 'Bearer realm="referee"'})
    assert found is not None
    return found


def owner_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Authenticate before the body and query are validated: a request without a valid token
    is a 401 whatever else is wrong with it.  The view reads the owner with
    :func:`require_owner` (cached)."""
    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        require_owner()
        return view(*args, **kwargs)
    return wrapper


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`owner_required`, and 403 for an owner who is not an admin."""
    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not require_owner().is_admin:
            abort(403, message="this needs an admin's token")
        return view(*args, **kwargs)
    return wrapper


def rate_key() -> str:
    """Limits apply per owner when a valid token is presented (however many tokens it
    mints, an owner has one allowance), else per client address."""
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        try:
            found = principal()
        except LadderError:  # the database is down: the view answers 503 when it asks
            found = None
        if found is not None:
            return f"owner:{found.owner_id}"
    return address_key()


def address_key() -> str:
    """The client's address: the peer's, or what the trusted proxies say it is
    (``REFEREE_TRUSTED_PROXIES``).  The key of the limits an owner must not escape by
    presenting a token, e.g. creating owners."""
    return f"ip:{request.remote_addr or 'unknown'}"


"""The service's public pages, server-rendered with Jinja (``referee serve`` serves them).

Pages sit beside the API in one app: ``/``, ``/leaderboards/{game}``, ``/bots/{id}``,
``/matches``, ``/matches/{id}``, ``/docs``, ``/login``, and the logged-in owner's ``/me``
(:mod:`api.pages.owner`).  Their assets (one style sheet, the
replay viewer's script and style) are package data served under ``/assets/`` with a content
hash in the link, so they are cached for good and nothing is fetched from another site.
Errors on page paths are HTML pages with the same status codes the API would answer
(an unknown id is a 404 page, a bad query a 400 page); API paths keep their JSON errors.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any

from flask import Flask, Response, g, render_template, request, url_for
from flask_limiter import Limiter
from markupsafe import Markup
from werkzeug.exceptions import (
    Conflict, Forbidden, HTTPException, InternalServerError, NotFound, ServiceUnavailable,
    UnprocessableEntity,
)

from api.context import service
from api.errors import ErrorShape
from ladder import ConflictError, ForbiddenError, InvalidError, LadderError, NotFoundError

log = logging.getLogger("referee.pages")

ASSETS = {
    "site.css": ("api.pages", "static/site.css", "text/css"),
    "owner.css": ("api.pages", "static/owner.css", "text/css"),
    "viewer.css": ("api.viewer", "static/viewer.css", "text/css"),
    "viewer.js": ("api.viewer", "static/viewer.js", "text/javascript"),
}
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
PAGE_ERRORS: dict[type[LadderError], type[HTTPException]] = {
    NotFoundError: NotFound, ForbiddenError: Forbidden, ConflictError: Conflict,
    InvalidError: UnprocessableEntity,
}


def register(app: Flask, api: ErrorShape, limiter: Limiter) -> None:
    from api.pages import solo
    from api.pages.owner import add_routes
    from api.pages.views import blueprint

    blp = blueprint(limiter)
    add_routes(blp, limiter)
    solo.add_routes(blp)
    blp.after_request(secure)
    blp.register_error_handler(HTTPException, page_error)
    blp.register_error_handler(LadderError, storage_error)
    blp.register_error_handler(Exception, unexpected)
    app.register_blueprint(blp)
    app.add_url_rule("/assets/<string(maxlength=32):name>", "asset",
                     limiter.exempt(asset), methods=["GET"])
    app.add_url_rule("/docs/schemas/<string(maxlength=64):name>.json", "schema",
                     schema, methods=["GET"])

    def http_error(exc: HTTPException) -> Any:
        """Errors outside any view (no such path, wrong method, rate limited): a page for
        page paths, the API's JSON for API paths."""
        if is_page_path():
            return page_error(exc)
        return api.handle_http_exception(exc)

    app.register_error_handler(HTTPException, http_error)
    app.context_processor(page_context)
    app.add_template_filter(when)
    app.add_template_filter(signed)
    app.add_template_filter(ms)
    app.add_template_global(match_url)
    app.add_template_global(bot_url)
    app.add_template_global(bot_link)


def is_page_path() -> bool:
    path = request.path
    return not (path == "/api" or path.startswith("/api/") or path == "/healthz")


# -- errors -----------------------------------------------------------------------------------

def page_error(exc: HTTPException) -> Response:
    code = exc.code or 500
    body = render_template("pages/error.html", code=code, title=exc.name,
                           message=exc.description or exc.name)
    response = Response(body, status=code, mimetype="text/html")
    for key, value in exc.get_headers():
        if key.lower() in ("allow", "retry-after"):
            response.headers[key] = value
    return secure(response)


def storage_error(exc: LadderError) -> Response:
    kind = next((http for cls, http in PAGE_ERRORS.items() if isinstance(exc, cls)),
                ServiceUnavailable)
    if kind is ServiceUnavailable:
        log.error("storage: %s", exc)
        return page_error(ServiceUnavailable("The database cannot be reached just now; "
                                             "try again in a moment."))
    return page_error(kind(str(exc)))


def unexpected(exc: Exception) -> Response:
    if isinstance(exc, HTTPException):
        return page_error(exc)
    log.exception("unhandled error on %s", request.path)
    return page_error(InternalServerError("Something went wrong on our side; it has been "
                                          "logged."))


def secure(response: Response) -> Response:
    """What a browser needs to refuse anything this site did not serve."""
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


# -- assets -----------------------------------------------------------------------------------

@cache
def asset_bytes(name: str) -> tuple[bytes, str]:
    package, path, _ = ASSETS[name]
    data = resources.files(package).joinpath(path).read_bytes()
    return data, hashlib.sha256(data).hexdigest()[:16]


def asset(name: str) -> Response:
    if name not in ASSETS:
        raise NotFound(f"no asset {name!r}")
    data, digest = asset_bytes(name)
    etag = f'"{digest}"'
    headers = {"ETag": etag, "Cache-Control": "public, max-age=31536000, immutable"
               if request.args.get("v") == digest else "public, max-age=300",
               "X-Content-Type-Options": "nosniff"}
    if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=304, headers=headers)
    return Response(data, mimetype=ASSETS[name][2], headers=headers)


def asset_url(name: str) -> str:
    return f"/assets/{name}?v={asset_bytes(name)[1]}"


def schema(name: str) -> Response:
    """The protocol's JSON Schemas, as ``docs/schemas/`` has them."""
    from referee.protocol import SCHEMAS, schema_text

    if name not in SCHEMAS:
        raise NotFound(f"No schema is called {name!r}. Schemas: {', '.join(SCHEMAS)}.")
    return Response(schema_text(name), mimetype="application/schema+json",
                    headers={"Cache-Control": "public, max-age=3600"})


# -- what every template sees -----------------------------------------------------------------

def page_context() -> dict[str, Any]:
    from api.pages import session as login
    from referee.games import find_game

    return {"asset_url": asset_url, "csrf_token": login.csrf_token,
            "viewer": login.viewer, "titles": game_titles(tuple(service().games)),
            "ladder_titles": ladder_titles(tuple(service().games)), "find_game": find_game}


@cache
def game_titles(games: tuple[str, ...]) -> dict[str, str]:
    from referee.games import find_game

    return {g: find_game(g).title for g in games}


@cache
def ladder_titles(games: tuple[str, ...]) -> dict[str, str]:
    """Each ladder's title: a game's, and each of its solo ladders' (an alert names the
    ladders it paused: ``tokaido-duo-solo-2`` reads "Tokaido Duo solo, level 2")."""
    from ladder.solo import ladder_name
    from referee.games import find_game

    titles = dict(game_titles(games))
    for g in games:
        titles.update({ladder_name(g, level): f"{titles[g]} solo, level {level}"
                       for level in find_game(g).solo_levels})
    return titles


def match_url(match_id: int) -> str:
    """``url_for('pages.match', match_id=match_id)``, cheaper (see :func:`id_url`)."""
    return id_url("pages.match", "match_id", match_id)


def bot_url(bot_id: int) -> str:
    """``url_for('pages.bot', bot_id=bot_id)``, cheaper (see :func:`id_url`)."""
    return id_url("pages.bot", "bot_id", bot_id)


def bot_link(ref: Mapping[str, Any]) -> Markup:
    """A link to the bot ``{id, name}``, its name the text.  A function, not a Jinja macro: a
    bot's page lists a hundred bots, and each macro call cost more than the link."""
    return Markup('<a class="bot" href="{}">{}</a>').format(bot_url(ref["id"]), ref["name"])


def id_url(endpoint: str, name: str, ident: int) -> str:
    """The path of ``endpoint`` whose one argument, ``name``, is the id ``ident``: the same
    string as ``url_for``, which walks the routing map each time (about 10 us); a bot's page
    links 400 matches and bots.  The path is built once a request, for id 1, and the id
    joined to what comes before it (an id converter writes an int as ``str`` does)."""
    prefixes: dict[str, str] = g.setdefault("id_url_prefixes", {})
    prefix = prefixes.get(endpoint)
    if prefix is None:
        values: dict[str, Any] = {name: 1}
        sample = url_for(endpoint, **values)
        if not sample.endswith("/1"):
            raise ValueError(f"{endpoint}: its path does not end in its id: {sample}")
        prefix = prefixes[endpoint] = sample[:-1]
    return prefix + str(int(ident))


def when(moment: datetime | str | None) -> str:
    """A moment as ``2026-03-01 12:34 UTC`` (ISO strings too); ``-`` for none."""
    if moment is None:
        return "-"
    if isinstance(moment, str):
        try:
            return datetime.fromisoformat(moment).strftime("%Y-%m-%d %H:%M UTC")
        except ValueError:
            return moment
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def ms(value: float | None) -> str:
    """A duration in milliseconds, with a decimal below 10 (in-process bots answer in
    fractions of one); ``—`` for none."""
    if value is None:
        return "\u2014"
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def signed(value: float | None, digits: int = 0) -> str:
    """``+12``, ``−8`` (a real minus sign), ``0``; ``—`` for none."""
    if value is None:
        return "\u2014"
    text = f"{abs(value):.{digits}f}"
    if float(text) == 0:
        return text
    return ("+" if value > 0 else "\u2212") + text

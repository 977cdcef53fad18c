"""The service a request is served by: what :func:`api.create_app` put together, reached by
the views through :func:`service`.

It lives apart from the app factory (as Flask's tutorial keeps ``get_db`` out of its
factory) so that the views, the pages and the authentication import it and the factory
imports them, never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app
from sqlalchemy import Engine

from api.config import ServiceConfig
from api.dispatch import Dispatcher
from referee.netpolicy import UrlPolicy

EXTENSION = "referee"
"""The key of the app's :class:`Service` in ``app.extensions``."""


@dataclass
class Service:
    """What the views reach through ``service()``."""

    config: ServiceConfig
    engine: Engine
    policy: UrlPolicy
    dispatcher: Dispatcher
    games: list[str]
    mode: str


def service_of(app: Flask) -> Service:
    found: Service = app.extensions[EXTENSION]
    return found


def service() -> Service:
    """The service of the app handling the current request (or in the current app context)."""
    return service_of(current_app)

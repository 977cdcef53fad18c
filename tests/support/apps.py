"""Service apps for the tests, on a database made ready as a server makes it.

``api.create_app`` only builds an app; a server first prepares its database (at the current
schema, the house bots written: ids 1-3, which many tests name) with
:func:`api.startup.prepare_database`.  The tests that want a ready service take that step
here, and only here.
"""

from __future__ import annotations

from typing import Any

from flask import Flask

from api import create_app
from api.config import ServiceConfig
from api.startup import prepare_database


def prepared_app(config: ServiceConfig, **parts: Any) -> Flask:
    """``create_app(config, **parts)`` on ``config``'s database, prepared (its dispatcher is
    not started: give one, e.g. a ``NoDispatcher``, or call ``api.startup.start``)."""
    return create_app(config, engine=prepare_database(config), **parts)

"""The referee service: a Flask REST API over the ladder, matches played by workers.

``create_app(config)`` builds the app: one blueprint per resource (``api.routes``),
marshmallow schemas at the edge (``api.schemas``), the ladder's store as the only way to the
database, the URL policy for bot addresses (``referee.netpolicy``) and a dispatcher that hands
scheduled matches to workers (Celery, or threads in the embedded mode).  Building touches no
database and starts no thread: a server prepares the database and starts the dispatcher
itself (``api.startup``).  ``api.execution`` is the one place a match is played.
"""

from __future__ import annotations

from api.app import create_app

__all__ = ["create_app"]

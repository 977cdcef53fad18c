"""The service's flask-smorest ``Api``: the error shape, the bearer security scheme, and one
OpenAPI document per process for each list of games.

The document depends on the code and on the service's games (their names are the
enumerations of the schemas), on nothing else of the configuration, so the first app of a
process with a list of games builds it and the later ones share it.  A server builds one app
per process and gains nothing; the tests build about 240 apps a run, and building the
document is half of what an app costs (about 30 of 55 ms of CPU each: some 7 s a run).

Sharing means skipping, for every app after the first, what flask-smorest does to build a
document: the rest of ``APISpecMixin._init_spec`` and of ``Api.register_blueprint`` is done
here as flask-smorest 0.47 does it.  A test pins those two methods and checks that an app
sharing a document is in the state a fresh build leaves
(``test_a_shared_document_leaves_the_app_as_flask_smorest_would``): an upgrade that changes
them fails it, and this class must follow before its digests are recorded again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import flask_smorest
from apispec import APISpec
from flask import Flask
from flask_smorest.spec import openapi_cli

from api.errors import ErrorShape


class RefApi(ErrorShape):
    """:class:`ErrorShape` with the bearer scheme in its document, shared by the apps of the
    same games."""

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
            return
        # flask-smorest's, less building the document: the shared one has it all
        self.spec = self.shared
        self.flask_plugin, self.ma_plugin = self.spec.plugins
        self._app.cli.add_command(openapi_cli)

    def register_blueprint(self, blp: flask_smorest.Blueprint, *, parameters: Any = None,
                           **options: Any) -> None:
        if self.shared is None:
            super().register_blueprint(blp, parameters=parameters, **options)
            return
        # flask-smorest's, less documenting the views: the shared document has them
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)

    def share_document(self) -> None:
        """Once every blueprint is registered: later apps with the same games take the
        document as it is now."""
        self.documents.setdefault(self.games, self.spec)

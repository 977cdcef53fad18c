"""schemathesis over the whole OpenAPI document, in-process: every check, no server error.

The app has its own database (a few rated matches in it) and no rate limits.  Requests carry
a valid admin's token (so the owner-only and admin operations are reached); schemathesis's
``ignored_auth`` check repeats them without one and expects a refusal.  One exclusion, as the
design notes explain: the URL policy (and the probe of a live bot) rejects bot URLs that the
schema's pattern allows, so ``positive_data_acceptance`` cannot hold for the operations that
take a bot URL.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from sqlalchemy import select, update

from api.config import ServiceConfig
from ladder.models import Bot, Owner

from support.apps import NoDispatcher, prepared_app


def _seed_ladder(app):
    """A few rated matches between the house ``random`` (bot 1) and another built-in bot, so
    the history, export and admin operations have rows to read and change."""
    from api.runner import run_match
    from ladder.identity import claim_names
    from ladder.work import rotations, schedule

    svc = app.extensions["referee"]
    claim_names(svc.engine, {"random-b": "random"})
    with svc.engine.connect() as conn:
        other = conn.execute(select(Bot.id).where(Bot.name == "random-b")).scalar_one()
    for pk in schedule(svc.engine, "toy-race", rotations([1, other], 4, "f"), rated=True):
        run_match(svc.engine, pk, svc.policy, lease_s=30)


_folder = tempfile.TemporaryDirectory(prefix="referee-fuzz-")
APP = prepared_app(ServiceConfig(db_url=f"sqlite:///{Path(_folder.name) / 'fuzz.sqlite3'}",
                               ratelimit=False), dispatcher=NoDispatcher())
_client = APP.test_client()
TOKEN = _client.post("/api/v1/owners", json={"name": "fuzzer"}).json["token"]
with APP.extensions["referee"].engine.begin() as _conn:  # an admin: the admin operations too
    _conn.execute(update(Owner).where(Owner.name == "fuzzer").values(is_admin=True))
_seed_ladder(APP)
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", APP)
URL_TAKING = {("POST", "/api/v1/bots"), ("PATCH", "/api/v1/bots/{bot_id}")}


@schema.parametrize()
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_the_api_holds_its_document(case):
    auth = {"Authorization": f"Bearer {TOKEN}"} \
        if case.operation.definition.raw.get("security") else {}
    skip = [schemathesis.checks.positive_data_acceptance] \
        if (case.method.upper(), case.path) in URL_TAKING else []
    # The in-process transport hands a gzip-encoded body (logs, frames) over undecoded.
    case.call_and_validate(headers={**auth, "Accept-Encoding": "identity"},
                           excluded_checks=skip)

"""One blueprint per resource; each module's `blueprint(limiter, games)` builds its own."""

from __future__ import annotations

from flask import Flask
from flask_limiter import Limiter
from flask_smorest import Api

from api.context import service


def register(app: Flask, api: Api, limiter: Limiter) -> None:
    from api.routes import (
        admin, bot_ladders, bots, challenges, docs, export, frames, leaderboards, matches, owners,
        pull, rounds, solo, system,
    )

    games = service_games(app)
    for module in (owners, bots, pull, bot_ladders, challenges, matches, frames, leaderboards,
                   rounds, solo, export, admin, system):
        api.register_blueprint(module.blueprint(limiter, games))
    docs.register(app)


def service_games(app: Flask) -> list[str]:
    with app.app_context():
        return list(service().games)

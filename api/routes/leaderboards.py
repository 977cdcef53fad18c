"""Games and their leaderboards."""

from __future__ import annotations

from typing import Any

from flask_limiter import Limiter
from flask_smorest import Blueprint, abort

from api.context import service
from api.schemas import GamesOut, LeaderboardOut
from ladder.newmatches import STANDARD
from ladder.reads import leaderboard_page


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("leaderboards", __name__, url_prefix="/api/v1",
                    description="Games and their rating ladders")

    @blp.route("/games", methods=["GET"])
    @blp.response(200, GamesOut)
    def list_games() -> Any:
        """The games played here: seats, rules version, default time control, and the levels
        of its solo opponent (the Automa) for a game with a solo mode."""
        from referee.games import find_game

        items = []
        for name in service().games:
            game = find_game(name)
            items.append({"name": name, "seats": list(game.player_counts),
                          "rules_version": game.rules_version,
                          "time_control": {"decision_ms": STANDARD.time_ms,
                                           "bank_ms": STANDARD.bank_ms,
                                           "strikes": STANDARD.strikes},
                          "leaderboard": f"/api/v1/leaderboards/{name}",
                          "solo_levels": list(game.solo_levels)})
        return {"items": items}

    @blp.route("/leaderboards/<string(maxlength=64):game>", methods=["GET"])
    @blp.response(200, LeaderboardOut)
    def get_leaderboard(game: str) -> Any:
        """Ranked bots (rating with its 95% interval, games, W-D-L, mean place, strike and
        forfeit rates, last played); provisional bots apart (on a living ladder: placement
        games left; otherwise fewer than 10 rated games)."""
        if game not in service().games:
            abort(404, message=f"no game {game!r}; games: {', '.join(service().games)}")
        return leaderboard_page(service().engine, game)

    return blp

"""The solo ladders' pages: ``/solo`` (every ladder) and ``/solo/{game}/{level}`` (one board,
bots ranked by fitted strength against the Automa).  Reads only, from
:mod:`ladder.solo_ladder`, as the API's ``/api/v1/solo-ladders`` answers."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template
from werkzeug.exceptions import NotFound

from api.context import service
from api.pages.owner_state import solo_state
from api.pages.query import query
from ladder import solo_ladder


def add_routes(blp: Blueprint) -> None:
    blp.add_url_rule("/solo", "solo_ladders", ladders)
    blp.add_url_rule("/solo/<string(maxlength=64):game>/<int(signed=True):level>", "solo_board",
                     board)
    blp.add_app_template_global(solo_standings)


def solo_standings(bot_id: int) -> list[dict[str, Any]]:
    """The bot's solo entries, each with its row on that ladder's board (``None`` before its
    first finished game) and the number ranked: the bot page's solo section.  A template
    global, so only the page that shows it pays for the boards."""
    engine = service().engine
    out = []
    for entry in solo_ladder.entries_of(engine, bot_id):
        if entry["game"] not in service().games:
            continue
        doc = solo_ladder.board(engine, entry["game"], entry["level"])
        rows = doc["items"] + doc["provisional"]
        out.append({**solo_state(entry), "of": len(doc["items"]),
                    "row": next((r for r in rows if r["bot"]["id"] == bot_id), None)})
    return out


def ladders() -> str:
    query()
    items = solo_ladder.ladders(service().engine, service().games)
    return render_template("pages/solo_ladders.html", ladders=items)


def board(game: str, level: int) -> str:
    """One solo ladder's board, with links to its game's other levels."""
    from referee.games import find_game

    query()
    if game not in service().games or level not in find_game(game).solo_levels:
        raise NotFound(f"no solo ladder {game} level {level}")
    doc = solo_ladder.board(service().engine, game, level)
    return render_template("pages/solo_board.html", board=doc,
                           levels=find_game(game).solo_levels)

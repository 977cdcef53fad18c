"""``referee ladder``: a game's standings, and rebuilding its ratings from the stored results."""

from __future__ import annotations

import json
import time
from typing import Any

import click

from cli.ladder_db import check_game, database, db_option, game_option, require_database
from cli.ladder_export import export
from ladder import LadderError


@click.group()
def ladder() -> None:
    """The rating ladder: the fitted public rating with its interval, live Elo and openskill."""


@ladder.command()
@game_option("The game whose ladder to show.", required=True)
@db_option()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list and nothing else.")
def show(game: str, db_url: str | None, as_json: bool) -> None:
    """Show GAME's standings, best public rating first, with its 95% interval and live Elo.
    A bot replaced under its name (tournament --new-version) has a row per version."""
    from ladder.leaderboard import leaderboard

    with database(db_url, read_only=True) as engine:
        check_game(engine, game)
        rows = leaderboard(engine, game, by_version=True)
    if as_json:
        click.echo(json.dumps([json_row(r) for r in rows]))
    elif not rows:
        click.echo(f"no results recorded for {game} yet", err=True)
    else:
        print_table(game, rows)


def json_row(row: dict[str, Any]) -> dict[str, Any]:
    """Round what no one reads to the last digit; keep the keys."""
    digits = {"rating": 1, "interval": 1, "low": 1, "high": 1, "elo": 1,
              "openskill": 2, "mu": 3, "sigma": 3}
    return {k: (round(v, digits[k]) if k in digits and v is not None else v)
            for k, v in row.items()}


def print_table(game: str, rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{game} ladder", caption="rating: one fit to every rated game, ± its "
                  "95% interval (? provisional); Elo: live; openskill: mu - 3 sigma; vN: a "
                  "bot's version (its Elo and openskill carry on to the next); times in UTC")
    for name, justify in [("#", "right"), ("bot", "left"), ("rating ± 95%", "right"),
                          ("Elo", "right"), ("openskill", "right"), ("games", "right"),
                          ("W", "right"), ("D", "right"), ("L", "right"),
                          ("last played", "left")]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    versioned = {r["bot"] for r in rows if r.get("version", 1) != 1}
    for r in rows:
        margin = f" ± {r['interval']:.0f}" if r["interval"] is not None else ""
        name = f"{r['bot']} v{r['version']}" if r["bot"] in versioned else r["bot"]
        table.add_row(
            str(r["rank"]), name,
            f"{r['rating']:.0f}{margin}{'?' if r['provisional'] else ''}", f"{r['elo']:.0f}",
            f"{r['openskill']:.2f}", str(r["games"]), str(r["wins"]), str(r["draws"]),
            str(r["losses"]), r["last_played"][:16].replace("T", " "),
        )
    Console().print(table)


@ladder.command()
@game_option("Only this game (default: every game).")
@db_option()
@click.option("--k", "k", type=click.FloatRange(min=0, min_open=True), default=None,
              help="New Elo K (needs --game).")
@click.option("--k-provisional", type=click.FloatRange(min=0, min_open=True), default=None,
              help="New K for a bot's first games (needs --game).")
@click.option("--provisional-games", type=click.IntRange(0), default=None,
              help="How many first games use the provisional K (needs --game).")
def recompute(game: str | None, db_url: str | None, k: float | None,
              k_provisional: float | None, provisional_games: int | None) -> None:
    """Rebuild the ratings as a fold over the stored matches in order (optionally with new K)."""
    from ladder.leaderboard import ladder_settings
    from ladder.ratings import EloConfig
    from ladder.recompute import recompute as rebuild

    changes = {"k": k, "k_provisional": k_provisional, "provisional_games": provisional_games}
    changes = {name: value for name, value in changes.items() if value is not None}
    if changes and game is None:
        raise click.UsageError("--k, --k-provisional and --provisional-games need --game")
    with database(db_url) as engine:
        elo = None
        if game is not None:
            check_game(engine, game)
            current = ladder_settings(engine, game) or EloConfig()
            elo = EloConfig(**{**current.__dict__, **changes}) if changes else None
        started = time.perf_counter()
        count = rebuild(engine, game, elo=elo)
    click.echo(f"recomputed {count} matches of {game or 'every game'} "
               f"in {time.perf_counter() - started:.2f} s")


@ladder.command()
@game_option("Checked, then ignored: every tick covers every ladder (they share bots).")
@db_option()
@click.option("--depth", type=click.IntRange(1), default=None,
              help="Ladder matches in flight at most (default: REFEREE_LADDER_DEPTH, else as "
                   "for a broker's workers).")
def tick(game: str | None, db_url: str | None, depth: int | None) -> None:
    """Run the matchmaker once: open rounds and release fixtures whose bots are free.

    With REFEREE_BROKER set the released matches are sent to the workers at once; otherwise
    the sweeper of the server or worker pool picks them up.  Safe beside running servers:
    ticks take a lock and never schedule twice.
    """
    from dataclasses import replace

    from api.config import ServiceConfig
    from api.scheduling import tick_and_enqueue

    try:
        service = ServiceConfig.from_env(db_url=db_url)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    config = service.matchmaker(embedded=False)  # the ticks of no server's own pool
    if depth is not None:
        config = replace(config, depth=depth)
    require_database(db_url)  # a mistyped --db would otherwise create an empty ladder
    with database(db_url) as engine:
        if game is not None:
            check_game(engine, game)
        dispatcher = None
        if service.broker_url:
            from api.dispatch import CeleryDispatcher

            dispatcher = CeleryDispatcher(service.broker_url, service.queue)
        try:
            result = tick_and_enqueue(engine, config, dispatcher)
        finally:
            if dispatcher is not None:
                dispatcher.close()
    click.echo(f"opened {len(result.opened)} rounds, closed {len(result.closed)}, "
               f"released {len(result.enqueue)} matches ({result.created} created)")


ladder.add_command(export)

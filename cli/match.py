"""``referee match``: play one match and print who won and why."""

from __future__ import annotations

import json
import os
import secrets
from typing import Any

import click

from cli.params import (
    allow_dead_option, bad_bot_url, board_option, check_http_bots, clock_options, game_option,
    game_options_option, load_board, parse_options,
)
from referee.core import Game, RulesError
from referee.lineup import is_url, make_players, split_name
from referee.match import MatchRecord, Runner, TimeControl
from referee.players import Player


def bot_url_error() -> type[Exception]:
    """The transport's bad-URL error, imported only once an exception is being handled (an
    ``except`` clause is evaluated then), so that ``referee match`` does not load ``requests``
    for in-process matches."""
    from referee.transport import BotUrlError

    return BotUrlError


def check_log_path(ctx: click.Context, param: click.Parameter, path: str | None) -> str | None:
    """Refuse, before playing, a ``--log`` that could not be written after the match. The file
    itself is written only once the match is over, so a match that fails leaves an earlier log
    at that path alone."""
    if path is not None:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise click.BadParameter(f"folder {folder} does not exist", ctx, param)
        if not os.access(folder, os.W_OK):
            raise click.BadParameter(f"cannot write in folder {folder}", ctx, param)
    return path


SLOWEST = 3
"""Decisions listed by time in the readable summary: where a bot author looks first."""


@click.command()
@click.argument("bots", nargs=-1, required=True)
@game_option()
@click.option("--seed", type=int, default=None, help="Replay a game exactly (drawn if absent).")
@board_option()
@game_options_option()
@clock_options()
@click.option("--log", "log_path", type=click.Path(dir_okay=False, writable=True),
              callback=check_log_path, help="Write the match log here.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object and nothing else.")
@click.option("--over-http", is_flag=True,
              help="Serve the built-in bots through real HTTP servers on free local ports.")
@allow_dead_option()
def match(
    bots: tuple[str, ...], game: Game, seed: int | None, board_path: str | None,
    option_pairs: tuple[str, ...], time_ms: int, bank_ms: int, strikes: int,
    log_path: str | None, as_json: bool, over_http: bool = False, allow_dead: bool = False,
) -> None:
    """Play one match between BOTS, one per seat: built-in names (random, greedy,
    mcts:playouts=200, ...), http:// URLs, or NAME=BOT to name a seat."""
    drawn = seed is None
    seed = secrets.randbits(63) if seed is None else seed
    board = load_board(game, board_path)
    names, specs = seat_names(bots)
    players: list[Player] = []
    servers: list[Any] = []
    try:
        options = game.validate_options(parse_options(option_pairs))
        for spec in specs:
            problem = bad_bot_url(spec)
            if problem:
                raise click.ClickException(problem)
        check_http_bots([s for s in specs if is_url(s)], game.name, allow_dead)
        if over_http:
            from bots.server import serve_seats

            players, servers = serve_seats(specs, game.name, seed, names)
        else:
            players = make_players(specs, game.name, seed, names)
        runner = Runner(game, players, seed, board=board, options=options,
                        time_control=TimeControl(time_ms, bank_ms), strikes=strikes)
        if drawn and not as_json:
            click.echo(f"seed {seed}", err=True)
        record = runner.run()
    except (RulesError, LookupError, bot_url_error()) as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:  # --over-http could not bind a local port
        raise click.ClickException(f"cannot serve the bots over HTTP: {exc}") from exc
    finally:
        for p in players:
            p.close()
        for server in servers:
            server.stop()
    if as_json:
        click.echo(json.dumps(record.summary()))
    else:
        print_summary(record)
    if log_path:  # after the result is shown, so a failed write does not hide it
        try:
            with open(log_path, "w", encoding="utf-8") as fh:
                json.dump(record.log, fh)
        except OSError as exc:
            raise click.ClickException(f"cannot write the log {log_path}: {exc.strerror}") from exc


def seat_names(bots: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """``NAME=BOT`` arguments split into the seats' names and bot specs."""
    try:
        pairs = [split_name(b) for b in bots]
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    return [name for name, _ in pairs], [spec for _, spec in pairs]


def print_summary(record: MatchRecord) -> None:
    s = record.summary()
    played = (f"{s['turns']} turns ({s['rounds']} full rounds)" if "turns" in s
              else f"{s['rounds']} rounds")
    click.echo(f"{s['game']}  seed {s['seed']}  {played}  end: {s['end']}")
    if s["reason"]:
        click.echo(f"  {s['reason']}")
    extra = record.log["result"].get("extra", {})
    if extra.get("automa_numbers") == "placeholder":
        click.echo(f"  Automa level {extra.get('automa_level')}: its track numbers are placeholders")
    for seat in sorted(s["seats"], key=lambda x: x["rank"]):
        parts = ", ".join(f"{k} {v}" for k, v in seat["breakdown"].items())
        strikes = f"  strikes {seat['strikes']}" if seat["strikes"] else ""
        click.echo(
            f"  #{seat['rank']} seat {seat['seat']} {seat['bot']:<12} {seat['score']:>4}"
            f"  ({parts}){strikes}"
        )
    names = [s["seats"][w]["bot"] for w in s["winners"]]
    verb = "wins" if len(names) == 1 else "share the win"
    click.echo(f"  {' and '.join(names)} {verb}")
    for fault in s["faults"]:
        click.echo(f"  fault: seat {fault['seat']} {fault['kind']} {fault['reason']} {fault['detail']}")
    slowest = sorted(record.log["decisions"], key=lambda d: d["ms"], reverse=True)[:SLOWEST]
    if slowest:
        click.echo("  slowest decisions:")
        for d in slowest:
            click.echo(f"    {d['ms']:8.2f} ms  step {d['step']} seat {d['seat']} "
                       f"{s['seats'][d['seat']]['bot']} {d['kind']} ({d['status']})")

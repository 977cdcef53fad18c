"""``referee match``: play one match and print who won and why."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import NoReturn

import click

from arena import (
    MatchDescription, MatchRecord, TimeControl, check_match, parse_seats, play_prepared,
)
from cli.params import (
    allow_dead_option, board_option, clock_options, game_option, game_options_option, log_option,
    require_live,
)
from referee.core import Game
from referee.display import printable
from referee.match import MatchInterrupted
from referee.matchlog import write_log

SLOWEST = 3
"""Decisions listed by time in the readable summary: where a bot author looks first."""


@click.command()
@click.argument("bots", nargs=-1, required=True)
@game_option()
@click.option("--seed", type=int, default=None, help="Replay a game exactly (drawn if absent).")
@board_option()
@game_options_option()
@clock_options()
@log_option()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object and nothing else.")
@click.option("--over-http", is_flag=True,
              help="Serve the built-in bots through real HTTP servers on free local ports.")
@allow_dead_option()
def match(
    bots: tuple[str, ...], game: Game, seed: int | None, board_path: str | None,
    options: dict[str, object], time_ms: int, bank_ms: int, strikes: int,
    log_path: str | None, as_json: bool, over_http: bool = False, allow_dead: bool = False,
) -> None:
    """Play one match between BOTS, one per seat: built-in names (random, greedy,
    mcts:playouts=200, ...), http:// URLs, "cmd:COMMAND" (a bot program the referee starts,
    its port in {port} and $PORT; its output beside --log), py:FILE[:NAME] (a Python bot
    played in-process), or NAME=BOT to name a seat."""
    drawn = seed is None
    description = MatchDescription(
        game=game.name, seats=parse_seats(bots),
        seed=secrets.randbits(63) if seed is None else seed, board=board_path, options=options,
        time_control=TimeControl(time_ms, bank_ms), strikes=strikes, over_http=over_http,
        outputs=outputs_beside(log_path),
    )
    prepared = check_match(description)
    require_live([s.bot for s in description.seats if s.remote], game.name, allow_dead)
    if drawn and not as_json:
        click.echo(f"seed {description.seed}", err=True)
    try:
        record = play_prepared(prepared)
    except KeyboardInterrupt as stop:
        interrupted(stop, description.seed, log_path)
    if as_json:
        click.echo(json.dumps(record.summary()))
    else:
        print_summary(record)
    if log_path:  # after the result is shown, so a failed write does not hide it
        write_log(log_path, record.log)


def interrupted(stop: KeyboardInterrupt, seed: int, log_path: str | None) -> NoReturn:
    """Ctrl-C: say how far the match went, keep its log so far (marked unfinished) where
    ``--log`` asked, and exit 130 (the shell's code for an interrupt), as ``tournament`` does."""
    if not isinstance(stop, MatchInterrupted):  # before the first decision: nothing to keep
        click.echo(f"interrupted before the first decision (seed {seed})", err=True)
        sys.exit(130)
    played = f"interrupted after {len(stop.log['decisions'])} decisions (seed {seed})"
    if log_path:
        write_log(log_path, stop.log)
        played += f"; the log so far, marked unfinished, is in {log_path}"
    click.echo(played, err=True)
    sys.exit(130)


def outputs_beside(log_path: str | None) -> str | None:
    """Where ``cmd:`` bots' output goes: beside the log (``game.json`` gives
    ``game.seat0.stderr``), or nowhere in particular without one."""
    if log_path is None:
        return None
    return str(Path(log_path).with_suffix("")) if log_path.endswith(".json") else log_path


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
    for f in record.faults:
        click.echo(f"  fault: seat {f.seat} {f.kind} {f.reason} {printable(f.fault.detail)}")
    slowest = sorted(record.log["decisions"], key=lambda d: d["ms"], reverse=True)[:SLOWEST]
    if slowest:
        click.echo("  slowest decisions:")
        for d in slowest:
            click.echo(f"    {d['ms']:8.2f} ms  step {d['step']} seat {d['seat']} "
                       f"{s['seats'][d['seat']]['bot']} {d['kind']} ({d['status']})")

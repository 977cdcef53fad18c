"""``referee sprt``: is NEW stronger than BASE? Game pairs until the SPRT decides.

The test is the pentanomial GSPRT of fishtest and fastchess over seat-swapped game pairs. Elo
bounds are *normalized* Elo by default (as fishtest and fastchess do: the bounds then mean the
same effort whatever the draw rate), or logistic Elo with ``--model logistic``.
"""

from __future__ import annotations

import json
import secrets
import sys
from typing import Any

import click

from cli.params import (
    board_option, clock_options, game_option, game_options_option, load_board, parse_options,
)
from cli.tournament import check_bots
from ladder import stats
from ladder.tournament import Interrupted, Settings, SprtRun, parse_entrants, run_sprt
from referee.core import Game, RulesError


def trace_lines(test: SprtRun, every: int) -> list[str]:
    """The LLR trace, one line per ``every`` pairs and always the last one."""
    lo, hi = test.bounds
    lines = []
    for i, step in enumerate(test.trace):
        if (i + 1) % every == 0 or i == len(test.trace) - 1:
            pos = int(round(40 * (min(max(step.llr, lo), hi) - lo) / (hi - lo)))
            gauge = "-" * pos + "|" + "-" * (40 - pos)
            lines.append(f"  pair {step.pairs:>6}  LLR {step.llr:+7.3f}  [{gauge}]")
    return lines


def verdict_line(test: SprtRun, new: str, base: str) -> str:
    if test.verdict == "H1":
        return f"H1 accepted: {new} is stronger than {base} (elo >= {test.elo1:g} {test.model})"
    if test.verdict == "H0":
        return f"H0 accepted: {new} is not stronger than {base} (elo <= {test.elo0:g} {test.model})"
    return f"no verdict after {test.penta.pairs} pairs: inconclusive"


def document(test: SprtRun, new: str, base: str, game: str, seed: int) -> dict[str, Any]:
    est = test.penta.estimate() if test.penta.pairs else None
    return {
        "new": new, "base": base, "game": game, "seed": seed, "model": test.model,
        "elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta,
        "bounds": list(test.bounds), "verdict": test.verdict, "pairs": test.penta.pairs,
        "pentanomial": test.penta.to_dict(), "stats": est.to_dict() if est else None,
        "trace": [round(s.llr, 5) for s in test.trace],
    }


@click.command()
@click.argument("new")
@click.argument("base")
@game_option()
@click.option("--elo0", type=float, default=0.0, show_default=True, help="Elo under H0.")
@click.option("--elo1", type=float, default=10.0, show_default=True, help="Elo under H1.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="False positive rate.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="False negative rate.")
@click.option("--model", type=click.Choice(stats.MODELS), default="normalized", show_default=True,
              help="Whether elo0/elo1 are normalized or logistic Elo.")
@click.option("--max-pairs", type=click.IntRange(1), default=20000, show_default=True,
              help="Stop without a verdict after this many game pairs.")
@click.option("--concurrency", "-j", type=click.IntRange(1), default=1, show_default=True)
@click.option("--seed", type=int, default=None, help="Seed of the pair schedule (drawn if absent).")
@board_option()
@game_options_option()
@clock_options(bank=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the trace.")
def sprt(
    new: str, base: str, game: Game, elo0: float, elo1: float, alpha: float, beta: float,
    model: str, max_pairs: int, concurrency: int, seed: int | None, board_path: str | None,
    option_pairs: tuple[str, ...], time_ms: int, strikes: int, as_json: bool,
) -> None:
    """Play game pairs NEW vs BASE until the SPRT accepts or rejects "NEW is stronger"."""
    if 2 not in game.player_counts:
        raise click.ClickException(f"sprt needs a two-seat game; {game.name} is played by "
                                   f"{', '.join(map(str, game.player_counts))}")
    try:
        stats.validate_sprt(elo0, elo1, alpha, beta, model)
        entrants = parse_entrants([new, base])
        load_board(game, board_path)
        options = game.validate_options(parse_options(option_pairs))
        settings = Settings(game.name, board_path, options, time_ms, 0, strikes)
    except (ValueError, RulesError) as exc:
        raise click.ClickException(str(exc)) from exc
    check_bots(entrants, game)
    seed = seed if seed is not None else secrets.randbits(63)
    lo, hi = stats.sprt_bounds(alpha, beta)
    click.echo(f"sprt {entrants[0].name} vs {entrants[1].name} on {game.name}: "
               f"elo0 {elo0:g} elo1 {elo1:g} ({model}), alpha {alpha:g} beta {beta:g}, "
               f"LLR bounds [{lo:.3f}, {hi:.3f}], seed {seed}", err=True)
    test = SprtRun(elo0, elo1, alpha, beta, model)
    interrupted = False
    try:
        run_sprt(test, entrants[0], entrants[1], settings, seed, max_pairs, concurrency,
                 progress=live_line if sys.stderr.isatty() and not as_json else None)
    except Interrupted:
        interrupted = True
    if sys.stderr.isatty() and not as_json:
        click.echo("", err=True)
    doc = document(test, entrants[0].name, entrants[1].name, game.name, seed)
    if as_json:
        click.echo(json.dumps({**doc, "interrupted": interrupted}))
    else:
        every = max(1, len(test.trace) // 20)
        click.echo("\n".join(trace_lines(test, every)))
        est = doc["stats"]
        if est:
            p = doc["pentanomial"]
            click.echo(f"pairs {test.penta.pairs}  LL-LD-WL/DD-WD-WW "
                       f"{p['ll']}-{p['ld']}-{p['wl']}/{p['dd']}-{p['wd']}-{p['ww']}  "
                       f"{stats.format_elo(est, nelo=True)}")
        click.echo(verdict_line(test, entrants[0].name, entrants[1].name)
                   + (" (interrupted)" if interrupted else ""))
    if interrupted:
        sys.exit(130)


def live_line(test: SprtRun) -> None:
    """One overwritten status line on stderr while the test runs."""
    step = test.trace[-1]
    lo, hi = test.bounds
    click.echo(f"\r  pairs {step.pairs}  LLR {step.llr:+.3f}  bounds [{lo:.2f}, {hi:.2f}]   ",
               err=True, nl=False)

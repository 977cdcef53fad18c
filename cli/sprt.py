"""``referee sprt``: is NEW stronger than BASE? Game pairs until the SPRT decides.

The test is the pentanomial GSPRT of fishtest and fastchess over seat-swapped game pairs. Elo
bounds are *normalized* Elo by default (as fishtest and fastchess do: the bounds then mean the
same effort whatever the draw rate), or logistic Elo with ``--model logistic``.
"""

from __future__ import annotations

import json
import math
import secrets
import sys
import time
from typing import Any

import click

from cli.params import (
    allow_dead_option, board_option, clock_options, game_option, game_options_option,
)
from cli.progress import eta_seconds, format_duration
from cli.tournament import check_live, match_terms
from tournaments import Interrupted, stats
from tournaments.plan import Plan, check_entrants, parse_entrants
from tournaments.sprt import SprtRun, run_sprt
from referee.core import Game


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
@click.option("--concurrency", "-j", type=click.IntRange(1), default=1, show_default=True,
              help="Games played at once (processes for built-in bots, threads for HTTP); "
                   "the verdict does not depend on it.")
@click.option("--seed", type=int, default=None, help="Seed of the pair schedule (drawn if absent).")
@board_option()
@game_options_option()
@clock_options(bank=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the trace.")
@allow_dead_option()
def sprt(
    new: str, base: str, game: Game, elo0: float, elo1: float, alpha: float, beta: float,
    model: str, max_pairs: int, concurrency: int, seed: int | None, board_path: str | None,
    options: dict[str, Any], time_ms: int, strikes: int, as_json: bool,
    allow_dead: bool,
) -> None:
    """Play game pairs NEW vs BASE until the SPRT accepts or rejects "NEW is stronger"."""
    if 2 not in game.player_counts:
        raise click.ClickException(f"sprt needs a two-seat game; {game.name} is played by "
                                   f"{', '.join(map(str, game.player_counts))}")
    stats.validate_sprt(elo0, elo1, alpha, beta, model)
    entrants = parse_entrants([new, base])
    terms = match_terms(game, board_path, options, time_ms, 0, strikes)
    check_entrants(entrants, game.name)
    seed = seed if seed is not None else secrets.randbits(63)
    plan = Plan(game.name, tuple(entrants), 2, 2, seed, **terms)
    check_live(plan, concurrency, allow_dead)
    lo, hi = stats.sprt_bounds(alpha, beta)
    click.echo(f"sprt {entrants[0].name} vs {entrants[1].name} on {game.name}: "
               f"elo0 {elo0:g} elo1 {elo1:g} ({model}), alpha {alpha:g} beta {beta:g}, "
               f"LLR bounds [{lo:.3f}, {hi:.3f}], seed {seed}", err=True)
    test = SprtRun(elo0, elo1, alpha, beta, model)
    click.echo(f"  {expectation(test, max_pairs)}", err=True)
    interrupted = False
    live = Progress(max_pairs, tty=sys.stderr.isatty())
    try:
        run_sprt(test, plan, max_pairs, concurrency, progress=live)
    except Interrupted:
        interrupted = True
    if live.tty:
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


def expected_length(test: SprtRun, max_pairs: int) -> stats.ExpectedLength | None:
    """The test's expected length in pairs; logistic bounds need the spread, so only once a
    few pairs are in (then from the pairs so far)."""
    pair_sd = None
    if test.model == "logistic":
        if test.penta.pairs < MIN_PAIRS_FOR_SPREAD:
            return None
        pair_sd = math.sqrt(stats.mean_variance(stats.PAIR_SCORES, test.penta.buckets())[1])
        if pair_sd == 0.0:
            return None
    return stats.expected_pairs(test.elo0, test.elo1, test.alpha, test.beta, test.model,
                                pair_sd)


def expectation(test: SprtRun, max_pairs: int) -> str:
    """What to expect, said before the first pair: the run can take hours."""
    length = expected_length(test, max_pairs)
    if length is None:
        return (f"expected length: known after {MIN_PAIRS_FOR_SPREAD} pairs (logistic bounds "
                f"depend on the draw rate); at most {max_pairs} pairs")
    typical = max(length.at_h0, length.at_h1)
    text = (f"expected length: about {typical:,.0f} game pairs ({2 * typical:,.0f} games) when "
            f"NEW is elo0 or elo1 stronger, about {length.worst:,.0f} when it is in between")
    if max_pairs < length.worst:
        text += f"; --max-pairs stops it at {max_pairs:,}, maybe without a verdict"
    return text


MIN_PAIRS_FOR_SPREAD = 20


class Progress:
    """The test's progress on stderr: an overwritten line in a terminal, else a line every
    twentieth of the expected length; each with the rate and an ETA to the expected length."""

    def __init__(self, max_pairs: int, tty: bool) -> None:
        self.max_pairs, self.tty = max_pairs, tty
        self.began = time.monotonic()

    def __call__(self, test: SprtRun) -> None:
        step, (lo, hi) = test.trace[-1], test.bounds
        length = expected_length(test, self.max_pairs)
        expected = min(max(length.at_h0, length.at_h1), self.max_pairs) if length else None
        elapsed = time.monotonic() - self.began
        rate = step.pairs / max(elapsed, 1e-9)
        if expected is None:
            eta = "ETA --:--"
        elif step.pairs < expected:
            eta = f"ETA ~{format_duration(eta_seconds(step.pairs, round(expected), elapsed))}"
        else:
            eta = "past the expected length"
        text = (f"  pairs {step.pairs}" + (f" of ~{expected:,.0f}" if expected else "")
                + f"  LLR {step.llr:+.3f}  bounds [{lo:.2f}, {hi:.2f}]  {rate:.2f} pairs/s  "
                f"{eta}")
        if self.tty:
            click.echo(f"\r{text}   ", err=True, nl=False)
        elif step.pairs % max(1, round((expected or 1000) / 20)) == 0:
            click.echo(text, err=True)

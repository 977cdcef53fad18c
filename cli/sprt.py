"""``referee sprt``: is NEW stronger than BASE? Game pairs until the SPRT decides.

The test is the pentanomial GSPRT of fishtest and fastchess over seat-swapped game pairs. Elo
bounds are *normalized* Elo by default (as fishtest and fastchess do: the bounds then mean the
same effort whatever the draw rate), or logistic Elo with ``--model logistic``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import secrets
import shlex
import sys
import time
from collections.abc import Mapping
from concurrent.futures import BrokenExecutor
from pathlib import Path
from typing import Any

import click

from cli.params import (
    EntrantTimes, allow_dead_option, board_option, clock_options, game_options_option,
)
from cli.progress import eta_seconds, format_duration
from cli.tournament import (
    LogFolder, check_live, check_resume, given_terms, match_terms, resumable_game_option,
    resumed_entrants,
)
from referee.core import Game
from referee.display import has_credentials, redact
from referee.errors import RefereeError
from tournaments import Interrupted, stats
from tournaments.plan import Plan, SprtTerms, check_entrants, parse_entrants, with_times
from tournaments.sprt import Sprt, SprtRun
from tournaments.store import JsonlStateStore, default_state_dir, new_tournament_id


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


DEFAULT_MAX_PAIRS = 20000
"""Where an SPRT stops without a verdict, unless ``--max-pairs`` says otherwise."""


@click.command()
@click.argument("new", required=False)
@click.argument("base", required=False)
@resumable_game_option()
@click.option("--elo0", type=float, default=0.0, show_default=True, help="Elo under H0.")
@click.option("--elo1", type=float, default=10.0, show_default=True, help="Elo under H1.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="False positive rate.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="False negative rate.")
@click.option("--model", type=click.Choice(stats.MODELS), default="normalized", show_default=True,
              help="Whether elo0/elo1 are normalized or logistic Elo.")
@click.option("--max-pairs", type=click.IntRange(1), default=None,
              help=f"Stop without a verdict after this many game pairs (default "
                   f"{DEFAULT_MAX_PAIRS}; with --resume, raises or lowers the stored limit).")
@click.option("--concurrency", "-j", type=click.IntRange(1), default=1, show_default=True,
              help="Games played at once (processes for built-in bots, threads for HTTP); "
                   "the verdict does not depend on it.")
@click.option("--seed", type=int, default=None, help="Seed of the pair schedule (drawn if absent).")
@board_option()
@game_options_option()
@clock_options(per_entrant=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the trace.")
@click.option("--resume", "resume_id", default=None, metavar="ID",
              help="Go on with an interrupted SPRT (its state file holds the bots, the game "
                   "and the test: no other option is needed).")
@click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where state files live (default: the user data directory, with the "
                   "tournaments').")
@click.option("--logs", "logs_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, metavar="DIR",
              help="Write every game's match log to DIR/<match id>.json (for referee replay "
                   "and referee view).")
@allow_dead_option()
@click.pass_context
def sprt(
    ctx: click.Context, new: str | None, base: str | None, game: Game | None, elo0: float,
    elo1: float, alpha: float, beta: float, model: str, max_pairs: int | None, concurrency: int,
    seed: int | None, board_path: str | None, options: dict[str, Any], time_ms: EntrantTimes,
    bank_ms: int, strikes: int, as_json: bool, resume_id: str | None, state_dir: Path | None,
    logs_dir: Path | None, allow_dead: bool,
) -> None:
    """Play game pairs NEW vs BASE until the SPRT accepts or rejects "NEW is stronger".

    Resumable like a tournament: Ctrl-C keeps every finished game, and --resume ID goes on.
    """
    default_dir = default_state_dir()
    state_dir = state_dir or default_dir
    logs = LogFolder(logs_dir) if logs_dir is not None else None
    if resume_id:
        run = resume_sprt(state_dir, resume_id, [b for b in (new, base) if b],
                          given_terms(ctx), max_pairs)
    else:
        if game is None or new is None or base is None:
            raise click.UsageError("name NEW, BASE and --game (or --resume ID)")
        plan = sprt_plan(game, new, base, seed, SprtTerms(
            elo0, elo1, alpha, beta, model, max_pairs or DEFAULT_MAX_PAIRS),
            match_terms(game, board_path, options, time_ms.default_ms, bank_ms, strikes),
            time_ms.own)
        run = None
    plan = check_live(run.plan if run else plan, concurrency, allow_dead)
    if run is None:
        run = Sprt.start(plan, JsonlStateStore(state_dir, new_tournament_id()))
    run.plan = plan
    if logs is not None:
        keep_logs(run)
    announce(run, resume_id is not None)
    live = Progress(run.terms.max_pairs, tty=sys.stderr.isatty(), before=run.test().penta.pairs)
    try:
        test = run.run(concurrency, record=logs.record if logs else None, progress=live)
    except Interrupted:
        test = run.test()
        hint = resume_hint(run, state_dir if state_dir != default_dir else None, concurrency,
                           logs_dir)
        if live.tty:
            click.echo("", err=True)
        pairs = f"{test.penta.pairs} pair{'' if test.penta.pairs == 1 else 's'}"
        click.echo(f"interrupted after {pairs}; go on with:\n  {hint}", err=True)
        show(run, test, as_json, interrupted=True)
        sys.exit(130)
    except (RefereeError, OSError, BrokenExecutor) as exc:
        raise click.ClickException(
            f"{exc}; the games so far are kept, go on with --resume {run.sprt_id}") from exc
    if live.tty:
        click.echo("", err=True)
    if logs is not None:
        click.echo(f"{logs.written} match logs written to {logs.folder}", err=True)
    show(run, test, as_json, interrupted=False)



def sprt_plan(game: Game, new: str, base: str, seed: int | None, terms: SprtTerms,
              match: dict[str, Any], own_times: Mapping[str, int]) -> Plan:
    """The plan of a new SPRT, checked before anything is played or written."""
    if 2 not in game.player_counts:
        raise click.ClickException(f"sprt needs a two-seat game; {game.name} is played by "
                                   f"{', '.join(map(str, game.player_counts))}")
    stats.validate_sprt(terms.elo0, terms.elo1, terms.alpha, terms.beta, terms.model)
    entrants = with_times(parse_entrants([new, base]), own_times)
    check_entrants(entrants, game.name)
    seed = seed if seed is not None else secrets.randbits(63)
    return Plan(game.name, tuple(entrants), 2, 2, seed, **match, sprt=terms)


def resume_sprt(state_dir: Path, sprt_id: str, bots: list[str], given: dict[str, Any],
                max_pairs: int | None) -> Sprt:
    """The SPRT to go on with, after checking the command names the same one; a
    ``--max-pairs`` given replaces the stored limit (to go on past it, or stop sooner)."""
    run = Sprt.resume(JsonlStateStore(state_dir, sprt_id))
    if bots and len(bots) != 2:
        raise click.UsageError("--resume: name both NEW and BASE, or neither")
    run.plan = resumed_entrants(run.plan, bots)
    check_resume(run.plan, given)
    if max_pairs is not None:
        run.plan = dataclasses.replace(
            run.plan, sprt=dataclasses.replace(run.terms, max_pairs=max_pairs))
    return run


def keep_logs(run: Sprt) -> None:
    """Ask the match workers for every log (``--logs``)."""
    run.plan = dataclasses.replace(run.plan, keep_logs=True)


def announce(run: Sprt, resumed: bool) -> None:
    """The test's terms and what to expect, before the first pair: the run can take hours."""
    plan, terms, test = run.plan, run.terms, run.test()
    new, base = (e.name for e in plan.entrants)
    lo, hi = test.bounds
    verb = f"resuming sprt {run.sprt_id} after {test.penta.pairs} pairs" if resumed else \
        f"sprt {run.sprt_id}"
    click.echo(f"{verb}: {new} vs {base} on {plan.game}: elo0 {terms.elo0:g} elo1 "
               f"{terms.elo1:g} ({terms.model}), alpha {terms.alpha:g} beta {terms.beta:g}, "
               f"LLR bounds [{lo:.3f}, {hi:.3f}], seed {plan.seed} "
               f"(resume with --resume {run.sprt_id})", err=True)
    click.echo(f"  {expectation(test, terms.max_pairs)}", err=True)


def resume_hint(run: Sprt, state_dir: Path | None, concurrency: int,
                logs_dir: Path | None) -> str:
    """The command that goes on with this SPRT, shown after Ctrl-C (a bot URL's credentials
    are shown as ``***``: put them back to run it)."""
    args = ["referee", "sprt"]
    if any(has_credentials(e.bot) for e in run.plan.entrants):
        args += [e.name if e.name == redact(e.bot) else f"{e.name}={redact(e.bot)}"
                 for e in run.plan.entrants]
    args += ["--resume", run.sprt_id]
    if concurrency > 1:
        args += ["--concurrency", str(concurrency)]
    if state_dir is not None:
        args += ["--state-dir", str(state_dir)]
    if logs_dir is not None:
        args += ["--logs", str(logs_dir)]
    return " ".join(shlex.quote(a) for a in args)


def show(run: Sprt, test: SprtRun, as_json: bool, interrupted: bool) -> None:
    """The result: the JSON document, or the LLR trace, the counts and the verdict."""
    new, base = (e.name for e in run.plan.entrants)
    doc = document(test, new, base, run.plan.game, run.plan.seed)
    if as_json:
        click.echo(json.dumps({**doc, "sprt": run.sprt_id, "interrupted": interrupted}))
        return
    every = max(1, len(test.trace) // 20)
    click.echo("\n".join(trace_lines(test, every)))
    est = doc["stats"]
    if est:
        p = doc["pentanomial"]
        click.echo(f"pairs {test.penta.pairs}  LL-LD-WL/DD-WD-WW "
                   f"{p['ll']}-{p['ld']}-{p['wl']}/{p['dd']}-{p['wd']}-{p['ww']}  "
                   f"{stats.format_elo(est, nelo=True)}")
    click.echo(verdict_line(test, new, base) + (" (interrupted)" if interrupted else ""))


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


PACE_PAIRS = 4
"""After this many pairs of a run, the pace they set is said once, with the ETA it gives."""


class Progress:
    """The test's progress on stderr: an overwritten line in a terminal, else a line every
    twentieth of the expected length; each with the rate and an ETA to the expected length.
    After the first :data:`PACE_PAIRS` pairs of this run, one line that stays: their pace and
    the time the expected length takes at it. Pairs played by an earlier run (``before``)
    count for the length, not for the pace."""

    def __init__(self, max_pairs: int, tty: bool, before: int = 0) -> None:
        self.max_pairs, self.tty, self.before = max_pairs, tty, before
        self.began = time.monotonic()

    def __call__(self, test: SprtRun) -> None:
        step, (lo, hi) = test.trace[-1], test.bounds
        length = expected_length(test, self.max_pairs)
        expected = None
        if length is not None:  # the typical length, then (past it) the worst case's
            typical = max(length.at_h0, length.at_h1)
            expected = min(typical if step.pairs < typical else length.worst, self.max_pairs)
        elapsed = time.monotonic() - self.began
        played = step.pairs - self.before
        rate = played / max(elapsed, 1e-9)
        if expected is None:
            eta = "ETA --:--"
        elif step.pairs < expected:
            left = eta_seconds(played, round(expected) - self.before, elapsed)
            eta = f"ETA ~{format_duration(left)}"
        else:
            eta = "past the expected length"
        text = (f"  pairs {step.pairs}" + (f" of ~{expected:,.0f}" if expected else "")
                + f"  LLR {step.llr:+.3f}  bounds [{lo:.2f}, {hi:.2f}]  {rate:.2f} pairs/s  "
                f"{eta}")
        if played == PACE_PAIRS and test.verdict is None:
            line = pace_line(played, elapsed, step.pairs, expected)
            click.echo(f"\r{line:<{len(text) + 3}}" if self.tty else line, err=True)
        if self.tty:
            click.echo(f"\r{text}   ", err=True, nl=False)
        elif step.pairs % max(1, round((expected or 1000) / 20)) == 0:
            click.echo(text, err=True)


def pace_line(played: int, elapsed: float, pairs: int, expected: float | None) -> str:
    """The pace of the first pairs and the ETA it gives to the expected length."""
    each = elapsed / played
    text = f"  pace: {played} pairs in {format_duration(elapsed)} ({each:.1f} s a pair)"
    if expected is None:
        return text + "; the expected length is known after a few more pairs"
    left = max(0.0, (expected - pairs) * each)
    return text + (f", so about {format_duration(left)} more to the expected ~{expected:,.0f} "
                   f"pairs")

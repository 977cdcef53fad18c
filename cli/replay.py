"""``referee replay LOG``: replay a match log and say whether the result matches."""

from __future__ import annotations

import json

import click

from referee.replay import replay as replay_log


@click.command()
@click.argument("log_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--trace", is_flag=True,
              help="Print every decision (one line each) and what followed, in plain words.")
def replay(log_file: str, trace: bool = False) -> None:
    """Replay LOG_FILE from its seed and choices, checking every decision, fault and the
    result; exit 1 at the first difference (it names the step)."""
    try:
        with open(log_file, encoding="utf-8") as fh:
            log = json.load(fh)
        outcome = replay_log(log)
    except (OSError, ValueError) as exc:  # LogError is a ValueError, as is bad JSON
        raise click.ClickException(f"{log_file}: {exc}") from exc
    except RecursionError:  # the JSON decoder recurses once per level of nesting
        raise click.ClickException(f"{log_file}: not a match log: nested too deep") from None
    if trace and outcome.matches:
        from cli.trace import print_trace

        print_trace(log_file, log)
    if outcome.matches:
        click.echo(f"{log_file}: replay matches ({log['game']}, seed {log['seed']})")
        return
    for diff in outcome.differences:
        click.echo(f"  {diff}", err=True)
    raise click.ClickException(f"{log_file}: replay does not match the log")

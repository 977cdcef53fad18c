"""``referee replay LOG``: replay a match log and say whether the result matches."""

from __future__ import annotations

import click

from referee.matchlog import LogError, read_log
from referee.replay import replay as replay_log


@click.command()
@click.argument("log_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--trace", is_flag=True,
              help="Print every decision (one line each) and what followed, in plain words.")
def replay(log_file: str, trace: bool = False) -> None:
    """Replay LOG_FILE from its seed and choices, checking every decision, fault and the
    result; exit 1 at the first difference (it names the step)."""
    log = read_log(log_file)
    try:
        outcome = replay_log(log)
    except LogError as exc:
        raise LogError(f"{log_file}: {exc}") from exc
    if trace and outcome.matches:
        from cli.trace import print_trace

        print_trace(log_file, log)
    if outcome.matches:
        click.echo(f"{log_file}: replay matches ({log['game']}, seed {log['seed']})")
        return
    for diff in outcome.differences:
        click.echo(f"  {diff}", err=True)
    raise click.ClickException(f"{log_file}: replay does not match the log")

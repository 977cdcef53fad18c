"""``referee replay LOG...``: replay match logs and say, for each, whether the result matches."""

from __future__ import annotations

import click

from referee.matchlog import LogError, read_log
from referee.replay import replay as replay_log


@click.command()
@click.argument("log_files", metavar="LOG_FILE...", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False))
@click.option("--trace", is_flag=True,
              help="Print every decision (one line each) and what followed, in plain words.")
def replay(log_files: tuple[str, ...], trace: bool = False) -> None:
    """Replay LOG_FILE from its seed and choices, checking every decision, fault and the
    result; a log that differs names the first step (or the fields) that differ. Several
    files: a line each, exit 1 if any does not replay."""
    if len(log_files) == 1:  # one file: its problem is the one-line error
        differences = replay_one(log_files[0], trace)
        for diff in differences:
            click.echo(f"  {diff}", err=True)
        if differences:
            raise click.ClickException(f"{log_files[0]}: replay does not match the log")
        return
    failed = 0
    for log_file in log_files:
        try:
            differences = replay_one(log_file, trace)
        except LogError as exc:  # the message names the file
            click.echo(f"{exc}", err=True)
            failed += 1
            continue
        if differences:
            click.echo(f"{log_file}: replay does not match the log", err=True)
            for diff in differences:
                click.echo(f"  {diff}", err=True)
            failed += 1
    if failed:
        raise click.ClickException(f"{failed} of {len(log_files)} logs do not replay")


def replay_one(log_file: str, trace: bool) -> tuple[str, ...]:
    """Replay one log; print its line if it matches (and its trace if asked); the
    differences if not. Raises :class:`LogError` naming the file for one that is not a
    match log."""
    log = read_log(log_file)
    try:
        outcome = replay_log(log)
    except LogError as exc:
        raise LogError(f"{log_file}: {exc}") from exc
    if not outcome.matches:
        return outcome.differences
    if trace:
        from cli.trace import print_trace

        print_trace(log_file, log)
    if log.get("unfinished") is not None:
        click.echo(f"{log_file}: replay matches as far as the log goes: an unfinished match "
                   f"({log['unfinished']}) of {len(log['decisions'])} decisions "
                   f"({log['game']}, seed {log['seed']})")
        return ()
    click.echo(f"{log_file}: replay matches ({log['game']}, seed {log['seed']})")
    return ()

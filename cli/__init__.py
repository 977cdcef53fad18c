"""The ``referee`` command: a click group whose subcommands load only when used.

Lazy loading keeps ``referee match`` from importing the database layer, and one module per
command keeps each command's options beside its code.

Every error a user can cause reaches here as a :class:`~referee.errors.RefereeError` (an unknown
bot, a bad URL, a board file that does not load, a ladder database that cannot be used, ...):
the group turns it into click's one-line ``Error: ...`` and exit status 1, in one place
(:meth:`LazyGroup.invoke`). Commands catch such an error themselves only to add where it
happened (which file, which ``--db``).
"""

from __future__ import annotations

import importlib

import click

from referee.errors import RefereeError

# command name -> "module:attribute"; each module defines one click command or group.
COMMANDS: dict[str, str] = {
    "match": "cli.match:match",
    "replay": "cli.replay:replay",
    "ladder": "cli.ladder:ladder",
    "db": "cli.db:db",
    "bot": "cli.bot:bot",
    "tournament": "cli.tournament:tournament",
    "sprt": "cli.sprt:sprt",
    "view": "cli.view:view",
    "serve": "cli.serve:serve",
    "worker": "cli.worker:worker",
    "beat": "cli.worker:beat",
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module the first time that subcommand is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        return command

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except RefereeError as exc:
            raise click.ClickException(str(exc)) from exc


@click.group(cls=LazyGroup)
@click.version_option(package_name="referee")
def main() -> None:
    """Referee: run board-game matches between bots, enforce the rules, rate the results."""


if __name__ == "__main__":  # pragma: no cover
    main()

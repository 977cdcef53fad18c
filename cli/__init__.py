"""The ``referee`` command: a click group whose subcommands load only when used.

Lazy loading keeps ``referee match`` from importing the database layer, and one module per
command keeps each command's options beside its code.
"""

from __future__ import annotations

import importlib

import click

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


@click.group(cls=LazyGroup)
@click.version_option(package_name="referee")
def main() -> None:
    """Referee: run board-game matches between bots, enforce the rules, rate the results."""


if __name__ == "__main__":  # pragma: no cover
    main()

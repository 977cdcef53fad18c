"""The ``referee`` command: a click group whose subcommands load only when used.

Lazy loading keeps ``referee match`` from importing the database layer and ``referee --help``
from importing any command (it lists them from :data:`COMMANDS`), and one module per command
keeps each command's options beside its code.

Every error a user can cause reaches here as a :class:`~referee.errors.RefereeError` (an unknown
bot, a bad URL, a board file that does not load, a ladder database that cannot be used, ...):
the group turns it into click's one-line ``Error: ...`` and exit status 1, in one place
(:meth:`LazyGroup.invoke`). Commands catch such an error themselves only to add where it
happened (which file, which ``--db``).
"""

from __future__ import annotations

import difflib
import importlib
import textwrap
from typing import NamedTuple

import click

from referee.errors import RefereeError


class Entry(NamedTuple):
    """Where a subcommand lives, and the line ``referee --help`` shows for it.

    The line is kept here, not read from the command, so that the top-level help imports no
    command module (together they pull in SQLAlchemy, alembic, Flask and the engines: seconds
    on a busy machine). It is the start of the command's own help, which a test checks."""

    target: str
    """``module:attribute``; each module defines one click command or group."""
    summary: str


COMMANDS: dict[str, Entry] = {
    "match": Entry("cli.match:match", "Play one match between BOTS, one per seat."),
    "replay": Entry("cli.replay:replay", "Replay LOG_FILE from its seed and choices, checking"
                                         " every decision, fault and the result."),
    "ladder": Entry("cli.ladder:ladder", "The rating ladder: the fitted public rating with its "
                    "interval, live Elo and openskill."),
    "db": Entry("cli.db:db", "The ladder database's schema."),
    "bot": Entry("cli.bot:bot", "Serve a built-in bot over HTTP, check that your bot speaks the "
                 "protocol, or connect it to a service from behind NAT (pull mode)."),
    "tournament": Entry("cli.tournament:tournament", "Play a round-robin between BOTS."),
    "sprt": Entry("cli.sprt:sprt", "Play game pairs NEW vs BASE until the SPRT accepts or"
                                   " rejects \"NEW is stronger\"."),
    "view": Entry("cli.view:view", "Draw the match in LOG_FILE."),
    "serve": Entry("cli.serve:serve", "Run the referee service."),
    "worker": Entry("cli.worker:worker", "Play matches from the broker's queue."),
    "beat": Entry("cli.worker:beat", "Send the periodic jobs."),
}

EXTRA_SUBCOMMANDS: dict[str, dict[str, str]] = {"bot": {"list": "cli.bot_list:bot_list"}}
"""Subcommands added to a group defined in another module (``referee bot list`` lives in its
own module, beside ``bot serve`` and ``bot check``)."""


def load(target: str) -> click.Command:
    """The click command at ``module:attribute``."""
    module_name, attr = target.split(":")
    command: click.Command = getattr(importlib.import_module(module_name), attr)
    return command


class LazyGroup(click.Group):
    """A group that imports a subcommand's module the first time that subcommand is used;
    its help lists the subcommands from :data:`COMMANDS` without importing any."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        command = load(entry.target)
        if isinstance(command, click.Group):
            for name, target in EXTRA_SUBCOMMANDS.get(cmd_name, {}).items():
                if name not in command.commands:
                    command.add_command(load(target), name)
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        """click's, with the names close to a mistyped one (click's own suggestion, where it
        has one, looks only at commands already loaded: none here)."""
        name = args[0] if args else ""
        if name in COMMANDS or name.startswith("-") or ctx.resilient_parsing:
            return super().resolve_command(ctx, args)
        close = difflib.get_close_matches(name, list(COMMANDS), n=3, cutoff=0.6)
        hint = (f" Did you mean {' or '.join(map(repr, close))}?" if close
                else f" The commands: {', '.join(sorted(COMMANDS))}.")
        ctx.fail(f"No such command {name!r}.{hint}")

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        width = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [(name, textwrap.shorten(COMMANDS[name].summary, width, placeholder="..."))
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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

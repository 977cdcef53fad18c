"""``referee db``: migrate the ladder database (PostgreSQL in production; SQLite migrates itself)."""

from __future__ import annotations

import click

from cli.ladder_db import db_option, require_database
from ladder import LadderError


@click.group()
def db() -> None:
    """The ladder database's schema."""


@db.command()
@click.argument("revision", required=False)
@db_option()
@click.option("--revision", "old_revision", default=None, hidden=True,
              help="The older spelling of REVISION.")
def upgrade(revision: str | None, db_url: str | None, old_revision: str | None) -> None:
    """Migrate the database up to REVISION ("head", the current schema, by default)."""
    if revision and old_revision and revision != old_revision:
        raise click.UsageError(f"two revisions given: {revision} and --revision {old_revision}")
    run(db_url, revision or old_revision or "head", down=False)


@db.command()
@click.argument("revision")
@db_option()
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def downgrade(revision: str, db_url: str | None, yes: bool) -> None:
    """Migrate the database down to REVISION; "base" drops every ladder table and the
    results in them. Asks first (--yes does not)."""
    from ladder.db import default_url, describe

    if not yes:
        what = ("drops every ladder table and every result in it" if revision == "base"
                else "may drop tables or columns and the data in them")
        target = describe(db_url or default_url())
        click.confirm(f"Downgrade {target} to {revision}? This {what}", abort=True,
                      err=True)
    run(db_url, revision, down=True)


@db.command()
@db_option()
def current(db_url: str | None) -> None:
    """Print the database's schema revision and the one this version expects."""
    from ladder.db import current_revision, head_revision, make_engine

    require_database(db_url)
    try:
        engine = make_engine(db_url)
        try:
            found = current_revision(engine)
        finally:
            engine.dispose()
    except LadderError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{found or 'none'} (this version expects {head_revision()})")


def run(db_url: str | None, revision: str, down: bool) -> None:
    from ladder.db import current_revision, describe, make_engine, migrate

    try:
        engine = make_engine(db_url)
        try:
            migrate(engine, revision, down=down)
            now = current_revision(engine)
        finally:
            engine.dispose()
    except LadderError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{describe(engine.url)} is at schema revision {now or 'none (empty)'}")

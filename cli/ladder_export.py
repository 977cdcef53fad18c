"""``referee ladder export OUT``: the logs stored in a ladder, to a folder, a JSONL or a zip file.

A folder or a zip holds ``<id>.json`` per match (the id the service's pages and API use) and
``index.jsonl`` (one line per match: id, match id, game, time, bots, winners, SHA-256).
A JSONL file (``.jsonl``, gzipped as ``.jsonl.gz``, or ``-`` for standard output) holds one
log per line.  Files are written whole under a temporary name and renamed into place.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

import click

from cli.ladder_db import check_game, database, db_option, game_option
from ladder.export import Exported, Selection, Tally, public_logs

FORMATS = ("folder", "jsonl", "zip")
DATES = ["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M"]


class IdRanges(click.ParamType):
    """``12``, ``10-20``, ``40-`` (and onwards), comma-separated."""

    name = "IDS"

    def convert(self, value: Any, param: Any, ctx: Any) -> list[tuple[int, int | None]]:
        if isinstance(value, list):
            return value
        out: list[tuple[int, int | None]] = []
        for part in str(value).split(","):
            found = re.fullmatch(r"\s*(\d{1,10})\s*(?:(-)\s*(\d{1,10})?)?\s*", part)
            if found is None:
                self.fail(f"{part.strip()!r} is not an id or a range like 10-20 or 40-",
                          param, ctx)
            assert found is not None
            low = int(found.group(1))
            high = int(found.group(3)) if found.group(3) else (None if found.group(2) else low)
            if high is not None and high < low:
                self.fail(f"{part.strip()!r}: the range ends before it starts", param, ctx)
            out.append((low, high))
        return out


def utc_moment(value: datetime | None) -> datetime | None:
    """A date given on the command line is UTC."""
    return None if value is None else value.replace(tzinfo=timezone.utc)


@click.command()
@click.argument("out")
@game_option("Only this game's matches.")
@click.option("--since", type=click.DateTime(DATES), default=None,
              help="Only matches finished at or after this moment (UTC), e.g. 2026-03-01.")
@click.option("--until", type=click.DateTime(DATES), default=None,
              help="Only matches finished before this moment (UTC).")
@click.option("--ids", type=IdRanges(), default=None,
              help="Only these match ids: 12, 10-20, 40- (comma-separated).")
@click.option("--after-id", type=click.IntRange(0), default=None,
              help="Only matches with a larger id (to continue an earlier export).")
@click.option("--limit", type=click.IntRange(1), default=None, help="At most this many.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Default: by OUT's name (.zip, .jsonl, .jsonl.gz, - for standard output: "
                   "JSONL), else a folder.")
@db_option()
def export(out: str, game: str | None, since: datetime | None, until: datetime | None,
           ids: list[tuple[int, int | None]] | None, after_id: int | None, limit: int | None,
           fmt: str | None, db_url: str | None) -> None:
    """Export the finished matches' logs in the ladder to OUT, oldest first.

    The logs are the public ones: bots' own log lines are left out (they are their owners'),
    and a match sharing its seed with one not over yet (a Tokaido Duo pair) is withheld."""
    fmt = fmt or format_of(out)
    if out == "-" and fmt != "jsonl":
        raise click.UsageError("standard output (-) takes --format jsonl")
    since, until = utc_moment(since), utc_moment(until)
    if since and until and until <= since:
        raise click.UsageError("--until must come after --since")
    selection = Selection(game, since, until, ids or (), after_id, limit)
    tally = Tally()
    with database(db_url, read_only=True) as engine:
        if game is not None:
            check_game(engine, game)
        WRITERS[fmt](out, public_logs(engine, selection, tally))
    where = "standard output" if out == "-" else out
    withheld = (f"; {len(tally.withheld)} withheld until the matches sharing their seed are "
                f"over" if tally.withheld else "")
    click.echo(f"exported {tally.exported} match log{'s' if tally.exported != 1 else ''} "
               f"to {where}{withheld}", err=True)


def format_of(out: str) -> str:
    lowered = out.lower()
    if out == "-" or lowered.endswith((".jsonl", ".jsonl.gz")):
        return "jsonl"
    if lowered.endswith(".zip"):
        return "zip"
    return "folder"


def line(log: dict[str, Any]) -> str:
    return json.dumps(log, separators=(",", ":"), ensure_ascii=False) + "\n"


@contextmanager
def replacing(path: Path, mode: str = "wb") -> Iterator[IO[Any]]:
    """A temporary file beside ``path`` that becomes ``path`` if all goes well."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fh = tempfile.NamedTemporaryFile(mode, dir=folder, prefix=f".{path.name}.",
                                         suffix=".tmp", delete=False,
                                         encoding=None if "b" in mode else "utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write in {folder}: {exc.strerror or exc}") from exc
    try:
        with fh:
            yield fh
        os.replace(fh.name, path)
    except BaseException:
        Path(fh.name).unlink(missing_ok=True)
        raise


def write_jsonl(out: str, logs: Iterable[Exported]) -> None:
    if out == "-":
        for item in logs:
            sys.stdout.write(line(item.log))
        sys.stdout.flush()
        return
    path = Path(out)
    with replacing(path) as fh:
        stream: Any = gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) \
            if out.lower().endswith(".gz") else fh
        with io.TextIOWrapper(stream, encoding="utf-8") as text:
            for item in logs:
                text.write(line(item.log))


def write_zip(out: str, logs: Iterable[Exported]) -> None:
    index = []
    with replacing(Path(out)) as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zf:
        for item in logs:
            name = f"{item.id}.json"
            zf.writestr(name, line(item.log))
            index.append(json.dumps(item.index_line(name)) + "\n")
        zf.writestr("index.jsonl", "".join(index))


def write_folder(out: str, logs: Iterable[Exported]) -> None:
    """Into a folder, which may hold an earlier export: its index keeps the matches it
    listed, so exports continued with ``--after-id`` build one folder."""
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(f"cannot make {folder}: {exc.strerror or exc}") from exc
    index = earlier_index(folder / "index.jsonl")
    for item in logs:
        name = f"{item.id}.json"
        with replacing(folder / name, "w") as fh:
            fh.write(line(item.log))
        index[item.id] = item.index_line(name)
    with replacing(folder / "index.jsonl", "w") as fh:
        fh.write("".join(json.dumps(index[k]) + "\n" for k in sorted(index)))


def earlier_index(path: Path) -> dict[int, dict[str, Any]]:
    if not path.is_file():
        return {}
    try:
        lines = [json.loads(text) for text in path.read_text("utf-8").splitlines() if text]
        return {int(entry["id"]): entry for entry in lines}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise click.ClickException(f"{path} is not an index this command wrote: {exc}") from exc


WRITERS: dict[str, Callable[[str, Iterable[Exported]], None]] = {
    "folder": write_folder, "jsonl": write_jsonl, "zip": write_zip}

"""``referee ladder export``: the stored logs, public as the API serves them, to a folder, a
JSONL (plain or gzipped, or standard output) or a zip file; filtered; on both databases."""

from __future__ import annotations

import gzip
import json
import zipfile
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import select, update

from arena import Seat, make_player
from cli import main
from ladder.accounts import now_utc
from ladder.models import Bot, Match
from ladder.store import record_match
from ladder.work import claim, finish, schedule
from referee.games import find_game
from referee.match import play
from referee.players import Bot as InProcessBot, InProcessPlayer
from referee.replay import replay

from support.cli import assert_clean_error


class Noting(InProcessBot):
    """The first option, with a private note each time (its owner's only)."""

    timed = False

    def decide(self, decision, view):
        return decision.options[0].id, "secret plan"


def duo_log(seed: int, match_id: str) -> dict:
    players = [InProcessPlayer(name="noting", bot=Noting()),
               make_player(Seat("random"), "tokaido-duo", seed, 0)]
    return play(find_game("tokaido-duo"), players, seed, match_id=match_id).log


@pytest.fixture
def stocked(ladder_engine):
    """Four CLI matches (one a day, days 1-4 ago), then a service pair with one game over."""
    engine = ladder_engine
    ids = []
    for n in range(4):
        record_match(engine, duo_log(n, f"cli-{n}"), bots={0: "noting", 1: "rnd"})
        with engine.begin() as conn:
            pk = conn.execute(update(Match).where(Match.match_id == f"cli-{n}").values(
                finished_at=now_utc() - timedelta(days=4 - n)).returning(Match.id)).scalar_one()
        ids.append(pk)
    with engine.connect() as conn:
        named = dict(conn.execute(select(Bot.name, Bot.id)).all())
    bots = [named["noting"], named["rnd"]]
    pair = [schedule(engine, "tokaido-duo", [(bots, 99, "p1")], rated=False)[0],
            schedule(engine, "tokaido-duo", [(bots[::-1], 99, "p1")], rated=False)[0]]
    held = claim(engine, pair[0], "w", 60)
    finish(engine, held, duo_log(99, held.attempt_id))
    return engine, ids, pair


def run(*args):
    return CliRunner().invoke(main, ["ladder", "export", *args])


def test_a_folder_gets_each_public_log_and_an_index(stocked, db_url, tmp_path):
    engine, ids, pair = stocked
    out = run(str(tmp_path / "logs"), "--db", db_url)
    assert out.exit_code == 0, out.output
    assert "exported 4 match logs" in out.stderr and "1 withheld" in out.stderr
    files = sorted(p.name for p in (tmp_path / "logs").glob("*.json"))
    assert files == sorted(f"{i}.json" for i in ids)
    index = [json.loads(x) for x in (tmp_path / "logs" / "index.jsonl").read_text().splitlines()]
    assert [e["id"] for e in index] == ids and index[0]["bots"] == ["noting", "rnd"]
    for entry in index:
        log = json.loads((tmp_path / "logs" / entry["file"]).read_text())
        assert log["match_id"] == entry["match_id"] and replay(log).matches
        assert all("log" not in d for d in log["decisions"])  # the owners' notes stay
    assert "secret plan" not in "".join(p.read_text() for p in (tmp_path / "logs").iterdir())


def test_the_withheld_game_comes_out_once_its_pair_is_over(stocked, db_url, tmp_path):
    engine, ids, pair = stocked
    held = claim(engine, pair[1], "w", 60)
    finish(engine, held, duo_log(99, held.attempt_id))
    out = run(str(tmp_path / "all.jsonl"), "--db", db_url, "--after-id", str(ids[-1]))
    assert out.exit_code == 0, out.output
    logs = [json.loads(x) for x in (tmp_path / "all.jsonl").read_text().splitlines()]
    assert [log["match_id"] for log in logs] == [f"m{pair[0]}.1", f"m{pair[1]}.1"]
    assert "withheld until" not in out.stderr


def test_filters_by_game_dates_and_ids(stocked, db_url, tmp_path):
    engine, ids, pair = stocked

    def exported(*args):
        out = CliRunner().invoke(main, ["ladder", "export", "-", "--db", db_url, *args])
        assert out.exit_code == 0, out.output
        return [json.loads(x)["match_id"] for x in out.stdout.splitlines()]

    day = (now_utc() - timedelta(days=2, hours=12)).strftime("%Y-%m-%d %H:%M:%S")
    assert exported("--since", day) == ["cli-2", "cli-3"]
    assert exported("--until", day) == ["cli-0", "cli-1"]
    assert exported("--ids", f"{ids[1]},{ids[3]}-") == ["cli-1", "cli-3"]
    assert exported("--ids", f"{ids[0]}-{ids[1]}", "--limit", "1") == ["cli-0"]
    assert exported("--game", "doubletrack") == []
    assert exported("--game", "tokaido-duo", "--after-id", str(ids[2])) == ["cli-3"]


def test_a_zip_and_a_gzipped_jsonl(stocked, db_url, tmp_path):
    out = run(str(tmp_path / "x.zip"), "--db", db_url)
    assert out.exit_code == 0, out.output
    with zipfile.ZipFile(tmp_path / "x.zip") as zf:
        names = zf.namelist()
        assert len(names) == 5 and "index.jsonl" in names
        index = [json.loads(x) for x in zf.read("index.jsonl").decode().splitlines()]
        assert all(replay(json.loads(zf.read(e["file"]))).matches for e in index)
    out = run(str(tmp_path / "y.jsonl.gz"), "--db", db_url)
    assert out.exit_code == 0, out.output
    with gzip.open(tmp_path / "y.jsonl.gz", "rt") as fh:
        assert len(fh.read().splitlines()) == 4
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftovers


def test_exports_continued_into_one_folder_keep_one_index(stocked, db_url, tmp_path):
    engine, ids, pair = stocked
    folder = str(tmp_path / "logs")
    assert run(folder, "--db", db_url, "--limit", "2").exit_code == 0
    assert run(folder, "--db", db_url, "--after-id", str(ids[1])).exit_code == 0
    index = (tmp_path / "logs" / "index.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in index] == ids


@pytest.mark.parametrize("args, says", [
    (["--ids", "5-2"], "the range ends before it starts"),
    (["--ids", "a"], "is not an id or a range"),
    (["--since", "yesterday"], "'yesterday' does not match the formats"),
    (["--since", "2026-02-01", "--until", "2026-01-01"], "--until must come after --since"),
    (["--game", "chess"], "unknown game 'chess'"),
    (["--limit", "0"], "0 is not in the range"),
    (["--format", "zip"], "standard output (-) takes --format jsonl"),
])
def test_bad_arguments_are_one_line(stocked, db_url, args, says):
    assert_clean_error(run("-", "--db", db_url, *args), None, says)


def test_an_unwritable_target_is_one_line(stocked, db_url, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert_clean_error(run(str(a_file / "out.zip"), "--db", db_url), 1, "cannot write in")
    assert_clean_error(run(str(a_file / "dir"), "--db", db_url), 1, "cannot make")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "index.jsonl").write_text("not json\n")
    assert_clean_error(run(str(tmp_path / "old"), "--db", db_url), 1, "is not an index")

"""``referee ladder`` and ``referee db`` as a user types them, on both databases."""

from __future__ import annotations

import json

from click.testing import CliRunner

from cli import main
from ladder.db import head_revision
from ladder.store import record_match

from support.cli import assert_clean_error
from support.ladder_db import make_log


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def fill(engine) -> None:
    for n in range(6):
        record_match(engine, make_log(f"c{n}", ["strong", "weak"], [1, 2]))
    record_match(engine, make_log("c-draw", ["strong", "weak", "third"], [1, 1, 3]))


def test_show_json_has_the_contract_fields(ladder_engine, db_url):
    fill(ladder_engine)
    out = run("ladder", "show", "--game", "toy-race", "--db", db_url, "--json")
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert [r["bot"] for r in rows] == ["strong", "third", "weak"]  # third lost only once
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    assert [r["rank"] for r in rows] == [1, 2, 3]
    strong = rows[0]
    assert (strong["games"], strong["wins"], strong["draws"], strong["losses"]) == (7, 6, 1, 0)
    assert strong["rating"] > 1500 and strong["interval"] > 0
    assert strong["low"] < strong["rating"] < strong["high"] and strong["elo"] > 1500
    assert {"openskill", "last_played", "provisional"} <= set(strong)


def test_show_table(ladder_engine, db_url):
    fill(ladder_engine)
    out = run("ladder", "show", "--game", "toy-race", "--db", db_url)
    assert out.exit_code == 0, out.output
    assert "strong" in out.stdout and "±" in out.stdout and "openskill" in out.stdout


def test_show_known_game_without_results_and_unknown_game(ladder_engine, db_url):
    out = run("ladder", "show", "--game", "toy-race", "--db", db_url, "--json")
    assert out.exit_code == 0 and json.loads(out.stdout) == []
    out = run("ladder", "show", "--game", "chess", "--db", db_url)
    assert_clean_error(out, 2, "--game", "unknown game 'chess'")  # a bad option value


def test_bad_and_unreachable_databases_are_one_line_errors(tmp_path):
    for url in ["nonsense://", "postgresql+psycopg://postgres@127.0.0.1:1/x?connect_timeout=2",
                f"sqlite:///{tmp_path / 'missing' / 'dir' / 'x.db'}"]:
        out = run("ladder", "show", "--game", "toy-race", "--db", url)
        assert_clean_error(out, 1)
        assert len(out.output.strip().splitlines()) == 1, url


def test_reading_commands_refuse_a_missing_sqlite_file(tmp_path, monkeypatch):
    """A typo in --db must not create an empty ladder and report "no results"."""
    monkeypatch.chdir(tmp_path)
    for args in (["ladder", "show", "--game", "toy-race"], ["db", "current"]):
        for url in ["sqlite:///typo.db", f"sqlite:///{tmp_path / 'typo2.db'}"]:
            assert_clean_error(run(*args, "--db", url), 1, "no ladder database at")
    assert not list(tmp_path.iterdir())
    out = run("ladder", "recompute", "--db", "sqlite:///new.db")  # writing may create it
    assert out.exit_code == 0, out.output
    assert (tmp_path / "new.db").is_file()
    assert run("ladder", "show", "--game", "toy-race", "--db", "sqlite:///new.db").exit_code == 0


def test_recompute_with_new_k(ladder_engine, db_url):
    record_match(ladder_engine, make_log("k1", ["a", "b"], [1, 2]))
    out = run("ladder", "recompute", "--game", "toy-race", "--db", db_url, "--k", "10",
              "--k-provisional", "16")
    assert out.exit_code == 0, out.output
    assert "recomputed 1 matches" in out.output
    rows = json.loads(run("ladder", "show", "-g", "toy-race", "--db", db_url, "--json").stdout)
    assert [r["elo"] for r in rows] == [1508.0, 1492.0]
    out = run("ladder", "recompute", "--db", db_url, "--k", "10")
    assert out.exit_code == 2 and "need --game" in out.output


def test_db_upgrade_current_downgrade(pg_url):
    out = run("db", "current", "--db", pg_url)
    assert out.exit_code == 0 and out.output.startswith("none")
    out = run("ladder", "show", "--game", "toy-race", "--db", pg_url)
    assert out.exit_code == 1 and "referee db upgrade" in out.output
    out = run("db", "upgrade", "--db", pg_url)
    assert out.exit_code == 0, out.output
    assert run("db", "current", "--db", pg_url).output.startswith(head_revision())
    assert run("ladder", "show", "--game", "toy-race", "--db", pg_url).exit_code == 0
    out = CliRunner().invoke(main, ["db", "downgrade", "base", "--db", pg_url], input="n\n")
    assert out.exit_code == 1 and "drops every ladder table" in out.output
    assert "Aborted" in out.output and "postgres@" in out.output  # the database, named
    assert run("db", "current", "--db", pg_url).output.startswith(head_revision())  # untouched
    out = CliRunner().invoke(main, ["db", "downgrade", "base", "--db", pg_url], input="y\n")
    assert out.exit_code == 0 and "none (empty)" in out.output
    run("db", "upgrade", "--db", pg_url)
    out = run("db", "downgrade", "base", "--db", pg_url, "--yes")
    assert out.exit_code == 0 and "none (empty)" in out.output and "[y/N]" not in out.output


def test_help_texts_show_no_raw_markup():
    for command in (["db", "downgrade"], ["db", "upgrade"], ["sprt"], ["tournament"],
                    ["match"], ["bot", "serve"], ["replay"]):
        out = run(*command, "--help")
        assert out.exit_code == 0 and "``" not in out.output, (command, out.output)
    assert "Games played at once" in run("sprt", "--help").output


def test_db_upgrade_takes_revision_as_downgrade_does_and_keeps_the_old_option(tmp_path):
    for n, args in enumerate([["head"], ["--revision", "head"], ["head", "--revision", "head"],
                              []]):
        url = f"sqlite:///{tmp_path / f'{n}.db'}"
        out = run("db", "upgrade", *args, "--db", url)
        assert out.exit_code == 0, (args, out.output)
        assert run("db", "current", "--db", url).output.startswith(head_revision())
    out = run("db", "upgrade", "head", "--revision", "base", "--db", f"sqlite:///{tmp_path}/x.db")
    assert_clean_error(out, 2, "two revisions given")
    help_text = run("db", "upgrade", "--help").output
    assert "[REVISION]" in help_text and "--revision" not in help_text


def test_ladder_game_options_show_the_games_and_suggest_a_near_miss(ladder_engine, db_url):
    for command in (["show"], ["recompute"], ["tick"], ["export"]):
        out = run("ladder", *command, "--help")
        assert "--game [" in out.output and "toy-race" in out.output, (command, out.output)
    out = run("ladder", "show", "--game", "toy-rase", "--db", db_url)
    assert_clean_error(out, 2, "unknown game 'toy-rase' (did you mean 'toy-race'?)")

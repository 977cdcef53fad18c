"""A statement the database refuses is the referee's bug, never an outage: the API answers a
generic 500 (not the 503 of a database that cannot be reached) and the log has the traceback;
a worker books the attempt as the referee's failure at once, without waiting for storage to
come back.  (A database really taken away is still a 503: ``test_api_limits``.)"""

from __future__ import annotations

import logging

from sqlalchemy import text

from api.errors import STORAGE_DOWN
from ladder import leaderboard as board, work

from service.conftest import Client, fast_bot


def test_a_statement_the_database_refuses_is_a_500_with_its_traceback_logged(
        make_service, db_url, monkeypatch, caplog):
    app = make_service(db_url)

    def misspelt(conn, game):
        return conn.execute(text("SELECT no_such_column FROM ladders")).scalar()

    monkeypatch.setattr(board, "ladder_config", misspelt)
    caplog.set_level(logging.ERROR)
    answer = Client(app).get("/api/v1/leaderboards/toy-race")
    assert answer.status_code == 500, answer.json
    assert answer.json["message"] == "internal error" != STORAGE_DOWN
    assert "no_such_column" not in answer.get_data(as_text=True)
    traced = [r for r in caplog.records
              if r.exc_info and "no_such_column" in str(r.exc_info[1])]
    assert {r.name for r in traced} == {"referee.ladder", "referee.api"}
    assert not [r for r in caplog.records if r.getMessage().startswith("storage:")]


def test_a_statement_that_fails_in_finishing_is_the_referees_failure_at_once(
        make_service, monkeypatch):
    import api.runner as runner

    app = make_service()
    engine, policy = app.extensions["referee"].engine, app.extensions["referee"].policy
    real_finish, finishing = runner.finish, []

    def counted(*args):
        finishing.append(1)
        return real_finish(*args)

    monkeypatch.setattr(runner, "finish", counted)
    monkeypatch.setattr(runner, "FINISH_TRIES", (0.0, 0.0, 0.0))  # a regression stays fast
    monkeypatch.setattr(work, "summary", lambda log: {"result": object()})  # binds no JSON
    [pk] = work.schedule(engine, "toy-race",
                         [([fast_bot(engine), fast_bot(engine, "random-c")], 8, None)],
                         rated=True)
    assert runner.run_match(engine, pk, policy, lease_s=30) == "retry"
    assert finishing == [1]  # a bug is not tried again as if storage were away
    [incident], _ = work.incidents(engine)
    assert incident["error"].startswith("StatementError") and incident["outcome"] == "retried"

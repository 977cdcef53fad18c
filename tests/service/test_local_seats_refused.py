"""The service never runs anyone's code on its machines: ``cmd:`` and ``py:`` seats, the
command line's dev loop, are refused at registration and by the workers."""

from __future__ import annotations

import pytest

from api.broker_pool import play_description
from arena import MatchDescription, Seat, seated
from arena.description import DescriptionError
from referee.netpolicy import UrlPolicy

LOCAL = ["cmd:python3 bot.py --port {port}", "py:bots/starter/bot.py", "py:bot.py:decide"]


@pytest.mark.parametrize("spec", LOCAL)
def test_registration_refuses_a_bot_that_would_run_here(anon, spec):
    answer = anon.owner("alice").post("/api/v1/bots",
                                      json={"name": "mine", "url": spec, "games": ["toy-race"]})
    assert answer.status_code == 422, answer.json
    assert "http" in str(answer.json), answer.json


@pytest.mark.parametrize("spec", LOCAL)
def test_a_worker_refuses_such_a_seat_in_a_description(spec):
    description = MatchDescription("toy-race", (Seat(spec, "mine"), Seat("random")), seed=1)
    answer = play_description(description.to_dict(), False, UrlPolicy())
    assert "only the command line plays them" in answer["error"], answer


def test_seats_behind_a_guard_refuse_them_before_starting_anything(tmp_path):
    marker = tmp_path / "ran"
    spec = f"cmd:touch {marker}"
    with pytest.raises(DescriptionError, match="only the command line"):
        with seated((Seat(spec), Seat("random")), "toy-race", 1, guard=object()):  # type: ignore[arg-type]
            pass
    assert not marker.exists()


@pytest.mark.parametrize("spec", LOCAL)
def test_a_tournament_on_the_broker_refuses_them_before_sending(spec):
    import click

    from cli.tournament import check_sendable
    from tournaments.plan import Entrant

    with pytest.raises(click.ClickException, match="the workers run no cmd: or py: bot"):
        check_sendable([Entrant("random", "random"), Entrant("mine", spec)])


def test_the_services_bot_check_refuses_them_before_starting_anything(tmp_path):
    from arena import check_bot

    marker = tmp_path / "ran"
    for spec in (f"cmd:touch {marker}", f"py:{tmp_path}/bot.py"):
        with pytest.raises(DescriptionError, match="only the command line"):
            check_bot(spec, "toy-race", guard=object())  # type: ignore[arg-type]
    assert not marker.exists()

"""Spectator frames: one per step, deterministic, JSON-ready, made of public information only."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bots.random_bot import RandomBot
from referee.core import Decision
from referee.faults import Fault, FaultReason
from referee.frames import FRAMES_FORMAT, build_frames, frame_count, iter_frames
from referee.frames.doubletrack import _WORDS as DT_WORDS
from referee.frames.kits import SpectatorKit, kit_for
from referee.frames.tokaido_duo import _WORDS as TD_WORDS
from referee.games import find_game
from referee.games.tokaido_duo.views import EVENT_FIELDS
from referee.match import Runner, play
from referee.matchlog import LogError
from referee.players import Bot, InProcessPlayer

from frames_support import random_cases, random_frames, random_log, states_along

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
GAMES = 150
"""Random games (both games, every lineup: 30 of them two-seat Tokaido Duo games of ~300
steps) run through the frames. The first test makes them (about 5 s of CPU), the others read
the same cached logs and frames."""
FRAME_KEYS = {"ply", "step", "turn", "turn_now", "decisions", "events", "texts", "view", "strikes",
              "faults", "over"}
DECISION_KEYS = {"seat", "who", "kind", "prompt", "options", "choice", "label", "data", "ms",
                 "status", "strikes", "fault"}


def steps_of(log: Mapping[str, Any]) -> dict[int, list[Mapping[str, Any]]]:
    steps: dict[int, list[Mapping[str, Any]]] = {}
    for d in log["decisions"]:
        steps.setdefault(d["step"], []).append(d)
    return steps


def test_random_games_give_one_frame_per_step_the_same_every_time():
    simultaneous = 0
    for k, (log, doc) in enumerate(random_cases(GAMES)):
        frames = doc["frames"]
        assert doc["format"] == FRAMES_FORMAT and len(frames) == frame_count(log)
        assert len(frames) == len(steps_of(log)) + 1
        assert [f["ply"] for f in frames] == list(range(len(frames)))
        assert frames[-1]["over"] and not any(f["over"] for f in frames[:-1])
        for frame, (step, logged) in zip(frames[1:], sorted(steps_of(log).items())):
            assert frame["step"] == step
            assert [(d["seat"], d["kind"], d["status"], d["ms"]) for d in frame["decisions"]] \
                == [(d["seat"], d["kind"], d["status"], d["ms"]) for d in logged]
            simultaneous += len(logged) > 1
        if k % 10 == 0:  # JSON as it is; a second replay from a copy gives the same frames
            assert json.loads(json.dumps(doc)) == doc
            assert build_frames(copy.deepcopy(dict(log))) == doc
    assert simultaneous > 0


def test_a_frame_holds_the_spectator_view_and_public_decisions_only():
    for log, doc in random_cases(40):
        kit = kit_for(log["game"])
        for frame, state in zip(doc["frames"], states_along(log), strict=True):
            assert set(frame) == FRAME_KEYS
            spectator = state.view(None)
            spectator.pop("events")
            assert frame["view"] == spectator
            for d in frame["decisions"]:
                assert set(d) <= DECISION_KEYS
                if d["kind"] in kit.secret_answers:
                    assert (d["choice"], d["data"]) == (None, None)
                    assert d["label"] == kit.secret_answers[d["kind"]]
                if d["kind"] in kit.secret_options:
                    assert d["options"] is None


def test_frame_events_are_exactly_what_a_spectator_is_shown():
    """Doubletrack's spectator view lists every event since the start, Tokaido Duo's those of
    the round: the frames' events, put end to end, are that stream."""
    for log, doc in random_cases(40):
        told: list[Mapping[str, Any]] = []
        for frame, state in zip(doc["frames"], states_along(log), strict=True):
            told += frame["events"]
            window = state.view(None)["events"]
            assert told[len(told) - len(window):] == window
            assert len(frame["texts"]) == len(frame["events"])
        if log["game"] == "doubletrack":
            assert told == state.view(None)["events"]


def test_what_a_frame_says_of_a_question_is_public():
    """Rebuild the game from the spectator's view alone (hidden cards dealt at random): every
    question a frame describes has the same seat, kind and prompt, and the same options unless
    the kit declares them secret (they are a hand's distinct cards)."""
    checked = secret = 0
    for log, _ in random_cases(25):
        game = find_game(log["game"])
        kit = kit_for(log["game"])
        board = game.board_from_data(log["board"])
        for k, state in enumerate(states_along(log)):
            if not state.pending() or k % 3:
                continue
            guess = game.determinize(state.view(None), 12345 + k, board).pending()
            for real, other in zip(state.pending(), guess, strict=True):
                assert (real.seat, real.kind, real.prompt) == (other.seat, other.kind, other.prompt)
                if real.kind in kit.secret_options:
                    secret += 1
                else:
                    assert real.option_ids() == other.option_ids(), real.kind
                    checked += 1
    assert checked > 100 and secret > 0


def test_the_card_put_face_down_does_not_change_the_frame():
    """Whichever card the seller puts face down, the frame of that step is the same (unless
    nobody could bid and the card was played in the same step)."""
    compared = 0
    for k in range(12):
        log = random_log("doubletrack", 4, (), 4000 + k)
        frames = random_frames("doubletrack", 4, (), 4000 + k)["frames"]
        for ply, state in enumerate(states_along(log)):
            pending = state.pending()
            if len(pending) != 1 or pending[0].kind != "sell_card_choice":
                continue
            frame = frames[ply + 1]
            if any(e["type"] == "card" for e in frame["events"]):
                continue
            step = frame["step"]
            for option in pending[0].options:
                other = dict(log)
                other["decisions"] = [d for d in log["decisions"] if d["step"] < step] + [
                    {**log["decisions"][_index(log, step)], "choice": option.id}]
                assert list(iter_frames(other))[-1] == frame
                compared += 1
            break
    assert compared >= 6


def _index(log: Mapping[str, Any], step: int) -> int:
    return next(i for i, d in enumerate(log["decisions"]) if d["step"] == step)


class Chatty(RandomBot):
    """A random bot that writes a note for its author with every answer."""

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> tuple[str, str]:
        return super().decide(decision, view), "NOTE-FOR-MY-AUTHOR-ONLY"


def test_a_bots_own_log_text_never_reaches_a_frame():
    players = [InProcessPlayer(name="chatty", bot=Chatty("tokaido-duo", 1)),
               InProcessPlayer(name="other", bot=RandomBot("tokaido-duo", 2))]
    log = play(find_game("tokaido-duo"), players, 918273645546).log
    doc = json.dumps(build_frames(log))
    assert "NOTE-FOR-MY-AUTHOR-ONLY" in json.dumps(log) and "NOTE-FOR-MY-AUTHOR-ONLY" not in doc
    assert "918273645546" not in doc


class Crashing(Bot):
    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        raise RuntimeError("boom")


class StartFails(RandomBot):
    def start(self, info: Any) -> None:
        raise RuntimeError("not ready")


class EndFails(InProcessPlayer):
    def end(self, match_id: str, result: Mapping[str, Any]) -> Fault | None:
        return Fault(FaultReason.CONNECTION_ERROR, "refused")


def test_strikes_faults_and_forfeits_are_shown_where_they_happened():
    game = find_game("doubletrack")
    players = [InProcessPlayer(name="crash", bot=Crashing()),
               InProcessPlayer(name="late", bot=StartFails("doubletrack", 2)),
               EndFails(name="rude", bot=RandomBot("doubletrack", 3))]
    log = Runner(game, players, seed=8, strikes=3).run().log
    doc = build_frames(log)
    first, last = doc["frames"][0], doc["frames"][-1]
    assert [f["reason"] for f in first["faults"]] == ["bot_error"] and first["strikes"][1] == 1
    assert [(f["seat"], f["reason"]) for f in last["faults"]] == [(2, "connection_error")]
    crashes = [d for f in doc["frames"] for d in f["decisions"] if d["seat"] == 0]
    struck = [d for d in crashes if d["status"] == "bot_error"]
    assert [d["strikes"] for d in struck] == [1, 2, 3]
    assert all("boom" in d["fault"]["detail"] for d in struck)
    assert all(d["status"] == "forfeited" for d in crashes[3:]) and len(crashes) > 3
    assert doc["frames"][-1]["strikes"][0] == 3


def test_sealed_bids_are_one_frame_naming_every_bid():
    frames = [f for f in random_frames("doubletrack", 4, (), 77)["frames"] if f["decisions"]
              and f["decisions"][0]["kind"] == "bid"]
    assert frames
    for frame in frames:
        bids = next(e for e in frame["events"] if e["type"] == "bids")
        asked = [d["seat"] for d in frame["decisions"]]
        assert asked == [s for s, b in enumerate(bids["bids"]) if b is not None and
                         any(d["seat"] == s for d in frame["decisions"])]
        assert [d["label"] for d in frame["decisions"]] == [f"bid ${bids['bids'][s]}" for s in asked]
        text = frame["texts"][frame["events"].index(bids)]
        assert all(f"{frame['decisions'][i]['who']} ${bids['bids'][s]}" in text
                   for i, s in enumerate(asked))


def test_every_event_type_of_both_games_has_words():
    documented = set(re.findall(r"`(\w+) \{", (DOCS / "doubletrack.md").read_text("utf-8")))
    assert {"bids", "roll", "turn_limit"} <= documented
    assert documented | {"pass_left"} <= set(DT_WORDS)
    assert set(EVENT_FIELDS) <= set(TD_WORDS)
    for log, doc in random_cases(GAMES):
        words = TD_WORDS if log["game"] == "tokaido-duo" else DT_WORDS
        for frame in doc["frames"]:
            assert {e["type"] for e in frame["events"]} <= set(words)


def test_events_no_kit_knows_still_render():
    seats = [{"seat": 0, "label": "red"}, {"seat": 1, "label": "yellow"}]
    dt = kit_for("doubletrack")
    assert dt.event_text({"type": "comet", "seat": 1, "path": [3, 4]}, seats, {}) \
        == "comet: seat 1, path [3, 4]"
    assert dt.event_text({"type": "roll", "seat": 0}, seats, {}) == "roll: seat 0"  # changed shape
    assert dt.event_text({"type": "pass_left", "seat": 0, "gate": "blue", "holder": 1}, seats, {}) \
        == "red leaves the blue gate pass with yellow"
    assert kit_for("chess").event_text({"type": "mate"}, seats, {}) == "mate"
    assert type(kit_for("chess")) is SpectatorKit


def test_tokaido_solo_names_the_automa_and_its_numbers():
    doc = random_frames("tokaido-duo", 1, (("automa", 6),), 3)
    seats = doc["match"]["seats"]
    assert [(s["label"], s["colour"], s["engine"]) for s in seats] == [
        ("seat 0", "green", False), ("the Automa", "purple", True)]
    automa = doc["board"]["automa"]
    assert automa["level"] == 6 and automa["numbers"] == "placeholder"
    assert len(automa["ranks"]) == doc["frames"][0]["view"]["automa"]["tracks"]["pilgrim"]["length"]
    ranks = [e for f in doc["frames"] for e in f["events"] if e["type"] == "automa_rank"]
    assert all(e["rank"] in automa["ranks"] + [automa["final"]] for e in ranks)


def test_tokaido_zones_are_closed_by_the_routes_between_their_coastal_towns():
    facts = random_frames("tokaido-duo", 2, (), 1)["board"]
    zones = {z["name"]: z for z in facts["zones"]}
    assert zones["Z8"]["arc"] == [33, 34, 35, 36, 0] and zones["Z8"]["border"] == ["C1", "M1", "C8"]
    towns = {t["ring"]: t["name"] for t in facts["towns"] if t["coastal"]}
    for z in facts["zones"]:
        assert z["border"][0] == towns[z["arc"][-1]] and z["border"][-1] == towns[z["arc"][0]]
        assert set(z["border"][1:-1]) == set(z["towns"])


def test_a_replaced_board_is_described_as_itself():
    game = find_game("doubletrack")
    data = copy.deepcopy(game.load_board().data)
    data["outer"]["quadrant"].append({"number": 6})
    data["inner"] = {"home": 50, "purple_shortcuts": {5: 12, 30: 41}}
    board = game.board_from_data(data)
    players = [InProcessPlayer(name=f"r{i}", bot=RandomBot("doubletrack", i)) for i in range(3)]
    doc = build_frames(play(game, players, 9, board=board).log)
    facts = doc["board"]
    assert (facts["main_len"], facts["quadrant_len"], facts["home"]) == (60, 15, 50)
    assert len(facts["squares"]) == 60 + 4 * 2
    assert facts["purple_shortcuts"] == {"5": 12, "30": 41}
    assert facts["squares"][15]["kind"] == "TAKE_PASS" and facts["squares"][15]["gate"] == "yellow"


def test_a_game_without_a_kit_still_gets_frames(toy_game):
    players = [InProcessPlayer(name=f"r{i}", bot=RandomBot("toy-race", i)) for i in range(3)]
    log = Runner(toy_game, players, seed=4).run().log
    doc = build_frames(log)
    assert len(doc["frames"]) == frame_count(log)
    assert doc["frames"][-1]["view"]["positions"] == [s["score"] for s in log["result"]["seats"]]
    assert doc["match"]["seats"][2]["label"] == "seat 2" and doc["board"] == {"data": {"goal": 10}}


@pytest.mark.parametrize("spoil, message", [
    (lambda log: [1, 2], "not a match log"),
    (lambda log: {**log, "game": "chess"}, "unknown game"),
    (lambda log: {**log, "decisions": log["decisions"][:-3]}, "do not finish"),
    (lambda log: {**log, "result": {**log["result"], "winners": [9]}}, "does not replay"),
])
def test_a_log_that_proves_nothing_is_refused(spoil, message):
    log = random_log("tokaido-duo", 2, (), 11)
    with pytest.raises(LogError, match=message):
        build_frames(spoil(dict(log)))


def test_iter_frames_refuses_a_choice_the_game_did_not_offer():
    log = dict(random_log("doubletrack", 3, (), 12))
    log["decisions"] = [dict(d) for d in log["decisions"]]
    log["decisions"][3]["choice"] = "jump"
    with pytest.raises(LogError, match="step"):
        list(iter_frames(log))


def test_turn_now_is_the_views_turn_and_turn_the_one_its_decision_was_taken_in():
    seen_jump = False
    for log, doc in random_cases(GAMES):
        key = "round" if doc["match"]["game"] == "tokaido-duo" else "turn"
        frames = doc["frames"]
        for before, frame in zip(frames, frames[1:]):
            assert frame["turn_now"] == frame["view"][key]
            assert frame["turn"] == before["turn_now"]
            seen_jump |= frame["turn_now"] - frame["turn"] >= 2
        assert frames[0]["turn"] == frames[0]["turn_now"]
    assert seen_jump  # Doubletrack's turns that ask nothing pass within a step


def test_each_seats_events_since_it_decided_are_those_its_view_shows():
    """``State.events_since`` is how a frame gets its step's events without a second view:
    for every seat, at every step of games of both engines, what the seat's view shows."""
    checked = 0
    for log, _ in random_cases(12):
        for state in states_along(log):
            for seat in range(len(log["players"])):
                assert state.events_since(seat) == state.view(seat).get("events", [])
                checked += 1
    assert checked > 1000

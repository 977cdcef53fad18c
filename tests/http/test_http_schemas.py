"""Every message the referee sends validates against docs/schemas, the files are current,
and the fast answer parser agrees with the ``answer`` schema."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import example, given, strategies as st

from bots.random_bot import RandomBot
from referee import protocol
from referee.core import Decision, Option
from referee.faults import FaultReason
from referee.match import Runner
from referee.matchlog import MAX_LOG_CHARS
from referee.players import DecisionRequest, InProcessPlayer, MatchInfo

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "docs" / "schemas"


@cache
def validator(name: str) -> Any:
    """A validator for the published file ``name``.json, resolving references among the
    published files (``decide`` refers to each game's view schema)."""
    known = [json.loads(path.read_text()) for path in sorted(SCHEMA_DIR.glob("*.json"))]
    return protocol.schema_validator(json.loads((SCHEMA_DIR / f"{name}.json").read_text()), known)


def validate(name: str, doc: object) -> None:
    validator(name).validate(doc)


@pytest.mark.parametrize("name", sorted(protocol.SCHEMAS))
def test_schema_files_are_current_and_valid(name):
    text = (SCHEMA_DIR / f"{name}.json").read_text()
    assert text == protocol.schema_text(name), "run: python -m referee.protocol docs/schemas"
    jsonschema.Draft202012Validator.check_schema(json.loads(text))


DECISION = Decision(1, "bid", "sealed bid", (Option("bid-0", "bid 0", {"bid": 0}),
                                             Option("bid-1", "bid 1", {"bid": 1})))


def test_messages_built_by_the_referee_validate(toy_game):
    info = MatchInfo("m1", "toy-race", 1, ((0, "a"), (1, "b")), {"decision_ms": 1000, "bank_ms": 0},
                     {"goal": 10})
    validate("start", protocol.start_message(info))
    request = DecisionRequest("m1", "toy-race", 1, "m1:0:1", DECISION, lambda: {"x": 1}, 1500, 500)
    validate("decide", protocol.decide_message(request))
    players = [InProcessPlayer(name=f"r{i}", bot=RandomBot("toy-race", i)) for i in range(2)]
    record = Runner(toy_game, players, seed=1).run()
    validate("end", protocol.end_message("m1", "toy-race", 0, record.result.to_dict()))
    validate("match-log", record.log)
    validate("answer", {"choice": "bid-0", "log": "because"})


def test_every_published_schema_is_written_and_the_views_are_referenced():
    assert {p.stem for p in SCHEMA_DIR.glob("*.json")} == set(protocol.SCHEMAS)
    assert {"view-tokaido-duo", "view-doubletrack"} <= set(protocol.SCHEMAS)
    decide = (SCHEMA_DIR / "decide.json").read_text()
    assert '"$ref": "view-tokaido-duo.json"' in decide and '"$ref": "view-doubletrack.json"' in decide


@pytest.mark.parametrize("game, seats, options", [
    ("tokaido-duo", 2, {}), ("tokaido-duo", 1, {"automa": 3}), ("doubletrack", 3, {}),
    ("doubletrack", 4, {}),
])
def test_real_views_of_random_games_validate_against_the_published_view_schema(
        game, seats, options):
    """Every seat's view, sampled through two random games, the ``/decide`` bodies that carry
    them (which refer to the view schema by game), and the spectator's view at the end (it
    holds every event of the game)."""
    from referee.games import find_game

    g, checked = find_game(game), 0
    for seed in (1, 2):
        state, rng, step = g.new_state(seats, seed, options=options), random.Random(seed), 0
        while state.pending():
            pending = state.pending()
            if step % 11 == 0:
                for seat in range(seats):
                    validate(f"view-{game}", state.view(seat))
                    assert protocol.encode(state.view(seat)) == standard_json(state.view(seat))
                d = pending[0]
                request = DecisionRequest("m", game, d.seat, "m:0", d,
                                          lambda: state.view(d.seat), 1000, 0)
                validate("decide", protocol.decide_message(request))
                checked += 1
            state.apply({d.seat: rng.choice(d.options).id for d in pending})
            step += 1
        validate(f"view-{game}", state.view(None))
    assert checked >= 5


def test_a_view_off_its_schema_is_refused_naming_the_field():
    from referee.games import find_game

    state = find_game("doubletrack").new_state(3, 1)
    view = state.view(0)
    view["seats"][1]["money"] = "lots"
    errors = protocol.schema_errors("view-doubletrack", view)
    assert any(e.startswith("seats[1].money:") for e in errors), errors
    message = {"protocol": 1, "match_id": "m", "game": "doubletrack", "seat": 0,
               "request_id": "r", "deadline_ms": 1000, "decision": {
                   "kind": "k", "prompt": "p", "options": [
                       {"id": "a", "label": "a", "data": {}}, {"id": "b", "label": "b", "data": {}}]},
               "view": view}
    assert any("money" in e for e in protocol.schema_errors("decide", message))


def test_info_errors_name_the_field():
    errors = protocol.info_errors({"name": "", "games": ["x", 3], "protocol": 2})
    text = "\n".join(errors)
    assert "games[1]" in text and "name" in text and "protocol" in text
    assert protocol.info_errors({"name": "b", "games": ["toy-race"], "protocol": 1}) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
answers = st.one_of(
    json_values,
    st.fixed_dictionaries({"choice": json_values}, optional={"log": json_values}),
    st.fixed_dictionaries({"choice": st.sampled_from(["bid-0", "bid-1"])},
                          optional={"log": st.text(max_size=5)}),
)


@given(answers)
@example({"choice": "", "log": None})  # struck as unknown_option: no note about the log then
def test_parser_accepts_exactly_what_the_schema_accepts(doc):
    parsed = protocol.parse_answer(json.dumps(doc).encode(), DECISION.option_ids())
    schema_ok = not protocol.schema_errors("answer", doc)
    parser_ok = parsed.fault is None or parsed.fault.reason == FaultReason.UNKNOWN_OPTION
    # a non-string log is a note (dropped), not a strike: the parser is more lenient there only
    if isinstance(doc, dict) and "log" in doc and not isinstance(doc["log"], str):
        schema_ok = not protocol.schema_errors("answer", {k: v for k, v in doc.items() if k != "log"})
        assert parser_ok == schema_ok and (parsed.fault is not None or parsed.notes)
    else:
        assert parser_ok == schema_ok
    if parsed.fault is None:
        assert parsed.choice in DECISION.option_ids()


def test_parser_faults():
    ids = DECISION.option_ids()
    assert protocol.parse_answer(b"<html>", ids).fault.reason == "bad_json"
    assert protocol.parse_answer(b"[1]", ids).fault.reason == "bad_json"
    assert protocol.parse_answer(b'{"choice": 3}', ids).fault.reason == "bad_json"
    assert protocol.parse_answer(b'{"choice": "x"}', ids).fault.reason == "unknown_option"
    long = protocol.parse_answer(json.dumps({"choice": "bid-1", "log": "y" * 9000}).encode(), ids)
    assert long.fault is None and len(long.log) == MAX_LOG_CHARS


def test_every_example_in_the_protocol_doc_validates():
    import re

    text = (SCHEMA_DIR.parent / "protocol.md").read_text()
    blocks = re.findall(r"<!-- schema: ([\w-]+) -->\n```json\n(.*?)\n```", text, re.S)
    assert {name for name, _ in blocks} == {"info", "start", "decide", "answer", "end"}
    shortened = {"...": "the game's board data, as in the packaged board file"}
    for name, body in blocks:
        doc = json.loads(body)
        if name == "start" and doc["board"] == shortened:  # the doc leaves the board out
            from referee.games import find_game

            doc["board"] = json.loads(json.dumps(find_game(doc["game"]).load_board().data))
        validate(name, doc)


def test_fast_decide_body_equals_the_message():
    """``decide_body`` (cached option JSON) sends exactly ``decide_message``."""
    view = {"events": [{"type": "x", "s": "é\\u2028"}], "n": 1.5}
    cases = [("m", 1, 1000, 0), ("m", 1, 1500, 20), ("m", 0, 1000, 0), ("mé\"x", 1, 7, 3)]
    for match_id, seat, deadline, bank in cases:  # the cached head is per match and seat
        request = DecisionRequest(match_id, "toy-race", seat, f"{match_id}:0:{seat}", DECISION,
                                  lambda: view, deadline, bank)
        body = protocol.decide_body(request)
        assert json.loads(body) == protocol.decide_message(request)
        assert body == protocol.encode(protocol.decide_message(request))
    assert protocol.options_json(DECISION.options) is protocol.options_json(DECISION.options)


def standard_json(doc: object) -> bytes:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


JSON_TEXT = st.text(st.characters(blacklist_categories=("Cs",)))
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | JSON_TEXT,
    lambda inner: st.lists(inner) | st.dictionaries(JSON_TEXT | st.integers(), inner),
    max_leaves=25)


@given(JSON_VALUES)
@example({"big": 2**70, 3: [1e16, -0.0, "\u2028é"]})
def test_the_wire_encoder_writes_what_the_standard_encoder_means(doc):
    """orjson, or the standard encoder for what orjson refuses (integers beyond 64 bits):
    the same document either way, integer keys written as strings."""
    assert json.loads(protocol.encode(doc)) == json.loads(standard_json(doc))


def test_the_strike_table_of_the_protocol_doc_names_every_reason_a_bot_can_be_struck_for():
    import re

    from referee.faults import REMOTE_REASONS

    text = (SCHEMA_DIR.parent / "protocol.md").read_text()
    table = text.split("## Strikes", 1)[1].split("\n\n")[2]
    assert re.findall(r"^\| `(\w+)` \|", table, re.M) == [r.value for r in REMOTE_REASONS]


def test_the_log_schema_takes_its_enumerations_from_the_python_enums():
    from referee.core import EndReason
    from referee.matchlog import LOG_FORMAT, STATUSES

    schema = json.loads((SCHEMA_DIR / "match-log.json").read_text())
    props = schema["properties"]
    assert props["format"] == {"const": LOG_FORMAT}
    assert props["decisions"]["items"]["properties"]["status"]["enum"] == list(STATUSES)
    assert props["faults"]["items"]["properties"]["reason"]["enum"] == [r.value for r in FaultReason]
    assert props["result"]["properties"]["end"]["enum"] == [e.value for e in EndReason]
    assert props["decisions"]["items"]["properties"]["log"]["maxLength"] == MAX_LOG_CHARS


def test_a_bad_answer_keeps_the_start_of_its_body_escaped():
    from referee.faults import BODY_EXCERPT_CHARS

    ids = DECISION.option_ids()
    page = b"<html>\x1b[31m" + b"x" * 2000
    fault = protocol.parse_answer(page, ids).fault
    assert fault is not None and fault.body is not None
    assert fault.body.startswith("<html>\\x1b[31m") and "\x1b" not in fault.body
    assert len(fault.body) <= BODY_EXCERPT_CHARS + 3  # the one escape is longer than its byte
    assert protocol.parse_answer(b'{"choice": "zz"}', ids).fault.body == '{"choice": "zz"}'
    assert protocol.parse_answer(b'{"choice": "bid-1"}', ids).fault is None

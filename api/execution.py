"""The one place the service turns a match into a played match, and a URL into a probe.

Everything else in the service goes through :func:`play`, :func:`probe` and :func:`check`;
nothing else constructs players or runners, so that replacing them with the execution
layer's ``play_match(description)`` is a change to this module alone.  HTTP seats connect
through the service's URL policy (``referee.netpolicy``); built-in seats play in-process.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ladder.work import Claim
from referee.netpolicy import UrlPolicy

PROBE_MS = 5000
"""Budget of the registration probe (``GET /``), whose body is capped at 64 KiB."""
EXCERPT = 500
CHECK_DECISIONS = 3


def play(claim: Claim, policy: UrlPolicy) -> dict[str, Any]:
    """Play one attempt of a claimed match and return its log (the match-log contract).

    Bots are told the attempt's id (``m12.2``), never the public id alone.
    """
    from referee.games import find_game
    from referee.lineup import make_player
    from referee.match import Runner, TimeControl
    from referee.players import Player
    from referee.transport import HttpPlayer

    game = find_game(claim.game)
    settings = claim.settings
    players: list[Player] = []
    try:
        for plan in claim.seats:
            if plan.url:
                players.append(HttpPlayer(name=plan.name, url=plan.url, guard=policy.pin))
            else:
                players.append(make_player(plan.spec, game.name, claim.seed, plan.seat,
                                           name=plan.name))
        record = Runner(
            game, players, claim.seed, options=settings.get("options") or {},
            time_control=TimeControl(int(settings.get("time_ms", 1000)),
                                     int(settings.get("bank_ms", 0))),
            strikes=int(settings.get("strikes", 3)), match_id=claim.attempt_id,
        ).run()
    finally:
        for p in players:
            p.close()
    return record.log


@dataclass
class Probe:
    """What ``GET /`` of a bot gave: the document or a fault, and how long it took."""

    info: Any
    fault: str | None
    ms: float


def probe(url: str, policy: UrlPolicy, budget_ms: float = PROBE_MS) -> Probe:
    """``GET /`` of a bot through the URL policy (which :func:`policy.check` ran first)."""
    from referee.transport import fetch_info

    began = time.perf_counter()
    info, fault = fetch_info(url, budget_ms, guard=policy.pin)
    return Probe(info, fault, (time.perf_counter() - began) * 1000)


@dataclass
class CheckReport:
    """The conformance check: per call status and latency, what was wrong, a verdict."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def add(self, call: str, status: str, ms: float, detail: str = "") -> None:
        self.calls.append({"call": call, "status": status, "ms": round(ms, 3),
                           "detail": detail[:EXCERPT]})
        if status != "ok":
            self.problems.append(f"{call}: {status}{': ' + detail[:EXCERPT] if detail else ''}")

    def to_dict(self) -> dict[str, Any]:
        decide = [c["ms"] for c in self.calls if c["call"].startswith("POST /decide")
                  and c["status"] == "ok"]
        return {"ok": not self.problems, "calls": self.calls, "problems": self.problems,
                "latency_ms": {"p50": _pct(decide, 50), "p95": _pct(decide, 95),
                               "n": len(decide)}}


def check(url: str, game_name: str, policy: UrlPolicy, nonce: str | None = None,
          time_ms: int = 1000) -> CheckReport:
    """``GET /`` (and its ownership nonce, if one is given), ``/start``, then the bot's first
    :data:`CHECK_DECISIONS` decisions of a real game (the other seats play randomly)."""
    from referee.games import find_game
    from referee.players import MatchInfo
    from referee.protocol import info_errors
    from referee.transport import HttpPlayer

    report = CheckReport()
    found = probe(url, policy)
    if found.fault:
        report.add("GET /", found.fault.split(":", 1)[0], found.ms, found.fault)
        return report
    errors = info_errors(found.info)
    if nonce is not None and isinstance(found.info, dict) and found.info.get("verify") != nonce:
        errors.append(f"verify: expected the ownership nonce {nonce!r}")
    report.add("GET /", "ok" if not errors else "bad_info", found.ms, "; ".join(errors))
    game = find_game(game_name)
    seats = min((n for n in game.player_counts if n >= 2), default=min(game.player_counts))
    state = game.new_state(seats, 1, game.load_board(), {})
    match_id = f"check-{int(time.time() * 1000)}"
    player = HttpPlayer(name="checked", url=url, guard=policy.pin)
    try:
        began = time.perf_counter()
        fault = player.start(MatchInfo(match_id, game.name, 0,
                                       tuple((i, f"seat{i}") for i in range(seats)),
                                       {"decision_ms": time_ms, "bank_ms": 0}))
        report.add("POST /start", "ok" if fault is None else fault.split(":", 1)[0],
                   (time.perf_counter() - began) * 1000, fault or "")
        _first_decisions(state, game.name, player, report, match_id, time_ms)
    finally:
        player.close()
    return report


def _first_decisions(state: Any, game_name: str, player: Any, report: CheckReport,
                     match_id: str, time_ms: int) -> None:
    """Play the game with random choices, putting seat 0's decisions to the bot."""
    import random

    from referee.players import OK, DecisionRequest

    rng = random.Random(0)
    asked = step = 0
    while asked < CHECK_DECISIONS and step < 500 and state.pending():
        choices = {}
        for d in state.pending():
            choice = rng.choice(d.options).id
            if d.seat == 0:
                answer = player.decide(DecisionRequest(
                    match_id=match_id, game=game_name, seat=0,
                    request_id=f"{match_id}:{step}:0", decision=d,
                    view=functools.partial(state.view, d.seat), deadline_ms=time_ms,
                    bank_ms=0))
                if answer.status == OK and answer.choice not in d.option_ids():
                    answer.status, answer.detail = "unknown_option", repr(answer.choice)
                report.add(f"POST /decide {d.kind}", answer.status, answer.elapsed_ms,
                           answer.detail)
                if answer.status == OK:
                    choice = answer.choice
                asked += 1
            choices[d.seat] = choice
        state.apply(choices)
        step += 1


def _pct(values: Sequence[float], pct: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


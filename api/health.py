"""Probing bots on a schedule: ``GET /`` and one dry-run decision per bot, then the rules.

:func:`probe_due` is what the Celery beat entry (``referee.health``) and the embedded
server's health thread run: it probes every entrant bot not probed within the interval, a few
at a time, stores each probe and lets :mod:`ladder.health` pause or resume the bot's ladder
entries, then applies the forfeit rule to every bot.  Every connection to a bot goes through
the service's URL policy (``referee.netpolicy``), as a match's do.

A probe passes when the bot's URL is allowed, its ``GET /`` answers a JSON object that lists
the game (within 5 s, 64 KiB), and it answers one real decision: ``POST /start`` of a match
that is never played further (its id starts with ``health-``), then ``POST /decide`` with the
first decision of a freshly dealt game, within the game's default decision time, with one of
the offered ids.  No ``/end`` follows: the dry run has no result to announce.
"""

from __future__ import annotations

import logging
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from arena.liveness import liveness_problem
from ladder import health
from ladder.accounts import now_utc
from referee.display import printable
from referee.netpolicy import BlockedUrl, UrlPolicy

log = logging.getLogger("referee.health")
DECISION_MS = 1000
"""The dry run's decision time: the ladder's default time control."""
PROBE_WORKERS = 4
"""Bots probed at once (a bot that is down costs its timeouts, not the others')."""


@dataclass
class HealthRun:
    """What one :func:`probe_due` did."""

    probed: dict[int, bool] = field(default_factory=dict)
    paused: dict[int, str] = field(default_factory=dict)
    resumed: dict[int, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"probed": len(self.probed), "failed": sorted(b for b, ok in self.probed.items()
                                                             if not ok),
                "paused": dict(self.paused), "resumed": dict(self.resumed)}


def probe_due(engine: Engine, policy: UrlPolicy, now: datetime | None = None, *,
              interval_s: float = health.PROBE_INTERVAL_S,
              workers: int = PROBE_WORKERS) -> HealthRun:
    """Probe the bots due (``now``: a test's clock, also the probes' time), apply the
    health rules after each probe and the forfeit rule to every bot."""
    run = HealthRun()
    targets = health.due(engine, now, interval_s)
    if targets:
        with ThreadPoolExecutor(min(workers, len(targets)), thread_name_prefix="probe") as pool:
            outcomes = list(pool.map(lambda t: _probe_or_none(t, policy), targets))
        for target, outcome in zip(targets, outcomes):
            if outcome is None:
                continue
            run.probed[target.bot_id] = outcome.ok
            _note(run, target.bot_id, health.record_probe(engine, target.bot_id, outcome, now,
                                                          due_since=target))
    for bot_id, verdict in health.check_forfeits(engine, now).items():
        _note(run, bot_id, verdict)
    from api.relays import sweep_presence  # pull bots: presence is health

    for bot_id, kind in sweep_presence(engine, now).items():
        _note(run, bot_id, health.Verdict(kind, "away" if kind == health.PAUSED else "back"))
    return run


def _probe_or_none(target: health.Target, policy: UrlPolicy) -> health.ProbeOutcome | None:
    """:func:`probe`, or None (nothing recorded) when the referee itself failed (a game no
    longer served, a bug): that is no evidence against the bot."""
    try:
        return probe(target, policy)
    except Exception:
        log.exception("probing bot %s", target.bot_id)
        return None


def _note(run: HealthRun, bot_id: int, verdict: health.Verdict | None) -> None:
    if verdict is None:
        return
    (run.paused if verdict.kind == health.PAUSED else run.resumed)[bot_id] = verdict.reason
    log.info("bot %s %s: %s", bot_id, verdict.kind, verdict.reason)


def probe(target: health.Target, policy: UrlPolicy,
          decision_ms: int = DECISION_MS) -> health.ProbeOutcome:
    """One probe of one bot: the URL policy, ``GET /``, then the one-decision dry run."""
    from api import execution

    try:
        policy.check(target.url)
    except BlockedUrl as exc:
        return health.ProbeOutcome(False, None, "blocked", f"bot URL refused: {exc}")
    found = execution.probe(target.url, policy)
    problem = liveness_problem(found.info, found.fault, target.game)
    if problem is not None:
        status = found.fault.reason.value if found.fault is not None else "bad_info"
        return health.ProbeOutcome(False, round(found.ms, 3), status, f"GET / {problem}")
    return dry_run(target.url, target.game, policy, decision_ms, info_ms=found.ms)


def dry_run(url: str, game: str, policy: UrlPolicy, decision_ms: int = DECISION_MS,
            info_ms: float = 0.0) -> health.ProbeOutcome:
    """``/start`` then one ``/decide`` of a freshly dealt ``game`` (the first decision, in
    the fewest seats the game allows, the bot in the seat that decides first).  The latency
    is the decision's round trip."""
    from referee.games import find_game
    from referee.match import board_data
    from referee.players import DecisionRequest, MatchInfo
    from referee.transport import HttpPlayer

    rules = find_game(game)
    seats = min((n for n in rules.player_counts if n >= 2), default=min(rules.player_counts))
    board = rules.load_board()
    state = rules.new_state(seats, secrets.randbits(63), board, rules.validate_options({}))
    decision = state.pending()[0]
    seat = decision.seat
    match_id = f"health-{secrets.token_hex(8)}"
    names = tuple((i, "you" if i == seat else "random") for i in range(seats))
    player = HttpPlayer(name="probe", url=url, guard=policy.pin)
    try:
        fault = player.start(MatchInfo(match_id, game, seat, names,
                                       {"decision_ms": decision_ms, "bank_ms": 0},
                                       board_data(board)))
        if fault is not None:
            return health.ProbeOutcome(False, None, fault.reason.value,
                                       printable(f"/start: {fault}")[:500])
        began = time.perf_counter()
        answer = player.decide(DecisionRequest(
            match_id=match_id, game=game, seat=seat, request_id=f"{match_id}:0:{seat}",
            decision=decision, view=lambda: state.view(seat), deadline_ms=decision_ms,
            bank_ms=0))
        ms = round(answer.elapsed_ms or (time.perf_counter() - began) * 1000, 3)
    finally:
        player.close()
    if answer.fault is not None:
        return health.ProbeOutcome(False, ms, answer.fault.reason.value,
                                   printable(f"/decide: {answer.fault}")[:500])
    if answer.elapsed_ms > decision_ms:
        return health.ProbeOutcome(False, ms, "timeout",
                                   f"/decide answered after {answer.elapsed_ms:.0f} ms")
    if answer.choice not in decision.option_ids():
        return health.ProbeOutcome(False, ms, "unknown_option",
                                   printable(f"/decide: {answer.choice!r} is not an offered "
                                             "id")[:500])
    return health.ProbeOutcome(True, ms, "ok",
                               f"GET / in {info_ms:.0f} ms, one {decision.kind} decision")


def probe_now(engine: Engine, policy: UrlPolicy, interval_s: float) -> dict[str, Any]:
    """:func:`probe_due` at the current time, as a scheduler calls it (a summary)."""
    return probe_due(engine, policy, now_utc(), interval_s=interval_s).to_dict()

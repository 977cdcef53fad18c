"""The service's side of match play: a claimed match becomes an execution-layer description.

Everything in the service that plays or checks a bot goes through :func:`play`, :func:`probe`
and :func:`check`, which call the execution layer (:mod:`arena`) with the service's URL policy
(``referee.netpolicy``) as the guard of every HTTP connection; built-in seats play in-process.
:func:`run_check` is a bot check as the workers run it (a check plays a whole match: never
inside a request).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from arena import MatchDescription, Seat, TimeControl, check_bot, play_match
from arena.conformance import ConformanceReport
from arena.description import is_pull
from ladder import checks, relay_incidents
from ladder.models import NAME_LEN
from ladder.newmatches import STANDARD
from ladder.work import Claim, SweepPolicy
from referee.faults import Fault
from referee.netpolicy import BlockedUrl, UrlPolicy
from referee.relay import RelayError

log = logging.getLogger("referee.checks")
Check = Callable[..., dict[str, Any]]

PROBE_MS = 5000
"""Budget of the registration probe (``GET /``), whose body is capped at 64 KiB."""


def description(claim: Claim) -> MatchDescription:
    """The execution layer's description of one attempt of a claimed match.

    Bots are told the attempt's id (``m12.2``), never the public id alone, so that a bot
    keeping state per match is not confused by a re-run.
    """
    settings = claim.settings
    seats = sorted(claim.seats, key=lambda plan: plan.seat)
    return MatchDescription(
        game=claim.game, seed=claim.seed, match_id=claim.attempt_id,
        seats=tuple(Seat(plan.url or plan.spec, plan.name) for plan in seats),
        options=dict(settings.options),
        time_control=TimeControl(settings.time_ms, settings.bank_ms),
        strikes=settings.strikes,
    )


def play(claim: Claim, policy: UrlPolicy) -> dict[str, Any]:
    """Play one attempt of a claimed match and return its log (the match-log contract); its
    progress is published for live spectators meanwhile (:mod:`api.live`)."""
    from api.live import publishing
    from api.relays import process_relay

    with publishing(claim) as watch:
        log: dict[str, Any] = dict(play_match(description(claim), guard=policy.pin,
                                              relay=process_relay(), watch=watch).log)
    return log


def relay_failed(engine: Engine, claim: Claim, log: Mapping[str, Any],
                 began: datetime) -> None:
    """:class:`RelayError` when a pull bot of the match was struck while a web process could
    not reach the relay for it (:mod:`ladder.relay_incidents`): its missing answers were the
    referee's failure, so the attempt is too, and the match is played again."""
    struck = [s.bot_id for s in claim.seats if is_pull(s.spec) and any(
        p.get("seat") == s.seat and p.get("strikes") for p in log.get("players", []))]
    if not struck:
        return
    failed = relay_incidents.failed_for(engine, struck, began)
    if failed:
        raise RelayError(f"a web process could not reach the relay for pull bot(s) "
                         f"{', '.join(map(str, failed))} during the match: their strikes are "
                         "the referee's failure")


@dataclass
class Probe:
    """What ``GET /`` of a bot gave: the document or a fault, and how long it took."""

    info: Any
    fault: Fault | None
    ms: float

    @property
    def problem(self) -> str | None:
        """The fault in words (``"timeout: no answer within 5000 ms"``), or ``None``."""
        return None if self.fault is None else f"{self.fault.reason.value}: {self.fault.detail}"


def probe(url: str, policy: UrlPolicy, budget_ms: float = PROBE_MS) -> Probe:
    """``GET /`` of a bot through the URL policy (which :func:`policy.check` ran first)."""
    from referee.transport import fetch_info

    began = time.perf_counter()
    info, fault = fetch_info(url, budget_ms, guard=policy.pin)
    return Probe(info, fault, (time.perf_counter() - began) * 1000)


def check(url: str, game: str, policy: UrlPolicy, nonce: str | None = None,
          time_ms: int = STANDARD.time_ms) -> dict[str, Any]:
    """The execution layer's conformance check (``GET /``, then a match against ``random``)
    through the URL policy, as the API answers it; with ``nonce``, the bot's ``GET /`` must
    also echo it (``"verify"``), the optional ownership proof."""
    from api.relays import process_relay

    report = check_bot(url, game, time_ms=time_ms, games=1, guard=policy.pin,
                       relay=process_relay() if is_pull(url) else None)
    problems = report.problems
    if nonce is not None and report.reachable and (
            not isinstance(report.info, dict) or report.info.get("verify") != nonce):
        problems = [f"protocol error: verify: expected the ownership nonce {nonce!r}",
                    *problems]
    return answer(report, problems)


def answer(report: ConformanceReport, problems: list[str]) -> dict[str, Any]:
    """``POST /bots/{id}/check``'s answer: per call status counts and latency, the first 500
    characters of a bad body, latency per decision kind, strikes, and the verdict."""
    decide = next((c for c in report.calls if c.call == "/decide"), None)
    return {
        "ok": report.reachable and not problems,
        "reachable": report.reachable,
        "calls": [c.to_dict() for c in report.calls],
        "kinds": [k.to_dict() for k in report.kinds],
        "problems": problems,
        "latency_ms": {"p50": decide.p50_ms if decide else None,
                       "p95": decide.p95_ms if decide else None,
                       "n": decide.count if decide else 0},
    }


def run_check(engine: Engine, check_id: int, policy: UrlPolicy, *, lease_s: float,
              worker: str | None = None, run: Check | None = None) -> str:
    """Run a queued check, as every worker does (Celery task or embedded thread); what
    happened: ``nothing`` (not queued any more: a duplicate delivery; or its bot was retired
    meanwhile, and the check failed), ``done``, ``failed`` (it could not run; the check says
    why) or ``lost`` (it was failed meanwhile, its lease having lapsed).  The lease is renewed
    while the bot plays, with no transaction open."""
    held = checks.claim(engine, check_id, worker or worker_name(), lease_s)
    if held is None:
        return "nothing"
    refused = pull_refusal(held.bot_id) if is_pull(held.url) else url_refusal(policy, held.url)
    if refused is not None:
        checks.fail(engine, held, refused)
        return "failed"
    try:
        with Heartbeat(lambda: checks.renew(engine, held, lease_s), lease_s / 3,
                       f"lease-check{check_id}"):
            report = (run or check)(held.url, held.game, policy, nonce=held.nonce)
    except Exception as exc:  # a referee bug: the owner is told, the operator has the trace
        log.exception("check %s of bot %s failed", check_id, held.bot_id)
        checks.fail(engine, held, f"referee error ({type(exc).__name__}): not your bot's "
                                  f"fault, ask again")
        return "failed"
    info = report["calls"][0]  # GET / (a pull bot's /start): what its health record keeps
    status = next(iter(info["statuses"]))
    probe_kept = checks.InfoProbe(status == "ok", info["p50_ms"] or 0.0, status,
                                  info["bad_body"] or "")
    return "done" if checks.finish(engine, held, report, passed=report["ok"],
                                   info=probe_kept) else "lost"


def url_refusal(policy: UrlPolicy, url: str) -> str | None:
    """Why the URL policy refuses to call ``url`` now (``None``: it does not)."""
    try:
        policy.check(url)
    except BlockedUrl as exc:
        return f"bot URL refused: {exc}"
    return None


def pull_refusal(bot_id: int) -> str | None:
    """Why a pull bot's check cannot start (``None``: it can): it went away since it was
    asked for, or the relay cannot be reached (the referee's failure: ask again)."""
    from api.relays import pull_check_refusal

    try:
        return pull_check_refusal(bot_id)
    except RelayError:
        log.exception("presence of bot %s", bot_id)
        return "referee error (the relay cannot be reached): not your bot's fault, ask again"


def sweep_checks(engine: Engine, policy: SweepPolicy) -> list[int]:
    """The checks' sweep with the service's bounds: a check not taken is offered again like a
    match, and fails when nothing took it within a match's age cap."""
    return checks.sweep(engine, requeue_after_s=policy.requeue_after_s,
                        max_wait_s=policy.max_age_s)


def worker_name() -> str:
    """Who holds a lease: host, process and thread (several threads share a process)."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"[:NAME_LEN]


class Heartbeat:
    """Calls ``beat`` every ``every_s`` seconds on a thread while the block runs, until
    ``beat`` answers False (what it kept alive is lost); a beat that raises (a database
    hiccup) is logged and tried again at the next one."""

    def __init__(self, beat: Callable[[], bool], every_s: float, name: str) -> None:
        self.beat, self.every_s = beat, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                if not self.beat():
                    return
            except Exception:
                log.exception("%s", self._thread.name)

"""``referee bot connect``: play a bot on this machine in a service's matches, with no public
address: the bot connects out (pull mode) and this command bridges it (:mod:`arena.bridge`).

It finds (or, with ``--register``, makes) the owner's pull bot on the service, then polls for
its requests until Ctrl-C, reconnecting with backoff when the service cannot be reached.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import click

from arena.bridge import POLL_WAIT_S, Bridge, LinkDown, LinkRefused, LocalBot
from arena.description import is_command
from cli.params import GAME
from referee.core import Game
from referee.display import printable

TIMEOUT_S = 10.0
"""Budget of a call to the service other than a poll (a poll gets its wait on top)."""


class HttpLink:
    """The service's pull endpoints for one bot, over HTTP with the owner's token."""

    def __init__(self, service_url: str, token: str, bot_id: int | None = None) -> None:
        self.base = service_url.rstrip("/") + "/api/v1"
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.bot_id = bot_id
        self._local = threading.local()

    def _session(self) -> Any:
        import requests

        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def call(self, method: str, path: str, timeout: float = TIMEOUT_S, **kw: Any) -> Any:
        """The response of ``method path``; :class:`LinkDown` when the service cannot be
        reached or fails (5xx, 429), :class:`LinkRefused` for a 401 or 403."""
        import requests

        try:
            got = self._session().request(method, self.base + path, headers=self.headers,
                                          timeout=timeout, **kw)
        except requests.RequestException as exc:
            raise LinkDown(type(exc).__name__) from None
        if got.status_code >= 500 or got.status_code == 429:
            raise LinkDown(f"HTTP {got.status_code}")
        if got.status_code in (401, 403):
            raise LinkRefused(f"the service refused the token ({got.status_code}): "
                              f"{_message(got)}")
        return got

    def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
        params = {"wait": wait_s, **({"resume": "true"} if resume else {})}
        got = self.call("GET", f"/bots/{self.bot_id}/requests", timeout=wait_s + TIMEOUT_S,
                        params=params)
        if got.status_code != 200:
            raise LinkRefused(f"the service stopped this connection ({got.status_code}): "
                              f"{_message(got)}")
        try:
            requests_: list[dict[str, Any]] = got.json()["requests"]
        except (ValueError, KeyError, TypeError):
            raise LinkDown("a poll answer that is not the service's") from None
        return requests_

    def answer(self, request_id: str, body: bytes) -> int:
        got = self.call("POST", f"/bots/{self.bot_id}/requests/{quote(request_id, safe=':.')}",
                        data=body)
        return int(got.status_code)

    def over(self, match_ids: Sequence[str]) -> set[str]:
        """Asks the public match record of each (``m<match>.<attempt>``, as the service names
        a match to its bots): in progress only while that attempt runs (a scheduled match
        waits for another attempt: the one the bridge was told of was given up)."""
        out = set()
        for match_id in match_ids:
            found = re.fullmatch(r"m(\d+)\.(\d+)", match_id)
            if found is None:
                continue  # not a name this service gives: never forgotten
            got = self.call("GET", f"/matches/{found[1]}")
            if got.status_code == 404:
                out.add(match_id)
            elif got.status_code == 200:
                try:
                    doc = got.json()
                    state, attempt = doc.get("state"), doc.get("attempt")
                except (ValueError, AttributeError):
                    continue  # not the service's answer (a proxy's page): ask again later
                if state != "running" or attempt != int(found[2]):
                    out.add(match_id)
        return out

    def games(self) -> list[str]:
        """The games the connected bot plays, as registered."""
        got = self.call("GET", f"/bots/{self.bot_id}")
        if got.status_code != 200:
            raise LinkRefused(f"cannot read bot {self.bot_id} ({got.status_code}): "
                              f"{_message(got)}")
        return list(got.json()["games"])

    def find_bot(self, name: str | None, register_game: str | None) -> tuple[int, str]:
        """The owner's pull bot named ``name`` (or its only one), registered first when
        ``register_game`` is given and it does not exist; (id, name)."""
        me = self.call("GET", "/me")
        if me.status_code != 200:
            raise LinkRefused(f"cannot read your account ({me.status_code}): {_message(me)}")
        bots = [b for b in me.json()["bots"] if b.get("status") != "retired"]
        if name is not None:
            found = [b for b in bots if b["name"] == name or str(b["id"]) == name]
        else:
            found = [b for b in bots if b.get("mode") == "pull"]
        if not found and register_game is not None and name is not None:
            return self._register(name, register_game)
        if len(found) != 1:
            raise LinkRefused("name your pull bot (--as NAME), or register one (--register "
                              "NAME --game GAME)" if not found else
                              "you have several pull bots: name one with --as")
        bot = found[0]
        if bot.get("mode") != "pull":
            raise LinkRefused(f"bot {bot['name']!r} is called at its URL (push mode): "
                              "register a pull bot (--register NAME --game GAME)")
        return int(bot["id"]), str(bot["name"])

    def _register(self, name: str, game: str) -> tuple[int, str]:
        got = self.call("POST", "/bots", json={"name": name, "mode": "pull", "games": [game]})
        if got.status_code != 201:
            raise LinkRefused(f"cannot register {name!r} ({got.status_code}): {_message(got)}")
        return int(got.json()["id"]), name


def _message(response: Any) -> str:
    try:
        return printable(str(response.json().get("message", "")))[:300]
    except ValueError:
        return printable(response.text[:300])


@click.command()
@click.argument("service_url")
@click.argument("spec", metavar="BOT")
@click.option("--token", envvar="REFEREE_TOKEN", required=True,
              help="Your owner token (or REFEREE_TOKEN).")
@click.option("--as", "as_name", default=None,
              help="Your pull bot on the service, by name or id (default: your only one).")
@click.option("--register", "register_name", default=None,
              help="Register a pull bot of this name first, if you have none of that name.")
@click.option("--game", "-g", type=GAME, default=None,
              help="The game a bot registered with --register plays, and a cmd: bot is "
                   "started for (default: the registered bot's first game).")
@click.option("--seed", type=int, default=None, help="Seed of a built-in bot's randomness.")
@click.option("--on-stop", type=click.Choice(["finish", "forfeit"]), default="finish",
              show_default=True,
              help="At Ctrl-C: finish the matches in progress first (a second Ctrl-C stops at "
                   "once), or stop at once and let the referee's fallback play them out "
                   "(strikes, then a forfeit).")
def connect(service_url: str, spec: str, token: str, as_name: str | None,
            register_name: str | None, game: Game | None, seed: int | None,
            on_stop: str) -> None:
    """Play BOT (a URL on this machine, "cmd:COMMAND", py:FILE, a built-in) in SERVICE_URL's
    matches as your pull bot: no public address needed. Ctrl-C stops (see --on-stop)."""
    if register_name is not None and game is None:
        raise click.UsageError("--register needs --game")
    if "://" not in service_url:
        raise click.BadParameter(f"{service_url!r} is not a URL", param_hint="SERVICE_URL")
    link = HttpLink(service_url, token)
    try:
        bot_id, name = link.find_bot(register_name or as_name, game.name if game else None)
    except LinkDown as exc:
        raise click.ClickException(f"cannot reach {service_url}: {exc}") from None
    link.bot_id = bot_id
    game_name = game.name if game else None
    if game_name is None and is_command(spec):  # started for one game: the bot's first
        game_name = link.games()[0]
    local = LocalBot(spec, game_name, random.getrandbits(63) if seed is None else seed)
    say = lambda line: click.echo(line, err=True)  # noqa: E731
    bridge = Bridge(link, local, say)
    stop = threading.Event()
    say(f"connected as {name} (bot {bot_id}) to {service_url}; Ctrl-C to stop")
    try:
        try:
            bridge.run(stop, POLL_WAIT_S)
        except KeyboardInterrupt:
            if bridge.matches and on_stop == "finish":
                say(f"finishing {len(bridge.matches)} match(es) in progress (Ctrl-C again to "
                    "stop now)")
                bridge.run(stop, 1, until_idle=True)
        bridge.close(wait=not bridge.matches)
        if not bridge.matches:
            say("stopped")
    except KeyboardInterrupt:
        bridge.close()
    finally:
        left = len(bridge.matches)
        if left:
            say(f"stopped: {left} match(es) in progress go on without your bot")
        local.close()

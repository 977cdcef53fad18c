"""The public pages: home, leaderboards, bots, matches, rounds, challenges, docs, and logging in
with a token.

Views gather data from the ladder's reads (the same ones the API answers from, plus
``ladder.pages_reads``) and hand it to a template; no SQL here.  Every link works without
JavaScript; only the match page loads a script (the replay viewer), and shows the frame as
text with previous/next links without it.
"""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network, ip_network
from typing import Any
from urllib.parse import urlencode, urlsplit

from flask import Blueprint, redirect, render_template, request, url_for
from flask_limiter import Limiter
from werkzeug.exceptions import BadRequest, NotFound
from werkzeug.wrappers import Response

from api import caching
from api.context import service
from api.live import live as live_now
from api.pages import board as boards, session as login
from api.pages.charts import rating_chart
from api.pages.owner_state import bot_states
from api.pages.query import bot_ref, known_args, one_of, query, whole, yes_no
from api.replays import FRAMES
from api.schemas import ID_RULE as ID
from api.viewer import render_fragment
from ladder import (
    ConflictError, ForbiddenError, NotFoundError, pages_reads as more, reads, registry,
)
from ladder.accounts import authenticate
from ladder.db import shared_reader
from ladder.matchmaking import list_rounds, round_detail
from ladder.models import FINISHED, RUNNING, SCHEDULED, VOIDED
from ladder.work import queue_stats
from referee.frames.kits import kit_for

MATCHES_PER_PAGE = 25
TOP = 10
ROUND_MATCHES = 1000
"""A round's or a challenge's matches listed on its page at most (a round has about one
match per bot, a challenge ten)."""


def blueprint(limiter: Limiter) -> Blueprint:
    blp = Blueprint("pages", __name__, template_folder="templates")
    blp.add_url_rule("/", "home", home)
    blp.add_url_rule("/leaderboards/<string(maxlength=64):game>", "leaderboard", leaderboard)
    blp.add_url_rule(f"/bots/<{ID}:bot_id>", "bot", bot)
    blp.add_url_rule("/matches", "matches", matches)
    blp.add_url_rule(f"/matches/<{ID}:match_id>", "match", match)
    blp.add_url_rule(f"/rounds/<{ID}:round_id>", "round", round_page)
    blp.add_url_rule(f"/challenges/<{ID}:challenge_id>", "challenge", challenge_page)
    blp.add_url_rule("/docs", "docs", docs)
    blp.add_url_rule("/login", "login", limiter.limit("10 per minute", methods=["POST"])(
        log_in), methods=["GET", "POST"])
    blp.add_url_rule("/logout", "logout", log_out, methods=["POST"])
    return blp


# -- home and leaderboards --------------------------------------------------------------------

def home() -> str:
    query()
    engine = service().engine
    boards = []
    for game in service().games:
        board = reads.leaderboard_page(engine, game)
        boards.append({"game": game, "top": board["items"][:TOP],
                       "ranked": len(board["items"]), "provisional": len(board["provisional"])})
    live, live_total = reads.list_matches(engine, state=RUNNING, per_page=TOP)
    recent, _ = reads.list_matches(engine, state=FINISHED, per_page=TOP)
    return render_template("pages/home.html", boards=boards, live=live, live_total=live_total,
                           recent=recent, queue=queue_stats(engine))


def leaderboard(game: str) -> str:
    """The ladder's table: ``?sort=`` a column (``order=asc|desc``), ``?owner=`` one owner's
    bots; each section (ranked, provisional, paused) sorted and filtered alike."""
    known(game)
    engine = service().engine
    whole_board = reads.leaderboard_page(engine, game)  # paused bots apart, in their own section
    owners = boards.owners(whole_board)
    q = query(sort=one_of(list(boards.COLUMNS)), order=one_of([boards.ASC, boards.DESC]),
              owner=one_of(owners))
    key = q.get("sort", boards.DEFAULT)
    order = q.get("order", boards.COLUMNS[key].first)
    extras = more.ladder_extras(engine, game)
    board = boards.of_owner(whole_board, q.get("owner"))
    for section in ("items", "provisional"):
        board[section] = boards.sort_rows(board[section], key, order, extras)
    recent, _ = reads.list_matches(engine, game=game, state=FINISHED, per_page=TOP)
    latest, _ = list_rounds(engine, game, per_page=1)
    return render_template(
        "pages/leaderboard.html", game=game, board=board, extras=extras, recent=recent,
        latest_round=latest[0] if latest else None,
        two_seats=max(game_info(game).player_counts) == 2, owners=owners,
        owner=q.get("owner"),
        sorting=boards.Sorting(url_for(".leaderboard", game=game), key, order, q.get("owner")))


# -- bots -------------------------------------------------------------------------------------

def bot(bot_id: int) -> str:
    """A bot's page: a dozen reads, on one connection (:func:`ladder.db.shared_reader`)."""
    query()
    with shared_reader(service().engine):
        return bot_page(bot_id)


def bot_page(bot_id: int) -> str:
    engine = service().engine
    me = login.viewer()
    profile = registry.bot_detail(engine, bot_id, viewer=me["id"] if me else None)
    ladders: list[dict[str, Any]] = []
    for game in sorted(set(more.bot_games(engine, bot_id)) | set(profile["games"])):
        if game not in service().games:
            continue
        series = more.rating_series(engine, bot_id, game)
        ladders.append({
            "game": game, "standing": reads.board_standing(engine, game, bot_id),
            "chart": rating_chart(series), "rated": len(series),
            "head_to_head": more.head_to_head(engine, bot_id, game),
            "seats": more.seat_record(engine, bot_id, game)})
    ladders.sort(key=lambda lad: lad["rated"] == 0 and not lad["head_to_head"])
    recent, total = reads.list_matches(engine, bot=bot_id, per_page=20)
    plays = sorted(set(profile["games"]) | {lad["game"] for lad in ladders if lad["rated"]})
    return render_template("pages/bot.html", bot=profile, ladders=ladders, recent=recent,
                           plays=plays, total=total, strikes=more.strike_summary(engine, bot_id),
                           health=more.health(engine, bot_id),
                           states={s.game: s for s in bot_states(profile)})


# -- matches ----------------------------------------------------------------------------------

def matches() -> tuple[str, int]:
    """Every match, newest first, filtered; a page past the last is a 404 that links to the
    last one (a shared link outlives the filter's matches)."""
    states = [SCHEDULED, RUNNING, FINISHED, VOIDED]
    q = query(game=one_of(service().games), bot=bot_ref, state=one_of(states),
              rated=yes_no, page=whole(1, 100_000))
    engine = service().engine
    filters: dict[str, Any] = {k: q[k] for k in ("game", "state", "rated") if k in q}
    bot_name = None
    if "bot" in q:
        filters["bot"], bot_name = bot_filter(q["bot"])
    page = q.get("page", 1)
    items, total = reads.list_matches(engine, page=page, per_page=MATCHES_PER_PAGE, **filters)
    shown = known_args("game", "bot", "state", "rated")
    pages = max(1, -(-total // MATCHES_PER_PAGE))

    def page_link(n: int) -> str:
        return url_for(".matches") + ("?" + urlencode({**shown, "page": n}) if n > 1 or shown
                                      else "")

    past_end = page > pages
    body = render_template("pages/matches.html", items=items, total=total, page=page,
                           pages=pages, page_link=page_link, q=q, states=states,
                           bot_name=bot_name, filtered=bool(filters), past_end=past_end)
    return body, 404 if past_end else 200


def bot_filter(ref: int | str) -> tuple[int, str | None]:
    """A bot given by id or name: its id and name (400 for a name no bot has)."""
    engine = service().engine
    if isinstance(ref, int):
        return ref, more.bot_names(engine, [ref]).get(ref)
    found = more.bot_id_named(engine, ref)
    if found is None:
        raise BadRequest(f"bot: no bot is named {ref[:64]!r}")
    return found, ref


def match(match_id: int) -> str:
    q = query(ply=whole(0, 1_000_000))
    engine = service().engine
    detail = reads.match_detail(engine, match_id)
    replay, problem, plies, doc, now = None, None, {}, None, None
    if detail["state"] == RUNNING:  # live where the seed-sharing rule allows (api.live)
        caching.not_stored()  # its frames come from the worker's snapshot, not the database
        now = live_now(engine, match_id, service().mode)
        if now.doc is not None:
            replay = render_fragment(
                now.doc, q.get("ply", len(now.doc["frames"]) - 1),
                link=lambda n: url_for(".match", match_id=match_id, ply=n))
    elif detail["log_available"]:
        try:
            frames, doc = FRAMES.read(engine, match_id)
            doc = doc if doc is not None else frames.document()
        except ConflictError as exc:
            problem = str(exc)
        else:
            plies = {f["step"]: f["ply"] for f in doc["frames"] if f["step"] is not None}
            replay = render_fragment(
                doc, q.get("ply", 0),
                frames_url=url_for("frames.get_frames", match_id=match_id),
                link=lambda n: url_for(".match", match_id=match_id, ply=n))
    return render_template("pages/match.html", m=detail, replay=replay, problem=problem, live=now,
                           own_logs=own_logs(detail), plies=plies,
                           length=game_length(detail, doc),
                           round=more.round_ref(engine, detail["round_id"])
                           if detail["round_id"] else None)


def game_length(detail: dict[str, Any], doc: dict[str, Any] | None) -> str | None:
    """How long the game went, in the viewer's words and count: "round 18" (Tokaido Duo),
    "turn 52" (Doubletrack: a turn is one seat's, as its frames count them).  Without frames,
    the result's ``turns`` (games that count them) or its full rounds."""
    if doc is not None:
        turns = [f["turn"] for f in doc["frames"] if f.get("turn") is not None]
        if turns:
            return f"{doc['match']['turn_name']} {max(turns)}"
    result = detail.get("result") or {}
    if result.get("turns"):
        return f"turn {result['turns']}"
    if result.get("rounds"):
        if kit_for(detail["game"]).turn_name == "round":
            return f"round {result['rounds']}"
        return f"{result['rounds']} full round{'s' if result['rounds'] != 1 else ''} " \
               "of the table"
    return None


def own_logs(detail: dict[str, Any]) -> list[dict[str, Any]]:
    """The logged-in owner's bots' own ``log`` lines in this match (finished only)."""
    me = login.viewer()
    if me is None or detail["state"] != FINISHED:
        return []
    out = []
    for seat in detail["seats"]:
        if seat["owner"] and seat["owner"]["id"] == me["id"]:
            try:
                found = reads.seat_log(service().engine, detail["id"], seat["seat"], me["id"])
            except (NotFoundError, ForbiddenError, ConflictError):
                continue
            out.append({"seat": seat, "lines": found["lines"]})
    return out


# -- rounds and challenges --------------------------------------------------------------------

def round_page(round_id: int) -> str:
    """A ladder round: its fixtures with their matches and results, its byes, its progress."""
    query()
    engine = service().engine
    detail = round_detail(engine, round_id)
    ref = more.round_ref(engine, round_id)
    listed, _ = reads.list_matches(engine, round=round_id, per_page=ROUND_MATCHES)
    by_id = {m["id"]: m for m in listed}
    for fixture in detail["fixtures"]:
        fixture["listed"] = [by_id[m["id"]] for m in fixture["matches"] if m["id"] in by_id]
    placed = {m["id"] for f in detail["fixtures"] for m in f["matches"]}
    return render_template("pages/round.html", r=detail, ref=ref,
                           loose=[m for m in listed if m["id"] not in placed])


def challenge_page(challenge_id: int) -> str:
    """A challenge: who asked, its bots' aggregate result, and each of its games."""
    query()
    engine = service().engine
    detail = reads.challenge_detail(engine, challenge_id)
    listed, _ = reads.list_matches(engine, challenge=challenge_id, per_page=ROUND_MATCHES)
    names = more.bot_names(engine, detail["bot_ids"])
    results = sorted(detail["results"], key=lambda t: (-t["points"], t["mean_rank"] or 99))
    for tally in results:
        tally["name"] = names.get(tally["bot_id"], tally.get("name"))
    owner = more.owner_names(engine, [detail["owner_id"]]).get(detail["owner_id"])
    return render_template("pages/challenge.html", c=detail, results=results, owner=owner,
                           matches=listed)


# -- docs and login ---------------------------------------------------------------------------

def within(a: IPv4Network | IPv6Network, b: IPv4Network | IPv6Network) -> bool:
    """``a`` is inside ``b`` (never across IP versions)."""
    if isinstance(a, IPv4Network) and isinstance(b, IPv4Network):
        return a.subnet_of(b)
    if isinstance(a, IPv6Network) and isinstance(b, IPv6Network):
        return a.subnet_of(b)
    return False


def docs() -> str:
    from referee.protocol import PROTOCOL_VERSION, SCHEMAS

    query()
    return render_template("pages/docs.html", base=request.host_url.rstrip("/"),
                           schemas=list(SCHEMAS), protocol=PROTOCOL_VERSION,
                           addresses=address_policy())


def address_policy() -> dict[str, Any]:
    """What this server lets bot URLs reach (its configuration, for the docs): the networks
    it opens among the blocked ranges, each with what it is, the ports, and whether a bot
    must prove its URL is its owner's."""
    from referee.netpolicy import BLOCKED_NETWORKS, format_ports

    svc = service()
    opened = []
    blocked = [(ip_network(cidr), why) for cidr, why in BLOCKED_NETWORKS]
    for net in svc.policy.allow:
        # what it opens: the blocked ranges inside it, and the narrowest one around it
        inside = [why for b, why in blocked if within(b, net)]
        around = sorted((b.prefixlen, why) for b, why in blocked if within(net, b))
        kinds = list(dict.fromkeys(inside + [why for _, why in around[-1:]]))
        opened.append({"network": str(net), "kinds": kinds})
    loopback = any(within(ip_network("127.0.0.1/32"), net) for net in svc.policy.allow)
    return {"opened": opened, "ports": format_ports(svc.policy.ports),
            "proof": svc.config.proves_ownership,
            "example": "http://127.0.0.1:8000" if loopback else "https://my-bot.example"}


def log_in() -> Response | tuple[str, int] | str:
    """GET: the form.  POST: a valid token starts a page session; back to where it came from."""
    q = query(next=safe_next)
    target = q.get("next", url_for(".home"))
    if request.method == "GET":
        return render_template("pages/login.html", next=target, problem=None)
    login.check_csrf()
    found = authenticate(service().engine, request.form.get("token", "").strip())
    if found is None:
        return render_template("pages/login.html", next=target, problem=(
            "That token is not valid: it is mistyped, revoked, or its owner is suspended.")), 401
    login.log_in(found.owner_id, found.token_id)
    return redirect(target, code=303)


def log_out() -> Response:
    query()
    login.check_csrf()
    login.log_out()
    return redirect(url_for(".home"), code=303)


def safe_next(text: str) -> str:
    """Only a path on this site: never another origin (an open redirect)."""
    parts = urlsplit(text)
    if parts.scheme or parts.netloc or not text.startswith("/") or text.startswith("//") \
            or "\\" in text:
        raise ValueError("must be a path on this site")
    return text


# -- helpers ----------------------------------------------------------------------------------

def known(game: str) -> None:
    if game not in service().games:
        raise NotFound(f"No game is called {game[:64]!r}. The games here: "
                       f"{', '.join(service().games)}.")


def game_info(game: str) -> Any:
    from referee.games import find_game

    return find_game(game)

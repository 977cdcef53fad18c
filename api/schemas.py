"""Marshmallow schemas at the edge: what requests may carry and what answers look like.

Every text field refuses NUL and unpaired surrogates (PostgreSQL cannot store them: they would
end as a 500), every integer is bounded to what the database stores, and every query schema is
used with ``unknown=RAISE`` so an unknown parameter is a 422, not silently ignored.

Longer than the 500 lines other modules keep to, on purpose: it is declarations only (no
logic), one class per document of the OpenAPI description, in two sections (requests, then
answers), and the shared field rules at the top hold for all of them. Split, the rules would be
imported everywhere and a reader would look in several files for one document's shapes.
"""

from __future__ import annotations

from datetime import timezone
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ladder.checks import MAX_CHECK_S
from ladder.models import (
    ACTIVE, DONE, FAILED, FINISHED, MAX_ID, PAUSED, PULL, PUSH, QUEUED, RETIRED, RUNNING, SCHEDULED,
    UNVERIFIED, VOIDED,
)
from ladder.registry import MAX_BOTS_PER_OWNER
from ladder.work import MAX_CHALLENGE_GAMES

ID_MAX = MAX_ID
ID_RULE = f"int(min=1, max={ID_MAX})"
"""The URL converter of ids: what the database stores, so a huge id is a 404, not a 500."""
URL_PATTERN = r"^https?://[^\s/?#@]+(/[^\s?#]*)?$"
"""What the document promises of a bot URL: http or https, a host (and port), a path; no
credentials (``user:password@``), query or fragment (a bot's calls are paths under its URL)."""
URL_SHAPE = r"^https?://[^\s/?#]+(/[^\s?#]*)?$"
"""What the body's validation checks: :data:`URL_PATTERN` but credentials, which it leaves to
the URL policy (the same 422, with its own message: ``bot URL refused: ... credentials``)."""
URL_RULES = (
    "http(s)://host[:port][/path], without credentials, query or fragment. The host must "
    "resolve only to addresses the service's policy allows (no loopback, private or "
    "link-local range unless the operator opened it) and answer `GET /` (5 s, 64 KiB) with a "
    "protocol v1 document listing each of the bot's games: 422 otherwise. A URL another "
    "owner's live bot uses: 409.")
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$"


def _storable(value: str) -> None:
    if "\x00" in value:
        raise ma.ValidationError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ma.ValidationError("must be valid Unicode (no unpaired surrogates)") from None


STORABLE_PATTERN = r"^[^\u0000]*$"
"""No NUL: what :func:`_storable` refuses, said in the document (so a fuzzer knows it).  Unpaired
surrogates cannot be said in a JSON Schema pattern (not Unicode scalars): they stay unsaid."""


def Text(*, max_len: int, min_len: int = 0, **kwargs: Any) -> fields.String:
    metadata = {"pattern": STORABLE_PATTERN, **kwargs.pop("metadata", {})}
    return fields.String(validate=[validate.Length(min_len, max_len), _storable],
                         metadata=metadata, **kwargs)


def Id(*, strict: bool = True, **kwargs: Any) -> fields.Integer:
    """An id: a JSON integer in bodies (``strict``), digits in query strings."""
    return fields.Integer(strict=strict, validate=validate.Range(1, ID_MAX), **kwargs)


def Name(**kwargs: Any) -> fields.String:
    metadata = {"pattern": NAME_PATTERN, **kwargs.pop("metadata", {})}
    return fields.String(validate=[validate.Length(1, 64), validate.Regexp(NAME_PATTERN)],
                         metadata=metadata, **kwargs)


class Strict(ma.Schema):
    class Meta:
        unknown = ma.RAISE


def game_field(games: list[str], **kwargs: Any) -> fields.String:
    return fields.String(validate=validate.OneOf(games), **kwargs)


# -- requests ---------------------------------------------------------------------------------

class PageArgs(Strict):
    page = fields.Integer(load_default=1, validate=validate.Range(1, 100_000))
    per_page = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class OwnerCreate(Strict):
    name = Name(required=True, metadata={"description": "unique (409 when taken)"})
    email = fields.Email(load_default=None, allow_none=True, validate=[validate.Length(max=200),
                                                                        _storable])


class TokenCreate(Strict):
    name = Text(max_len=200, min_len=1, load_default="token")


def Url(**kwargs: Any) -> fields.String:
    return fields.String(validate=[validate.Length(1, 2000), _storable, validate.Regexp(
        URL_SHAPE, error="must be http(s)://host[:port][/path], without query or fragment")],
        metadata={"pattern": URL_PATTERN, "format": "uri", "description": URL_RULES}, **kwargs)


def bot_create_schema(known: list[str]) -> type[ma.Schema]:
    class BotCreate(Strict):
        name = Name(required=True, metadata={
            "description": f"unique among all bots (409 when taken); an owner has at most "
                           f"{MAX_BOTS_PER_OWNER} live bots (409 past it)"})
        mode = fields.String(load_default=PUSH, validate=validate.OneOf([PUSH, PULL]),
                             metadata={"description": (
                                 "`push` (default): the service calls the bot at `url`; "
                                 "`pull`: the bot has no address and no `url`, it connects "
                                 "out with its owner's token (`GET /bots/{id}/requests`) and "
                                 "answers each request it is handed "
                                 "(`POST /bots/{id}/requests/{request_id}`)")})
        url = Url()  # required in push mode, refused in pull mode (below)
        games = fields.List(game_field(known), required=True,
                            validate=validate.Length(1, len(known)))
        description = Text(max_len=2000, load_default="")
        ladder = fields.Boolean(load_default=True, metadata={
            "description": "join the living ladder of each of its games (default); false: "
                           "challenges only, join later with PUT /bots/{id}/ladders/{game}"})

        @ma.validates_schema
        def _url_by_mode(self, data: dict[str, Any], **_: Any) -> None:
            if data.get("mode", PUSH) == PUSH and "url" not in data:
                raise ma.ValidationError("a push bot needs its url", "url")
            if data.get("mode") == PULL and "url" in data:
                raise ma.ValidationError("a pull bot has no url: it connects out", "url")
    return BotCreate


def bot_update_schema(known: list[str]) -> type[ma.Schema]:
    class BotUpdate(Strict):
        name = Name(metadata={"description": "unique among all bots (409 when taken)"})
        url = Url()
        games = fields.List(game_field(known), validate=validate.Length(1, len(known)))
        description = Text(max_len=2000)
        max_concurrency = fields.Integer(strict=True, validate=validate.Range(1, 4))
    return BotUpdate


def bot_filter_schema(known: list[str]) -> type[ma.Schema]:
    class BotFilter(PageArgs):
        game = game_field(known)
        owner = Id(strict=False)
        status = fields.String(validate=validate.OneOf([ACTIVE, UNVERIFIED, PAUSED, RETIRED]))
    return BotFilter


def check_args_schema(known: list[str]) -> type[ma.Schema]:
    class CheckArgs(Strict):
        game = game_field(known, metadata={
            "description": "the game to check: one of the bot's `games` (422 otherwise); "
                           "default: its first"})
    return CheckArgs


def _distinct(ids: list[int]) -> None:
    if len(set(ids)) != len(ids):
        raise ma.ValidationError("a bot may sit in only one seat of a challenge")


def challenge_create_schema(known: list[str]) -> type[ma.Schema]:
    from referee.games import find_game

    seats = "; ".join(
        f"{g}: {' or '.join(str(n) for n in find_game(g).player_counts if n >= 2)}"
        for g in known)
    solo_levels = "; ".join(
        f"{g}: {find_game(g).solo_levels[0]}-{find_game(g).solo_levels[-1]}"
        for g in known if find_game(g).solo_levels) or "no game here has one"

    class ChallengeCreate(Strict):
        game = game_field(known, required=True)
        bots = fields.List(Id(), required=True, validate=[validate.Length(1, 4), _distinct],
                           metadata={"uniqueItems": True, "description": (
                               f"distinct bots, in seat order, as many as the game seats "
                               f"({seats}), or one bot alone with `automa_level`; one of "
                               f"them yours (403 otherwise); each active and playing the "
                               f"game (422 otherwise)")})
        automa_level = fields.Integer(strict=True, load_default=None, metadata={
            "description": "a solo challenge: the one bot plays the game alone against its "
                           f"solo opponent at this level ({solo_levels}; 422 for another "
                           "level, another number of bots or a game with no solo mode)"})
        games = fields.Integer(strict=True, load_default=None,
                               validate=validate.Range(1, MAX_CHALLENGE_GAMES), metadata={
                                   "description": "matches to play, a multiple of the number "
                                                  "of bots (each seed is played once per "
                                                  "seat rotation; 422 otherwise); default: "
                                                  "one per bot"})
    return ChallengeCreate


def whole_body(schema: type[ma.Schema], **rules: Any) -> dict[str, Any]:
    """``@blp.doc`` of an operation whose JSON body obeys ``rules`` over the whole object
    (``minProperties``), which a marshmallow schema cannot say in the document."""
    return {"requestBody": {"content": {"application/json": {
        "schema": {"allOf": [schema], **rules}}}}}


def match_filter_schema(known: list[str]) -> type[ma.Schema]:
    class MatchFilter(PageArgs):
        game = game_field(known)
        bot = Id(strict=False)
        state = fields.String(validate=validate.OneOf([SCHEDULED, RUNNING, FINISHED, VOIDED]))
        rated = fields.Boolean()
        challenge = Id(strict=False)
    return MatchFilter


class LongPageArgs(PageArgs):
    """A page of a series a chart draws whole: up to 1000 points at once."""

    per_page = fields.Integer(load_default=100, validate=validate.Range(1, 1000))


def rating_args_schema(known: list[str]) -> type[ma.Schema]:
    class RatingArgs(LongPageArgs):
        game = game_field(known, required=True)
    return RatingArgs


def head_to_head_args_schema(known: list[str]) -> type[ma.Schema]:
    class HeadToHeadArgs(PageArgs):
        game = game_field(known, required=True)
    return HeadToHeadArgs


def bot_matches_args_schema(known: list[str]) -> type[ma.Schema]:
    class BotMatchesArgs(PageArgs):
        game = game_field(known)
        opponent = Id(strict=False, metadata={"description": "a bot it met in the match"})
        result = fields.String(validate=validate.OneOf(["win", "draw", "loss"]), metadata={
            "description": "its outcome (finished matches only): a win is first place alone, "
                           "a draw first place shared, anything else a loss"})
        rated = fields.Boolean()
        state = fields.String(validate=validate.OneOf([SCHEDULED, RUNNING, FINISHED, VOIDED]))
        since = fields.AwareDateTime(default_timezone=timezone.utc, metadata={
            "description": "finished (or, not yet over, created) at or after this moment; "
                           "without an offset, UTC"})
        round = Id(strict=False)
    return BotMatchesArgs


def export_args_schema(known: list[str]) -> type[ma.Schema]:
    class ExportArgs(Strict):
        game = game_field(known)
        after_id = fields.Integer(load_default=0, validate=validate.Range(0, ID_MAX),
                                  metadata={"description": "the cursor: `next_after_id` of "
                                                           "the previous page"})
        limit = fields.Integer(load_default=100, validate=validate.Range(1, 500))
    return ExportArgs


class AlertArgs(PageArgs):
    bot = Id(strict=False)


class LadderPauseBody(Strict):
    reason = Text(max_len=200, min_len=1, load_default="paused by an admin")


class LadderEntryBody(Strict):
    """At least one of the two (``minProperties: 1`` in the operation's document)."""

    active = fields.Boolean(metadata={"description": "true: join (or re-join) the ladder; "
                                                     "false: leave it"})
    paused = fields.Boolean(metadata={
        "description": "true: stay on the ladder but play no new fixture; false: lift your "
                       "pause (a health pause lifts itself after 2 good probes)"})

    @ma.validates_schema
    def _something(self, data: dict[str, Any], **kwargs: Any) -> None:
        if not data:
            raise ma.ValidationError("give `active` (join, leave) and/or `paused` (pause, "
                                     "resume)", "_schema")


class VoidBody(Strict):
    reason = Text(max_len=200, min_len=1, load_default="voided by an admin")


# -- answers ----------------------------------------------------------------------------------

class Ref(ma.Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True)


class OwnerOut(ma.Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    email = fields.String(allow_none=True)
    is_admin = fields.Boolean(required=True)
    created_at = fields.DateTime(required=True)


class TokenOut(ma.Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    created_at = fields.DateTime(required=True)
    last_used_at = fields.DateTime(allow_none=True)
    revoked_at = fields.DateTime(allow_none=True)


class NewTokenOut(TokenOut):
    token = fields.String(required=True, metadata={"description": "the secret, shown once"})


class OwnerCreated(ma.Schema):
    owner = fields.Nested(OwnerOut, required=True)
    token = fields.String(required=True, metadata={"description": "the secret, shown once"})


class RatingOut(ma.Schema):
    game = fields.String(required=True)
    rating = fields.Float(required=True)
    games = fields.Integer(required=True)
    last_played = fields.DateTime(allow_none=True)


class HealthOut(ma.Schema):
    at = fields.DateTime(required=True)
    ok = fields.Boolean(required=True)
    latency_ms = fields.Float(allow_none=True)
    status = fields.String(required=True)


class BotOut(ma.Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    house = fields.Boolean(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    games = fields.List(fields.String(), required=True)
    description = fields.String(required=True)
    owner = fields.Nested(Ref, allow_none=True, required=True)
    created_at = fields.DateTime(required=True)
    max_concurrency = fields.Integer(required=True)
    verified = fields.Boolean(required=True)
    ratings = fields.List(fields.Nested(RatingOut), required=True)
    health = fields.Nested(HealthOut, allow_none=True)
    mode = fields.String(required=True, metadata={
        "description": "`push` (called at its URL) or `pull` (connects out)"})
    url = fields.String(allow_none=True, metadata={"description": "owner only (none for a "
                                                                 "pull bot)"})
    verify_nonce = fields.String(allow_none=True, metadata={
        "description": "owner only: echo it as `verify` in GET / to prove the URL is yours"})


class LadderEntryOut(ma.Schema):
    game = fields.String(required=True)
    active = fields.Boolean(required=True, metadata={"description": "on the ladder (false: "
                                                                    "left it)"})
    paused = fields.Boolean(required=True)
    paused_reason = fields.String(required=True, allow_none=True, metadata={
        "description": "`owner: ...` (you), `health: ...` / `forfeits: ...` (lifted after 2 "
                       "good probes), `retired`, or an admin's"})
    paused_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "since when it has been paused (null when running, or when a pause "
                       "made before this was recorded)"})
    placement_remaining = fields.Integer(required=True, metadata={
        "description": "rated games before it is ranked (10 for a new bot, 5 for a new "
                       "version)"})
    provisional = fields.Boolean(required=True)
    joined_at = fields.DateTime(required=True)
    byes = fields.Integer(required=True)


class LadderEntryList(ma.Schema):
    items = fields.List(fields.Nested(LadderEntryOut), required=True)


class MeOut(OwnerOut):
    bots = fields.List(fields.Nested(BotOut), required=True)


class Page(ma.Schema):
    total = fields.Integer(required=True)
    page = fields.Integer(required=True)
    per_page = fields.Integer(required=True)


class BotPage(Page):
    items = fields.List(fields.Nested(BotOut), required=True)


class CheckCall(ma.Schema):
    """One kind of call over the whole check: status counts, latency, the first bad body."""

    call = fields.String(required=True)
    count = fields.Integer(required=True)
    statuses = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    p50_ms = fields.Float(allow_none=True, required=True)
    p95_ms = fields.Float(allow_none=True, required=True)
    max_ms = fields.Float(allow_none=True, required=True)
    bad_body = fields.String(allow_none=True, required=True)


class CheckKind(ma.Schema):
    """The bot's answer times for one kind of decision."""

    kind = fields.String(required=True)
    count = fields.Integer(required=True)
    p50_ms = fields.Float(required=True)
    p95_ms = fields.Float(required=True)
    max_ms = fields.Float(required=True)


class Latency(ma.Schema):
    p50 = fields.Float(allow_none=True)
    p95 = fields.Float(allow_none=True)
    n = fields.Integer(required=True)


class CheckReport(ma.Schema):
    """What a check found: per call, per decision kind, the problems, the verdict."""

    ok = fields.Boolean(required=True, metadata={"description": "the bot passed: reachable, "
                                                                "and no problem found"})
    reachable = fields.Boolean(required=True)
    calls = fields.List(fields.Nested(CheckCall), required=True)
    kinds = fields.List(fields.Nested(CheckKind), required=True)
    problems = fields.List(fields.String(), required=True)
    latency_ms = fields.Nested(Latency, required=True)


class CheckOut(ma.Schema):
    """A bot check: queued, run by a worker, polled until it is over."""

    id = fields.Integer(required=True)
    bot_id = fields.Integer(required=True)
    game = fields.String(required=True)
    state = fields.String(required=True, validate=validate.OneOf([QUEUED, RUNNING, DONE,
                                                                  FAILED]), metadata={
        "description": f"`{QUEUED}`, `{RUNNING}`, then `{DONE}` (see `report`) or `{FAILED}` "
                       f"(it could not run: see `error`). A check runs at most "
                       f"{MAX_CHECK_S:.0f} s; one whose worker stopped fails within a lease "
                       f"(a minute)"})
    bot_version = fields.Integer(allow_none=True, required=True, metadata={
        "description": "the bot's version (its URL) checked, once the check started"})
    created_at = fields.DateTime(required=True)
    started_at = fields.DateTime(allow_none=True, required=True)
    finished_at = fields.DateTime(allow_none=True, required=True)
    error = fields.String(allow_none=True, required=True, metadata={
        "description": "why a failed check could not run"})
    report = fields.Nested(CheckReport, allow_none=True, required=True, metadata={
        "description": "once done"})


class CheckPage(Page):
    items = fields.List(fields.Nested(CheckOut), required=True)


class BotRef(Ref):
    version = fields.Integer()
    house = fields.Boolean()


class SeatOut(ma.Schema):
    seat = fields.Integer(required=True)
    bot = fields.Nested(BotRef, required=True)
    owner = fields.Nested(Ref, allow_none=True, required=True)
    rank = fields.Integer(allow_none=True)
    score = fields.Float(allow_none=True)
    forfeited = fields.Boolean(allow_none=True)
    strikes = fields.Integer(allow_none=True)
    strike_reasons = fields.Dict(keys=fields.String(), values=fields.Integer())
    mean_ms = fields.Float(allow_none=True)
    p95_ms = fields.Float(allow_none=True)
    rating_before = fields.Float(allow_none=True)
    rating_after = fields.Float(allow_none=True)
    rating_change = fields.Float(allow_none=True)


class FaultOut(ma.Schema):
    step = fields.Integer(allow_none=True)
    seat = fields.Integer(required=True)
    kind = fields.String(required=True)
    reason = fields.String(required=True)
    detail = fields.String()


class ResultSeatOut(ma.Schema):
    seat = fields.Integer(required=True)
    score = fields.Float(allow_none=True)
    rank = fields.Integer(required=True)
    breakdown = fields.Dict()


class ResultOut(ma.Schema):
    winners = fields.List(fields.Integer(), required=True)
    reason = fields.String()
    rounds = fields.Integer(allow_none=True)
    seats = fields.List(fields.Nested(ResultSeatOut), required=True)
    faults = fields.List(fields.Nested(FaultOut), required=True)


class MatchBrief(ma.Schema):
    id = fields.Integer(required=True)
    game = fields.String(required=True)
    state = fields.String(required=True)
    rated = fields.Boolean(required=True)
    challenge_id = fields.Integer(allow_none=True)
    round_id = fields.Integer(allow_none=True)
    attempt = fields.Integer(required=True)
    created_at = fields.DateTime(required=True)
    started_at = fields.DateTime(allow_none=True)
    finished_at = fields.DateTime(allow_none=True)
    end_reason = fields.String(allow_none=True)
    void_reason = fields.String(allow_none=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    log_available = fields.Boolean(required=True)
    seed = fields.Integer(allow_none=True, metadata={
        "description": "public once the match and every match sharing its seed are over"})


class MatchOut(MatchBrief):
    result = fields.Nested(ResultOut, allow_none=True)
    settings = fields.Dict(allow_none=True)
    rules_version = fields.String()


class MatchPage(Page):
    items = fields.List(fields.Nested(MatchBrief), required=True)


class SeatLogLine(ma.Schema):
    step = fields.Integer(required=True)
    kind = fields.String(required=True)
    ms = fields.Float(required=True)
    log = fields.String(required=True)
    stderr = fields.List(fields.String(), metadata={
        "description": "The lines a bot the referee started wrote to stderr during this "
                       "decision (absent when none)."})


class SeatLogOut(ma.Schema):
    match_id = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    bot_id = fields.Integer(required=True)
    lines = fields.List(fields.Nested(SeatLogLine), required=True)


class Progress(ma.Schema):
    scheduled = fields.Integer(required=True)
    running = fields.Integer(required=True)
    finished = fields.Integer(required=True)
    voided = fields.Integer(required=True)


class Tally(ma.Schema):
    bot_id = fields.Integer(required=True)
    name = fields.String(allow_none=True)
    games = fields.Integer(required=True)
    points = fields.Float(required=True)
    firsts = fields.Integer(required=True)
    strikes = fields.Integer(required=True)
    forfeits = fields.Integer(required=True)
    mean_rank = fields.Float(allow_none=True)


class SoloGameOut(ma.Schema):
    match_id = fields.Integer(required=True)
    score = fields.Float(required=True)
    automa_score = fields.Float(required=True)
    margin = fields.Float(required=True, metadata={"description": "score less the Automa's"})
    outcome = fields.String(required=True, metadata={"enum": ["win", "draw", "loss"]})
    forfeited = fields.Boolean(required=True)


class SoloTally(ma.Schema):
    """A bot's record against the solo opponent (win rate: draws count half)."""

    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    draws = fields.Integer(required=True)
    losses = fields.Integer(required=True)
    forfeits = fields.Integer(required=True)
    win_rate = fields.Float(allow_none=True, required=True)
    win_interval = fields.List(fields.Float(), allow_none=True, required=True, metadata={
        "description": "Wilson 95% interval of the win rate, [low, high]"})
    mean_margin = fields.Float(allow_none=True, required=True)
    margin_interval = fields.Float(allow_none=True, required=True, metadata={
        "description": "95% half-width of the mean margin (1.96 sd / sqrt(n)); none under "
                       "two games"})


class SoloChallengeOut(SoloTally):
    automa_level = fields.Integer(required=True)
    matches = fields.List(fields.Nested(SoloGameOut), required=True)


class ChallengeOut(ma.Schema):
    id = fields.Integer(required=True)
    game = fields.String(required=True)
    owner_id = fields.Integer(required=True)
    bot_ids = fields.List(fields.Integer(), required=True)
    games = fields.Integer(required=True)
    created_at = fields.DateTime(required=True)
    status = fields.String(required=True)
    progress = fields.Nested(Progress, required=True)
    match_ids = fields.List(fields.Integer(), required=True)
    results = fields.List(fields.Nested(Tally), required=True)
    solo = fields.Nested(SoloChallengeOut, allow_none=True, required=True, metadata={
        "description": "a solo challenge's result against the Automa; null otherwise"})


class GameOut(ma.Schema):
    name = fields.String(required=True)
    seats = fields.List(fields.Integer(), required=True)
    rules_version = fields.String(required=True)
    time_control = fields.Dict(required=True)
    leaderboard = fields.String(required=True)
    solo_levels = fields.List(fields.Integer(), required=True, metadata={
        "description": "the levels of the game's Automa, one solo ladder each (`/solo-ladders/"
                       "{game}/{level}`) and the `automa_level` of a solo challenge; empty "
                       "for a game with no solo mode"})


class GamesOut(ma.Schema):
    items = fields.List(fields.Nested(GameOut), required=True)


class BoardRow(ma.Schema):
    rank = fields.Integer()
    bot = fields.Nested(BotRef, required=True)
    owner = fields.Nested(Ref, allow_none=True, required=True)
    rating = fields.Float(required=True, metadata={
        "description": "the public rating: one Bradley-Terry / Plackett-Luce fit to every rated "
                       "result of the ladder, on the Elo scale (a forfeit is a loss to every seat "
                       "that played)"})
    interval = fields.Float(allow_none=True, metadata={
        "description": "95% half-width of the public rating"})
    elo = fields.Float(required=True, metadata={
        "description": "live Elo, moved by each rated match as it finishes"})
    openskill = fields.Float(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    draws = fields.Integer(required=True)
    losses = fields.Integer(required=True)
    mean_place = fields.Float(allow_none=True)
    strikes_per_game = fields.Float(allow_none=True)
    forfeit_rate = fields.Float(allow_none=True)
    last_played = fields.String(allow_none=True)
    placement_left = fields.Integer(allow_none=True, metadata={
        "description": "placement games left on the living ladder (provisional while above "
                       "0); null for a bot not on it (provisional under 10 rated games)"})


class PausedRow(ma.Schema):
    bot = fields.Nested(Ref, required=True)
    owner = fields.Nested(Ref, allow_none=True, required=True)
    reason = fields.String(required=True)
    row = fields.Nested(BoardRow, allow_none=True, required=True,
                        metadata={"description": "its standing, if it has played rated games"})
    provisional = fields.Boolean(required=True, metadata={
        "description": "its row is provisional (placement games left): not a ranked rating"})


class LadderStatus(ma.Schema):
    paused = fields.Boolean(required=True, metadata={
        "description": "an admin paused the ladder: nothing new is scheduled on it"})
    reason = fields.String(allow_none=True, required=True)
    paused_at = fields.DateTime(allow_none=True, required=True)


class LeaderboardOut(ma.Schema):
    game = fields.String(required=True)
    items = fields.List(fields.Nested(BoardRow), required=True)
    provisional = fields.List(fields.Nested(BoardRow), required=True)
    paused = fields.List(fields.Nested(PausedRow), required=True, metadata={
        "description": "bots paused on this ladder (by their health, forfeits, an admin), "
                       "not ranked"})
    ladder = fields.Nested(LadderStatus, required=True)


class LadderOut(LadderStatus):
    game = fields.String(required=True)


class RatingPoint(ma.Schema):
    match_id = fields.Integer(required=True)
    game = fields.String(required=True)
    finished_at = fields.DateTime(allow_none=True, required=True)
    round_id = fields.Integer(allow_none=True, required=True)
    rating_before = fields.Float(required=True)
    rating_after = fields.Float(required=True)
    delta = fields.Float(required=True)
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)


class RatingPage(Page):
    items = fields.List(fields.Nested(RatingPoint), required=True)


class BotMatchBrief(MatchBrief):
    outcome = fields.String(allow_none=True, required=True, metadata={
        "description": "the bot's win, draw or loss (finished matches only)"})


class BotMatchPage(Page):
    items = fields.List(fields.Nested(BotMatchBrief), required=True)


class HeadToHeadRow(ma.Schema):
    bot = fields.Nested(Ref, required=True, metadata={"description": "the opponent"})
    played = fields.Integer(required=True)
    ahead = fields.Integer(required=True, metadata={"description": "finished ahead of it "
                                                                   "(a win, in two seats)"})
    level = fields.Integer(required=True)
    behind = fields.Integer(required=True)
    strikes_per_game = fields.Float(allow_none=True, required=True)
    last_met = fields.DateTime(allow_none=True, required=True)
    last_match = fields.Integer(allow_none=True, required=True)


class HeadToHeadPage(Page):
    game = fields.String(required=True)
    items = fields.List(fields.Nested(HeadToHeadRow), required=True)


class ExportItem(ma.Schema):
    id = fields.Integer(required=True)
    game = fields.String(required=True)
    rules_version = fields.String(required=True)
    rated = fields.Boolean(required=True)
    round_id = fields.Integer(allow_none=True, required=True)
    challenge_id = fields.Integer(allow_none=True, required=True)
    finished_at = fields.DateTime(allow_none=True, required=True)
    end_reason = fields.String(allow_none=True, required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    log_url = fields.String(required=True)
    log_sha256 = fields.String(allow_none=True, required=True)
    log_bytes = fields.Integer(allow_none=True, required=True)


class ExportOut(ma.Schema):
    items = fields.List(fields.Nested(ExportItem), required=True)
    next_after_id = fields.Integer(required=True, metadata={
        "description": "pass it as `after_id` for the next page"})
    more = fields.Boolean(required=True, metadata={
        "description": "more finished matches are ready now"})
    waiting_on = fields.Integer(allow_none=True, required=True, metadata={
        "description": "the first match not over yet (or whose log is withheld): the export "
                       "stops before it so that no match is ever skipped"})


class AlertOut(ma.Schema):
    id = fields.Integer(required=True)
    at = fields.DateTime(required=True)
    kind = fields.String(required=True, metadata={"description": "`paused` or `resumed`"})
    reason = fields.String(required=True)
    detail = fields.String(required=True)
    games = fields.List(fields.String(), required=True)
    bot = fields.Nested(Ref, required=True)


class AlertPage(Page):
    items = fields.List(fields.Nested(AlertOut), required=True)


class VoidOut(ma.Schema):
    id = fields.Integer(required=True)
    game = fields.String(required=True)
    was = fields.String(required=True)
    state = fields.String(required=True)
    reason = fields.String(required=True)
    ratings_recomputed = fields.Boolean(required=True)
    matches_refolded = fields.Integer(required=True)


class RecomputeOut(ma.Schema):
    game = fields.String(required=True)
    matches = fields.Integer(required=True, metadata={"description": "rated matches folded"})


class QueueOut(ma.Schema):
    scheduled = fields.Integer(required=True)
    running = fields.Integer(required=True)
    oldest_scheduled_s = fields.Float(allow_none=True)
    incidents_1h = fields.Integer(required=True, metadata={
        "description": "failures of the referee's own in the last hour (GET /admin/incidents)"})


class HealthzOut(ma.Schema):
    ok = fields.Boolean(required=True)
    mode = fields.String(required=True)
    checks = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                         metadata={"description": "each dependency: database, broker "
                                   "(Celery mode), ratelimit: ok, unreachable (or off)"})
    queue = fields.Nested(QueueOut, required=True, allow_none=True)


class IncidentOut(ma.Schema):
    """A failure of the referee's own (never a bot's), for the operator."""

    id = fields.Integer(required=True)
    at = fields.DateTime(required=True)
    match_id = fields.Integer(allow_none=True, required=True)
    attempt = fields.Integer(required=True)
    outcome = fields.String(required=True, metadata={
        "description": "retried (the match got its next attempt), voided (it was the last), "
                       "superseded, or relay_down: a web process could not reach the relay "
                       "for the pull bot `bot_id` (a match that struck it meanwhile is played "
                       "again)"})
    error = fields.String(required=True)
    detail = fields.String(required=True, metadata={"description": "the traceback"})
    worker = fields.String(required=True)
    bot_id = fields.Integer(allow_none=True, required=True)


class IncidentPage(Page):
    items = fields.List(fields.Nested(IncidentOut), required=True)


# -- pull bots (the bot's connection) ---------------------------------------------------------

POLL_WAIT_MAX_S = 30
"""The longest a poll waits for a request: within gunicorn's default 30 s worker timeout
(a poll asks for at most this and answers a little before it) and any proxy's idle timeout."""


class PollArgs(Strict):
    wait = fields.Integer(strict=False, load_default=25,
                          validate=validate.Range(0, POLL_WAIT_MAX_S), metadata={
                              "description": "seconds to wait for a request when none is "
                                             f"queued (0 to {POLL_WAIT_MAX_S}; default 25)"})
    resume = fields.Boolean(load_default=False, metadata={
        "description": "true on a connection's first poll (the bot started, or reconnected "
                       "after losing the service): first, every request handed over before "
                       "and not yet answered is handed again, its deadline the time left; "
                       "never on the polls a bot makes while it computes"})


class PulledRequestOut(ma.Schema):
    request_id = fields.String(required=True, metadata={
        "description": "answer it at POST /bots/{id}/requests/{request_id}"})
    path = fields.String(required=True, validate=validate.OneOf(["/start", "/decide", "/end"]),
                         metadata={"description": "where an HTTP bot is sent this document"})
    deadline_ms = fields.Integer(required=True, metadata={
        "description": "the bot's time to answer, from the moment this poll handed it over "
                       "(handed again to a resumed connection: the time left)"})
    resent = fields.Boolean(metadata={
        "description": "present, true, when the request is handed again to a resumed "
                       "connection (its clock started at the first hand-over)"})
    body = fields.Raw(required=True, metadata={
        "description": "the document, exactly as an HTTP bot receives it at `path` (schemas: "
                       "start.json, decide.json, end.json)"})


class PollOut(ma.Schema):
    requests = fields.List(fields.Nested(PulledRequestOut), required=True, metadata={
        "description": "requests handed to this connection (their clocks are running); "
                       "empty when none came within `wait`"})


class AnswerOut(ma.Schema):
    status = fields.String(required=True, metadata={
        "description": "`accepted`: the match reads it, as it reads an HTTP bot's answer (a "
                       "malformed one, or an id not offered, is a strike there); `duplicate`: "
                       "the request was answered already, the first answer stands, this one is "
                       "dropped, no strike"})
    ms = fields.Float(required=True, metadata={
        "description": "the bot's time: from the hand-off to this answer (a "
                       "`duplicate`: to the first answer)"})

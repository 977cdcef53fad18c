"""How likely each Doubletrack seat is to win from a position: the search's leaf value.

A seat's *strength* is a weighted sum of features read from that seat's own view, so that its
own hand counts and nobody's hidden cards do; the chance of winning is the softmax of the
strengths over the seats (a conditional logit). The weights are data, in
``doubletrack_value.json`` beside this module, fitted by ``bench/fit_doubletrack_value.py`` to
greedy self-play: positions at the start of a turn labelled by who went on to win, plus copies
changed at random (money, a small pawn, a hand card) labelled by play from the changed
position. Without the changed copies the fit learns what money *goes with* (the seat paid for
a lead auction is the one behind) rather than what it is worth, and a search spends it all.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

KNOTS = 12
"""Progress is piecewise linear between 13 knots, 0/12 .. 12/12 of the way HOME: a circle is
worth little at mid-track (Trade Places, Take The Lead and the lead auction undo a lead) and
much near HOME."""
MAX_SEATS = 4
CARD_KINDS = ("take_the_lead", "trade_places", "back_10", "go_farthest_back",
              "steal_a_gate_pass", "worthless")
FEATURES: tuple[str, ...] = (
    *(f"progress_{k}" for k in range(KNOTS + 1)),
    "money", "money_x_progress", "money_x_top",
    "gates", "gates_x_progress",
    *(f"turns_to_wait_{k}" for k in range(MAX_SEATS)),
    "numbers_in_hand", *CARD_KINDS,
    "take_the_lead_x_gap", "trade_places_x_gap", "back_10_x_room", "go_farthest_back_x_room",
    "gap", "margin",
)
"""Money is a share of the table's average (money never enters or leaves the table, so this is
the starting money: a board dealing $1,000 each values it as the default's $125 does); ``top``
is the furthest pawn's progress (money decides the lead auction when a pawn is near HOME);
``turns_to_wait_k`` is 1 for the seat whose turn begins in k turns;
``numbers_in_hand`` is the sum of the Number cards held, per 10; ``gap`` is how far behind the
furthest other pawn and ``margin`` how far ahead of it, as shares of the track; a Back 10's
``room`` is how much of the 10 circles the pawn would really lose, a Go Farthest Back's how
far ahead of the last pawn it stands."""


def features(view: Mapping[str, Any]) -> list[float]:
    """The strength features of the seat whose view this is, in :data:`FEATURES` order."""
    seat, seats, home = view["seat"], view["seats"], view["inner"]["home"]
    mine = seats[seat]["small"]
    others = [s["small"] for s in seats if s["seat"] != seat]
    progress = min(max(mine, 0), home) / home
    top = max(mine, *others) / home
    at = progress * KNOTS
    knot = min(int(at), KNOTS - 1)
    curve = [0.0] * (KNOTS + 1)
    curve[knot], curve[knot + 1] = knot + 1 - at, at - knot
    money = seats[seat]["money"] * len(seats) / (sum(s["money"] for s in seats) or 1)
    gates = len(seats[seat]["gates"])
    wait = [0.0] * MAX_SEATS
    wait[(seat - view["active"]) % len(seats)] = 1.0
    counts = dict.fromkeys(CARD_KINDS, 0)
    numbers = 0
    for card in view["hand"]:
        if card.startswith("number-"):
            numbers += int(card[7:])
        elif card in counts:
            counts[card] += 1
    gap = max(0, max(others) - mine) / home
    margin = max(0, mine - max(others)) / home
    return [
        *curve, money, money * progress, money * top, gates, gates * progress, *wait,
        numbers / 10, *(counts[c] for c in CARD_KINDS),
        counts["take_the_lead"] * gap, counts["trade_places"] * gap,
        counts["back_10"] * min(mine, 10) / 10,
        counts["go_farthest_back"] * max(0, mine - min(others)) / home,
        gap, margin,
    ]


@lru_cache(maxsize=None)
def weights(num_players: int) -> tuple[float, ...]:
    """The fitted weights, in :data:`FEATURES` order, for a table of ``num_players`` (the
    nearest fitted size otherwise)."""
    models = _fitted()
    model = models[min(models, key=lambda n: abs(int(n) - num_players))]
    return tuple(model["weights"][name] for name in FEATURES)


@lru_cache(maxsize=None)
def _fitted() -> dict[str, Any]:
    text = resources.files("bots").joinpath("doubletrack_value.json").read_text()
    models: dict[str, Any] = json.loads(text)["seats"]
    for model in models.values():
        if set(model["weights"]) != set(FEATURES):
            raise ValueError("doubletrack_value.json was fitted to other features: "
                             "run bench/fit_doubletrack_value.py")
    return models


def win_chances(views: Sequence[Mapping[str, Any]]) -> list[float]:
    """Each seat's chance of winning, from every seat's own view of one position (seat order)."""
    w = weights(len(views))
    strengths = [sum(map(operator.mul, w, features(v))) for v in views]
    top = max(strengths)
    odds = [math.exp(s - top) for s in strengths]
    total = sum(odds)
    return [o / total for o in odds]

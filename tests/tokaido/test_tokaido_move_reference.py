"""The move question checked against a plain re-reading of the rules page, in random games.

Every ``move`` decision of a few random games (two seats and solo) is recomputed here from the
rules page alone, written as naively as possible from the raw board data, and compared with the
engine's option ids. This catches a rule the engine's precomputed tables or shortcuts get wrong
in positions no hand-written scenario thought of.
"""

from __future__ import annotations

import random

import pytest

from referee.games.tokaido_duo import GAME
from referee.games.tokaido_duo.state import TokaidoState

from tokaido_position import BOARD, decision, pick

DATA = BOARD.data
RING = DATA["ring"]
ZONES = DATA["zones"]
LIMITS = DATA["limits"]


def _holds(s: TokaidoState, seat: int, char: int) -> str | None:
    return s.wave_side[char] if s.wave_holder[char] == seat else None


def _occupied(s: TokaidoState) -> set[int]:
    """Ring spaces with a pilgrim, or a merchant on a coastal town (a coastal town's name)."""
    occ = set(s.pilgrims)
    for m in s.merchants:
        name = BOARD.towns[m]
        if name in RING:
            occ.add(RING.index(name))
    return occ


def _pilgrim(s: TokaidoState, seat: int, v: int) -> set[str]:
    side = _holds(s, seat, 0)
    steps = [v] + ([v + 1] if side == "hasty" else []) + (
        [v - 1] if side == "tranquil" and v > 1 else [])
    occ = _occupied(s) - {s.pilgrims[seat]}
    out = set()
    for n in steps:
        t = (s.pilgrims[seat] + n) % len(RING)
        while t in occ:
            t = (t + 1) % len(RING)
        kind = RING[t]
        if kind == "T":
            can = s.temple[seat] < LIMITS["temple_end"]
        elif kind == "G":
            can = s.garden[seat] < LIMITS["garden_end"]
        elif kind == "H":
            can = s.spring_holder != seat
        elif kind == "S":
            can = s.wave_holder.count(seat) < 3
        else:
            can = True
        out |= {f"move:{t}:effect", f"move:{t}:decline"} if can else {f"move:{t}"}
    return out


def _paths(adj: dict[str, list[str]], start: str, n: int) -> list[list[str]]:
    paths = [[start]]
    for _ in range(n):
        paths = [p + [x] for p in paths for x in adj[p[-1]] if x not in p]
    return paths


def _merchant(s: TokaidoState, seat: int, v: int) -> set[str]:
    adj: dict[str, list[str]] = {}
    for a, b in DATA["routes"]:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    occ = _occupied(s)
    bag = sum(s.bag)
    side = _holds(s, seat, 1)
    out = set()
    for town in {p[-1] for p in _paths(adj, BOARD.towns[s.merchants[seat]], v)}:
        if town in DATA["mountain_towns"]:
            value = DATA["mountain_towns"][town]
            if not bag:
                out.add(f"move:{town}")
                continue
            out |= {f"move:{town}:nothing", f"move:{town}:draw"}
            if side == "robust" and bag > value:
                out.add(f"move:{town}:draw+1")
            continue
        if RING.index(town) in occ:
            continue
        ware = BOARD.wares[BOARD.boutiques[s.boutiques[BOARD.towns.index(town)]][0]]
        held = s.wares[seat][BOARD.wares.index(ware)]
        if not held:
            out.add(f"move:{town}")
            continue
        out.add(f"move:{town}:nothing")
        for k in range(1, held + 1):
            out.add(f"move:{town}:sell:{k}")
            if side == "crafty":
                out.add(f"move:{town}:sell:{k}:crafty")
    return out


def _meeples(s: TokaidoState, seat: int, zone: str) -> int:
    z = ZONES[zone]
    n = sum(p in z["ring"] for p in s.pilgrims)
    for m in s.merchants:
        name = BOARD.towns[m]
        n += (RING.index(name) in z["ring"]) if name in RING else (name in z["towns"])
    return n + (BOARD.zones[s.artists[1 - seat]] == zone)


def _artist(s: TokaidoState, seat: int, v: int) -> set[str]:
    adj = {z: spec["adj"] for z, spec in ZONES.items()}
    side = _holds(s, seat, 2)
    down = LIMITS["paintings"] - s.revealed[seat]
    gift = BOARD.icons[s.tiles[seat][s.gifts[seat]]] if s.revealed[seat] > s.gifts[seat] else None
    by_dest: dict[str, list[list[str]]] = {}
    for p in _paths(adj, BOARD.zones[s.artists[seat]], v):
        by_dest.setdefault(p[-1], []).append(p)
    out = set()
    for dest, paths in by_dest.items():
        opts = set()
        n = min(_meeples(s, seat, dest), down)
        if n:
            opts.add(f"move:{dest}:paint")
        if side == "proficient" and min(n + 1, down) > n:
            opts.add(f"move:{dest}:paint+1")
        icons = {ZONES[z]["icon"] for p in paths for z in p} if side == "inspired" else set()
        if gift is not None and (ZONES[dest]["icon"] == gift or gift in icons):
            opts.add(f"move:{dest}:gift")
        out |= opts | {f"move:{dest}:nothing"} if opts else {f"move:{dest}"}
    return out


REFERENCE = (_pilgrim, _merchant, _artist)


@pytest.mark.parametrize("seed,level", [(1, None), (2, None), (3, None), (4, 2), (5, 5)])
def test_every_move_question_matches_the_rules_page(seed: int, level: int | None) -> None:
    """Decisions 2: "one option per distinct outcome, each naming the destination ...
    combined with the effect"; compared option for option with the reference above."""
    rng = random.Random(seed)
    s = GAME.new_state(1 if level else 2, seed, BOARD, {"automa": level} if level else None)
    checked = 0
    while s.pending():
        d = decision(s)
        if d.kind == "move":
            want = REFERENCE[s.character](s, s.actor, s.value)
            assert {o.id for o in d.options} == want, (s.round, s.character, s.value)
            assert len(d.options) > 1 and len(want) == len(d.options)
            checked += 1
        pick(s, rng.choice(d.options).id)
    assert checked > 10


"""Tokaido Duo for spectators: seat colours, board facts for drawing, events in plain words.

Every event type of the engine (``docs/games/tokaido-duo.md``, Events) has a sentence here. All
six decision kinds are public: a spectator sees every choice as it is made. What stays hidden
is the icon of each face-down painting, and the game never turns those over, not even at the
end, so no frame shows one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.frames.kits import Event, Facts, Seats, Section, SpectatorKit, Words, label
from referee.games.tokaido_duo.automa import AutomaTracks
from referee.games.tokaido_duo.board import CHARACTERS, SPACE_KINDS, Board

COLOURS = ("purple", "green")
"""Seat 0 is purple, seat 1 green (rules page, Components); in solo play the Automa is purple
and the human green."""



# -- board facts ---------------------------------------------------------------------------------

def board_facts(board: Board, level: int | None) -> dict[str, Any]:
    """The validated board as the viewer draws it: every position by name, in ring order."""
    towns = board.towns
    return {
        "version": board.version,
        "ring": [_space(board, i) for i in range(len(board.ring))],
        "towns": [{"name": t, "coastal": i < 8, "ring": board.town_ring[i] if i < 8 else None,
                   "value": board.town_value[i] if i >= 8 else None}
                  for i, t in enumerate(towns)],
        "routes": [[towns[u], towns[v]] for u, v in board.route_pairs],
        "zones": [_zone(board, z) for z in range(len(board.zones))],
        "icons": list(board.icons),
        "wares": [{"name": w, "count": n} for w, n in zip(board.wares, board.ware_counts)],
        "limits": dict(board.limits),
        "dice": {c: list(f) for c, f in zip(CHARACTERS, board.dice)},
        "waves": {c: list(s) for c, s in zip(CHARACTERS, board.waves)},
        "scoring": {"merchant_by_slabs": list(board.merchant_score),
                    "artist_by_gifts": list(board.artist_score)},
        "automa": _automa(board, level) if level else None,
    }


def _space(board: Board, i: int) -> dict[str, Any]:
    kind = board.ring[i]
    if kind == "C":
        return {"index": i, "kind": "coastal", "town": board.towns[board.ring_town[i]]}
    return {"index": i, "kind": SPACE_KINDS[kind], "town": None}


def _zone(board: Board, z: int) -> dict[str, Any]:
    """A zone with its ring spaces as one clockwise arc and the routes closing it (the tree path
    between the coastal towns at the arc's ends), so the viewer can draw it as a region."""
    arc = _arc(sorted(board.zone_ring[z]), len(board.ring))
    ends = [board.ring_town[arc[-1]], board.ring_town[arc[0]]]
    path = _tree_path(board, ends[0], ends[1]) if min(ends) >= 0 else []
    return {"name": board.zones[z], "icon": board.icons[board.zone_icon[z]], "arc": arc,
            "border": [board.towns[t] for t in path],
            "towns": sorted(board.towns[t] for t in board.zone_towns[z]),
            "adj": [board.zones[o] for o in board.zone_adj[z]]}


def _arc(spaces: list[int], size: int) -> list[int]:
    """Ring spaces in clockwise order starting after the widest gap (an arc may wrap past 0)."""
    if len(spaces) < 2:
        return spaces
    gaps = [((spaces[(k + 1) % len(spaces)] - s) % size, k) for k, s in enumerate(spaces)]
    _, widest = max(gaps)
    start = (widest + 1) % len(spaces)
    return spaces[start:] + spaces[:start]


def _tree_path(board: Board, src: int, dst: int) -> list[int]:
    """Towns from ``src`` to ``dst`` along the routes (a tree: the path is unique)."""
    before = {src: src}
    todo = [src]
    while todo:
        here = todo.pop()
        for nxt in board.town_adj[here]:
            if nxt not in before:
                before[nxt] = here
                todo.append(nxt)
    if dst not in before:
        return []
    path = [dst]
    while path[-1] != src:
        path.append(before[path[-1]])
    return path[::-1]


def _automa(board: Board, level: int) -> dict[str, Any]:
    """The Automa's track at this level: its numbers are the data's, scaled as the engine does."""
    tracks = AutomaTracks(board, level)
    a = board.automa
    return {"level": level, "ranks": [tracks.scaled(r) for r in tracks.ranks],
            "final": tracks.scaled(tracks.final), "wave_spaces": list(tracks.wave_spaces),
            "coin_zones": sorted(board.zones[z] for z in a["coin_zones"]),
            "painting_town": board.towns[a["painting_town"]],
            "numbers": "placeholder"}


# -- events in words -----------------------------------------------------------------------------


def _space_name(board: Mapping[str, Any], index: Any) -> str:
    ring = board.get("ring") or []
    if isinstance(index, int) and 0 <= index < len(ring):
        space = ring[index]
        return f"{index} ({space['town'] or space['kind'].replace('_', ' ')})"
    return str(index)


def _round(e: Event, seats: Seats, b: Facts) -> str:
    dice = ", ".join(f"{c} {v}" for c, v in e["dice"].items())
    order = f"; the Automa's tie order {' > '.join(e['die_order'])}" if e.get("die_order") else ""
    return (f"Round {e['round']}: {label(seats, e['first_player'])} chooses first; "
            f"dice {dice}{order}")


def _move(e: Event, seats: Seats, b: Facts) -> str:
    who, char = label(seats, e["seat"]), e["character"]
    if char == "pilgrim":
        return (f"{who}'s pilgrim moves from {_space_name(b, e['from'])} "
                f"to {_space_name(b, e['to'])}")
    return f"{who}'s {char} moves from {e['from']} to {e['to']}"


def _spring(e: Event, seats: Seats, b: Facts) -> str:
    source = "the board" if e.get("from_seat") is None else label(seats, e["from_seat"])
    return f"{label(seats, e['seat'])} takes the hot spring token from {source}"


def _wave(e: Event, seats: Seats, b: Facts) -> str:
    source = "the board" if e.get("from_seat") is None else label(seats, e["from_seat"])
    return (f"{label(seats, e['seat'])} takes the {e['tile']} wave tile ({e['side']}) "
            f"from {source}")


def _wares(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "nothing"


def _w(text: str) -> Words:
    """A sentence with ``{who}`` for the event's seat and the event's fields by name."""
    def words(e: Event, seats: Seats, b: Facts) -> str:
        fields = {k: (_wares(v) if isinstance(v, list) else v) for k, v in e.items()}
        return text.format(who=label(seats, e.get("seat")), **fields)
    return words


_WORDS: dict[str, Words] = {
    "round": _round,
    "die": _w("{who} takes the {die} die ({value})"),
    "no_move": _w("{who}'s {character} cannot move exactly {value}: the die is spent"),
    "spring_used": _w("{who} spends the hot spring token: the {character} moves {value} again"),
    "move": _move,
    "track": _w("{who}'s {track} marker rises to {value}"),
    "spring": _spring,
    "wave": _wave,
    "return": _w("{who} loses Robust with six wares and returns a {ware} to the bag"),
    "sell": _w("{who} sells {count} {ware} for {coins} coins"),
    "draw": _w("{who} draws {wares}"),
    "returned": _w("{who} is over the ware limit and returns {wares} to the bag"),
    "coins": _w("{who} gains {amount} coins ({source})"),
    "slab": _w("{who} turns 10 coins into a gold slab ({slabs} in all)"),
    "paint": _w("{who} paints, revealing {icons}"),
    "gift": _w("{who} gifts a {icon} painting ({gifts} gifted)"),
    "trigger": _w("End triggered: {reason}; the round is played out"),
    "end": _w("Game over: {reason}"),
    "automa_rank": _w("The Automa's {character} rank token moves to space {position} "
                      "(rank {rank})"),
}


# -- the no-JavaScript summary ---------------------------------------------------------------------

def summary(view: Mapping[str, Any], seats: Sequence[Mapping[str, Any]],
            board: Mapping[str, Any]) -> list[Section]:
    table = [
        f"Round {view['round']}, "
        + ("game over" if view["over"] else
           f"{label(seats, view['to_act'])} to act ({view['phase'].replace('_', ' ')})"),
        "Dice: " + ", ".join(
            f"{d['die']} {d['value']}" + (f" (taken by {label(seats, d['used_by'])})"
                                          if d["used_by"] is not None else "")
            for d in view["dice"]),
        "Hot spring token: " + ("on the board" if view["hot_spring"] is None
                                else label(seats, view["hot_spring"])),
        "Wave tiles: " + ", ".join(
            f"{c} {w['side']} ({'board' if w['holder'] is None else label(seats, w['holder'])})"
            for c, w in view["waves"].items()),
        "Bag: " + ", ".join(f"{w} {n}" for w, n in view["bag"].items()),
    ]
    if view["end_triggers"]:
        table.append("End triggered: " + "; ".join(view["end_triggers"]))
    out: list[Section] = [("Table", table)]
    for p in view["players"]:
        out.append((f"{label(seats, p['seat'])} ({seats[p['seat']]['name']})", _player(p)))
    if view.get("automa"):
        a = view["automa"]
        out.append((f"The Automa, level {a['level']} (placeholder numbers)", [
            f"{c}: space {t['position']} of {t['length']}, rank {t['rank']}"
            + ("" if t["wave_at"] is None else f", wave tile at {t['wave_at']}")
            for c, t in a["tracks"].items()]))
    return out


def _player(p: Mapping[str, Any]) -> list[str]:
    lines = [f"Pilgrim on {p['pilgrim']} ({p['pilgrim_space'].replace('_', ' ')}), "
             f"merchant in {p['merchant']}, artist in {p['artist']}"]
    if not p["automa"]:
        painted = [s["icon"] for s in p["paintings"] if s["state"] == "revealed"]
        lines += [
            f"Temple {p['temple']}, garden {p['garden']}; {p['coins']} coins, "
            f"{p['slabs']} gold slabs",
            "Wares: " + (", ".join(f"{w} {n}" for w, n in p["wares"].items() if n) or "none")
            + f" (limit {p['ware_cap']})",
            f"Paintings: {p['gifts']} gifted, revealed {', '.join(painted) or 'none'}, "
            f"{p['face_down']} face down",
        ]
    if p["waves"]:
        lines.append("Wave tiles: " + ", ".join(p["waves"]))
    score = p["score"]
    lines.append("Score " + " + ".join(f"{k} {v}" for k, v in score.items())
                 + f" = {sum(score.values())}")
    return lines


class TokaidoKit(SpectatorKit):
    words = _WORDS
    turn_name = "round"

    def seats(self, log: Mapping[str, Any], view: Mapping[str, Any]) -> list[dict[str, Any]]:
        solo = view.get("num_players") == 1
        out = []
        for p in view["players"]:
            seat = p["seat"]
            engine = bool(p.get("automa"))
            colour = p.get("colour") or (COLOURS[1 - seat] if solo else COLOURS[seat])
            name = "Automa" if engine else log["players"][seat]["name"]
            out.append({"seat": seat, "name": name, "engine": engine, "colour": colour,
                        "label": "the Automa" if engine else f"seat {seat}"})
        return out

    def board_facts(self, board: Board, options: Mapping[str, Any]) -> dict[str, Any]:
        return board_facts(board, options.get("automa"))

    def turn(self, view: Mapping[str, Any]) -> int | None:
        return int(view["round"])

    def summary(self, frame: Mapping[str, Any], doc: Mapping[str, Any]) -> list[Section]:
        return summary(frame["view"], doc["match"]["seats"], doc["board"])


KIT = TokaidoKit()

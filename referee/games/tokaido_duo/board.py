"""Tokaido Duo board data: loading, validation and the tables precomputed from it.

The board (ring, routes, zones, dice, tiles, score tables, Automa numbers) is data, read from a
YAML file shipped with the package or from another file (``--board FILE``).  Validation checks
every invariant the rules rely on and raises :class:`BoardError` naming the first problem.  The
:class:`Board` also precomputes what the engine's hot path needs (merchant destinations by route
count, artist destinations by zone count with the icons met on the way), so that ``pending`` and
``apply`` only look things up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core import BoardError

CHARACTERS = ("pilgrim", "merchant", "artist")
COLOURS = ("purple", "green")
"""The two colours, in the order the board data lists their painting sets. In a two-seat game
seat 0 is purple (compass side, starts round 1); in solo play the Automa (seat 1) is purple and
the human green (seed 002: 「オートマは紫を担当し」)."""
WAVE_SIDES = {"pilgrim": {"hasty", "tranquil"}, "artist": {"proficient", "inspired"},
              "merchant": {"crafty", "robust"}}
SPACE_KINDS = {"T": "temple", "G": "garden", "S": "seashore", "H": "hot_spring"}
RING_SIZE = 37
COASTAL = tuple(f"C{i}" for i in range(1, 9))
LIMIT_KEYS = ("wares", "wares_robust", "coins_per_slab", "slabs", "temple_end", "garden_end",
              "paintings")
TOTAL_WARES = 26
LEVELS = range(1, 7)
AUTOMA_NUMBERS = "placeholder"
"""How views and results label the Automa's numbers (ranks, level factors): the printed cards are
not public, so the board data holds placeholders."""
ArtistDest = tuple[int, int, tuple[int, ...], tuple[tuple[int, ...] | None, ...]]
"""An artist destination: zone, icon mask over its paths, one path, a path per icon."""


def _fail(msg: str) -> BoardError:
    return BoardError(msg)


def _need(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str = "") -> Any:
    """``data[key]`` of the given type, else a BoardError naming the key."""
    name = f"{where}.{key}" if where else key
    if not isinstance(data, Mapping) or key not in data:
        raise _fail(f"{name}: missing")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _fail(f"{name}: expected {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def _int(value: Any, where: str, lo: int = 0, hi: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < lo or (
            hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise _fail(f"{where}: expected an integer {bound}, got {value!r}")
    return value


class Board:
    """A validated board. ``data`` is the raw mapping (JSON-able), ``version`` its name.

    Towns are numbered coastal first (``C1..C8`` -> 0..7), then mountain towns in file order;
    zones and icons in file / sorted order. Everything below ``data`` is derived.
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data: dict[str, Any] = json.loads(json.dumps(data))  # a JSON-clean private copy
        self.version: str = str(_need(self.data, "version", (str, int, float)))
        self.option_cache: dict[tuple[Any, ...], Any] = {}
        """The public Option of each option key (options are immutable, so shareable)."""
        self.keep_cache: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
        """The keep-wares option keys of each (wares to choose from, cap)."""
        self.decision_cache: dict[tuple[Any, ...], Any] = {}
        """Per tuple of option keys: the options, their id -> index map, and the pending
        Decision of each seat; the same question is handed out as the same immutable objects
        (see ``state.TokaidoState.pending``)."""
        self.move_tables: Any = None
        """The move queries' lookup tables (``moves.MoveTables``), built from the derived
        tables below on first use."""
        _validate(self)

    # the derived tables are set by _validate and the _build_* helpers below
    dice: tuple[tuple[int, ...], ...]
    ring: tuple[str, ...]
    ring_town: tuple[int, ...]
    towns: tuple[str, ...]
    town_ring: tuple[int, ...]
    town_value: tuple[int, ...]
    town_adj: tuple[tuple[int, ...], ...]
    route_pairs: tuple[tuple[int, ...], ...]
    merchant_dest: tuple[tuple[tuple[int, ...], ...], ...]
    zones: tuple[str, ...]
    zone_icon: tuple[int, ...]
    zone_ring: tuple[frozenset[int], ...]
    zone_towns: tuple[frozenset[int], ...]
    zone_adj: tuple[tuple[int, ...], ...]
    artist_dest: tuple[tuple[tuple[ArtistDest, ...], ...], ...]
    icons: tuple[str, ...]
    wares: tuple[str, ...]
    ware_counts: tuple[int, ...]
    boutiques: tuple[tuple[int, int], ...]
    paintings: tuple[tuple[int, ...], ...]
    start: tuple[tuple[int, int, int], ...]
    merchant_score: tuple[int, ...]
    artist_score: tuple[int, ...]
    limits: dict[str, int]
    waves: tuple[tuple[str, str], ...]
    automa: dict[str, Any]

    def town_index(self, name: str) -> int:
        return self.towns.index(name)

    def zone_index(self, name: str) -> int:
        return self.zones.index(name)


def _validate(b: Board) -> None:
    d = b.data
    _check_dice(b, d)
    _check_ring(b, d)
    _check_towns_routes(b, d)
    _check_paintings(b, d)
    _check_zones(b, d)
    _check_wares(b, d)
    _check_limits_scoring(b, d)
    _check_waves(b, d)
    _check_start(b, d)
    _check_automa(b, d)
    _build_paths(b)


def _check_dice(b: Board, d: Mapping[str, Any]) -> None:
    dice = _need(d, "dice", Mapping)
    faces = []
    for c in CHARACTERS:
        f = _need(dice, c, list, "dice")
        if not f:
            raise _fail(f"dice.{c}: no faces")
        faces.append(tuple(_int(v, f"dice.{c}", 1, 12) for v in f))
    extra = set(dice) - set(CHARACTERS)
    if extra:
        raise _fail(f"dice: unknown dice {sorted(extra)}")
    b.dice = tuple(faces)


def _check_ring(b: Board, d: Mapping[str, Any]) -> None:
    ring = _need(d, "ring", list)
    if len(ring) != RING_SIZE:
        raise _fail(f"ring: expected {RING_SIZE} spaces, got {len(ring)}")
    kinds, town_of = [], []
    for i, s in enumerate(ring):
        if s in SPACE_KINDS:
            kinds.append(s)
            town_of.append(-1)
        elif s in COASTAL:
            kinds.append("C")
            town_of.append(COASTAL.index(s))
        else:
            raise _fail(f"ring[{i}]: unknown space {s!r} (expected T, G, S, H or C1..C8)")
    for c in COASTAL:
        n = ring.count(c)
        if n != 1:
            raise _fail(f"ring: coastal town {c} appears {n} times, expected exactly once")
    b.ring, b.ring_town = tuple(kinds), tuple(town_of)


def _check_towns_routes(b: Board, d: Mapping[str, Any]) -> None:
    mt = _need(d, "mountain_towns", Mapping)
    if len(mt) != 4:
        raise _fail(f"mountain_towns: expected 4 towns, got {len(mt)}")
    for name, v in mt.items():
        if name in COASTAL or not isinstance(name, str):
            raise _fail(f"mountain_towns: bad town name {name!r}")
        _int(v, f"mountain_towns.{name}", 2, 4)
    b.towns = COASTAL + tuple(mt)
    b.town_value = (0,) * 8 + tuple(mt.values())
    b.town_ring = tuple(b.ring_town.index(i) for i in range(8))
    _check_routes(b, _need(d, "routes", list))


def _check_routes(b: Board, routes: list[Any]) -> None:
    n = len(b.towns)
    adj: list[set[int]] = [set() for _ in range(n)]
    for r in routes:
        if not isinstance(r, list) or len(r) != 2 or any(t not in b.towns for t in r):
            raise _fail(f"routes: bad route {r!r} (expected two known towns)")
        u, v = (b.towns.index(t) for t in r)
        if u == v or v in adj[u]:
            raise _fail(f"routes: route {r!r} is a loop or a duplicate")
        adj[u].add(v)
        adj[v].add(u)
    if len(routes) != n - 1:
        raise _fail(f"routes: a tree over {n} towns needs {n - 1} routes, got {len(routes)}")
    seen, todo = {8}, [8]  # from a mountain town: the message names the cut-off part
    while todo:
        for v in adj[todo.pop()] - seen:
            seen.add(v)
            todo.append(v)
    if len(seen) != n:
        missing = sorted(b.towns[i] for i in set(range(n)) - seen)
        raise _fail(f"routes: not connected, unreachable towns {missing}")
    for i in range(8):
        if len(adj[i]) != 1:
            raise _fail(f"routes: coastal town {b.towns[i]} must be a leaf, has {len(adj[i])} routes")
    b.town_adj = tuple(tuple(sorted(a)) for a in adj)
    b.route_pairs = tuple(tuple(sorted(b.towns.index(t) for t in r)) for r in routes)


def _check_paintings(b: Board, d: Mapping[str, Any]) -> None:
    ps = _need(d, "paintings", list)
    if len(ps) != len(COLOURS):
        raise _fail(f"paintings: expected one set per colour ({', '.join(COLOURS)}), "
                    f"got {len(ps)}")
    icons = sorted({k for p in ps if isinstance(p, Mapping) for k in p})
    b.icons = tuple(icons)
    sets = []
    for seat, p in enumerate(ps):
        if not isinstance(p, Mapping):
            raise _fail(f"paintings[{seat}]: expected a mapping icon -> count")
        tiles: list[int] = []
        for icon, cnt in p.items():
            tiles += [icons.index(icon)] * _int(cnt, f"paintings[{seat}].{icon}", 1)
        sets.append(tuple(tiles))
    b.paintings = tuple(sets)


def _check_zones(b: Board, d: Mapping[str, Any]) -> None:
    zones = _need(d, "zones", Mapping)
    if len(zones) != 8:
        raise _fail(f"zones: expected 8 zones, got {len(zones)}")
    b.zones = tuple(zones)
    icon, ring, towns, adj = [], [], [], []
    for z, spec in zones.items():
        ic = _need(spec, "icon", str, f"zones.{z}")
        if ic not in b.icons:
            raise _fail(f"zones.{z}.icon: {ic!r} is not a painting icon {list(b.icons)}")
        icon.append(b.icons.index(ic))
        r = _need(spec, "ring", list, f"zones.{z}")
        ring.append(frozenset(_int(i, f"zones.{z}.ring", 0, RING_SIZE - 1) for i in r))
        t = _need(spec, "towns", list, f"zones.{z}")
        if any(x not in b.towns[8:] for x in t):
            raise _fail(f"zones.{z}.towns: {t!r} must name mountain towns only")
        towns.append(frozenset(b.towns.index(x) for x in t))
        a = _need(spec, "adj", list, f"zones.{z}")
        if any(x not in zones or x == z for x in a):
            raise _fail(f"zones.{z}.adj: {a!r} must name other zones")
        adj.append(tuple(sorted(b.zones.index(x) for x in a)))
    b.zone_icon, b.zone_ring, b.zone_towns, b.zone_adj = (
        tuple(icon), tuple(ring), tuple(towns), tuple(adj))
    _check_zone_geometry(b)


def _check_zone_geometry(b: Board) -> None:
    """Borders and adjacency agree with the routes: a coastal space borders two zones, any other
    ring space one; each route separates exactly two zones, which are the adjacent pairs."""
    for i, kind in enumerate(b.ring):
        n = sum(i in r for r in b.zone_ring)
        want = 2 if kind == "C" else 1
        if n != want:
            raise _fail(f"zones: ring space {i} borders {n} zones, expected {want}")
    for z, a in enumerate(b.zone_adj):
        for o in a:
            if z not in b.zone_adj[o]:
                raise _fail(f"zones: adjacency not symmetric ({b.zones[z]} -> {b.zones[o]})")
    pairs = set()
    for u, v in b.route_pairs:
        sides = [z for z in range(8) if _on_border(b, z, u) and _on_border(b, z, v)]
        if len(sides) != 2:
            raise _fail(f"zones: route {b.towns[u]}-{b.towns[v]} borders {len(sides)} zones, "
                        "expected 2")
        pairs.add((sides[0], sides[1]))
    declared = {(z, o) for z, a in enumerate(b.zone_adj) for o in a if z < o}
    if pairs != declared:
        bad = sorted(f"{b.zones[x]}-{b.zones[y]}" for x, y in pairs ^ declared)
        raise _fail(f"zones: adjacency disagrees with the routes for {bad}")


def _on_border(b: Board, z: int, town: int) -> bool:
    if town < 8:
        return b.town_ring[town] in b.zone_ring[z]
    return town in b.zone_towns[z]


def _check_wares(b: Board, d: Mapping[str, Any]) -> None:
    wares = _need(d, "wares", Mapping)
    b.wares = tuple(wares)
    b.ware_counts = tuple(_int(v, f"wares.{k}", 1) for k, v in wares.items())
    if sum(b.ware_counts) != TOTAL_WARES:
        raise _fail(f"wares: expected {TOTAL_WARES} in all, got {sum(b.ware_counts)}")
    bs = _need(d, "boutiques", list)
    if len(bs) != 8:
        raise _fail(f"boutiques: expected 8 tokens, got {len(bs)}")
    out = []
    for i, t in enumerate(bs):
        w = _need(t, "ware", str, f"boutiques[{i}]")
        if w not in b.wares:
            raise _fail(f"boutiques[{i}].ware: unknown ware {w!r}")
        out.append((b.wares.index(w), _int(_need(t, "value", int, f"boutiques[{i}]"),
                                            f"boutiques[{i}].value", 2, 4)))
    b.boutiques = tuple(out)


def _check_limits_scoring(b: Board, d: Mapping[str, Any]) -> None:
    lim = _need(d, "limits", Mapping)
    b.limits = {k: _int(_need(lim, k, int, "limits"), f"limits.{k}", 1) for k in LIMIT_KEYS}
    if b.limits["wares_robust"] < b.limits["wares"]:
        raise _fail("limits.wares_robust: must be at least limits.wares")
    for seat, tiles in enumerate(b.paintings):
        if len(tiles) != b.limits["paintings"]:
            raise _fail(f"paintings[{seat}]: expected {b.limits['paintings']} tiles, "
                        f"got {len(tiles)}")
    sc = _need(d, "scoring", Mapping)
    b.merchant_score = _table(sc, "merchant_by_slabs", b.limits["slabs"] + 1)
    b.artist_score = _table(sc, "artist_by_gifts", b.limits["paintings"] + 1)


def _table(sc: Mapping[str, Any], key: str, length: int) -> tuple[int, ...]:
    t = _need(sc, key, list, "scoring")
    if len(t) != length:
        raise _fail(f"scoring.{key}: expected {length} values, got {len(t)}")
    vals = tuple(_int(v, f"scoring.{key}", 0) for v in t)
    if any(x > y for x, y in zip(vals, vals[1:])):
        raise _fail(f"scoring.{key}: values must not decrease")
    return vals


def _check_waves(b: Board, d: Mapping[str, Any]) -> None:
    w = _need(d, "waves", Mapping)
    sides = []
    for c in CHARACTERS:
        s = _need(w, c, list, "waves")
        if len(s) != 2 or set(s) != WAVE_SIDES[c]:
            raise _fail(f"waves.{c}: expected the sides {sorted(WAVE_SIDES[c])}, got {s!r}")
        sides.append((s[0], s[1]))
    b.waves = tuple(sides)


def _check_start(b: Board, d: Mapping[str, Any]) -> None:
    st = _need(d, "start", list)
    if len(st) != 2:
        raise _fail(f"start: expected 2 seats, got {len(st)}")
    out = []
    for seat, s in enumerate(st):
        p = _int(_need(s, "pilgrim", int, f"start[{seat}]"), f"start[{seat}].pilgrim", 0,
                 RING_SIZE - 1)
        m, a = _need(s, "merchant", str, f"start[{seat}]"), _need(s, "artist", str, f"start[{seat}]")
        if m not in b.towns or a not in b.zones:
            raise _fail(f"start[{seat}]: unknown merchant town {m!r} or artist zone {a!r}")
        out.append((p, b.towns.index(m), b.zones.index(a)))
    occupied = [o[0] for o in out] + [b.town_ring[o[1]] for o in out if o[1] < 8]
    if len(set(occupied)) != len(occupied):
        raise _fail("start: two meeples start on the same ring space")
    b.start = tuple(out)


def _check_automa(b: Board, d: Mapping[str, Any]) -> None:
    a = _need(d, "automa", Mapping)
    cz = _need(a, "coin_zones", list, "automa")
    if any(z not in b.zones for z in cz):
        raise _fail(f"automa.coin_zones: unknown zone in {cz!r}")
    pt = _need(a, "painting_town", str, "automa")
    if pt not in COASTAL:
        raise _fail(f"automa.painting_town: {pt!r} is not a coastal town")
    ml = _loop(a, "merchant_loop", COASTAL)
    al = _loop(a, "artist_loop", b.zones)
    if b.towns[b.start[1][1]] not in ml or b.zones[b.start[1][2]] not in al:
        raise _fail("automa: seat 1's start merchant/artist must lie on the Automa's loops")
    tr = _need(a, "track", Mapping, "automa")
    ranks = tuple(_int(v, "automa.track.ranks", 0) for v in _need(tr, "ranks", list, "automa.track"))
    if not ranks or any(x > y for x, y in zip(ranks, ranks[1:])):
        raise _fail("automa.track.ranks: expected a non-empty, non-decreasing list")
    final = _int(_need(tr, "final", int, "automa.track"), "automa.track.final", ranks[-1])
    ws = _need(tr, "wave_spaces", list, "automa.track")
    waves = tuple(sorted({_int(s, "automa.track.wave_spaces", 1, len(ranks)) for s in ws}))
    factors = _levels(_need(a, "level_factor", Mapping, "automa"))
    b.automa = {"coin_zones": frozenset(b.zones.index(z) for z in cz),
                "painting_town": COASTAL.index(pt),
                "merchant_loop": tuple(COASTAL.index(t) for t in ml),
                "artist_loop": tuple(b.zones.index(z) for z in al),
                "ranks": ranks, "final": final, "wave_spaces": waves, "factor": factors}


def _loop(a: Mapping[str, Any], key: str, allowed: Sequence[str]) -> list[str]:
    loop = _need(a, key, list, "automa")
    if not loop or len(set(loop)) != len(loop) or any(x not in allowed for x in loop):
        raise _fail(f"automa.{key}: expected distinct names from {list(allowed)}, got {loop!r}")
    return loop


def _levels(lf: Mapping[Any, Any]) -> dict[int, float]:
    out: dict[int, float] = {}
    for k, v in lf.items():
        try:
            level = int(k)
        except (TypeError, ValueError):
            raise _fail(f"automa.level_factor: bad level {k!r}") from None
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0:
            raise _fail(f"automa.level_factor.{k}: expected a positive number, got {v!r}")
        out[level] = float(v)
    if set(out) != set(LEVELS):
        raise _fail(f"automa.level_factor: expected levels 1-6, got {sorted(out)}")
    return out


def _build_paths(b: Board) -> None:
    """Precompute every destination of a merchant (exact routes, no town twice: in a tree, the
    towns at that distance) and of an artist (exact zones, no zone twice, start included), the
    latter with the union of icons over the paths (start zone included) for Inspired."""
    top = max(max(f) for f in b.dice) + 1
    b.merchant_dest = tuple(tuple(_tree_ring(b.town_adj, t, n) for n in range(top + 1))
                            for t in range(len(b.towns)))
    b.artist_dest = tuple(tuple(_zone_paths(b, z, n) for n in range(top + 1)) for z in range(8))


def _tree_ring(adj: Sequence[Sequence[int]], start: int, n: int) -> tuple[int, ...]:
    frontier, seen = {start}, {start}
    for _ in range(n):
        frontier = {v for u in frontier for v in adj[u] if v not in seen}
        seen |= frontier
    return tuple(sorted(frontier)) if n else ()


def _zone_paths(b: Board, start: int, n: int) -> tuple[ArtistDest, ...]:
    """Every destination ``n`` zones away by a simple path, as ``(dest, mask, first, by_icon)``:
    ``mask`` has bit i set when some path (start zone included) meets icon i, ``first`` is one
    path, ``by_icon[i]`` a path meeting icon i (or None) to name the path an Inspired gift uses."""
    found: dict[int, list[tuple[int, ...]]] = {}

    def walk(path: tuple[int, ...], left: int) -> None:
        if left == 0:
            found.setdefault(path[-1], []).append(path)
            return
        for o in b.zone_adj[path[-1]]:
            if o not in path:
                walk(path + (o,), left - 1)

    if n:
        walk((start,), n)
    out = []
    for dest in sorted(found):
        paths = found[dest]
        by_icon = tuple(next((p for p in paths if any(b.zone_icon[z] == i for z in p)), None)
                        for i in range(len(b.icons)))
        mask = sum(1 << i for i, p in enumerate(by_icon) if p is not None)
        out.append((dest, mask, paths[0], by_icon))
    return tuple(out)

"""Who plays whom in one round of a living ladder: pure logic, no database.

:func:`plan_round` takes the round's eligible bots (rating, owner, bye and seat history,
placement state), their recent meetings and a random source, and gives every bot exactly one
fixture or one bye (``service.md`` §4.4):

* **Table sizes.**  A two-seat game is played in pairs (``|E| mod 2`` byes).  A game of up to
  ``big`` seats uses tables of ``big`` with tables of ``big - 1`` taking the remainder; any
  ``n >= 6`` splits into 3s and 4s, and n = 5 is one table of 4 and a bye (:func:`table_sizes`).
* **Byes rotate** (least recently rested first).  A bot that joins counts as rested in the
  round it joined, so newcomers do not take the byes of bots that have played all along, and
  among bots eligible over a whole window, bye counts differ by at most one: a bot gets a
  second bye only after every other bot present has had one since its first.  Ties: most
  rated games, then at random.  The round's bye set is checked to leave a field that can be
  seated without two bots of one owner at a table; a bye moves to the largest owner group if
  it does not.
* **Opponents: the most informative questions** (issue 27).  The field is sorted by rating,
  best first.  Provisional bots (placement) are seated first, against bots at spread-out
  quantiles of the field (10th, 30th, ... 90th percentile in successive placement fixtures)
  rather than near their unknown rating.  Each remaining table is seeded with the unseated
  bot of the widest interval (``margin``; ties, and a field without intervals: the best);
  with probability ``p_far`` it is an *explorer* table, filled uniformly at random from the
  whole field (keeps the rating scale connected: the top keeps meeting the field), otherwise
  it is filled from a Pareto window of the nearest ``W = ceil(5 / U^0.65)`` unseated bots on
  each side of the seed, choosing the one a game with the table tells most about
  (:func:`information`: close ratings, wide intervals) divided by one plus its recent
  meetings with the table, then at random.  ``bench/ladder_truth.py`` measures it.
* **Owners.**  Two bots of one owner never share a table.  When the greedy pass cannot seat
  someone, a repair pass swaps bots between tables.  When one owner holds too much of the
  field for that (more bots than there are tables), its bots rest one at a time (``forced``
  byes, least recently rested first) and the rest is planned again, keeping the plan with the
  fewest forced byes.
* **Seats.**  A pair plays both seat orders (two games, one seed).  A table's seats are the
  permutation that minimises the sum of the squared seat counts its bots would reach.  This
  is greedy per table: over 40 rounds of 13 to 50 bots each bot's counts of seats 0-2 stay
  within 2 of each other (not the 1 of service.md §4.4); seat 3 exists only at tables of 4.

Deviation from §4.4, on purpose: byes rotate least-recently-rested first instead of "most
rated games first"; with a join counting as a rest this keeps the same intent (newcomers are
not rested) and makes the "bye counts differ by at most one" property hold over any window.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations

from ladder.ratings import ELO_SCALE, Z95

P_FAR = 0.1
INFORMATION_FLOOR = 0.05
"""The variance (logits squared) added to a pair's in :func:`information`, so that with no
intervals known (all margins 0) the closest pair still counts as the most informative."""
WINDOW_MIN = 5
WINDOW_EXPONENT = 0.65
WINDOW_MAX = 64
PLACEMENT_QUANTILES = (0.1, 0.3, 0.5, 0.7, 0.9)
ROTATION, FORCED = "rotation", "forced"


@dataclass(frozen=True)
class Entrant:
    """One eligible bot as the planner sees it."""

    bot_id: int
    rating: float
    """Higher is better (Elo, or an openskill ordinal): only the order and the gaps matter."""
    owner: int | None = None
    """None: the bot has no owner (a house bot), so it conflicts with no one."""
    last_rest: int = -1
    """The round number of its last bye (or of its joining, counted as a rest)."""
    games: int = 0
    provisional: bool = False
    placement_index: int = 0
    """How many placement fixtures it has played (picks the next quantile)."""
    seat_counts: tuple[int, ...] = ()
    margin: float = 0.0
    """The 95% half-width of ``rating`` (same units; 0: not known)."""


@dataclass(frozen=True)
class Bye:
    bot_id: int
    reason: str = ROTATION


@dataclass
class Plan:
    """A round's fixtures (bot ids in seat order) and byes."""

    fixtures: list[tuple[int, ...]] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)

    def bots(self) -> list[int]:
        return [b for f in self.fixtures for b in f] + [b.bot_id for b in self.byes]


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def table_sizes(n: int, big: int, small: int | None = None) -> list[int]:
    """The table sizes seating as many of ``n`` bots as possible: tables of ``big``, tables of
    ``small`` (default ``big - 1``, if at least 2) for the remainder, the fewest small ones."""
    small = big if big <= 2 else (small or big - 1)
    for seated in range(n, -1, -1):
        for smalls in range(0, big):
            rest = seated - smalls * small
            if rest < 0:
                break
            if rest % big == 0:
                if rest // big + smalls == 0:
                    break
                return [big] * (rest // big) + [small] * smalls
    return []


def window(rng: random.Random) -> int:
    """The Pareto window ``ceil(5 / U^0.65)``: 5 most of the time, sometimes much wider."""
    u = 1.0 - rng.random()  # (0, 1]
    return min(WINDOW_MAX, math.ceil(WINDOW_MIN / u ** WINDOW_EXPONENT))


def plan_round(entrants: Sequence[Entrant], big: int,
               meetings: Mapping[tuple[int, int], int] | None = None,
               rng: random.Random | None = None, *, p_far: float = P_FAR) -> Plan:
    """Every entrant in exactly one fixture or one bye (see the module docstring).

    ``big`` is the table size (2: pairs).  ``meetings`` counts recent meetings per bot pair
    (keys from :func:`pair_key`).
    """
    rng = rng or random.Random()
    meetings = meetings or {}
    if len({e.bot_id for e in entrants}) != len(entrants):
        raise ValueError("an entrant appears twice")
    field_ = list(entrants)
    unavoidable = len(field_) - sum(table_sizes(len(field_), big))
    rested: list[int] = []
    best: Plan | None = None
    for _ in range(8):
        plan = _plan(field_, big, meetings, rng, p_far)
        plan.byes.extend(Bye(b, FORCED) for b in rested)
        extra = sum(b.reason == ROTATION for b in plan.byes) - unavoidable
        if extra > 0:  # rests the smaller field needs beyond the rotation's: forced too
            plan.byes = [Bye(b.bot_id, FORCED) if b.reason == ROTATION and (extra := extra - 1) >= 0
                         else b for b in plan.byes]
        forced = sum(b.reason == FORCED for b in plan.byes)
        if best is None or forced < sum(b.reason == FORCED for b in best.byes):
            best = plan
        if forced == len(rested):
            break
        # one owner holds too much of the field: rest one of its bots and plan again
        # (fewer tables, but all of them full), keeping whichever plan rests fewest
        owners = Counter(e.owner for e in field_ if e.owner is not None)
        if not owners:
            break
        top = owners.most_common(1)[0][0]
        out = min((e for e in field_ if e.owner == top), key=lambda e: (e.last_rest, -e.games))
        field_.remove(out)
        rested.append(out.bot_id)
    assert best is not None
    return best


def _plan(entrants: Sequence[Entrant], big: int, meetings: Mapping[tuple[int, int], int],
          rng: random.Random, p_far: float) -> Plan:
    by_id = {e.bot_id: e for e in entrants}
    sizes = table_sizes(len(entrants), big)
    resting = choose_byes(entrants, len(entrants) - sum(sizes), sizes, rng)
    plan = Plan(byes=[Bye(b) for b in resting])
    field_ = sorted((e for e in entrants if e.bot_id not in resting),
                    key=lambda e: (-e.rating, e.bot_id))
    tables, unseated, dropped = _seat(field_, sizes, meetings, rng, p_far)
    tables, unseated = _repair(tables, unseated, dropped, by_id)
    plan.byes.extend(Bye(b.bot_id, FORCED) for b in unseated)
    plan.fixtures = [seat_order([by_id[b] for b in t], big, rng) for t in tables]
    return plan


# -- byes ---------------------------------------------------------------------------------------

def choose_byes(entrants: Sequence[Entrant], count: int, sizes: Sequence[int],
                rng: random.Random) -> set[int]:
    """The ``count`` least recently rested bots (ties: most games, then random), moved to
    the biggest owner group if the rest could not be seated without an owner clash."""
    if count <= 0:
        return set()
    order = sorted(entrants, key=lambda e: (e.last_rest, -e.games, rng.random()))
    chosen = [e.bot_id for e in order[:count]]
    rest = order[count:]
    owners = Counter(e.owner for e in rest if e.owner is not None)
    if owners:
        top, many = owners.most_common(1)[0]
        if many > len(sizes):  # infeasible: rest one of the biggest group instead
            swap_in = next(e for e in rest if e.owner == top)
            swap_out = next((b for b in reversed(chosen)
                             if next(e for e in entrants if e.bot_id == b).owner != top), None)
            if swap_out is not None:
                chosen[chosen.index(swap_out)] = swap_in.bot_id
    return set(chosen)


# -- seating ----------------------------------------------------------------------------------

def _seat(field_: list[Entrant], sizes: list[int], meetings: Mapping[tuple[int, int], int],
          rng: random.Random, p_far: float
          ) -> tuple[list[list[int]], list[Entrant], list[int]]:
    """The greedy pass: tables, the bots it could not seat, the sizes of the tables it
    could not fill."""
    n = len(field_)
    index = {e.bot_id: i for i, e in enumerate(field_)}
    free = [True] * n
    nxt = list(range(1, n + 1))  # skip list over seated positions
    todo = sorted(sizes, reverse=True)
    tables: list[list[int]] = []
    dropped: list[int] = []

    def advance(i: int) -> int:
        """The first free position at or after ``i`` (path-compressing the skip list)."""
        path = []
        while i < n and not free[i]:
            path.append(i)
            i = nxt[i]
        for p in path:
            nxt[p] = i
        return i

    prev = list(range(-1, n - 1))  # the same, backwards

    def retreat(i: int) -> int:
        """The last free position at or before ``i`` (-1: none)."""
        path = []
        while i >= 0 and not free[i]:
            path.append(i)
            i = prev[i]
        for p in path:
            prev[p] = i
        return i

    # seeds: the widest interval first (the bot the round learns most about), then the best
    seeds = sorted(range(n), key=lambda i: (-field_[i].margin, i))
    cursor = 0

    def next_seed() -> int:
        nonlocal cursor
        while cursor < n and not free[seeds[cursor]]:
            cursor += 1
        return seeds[cursor] if cursor < n else n

    def take(i: int) -> None:
        free[i] = False

    def fits(e: Entrant, table: list[Entrant]) -> bool:
        return e.owner is None or all(t.owner != e.owner for t in table)

    def fill(table: list[Entrant], size: int, pick: Iterable[int]) -> None:
        for i in pick:
            if len(table) == size:
                return
            if free[i] and fits(field_[i], table):
                take(i)
                table.append(field_[i])

    def nearest(target: int, table: list[Entrant]) -> int | None:
        """The free bot nearest position ``target`` that can join ``table``."""
        for d in range(n):
            for i in (target - d, target + d) if d else (target,):
                if 0 <= i < n and free[i] and fits(field_[i], table) \
                        and not field_[i].provisional:
                    return i
            if target - d < 0 and target + d >= n:
                break
        return None

    # placement: provisional bots against spread-out quantiles of the field
    for e in [e for e in field_ if e.provisional]:
        if not todo or not free[index[e.bot_id]]:
            continue
        size = todo.pop(0)
        take(index[e.bot_id])
        table = [e]
        for j in range(1, size):
            q = PLACEMENT_QUANTILES[(e.placement_index + (j - 1) * 2) % len(PLACEMENT_QUANTILES)]
            found = nearest(min(n - 1, int(q * n)), table)
            if found is None:
                break
            take(found)
            table.append(field_[found])
        if not _finish(table, size, tables, field_, free, fill, n):
            dropped.append(size)
    # everyone else, widest interval first: explorer tables at random, the rest from the window
    while todo:
        seed = next_seed()
        if seed >= n:
            dropped.extend(todo)
            break
        size = todo.pop(0)
        take(seed)
        table = [field_[seed]]
        if rng.random() < p_far:
            fill(table, size, _random_free(free, rng))
        else:
            while len(table) < size:
                best = _best_in_window(table, field_, free, (advance, retreat), seed, window(rng),
                                       meetings, rng, fits)
                if best is None:
                    break
                take(best)
                table.append(field_[best])
        if not _finish(table, size, tables, field_, free, fill, n):
            dropped.append(size)
    unseated = [field_[i] for i in range(n) if free[i]]
    return tables, unseated, dropped


def _random_free(free: list[bool], rng: random.Random) -> Iterable[int]:
    """Positions in random order, free ones first in practice: random draws (cheap while
    most of the field is free), then every position, shuffled."""
    n = len(free)
    for _ in range(32):
        yield rng.randrange(n)
    rest = [i for i in range(n) if free[i]]
    rng.shuffle(rest)
    yield from rest


def _best_in_window(table: list[Entrant], field_: list[Entrant], free: list[bool],
                    walk: tuple[Callable[[int], int], Callable[[int], int]], seed: int,
                    width: int, meetings: Mapping[tuple[int, int], int], rng: random.Random,
                    fits: Callable[[Entrant, list[Entrant]], bool]) -> int | None:
    """Among the nearest ``width`` free bots below ``seed`` and the nearest ``width`` above it
    that fit the table: the most :func:`information` about the table, divided by one plus
    its recent meetings with it (a pair met again tells less about the rest of the order),
    ties at random."""
    advance, retreat = walk
    best: int | None = None
    best_key: tuple[float, float] | None = None
    owners = {t.owner for t in table if t.owner is not None}
    members = [t.bot_id for t in table]
    n = len(field_)
    for i, step, inside in ((advance(seed + 1), advance, lambda j: j < n),
                            (retreat(seed - 1), retreat, lambda j: j >= 0)):
        seen = 0
        while inside(i) and seen < width:
            e = field_[i]
            if e.owner is None or e.owner not in owners:
                met = 0
                if meetings:
                    b = e.bot_id
                    met = sum(meetings.get((a, b) if a < b else (b, a), 0) for a in members)
                key = (-sum(information(t, e) for t in table) / (1 + met), rng.random())
                if best_key is None or key < best_key:
                    best, best_key = i, key
                seen += 1
            i = step(i + 1 if step is advance else i - 1)
    return best


def information(a: Entrant, b: Entrant) -> float:
    """How much a game between ``a`` and ``b`` is expected to tell about the order of the two:
    the Bernoulli variance ``p (1 - p)`` of its outcome (Bradley-Terry on the rating gap,
    :data:`~ladder.ratings.ELO_SCALE` points per logit, the gap shrunk by the pair's
    uncertainty as a probit approximation does) times the variance of the gap it informs, so a
    close pair is asked first, and among close pairs the one whose ratings are least sure."""
    var = ((a.margin / Z95) ** 2 + (b.margin / Z95) ** 2) / ELO_SCALE ** 2
    gap = abs(a.rating - b.rating) / ELO_SCALE / math.sqrt(1.0 + math.pi * var / 8.0)
    p = 1.0 / (1.0 + math.exp(-gap))
    return p * (1.0 - p) * (INFORMATION_FLOOR + var)


def _finish(table: list[Entrant], size: int, tables: list[list[int]], field_: list[Entrant],
            free: list[bool], fill: Callable[..., None], n: int) -> bool:
    """Complete a table from anyone free, or give its bots back (False)."""
    if len(table) < size:
        fill(table, size, range(n))
    if len(table) == size:
        tables.append([e.bot_id for e in table])
        return True
    index = {e.bot_id: i for i, e in enumerate(field_)}
    for e in table:
        free[index[e.bot_id]] = True
    return False


def _repair(tables: list[list[int]], unseated: list[Entrant], dropped: list[int],
            by_id: Mapping[int, Entrant]) -> tuple[list[list[int]], list[Entrant]]:
    """Seat the leftovers of the greedy pass (an owner clash left a table unfilled), one
    dropped table at a time: a leftover that clashes with the new table swaps with a bot of
    a seated table it fits, and that bot joins the new table instead.  Leftovers are rare and
    few, so this may be quadratic in them."""
    left = list(unseated)
    for size in dropped:
        group: list[Entrant] = []
        for x in list(left):
            if len(group) == size:
                break
            if _fits(x, group):
                group.append(x)
                left.remove(x)
                continue
            swapped = _swap_into(x, group, tables, by_id)
            if swapped is not None:
                group.append(swapped)
                left.remove(x)
        if len(group) == size:
            tables.append([g.bot_id for g in group])
        else:
            left.extend(group)
    return tables, left


def _swap_into(x: Entrant, group: list[Entrant], tables: list[list[int]],
               by_id: Mapping[int, Entrant]) -> Entrant | None:
    """Put ``x`` at a seated table in place of a bot that fits ``group``; that bot."""
    for t in tables:
        for pos, member in enumerate(t):
            m = by_id[member]
            if _fits(m, group) and _fits(x, [by_id[b] for i, b in enumerate(t) if i != pos]):
                t[pos] = x.bot_id
                return m
    return None


def _fits(e: Entrant, table: Sequence[Entrant]) -> bool:
    return e.owner is None or all(t.owner != e.owner for t in table)


def seat_order(table: Sequence[Entrant], big: int, rng: random.Random) -> tuple[int, ...]:
    """The seat permutation minimising the summed squares of the seat counts reached (ties at
    random).  Pairs are played in both orders, so their order is only the first game's."""
    if len(table) == 2 and big == 2:
        pair = list(table)
        rng.shuffle(pair)
        return (pair[0].bot_id, pair[1].bot_id)
    order = list(table)
    rng.shuffle(order)  # ties go to the first minimum: at random
    cost = [[_extra(e.seat_counts, seat) for seat in range(len(order))] for e in order]
    best, best_cost = None, None
    for perm in permutations(range(len(order))):
        total = sum(cost[k][seat] for seat, k in enumerate(perm))
        if best_cost is None or total < best_cost:
            best, best_cost = perm, total
    assert best is not None
    return tuple(order[k].bot_id for k in best)


def _extra(counts: Sequence[int], seat: int) -> int:
    """How much one more game in ``seat`` adds to the sum of squared seat counts."""
    c = counts[seat] if seat < len(counts) else 0
    return 2 * c + 1

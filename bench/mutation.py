"""Mutation testing of the modules a public leaderboard's trust rests on (issue 30).

For each module: small changes (mutants) are made to it one at a time, and the tests that
cover it are run against each (``pytest -x -q``); a mutant the tests fail on is *killed*, one
they pass is a *survivor*: a change of behaviour no test notices (or an equivalent mutant,
which changes nothing observable; ``docs/testing.md`` argues each survivor either way).

Mutants come from two places:

* generated from the module's syntax tree: a comparison flipped (``<`` to ``<=``, ``==`` to
  ``!=``, ``in`` to ``not in``), ``and``/``or`` swapped, a condition negated, ``max``/``min``
  swapped, ``+``/``-`` swapped, an integer constant moved by one, a CIDR's prefix narrowed by
  four bits, a statement deleted (a call, an update, a ``raise``), an element deleted from a
  literal tuple or list (a table, an ``except`` clause), a subscript ``[0]`` made ``[-1]``,
  ``return X`` made ``return True`` in a function that returns ``bool``.  When a module offers
  more than ``--max`` of them, a fixed sample (seeded by the module's name) is taken, so two
  runs on the same code test the same mutants;
* hand-written in :data:`TARGETS` (text replaced once in the source): the mutants issue 30
  named, kept whatever the sample draws.

The tree is copied to a temporary folder once per run and only the copy is changed (its file
restored after each mutant, in a ``finally``), so an interrupted run never leaves a mutated
file behind.  A mutant whose tests run past ``--timeout-factor`` times the unmutated run is
counted as killed (an endless loop is caught).  It is slow (a fresh pytest per mutant):
minutes per module, so it is a ``tox -e mutation`` of its own, not part of the default run.

Usage: python bench/mutation.py [--module NAME ...] [--max 30] [--list] [--json FILE]
       [--without TEST_FILE ...] [--again FILE]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Target:
    """A module under mutation, the tests that cover it (fastest killers first), and the
    hand-written mutants (``old`` found exactly once in the source)."""

    path: str
    tests: tuple[str, ...]
    hand: tuple[tuple[str, str, str], ...] = ()
    """``(what it breaks, old text, new text)``."""
    scope: tuple[str, ...] = ()
    """Top-level functions (``<module>``: the module's own statements) whose code is
    mutated; empty: all of it."""


TARGETS: dict[str, Target] = {
    "netpolicy": Target(
        "referee/netpolicy.py",
        ("tests/service/test_netpolicy_ranges.py", "tests/service/test_netpolicy_rules.py",
         "tests/service/test_netpolicy.py"),
        hand=(("172.16/12 narrowed to /16", '"172.16.0.0/12"', '"172.16.0.0/16"'),
              ("100.64/10 narrowed to /16", '"100.64.0.0/10"', '"100.64.0.0/16"'),
              ("0/8 narrowed to /32", '"0.0.0.0/8"', '"0.0.0.0/32"'),
              ("NAT64 local-use prefix deleted",
               '    ("64:ff9b:1::/48", "NAT64 (local use)", False, _last_32_bits),\n', ''),
              ("ORCHID/benchmarking block deleted",
               '    ("2001::/23", "IETF protocol assignments (ORCHID, benchmarking)"),\n', ''),
              ("Host/SNI set for http, not https",
               'if scheme == "https":\n                pool_kwargs',
               'if scheme != "https":\n                pool_kwargs'),
              ("pin the last resolved address", "self.addresses(host, port)[0]",
               "self.addresses(host, port)[-1]"),
              ("UnicodeError not caught", "except (OSError, UnicodeError)", "except OSError"),
              ("numeric host by match", "_NUMERIC_HOST.fullmatch(host)",
               "_NUMERIC_HOST.match(host)"),
              ("port's low bound exclusive", "low <= port <= high", "low < port <= high"),
              ("port's high bound exclusive", "low <= port <= high", "low <= port < high")),
    ),
    "work": Target(
        "ladder/work.py",
        ("tests/ladders/test_work_pinning.py", "tests/service/test_work.py"),
        hand=(("finish's CAS ignores the attempt",
               "Match.id == held.match_pk, Match.state == RUNNING, Match.attempt == held.attempt,"
               "\n        ).values(state=FINISHED",
               "Match.id == held.match_pk, Match.state == RUNNING,"
               "\n        ).values(state=FINISHED"),
              ("finish returns True when it lost",
               "            return False\n        conn.execute(update(MatchSeat)",
               "            return True\n        conn.execute(update(MatchSeat)"),
              ("no seat stored as forfeited", '"forfeited": plan.seat in forfeited, **seat_stats',
               '"forfeited": False, **seat_stats'),
              ("rated ignored", "        if held.rated:\n            apply_rating",
               "        if True:\n            apply_rating"),
              ("no void after the last attempt",
               "Match.id == match_pk, claimable, Match.attempt >= MAX_ATTEMPTS).values(",
               "Match.id == match_pk, claimable, Match.attempt > 2 * MAX_ATTEMPTS).values("),
              ("an expiring lease claimable", "Match.state == RUNNING, Match.lease_until < now))",
               "Match.state == RUNNING, Match.lease_until <= now))"),
              ("one attempt too many", "claimable, Match.attempt < MAX_ATTEMPTS)",
               "claimable, Match.attempt <= MAX_ATTEMPTS)"),
              ("two attempts", "MAX_ATTEMPTS = 3", "MAX_ATTEMPTS = 2")),
        scope=("<module>", "claim", "renew", "finish", "void", "fail_attempt", "sweep",
               "split_log", "seat_stats", "summary"),
    ),
    "match": Target(
        "referee/match.py",
        ("tests/test_match_rulings.py", "tests/test_runner.py"),
        hand=(("no bank in the deadline", "deadline_ms=self.clocks[seat].decision_ms + bank,",
               "deadline_ms=self.clocks[seat].decision_ms,"),
              ("a forfeited rank 1 wins", "if s.rank == 1 and s.seat not in forfeited)",
               "if s.rank == 1)"),
              ("on time at the deadline is late", "answer.elapsed_ms > deadline_ms",
               "answer.elapsed_ms >= deadline_ms"),
              ("a lone decision through the pool", "if len(pending) > 1 and any(",
               "if len(pending) >= 1 and any("),
              ("the log not truncated", 'entry["log"] = log[:MAX_LOG_CHARS]', 'entry["log"] = log'),
              ("the pool not shut", "                self._pool.shutdown(wait=False, "
               "cancel_futures=True)\n", "                pass\n")),
    ),
    "ratings": Target(
        "ladder/ratings.py",
        ("tests/ladders/test_ratings_pinning.py", "tests/ladders/test_ladder_ratings.py"),
    ),
    "protocol": Target(
        "referee/protocol.py",
        ("tests/http/test_protocol_pinning.py", "tests/http/test_http_schemas.py",
         "tests/http/test_http_answer_fuzz.py",
         "tests/http/test_bot_server.py"),
    ),
    "tokaido-moves": Target(
        "referee/games/tokaido_duo/moves.py",
        ("tests/tokaido/test_tokaido_bag_by_hand.py", "tests/tokaido/test_tokaido_move_reference.py",
         "tests/tokaido/test_tokaido_pilgrim.py",
         "tests/tokaido/test_tokaido_merchant.py", "tests/tokaido/test_tokaido_artist.py",
         "tests/tokaido/test_tokaido_waves.py", "tests/tokaido/test_tokaido_hot_spring.py",
         "tests/test_golden_games.py"),
    ),
    "doubletrack-flow": Target(
        "referee/games/doubletrack/flow.py",
        ("tests/doubletrack/test_dt_forced_routes.py", "tests/doubletrack/test_dt_known_cards.py",
         "tests/doubletrack/test_dt_squares.py",
         "tests/doubletrack/test_dt_cards.py",
         "tests/doubletrack/test_dt_gates.py", "tests/doubletrack/test_dt_play.py",
         "tests/test_golden_games.py"),
    ),
}

SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot,
    ast.IsNot: ast.Is, ast.And: ast.Or, ast.Or: ast.And, ast.Add: ast.Sub, ast.Sub: ast.Add,
}
CIDR = re.compile(r"([0-9a-fA-F:.]+)/([0-9]{1,3})")
DELETABLE = (ast.Expr, ast.AugAssign, ast.Raise, ast.Continue, ast.Break)
BODIES = ("body", "orelse", "finalbody")


@dataclass(frozen=True)
class Mutant:
    """One change: where (line and column of the original), what, and how to make the
    source."""

    line: tuple[int, int]
    what: str
    make: Callable[[str], str] = field(compare=False, repr=False)

    @property
    def label(self) -> str:
        line, col = self.line
        return f"L{line}{f':{col}' if col >= 0 else ''} {self.what}"


# -- generated mutants ------------------------------------------------------------------------

def _tree_mutant(index: int, line: tuple[int, int], what: str, change: Callable[[ast.AST], None]) -> Mutant:
    """A mutant made by ``change`` on the ``index``-th node of ``ast.walk`` of a fresh parse."""
    def make(source: str) -> str:
        tree = ast.parse(source)
        change(list(ast.walk(tree))[index])
        return ast.unparse(ast.fix_missing_locations(tree))
    return Mutant(line, what, make)


def _is_docstring(body: list[ast.stmt], i: int) -> bool:
    stmt = body[i]
    return (i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def _skipped(tree: ast.Module) -> set[int]:
    """Nodes never mutated: docstrings and annotations-only imports (no behaviour)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        for name in BODIES:
            body = getattr(node, name, None)
            if isinstance(body, list):
                for i in range(len(body)):
                    if _is_docstring(body, i) or (i > 0 and isinstance(body[i], ast.Expr)
                                                  and isinstance(body[i].value, ast.Constant)):
                        out.update(id(n) for n in ast.walk(body[i]))
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for n in ast.walk(node))
        for arg in ("returns", "annotation"):
            if getattr(node, arg, None) is not None:
                out.update(id(n) for n in ast.walk(getattr(node, arg)))
    return out


def _bool_functions(tree: ast.Module) -> set[int]:
    """``return`` statements of functions annotated ``-> bool``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                isinstance(node.returns, ast.Name) and node.returns.id == "bool":
            out.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Return))
    return out


def _outside(tree: ast.Module, scope: tuple[str, ...]) -> set[int]:
    """Nodes outside the scope's top-level functions and classes (nothing when unscoped)."""
    if not scope:
        return set()
    out: set[int] = set()
    for stmt in tree.body:
        name = stmt.name if isinstance(
            stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else "<module>"
        if name not in scope:
            out.update(id(n) for n in ast.walk(stmt))
    return out


def generated(source: str, scope: tuple[str, ...] = ()) -> list[Mutant]:
    """Every mutant the operators make of ``source`` (within ``scope``), in source order."""
    tree = ast.parse(source)
    skip, bool_returns = _skipped(tree) | _outside(tree, scope), _bool_functions(tree)
    out: list[Mutant] = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) not in skip:
            out.extend(_node_mutants(index, node, _where(node), bool_returns))
    return sorted(out, key=lambda m: m.line)


def _where(node: ast.AST) -> tuple[int, int]:
    return node.__dict__.get("lineno", 0), node.__dict__.get("col_offset", 0)


def _node_mutants(index: int, node: ast.AST, line: tuple[int, int], bool_returns: set[int]
                  ) -> Iterator[Mutant]:
    yield from _operator_mutants(index, node, line)
    yield from _constant_mutants(index, node, line)
    yield from _structure_mutants(index, node, line, bool_returns)


def _operator_mutants(index: int, node: ast.AST, line: tuple[int, int]) -> Iterator[Mutant]:
    if isinstance(node, ast.Compare):
        for j, op in enumerate(node.ops):
            if type(op) in SWAPS:
                new = SWAPS[type(op)]

                def flip(n: ast.AST, j: int = j, new: type = new) -> None:
                    n.ops[j] = new()  # type: ignore[attr-defined]
                yield _tree_mutant(index, line, f"{type(op).__name__} -> {new.__name__}", flip)
    if isinstance(node, (ast.BoolOp, ast.BinOp)) and type(node.op) in SWAPS:
        other = SWAPS[type(node.op)]

        def swap(n: ast.AST, other: type = other) -> None:
            n.op = other()  # type: ignore[attr-defined]
        yield _tree_mutant(index, line, f"{type(node.op).__name__} -> {other.__name__}", swap)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        def negate(n: ast.AST) -> None:
            n.test = ast.UnaryOp(ast.Not(), n.test)  # type: ignore[attr-defined]
        yield _tree_mutant(index, line, "condition negated", negate)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("max", "min"):
        called = "min" if node.func.id == "max" else "max"

        def rename(n: ast.AST, called: str = called) -> None:
            n.func.id = called  # type: ignore[attr-defined]
        yield _tree_mutant(index, line, f"{node.func.id} -> {called}", rename)


def _constant_mutants(index: int, node: ast.AST, line: tuple[int, int]) -> Iterator[Mutant]:
    if not isinstance(node, ast.Constant):
        return
    value = node.value
    if isinstance(value, int) and not isinstance(value, bool):
        new: object = value - 1 if value > 1 else value + 1
        yield _tree_mutant(index, line, f"{value} -> {new}", _set_value(new))
    elif isinstance(value, bool):
        yield _tree_mutant(index, line, f"{value} -> {not value}", _set_value(not value))
    elif isinstance(value, str) and (cidr := CIDR.fullmatch(value)):
        bits = 32 if "." in cidr[1] and ":" not in cidr[1] else 128
        prefix = int(cidr[2])
        if prefix + 4 <= bits:
            narrowed = f"{cidr[1]}/{prefix + 4}"
            yield _tree_mutant(index, line, f"{value} -> {narrowed}", _set_value(narrowed))


def _set_value(new: object) -> Callable[[ast.AST], None]:
    def change(n: ast.AST) -> None:
        n.value = new  # type: ignore[attr-defined]
    return change


def _structure_mutants(index: int, node: ast.AST, line: tuple[int, int], bool_returns: set[int]
                       ) -> Iterator[Mutant]:
    for name in BODIES:
        body = getattr(node, name, None)
        if not isinstance(body, list):
            continue
        for i, stmt in enumerate(body):
            if isinstance(stmt, DELETABLE) and not (
                    isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                def delete(n: ast.AST, name: str = name, i: int = i) -> None:
                    getattr(n, name)[i] = ast.Pass()
                yield _tree_mutant(index, _where(stmt), f"{type(stmt).__name__} deleted", delete)
    if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load) and \
            len(node.elts) >= 2 and \
            all(isinstance(e, (ast.Constant, ast.Tuple, ast.Name, ast.Attribute))
                for e in node.elts):
        for i, elt in enumerate(node.elts):
            def drop(n: ast.AST, i: int = i) -> None:
                del n.elts[i]  # type: ignore[attr-defined]
            yield _tree_mutant(index, _where(elt), f"element {i} of {len(node.elts)} deleted",
                               drop)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
            node.slice.value == 0:
        def last(n: ast.AST) -> None:
            n.slice = ast.Constant(-1)  # type: ignore[attr-defined]
        yield _tree_mutant(index, line, "[0] -> [-1]", last)
    if id(node) in bool_returns and isinstance(node, ast.Return) and not (
            isinstance(node.value, ast.Constant) and node.value.value is True):
        def true(n: ast.AST) -> None:
            n.value = ast.Constant(True)  # type: ignore[attr-defined]
        yield _tree_mutant(index, line, "return True", true)


# -- hand-written mutants ---------------------------------------------------------------------

def hand_mutant(source: str, what: str, old: str, new: str) -> Mutant:
    """``old`` replaced by ``new``; ValueError unless ``old`` occurs exactly once."""
    count = source.count(old)
    if count != 1:
        raise ValueError(f"hand mutant {old!r} occurs {count} times (once expected)")
    line = source[:source.index(old)].count("\n") + 1
    return Mutant((line, -1), f"hand: {what}", lambda text: text.replace(old, new))


def mutants(name: str, source: str, most: int) -> list[Mutant]:
    """The module's mutants: a fixed sample of ``most`` generated ones, then the hand ones."""
    made = generated(source, TARGETS[name].scope)
    if len(made) > most:
        keep = set(random.Random(f"mutation:{name}").sample(range(len(made)), most))
        made = [m for i, m in enumerate(made) if i in keep]
    return made + [hand_mutant(source, *hand) for hand in TARGETS[name].hand]


# -- running ----------------------------------------------------------------------------------

@dataclass
class Outcome:
    mutant: Mutant
    verdict: str
    """``killed``, ``timeout`` (counted as killed), ``survived`` or ``invalid`` (does not
    compile: not counted)."""
    seconds: float


def copy_tree(destination: Path, without: list[str]) -> Path:
    """The working tree copied (no VCS data, caches or environments), less ``without``."""
    tree = destination / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".tox", "__pycache__", "*.egg-info", ".mypy_cache", ".pytest_cache",
        "node_modules", "build", "dist"))
    for name in without:
        (tree / name).unlink()
    return tree


def run_tests(tree: Path, tests: tuple[str, ...], timeout: float) -> tuple[int | None, float]:
    """``pytest -x -q`` on ``tests`` in ``tree``; its exit status (None: timed out)."""
    present = [t for t in tests if (tree / t).exists()]  # a run before the new tests exist
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])}
    began = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
             "-o", "addopts=", "-m", "not slow", *present],
            cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            timeout=timeout)
        return done.returncode, time.monotonic() - began
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - began


def _forget_bytecode(path: Path) -> None:
    """A mutant of the same size written in the same second would reuse the stale .pyc."""
    for cached in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        cached.unlink()


def mutate_module(name: str, tree: Path, most: int, factor: float,
                  report: Callable[[Outcome], None],
                  keep: Callable[[Mutant], bool] = lambda m: True) -> list[Outcome]:
    target = TARGETS[name]
    path = tree / target.path
    original = path.read_text()
    rc, baseline = run_tests(tree, target.tests, timeout=1800)
    if rc != 0:
        raise SystemExit(f"{name}: the tests fail on the unmutated code (exit {rc})")
    timeout = max(60.0, factor * baseline)
    outcomes = []
    try:
        for mutant in filter(keep, mutants(name, original, most)):
            text = mutant.make(original)
            try:
                compile(text, str(path), "exec")
            except SyntaxError:
                outcomes.append(Outcome(mutant, "invalid", 0.0))
                continue
            path.write_text(text)
            _forget_bytecode(path)
            try:
                rc, seconds = run_tests(tree, target.tests, timeout)
            finally:
                path.write_text(original)
                _forget_bytecode(path)
            verdict = "timeout" if rc is None else "survived" if rc == 0 else "killed"
            outcomes.append(Outcome(mutant, verdict, seconds))
            report(outcomes[-1])
    finally:
        path.write_text(original)
    return outcomes


def summary(name: str, outcomes: list[Outcome], before: dict[str, Any] | None = None
            ) -> dict[str, Any]:
    """Killed, survived, total, score and the survivors; with ``before`` (a run of which only
    the survivors were run again), its killed ones count as killed."""
    counted = [o for o in outcomes if o.verdict != "invalid"]
    killed = sum(o.verdict in ("killed", "timeout") for o in counted)
    survivors = [o.mutant.label for o in counted if o.verdict == "survived"]
    total = len(counted)
    if before is not None:
        killed, total = killed + before["killed"], before["total"]
    return {"module": TARGETS[name].path, "killed": killed, "survived": len(survivors),
            "total": total, "score": round(killed / total, 3) if total else None,
            "survivors": survivors}


def run_module(name: str, tree: Path, args: argparse.Namespace,
               before: dict[str, Any] | None) -> dict[str, Any]:
    """Mutate one module (only the survivors of ``before`` when given) and print as it goes."""
    def report(o: Outcome) -> None:
        print(f"  {name} {o.mutant.label}: {o.verdict} ({o.seconds:.1f} s)", flush=True)

    def keep(m: Mutant) -> bool:
        return before is None or m.label in before["survivors"]

    print(f"{name}: {TARGETS[name].path}", flush=True)
    r = summary(name, mutate_module(name, tree, args.max, args.timeout_factor, report, keep),
                before)
    print(f"{name}: {r['killed']} killed, {r['survived']} survived of {r['total']} "
          f"(score {r['score']})", flush=True)
    for label in r["survivors"]:
        print(f"  survivor: {label}")
    return r


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", choices=sorted(TARGETS),
                        help="a module to mutate (repeatable; default: all)")
    parser.add_argument("--max", type=int, default=30,
                        help="generated mutants per module at most (a fixed sample)")
    parser.add_argument("--timeout-factor", type=float, default=5.0)
    parser.add_argument("--nice", type=int, default=10, help="added to this process's niceness")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    parser.add_argument("--json", type=Path, help="also write the summaries to this file")
    parser.add_argument("--again", type=Path, metavar="JSON",
                        help="run only the survivors of an earlier run's --json (tests were "
                             "added since: a mutant killed then is killed now)")
    parser.add_argument("--without", action="append", default=[], metavar="TEST_FILE",
                        help="a test file left out of the copy (repeatable): what the suite "
                             "kills without it, e.g. before a file of new tests")
    args = parser.parse_args(argv)
    names = args.module or list(TARGETS)
    if args.list:
        for name in names:
            source = (ROOT / TARGETS[name].path).read_text()
            for m in mutants(name, source, args.max):
                print(f"{name} {m.label}")
        return 0
    if args.nice and hasattr(os, "nice"):
        os.nice(args.nice)
    earlier = {r["module"]: r for r in json.loads(args.again.read_text())} if args.again else {}
    results = []
    with tempfile.TemporaryDirectory(prefix="mutation-") as folder:
        tree = copy_tree(Path(folder), args.without)
        for name in names:
            before = earlier.get(TARGETS[name].path) if args.again else None
            if args.again and before is None:
                raise SystemExit(f"{name}: not in {args.again}")
            results.append(run_module(name, tree, args, before))
    print("\nmodule | killed | survived | total | score")
    for r in results:
        print(f"{r['module']} | {r['killed']} | {r['survived']} | {r['total']} | {r['score']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

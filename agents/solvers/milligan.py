"""Miss Milligan, Giant and the pocket version solved with perfect knowledge of the stock: won, lost or undecided.

A depth-first search over the rules' own moves (``game.legal_actions``,
``game.apply`` on ``state.copy()``), so the progress rule of
:mod:`patience_gym.games.milligan` (at most 50 idle moves and no repeated
position between two progress events) holds on every line it plays, and a
winning line replays in the env as it is. The verdict is ``"won"`` (with the
line), ``"lost"`` (proved: the search space was exhausted, every pruning below
keeping every win) or ``"undecided"`` (the budget ran out).

**Why the transposition table is exact.** The legal moves depend on the
position (columns, foundations, reserve, waived card's origin: the rules'
fingerprint ``state.hash``), on ``best`` (which foundation moves are progress),
on the idle moves made and on the positions seen since the last progress
event. (The stock's place is fixed by the position: the cards in play are the
first eight plus the dealt ones.) Call a position reached right after a
progress event *clean*: its idle count is 0 and it has seen only itself, so
its value depends on the position and ``best`` alone. Call the *idle graph*
the moves of one segment (between two progress events) without the
repetition and idle limits; it depends on the position and ``best`` only.

1. A clean position is won iff some position ``Q`` at idle-graph distance
   ``d <= 50`` from it has a progress move to a won clean position. (If so, a
   shortest path to ``Q`` never repeats a position, so the rules allow it and
   the progress move after it; conversely every line's idle moves up to its
   next progress event are such a path.) So a winning line never needs to
   revisit a position, and reaching a position with fewer idle moves is
   never worse than with more.
2. The table maps ``(position, best)`` to the fewest idle moves with which
   the position has been expanded (all its moves tried; the entry is made
   when the expansion starts, and while it runs the position cannot be met
   again: not in its own segment, where the rules forbid the repetition, nor
   in a later one, whose key differs), and a position met again with at
   least that many is not searched again. Within a segment
   this is depth-bounded reachability with re-expansion at a smaller depth:
   by induction along a shortest path, every ``Q`` at distance ``d`` gets
   expanded with exactly ``d`` idle moves (the move to the next position on
   the path can be masked as a repetition only if that position lies on the
   current line with fewer idle moves, where it was expanded itself), so
   every progress move within reach is tried. Each progress event raises
   the stock's place or ``best`` and neither ever falls, so two segments
   sharing a key ``(position, best)`` are never one inside the other: when
   a position is met with an entry ``i`` from another segment, that segment
   has been searched to the end without a win, so every progress move within
   ``50 - i`` idle moves of the position was tried there and lost.
3. The root may carry its own seen set and idle count; its segment is then
   searched on the idle graph minus the positions it has seen (that segment
   shares keys with no other), and the symmetry below is not used in it.

**Pruning** (each can be switched off, ``prune=()``; tests compare verdicts):

* ``"symmetry"`` (the two packs' identical cards and the columns): positions
  are keyed by card faces, so the two copies of a card are never told apart
  (and the rules keep the two foundation slots of a suit canonical). Once the
  stock is out nothing tells the columns apart but the waived card's origin,
  so the whole game is unchanged by permuting columns (the origin moving
  with its column): the table keys such positions by the sorted columns, and
  of several moves of the same cards into empty columns (not the origin) only
  the one to the first is tried. Both keep every win: the argument of 2 goes
  through with "some column permutation of ``Q`` was expanded with at most
  ``d`` idle moves", since permuted positions have permuted moves and equal
  values.
* ``"bound"`` (the idle limit): once the stock is out, the next progress event
  needs some card not on the foundations to go up first, and before that
  every maximal built run above it in its column must leave (a move takes a
  built run from a column's foot, so no move takes cards of two of those
  runs); in Giant and the pocket version at least ``best - total`` idle
  foundation moves come first too. A position whose idle count plus the larger
  of the two (not their sum: some uncovering moves may be such foundation
  moves) exceeds 50 can make no more progress and is not searched. (A candidate: a
  card that fits a foundation now; where foundation cards come down, any
  card at most one above its suit's highest pile.)

**No safe-move rule.** Playing a "safe" card to a foundation at once (no card
can ever be packed on it) is what other solvers do, but under the progress
rule the usual proof fails: copying a winning line after the early move loses
the progress event the line had when it played that card later, so the idle
stretches before and after that event count as one, which may exceed 50 idle
moves (and positions differing only in that card's place repeat). Without a
proof, foundation moves are only ordered first, never forced.

**Dives.** Before the search, the greedy baseline's own game
(:class:`patience_gym.heuristics.milligan_greedy.GreedyRules`) is played from the
position, then up to ``dives - 1`` more in which each move is, with chance
:data:`NOISE`, a random legal move instead (a fixed seed, so a node budget gives
the same result every time), until :data:`DIVE_SHARE` of either budget is
spent; the first that wins gives the line. Dives only ever find wins (a lost
one proves nothing); the exact search below has the rest of the budget.
``dives=0`` leaves everything to the search.

**Beam** (``beam=W``; it only ever finds wins). :func:`solve` and the solver agent run none
unless asked (the planner's ending searches have no deal left to run one over); the command line
below and the solver benchmark (:mod:`benchmarks.milligan_solver`) run it :data:`BEAM_WIDTH` wide
by default. The depth-first
search commits to its first line through the stock and then spends its budget
on the ending that line left, where a bad position cannot be mended; the
win is usually lost in the choices made between the deals. So, after the
greedy's game and the noisy dives (which then stop at :data:`BEAM_DIVE_SHARE`
of either budget), a beam runs over the deals: from
each of the ``W`` positions kept right after a deal, a best-first search of the
moves before the next deal (by :func:`beam_value`; at most
:data:`BEAM_GAP_NODES` positions) collects every position a deal can follow,
and the ``W`` best-scoring positions after that deal are kept. Then the exact
search above is run from each kept position, best first, with at most
:data:`BEAM_END_NODES` positions each. The beam stops once its share of
either budget is spent (the dives' share included). Its score is the greedy's
evaluation (:func:`patience_gym.heuristics.milligan_moves.evaluation`: a
hundred points a foundation card, less a point a card above the next ones
needed, three points a break in a column, a card not packed on the one below
it, and smaller terms).

``beam_version`` picks the beams (:data:`BEAMS`). Version 1 (the published
tables' until research notes section 23) runs one beam to 80% of the budget.
Version 2, the default and the published tables', runs two,
one after the other: the same to 55%, then one whose score weighs a break as
much as a foundation card, which keeps the columns in order, to 95%; each
keeps, once the stock is out, one of several positions that differ only by a
column permutation. On Giant it wins deals version 1 leaves undecided
(research notes section 23). Their lines are played by the rules
(a state carries its own idle count and seen positions), so a line it finds wins
under the progress rule.

**Move ordering** (never changes a proved verdict): progress foundation moves;
idle foundation moves (back up to ``best``); moves of a whole run that uncover a
card (one fitting a foundation first); moves out of the reserve; the deal;
then every other move.

``nodes`` counts positions expanded and the dives' moves (at most
``max_nodes``); ``max_seconds`` is checked every 256 nodes. The table keys are
64-bit fingerprints (the rules' Zobrist fingerprint, or a hash of the position
up to column permutations), so a false match, which could cut a line, has odds
of about ``n**2 / 2**65`` over ``n`` positions (below one in 10^7 for a
million); the rules' own repetition check takes the same kind of risk.

This module checks the arguments and reports; the search itself is
:class:`agents.solvers.milligan_search.MilliganSearch`.

    python -m agents.solvers.milligan --game giant --seeds 0-19 --max-seconds 3

solves the deals of ``reset(seed=0..19)`` and prints each verdict and the totals.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from agents.base import PlanFollower
from agents.baselines.greedy_milligan import greedy_line
from agents.solvers import check_budget
from agents.solvers.milligan_search import (
    BEAM_DIVE_SHARE,
    BEAM_END_NODES,
    BEAM_GAP_NODES,
    BEAM_VERSION,
    BEAMS,
    DIVE_SHARE,
    DIVES,
    NOISE,
    Beam,
    MilliganSearch,
    OutOfBudget,
    beam_value,
    idle_needed,
)
from patience_gym.games.milligan import MilliganGame, MilliganState
from patience_gym.records import GameRecord, RecordEpisodes

__all__ = [
    "BEAMS",
    "BEAM_DIVE_SHARE",
    "BEAM_END_NODES",
    "BEAM_GAP_NODES",
    "BEAM_VERSION",
    "BEAM_WIDTH",
    "DEFAULT_MAX_NODES",
    "DIVES",
    "DIVE_SHARE",
    "ENV_IDS",
    "NOISE",
    "PRUNINGS",
    "Beam",
    "MilliganSolution",
    "MilliganSolverAgent",
    "beam_value",
    "check_beam",
    "check_beam_version",
    "check_budget",
    "deal",
    "idle_needed",
    "main",
    "solution_record",
    "solve",
]

#: The prunings :func:`solve` uses by default (all of them).
PRUNINGS = ("symmetry", "bound")
#: The beam width of the published solver tables and the command line's default.
BEAM_WIDTH = 30
#: Node budget when neither budget is given.
DEFAULT_MAX_NODES = 200_000
#: Env ids by game name.
ENV_IDS = {
    "miss_milligan": "patience_gym/MissMilligan-v0",
    "giant": "patience_gym/Giant-v0",
    "miss_milligan_pocket": "patience_gym/MissMilliganPocket-v0",
}


@dataclass
class MilliganSolution:
    """What the search found from one position."""

    verdict: str  #: "won", "lost" (proved) or "undecided" (the budget ran out first)
    moves: list[int] = field(repr=False)  #: env actions from the position to a won one ([] unless won)
    nodes: int  #: positions expanded, and moves of the dives
    seconds: float


def check_beam_version(version: Any) -> None:
    """Refuse, by name, a beam version that is not one of :data:`BEAMS`."""
    if isinstance(version, bool) or version not in BEAMS:
        raise ValueError(f"beam_version must be one of {sorted(BEAMS)}, got {version!r}")


def check_beam(beam: Any) -> None:
    """Refuse, by name, a beam width that is not a whole number of positions kept (0: no beam)."""
    if isinstance(beam, bool) or not isinstance(beam, int) or beam < 0:
        raise ValueError(f"beam must be a whole number of positions kept (0: no beam), got {beam!r}")


def solve(
    game: MilliganGame,
    state: MilliganState,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    prune: Collection[str] = PRUNINGS,
    dives: int = DIVES,
    beam: int = 0,
    beam_version: int = BEAM_VERSION,
) -> MilliganSolution:
    """Search ``state`` (its stock order known) for a win within the budgets; see the module docstring.

    ``max_nodes``: positions to expand at most; ``max_seconds``: wall-clock limit. Each must be positive
    when given; with neither, ``max_nodes`` is :data:`DEFAULT_MAX_NODES`. ``prune``: the prunings to use,
    of :data:`PRUNINGS` (tests switch them off; none changes a verdict). ``dives``: games of the greedy
    baseline to play first (the first as it is, the others with noise; see the module docstring); 0 leaves
    everything to the search. ``beam``: the beam's width after the greedy's game (see "Beam"; 0, the
    default, runs none; ``beam_version``: which beams, of :data:`BEAMS`). Neither dives nor the beam ever
    change a verdict other than "won".
    """
    if not isinstance(game, MilliganGame):
        raise TypeError(f"solve() plays the Miss Milligan family, got {type(game).__name__}")
    check_budget("max_nodes", max_nodes, integer=True)
    check_budget("max_seconds", max_seconds, integer=False)
    unknown = set(prune) - set(PRUNINGS)
    if isinstance(prune, str) or unknown:
        raise ValueError(f"prune must be a collection of {PRUNINGS}, got {prune!r}")
    if isinstance(dives, bool) or not isinstance(dives, int) or dives < 0:
        raise ValueError(f"dives must be a whole number of games (0 or more), got {dives!r}")
    check_beam(beam)
    check_beam_version(beam_version)
    if max_nodes is None and max_seconds is None:
        max_nodes = DEFAULT_MAX_NODES
    start = time.perf_counter()
    deadline = start + max_seconds if max_seconds is not None else None
    search = MilliganSearch(game, state.copy(), max_nodes, deadline, prune)
    try:
        line = search.run(dives, beam, beam_version)
    except OutOfBudget:
        return MilliganSolution("undecided", [], search.nodes, time.perf_counter() - start)
    verdict = "lost" if line is None else "won"
    return MilliganSolution(verdict, line or [], search.nodes, time.perf_counter() - start)


def deal(env_id: str, seed: int, **env_kwargs: Any) -> tuple[MilliganGame, MilliganState]:
    """The rules and the deal of ``reset(seed=seed)`` in the registered env."""
    env = gym.make(env_id, **env_kwargs)
    env.reset(seed=seed)
    unwrapped: Any = env.unwrapped
    return unwrapped.game, unwrapped.state


def solution_record(
    env_id: str,
    moves: list[int],
    seed: int | None = None,
    state: Mapping[str, Any] | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
) -> GameRecord:
    """A game record of ``moves`` played in the env from the deal of ``seed`` or from ``state`` (a state dict).

    Raises ``ValueError`` if a move is illegal there (the record then could not be replayed).
    """
    env = RecordEpisodes(gym.make(env_id, **dict(env_kwargs or {})), agent="solver")
    env.reset(seed=seed, options=None if state is None else {"state": dict(state)})
    for i, action in enumerate(moves):
        _, _, terminated, truncated, info = env.step(action)
        if info["illegal_action"]:
            raise ValueError(f"move {i} ({action}) of the line is illegal")
        if (terminated or truncated) and i < len(moves) - 1:
            raise ValueError("the line goes on after the game ended")
    assert env.record is not None
    return env.record


class MilliganSolverAgent(PlanFollower):
    """Plays the solver's winning line where it finds one, else the greedy's game (perfect knowledge of the
    stock: an upper bound, not a fair agent). It wins exactly the deals :func:`solve` proves won."""

    name = "solver"

    def __init__(
        self,
        max_nodes: int | None = 50_000,
        max_seconds: float | None = None,
        beam: int = 0,
        beam_version: int = BEAM_VERSION,
    ) -> None:
        super().__init__()
        check_budget("max_nodes", max_nodes, integer=True)
        check_budget("max_seconds", max_seconds, integer=False)
        check_beam(beam)
        check_beam_version(beam_version)
        self.max_nodes = max_nodes
        self.max_seconds = max_seconds
        self.beam = beam
        self.beam_version = beam_version

    def plan(self, game: MilliganGame, state: MilliganState) -> list[int]:
        found = solve(game, state, self.max_nodes, self.max_seconds, beam=self.beam, beam_version=self.beam_version)
        return found.moves if found.verdict == "won" else greedy_line(game, state)[0]


def _seeds(text: str) -> list[int]:
    """``"0-19"`` or ``"3,5,8"``."""
    seeds: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds.extend(range(int(lo), int(hi or lo) + 1))
    return seeds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(ENV_IDS), default="miss_milligan")
    parser.add_argument("--seeds", default="0", help="deals of reset(seed=...): 0-19 or 3,5,8")
    parser.add_argument("--max-nodes", type=int)
    parser.add_argument("--max-seconds", type=float)
    parser.add_argument("--dives", type=int, default=DIVES, help="greedy games before the search (0: none)")
    parser.add_argument("--beam", type=int, default=BEAM_WIDTH, help="the beam's width (0: no beam)")
    parser.add_argument("--beam-version", type=int, choices=sorted(BEAMS), default=BEAM_VERSION)
    parser.add_argument("--moves", action="store_true", help="print each winning line")
    args = parser.parse_args(argv)
    counts = {"won": 0, "lost": 0, "undecided": 0}
    nodes = 0
    seconds = 0.0
    for seed in _seeds(args.seeds):
        game, state = deal(ENV_IDS[args.game], seed)
        sol = solve(
            game,
            state,
            args.max_nodes,
            args.max_seconds,
            dives=args.dives,
            beam=args.beam,
            beam_version=args.beam_version,
        )
        counts[sol.verdict] += 1
        nodes += sol.nodes
        seconds += sol.seconds
        print(f"seed {seed}: {sol.verdict}, {len(sol.moves)} moves, {sol.nodes} nodes, {sol.seconds:.2f} s", flush=True)
        if args.moves and sol.moves:
            print("  " + " ".join(game.describe_action(a) for a in sol.moves))
    rate = nodes / seconds if seconds else 0.0
    print(f"{args.game}: {counts}; {nodes} nodes in {seconds:.1f} s ({rate:.0f} nodes/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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

    python -m agents.solvers.milligan --game giant --seeds 0-19 --max-seconds 3

solves the deals of ``reset(seed=0..19)`` and prints each verdict and the totals.
"""

from __future__ import annotations

import argparse
import heapq
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

from agents.base import PlanFollower
from agents.baselines.greedy_milligan import greedy_line
from agents.solvers import check_budget
from patience_gym.cards import RANK
from patience_gym.games.milligan import IDLE_LIMIT, MilliganGame, MilliganState
from patience_gym.games.milligan_tables import (
    CC,
    CF,
    DEAL,
    FC,
    FITS,
    MAX_RUN,
    NUM_COLUMNS,
    RC,
    RF,
    SUIT2,
    TOTAL_CARDS,
)
from patience_gym.heuristics.milligan_moves import W_BREAK, W_FOUNDATION, evaluation, remembered_terms
from patience_gym.records import GameRecord, RecordEpisodes

#: The prunings :func:`solve` uses by default (all of them).
PRUNINGS = ("symmetry", "bound")
#: Greedy games played before the search (see "Dives" in the module docstring), and the chance of a
#: random move in each but the first.
DIVES = 200
NOISE = 0.05
#: The share of either budget the dives may spend (the search has the rest), and with a beam.
DIVE_SHARE = 0.5
BEAM_DIVE_SHARE = 0.2
#: Beam settings (see "Beam" in the module docstring): positions searched between two deals from each kept
#: position, and positions searched in each kept ending.
BEAM_GAP_NODES = 300
BEAM_END_NODES = 5_000


class Beam(NamedTuple):
    """One beam of a version (see "Beam")."""

    break_weight: int  #: points its score takes off a position for each break in a column
    share: float  #: share of either budget spent when it stops (the dives' included)
    permuted: bool  #: whether its last layers are keyed up to column permutations


#: The beams of each version (see "Beam"), run one after the other: the greedy's break weight, then a
#: foundation card's worth.
BEAMS: dict[int, tuple[Beam, ...]] = {
    1: (Beam(W_BREAK, 0.8, permuted=False),),
    2: (Beam(W_BREAK, 0.55, permuted=True), Beam(W_FOUNDATION, 0.95, permuted=True)),
}
#: The beam width of the published solver tables and the command line's default.
BEAM_WIDTH = 30
#: The beam's version by default and in the published solver tables (tables and kept shards name their
#: version, so two are never mixed). Version 2 decides more Giant deals (research notes section 23).
BEAM_VERSION = 2
#: Node budget when neither budget is given.
DEFAULT_MAX_NODES = 200_000
#: Env ids by game name.
ENV_IDS = {
    "miss_milligan": "patience_gym/MissMilligan-v0",
    "giant": "patience_gym/Giant-v0",
    "miss_milligan_pocket": "patience_gym/MissMilliganPocket-v0",
}
_TIME_CHECK = 256
_MASK64 = (1 << 64) - 1
_SYMMETRIC = 1 << 71  # marks the keys of positions taken up to column permutations
_CC_SPAN = (NUM_COLUMNS - 1) * MAX_RUN


@dataclass
class MilliganSolution:
    """What the search found from one position."""

    verdict: str  #: "won", "lost" (proved) or "undecided" (the budget ran out first)
    moves: list[int] = field(repr=False)  #: env actions from the position to a won one ([] unless won)
    nodes: int  #: positions expanded, and moves of the dives
    seconds: float


class _OutOfBudget(Exception):
    pass


#: A position kept by the beam: its evaluation, the position and the line from the root to it.
_Kept = tuple[int, MilliganState, list[int]]


def beam_value(state: MilliganState, break_weight: int) -> int:
    """A beam's score of a position: the greedy's evaluation with each break in a column (a card not
    packed on the one below it) weighing ``break_weight`` points (see "Beam")."""
    cover, breaks, vacancies = remembered_terms(state)
    return evaluation(state, (cover, 0, vacancies)) - break_weight * breaks


def check_beam_version(version: Any) -> None:
    """Refuse, by name, a beam version that is not one of :data:`BEAMS`."""
    if isinstance(version, bool) or version not in BEAMS:
        raise ValueError(f"beam_version must be one of {sorted(BEAMS)}, got {version!r}")


def check_beam(beam: Any) -> None:
    """Refuse, by name, a beam width that is not a whole number of positions kept (0: no beam)."""
    if isinstance(beam, bool) or not isinstance(beam, int) or beam < 0:
        raise ValueError(f"beam must be a whole number of positions kept (0: no beam), got {beam!r}")


def _destination(action: int) -> int:
    """The column an action moves cards into, or -1."""
    if action < RC:
        i, rest = divmod(action - CC, _CC_SPAN)
        jj = rest // MAX_RUN
        return jj if jj < i else jj + 1
    if action < RC + NUM_COLUMNS * MAX_RUN:
        return (action - RC) // MAX_RUN
    if FC <= action < DEAL:
        return (action - FC) % NUM_COLUMNS
    return -1


def idle_needed(game: MilliganGame, state: MilliganState) -> int:
    """Fewest idle moves before the next progress event can come (0 while the stock lasts); see ``"bound"``."""
    if state.pos < len(state.stock):
        return 0
    found = state.found
    down = game.down != "never"

    def candidate(c: int) -> bool:
        r = RANK[c] - 1
        s = SUIT2[c]
        if down:
            return r <= max(found[s], found[s + 1])
        return found[s] == r or found[s + 1] == r

    best = 1 << 30
    reserve = state.reserve
    if reserve:
        if candidate(reserve[-1]):
            best = 0
        elif any(candidate(c) for c in reserve):
            best = 1
    for col in state.columns:
        n = len(col)
        if not n or best == 0:
            continue
        blocks = 0
        for r in range(n - 1, -1, -1):
            if blocks >= best:
                break
            if candidate(col[r]):
                best = blocks
                break
            if r == n - 1 or not FITS[col[r] * 52 + col[r + 1]]:
                blocks += 1
    return max(best, state.best - state.total)


def _improves(table: dict[int, int], key: int, idle: int) -> bool:
    """Whether a position with table ``key`` reached after ``idle`` idle moves is new to ``table``, or was
    only searched with more idle moves (fewer idle moves can only reach more under the progress rule)."""
    done = table.get(key)
    return done is None or done > idle


class _Search:
    """One search from one root (see the module docstring)."""

    def __init__(
        self,
        game: MilliganGame,
        root: MilliganState,
        max_nodes: int | None,
        deadline: float | None,
        prune: Collection[str],
    ) -> None:
        """``deadline``: the ``time.perf_counter()`` reading at which the search gives up (None: no limit)."""
        self.game = game
        self.root = root
        self.max_nodes = max_nodes if max_nodes is not None else 1 << 62
        self.start = time.perf_counter()
        self.deadline = deadline
        self.prune = prune
        self.symmetry = "symmetry" in prune
        self.bound = "bound" in prune
        self.nodes = 0
        # the root's own segment, when its seen set restricts it (no symmetry there)
        self.restricted = (root.pos, root.best) if len(root.seen) > 1 else None

    def symmetric(self, state: MilliganState) -> bool:
        """Whether the column permutations may be used at ``state``."""
        return (
            self.symmetry
            and state.pos >= len(state.stock)
            and (self.restricted is None or (state.pos, state.best) != self.restricted)
        )

    @staticmethod
    def key(state: MilliganState, symmetric: bool) -> int:
        """The table key: fingerprint and ``best``, or (``symmetric``) a 64-bit hash of the position up to
        column permutations (bit 71 set, so the two kinds never meet)."""
        if not symmetric:
            return state.hash << 7 | state.best
        origin = state.origin
        cols = sorted((tuple(c), j == origin) for j, c in enumerate(state.columns))
        return hash((state.best, tuple(state.found), tuple(state.reserve), *cols)) & _MASK64 | _SYMMETRIC

    def moves(self, state: MilliganState, symmetric: bool) -> list[int]:
        """The legal moves worth trying, best first (see "Move ordering")."""
        acts = self.game.legal_actions(state)
        cols = state.columns
        if symmetric:
            empties = [j for j in range(NUM_COLUMNS) if not cols[j] and j != state.origin]
            if len(empties) > 1:
                spare = set(empties[1:])
                acts = [a for a in acts if _destination(a) not in spare]
        at_best = state.total == state.best
        found = state.found
        ranked = []
        for a in acts:
            if CF <= a <= RF:
                rank = 0 if at_best else 1
            elif a < RC:
                i, rest = divmod(a - CC, _CC_SPAN)
                k = rest % MAX_RUN + 1
                col = cols[i]
                n = len(col)
                if k == state.runs[i] and n > k:
                    c = col[n - k - 1]
                    s = SUIT2[c]
                    r = RANK[c] - 1
                    rank = 2 if found[s] == r or found[s + 1] == r else 3
                else:
                    rank = 6
            elif a < RC + NUM_COLUMNS * MAX_RUN:
                rank = 4
            elif a == DEAL:
                rank = 5
            else:
                rank = 6
            ranked.append((rank, a))
        ranked.sort()
        return [a for _, a in ranked]

    def tick(self) -> None:
        if self.nodes >= self.max_nodes:
            raise _OutOfBudget
        self.nodes += 1
        if self.deadline is not None and self.nodes % _TIME_CHECK == 0 and time.perf_counter() > self.deadline:
            raise _OutOfBudget

    def greedy(self, rng: np.random.Generator | None = None) -> list[int] | None:
        """The greedy baseline's game from the root (a node per move), a random legal move instead of its
        choice with chance :data:`NOISE` when ``rng`` is given: its line if it wins, else None."""
        line, end = greedy_line(self.game, self.root, NOISE if rng is not None else 0.0, rng, self.tick)
        return line if self.game.is_won(end) else None

    def run(self, dives: int, beam: int = 0, beam_version: int = BEAM_VERSION) -> list[int] | None:
        """A winning line, or None when the search space is exhausted (raises :class:`_OutOfBudget`)."""
        if self.root.total == TOTAL_CARDS:
            return []
        line = self.greedy() if dives else None
        rng = np.random.default_rng(0)
        for _ in range(dives - 1):
            if line is not None or self.spent(BEAM_DIVE_SHARE if beam else DIVE_SHARE):
                break
            line = self.greedy(rng)
        if line is None and beam:
            line = self.beam(beam, beam_version)
        return line if line is not None else self.dfs()

    def spent(self, share: float) -> bool:
        """Whether ``share`` of either budget is spent."""
        if self.nodes >= share * self.max_nodes:
            return True
        now = time.perf_counter()
        return self.deadline is not None and now - self.start > share * (self.deadline - self.start)

    def gap(self, state: MilliganState, line: list[int], break_weight: int) -> tuple[list[int] | None, list[_Kept]]:
        """Best-first (by :func:`beam_value` with ``break_weight``) over the moves before the next deal from
        ``state`` (reached by ``line``): a winning line if one turns up, else every position right after a
        deal that it reached."""
        game = self.game
        seen: dict[int, int] = {}
        heap: list[tuple[int, int, MilliganState, list[int]]] = [(-beam_value(state, break_weight), 0, state, line)]
        dealt: list[_Kept] = []
        pushed = 1
        for _ in range(BEAM_GAP_NODES):
            if not heap:
                break
            _, _, here, to_here = heapq.heappop(heap)
            self.tick()
            for action in game.legal_actions(here):
                child = here.copy()
                game.apply(child, action)
                if child.total == TOTAL_CARDS:
                    return [*to_here, action], dealt
                if action == DEAL:
                    dealt.append((beam_value(child, break_weight), child, [*to_here, action]))
                    continue
                key = self.key(child, False)
                if not _improves(seen, key, child.idle):
                    continue
                seen[key] = child.idle
                heapq.heappush(heap, (-beam_value(child, break_weight), pushed, child, [*to_here, action]))
                pushed += 1
        return None, dealt

    def beam(self, width: int, version: int) -> list[int] | None:
        """A winning line found by the beams of ``version`` over the deals (see "Beam"), or None when they
        found none."""
        if self.root.pos >= len(self.root.stock):
            return None
        for break_weight, share, permuted in BEAMS[version]:
            line = self.one_beam(width, break_weight, share, permuted)
            if line is not None:
                return line
        return None

    def one_beam(self, width: int, break_weight: int, share: float, permuted: bool) -> list[int] | None:
        """A winning line found by one beam (its score's ``break_weight``; ``permuted``: its last layer keyed
        up to column permutations), or None when it found none before ``share`` of either budget was spent."""
        stock = len(self.root.stock)
        layer: list[_Kept] = [(beam_value(self.root, break_weight), self.root, [])]
        while layer[0][1].pos < stock:
            after: dict[int, _Kept] = {}
            for _, state, line in layer:
                if self.spent(share):
                    return None
                won, dealt = self.gap(state, line, break_weight)
                if won is not None:
                    return won
                for kept in dealt:
                    key = self.key(kept[1], permuted and self.symmetric(kept[1]))
                    if key not in after or after[key][0] < kept[0]:
                        after[key] = kept
            if not after:
                return None
            layer = sorted(after.values(), key=lambda kept: -kept[0])[:width]
        for _, state, line in layer:
            if self.spent(share):
                return None
            ending = _Search(
                self.game, state, min(BEAM_END_NODES, self.max_nodes - self.nodes), self.deadline, self.prune
            )
            try:
                end = ending.dfs()
            except _OutOfBudget:
                end = None
            finally:
                self.nodes += ending.nodes
            if end is not None:
                return [*line, *end]
            if self.nodes >= self.max_nodes:
                raise _OutOfBudget
        return None

    def dfs(self) -> list[int] | None:
        """The exact depth-first search (see the module docstring)."""
        game = self.game
        root = self.root
        self.tick()
        table: dict[int, int] = {}
        sym = self.symmetric(root)
        table[self.key(root, sym)] = root.idle
        stack: list[tuple[MilliganState, list[int], list[int]]] = [(root, self.moves(root, sym), [0])]
        path: list[int] = []
        bound = self.bound
        while stack:
            state, acts, at = stack[-1]
            i = at[0]
            if i == len(acts):
                stack.pop()
                if path:
                    path.pop()
                continue
            at[0] = i + 1
            action = acts[i]
            child = state.copy()
            game.apply(child, action)
            if child.total == TOTAL_CARDS:
                path.append(action)
                return path
            sym = self.symmetric(child)
            key = self.key(child, sym)
            if not _improves(table, key, child.idle):
                continue
            if bound and child.idle + idle_needed(game, child) > IDLE_LIMIT:
                continue
            self.tick()
            table[key] = child.idle
            stack.append((child, self.moves(child, sym), [0]))
            path.append(action)
        return None


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
    search = _Search(game, state.copy(), max_nodes, deadline, prune)
    try:
        line = search.run(dives, beam, beam_version)
    except _OutOfBudget:
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

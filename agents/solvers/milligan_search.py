"""The search behind :mod:`agents.solvers.milligan`: dives, beams and the exact depth-first search.

:class:`MilliganSearch` searches one root within a node budget and a deadline;
:func:`agents.solvers.milligan.solve` checks the arguments, runs it and reports the
verdict. Why its transposition table, prunings and move ordering keep every win is
the docstring of :mod:`agents.solvers.milligan`.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Collection
from typing import NamedTuple

import numpy as np

from agents.baselines.greedy_milligan import greedy_line
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

#: Greedy games played before the search (see "Dives" in :mod:`agents.solvers.milligan`), and the chance
#: of a random move in each but the first.
DIVES = 200
NOISE = 0.05
#: The share of either budget the dives may spend (the search has the rest), and with a beam.
DIVE_SHARE = 0.5
BEAM_DIVE_SHARE = 0.2
#: Beam settings (see "Beam" in :mod:`agents.solvers.milligan`): positions searched between two deals from each kept
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
#: The beam's version by default and in the published solver tables (tables and kept shards name their
#: version, so two are never mixed). Version 2 decides more Giant deals (research notes section 23).
BEAM_VERSION = 2
_TIME_CHECK = 256
_MASK64 = (1 << 64) - 1
_SYMMETRIC = 1 << 71  # marks the keys of positions taken up to column permutations
_CC_SPAN = (NUM_COLUMNS - 1) * MAX_RUN


class OutOfBudget(Exception):
    """A budget (nodes or seconds) ran out before the search ended."""


#: A position kept by the beam: its evaluation, the position and the line from the root to it.
_Kept = tuple[int, MilliganState, list[int]]


def beam_value(state: MilliganState, break_weight: int) -> int:
    """A beam's score of a position: the greedy's evaluation with each break in a column (a card not
    packed on the one below it) weighing ``break_weight`` points (see "Beam")."""
    cover, breaks, vacancies = remembered_terms(state)
    return evaluation(state, (cover, 0, vacancies)) - break_weight * breaks


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


class MilliganSearch:
    """One search from one root (see the docstring of :mod:`agents.solvers.milligan`)."""

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
            raise OutOfBudget
        self.nodes += 1
        if self.deadline is not None and self.nodes % _TIME_CHECK == 0 and time.perf_counter() > self.deadline:
            raise OutOfBudget

    def greedy(self, rng: np.random.Generator | None = None) -> list[int] | None:
        """The greedy baseline's game from the root (a node per move), a random legal move instead of its
        choice with chance :data:`NOISE` when ``rng`` is given: its line if it wins, else None."""
        line, end = greedy_line(self.game, self.root, NOISE if rng is not None else 0.0, rng, self.tick)
        return line if self.game.is_won(end) else None

    def run(self, dives: int, beam: int = 0, beam_version: int = BEAM_VERSION) -> list[int] | None:
        """A winning line, or None when the search space is exhausted (raises :class:`OutOfBudget`)."""
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
            ending = MilliganSearch(
                self.game, state, min(BEAM_END_NODES, self.max_nodes - self.nodes), self.deadline, self.prune
            )
            try:
                end = ending.dfs()
            except OutOfBudget:
                end = None
            finally:
                self.nodes += ending.nodes
            if end is not None:
                return [*line, *end]
            if self.nodes >= self.max_nodes:
                raise OutOfBudget
        return None

    def dfs(self) -> list[int] | None:
        """The exact depth-first search (see the docstring of :mod:`agents.solvers.milligan`)."""
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

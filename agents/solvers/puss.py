"""Puss in the Corner solver with perfect knowledge of the pack: won, lost, or an honest "unknown".

The final score is the number of cards on the foundations when the game
ends, and cards never leave the foundations, so the best score of a deal is
the highest score of any position reachable from it, and a position worth
searching is one that can still beat the best found. The search:

* **Greedy start.** The greedy baseline's own game (redeal planning
  included) is played first and is the best found so far, so the solver
  never scores less than the greedy, and a deal the greedy wins costs no
  search (``greedy_start=False`` leaves everything to the search).
* **Depth-first on copies** of the live state (``state.copy()``,
  ``game.apply``), so it plays by the rules module itself.
* **Limited discrepancy.** Children are ordered by the greedy baseline
  (:func:`agents.baselines.greedy_puss.choose_move` first, then the rest by the same
  "wait" measure) and the search runs in rounds: round ``k`` follows the
  greedy choice everywhere except at up to ``k`` decisions (any other child
  costs one discrepancy; the packets are taken up for the redeal lowest mean
  wait first). The rounds stop when the game is won, when a round met no
  discrepancy limit (the search was exhaustive, so the best is proven), or
  when the budget runs out.
* **Transposition table** on a compact key: pass, the remaining pack (the
  pass-2 pack is interned to a small id), the dealt card, the sevens flag,
  the redeal pile, and the four packets *sorted* (the corners are
  interchangeable: merges may pair any two packets and the take-up order is
  free). The foundations are left out: the cards not on them are all named
  in the key, and, since each rank of a colour comes twice and each pile of
  that colour takes one, those cards fix both piles' heights up to swapping
  the two piles of a colour, which are interchangeable. The table keeps the
  discrepancy allowance each position was searched with (or "complete"); a
  position already searched with at least the allowance now offered is
  skipped.
* **Equivalent moves** are tried once: of two piles of a colour needing the
  same rank only the first, and of several empty corners only the first.
* **Safe play** (the one pruning of moves): a card whose twin (the other card
  of its colour and rank) is already on a foundation, and that fits a
  foundation now, is played at once, with no alternatives tried. Why it
  loses nothing: compare playing it (position P') with any line from the
  position P without it. P' can copy that line move for move, skipping the
  moves of the cards it has played early; every other foundation play stays
  legal in P' because P' is ahead only on ranks whose both cards it already
  holds (no later card of that rank exists), and a dealt card the forced
  rule sends to a foundation in P' but not in P again completes its rank in
  P'. So P' ends with at least as many cards. The copy fails only where the
  early card would have given P a sevens privilege: a 7 taken up and dealt
  again in pass 2 (so in pass 1 the rule is used only on ranks 8 and up,
  whose knock-on forced plays are higher still), or a 7 in hand whose
  privilege ends on placing (``sevens_after_placing=False``).
* **Bound** (pass 2 only, when no packet will be taken up again): a card in
  a packet can leave only after every card above it, and a card goes to a
  foundation only after a card of its colour one rank lower (both of them,
  when it is the second of its rank to go up), so the cards that can ever
  reach the foundations are at most a least fixed point of those conditions
  (:func:`upper_bound`). A position whose count cannot beat the best found is
  cut. (A card buried under a higher card of its colour that needs it first,
  for instance, stops that pile for good.)

The best line found is replayed and, where it stops short of the end of the
game, finished by the greedy, so the move list always plays to the end and
its final score is the one reported. ``nodes`` counts positions expanded and
never exceeds ``max_nodes``; ``max_seconds`` is checked every 256 nodes
(the greedy start and finish, one game each, come on top of both budgets).

    python -m agents.solvers.puss --seed 3 [--max-nodes N] [--max-seconds S]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from agents.base import PlanFollower
from agents.solvers import check_budget, check_budget_option
from patience_gym.cards import RANK, RED
from patience_gym.env import PatienceEnv
from patience_gym.games.puss import (
    CORNER_TO_FOUNDATION,
    DEAL,
    FOUNDATION_RED,
    MERGE,
    MERGES,
    NUM_CORNERS,
    TAKE,
    TO_CORNER,
    TO_FOUNDATION,
    PussInTheCorner,
    PussState,
)
from patience_gym.heuristics.puss_greedy import NO_WAIT, choose_move, lowest_bit, waits

WON_SCORE = 52
_COMPLETE = 1 << 30  # table value of a position whose whole subtree has been searched
_TIME_CHECK = 256


@dataclass
class PussSolution:
    """What the search found from one position."""

    verdict: str  #: "won", "lost" (proven) or "unknown" (budget ran out before a win or a proof)
    cards: int  #: cards on the foundations at the end of ``moves`` (4..52)
    moves: list[int] = field(repr=False)  #: env actions from the position to the end of the game
    nodes: int  #: positions expanded
    proven: bool  #: ``cards`` is the best possible (always when won; when lost, the search was exhaustive)
    seconds: float


class _OutOfBudget(Exception):
    pass


class _Won(Exception):
    pass


class _Search:
    """One search from one root (see the module docstring)."""

    def __init__(
        self,
        game: PussInTheCorner,
        root: PussState,
        max_nodes: int | None,
        max_seconds: float | None,
        greedy_start: bool = True,
    ) -> None:
        self.game = game
        self.root = root
        self.max_nodes = max_nodes if max_nodes is not None else 1 << 62
        self.deadline = time.perf_counter() + max_seconds if max_seconds is not None else None
        self.sevens_after = game.options.sevens_after_placing
        self.table: dict[tuple[Any, ...], int] = {}
        self.pack_ids: dict[int, tuple[tuple[int, ...], int]] = {}
        self.packs_by_content: dict[tuple[int, ...], int] = {}
        self.path: list[int] = []
        self.best = root.score
        self.best_path: list[int] = []
        self.nodes = 0
        self.greedy_start = greedy_start

    def run(self) -> bool:
        """Search in rounds of growing discrepancy allowance; True when the last round was exhaustive."""
        if self.greedy_start:
            self.seed_with_greedy()
        if self.best == WON_SCORE:
            return True
        allowance = 0
        try:
            while True:
                if self.dfs(self.root, allowance):
                    return True
                allowance += 1
        except (_Won, _OutOfBudget):
            return self.best == WON_SCORE

    def seed_with_greedy(self) -> None:
        """Start from the greedy baseline's own game (redeal planning included): the solver never does worse."""
        game = self.game
        state = self.root.copy()
        line = []
        while not game.is_over(state):
            action = choose_move(game, state)
            game.apply(state, action)
            line.append(action)
        if state.score > self.best:
            self.best, self.best_path = state.score, line

    # --- the search -------------------------------------------------------
    def dfs(self, state: PussState, allowance: int) -> bool:
        """Search below ``state``; True when its whole subtree has been searched (or cut soundly)."""
        key = self.key(state)
        seen = self.table.get(key, -1)
        if seen >= allowance:
            return seen == _COMPLETE
        if self.nodes >= self.max_nodes:
            raise _OutOfBudget
        self.nodes += 1
        if self.deadline is not None and self.nodes % _TIME_CHECK == 0 and time.perf_counter() > self.deadline:
            raise _OutOfBudget
        if state.score > self.best:
            self.best = state.score
            self.best_path = self.path[:]
            if state.score == WON_SCORE:
                raise _Won
        game = self.game
        bits = game.legal_bits(state)
        if not bits or (state.pass_no == 2 and upper_bound(state) <= self.best):
            self.table[key] = _COMPLETE
            return True
        self.table[key] = allowance
        safe = self.safe_play(state, bits)
        if safe >= 0:
            moves = [safe]
        elif allowance == 0:
            moves = [first_move(game, state, bits)]
        else:
            moves = ordered_moves(game, state, bits)
        complete = True
        path = self.path
        for i, action in enumerate(moves):
            child = state.copy()
            game.apply(child, action)
            path.append(action)
            done = self.dfs(child, allowance - (i > 0))
            path.pop()
            complete = complete and done
        if allowance == 0 and safe < 0 and bits & (bits - 1):
            complete = False  # the other children were not offered
        if complete:
            self.table[key] = _COMPLETE
        return complete

    def key(self, state: PussState) -> tuple[Any, ...]:
        pack = state.pack
        entry = self.pack_ids.get(id(pack))
        if entry is None:
            pid = self.packs_by_content.setdefault(pack, len(self.packs_by_content))
            entry = self.pack_ids[id(pack)] = (pack, pid)  # the pack is kept alive, so its id stays unique
        corners = sorted([tuple(c) for c in state.corners])
        return (
            state.pass_no,
            entry[1],
            state.pos,
            state.hand,
            state.seven,
            corners[0],
            corners[1],
            corners[2],
            corners[3],
            tuple(state.redeal),
        )

    def safe_play(self, state: PussState, bits: int) -> int:
        """A foundation play that loses nothing (see the module docstring), or -1."""
        hand = state.hand
        if hand >= 0:
            fits = bits >> TO_FOUNDATION & 0b1111
            if fits and self._is_safe(state, hand) and not (state.seven and not self.sevens_after):
                return TO_FOUNDATION + lowest_bit(fits)
            return -1
        plays = bits >> CORNER_TO_FOUNDATION & 0xFFFF
        if not plays:
            return -1
        for k in range(NUM_CORNERS):
            fits = plays >> (4 * k) & 0b1111
            if fits and self._is_safe(state, state.corners[k][-1]):
                return CORNER_TO_FOUNDATION + 4 * k + lowest_bit(fits)
        return -1

    @staticmethod
    def _is_safe(state: PussState, card: int) -> bool:
        """``card`` fits now and its twin is on a foundation (and it is no 7 that may be dealt again)."""
        rank = RANK[card]
        if state.pass_no == 1 and rank <= 7:
            return False
        red = RED[card]
        # The twin is on a foundation when a pile of the card's colour has passed its rank.
        return any(state.need[f] > rank for f in range(4) if FOUNDATION_RED[f] == red)


def upper_bound(state: PussState) -> int:
    """Most cards that can reach the foundations once no packet will be taken up again (pass 2).

    A card of rank ``r`` goes to a foundation as the first or the second card of its colour and rank
    there, after one or both cards of rank ``r - 1`` of its colour; where its twin is there already it
    must be the second. A card in a packet goes only after every card above it. So the cards that can
    ever get there lie within the least fixed point of: "free (dealt or in the pack) or under only such
    cards, with more cards of the rank below on the foundations or in the fixed point than cards of its
    own rank on the foundations".
    """
    founded = [[0] * 15, [0] * 15]  # cards of each colour and rank on the foundations
    for f in range(4):
        row = founded[FOUNDATION_RED[f]]
        for r in range(1, state.need[f]):
            row[r] += 1
    have = [founded[0][:], founded[1][:]]  # on the foundations or able to get there
    waiting = [state.hand] if state.hand >= 0 else []
    waiting.extend(state.pack[state.pos :])
    tops = [len(c) for c in state.corners]  # per packet, how many cards are not yet shown able to go
    gained = 0
    progress = True
    while progress:
        progress = False
        still = []
        for c in waiting:
            colour, rank = RED[c], RANK[c]
            if have[colour][rank - 1] > founded[colour][rank]:
                have[colour][rank] += 1
                gained += 1
                progress = True
            else:
                still.append(c)
        waiting = still
        for k, packet in enumerate(state.corners):
            i = tops[k]
            while i:
                c = packet[i - 1]
                colour, rank = RED[c], RANK[c]
                if have[colour][rank - 1] <= founded[colour][rank]:
                    break
                have[colour][rank] += 1
                gained += 1
                progress = True
                i -= 1
            tops[k] = i
    return state.score + gained


def ordered_moves(game: PussInTheCorner, state: PussState, bits: int) -> list[int]:
    """The legal moves, equivalent ones once, the greedy's choice first, then by the greedy's measures."""
    first = first_move(game, state, bits)
    w = waits(state)
    corners = state.corners
    moves: list[int] = []
    if state.hand >= 0:
        fits = bits >> TO_FOUNDATION & 0b1111
        if fits:
            moves.append(TO_FOUNDATION + lowest_bit(fits))
        if bits >> TO_CORNER & 0b1111:
            moves.extend(TO_CORNER + k for k in _corner_order(corners, w, w[state.hand]))
    else:
        plays = bits >> CORNER_TO_FOUNDATION & 0xFFFF
        ranked = []
        for k in range(NUM_CORNERS):
            fits = plays >> (4 * k) & 0b1111
            if fits:
                under = w[corners[k][-2]] if len(corners[k]) > 1 else NO_WAIT
                ranked.append((under, CORNER_TO_FOUNDATION + 4 * k + lowest_bit(fits)))
        moves.extend(a for _, a in sorted(ranked))
        if bits >> DEAL & 1:
            moves.append(DEAL)
        moves.extend(TAKE + k for k in _take_order(corners, w, bits))
    if state.seven:
        moves.extend(_merge_order(corners, w, bits))
    if first in moves:
        moves.remove(first)
    return [first, *moves]


def first_move(game: PussInTheCorner, state: PussState, bits: int) -> int:
    """The greedy's move, except that the packets are taken up in :func:`_take_order`."""
    action = choose_move(game, state, plan_redeal=False)
    if action >= TAKE:
        return TAKE + _take_order(state.corners, waits(state), bits)[0]
    return action


def _take_order(corners: list[list[int]], w: Sequence[int], bits: int) -> list[int]:
    """Packets that may be taken up, the one whose cards are wanted soonest (lowest mean wait) first."""
    takes = [k for k in range(NUM_CORNERS) if bits >> (TAKE + k) & 1]
    return sorted(takes, key=lambda k: sum(w[c] for c in corners[k]) / len(corners[k]))


def _corner_order(corners: list[list[int]], w: Sequence[int], wc: int) -> list[int]:
    """Packets for a card of wait ``wc``: over a top that waits longer (closest first), one empty corner,
    then over the others (longest-waiting top first)."""
    ranked = []
    empty_seen = False
    for k, packet in enumerate(corners):
        if not packet:
            if not empty_seen:
                empty_seen = True
                ranked.append((1, 0, k))
            continue
        wt = w[packet[-1]]
        ranked.append((0, wt - wc, k) if wt > wc else (2, -wt, k))
    return [k for *_, k in sorted(ranked)]


def _merge_order(corners: list[list[int]], w: Sequence[int], bits: int) -> list[int]:
    """Legal merges, the least harmful first (a pair harms by how far X's cards outwait Y's top)."""
    ranked = []
    for i, pairs in enumerate(MERGES):
        action = MERGE + i
        if bits >> action & 1:
            harm = sum(max(0, max(w[c] for c in corners[x]) - w[corners[y][-1]] + 1) for x, y in pairs)
            ranked.append((harm, -len(pairs), action))
    return [a for *_, a in sorted(ranked)]


def solve(
    game: PussInTheCorner,
    state: PussState,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    greedy_start: bool = True,
) -> PussSolution:
    """Best play from ``state`` with the whole pack known, within the budgets (positive; None: unlimited).

    ``greedy_start``: begin from the greedy baseline's own game (so the result is never worse than the
    greedy's, and a greedy win costs no search); False leaves everything to the search (for tests).
    """
    check_budget("max_nodes", max_nodes, integer=True)
    check_budget("max_seconds", max_seconds, integer=False)
    start = time.perf_counter()
    search = _Search(game, state.copy(), max_nodes, max_seconds, greedy_start)
    exhaustive = game.is_over(state) or search.run()
    line = list(search.best_path)
    end = state.copy()
    for action in line:
        game.apply(end, action)
    while not game.is_over(end):  # finish a line that stops short of the end (score never drops)
        action = choose_move(game, end)
        game.apply(end, action)
        line.append(action)
    cards = end.score
    won = cards == WON_SCORE
    verdict = "won" if won else ("lost" if exhaustive else "unknown")
    return PussSolution(verdict, cards, line, search.nodes, won or exhaustive, time.perf_counter() - start)


class PussSolverAgent(PlanFollower):
    """Plays the solver's line (perfect knowledge of the pack: an upper bound, not a fair agent)."""

    name = "solver"

    def __init__(self, max_nodes: int | None = 50_000, max_seconds: float | None = None) -> None:
        super().__init__()
        check_budget("max_nodes", max_nodes, integer=True)
        check_budget("max_seconds", max_seconds, integer=False)
        self.max_nodes = max_nodes
        self.max_seconds = max_seconds

    def position(self, env: PatienceEnv) -> tuple[PussInTheCorner, PussState]:
        assert isinstance(env.game, PussInTheCorner), "PussSolverAgent plays Puss in the Corner only"
        return env.game, env.state

    def plan(self, game: PussInTheCorner, state: PussState) -> list[int]:
        return solve(game, state, self.max_nodes, self.max_seconds).moves

    def on_plan(self, state: PussState, mask: np.ndarray) -> bool:
        """As the base, and the plan's next move is legal."""
        return super().on_plan(state, mask) and bool(mask[self._plan[0]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="deal of reset(seed=SEED)")
    parser.add_argument("--max-nodes", type=int)
    parser.add_argument("--max-seconds", type=float)
    args = parser.parse_args(argv)
    check_budget_option(parser, "--max-nodes", args.max_nodes, integer=True)
    check_budget_option(parser, "--max-seconds", args.max_seconds, integer=False)
    env = gym.make("patience_gym/PussInTheCorner-v0")
    env.reset(seed=args.seed)
    game, state = env.unwrapped.game, env.unwrapped.state  # type: ignore[attr-defined]
    sol = solve(game, state, args.max_nodes, args.max_seconds)
    print(f"{sol.verdict}: {sol.cards} cards ({'proven' if sol.proven else 'not proven'}), {sol.nodes} nodes")
    print(" ".join(game.describe_action(a).replace(" ", "") for a in sol.moves))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

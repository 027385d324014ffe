"""Exact Golf solver with perfect knowledge of the stock order: the upper bound on play.

The score of a hole depends only on where it ends, so the best score of a
deal is the minimum over the terminal positions reachable from it. A
depth-first search over positions (column heights, stock position, waste
rank: suits never matter in Golf) visits each position once and keeps the
move list of the best end found. A position is cut when no end below it can
beat the best found, by two lower bounds on its score: ``-stock_left``
(clearing the links at once), and ``chains - chains_left``, where a "chain"
is a run of plays between deals: ranks alternate parity along a chain (one
extra step per Ace or King left, under ``wrap_ranks``) and a card nothing may
go on (the King, by the book) ends one, so clearing the links takes at least
``max(|odd - even| - wraps, kings)`` chains, and each chain missing leaves a
card on the links.

    python -m agents.solvers.golf board.txt [--queens-on-kings] [--wrap-ranks]

reads PySolFC / black-hole-solver board text and prints the minimum score
and a move list (in the env's notation) that reaches it.
"""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import dataclass

from agents.base import PlanFollower
from agents.solvers import check_budget, check_budget_option
from patience_gym.cards import RANK
from patience_gym.env import PatienceEnv
from patience_gym.games.golf import DEAL, NUM_COLUMNS, Golf, GolfState, hole_in_play


@dataclass
class GolfSolution:
    """The best score reachable from a position and a move list reaching it."""

    score: int
    moves: list[int]  # env actions, from the given position to the end of the hole
    nodes: int  # positions searched, at most ``max_nodes``
    exact: bool  # False when the node budget ran out: ``moves`` reach ``score``, but it is not proven best


try:  # the same search in C, built by `pip install -e .` when a compiler is present
    from agents.solvers import _golf_solver as _fast  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the build
    _fast = None

HAVE_FAST = _fast is not None

_NO_SCORE = 10**9  # best score before any end is found
_POS_SHIFT = 21  # position key: 3 bits per column height, then the stock position, then the waste rank
_WASTE_SHIFT = 27


@functools.lru_cache(maxsize=8)
def _fits_bytes(fits: tuple[tuple[bool, ...], ...]) -> bytes:
    """The rules' fits table as the C core reads it (one byte per pair of ranks); one copy per rule set."""
    return bytes(int(f) for row in fits for f in row)


def solve(game: Golf, state: GolfState, max_nodes: int | None = None, fast: bool = True) -> GolfSolution:
    """Minimum score reachable from ``state`` (perfect knowledge) and moves reaching it.

    Uses the C core when built (``fast=True``), else :func:`solve_python`. With
    ``max_nodes``, the search stops after that many positions and returns the
    best end found so far (or, if none yet, the line it was on finished by first
    legal moves), with ``exact=False``; it must be positive (None: no limit).
    """
    check_budget("max_nodes", max_nodes, integer=True)
    if fast and _fast is not None:
        fits = _fits_bytes(game.fits)
        columns = [[RANK[c] for c in col] for col in state.columns]
        stock = [RANK[c] for c in state.stock[state.pos :]]
        budget = max_nodes if max_nodes is not None else 2**62
        score, moves, nodes, exact = _fast.solve(fits, columns, stock, RANK[state.waste[-1]], budget)
        return GolfSolution(score, moves, nodes, exact)
    return solve_python(game, state, max_nodes)


def solve_python(game: Golf, state: GolfState, max_nodes: int | None = None) -> GolfSolution:
    """The reference search in pure Python (what the C core does, move for move, more slowly)."""
    check_budget("max_nodes", max_nodes, integer=True)
    fits = game.fits
    columns = [[RANK[c] for c in col] for col in state.columns]
    stock = [RANK[c] for c in state.stock[state.pos :]]
    n_stock = len(stock)
    heights = [len(c) for c in columns]
    sign, wraps, blocker = _rank_weights(game)
    visited: set[int] = set()
    path: list[int] = []
    best_score = _NO_SCORE
    best_path: list[int] = []
    nodes = 0
    budget = max_nodes if max_nodes is not None else 10**18
    out_of_budget = False

    def playout(pos: int, waste: int, left: int) -> None:
        """Budget spent before any end was found: finish the line by first legal moves."""
        nonlocal best_score, best_path
        line = path[:]
        height = heights[:]
        while left:
            fit = fits[waste]
            column = next((i for i in range(NUM_COLUMNS) if height[i] and fit[columns[i][height[i] - 1]]), None)
            if column is not None:
                height[column] -= 1
                waste, left = columns[column][height[column]], left - 1
                line.append(column)
            elif pos < n_stock:
                waste, pos = stock[pos], pos + 1
                line.append(DEAL)
            else:
                break
        best_score, best_path = (left if left else pos - n_stock), line

    def dfs(hkey: int, pos: int, waste: int, left: int, imbalance: int, slack: int, kings: int) -> None:
        nonlocal best_score, best_path, nodes, out_of_budget
        stock_left = n_stock - pos
        if best_score <= -stock_left:  # even clearing now could not beat the best
            return
        chains = max(abs(imbalance) - slack, kings)  # runs of plays needed to clear the links
        if left and best_score <= chains - stock_left - (not blocker[waste]):
            return
        key = hkey | pos << _POS_SHIFT | waste << _WASTE_SHIFT
        if key in visited:
            return
        visited.add(key)
        if nodes >= budget:
            out_of_budget = True
            if best_score == _NO_SCORE:
                playout(pos, waste, left)
            return
        nodes += 1
        if left == 0:
            best_score, best_path = -stock_left, path[:]
            return
        fit = fits[waste]
        moved = False
        for i in range(NUM_COLUMNS):
            h = heights[i]
            if h and fit[columns[i][h - 1]]:
                moved = True
                card = columns[i][h - 1]
                heights[i] = h - 1
                path.append(i)
                dfs(
                    hkey - (1 << 3 * i),
                    pos,
                    card,
                    left - 1,
                    imbalance - sign[card],
                    slack - wraps[card],
                    kings - blocker[card],
                )
                path.pop()
                heights[i] = h
                if out_of_budget:
                    return
        if pos < n_stock:
            path.append(DEAL)
            dfs(hkey, pos + 1, stock[pos], left, imbalance, slack, kings)
            path.pop()
        elif not moved and left < best_score:
            best_score, best_path = left, path[:]

    hkey = sum(h << 3 * i for i, h in enumerate(heights))
    links = [r for col in columns for r in col]
    dfs(
        hkey,
        0,
        RANK[state.waste[-1]],
        len(links),
        sum(sign[r] for r in links),
        sum(wraps[r] for r in links),
        sum(blocker[r] for r in links),
    )
    return GolfSolution(best_score, best_path, nodes, not out_of_budget)


def _rank_weights(game: Golf) -> tuple[list[int], list[int], list[int]]:
    """Per rank: parity sign, 1 for a rank a wrap (K-A) step may reach, 1 for a rank nothing goes on."""
    fits = game.fits
    sign = [0] + [1 if r % 2 else -1 for r in range(1, 14)]
    wraps = [int(r in (1, 13) and fits[1][13]) for r in range(14)]
    blocker = [int(r > 0 and not any(fits[r])) for r in range(14)]
    return sign, wraps, blocker


class GolfSolverAgent(PlanFollower):
    """Plays the solver's move list: perfect knowledge of the stock (an upper bound, not a fair agent)."""

    name = "solver"

    def __init__(self, max_nodes: int | None = None) -> None:
        super().__init__()
        check_budget("max_nodes", max_nodes, integer=True)
        self.max_nodes = max_nodes

    def position(self, env: PatienceEnv) -> tuple[Golf, GolfState]:
        """The hole in play (of a Golf or a nine-hole GolfRound game)."""
        return hole_in_play(env.game, env.state)

    def plan(self, game: Golf, state: GolfState) -> list[int]:
        return solve(game, state, self.max_nodes).moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board", help="board text file ('-' for standard input)")
    parser.add_argument("--queens-on-kings", action="store_true")
    parser.add_argument("--wrap-ranks", action="store_true")
    parser.add_argument("--max-nodes", type=int)
    args = parser.parse_args(argv)
    check_budget_option(parser, "--max-nodes", args.max_nodes, integer=True)
    if args.board == "-":
        text = sys.stdin.read()
    else:
        with open(args.board) as handle:
            text = handle.read()
    game = Golf(queens_on_kings=args.queens_on_kings, wrap_ranks=args.wrap_ranks)
    try:
        state = game.from_text(text)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    solution = solve(game, state, args.max_nodes)
    verdict = "cleared" if solution.score <= 0 else "not cleared"
    proof = "" if solution.exact else " (node budget reached: best found, not proven)"
    print(f"best score {solution.score} ({verdict}){proof}, {solution.nodes} positions searched")
    print(" ".join(game.describe_action(a) for a in solution.moves))
    return 0


if __name__ == "__main__":
    sys.exit(main())

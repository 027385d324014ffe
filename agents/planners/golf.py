"""Golf planner: hindsight optimisation with the exact solver on sampled stock orders.

For each legal move and each sampled world (the links and waste as seen, the
unseen cards in a random order as the stock), the exact solver gives the
best score reachable after the move if that stock order were the real one;
the move with the lowest mean wins (ties: the greedy's move). This is the hindsight optimisation
used for Klondike by Bjarnason, Fern and Tadepalli (2009): optimistic,
since each world is solved as if its stock were known, but it sees runs
and blocked ranks that a one-move rule cannot.

Budget per move (defaults): 16 sampled stocks, each solved exactly after
every candidate move (at most 2,000,000 solver nodes per world, which the
opening positions need: within 20,000 a solve is far from the best and the
planner played about half a card a hole worse; research notes, section 13),
and no new world once 3 s have gone (a guard: a move takes about 0.1 s on
average). In a nine-hole round the planner plays each hole the same way
(holes are independent).

Once the stock holds at most ``exact_from`` cards (11 by default; ``planner:exact_from=none`` switches it
off), each move is instead the best for a player who does not see the stock order,
computed exactly (:mod:`agents.solvers.golf_expectimax`), where that takes at most ``exact_positions``
chance positions (else sampling chooses the move, and the exact search waits for the next card). Over the
holes of seeds 0-299 that scores 4.87 a hole against 5.16, at 0.15 s a move against 0.11 (research
notes, section 29).
"""

from __future__ import annotations

from agents.planners.base import DeterminizationPlanner
from agents.solvers import check_budget
from agents.solvers.golf import solve
from agents.solvers.golf_expectimax import action_values
from patience_gym.env import PatienceEnv
from patience_gym.games.golf import Golf, GolfState, hole_in_play
from patience_gym.heuristics.golf_greedy import choose_move

SAMPLES = 16
MAX_NODES = 2_000_000
MAX_SECONDS = 3.0
EXACT_POSITIONS = 1_000_000
EXACT_FROM = 11


class GolfPlanner(DeterminizationPlanner):
    """Hindsight optimisation over sampled stock orders (see module docstring)."""

    def __init__(
        self,
        samples: int = SAMPLES,
        max_seconds: float | None = MAX_SECONDS,
        max_nodes: int | None = MAX_NODES,
        exact_from: int | None = EXACT_FROM,
        exact_positions: int = EXACT_POSITIONS,
    ) -> None:
        super().__init__(samples, max_seconds)
        check_budget("max_nodes", max_nodes, integer=True)
        if exact_positions < 0:
            raise ValueError(f"exact_positions must be at least 0, not {exact_positions}")
        if exact_from is not None and exact_from < 0:
            raise ValueError(f"exact_from must be at least 0 stock cards (or None: off), not {exact_from}")
        self.max_nodes = max_nodes
        self.exact_from = exact_from
        self.exact_positions = exact_positions
        self.stats["exact"] = 0
        self.stats["exact_given_up"] = 0
        self._given_up: tuple[int, int] = (-1, -1)  # (stock left, links left) where the exact search ran out
        self._part = 0  # the hole in play of a round (:meth:`patience_gym.core.Game.part`)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._given_up, self._part = (-1, -1), 0

    def position(self, env: PatienceEnv) -> tuple[Golf, GolfState]:
        part = env.game.part(env.state)
        if part != self._part:  # a new hole: where the exact search ran out in the last one says nothing here
            self._given_up, self._part = (-1, -1), part
        return hole_in_play(env.game, env.state)

    def shortcut(self, game: Golf, state: GolfState, legal: list[int]) -> int | None:
        """The exact move for a player who does not see the stock, once it is affordable (ties: the greedy's)."""
        if self.exact_from is None or state.stock_left > self.exact_from:
            return None
        if state.stock_left == self._given_up[0] and state.links_left <= self._given_up[1]:
            return None  # ran out of positions earlier in this turn: wait for the next card
        values = action_values(game, state, self.exact_positions)
        if values is None:
            self._given_up = (state.stock_left, state.links_left)
            self.stats["exact_given_up"] += 1
            return None
        self.stats["exact"] += 1
        best = min(values[a] for a in legal)  # type: ignore[type-var]
        tied = [a for a in legal if values[a] == best]
        if len(tied) == 1:
            return tied[0]
        greedy = choose_move(game, state, game.legal_mask(state))
        return greedy if greedy in tied else tied[0]

    def preferred(self, game: Golf, world: GolfState) -> int:
        return choose_move(game, world, game.legal_mask(world))

    def value(self, game: Golf, world: GolfState, action: int) -> float:
        after = world.copy()
        game.apply(after, action)
        if game.is_over(after):
            return -game.score(after)
        return -float(solve(game, after, self.max_nodes).score)

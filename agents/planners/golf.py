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
"""

from __future__ import annotations

from agents.planners.base import DeterminizationPlanner
from agents.solvers.golf import solve
from patience_gym.env import PatienceEnv
from patience_gym.games.golf import Golf, GolfState, hole_in_play
from patience_gym.heuristics.golf_greedy import choose_move

SAMPLES = 16
MAX_NODES = 2_000_000
MAX_SECONDS = 3.0


class GolfPlanner(DeterminizationPlanner):
    """Hindsight optimisation over sampled stock orders (see module docstring)."""

    def __init__(
        self, samples: int = SAMPLES, max_seconds: float | None = MAX_SECONDS, max_nodes: int | None = MAX_NODES
    ) -> None:
        super().__init__(samples, max_seconds)
        self.max_nodes = max_nodes

    def position(self, env: PatienceEnv) -> tuple[Golf, GolfState]:
        return hole_in_play(env.game, env.state)

    def preferred(self, game: Golf, world: GolfState) -> int:
        return choose_move(game, world, game.legal_mask(world))

    def value(self, game: Golf, world: GolfState, action: int) -> float:
        after = world.copy()
        game.apply(after, action)
        if game.is_over(after):
            return -game.score(after)
        return -float(solve(game, after, self.max_nodes).score)

"""Miss Milligan family planner: greedy rollouts on sampled stock orders, then the exact solver once the stock is out.

**While cards are in the stock**, each sampled world deals the unseen cards
(the two packs minus the columns, the foundations and the waiver or pocket:
:meth:`~patience_gym.core.Game.determinize`) in a random order as the stock.
A candidate move is scored by playing the greedy baseline
(:mod:`agents.baselines.greedy_milligan`, which reads only the visible position) after
it until ``deals`` deals have been made (the move itself counting if it is
one) and the greedy is about to deal again, or the end, or ``max_moves``
moves, and taking the greedy's position score there. Every candidate is
thus judged after the same number of deals, so dealing early gains nothing
from a fixed move horizon. (The score: +100 per card on the foundations,
less covered needed cards, broken sequences and a held reserve card; see
:func:`agents.baselines.greedy_milligan.evaluate`.)

To keep a game within seconds the search is pruned, as a heuristic (not
a proven dominance): a card raising the foundations to a new high is played
at once, as the greedy does; and only the greedy's own move and the ``top``
other moves whose resulting positions score best are searched. The deal is
searched only when it is the greedy's move: the planner never deals earlier
than the greedy would (it may deal later, having found a better move). On
the same 20 deals per game, letting it deal earlier made it worse than the
greedy in all three games. With only a few sampled stocks the values are
noisy, so another move must beat the greedy's by ``margin`` (50: half a
foundation card) on average.

**Once the stock is out nothing is hidden**, and the position is solved
exactly: the perfect-knowledge solver (:func:`agents.solvers.milligan.solve`)
searches it once, with at most ``endgame_nodes`` positions, and the planner
plays its winning line (searching again if play ever leaves it); where the
budget runs out first or the position is lost, it plays the greedy's game.
This is fair play, not a peek: the solver reads the stock, and the stock is
empty. (Short rollouts misjudged these endings, moving foundation cards down
into dead ends in Giant and the pocket version; the greedy alone loses most
endings the solver wins.) ``endgame_nodes=None`` plays the greedy's ending.

Budget per move (defaults): 3 sampled stocks, rollouts through one deal
and at most 60 moves, 4 candidates besides the greedy's move, no new world
once 1 s has gone; 20,000 positions for the ending, once a game. Results
against the greedy: ``benchmarks/results/planners.md``.
"""

from __future__ import annotations

import numpy as np

from agents.baselines.greedy_milligan import MilliganGreedy, evaluate
from agents.planners.base import DeterminizationPlanner
from agents.solvers.milligan import MilliganSolverAgent, check_budget
from patience_gym.env import PatienceEnv
from patience_gym.games.milligan import MilliganGame, MilliganState
from patience_gym.games.milligan_tables import CF, DEAL, RF

SAMPLES = 3
DEALS = 1
MAX_MOVES = 60
TOP = 4
MAX_SECONDS = 1.0
MARGIN = 50.0
ENDGAME_NODES = 20_000


class MilliganPlanner(DeterminizationPlanner):
    """Depth-limited greedy rollouts over sampled stocks, pruned; the exact solver once the stock is out
    (see the module docstring)."""

    def __init__(
        self,
        samples: int = SAMPLES,
        max_seconds: float | None = MAX_SECONDS,
        deals: int = DEALS,
        max_moves: int = MAX_MOVES,
        top: int = TOP,
        margin: float = MARGIN,
        endgame_nodes: int | None = ENDGAME_NODES,
    ) -> None:
        super().__init__(samples, max_seconds, margin)
        self._greedy = MilliganGreedy()
        check_budget("endgame_nodes", endgame_nodes, integer=True)
        self.endgame_nodes = endgame_nodes
        self._endgame = None if endgame_nodes is None else MilliganSolverAgent(max_nodes=endgame_nodes)
        self.deals = deals
        self.max_moves = max_moves
        self.top = top

    def position(self, env: PatienceEnv) -> tuple[MilliganGame, MilliganState]:
        assert isinstance(env.game, MilliganGame), "MilliganPlanner plays the Miss Milligan family only"
        return env.game, env.state

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._greedy.reset()
        if self._endgame is not None:
            self._endgame.reset()

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        game, state = self.position(env)
        if state.stock_left == 0 and self._endgame is not None:
            assert not game.unseen_cards(state), "the endgame search is for open positions only"
            return self._endgame.act(env, obs, mask)
        return super().act(env, obs, mask)

    def shortcut(self, game: MilliganGame, state: MilliganState, legal: list[int]) -> int | None:
        if state.stock_left == 0:  # nothing hidden: the greedy's own search plays the ending
            return self._greedy.choose(game, state, game.legal_mask(state))
        for action in legal:
            if CF <= action <= RF and game.is_progress(state, action):
                return action
        return None

    def candidates(self, game: MilliganGame, state: MilliganState, legal: list[int]) -> list[int]:
        scored = []
        for action in legal:
            if action == DEAL:
                continue  # dealing reads the stock: never tried on the real state
            after = state.copy()
            game.apply(after, action)
            scored.append((-evaluate(after), action))
        scored.sort()
        kept = {a for _, a in scored[: self.top]}
        kept.add(self._greedy_move(game, state))  # the deal is a candidate only when the greedy would deal now
        return sorted(kept)

    @staticmethod
    def _greedy_move(game: MilliganGame, state: MilliganState) -> int:
        return MilliganGreedy().choose(game, state, game.legal_mask(state))

    def preferred(self, game: MilliganGame, world: MilliganState) -> int:
        return self._greedy_move(game, world)

    def value(self, game: MilliganGame, world: MilliganState, action: int) -> float:
        state = world.copy()
        game.apply(state, action)
        deals = int(action == DEAL)
        policy = MilliganGreedy()
        for _ in range(self.max_moves):
            if game.is_over(state):
                break
            move = policy.choose(game, state, game.legal_mask(state))
            if move == DEAL:
                if deals == self.deals:
                    break
                deals += 1
            game.apply(state, move)
        return float(evaluate(state))

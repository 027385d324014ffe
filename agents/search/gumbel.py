"""Gumbel root search with sequential halving (Danihelka et al., "Policy improvement by planning with Gumbel",
ICLR 2022) over determinized worlds.

At a position with several legal moves, the network gives a prior over them and a value. Gumbel noise
added to the log-prior picks ``m`` candidate moves without replacement (the noise is left out when playing
to be judged: the top ``m`` of the prior). Sequential halving then spends the budget of leaf evaluations in
``ceil(log2 m)`` rounds: each round gives every candidate left the same number of visits, then keeps the
better half by ``g + log-prior + sigma(Q)``. A visit plays the candidate in a world drawn from what the
player sees (:meth:`patience_gym.core.Game.determinize`: the face-down cards a random arrangement of the
unseen ones, never the real one) and values the position it leads to: the final score where the game
ends, the exact value where nothing is hidden any more (:mod:`agents.search.exact`), else the network's
value. A move that turns no card up leads to the same visible position in every world, so it is valued
once; a move that turns cards up (a deal) is valued in a new world at each visit, an estimate of its
expectation over the cards to come. The move played is the best candidate left; the improved policy
``softmax(log-prior + sigma(completed Q))`` (unvisited moves completed with the mixed value) is what the
network learns from in expert iteration.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.search.exact import MAX_NODES, chance_values, exact_line, exact_value
from agents.search.network import PolicyValue


@dataclasses.dataclass(frozen=True)
class SearchConfig:
    """A search's budget and constants (Gumbel MuZero's ``c_visit`` and ``c_scale``)."""

    #: Leaf evaluations per move (the budget), unless ``seconds`` is given.
    sims: int = 16
    #: Seconds per move instead: the leaf evaluations it affords, from the cost of the ones before.
    seconds: float | None = None
    #: Candidate moves Gumbel's top-k keeps at the root.
    considered: int = 16
    #: "halving": Gumbel's top-k and sequential halving; "flat": determinized Monte Carlo (PIMC) at the root,
    #: the budget spread evenly over every legal move and the best mean value played (the prior unused there),
    #: the baseline the halving is measured against.
    root: str = "halving"
    #: Positions the solver may search for the exact line from a position where nothing is hidden; a position
    #: it cannot prove within them is played by the search, and the line is not sought again in that game.
    exact_nodes: int = MAX_NODES
    #: Positions the solver may search for a leaf's exact value (a leaf it cannot prove is valued by the network).
    leaf_exact_nodes: int = 2_000
    #: Golf: with at most this many stock cards left, the move is the exact expectimax's for a player who does
    #: not see the stock (:func:`agents.search.exact.chance_values`; ties to the prior); None: off.
    exact_from: int | None = None
    #: Chance positions that expectimax may take; a move that needs more is searched (tried again a card later).
    exact_positions: int = 1_000_000
    c_visit: float = 50.0
    c_scale: float = 1.0


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """A search's move, the improved policy over every action (zero on illegal ones), the root's value
    estimate, each candidate's mean value and visits, and how many positions were valued."""

    action: int
    policy: np.ndarray
    value: float
    q: dict[int, float]
    visits: dict[int, int]
    leaves: int


def sigma(q: np.ndarray, max_visits: int, config: SearchConfig) -> np.ndarray:
    """Gumbel MuZero's monotone transform of values in [0, 1] to the scale of logits."""
    return (config.c_visit + max_visits) * config.c_scale * q


class GumbelSearch:
    """The search of one game with one network (see the module docstring).

    ``observe(state)`` gives the network's observation of a position (an observer of its encoding);
    ``exact(game, state)`` the exact value where nothing is hidden (None where it cannot say).
    """

    def __init__(
        self,
        game: Any,
        observe: Callable[[Any], np.ndarray],
        net: PolicyValue,
        config: SearchConfig,
        exact: Callable[..., float | None] = exact_value,
    ) -> None:
        self.game, self.observe, self.net, self.config, self.exact = game, observe, net, config, exact
        self._leaf_seconds = 1e-3  # the running cost of one leaf, for a budget in seconds
        self._plan: list[int] = []  # an exact line being played, where nothing is hidden
        self._expected: Any = None  # the position its next move is for
        self._unproven = False  # this game's open position could not be proven: no exact line is sought again
        self._leaf_cache: dict[str, float | None] = {}  # exact leaf values by position, this game
        self._chance_given_up: int | None = None  # the stock count at which the exact expectimax was over budget

    def new_game(self) -> None:
        """Forget the last game's exact line and what could not be proven."""
        self._plan, self._expected, self._unproven = [], None, False
        self._leaf_cache.clear()
        self._chance_given_up = None

    def budget(self) -> int:
        """Leaf evaluations for this move: ``sims``, or what ``seconds`` affords at the recent cost of a leaf."""
        if self.config.seconds is None:
            return self.config.sims
        return int(min(1024, max(2, self.config.seconds / self._leaf_seconds)))

    def run(self, state: Any, rng: np.random.Generator, gumbel: bool = True) -> SearchResult:
        """Search ``state`` (never reading its face-down cards) and choose a move; where nothing is hidden,
        the solver's proven line instead."""
        game = self.game
        exact = self.follow_exact(state)
        if exact is not None:
            return exact
        mask = np.asarray(game.legal_mask(state), dtype=bool)
        legal = np.flatnonzero(mask)
        log_prior, values = self.net.evaluate(self.observe(state)[None], mask[None])
        log_prior, root_value = log_prior[0], float(values[0])
        if len(legal) == 1:
            policy = np.zeros(len(mask))
            policy[legal[0]] = 1.0
            return SearchResult(int(legal[0]), policy, root_value, {}, {}, 0)
        chance = self.exact_chance(state, legal, log_prior)
        if chance is not None:
            return chance
        start = time.perf_counter()
        sims = self.budget()
        noise = rng.gumbel(size=len(mask)) if gumbel else np.zeros(len(mask))
        flat = self.config.root == "flat"
        m = len(legal) if flat else min(self.config.considered, len(legal), sims)
        candidates = legal[np.argsort(-(noise + log_prior)[legal], kind="stable")[:m]]
        totals: dict[int, float] = {}
        visits: dict[int, int] = {}
        leaves = 0
        phases = 1 if flat else max(1, math.ceil(math.log2(m)))
        remaining = [int(a) for a in candidates]
        for phase in range(phases):
            each = max(1, sims // (phases * len(remaining)))
            found = self.leaf_values(state, [a for a in remaining for _ in range(each)], rng)
            leaves += len(found)
            for action, value in found:
                totals[action] = totals.get(action, 0.0) + value
                visits[action] = visits.get(action, 0) + 1
            if phase < phases - 1:
                remaining = self._better_half(remaining, noise, log_prior, totals, visits)
        q = {a: totals[a] / visits[a] for a in visits}
        score = np.array([q[a] for a in remaining]) if flat else self._scores(remaining, noise, log_prior, q, visits)
        action = int(remaining[int(np.argmax(score))])
        policy = self.improved_policy(legal, log_prior, root_value, q, visits)
        if leaves:
            spent = (time.perf_counter() - start) / leaves
            self._leaf_seconds = 0.8 * self._leaf_seconds + 0.2 * spent
        return SearchResult(action, policy, root_value, q, visits, leaves)

    def follow_exact(self, state: Any) -> SearchResult | None:
        """The next move of a proven line from ``state`` where nothing is hidden (the line is kept and followed
        while play stays on it); None where something is hidden or no line is proven."""
        game = self.game
        if game.hidden_count(state) or game.is_over(state):
            return None
        if not (self._plan and self._expected is not None and state == self._expected):
            found = None if self._unproven else exact_line(game, state, self.config.exact_nodes)
            if found is None or not found[1]:
                self._plan, self._unproven = [], True
                return None
            self._plan = list(found[1])
        action = self._plan.pop(0)
        self._expected = state.copy()
        game.apply(self._expected, action)
        policy = np.zeros(game.num_actions)
        policy[action] = 1.0
        return SearchResult(int(action), policy, float("nan"), {}, {}, 0)

    def exact_chance(self, state: Any, legal: np.ndarray, log_prior: np.ndarray) -> SearchResult | None:
        """The exact expectimax's move (:attr:`SearchConfig.exact_from`), ties to the higher prior; None where it
        is off, not affordable here, or gave up at this stock count."""
        config = self.config
        if config.exact_from is None or getattr(state, "stock_left", None) == self._chance_given_up:
            return None
        values = chance_values(self.game, state, config.exact_from, config.exact_positions)
        if values is None:
            if self.game.name == "golf" and state.stock_left <= config.exact_from:
                self._chance_given_up = state.stock_left
            return None
        best = max(values[a] for a in legal)
        tied = [int(a) for a in legal if values[a] == best]
        action = max(tied, key=lambda a: log_prior[a])
        policy = np.zeros(len(log_prior))
        policy[action] = 1.0
        return SearchResult(action, policy, best, {a: values[a] for a in map(int, legal)}, {}, 0)

    def leaf_values(self, state: Any, actions: list[int], rng: np.random.Generator) -> list[tuple[int, float]]:
        """Each of ``actions`` played in a world drawn from ``state`` and valued (one network pass for all)."""
        game = self.game
        chance: dict[int, bool] = {}
        known: dict[int, float] = {}
        pending: list[tuple[int, np.ndarray, np.ndarray]] = []
        results: list[tuple[int, float | None]] = []
        for action in actions:
            if action not in chance:
                chance[action] = game.chance(state, action) is not None
            if not chance[action] and action in known:
                results.append((action, known[action]))
                continue
            world = game.determinize(state, rng)
            game.apply(world, action)
            value = self.leaf_exact(world)
            if value is None:
                pending.append((len(results), self.observe(world), np.asarray(game.legal_mask(world), dtype=bool)))
            elif not chance[action]:
                known[action] = value
            results.append((action, value))
        if pending:
            _, values = self.net.evaluate(np.stack([p[1] for p in pending]), np.stack([p[2] for p in pending]))
            for (index, _, _), value in zip(pending, values, strict=True):
                action = results[index][0]
                results[index] = (action, float(value))
                if not chance[action]:
                    known[action] = float(value)
        return [(a, float(v)) for a, v in results if v is not None]

    def leaf_exact(self, world: Any) -> float | None:
        """A leaf's exact value where nothing is hidden (kept for the game: the same open position recurs); none
        sought once this game's open position could not be proven (the positions after it are as hard, and a
        failed search costs its whole budget at every leaf): the network values them."""
        game = self.game
        if not game.is_over(world) and (game.hidden_count(world) or self._unproven):
            return None
        key = repr(sorted(game.to_dict(world).items()))
        if key not in self._leaf_cache:
            self._leaf_cache[key] = self.exact(game, world, self.config.leaf_exact_nodes)
        return self._leaf_cache[key]

    def _scores(
        self,
        actions: list[int],
        noise: np.ndarray,
        log_prior: np.ndarray,
        q: dict[int, float],
        visits: dict[int, int],
    ) -> np.ndarray:
        most = max(visits.values(), default=0)
        qs = np.array([q.get(a, 0.0) for a in actions])
        return noise[actions] + log_prior[actions] + sigma(qs, most, self.config)

    def _better_half(
        self,
        remaining: list[int],
        noise: np.ndarray,
        log_prior: np.ndarray,
        totals: dict[int, float],
        visits: dict[int, int],
    ) -> list[int]:
        q = {a: totals[a] / visits[a] for a in visits}
        score = self._scores(remaining, noise, log_prior, q, visits)
        keep = max(1, math.ceil(len(remaining) / 2))
        order = np.argsort(-score, kind="stable")[:keep]
        return [remaining[i] for i in order]

    def improved_policy(
        self, legal: np.ndarray, log_prior: np.ndarray, root_value: float, q: dict[int, float], visits: dict[int, int]
    ) -> np.ndarray:
        """``softmax(log-prior + sigma(completed Q))`` over the legal moves: unvisited moves take the mixed value
        (the root's value and the visited moves' values weighted by their prior)."""
        prior = np.exp(log_prior[legal] - log_prior[legal].max())
        prior /= prior.sum()
        seen = [i for i, a in enumerate(legal) if a in q]
        total = sum(visits.values())
        if seen:
            weight = prior[seen].sum()
            mixed = (root_value + total * sum(prior[i] * q[int(legal[i])] for i in seen) / weight) / (1 + total)
        else:
            mixed = root_value
        completed = np.array([q.get(int(a), mixed) for a in legal])
        logits = log_prior[legal] + sigma(completed, max(visits.values(), default=0), self.config)
        weights = np.exp(logits - logits.max())
        policy = np.zeros(len(log_prior))
        policy[legal] = weights / weights.sum()
        return policy

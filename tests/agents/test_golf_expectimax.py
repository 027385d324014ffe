"""The Golf expectimax for a player who does not see the stock: against a brute force over the rules, between the
perfect-knowledge bound and the greedy, blind to the stock's order, under budgets; and the planner that uses it."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from agents.planners.golf import GolfPlanner
from agents.solvers import golf_expectimax
from agents.solvers.golf import solve
from agents.solvers.golf_expectimax import action_values, action_values_python
from patience_gym.games.golf import DEAL, Golf, GolfState
from patience_gym.heuristics.golf_greedy import choose_move
from tests.helpers import Sealed
from tests.helpers.golf import RULES, small_position

needs_c = pytest.mark.skipif(not golf_expectimax.HAVE_FAST, reason="C core not built")


def with_next(game: Golf, state: GolfState, card: int) -> GolfState:
    """``state`` with its stock reordered so that ``card`` is dealt next (the rest in any order)."""
    rest = list(game.unseen_cards(state))
    rest.remove(card)
    return game.replace_hidden(state, [card, *rest], None)


def brute_value(game: Golf, state: GolfState) -> float:
    """Best expected final score by plain recursion through the rules: each unseen card equally likely next."""
    if game.is_over(state):
        return game.score(state)
    return min(brute_action(game, state, a) for a in game.legal_actions(state))


def brute_action(game: Golf, state: GolfState, action: int) -> float:
    if action != DEAL:
        child = state.copy()
        game.apply(child, action)
        return brute_value(game, child)
    unseen = game.unseen_cards(state)
    total = 0.0
    for card in unseen:
        child = with_next(game, state, card)
        game.apply(child, DEAL)
        total += brute_value(game, child)
    return total / len(unseen)


def mid_hole(game: Golf, rng: np.random.Generator, stock_left: int) -> GolfState:
    """A seeded hole played by random legal moves until at most ``stock_left`` stock cards are left, still live."""
    while True:
        state = game.init(rng)
        while state.stock_left > stock_left and not game.is_over(state):
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
        if not game.is_over(state):
            return state


def with_a_choice(game: Golf, rng: np.random.Generator, stock_left: int, count: int) -> list[GolfState]:
    """``count`` positions from :func:`mid_hole` where more than one move is legal."""
    found: list[GolfState] = []
    while len(found) < count:
        state = mid_hole(game, rng, stock_left)
        if len(game.legal_actions(state)) > 1:
            found.append(state)
    return found


@pytest.mark.parametrize("rules", RULES)
def test_values_match_a_brute_force_over_the_rules(rules: str) -> None:
    game = Golf(**RULES[rules])
    rng = np.random.default_rng(11 + list(RULES).index(rules))
    checked = 0
    for _ in range(60):
        state = game.from_dict(small_position(rng, wrap=rules == "wrap_ranks"))
        if game.is_over(state):
            continue
        legal = game.legal_actions(state)
        expected = [brute_action(game, state, a) if a in legal else None for a in range(DEAL + 1)]
        for values in (action_values(game, state), action_values_python(game, state)):
            assert values is not None
            assert [v is None for v in values] == [e is None for e in expected]
            assert all(v is None or e is None or abs(v - e) < 1e-9 for v, e in zip(values, expected, strict=True))
        checked += len(legal) > 1
    assert checked >= 10, "too few positions with a choice: the test proves little"


def test_value_lies_between_perfect_knowledge_and_the_greedy() -> None:
    """Over every order of a short stock: the mean of the exact solves <= the best fair value <= the greedy's mean."""
    game = Golf()
    rng = np.random.default_rng(5)
    for _ in range(6):
        state = mid_hole(game, rng, 5)
        values = action_values(game, state)
        assert values is not None
        best = min(v for v in values if v is not None)
        hidden = game.unseen_cards(state)
        hindsight, greedy = [], []
        for order in itertools.permutations(hidden):
            world = game.replace_hidden(state, list(order), None)
            hindsight.append(solve(game, world).score)
            while not game.is_over(world):
                game.apply(world, choose_move(game, world, game.legal_mask(world)))
            greedy.append(game.score(world))
        assert np.mean(hindsight) - 1e-9 <= best <= np.mean(greedy) + 1e-9


def test_values_never_read_the_stock_order() -> None:
    game = Golf()
    rng = np.random.default_rng(2)
    state = mid_hole(game, rng, 7)
    expected = action_values(game, state)
    sealed = state.copy()
    sealed.stock, sealed.pos = Sealed(game.unseen_cards(state)[::-1]), 0
    assert action_values(game, sealed) == action_values_python(game, sealed) == expected


@needs_c
def test_c_core_and_python_agree_on_values_and_budgets() -> None:
    game = Golf()
    rng = np.random.default_rng(3)
    for _ in range(10):
        state = mid_hole(game, rng, 6)
        assert action_values(game, state) == pytest.approx(action_values_python(game, state), abs=1e-9)
        for budget in (0, 1, 5, 60):
            fast, slow = action_values(game, state, budget), action_values_python(game, state, budget)
            assert (fast is None) == (slow is None), budget


def test_budget_runs_out_and_bad_input_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Golf()
    state = mid_hole(game, np.random.default_rng(4), 10)
    assert action_values(game, state, 0) is None and action_values_python(game, state, 0) is None
    with pytest.raises(ValueError, match="max_positions"):
        action_values(game, state, -1)
    over = state.copy()
    while not game.is_over(over):
        game.apply(over, choose_move(game, over, game.legal_mask(over)))
    with pytest.raises(ValueError, match="over"):
        action_values(game, over)
    monkeypatch.setattr(golf_expectimax, "_fast", None)
    assert action_values(game, mid_hole(game, np.random.default_rng(6), 5)) is not None


def small_planner(**options: Any) -> GolfPlanner:
    """The planner with a tiny sampling budget (the exact moves do not depend on it)."""
    return GolfPlanner(samples=2, max_seconds=None, max_nodes=5_000, **options)


def _act(planner: GolfPlanner, game: Golf, state: GolfState) -> int:
    return planner.act(SimpleNamespace(game=game, state=state), np.zeros(1), game.legal_mask(state))  # type: ignore[arg-type]


def test_planner_plays_the_exact_move_once_the_stock_is_short() -> None:
    """By default from 11 stock cards on: sampling before, the exact minimum after."""
    game = Golf()
    rng = np.random.default_rng(8)
    planner = small_planner()
    early = [s for s in with_a_choice(game, rng, 16, 6) if s.stock_left > 11]
    assert early, "no position with more than 11 stock cards: the test proves nothing"
    for state in early:
        _act(planner, game, state)
    assert planner.stats["exact"] == 0 and planner.stats["searched"] == len(early)
    positions = with_a_choice(game, rng, 6, 5)
    for state in positions:
        values = action_values(game, state)
        assert values is not None
        chosen = _act(planner, game, state)
        assert values[chosen] == min(v for v in values if v is not None)
    assert planner.stats["exact"] == len(positions) and planner.stats["searched"] == len(early)


def test_planner_falls_back_to_sampling_and_waits_for_the_next_card() -> None:
    game = Golf()
    rng = np.random.default_rng(9)
    planner = small_planner(exact_from=16, exact_positions=0)
    planner.reset(0)
    state = mid_hole(game, rng, 10)
    while len(game.legal_actions(state)) < 2 or DEAL not in game.legal_actions(state):
        state = mid_hole(game, rng, 10)
    _act(planner, game, state)
    assert planner.stats["exact_given_up"] == 1 and planner.stats["searched"] == 1
    _act(planner, game, state)  # the same turn: no second try
    assert planner.stats["exact_given_up"] == 1 and planner.stats["searched"] == 2
    with pytest.raises(ValueError, match="exact_positions"):
        GolfPlanner(exact_positions=-1)
    with pytest.raises(ValueError, match="exact_from"):
        GolfPlanner(exact_from=-1)


def test_planner_tries_the_exact_search_afresh_at_each_hole_of_a_round() -> None:
    """Where the exact search ran out (a stock count, a link count) is kept for the turn only: the next hole
    of a round at the same counts is tried again (it was once skipped there, a give-up of an earlier hole)."""
    from patience_gym.games.golf import GolfRound, GolfRoundState

    round_game = GolfRound()
    rng = np.random.default_rng(9)
    planner = small_planner(exact_from=16, exact_positions=0)
    planner.reset(0)
    hole = mid_hole(round_game.hole_game, rng, 10)
    while len(round_game.hole_game.legal_actions(hole)) < 2:
        hole = mid_hole(round_game.hole_game, rng, 10)
    first = round_game.init(rng)
    first.hole_state = hole
    second = GolfRoundState(hole.copy(), 1, [5], first.deals, first.rules)  # the same counts, at hole 2
    for state, given_up in ((first, 1), (first, 1), (second, 2), (second, 2)):
        planner.act(SimpleNamespace(game=round_game, state=state), np.zeros(1), round_game.legal_mask(state))  # type: ignore[arg-type]
        assert planner.stats["exact_given_up"] == given_up


def test_planner_exact_moves_never_read_the_stock() -> None:
    game = Golf()
    rng = np.random.default_rng(10)
    planner = small_planner(exact_from=7)
    positions = with_a_choice(game, rng, 7, 4)
    for state in positions:
        sealed = state.copy()
        sealed.stock, sealed.pos = Sealed(game.unseen_cards(state)), 0
        assert _act(planner, game, state) == _act(planner, game, sealed)
    assert planner.stats["exact"] == 2 * len(positions) and planner.stats["searched"] == 0

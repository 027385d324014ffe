"""Search planners: they never read the hidden cards, play legally, repeat under a seed, keep their budget."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from agents.baselines.greedy_puss import choose_move as puss_greedy
from agents.evaluation.evaluate import evaluate
from agents.planners.base import DeterminizationPlanner
from agents.planners.golf import GolfPlanner
from agents.planners.milligan import MilliganPlanner
from agents.planners.puss import PussPlanner
from agents.registry import make_agent
from agents.solvers.golf import solve as solve_golf
from patience_gym.games.golf import Golf
from patience_gym.games.milligan import Giant, MissMilligan, MissMilliganPocket
from patience_gym.games.puss import PussInTheCorner
from patience_gym.heuristics.golf_greedy import choose_move as golf_greedy
from tests.helpers import Sealed


def _reorder_hidden(state: Any, field: str, rng: np.random.Generator, sealed: bool = False) -> Any:
    """A copy of ``state`` whose face-down cards (``field[pos:]``) are in another order."""
    new = state.copy()
    cards = list(tuple.__iter__(getattr(state, field)))
    hidden = cards[state.pos :]
    order = [hidden[i] for i in rng.permutation(len(hidden))]
    setattr(new, field, (Sealed if sealed else tuple)(order))
    new.pos = 0
    return new


def _choose(planner: DeterminizationPlanner, game: Any, state: Any, seed: int) -> int:
    planner.reset(seed)
    env = SimpleNamespace(game=game, state=state)
    return planner.act(env, np.zeros(1), game.legal_mask(state))  # type: ignore[arg-type]


def _positions(game: Any, policy: Any, seed: int, stops: tuple[int, ...]) -> list[Any]:
    """Positions of a game played by ``policy``, after each number of moves in ``stops``, where the choice is real."""
    state = game.init(np.random.default_rng(seed))
    found = []
    for move in range(max(stops) + 400):
        if game.is_over(state):
            break
        if move >= min(stops) and len(game.legal_actions(state)) > 1:
            found.append(state.copy())
            stops = tuple(s for s in stops if s > move) or (10**9,)
        game.apply(state, policy(game, state))
    return found


def _check_no_peek(planner: DeterminizationPlanner, game: Any, positions: list[Any], field: str) -> None:
    rng = np.random.default_rng(7)
    assert positions, "no position with a choice was found"
    searched = planner.stats["searched"]
    for state in positions:
        for seed in (0, 1):
            a = _choose(planner, game, _reorder_hidden(state, field, rng), seed)
            b = _choose(planner, game, _reorder_hidden(state, field, rng), seed)
            sealed = _choose(planner, game, _reorder_hidden(state, field, rng, sealed=True), seed)
            assert a == b == sealed
            assert game.legal_mask(state)[a]
    assert planner.stats["searched"] > searched, "no position was searched: the test proves nothing"


def test_golf_planner_never_reads_the_stock() -> None:
    game = Golf()
    positions = _positions(game, lambda g, s: golf_greedy(g, s, g.legal_mask(s)), 3, (0, 6, 15))
    _check_no_peek(GolfPlanner(samples=4, max_seconds=None, max_nodes=5_000), game, positions, "stock")


def test_puss_planner_never_reads_the_pack() -> None:
    game = PussInTheCorner()
    positions = _positions(game, lambda g, s: puss_greedy(g, s), 4, (5, 30, 70))
    _check_no_peek(PussPlanner(samples=2, max_seconds=None, depth=20), game, positions, "pack")


@pytest.mark.parametrize("game", [MissMilligan(), Giant(), MissMilliganPocket()], ids=lambda g: g.name)
def test_milligan_planner_never_reads_the_stock(game: Any) -> None:
    positions = _positions(game, lambda g, s: g.legal_actions(s)[-1], 5, (0, 3))
    planner = MilliganPlanner(samples=2, max_seconds=None, max_moves=10)
    _check_no_peek(planner, game, positions, "stock")


def test_puss_planner_searches_one_world_on_the_second_pass() -> None:
    """The packets were taken up face up: the second pass's pack is known, so one world is enough."""
    game = PussInTheCorner()
    planner = PussPlanner(samples=4, max_seconds=None, depth=5)
    planner.reset(0)
    state = game.init(np.random.default_rng(11))
    searched = 0
    while not game.is_over(state):
        env = SimpleNamespace(game=game, state=state)
        if state.pass_no == 2 and not searched:
            searched, worlds = planner.stats["searched"], planner.stats["worlds"]
        game.apply(state, planner.act(env, np.zeros(1), game.legal_mask(state)))  # type: ignore[arg-type]
    assert planner.stats["searched"] > searched > 0, "no second-pass position was searched"
    assert planner.stats["worlds"] - worlds == planner.stats["searched"] - searched


def test_golf_planner_is_deterministic_under_a_seed() -> None:
    game = Golf()
    runs = []
    for _ in range(2):
        planner = GolfPlanner(samples=3, max_seconds=None, max_nodes=3_000, exact_from=None)
        planner.reset(5)
        state = game.init(np.random.default_rng(9))
        moves = []
        while not game.is_over(state):
            a = planner.act(SimpleNamespace(game=game, state=state), np.zeros(1), game.legal_mask(state))  # type: ignore[arg-type]
            assert game.legal_mask(state)[a]
            moves.append(a)
            game.apply(state, a)
        runs.append(moves)
    assert runs[0] == runs[1]


def test_golf_planner_values_each_world_exactly_by_default() -> None:
    """An opening world needs far more than 20,000 solver nodes; the default budget solves it exactly."""
    game = Golf()
    state = game.init(np.random.default_rng(0))
    planner = GolfPlanner()
    planner.reset(0)
    world = planner.determinize(game, state)
    for action in game.legal_actions(state):
        after = world.copy()
        game.apply(after, action)
        exact = solve_golf(game, after)
        assert exact.exact
        assert not solve_golf(game, after, 20_000).exact
        assert planner.value(game, world, action) == -exact.score


def test_time_budget_per_move_is_kept() -> None:
    game = Golf()
    (state,) = _positions(game, lambda g, s: golf_greedy(g, s, g.legal_mask(s)), 2, (0,))
    planner = GolfPlanner(samples=100_000, max_seconds=0.05, max_nodes=2_000)
    planner.reset(0)
    start = time.perf_counter()
    action = planner.search(game, state, game.legal_actions(state))
    elapsed = time.perf_counter() - start
    assert game.legal_mask(state)[action]
    assert elapsed < 0.05 + 0.2  # slack: one world past the estimate, on a loaded machine
    assert planner.stats["cut_by_time"] == 1
    assert 1 <= planner.stats["worlds"] < 100_000


def test_golf_planner_is_no_worse_than_greedy() -> None:
    """Over 30 deals (paired), hindsight optimisation loses no strokes to the greedy on average."""
    game = Golf()
    planner = GolfPlanner(samples=4, max_seconds=None, max_nodes=5_000, exact_from=None)
    diffs = []
    for seed in range(30):
        scores = []
        for use_planner in (True, False):
            planner.reset(seed)
            state = game.init(np.random.default_rng(seed))
            while not game.is_over(state):
                mask = game.legal_mask(state)
                if use_planner:
                    a = planner.act(SimpleNamespace(game=game, state=state), np.zeros(1), mask)  # type: ignore[arg-type]
                else:
                    a = golf_greedy(game, state, mask)
                game.apply(state, a)
            scores.append(game.score(state))
        diffs.append(scores[0] - scores[1])
    assert np.mean(diffs) <= 0.0


@pytest.mark.parametrize("env_id", ["patience_gym/Golf-v0", "patience_gym/PussInTheCorner-v0"])
def test_evaluate_reports_the_planner(env_id: str) -> None:
    (summary,) = evaluate(env_id, ["planner"], episodes=2)
    assert summary.agent == "planner"
    assert summary.episodes == 2 and len(summary.scores) == 2


def test_registry_has_a_planner_for_every_game() -> None:
    for name in ("golf", "golf_round", "puss_in_the_corner", "miss_milligan", "giant", "miss_milligan_pocket"):
        assert isinstance(make_agent("planner", name), DeterminizationPlanner)


def test_agent_specs_take_constructor_options() -> None:
    planner = make_agent("planner:samples=3,margin=1.5,max_seconds=none", "puss_in_the_corner")
    assert isinstance(planner, PussPlanner)
    assert (planner.samples, planner.margin, planner.max_seconds) == (3, 1.5, None)
    for spec, message in (
        ("planner:bogus=1", r"unknown option bogus; planner takes samples, .*margin"),
        ("planner:margin", r"options are name=value, got 'margin'"),
        ("planner:margin=big", r"option margin must be a number or none, got 'big'"),
    ):
        with pytest.raises(ValueError, match=message):
            make_agent(spec, "puss_in_the_corner")
    (summary,) = evaluate("patience_gym/PussInTheCorner-v0", ["planner:samples=1"], episodes=1)
    assert summary.agent == "planner:samples=1"


def test_puss_planner_without_first_pass_search_plays_greedy_then_the_best_second_pass_replay() -> None:
    """``first_pass=0``: the greedy's move wherever the pack is face down; in the second pass a move whose
    greedy replay (the ``moves_replay_all`` feature) is the best, the greedy's own move when it is among them."""
    import gymnasium as gym

    from patience_gym.features.puss import MOVES_GLOBAL, REPLAY_FEATURES
    from patience_gym.heuristics.puss_moves import MOVE_FEATURES

    planner = make_agent("planner:first_pass=0", "puss_in_the_corner")
    assert isinstance(planner, PussPlanner) and not planner.first_pass
    env = gym.make("patience_gym/PussInTheCorner-v0", obs_encoding="moves_replay_all")
    departures = 0
    for seed in range(12):
        planner.reset(seed)
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            game, state = env.unwrapped.game, env.unwrapped.state  # type: ignore[attr-defined]
            action = planner.act(env.unwrapped, obs, info["action_mask"])  # type: ignore[arg-type]
            greedy = puss_greedy(game, state)
            if state.pass_no == 1:
                assert action == greedy
            else:
                value = obs[MOVES_GLOBAL:].reshape(-1, REPLAY_FEATURES)[:, MOVE_FEATURES]
                legal = np.flatnonzero(info["action_mask"])
                assert value[action] == value[legal].max()
                assert action == greedy or value[greedy] < value[action]
                departures += action != greedy
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    assert departures > 0


def _greedy_until_the_stock_is_out(env_id: str, seed: int) -> tuple[Any, Any]:
    from agents.baselines.greedy_milligan import MilliganGreedy
    from agents.solvers.milligan import deal

    game, state = deal(env_id, seed)
    greedy = MilliganGreedy()
    while state.stock_left > 0:
        game.apply(state, greedy.choose(game, state, game.legal_mask(state)))
    return game, state


def _play_out(agent: Any, game: Any, state: Any) -> Any:
    state = state.copy()
    agent.reset(0)
    while not game.is_over(state):
        action = agent.act(SimpleNamespace(game=game, state=state), np.zeros(1), game.legal_mask(state))
        assert game.legal_mask(state)[action]
        game.apply(state, action)
    return state


def test_milligan_planner_solves_the_open_ending_the_greedy_loses() -> None:
    """Once the stock is out nothing is hidden: the planner plays the solver's winning line there."""
    from agents.baselines.greedy_milligan import MilliganGreedy

    game, state = _greedy_until_the_stock_is_out("patience_gym/MissMilligan-v0", 100_005)
    assert not game.unseen_cards(state)
    assert not game.is_won(_play_out(MilliganGreedy(), game, state))
    assert game.is_won(_play_out(MilliganPlanner(samples=1, endgame_nodes=5_000), game, state))
    greedy_ending = MilliganPlanner(samples=1, endgame_nodes=None)  # the greedy's ending, as before
    assert not game.is_won(_play_out(greedy_ending, game, state))


@pytest.mark.parametrize("nodes", [0, -5, 2.5, True])
def test_milligan_planner_refuses_a_bad_ending_budget(nodes: Any) -> None:
    with pytest.raises(ValueError, match="endgame_nodes"):
        MilliganPlanner(endgame_nodes=nodes)

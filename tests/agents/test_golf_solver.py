"""The exact Golf solver: against brute force, replayed through the env, on the book's deal, under budgets."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agents.evaluation.evaluate import evaluate
from agents.solvers import golf as golf_solver
from agents.solvers.golf import GolfSolution, solve, solve_python
from patience_gym.cards import codes
from patience_gym.games.golf import NUM_COLUMNS, Golf, GolfState
from patience_gym.games.golf_board import format_board
from tests.helpers.golf import RULES, small_position

needs_c = pytest.mark.skipif(not golf_solver.HAVE_FAST, reason="C core not built")


def brute_force(game: Golf, state: GolfState) -> int:
    """Minimum final score over every move sequence, by plain recursion through the rules module."""
    if game.is_over(state):
        return int(game.score(state))
    best = None
    for action in game.legal_actions(state):
        child = state.copy()
        game.apply(child, action)
        score = brute_force(game, child)
        best = score if best is None else min(best, score)
    assert best is not None, "a live position must have a legal action"
    return best


def replay(env_options: dict[str, bool], reset_options: dict[str, Any], moves: list[int]) -> tuple[float, float]:
    """Play ``moves`` through Golf-v0 (strict mode); the final score and the summed reward."""
    env = gym.make("patience_gym/Golf-v0", illegal_action="raise", **env_options)
    env.reset(options=reset_options)
    total = 0.0
    terminated = env.unwrapped.game.is_over(env.unwrapped.state)  # type: ignore[attr-defined]
    for move in moves:
        assert not terminated, "moves continue after the hole ended"
        _, reward, terminated, _, _ = env.step(move)
        total += float(reward)
    assert terminated, "the move list stops before the hole ends"
    return env.unwrapped.game.score(env.unwrapped.state), total  # type: ignore[attr-defined]


@pytest.mark.parametrize("rules", RULES)
def test_solvers_match_brute_force_on_small_positions(rules: str) -> None:
    game = Golf(**RULES[rules])
    rng = np.random.default_rng(list(RULES).index(rules))
    scores = set()
    for _ in range(40):
        data = small_position(rng, wrap=rules == "wrap_ranks")
        state = game.from_dict(data)
        exact = brute_force(game, state)
        for solution in (solve(game, state), solve_python(game, state)):
            assert solution.exact and solution.score == exact, data
            assert replay(RULES[rules], {"state": data}, solution.moves)[0] == exact
        scores.add(exact)
    assert min(scores) < 0 < max(scores), "the positions should include cleared and stuck holes"


@pytest.mark.parametrize("rules", RULES)
def test_solution_replays_to_its_score_on_seeded_deals(rules: str) -> None:
    env = gym.make("patience_gym/Golf-v0", **RULES[rules])
    game = env.unwrapped.game  # type: ignore[attr-defined]
    for seed in range(3):
        env.reset(seed=seed)
        deal = codes(_deal_order(env.unwrapped.state))  # type: ignore[attr-defined]
        solution = solve(game, env.unwrapped.state)  # type: ignore[attr-defined]
        assert solution.exact
        score, total = replay(RULES[rules], {"deal": deal}, solution.moves)
        assert score == solution.score and total == 35 - solution.score


def _deal_order(state: GolfState) -> list[int]:
    """The 52 cards of a fresh hole in deal order (links row by row, then the stock)."""
    rows = [state.columns[c][r] for r in range(5) for c in range(NUM_COLUMNS)]
    return rows + list(state.stock)


def test_book_example_best_is_at_most_the_books_14_and_replays(golf_book_deal) -> None:
    game = Golf()
    solution = solve(game, game.from_deal(golf_book_deal))
    assert solution.exact and solution.score <= 14
    assert replay({}, {"deal": golf_book_deal}, solution.moves)[0] == solution.score


@needs_c
@pytest.mark.parametrize("rules", RULES)
def test_c_core_and_python_search_agree_move_for_move(rules: str) -> None:
    """Mid-hole positions (a random prefix played) keep the pure-Python search quick."""
    game = Golf(**RULES[rules])
    rng = np.random.default_rng(7)
    for _ in range(8):
        state = game.init(rng)
        for _ in range(int(rng.integers(12, 20))):
            if game.is_over(state):
                break
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
        fast, slow = solve(game, state), solve_python(game, state)
        assert (fast.score, fast.moves, fast.nodes, fast.exact) == (slow.score, slow.moves, slow.nodes, slow.exact)


def test_solve_falls_back_to_python_without_the_c_core(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Golf()
    state = game.from_dict(small_position(np.random.default_rng(3), wrap=False))
    expected = solve_python(game, state)
    monkeypatch.setattr(golf_solver, "_fast", None)
    assert solve(game, state) == expected


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("budget", [1, 40, 2000])
def test_node_budget_is_respected_and_the_moves_still_reach_the_score(fast: bool, budget: int, golf_book_deal) -> None:
    if fast and not golf_solver.HAVE_FAST:
        pytest.skip("C core not built")
    game = Golf(queens_on_kings=True)
    state = game.from_deal(golf_book_deal)
    solution: GolfSolution = solve(game, state, max_nodes=budget, fast=fast)
    assert not solution.exact and solution.nodes <= budget
    assert replay({"queens_on_kings": True}, {"deal": golf_book_deal}, solution.moves)[0] == solution.score
    assert solution.score >= solve(game, state).score


@pytest.mark.parametrize("fast", [True, False])
def test_a_budget_of_the_full_search_size_is_exact(fast: bool) -> None:
    game = Golf()
    state = game.from_dict(small_position(np.random.default_rng(5), wrap=False))
    full = solve(game, state, fast=fast)
    assert full.exact and full.nodes > 1
    assert solve(game, state, max_nodes=full.nodes, fast=fast) == full
    assert not solve(game, state, max_nodes=full.nodes - 1, fast=fast).exact


def test_cli_reads_board_text_and_prints_the_best_score(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Golf(wrap_ranks=True)
    state = game.init(np.random.default_rng(11))
    board = tmp_path / "board.txt"
    board.write_text(format_board(game.to_dict(state)))
    assert golf_solver.main([str(board), "--wrap-ranks"]) == 0
    header, moves = capsys.readouterr().out.splitlines()
    expected = solve(game, state)
    assert header.startswith(f"best score {expected.score} ")
    actions = [game.action_from_description(text) for text in moves.split()]
    assert actions == expected.moves
    assert replay({"wrap_ranks": True}, {"board": board.read_text()}, actions)[0] == expected.score
    board.write_text("Talon: 2C\n")
    assert golf_solver.main([str(board)]) == 2


def test_solver_agent_in_the_evaluation_tool_scores_the_solved_minimum() -> None:
    hole_game = Golf()
    holes = evaluate("patience_gym/Golf-v0", ["solver"], episodes=3, seed=5)[0]
    env = gym.make("patience_gym/Golf-v0")
    for i, played in enumerate(holes.scores):
        env.reset(seed=5 + i)
        assert played == solve(hole_game, env.unwrapped.state).score  # type: ignore[attr-defined]

    rounds = evaluate("patience_gym/GolfRound-v0", ["solver"], episodes=1, seed=2)[0]
    round_env = gym.make("patience_gym/GolfRound-v0")
    round_env.reset(seed=2)
    deals = round_env.unwrapped.state.deals  # type: ignore[attr-defined]
    assert rounds.scores[0] == sum(solve(hole_game, hole_game.from_deal(codes(d))).score for d in deals)


def test_solver_agent_replans_when_another_player_leaves_its_line() -> None:
    """As DAgger's teacher the solver labels positions its own plan never reaches."""
    from agents.solvers.golf import GolfSolverAgent

    game = Golf()
    env: Any = gym.make("patience_gym/Golf-v0").unwrapped
    env.reset(seed=4)
    agent = GolfSolverAgent()
    rng = np.random.default_rng(0)
    left_the_line = False
    while not game.is_over(env.state):
        mask = game.legal_mask(env.state)
        best = agent.act(env, np.zeros(1), mask)
        assert mask[best]
        assert best == solve(game, env.state).moves[0]
        legal = np.flatnonzero(mask)
        other = int(legal[rng.integers(len(legal))])
        left_the_line |= other != best
        game.apply(env.state, other)
    assert left_the_line


@pytest.mark.parametrize("bad", [0, -5, 2.5, True])
def test_a_budget_that_is_not_a_positive_integer_is_refused_by_name(bad: Any, tmp_path, capsys) -> None:
    """The solve functions, the agent (``solver:max_nodes=0`` too), the planner and the CLI refuse it up front."""
    from agents.planners.golf import GolfPlanner
    from agents.registry import make_agent
    from agents.solvers.golf import GolfSolverAgent

    game = Golf()
    state = game.init(np.random.default_rng(0))
    message = re.escape(f"max_nodes must be a positive integer (or None), got {bad!r}")
    for call in (
        lambda: solve(game, state, bad),
        lambda: solve(game, state, bad, fast=False),
        lambda: solve_python(game, state, bad),
        lambda: GolfSolverAgent(max_nodes=bad),
        lambda: GolfPlanner(max_nodes=bad),
    ):
        with pytest.raises(ValueError, match=message):
            call()
    for spec in ("solver:max_nodes=0", "planner:max_nodes=0"):
        with pytest.raises(ValueError, match="max_nodes must be a positive integer"):
            make_agent(spec, "golf")
    board = tmp_path / "board.txt"
    board.write_text(format_board(game.to_dict(state)))
    with pytest.raises(SystemExit) as exit_info:
        golf_solver.main([str(board), "--max-nodes", "0"])
    assert exit_info.value.code == 2
    assert "--max-nodes must be a positive integer (or left out: no limit), got 0" in capsys.readouterr().err
    assert GolfSolverAgent(max_nodes=None).max_nodes is None  # None: no limit

"""The Puss in the Corner solver: against an exhaustive search on small positions, lines replayed in the env,
budgets, the safe-play and bound reasoning, and the agent."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agents.baselines.greedy_puss import PussGreedy
from agents.evaluation.evaluate import play_episodes
from agents.registry import make_agent
from agents.solvers.puss import PussSolution, PussSolverAgent, solve, upper_bound
from patience_gym.cards import CODE, RANK, RED
from patience_gym.games.puss import ACES, MERGE, TAKE, PussInTheCorner, PussState
from tests.helpers import play_line
from tests.helpers.puss import greedy_loses

ENV_ID = "patience_gym/PussInTheCorner-v0"
RED_DONE = ["AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD".split(), "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH".split()]


# --- an independent exhaustive search ------------------------------------------------


def exhaustive(game: PussInTheCorner, state: PussState, allow: Any = lambda a: True) -> int:
    """Most cards on the foundations at the end of any line of play (every legal move tried, no table;
    it stops early only on reaching 52, the most there is). ``allow`` filters the moves."""
    if game.is_over(state):
        return state.score
    best = 0
    for action in game.legal_actions(state):
        if allow(action):
            child = state.copy()
            game.apply(child, action)
            best = max(best, exhaustive(game, child, allow))
            if best == 52:
                break
    return best


# --- positions ---------------------------------------------------------------------


def foundations_without(off: set[int]) -> list[list[int]]:
    """The foundations holding every card but ``off`` (which must leave each colour's two piles whole)."""
    piles = []
    for red in (False, True):
        high: list[int] = []
        low: list[int] = []
        for rank in range(2, 14):
            on = [c for c in range(52) if RED[c] == red and RANK[c] == rank and c not in off]
            if len(on) == 2:
                high.append(on[0])
                low.append(on[1])
            elif on:
                high.append(on[0])
        piles.append((high, low))
    (black_high, black_low), (red_high, red_low) = piles
    return [[ACES[0], *black_high], [ACES[1], *red_high], [ACES[2], *red_low], [ACES[3], *black_low]]


def position(
    off: list[int], hand: int | None, where: list[int], pass_no: int, seven: bool = False, **options: bool
) -> tuple[PussInTheCorner, PussState]:
    """The position with ``off`` off the foundations: ``where[i]`` 0 puts card i in the pack, 1..4 on packet A..D."""
    game = PussInTheCorner(**options)
    held = set(off) | ({hand} if hand is not None else set())
    data = {
        "pass": pass_no,
        "foundations": [[CODE[c] for c in pile] for pile in foundations_without(held)],
        "corners": [[CODE[c] for c, w in zip(off, where, strict=True) if w == k] for k in range(1, 5)],
        "hand": CODE[hand] if hand is not None else None,
        "pack": [CODE[c] for c, w in zip(off, where, strict=True) if w == 0],
        "seven": seven,
        "redeal": [],
    }
    return game, game.from_dict(data)


def random_position(rng: np.random.Generator) -> tuple[PussInTheCorner, PussState]:
    """A small random position: high cards off the foundations, pass 2 (or a smaller pass 1)."""
    pass_no = 2 if rng.random() < 0.75 else 1
    low, high = (6, 9) if pass_no == 2 else (4, 5)
    while True:
        off = []
        for red in (False, True):
            both_from = int(rng.integers(10, 15))
            one_from = int(rng.integers(9, both_from + 1))
            for rank in range(one_from, 14):
                cards = [c for c in range(52) if RED[c] == red and RANK[c] == rank]
                off += cards if rank >= both_from else [cards[int(rng.integers(2))]]
        if low <= len(off) <= high:
            break
    rng.shuffle(off)
    hand = off.pop() if rng.random() < 0.3 else None
    where = [int(w) for w in rng.integers(0, 5, size=len(off))]
    options = {"forced_foundation": bool(rng.random() < 0.8), "sevens_after_placing": bool(rng.random() < 0.5)}
    return position(off, hand, where, pass_no, **options)


def sevens_position(rng: np.random.Generator) -> tuple[PussInTheCorner, PussState]:
    """Pass 2, a black 7 just dealt with its privilege, and one black card of each rank 8..K about."""
    sevens = [c for c in range(52) if not RED[c] and RANK[c] == 7]
    hand = sevens[int(rng.integers(2))]
    off = [[c for c in range(52) if not RED[c] and RANK[c] == r][int(rng.integers(2))] for r in range(8, 14)]
    rng.shuffle(off)
    where = [int(w) for w in rng.integers(0, 5, size=len(off))]
    return position(off, hand, where, 2, seven=True, sevens_after_placing=bool(rng.random() < 0.5))


def replay(game: PussInTheCorner, state: PussState, moves: list[int]) -> tuple[float, bool]:
    """Final score and win of ``moves`` played in the registered env from ``state``."""
    info = play_line(ENV_ID, game, state, moves)
    return float(info["score"]), bool(info["won"])


def check_line(game: PussInTheCorner, state: PussState, sol: PussSolution) -> None:
    """The line replays to the claimed cards, and wins exactly when the verdict says so."""
    score, won = replay(game, state, sol.moves)
    assert score == sol.cards
    assert won == (sol.verdict == "won")


# --- tests -------------------------------------------------------------------------------


def test_agrees_with_exhaustive_search_on_small_positions():
    rng = np.random.default_rng(7)
    cases = [random_position(rng) for _ in range(60)] + [sevens_position(rng) for _ in range(12)]
    verdicts = set()
    searched = 0
    for game, state in cases:
        best = exhaustive(game, state)
        for greedy_start in (True, False):
            sol = solve(game, state, greedy_start=greedy_start)
            assert sol.proven and sol.cards == best
            assert sol.verdict == ("won" if best == 52 else "lost")
            check_line(game, state, sol)
            verdicts.add(sol.verdict)
            searched += not greedy_start and sol.nodes > 1
    assert verdicts == {"won", "lost"} and searched > len(cases) // 2  # both outcomes, real searches


def test_bound_never_below_what_play_reaches():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(40):
        game, state = random_position(rng)
        if state.pass_no == 2:
            assert upper_bound(state) >= exhaustive(game, state)
            checked += 1
    assert checked > 20


def test_bound_sees_a_card_buried_under_the_card_that_wants_it():
    # Black piles need 9 and 14, red ones are complete; the 9S lies under the TC, which needs a 9 first.
    off = [CODE.index(c) for c in ("9S", "TC", "JS", "QC", "KS")]
    game, state = position(off, None, [1, 1, 0, 2, 3], pass_no=2)  # the JS is still to be dealt
    assert not game.is_over(state)
    assert upper_bound(state) == state.score  # nothing black can ever move again
    sol = solve(game, state, greedy_start=False)
    assert sol.verdict == "lost" and sol.proven and sol.cards == exhaustive(game, state) == state.score


MERGE_ONLY = {
    "pass": 2,
    "foundations": ["AC 2C 3C 4C 5C 6C 7C 8S 9C TS JC QS KC".split(), *RED_DONE, "AS 2S 3S 4S 5S 6S".split()],
    "corners": [["TC"], ["9S"], ["JS"], ["QC"]],
    "hand": "7S",
    "pack": ["KS", "8C"],
    "seven": True,
    "redeal": [],
}


def test_a_position_won_only_through_the_sevens_merge():
    # Every packet holds a black card wanted before the KS dealt next: only putting the 9S packet on
    # the TC packet (or the like) frees a corner for it.
    game = PussInTheCorner()
    state = game.from_dict(MERGE_ONLY)
    assert exhaustive(game, state) == 52
    assert exhaustive(game, state, allow=lambda a: not MERGE <= a < TAKE) < 52
    for greedy_start in (True, False):
        sol = solve(game, state, greedy_start=greedy_start)
        assert sol.verdict == "won" and any(MERGE <= a < TAKE for a in sol.moves)
        check_line(game, state, sol)


REDEAL_CHOICE = {
    "pass": 1,
    "foundations": [
        "AC 2C 3C 4C 5C 6C 7C 8S 9C TS JC QS KC".split(),
        "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD".split(),
        RED_DONE[1],
        "AS 2S 3S 4S 5S 6S 7S".split(),
    ],
    "corners": [["QD", "8C", "KD"], ["9S", "TC", "JS", "QC", "KS"], [], []],
    "hand": None,
    "pack": [],
    "seven": False,
    "redeal": [],
}


def test_a_position_won_only_by_the_right_redeal_order():
    # Packet B first deals 9S TC JS QC KS before the 8C: five cards for four corners.
    game = PussInTheCorner()
    state = game.from_dict(REDEAL_CHOICE)
    take_a, take_b = (game.action_from_description(t) for t in ("take A", "take B"))
    outcomes = {}
    for action in (take_a, take_b):
        child = state.copy()
        game.apply(child, action)
        outcomes[action] = exhaustive(game, child)
    assert outcomes[take_a] == 52 > outcomes[take_b]
    for greedy_start in (True, False):
        sol = solve(game, state, greedy_start=greedy_start)
        assert sol.verdict == "won" and sol.moves[0] == take_a
        check_line(game, state, sol)


def deal(seed: int) -> tuple[PussInTheCorner, PussState]:
    env = gym.make(ENV_ID)
    env.reset(seed=seed)
    return env.unwrapped.game, env.unwrapped.state  # type: ignore[attr-defined]


HARD_SEED = next(s for s in range(50) if greedy_loses(s))


@pytest.mark.parametrize("greedy_start", [True, False])
def test_node_budget_is_respected_and_never_gives_a_false_loss(greedy_start):
    game, state = deal(HARD_SEED)
    for budget in (1, 10, 200):
        sol = solve(game, state, max_nodes=budget, greedy_start=greedy_start)
        assert sol.nodes <= budget
        assert sol.verdict in ("unknown", "won") and sol.proven == (sol.verdict == "won")
        check_line(game, state, sol)
    full = solve(game, state, max_nodes=200_000)
    assert full.verdict == "won" and full.proven
    check_line(game, state, full)


def test_time_budget_is_respected():
    game, state = deal(HARD_SEED)
    sol = solve(game, state, max_seconds=0.01, greedy_start=False)
    assert sol.seconds < 1.0  # the search stops within 256 nodes of the deadline; then one greedy finish
    assert sol.verdict in ("unknown", "won")
    check_line(game, state, sol)


def test_solver_lines_replay_on_full_deals_and_beat_or_match_the_greedy():
    for seed in range(4):
        game, state = deal(seed)
        sol = solve(game, state, max_nodes=50_000)
        check_line(game, state, sol)
        assert sol.verdict != "lost" or sol.proven


def test_agent_from_the_registry_plays_legal_winning_lines():
    agent = make_agent("solver", "puss_in_the_corner")
    assert isinstance(agent, PussSolverAgent) and agent.name == "solver"
    seeds = [HARD_SEED, HARD_SEED + 1]
    solver = play_episodes(ENV_ID, agent, seeds)  # raises on any illegal move
    greedy = play_episodes(ENV_ID, PussGreedy(), seeds)
    assert all(s >= g for s, g in zip(solver.scores, greedy.scores, strict=True))
    assert solver.win_rate == 1.0  # both deals are won within the default budget (see the budget test)


def test_agent_re_solves_when_the_position_leaves_its_plan():
    agent = PussSolverAgent(max_nodes=2_000)
    first = gym.make(ENV_ID)
    first.reset(seed=1)
    other = gym.make(ENV_ID)
    other.reset(seed=2)
    for env in (first, other, first):  # the second and third calls find positions off the plan
        unwrapped = env.unwrapped
        mask = unwrapped.game.legal_mask(unwrapped.state)  # type: ignore[attr-defined]
        action = agent.act(unwrapped, np.zeros(1), mask)  # type: ignore[arg-type]
        assert mask[action]
        env.step(action)


def test_a_budget_that_is_not_positive_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    """solve, the agent (``solver:max_seconds=0`` too) and the CLI refuse it before any search; None: no limit."""
    from agents.solvers import puss as puss_solver

    game, state = deal(0)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"max_nodes": 0}, "max_nodes must be a positive integer (or None), got 0"),
        ({"max_nodes": -5}, "max_nodes must be a positive integer (or None), got -5"),
        ({"max_nodes": 10.0}, "max_nodes must be a positive integer (or None), got 10.0"),
        ({"max_seconds": 0}, "max_seconds must be a positive number of seconds (or None), got 0"),
        ({"max_seconds": -1.5}, "max_seconds must be a positive number of seconds (or None), got -1.5"),
        ({"max_seconds": float("nan")}, "max_seconds must be a positive number of seconds (or None), got nan"),
    ]
    for budget, message in cases:
        for call in (functools.partial(solve, game, state), PussSolverAgent):
            with pytest.raises(ValueError) as refused:
                call(**budget)
            assert str(refused.value) == message
    for spec in ("solver:max_nodes=0", "solver:max_seconds=0"):
        with pytest.raises(ValueError, match=r"max_(nodes|seconds) must be a positive"):
            make_agent(spec, "puss_in_the_corner")
    for argv, message in [
        (["--max-nodes", "-5"], "--max-nodes must be a positive integer (or left out: no limit), got -5"),
        (["--max-seconds", "0"], "--max-seconds must be a positive number of seconds (or left out: no limit)"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            puss_solver.main(["--seed", "2", *argv])
        assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert PussSolverAgent(max_nodes=None, max_seconds=None).max_nodes is None

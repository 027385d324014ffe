"""The Miss Milligan family solver: against an independent exhaustive search on small positions, each pruning
switched off, lines replayed in the env (and as game records), budgets and determinism."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.solvers.milligan import (
    BEAMS,
    ENV_IDS,
    PRUNINGS,
    MilliganSolution,
    deal,
    idle_needed,
    solution_record,
    solve,
)
from patience_gym.cards import CODE
from patience_gym.games.milligan import Giant, MilliganGame, MilliganState, MissMilligan, MissMilliganPocket
from patience_gym.heuristics.milligan_greedy import GreedyRules
from patience_gym.records import load_record, replay, save_record
from tests.helpers import play_line

GAMES: list[type[MilliganGame]] = [MissMilligan, Giant, MissMilliganPocket]
BIG = 10**7  # a node budget no small position reaches


# --- an independent exhaustive search ------------------------------------------------------


class TooBig(Exception):
    """The exhaustive search met more positions than it was allowed."""


def reference(game: MilliganGame, state: MilliganState, cap: int = 10**9) -> bool:
    """Whether ``state`` can be won: every segment (the moves between two progress events) is searched
    breadth first over the rules' own moves, so each position is met first by a shortest idle line; the
    positions right after a progress event are remembered by (fingerprint, best). No pruning, no idle table.
    Raises :class:`TooBig` after ``cap`` positions."""
    lost: set[tuple[int, int]] = set()
    count = 0

    def clean(state: MilliganState) -> bool:
        key = (state.hash, state.best)
        if key in lost:
            return False
        if segment(state):
            return True
        lost.add(key)
        return False

    def segment(start: MilliganState) -> bool:
        nonlocal count
        if start.total == 104:
            return True
        level = [start]
        met = {start.hash}
        while level:
            following = []
            for state in level:
                count += 1
                if count > cap:
                    raise TooBig
                for action in game.legal_actions(state):
                    progress = game.is_progress(state, action)
                    child = state.copy()
                    game.apply(child, action)
                    if progress:
                        if clean(child):
                            return True
                    elif child.hash not in met:
                        met.add(child.hash)
                        following.append(child)
            level = following
        return False

    return segment(state)


# --- positions ------------------------------------------------------------------------------


def endgame(game: MilliganGame, rng: np.random.Generator, off: int, stock: bool) -> MilliganState:
    """A random position with about ``off`` cards off the foundations (the highest of their piles) spread over
    the columns, with a deal of eight still to come when ``stock``, a random idle count, ``best`` above the
    foundations now and then (where cards come down) and a card in the reserve now and then."""
    heights = [13] * 8
    slots = [2, 3, 4, 5] if rng.random() < 0.5 else list(range(8))  # red cards only: nothing packs
    for _ in range(off + 8 * stock):
        slot = slots[int(rng.integers(len(slots)))]
        heights[slot] = max(0, heights[slot] - 1)
    cards = [(s // 2) * 13 + r for s, h in enumerate(heights) for r in range(h, 13)]
    cards = [cards[int(i)] for i in rng.permutation(len(cards))]
    dealt, shown = (cards[:8], cards[8:]) if stock else ([], cards)
    columns: list[list[int]] = [[] for _ in range(8)]
    used = [int(j) for j in rng.choice(8, size=int(rng.integers(1, 6)), replace=False)]
    for c in shown:
        columns[used[int(rng.integers(len(used)))]].append(c)
    if rng.random() < 0.5:  # the lowest cards deepest: the most blocking
        columns = [sorted(col, key=lambda c: c % 13) for col in columns]
    data: dict[str, Any] = {
        "tableau": [[CODE[c] for c in col] for col in columns],
        "foundations": [[CODE[(s // 2) * 13 + r] for r in range(h)] for s, h in enumerate(heights)],
        "stock": [CODE[c] for c in dealt],
    }
    if game.reserve_kind and rng.random() < 0.3 and not dealt:
        j = next((j for j in map(int, rng.permutation(8)) if columns[j]), None)
        if j is not None:
            card = columns[j].pop()
            data["tableau"][j].pop()
            if game.reserve_kind == "pocket":
                data["pocket"] = CODE[card]
            else:
                data["waived"], data["waived_from"] = [CODE[card]], j
    total = sum(heights)
    if game.down != "never" and rng.random() < 0.4:
        data["best"] = total + int(rng.integers(1, 3))
    data["idle_moves"] = int(rng.choice([0, 30, 40, 44, 46, 48]))
    return game.from_dict(data)


def wander(game: MilliganGame, state: MilliganState, rng: np.random.Generator, steps: int) -> MilliganState:
    """``state`` after up to ``steps`` random idle moves (so it carries a seen set of several positions)."""
    state = state.copy()
    for _ in range(steps):
        idle = [a for a in game.legal_actions(state) if not game.is_progress(state, a)]
        if not idle:
            break
        game.apply(state, idle[int(rng.integers(len(idle)))])
    return state


@cache
def small_positions() -> list[tuple[MilliganGame, MilliganState, bool]]:
    """Small positions of every game with their exhaustive verdicts (won or not).

    Random endgames are drawn until each game has eight the solver wins and six it calls lost within a
    small budget (lost ones are rare: drawing on the solver's verdict finds them). A win is proved by its
    line replaying; every "lost" is judged by the exhaustive search (positions too big for it are skipped).
    The tests then solve each with each pruning switched off as well."""
    rng = np.random.default_rng(35)
    cases = []
    for cls in GAMES:
        game = cls()
        wanted = {"won": 8, "lost": 6}
        for n in range(300):
            if not any(wanted.values()):
                break
            state = endgame(game, rng, int(rng.integers(6, 14)), stock=n % 3 == 0)
            if n % 4 == 1:
                state = wander(game, state, rng, int(rng.integers(1, 6)))
            if game.is_over(state):
                continue
            sol = solve(game, state, max_nodes=2_000, dives=0)
            if not wanted.get(sol.verdict):
                continue
            if sol.verdict == "won":  # a line that replays to a win proves it
                replays_to_a_win(game, state, sol.moves)
                exact = True
            else:
                try:
                    exact = reference(game, state, cap=2_000)
                except TooBig:
                    continue
            wanted[sol.verdict] -= 1
            cases.append((game, state, exact))
    return cases


def unplayable(game: MilliganGame) -> MilliganState:
    """Hearts up to the 9 on one pile, everything else up: TH QH JH in one column, the KH alone.
    The JH may be waived or pocketed, but the QH can go nowhere but a vacancy, which Giant allows, and in
    the pocket version a black King from the foundations may take the vacancy and then the QH."""
    heights = (13, 13, 13, 13, 13, 9, 13, 13)
    data: dict[str, Any] = {
        "tableau": [["TH", "QH", "JH"], ["KH"], [], [], [], [], [], []],
        "foundations": [[CODE[(s // 2) * 13 + r] for r in range(h)] for s, h in enumerate(heights)],
        "stock": [],
    }
    return game.from_dict(data)


# --- checks ---------------------------------------------------------------------------------


def replays_to_a_win(game: MilliganGame, state: MilliganState, moves: list[int]) -> None:
    """``moves`` are legal in the registered env from ``state`` (progress rule included) and win on the last one."""
    assert play_line(ENV_IDS[game.name], game, state, moves)["won"], "the line does not end in a won game"


def check(game: MilliganGame, state: MilliganState, sol: MilliganSolution, won: bool) -> None:
    assert sol.verdict == ("won" if won else "lost"), (game.name, game.to_dict(state))
    if won:
        replays_to_a_win(game, state, sol.moves)
    else:
        assert sol.moves == []


# --- tests ----------------------------------------------------------------------------------


def test_small_positions_cover_both_verdicts_in_every_game() -> None:
    cases = small_positions()
    for cls in GAMES:
        verdicts = [won for game, _, won in cases if isinstance(game, cls)]
        assert len(verdicts) >= 12 and len(verdicts) - sum(verdicts) >= 3, cls.__name__


VARIANTS = {"all": PRUNINGS, "symmetry only": ("symmetry",), "bound only": ("bound",), "none": ()}


def test_verdicts_agree_with_the_exhaustive_search_with_and_without_each_pruning() -> None:
    """Every verdict reached within 10,000 nodes, with any set of prunings, is the exhaustive search's (a
    search without the symmetry may wander through column permutations for longer; those few are left
    out). Each pruning is used: the positions all searches finished cost fewer nodes with it."""
    cases = small_positions()
    nodes: dict[str, list[int | None]] = {}
    for name, prune in VARIANTS.items():
        row: list[int | None] = []
        for game, state, won in cases:
            sol = solve(game, state, max_nodes=10_000, prune=prune, dives=0)
            if sol.verdict == "undecided":
                row.append(None)
            else:
                check(game, state, sol, won)
                row.append(sol.nodes)
        assert row.count(None) <= 0.2 * len(cases), name
        nodes[name] = row
    finished = [i for i in range(len(cases)) if all(row[i] is not None for row in nodes.values())]
    total = {name: sum(row[i] or 0 for i in finished) for name, row in nodes.items()}
    assert total["all"] < total["symmetry only"] < total["none"]
    assert total["all"] < total["bound only"] < total["none"]


def test_the_bound_never_exceeds_the_idle_moves_progress_needs() -> None:
    """``idle_needed`` is at most the fewest idle moves before a progress move, found breadth first."""
    rng = np.random.default_rng(4)
    checked = 0
    for cls in GAMES:
        game = cls()
        for _ in range(10):
            state = endgame(game, rng, int(rng.integers(5, 9)), stock=False)
            data = game.to_dict(state)
            data["idle_moves"], data["seen"] = 0, []
            state = game.from_dict(data)
            level, met, distance = [state], {state.hash}, 0
            while (
                level
                and len(met) < 5_000
                and not any(game.is_progress(s, a) for s in level for a in game.legal_actions(s))
            ):
                following = []
                for s in level:
                    for a in game.legal_actions(s):
                        child = s.copy()
                        game.apply(child, a)
                        if child.hash not in met:
                            met.add(child.hash)
                            following.append(child)
                level, distance = following, distance + 1
            if level and len(met) < 5_000:  # progress within reach, after ``distance`` idle moves
                assert idle_needed(game, state) <= distance
                checked += distance > 0
    assert checked >= 5


@pytest.mark.parametrize("cls", GAMES)
def test_a_hand_built_position(cls: type[MilliganGame]) -> None:
    game = cls()
    state = unplayable(game)
    won = cls is not MissMilligan
    if not won:
        assert not reference(game, state)
    for prune in (PRUNINGS, ()):
        check(game, state, solve(game, state, max_nodes=BIG, prune=prune, dives=0), won)


def test_the_idle_limit_decides() -> None:
    """Giant wins the hand-built position, but not with too few idle moves left; the solver agrees with the
    exhaustive search on each idle count."""
    game = Giant()
    data = game.to_dict(unplayable(game))
    outcomes = []
    for idle in (44, 46, 47, 48, 49, 50):
        data["idle_moves"] = idle
        state = game.from_dict(data)
        won = reference(game, state)
        outcomes.append(won)
        for prune in (PRUNINGS, ()):
            check(game, state, solve(game, state, max_nodes=BIG, prune=prune, dives=0), won)
    assert outcomes == [True, True, True, True, False, False]


@pytest.mark.parametrize("name", sorted(ENV_IDS))
def test_full_deals_won_lines_replay_and_make_records(name: str, tmp_path: Path) -> None:
    env_id = ENV_IDS[name]
    won = 0
    for seed in range(3):
        game, state = deal(env_id, seed)
        sol = solve(game, state, max_nodes=3_000)
        assert sol.nodes <= 3_000 and sol.verdict in ("won", "undecided")
        if sol.verdict == "won":
            won += 1
            replays_to_a_win(game, state, sol.moves)
            record = solution_record(env_id, sol.moves, seed=seed)
            assert record.won and record.terminated and len(record.moves) == len(sol.moves)
            path = save_record(record, tmp_path / f"{name}-{seed}.json")
            steps = list(replay(load_record(path)))  # raises on any difference from the record
            assert len(steps) == len(sol.moves) and steps[-1][-1]["won"]
    if name == "miss_milligan":
        assert won >= 2  # seeds 0 and 1 are won within a few hundred nodes


def test_a_noisy_dive_wins_a_deal_the_greedy_loses() -> None:
    game, state = deal(ENV_IDS["miss_milligan_pocket"], 2)
    end, rules = state.copy(), GreedyRules()
    while not game.is_over(end):
        game.apply(end, rules.choose(game, end, game.legal_mask(end)))
    assert not game.is_won(end)
    sol = solve(game, state, max_nodes=2_000)
    assert sol.verdict == "won" and sol.nodes <= 2_000
    replays_to_a_win(game, state, sol.moves)


@pytest.mark.parametrize("version", sorted(BEAMS))
def test_the_beam_never_changes_a_verdict(version: int) -> None:
    """With a beam of either version, every small position (some with a deal still to come) gets the
    exhaustive search's verdict, and each won line replays."""
    cases = small_positions()
    assert any(state.pos < len(state.stock) for _, state, _ in cases)
    for game, state, won in cases:
        check(game, state, solve(game, state, max_nodes=BIG, beam=3, beam_version=version), won)


@pytest.mark.parametrize(("version", "budget"), [(1, 25_000), (2, 40_000)])
def test_the_beam_wins_a_giant_deal_the_search_leaves_undecided(version: int, budget: int) -> None:
    game, state = deal(ENV_IDS["giant"], 11)
    assert solve(game, state, max_nodes=budget).verdict == "undecided"
    sol = solve(game, state, max_nodes=budget, beam=5, beam_version=version)
    assert sol.verdict == "won" and sol.nodes <= budget
    replays_to_a_win(game, state, sol.moves)
    assert solution_record(ENV_IDS["giant"], sol.moves, seed=11).won
    small = solve(game, state, max_nodes=3_000, beam=5, beam_version=version)
    assert small.verdict == "undecided" and small.nodes == 3_000  # the beam keeps to the budget


def test_a_record_of_an_illegal_line_is_refused() -> None:
    game, state = deal(ENV_IDS["miss_milligan"], 0)
    with pytest.raises(ValueError, match="illegal"):
        solution_record(ENV_IDS["miss_milligan"], [game.legal_actions(state)[0], 0, 0, 0], seed=0)


def test_a_position_given_as_a_state_records_too() -> None:
    game, state, _ = next(c for c in small_positions() if c[2] and c[0].name == "giant")
    sol = solve(game, state, max_nodes=BIG)
    record = solution_record(ENV_IDS[game.name], sol.moves, state=game.to_dict(state))
    assert record.won


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_nodes": 0},
        {"max_nodes": -5},
        {"max_nodes": 2.5},
        {"max_nodes": True},
        {"max_seconds": 0},
        {"max_seconds": -1.0},
        {"max_seconds": float("nan")},
        {"max_seconds": float("inf")},
        {"max_seconds": "3"},
        {"max_nodes": 0, "max_seconds": 5.0},
    ],
)
def test_a_budget_of_zero_negative_or_not_a_number_is_refused(kwargs: dict[str, Any]) -> None:
    game, state = deal(ENV_IDS["giant"], 0)
    name = next(k for k, v in kwargs.items() if v != 5.0)
    with pytest.raises(ValueError, match=name):
        solve(game, state, **kwargs)


def test_other_bad_input() -> None:
    game, state = deal(ENV_IDS["giant"], 0)
    with pytest.raises(ValueError, match="prune"):
        solve(game, state, max_nodes=10, prune=("safe",))
    with pytest.raises(ValueError, match="prune"):
        solve(game, state, max_nodes=10, prune="symmetry")
    with pytest.raises(ValueError, match="dives"):
        solve(game, state, max_nodes=10, dives=-1)
    for beam in (-1, True, 2.0):
        with pytest.raises(ValueError, match="beam"):
            solve(game, state, max_nodes=10, beam=beam)  # type: ignore[arg-type]
    for version in (0, 3, True, "2"):
        with pytest.raises(ValueError, match=r"beam_version must be one of \[1, 2\]"):
            solve(game, state, max_nodes=10, beam=5, beam_version=version)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        solve(object(), state, max_nodes=10)  # type: ignore[arg-type]


def test_budgets_are_respected_and_never_give_a_false_loss() -> None:
    game, state = deal(ENV_IDS["giant"], 0)
    for budget in (1, 10, 500):
        sol = solve(game, state, max_nodes=budget)
        assert sol.verdict == "undecided" and sol.nodes == budget and sol.moves == []
    sol = solve(game, state, max_seconds=0.05)
    assert sol.verdict == "undecided" and sol.seconds < 1.0
    default = solve(MissMilligan(), deal(ENV_IDS["miss_milligan"], 0)[1])  # no budget: a default node budget
    assert default.verdict == "won"


def test_results_are_deterministic() -> None:
    for name in sorted(ENV_IDS):
        game, state = deal(ENV_IDS[name], 2)
        first = solve(game, state, max_nodes=800)
        again = solve(game, state.copy(), max_nodes=800)
        assert (first.verdict, first.moves, first.nodes) == (again.verdict, again.moves, again.nodes)
    for game, state, _ in small_positions()[::10]:
        first = solve(game, state, max_nodes=BIG, dives=0)
        assert first.moves == solve(game, state, max_nodes=BIG, dives=0).moves


def test_the_root_state_is_not_changed() -> None:
    game, state = deal(ENV_IDS["miss_milligan_pocket"], 1)
    before = state.copy()
    solve(game, state, max_nodes=300)
    assert state == before and state.hash == before.hash


def test_a_won_position_needs_no_moves() -> None:
    game = MissMilligan()
    data = game.to_dict(unplayable(game))
    heights = [13] * 8
    data["tableau"] = [[] for _ in range(8)]
    data["foundations"] = [[CODE[(s // 2) * 13 + r] for r in range(h)] for s, h in enumerate(heights)]
    state = game.from_dict({k: data[k] for k in ("tableau", "foundations", "stock")})
    sol = solve(game, state, max_nodes=1)
    assert sol.verdict == "won" and sol.moves == [] and sol.nodes == 0


def test_the_solver_agent_wins_exactly_the_deals_the_solver_proves_won() -> None:
    """``--agents solver`` for the family: the solver's line where it wins, else the greedy's game."""
    from agents.evaluation.evaluate import play_episodes
    from agents.registry import make_agent
    from agents.solvers.milligan import MilliganSolverAgent

    for name in ("miss_milligan", "giant"):
        agent = make_agent("solver:max_nodes=3000", name)
        assert isinstance(agent, MilliganSolverAgent) and agent.name == "solver"
        for seed in (0, 1):
            game, state = deal(ENV_IDS[name], seed)
            verdict = solve(game, state, max_nodes=3000).verdict
            summary = play_episodes(ENV_IDS[name], agent, [seed])
            assert summary.win_rate == (verdict == "won"), (name, seed, verdict)
    with pytest.raises(ValueError, match="max_nodes must be a positive integer"):
        MilliganSolverAgent(max_nodes=0)
    with pytest.raises(ValueError, match="beam must be a whole number of positions kept"):
        MilliganSolverAgent(beam=-1)
    with pytest.raises(ValueError, match="beam_version must be one of"):
        MilliganSolverAgent(beam=5, beam_version=3)


def test_the_solver_agent_runs_the_beam_when_asked() -> None:
    """``solver:beam=5`` (either version) wins the Giant deal that the search alone leaves undecided at the
    same budget."""
    from agents.evaluation.evaluate import play_episodes
    from agents.registry import make_agent

    env_id = ENV_IDS["giant"]
    plain = play_episodes(env_id, make_agent("solver:max_nodes=25000", "giant"), [11])
    beamed = play_episodes(env_id, make_agent("solver:max_nodes=25000,beam=5,beam_version=1", "giant"), [11])
    assert plain.win_rate == 0.0 and beamed.win_rate == 1.0
    second = play_episodes(env_id, make_agent("solver:max_nodes=40000,beam=5", "giant"), [11])
    assert second.win_rate == 1.0

"""The learned search (``search:PATH``): it never reads a face-down card, plays legal moves to the end, repeats
under a seed, learns from a proper improved policy, plays the open ending exactly, and refuses bad options and
networks of another game by name."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from agents.evaluation.evaluate import evaluate
from agents.registry import make_agent
from agents.search.exact import exact_line, exact_value
from agents.search.network import score_of, value_of
from agents.training.expert_iteration import ExItConfig, new_network, save_network
from patience_gym.games.puss import PussInTheCorner
from tests.helpers import Sealed

PUSS = "patience_gym/PussInTheCorner-v0"
GOLF_NET = Path(__file__).resolve().parents[2] / "models" / "golf_search.zip"
RULES = {"obs_encoding": "rules_moves"}
NETWORK = {
    "features_extractor_class": "agents.training.networks.MoveRows",
    "features_extractor_kwargs": {"hidden": 16},
    "share_features_extractor": False,
    "critic_reads_logits": False,
}


def network(folder: Path, env_id: str = PUSS, env_kwargs: dict[str, Any] | None = None) -> Path:
    """An untrained network of ``env_id`` on its rules-only encoding, saved with its spec."""
    config = ExItConfig(env_id=env_id, algorithm="expert_iteration", env_kwargs=env_kwargs or RULES, network=NETWORK)
    path = folder / f"{env_id.split('/')[-1]}.zip"
    save_network(new_network(config, seed=0), path, config)
    return path


@pytest.fixture(scope="module")
def puss_net(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return network(tmp_path_factory.mktemp("net"))


def first_pass_positions(game: PussInTheCorner, seed: int, count: int) -> list[Any]:
    """First-pass positions with a real choice, of a game played by its first legal moves."""
    state, found = game.init(np.random.default_rng(seed)), []
    while len(found) < count and state.pass_no == 1 and not game.is_over(state):
        if len(game.legal_actions(state)) > 1:
            found.append(state.copy())
        game.apply(state, game.legal_actions(state)[0])
    return found


def reordered(state: Any, rng: np.random.Generator, sealed: bool = False) -> Any:
    """``state`` with its face-down pack in another order (sealed: reading it fails the test)."""
    new = state.copy()
    hidden = list(tuple.__iter__(state.pack))[state.pos :]
    new.pack = (Sealed if sealed else tuple)(hidden[i] for i in rng.permutation(len(hidden)))
    new.pos = 0
    return new


def test_the_search_never_reads_the_face_down_pack(puss_net: Path) -> None:
    agent = make_agent(f"search:{puss_net},sims=8", "puss_in_the_corner", env_id=PUSS, env_kwargs=RULES)
    game = agent.search.game  # type: ignore[attr-defined]
    rng = np.random.default_rng(3)
    positions = first_pass_positions(game, 5, 6)
    assert positions
    for state in positions:
        chosen = set()
        for variant in (reordered(state, rng), reordered(state, rng), reordered(state, rng, sealed=True)):
            agent.reset(11)
            chosen.add(agent.act(SimpleNamespace(game=game, state=variant), np.zeros(1), game.legal_mask(state)))
        assert len(chosen) == 1 and game.legal_mask(state)[chosen.pop()]


def test_the_improved_policy_is_a_distribution_over_the_legal_moves(puss_net: Path) -> None:
    agent = make_agent(f"search:{puss_net},sims=8", "puss_in_the_corner", env_id=PUSS, env_kwargs=RULES)
    search = agent.search  # type: ignore[attr-defined]
    for state in first_pass_positions(search.game, 2, 4):
        result = search.run(state, np.random.default_rng(0), gumbel=True)
        mask = search.game.legal_mask(state)
        assert abs(result.policy.sum() - 1) < 1e-9 and np.all(result.policy[~mask] == 0)
        assert mask[result.action] and result.leaves <= 8 and set(result.q) <= set(np.flatnonzero(mask))


def test_the_flat_root_values_every_legal_move_alike_and_plays_the_best_mean(puss_net: Path) -> None:
    """``root=flat`` (determinized Monte Carlo, the baseline the halving is measured against)."""
    agent = make_agent(f"search:{puss_net},sims=24,root=flat", "puss_in_the_corner", env_id=PUSS, env_kwargs=RULES)
    search = agent.search  # type: ignore[attr-defined]
    for state in first_pass_positions(search.game, 2, 4):
        result = search.run(state, np.random.default_rng(0), gumbel=False)
        legal = set(np.flatnonzero(search.game.legal_mask(state)))
        assert set(result.visits) == legal and len(set(result.visits.values())) == 1
        assert result.q[result.action] == max(result.q.values())


def test_the_search_plays_whole_games_the_same_under_a_seed(puss_net: Path) -> None:
    spec = f"search:{puss_net},sims=4"
    first, second = (evaluate(PUSS, [spec], 2, 7, RULES)[0] for _ in range(2))
    assert first.scores == second.scores and all(4 <= s <= 52 for s in first.scores)


def test_an_open_position_is_played_by_the_solvers_proven_line() -> None:
    """Once the first pass's pack is dealt out nothing is hidden: the value is exact, the line proven."""
    game = PussInTheCorner()
    state = game.init(np.random.default_rng(4))
    while game.hidden_count(state) and not game.is_over(state):
        game.apply(state, game.legal_actions(state)[0])
    found = exact_line(game, state)
    assert found is not None
    value, line = found
    end = state.copy()
    for action in line:
        game.apply(end, action)
    assert game.is_over(end) and value == value_of(game.name, game.score(end)) == exact_value(game, state)
    hidden = game.init(np.random.default_rng(4))
    assert exact_line(game, hidden) is None  # the pack face down: no exact value
    assert score_of(game.name, value_of(game.name, 37)) == pytest.approx(37)


def test_the_exact_line_is_sought_within_the_search_s_budget_of_positions(puss_net: Path) -> None:
    """``exact_nodes``: the positions the solver may search for the exact line where nothing is hidden. An open
    position it cannot prove within them is searched like any other (and not tried again that game); within a
    larger budget its proven line is played."""
    from agents.search.agent import parse_spec

    game = PussInTheCorner()
    state = game.init(np.random.default_rng(3))
    while game.hidden_count(state) and not game.is_over(state):
        game.apply(state, game.legal_actions(state)[0])
    found = exact_line(game, state, max_nodes=1_000)
    assert found is not None and exact_line(game, state, max_nodes=10) is None
    tight = make_agent(f"search:{puss_net},sims=2,exact_nodes=10", game.name, env_id=PUSS, env_kwargs=RULES)
    roomy = make_agent(f"search:{puss_net},sims=2,exact_nodes=1000", game.name, env_id=PUSS, env_kwargs=RULES)
    assert tight.search.config.exact_nodes == 10 and roomy.search.config.exact_nodes == 1_000  # type: ignore[attr-defined]
    assert tight.search.follow_exact(state) is None and tight.search._unproven  # type: ignore[attr-defined]
    followed = roomy.search.follow_exact(state)  # type: ignore[attr-defined]
    assert followed is not None and followed.action == found[1][0]
    assert parse_spec(f"search:{puss_net}")[1]["exact_nodes"] == 50_000
    for bad in ("0", "2.5"):
        with pytest.raises(ValueError, match="exact_nodes must be a whole number of at least 1"):
            parse_spec(f"search:{puss_net},exact_nodes={bad}")


FAMILY = ["patience_gym/MissMilligan-v0", "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0"]


@pytest.mark.parametrize("env_id", FAMILY)
def test_the_milligan_familys_open_ending_is_played_by_a_proven_win(env_id: str) -> None:
    """Once the stock is dealt out nothing is hidden: a proven win is the exact line; no value while the stock
    is face down, nor where the solver proves no win."""
    import gymnasium as gym

    from agents.baselines.greedy_milligan import MilliganGreedy

    env, greedy, proven = gym.make(env_id), MilliganGreedy(), 0
    for seed in range(12):
        env.reset(seed=seed)
        game, state = env.unwrapped.game, env.unwrapped.state  # type: ignore[attr-defined]
        assert exact_line(game, state) is None  # the stock face down
        while game.hidden_count(state) and not game.is_over(state):
            env.step(greedy.choose(game, state, game.legal_mask(state)))
        found = None if game.is_over(state) else exact_line(game, state, max_nodes=20_000)
        if found is None:
            continue
        value, line = found
        end = state.copy()
        for action in line:
            game.apply(end, action)
        assert game.is_over(end) and value == value_of(game.name, game.score(end)) == 1.0
        proven += 1
        if proven == 2:
            break
    assert proven == 2


def test_bad_search_options_and_networks_of_another_game_are_refused_by_name(puss_net: Path, tmp_path: Path) -> None:
    for spec, message in [
        (f"search:{puss_net},sims=0", "sims must be a whole number of at least 1"),
        (f"search:{puss_net},seconds=-1", "seconds a move must be a positive number"),
        (f"search:{puss_net},seconds=0", "seconds a move must be a positive number"),
        (f"search:{puss_net},depth=3", "unknown search option 'depth=3'"),
        (f"search:{puss_net},sims=4,seconds=1", "in sims or in seconds, not both"),
        (f"search:{puss_net},sims=lots", "must be a number"),
        (f"search:{puss_net},root=deep", "root must be one of halving, flat"),
        ("search:", "needs its network's path first"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_agent(spec, "puss_in_the_corner", env_id=PUSS, env_kwargs=RULES)
    golf = network(tmp_path, "patience_gym/Golf-v0")
    with pytest.raises(ValueError, match="trained on patience_gym/Golf-v0"):
        make_agent(f"search:{golf}", "puss_in_the_corner", env_id=PUSS, env_kwargs=RULES)
    other_rules = {**RULES, "forced_foundation": False}
    with pytest.raises(ValueError, match="not patience_gym/PussInTheCorner-v0"):
        make_agent(f"search:{puss_net}", "puss_in_the_corner", env_id=PUSS, env_kwargs=other_rules)


@pytest.mark.parametrize(
    ("env_id", "name", "run"),
    [
        (PUSS, "puss_search", "PussInTheCorner-v0-search"),
        ("patience_gym/Golf-v0", "golf_search", "Golf-v0-search"),
        ("patience_gym/MissMilligan-v0", "miss_milligan_search", "MissMilligan-v0-search"),
    ],
)
def test_the_published_learned_search_replays_its_report_deal_by_deal(env_id: str, name: str, run: str) -> None:
    """A published learned search's network (models/NAME.zip), alone and searching, scores on the first report
    deals what its run report says."""
    import json

    root = Path(__file__).resolve().parents[2]
    model = root / "models" / f"{name}.zip"
    report = json.loads((root / "benchmarks" / "runs" / run / "results.json").read_text())
    nodes = report.get("search_exact_nodes", 50_000)
    spec = f"search:{model},sims={report['search_sims']},exact_nodes={nodes}"
    alone, search = evaluate(env_id, [f"ppo:{model}", spec], 3, 0, RULES)
    assert alone.scores == report["scores"]["network alone"][:3]
    searched = next(label for label in report["scores"] if label.startswith("search ("))
    assert search.scores == report["scores"][searched][:3]


def test_golf_search_plays_the_exact_expectimax_move_once_few_stock_cards_are_left() -> None:
    """``search:PATH,exact_from=N`` on Golf: with at most N stock cards left, every decision is the move of best
    expected score for a player who does not see the stock (ties to the prior), the same for any order of the
    face-down cards; with more left, the search chooses; bad values of the option are refused by name."""
    from agents.search.agent import parse_spec
    from agents.solvers.golf_expectimax import action_values

    golf = "patience_gym/Golf-v0"
    model = GOLF_NET
    agent = make_agent(f"search:{model},exact_from=6", "golf", env_id=golf, env_kwargs=RULES)
    search = agent.search  # type: ignore[attr-defined]
    import gymnasium as gym

    env = gym.make(golf, **RULES)
    exact_moves = searched = 0
    for seed in range(4):
        _, info = env.reset(seed=seed)
        agent.reset(seed)
        rng = np.random.default_rng(seed)
        done = False
        while not done:
            state = env.unwrapped.state  # type: ignore[attr-defined]
            legal = np.flatnonzero(info["action_mask"])
            if len(legal) > 1 and state.stock_left <= 6 and state.stock_left:
                values = action_values(search.game, state)
                best = min(values[a] for a in legal)
                chosen = search.run(state, rng, gumbel=False)
                assert values[chosen.action] == best and chosen.policy[chosen.action] == 1.0
                shuffled = state.copy()
                seen, hidden = state.stock[: state.pos], list(state.stock[state.pos :])
                shuffled.stock = tuple(seen) + tuple(rng.permutation(hidden).tolist())
                search.new_game()
                assert search.run(shuffled, rng, gumbel=False).action == chosen.action  # no face-down card read
                exact_moves += 1
            elif len(legal) > 1 and state.stock_left > 6:
                searched += search.run(state, rng, gumbel=False).leaves > 0
            _, _, terminated, truncated, info = env.step(agent.act(env.unwrapped, None, info["action_mask"]))
            done = terminated or truncated
    assert exact_moves > 5 and searched > 5
    assert parse_spec(f"search:{model},exact_from=11")[1]["exact_from"] == 11
    assert parse_spec(f"search:{model},exact_from=none")[1]["exact_from"] is None
    for bad in ("-1", "1.5"):
        with pytest.raises(ValueError, match="exact_from must be a whole number of at least 0"):
            parse_spec(f"search:{model},exact_from={bad}")


def test_nine_hole_golf_is_searched_hole_by_hole_with_a_golf_network() -> None:
    """``search:PATH`` on ``GolfRound-v0`` with a Golf network: each hole is searched as a game of its own (the
    hole's position, its hidden cards, a fresh game at each hole), and the round is played to its end."""
    from patience_gym.games.golf import Golf, GolfState

    round_id = "patience_gym/GolfRound-v0"
    agent = make_agent(f"search:{GOLF_NET},sims=2", "golf_round", env_id=round_id, env_kwargs=RULES)
    search = agent.search  # type: ignore[attr-defined]
    assert isinstance(search.game, Golf)
    searched: list[Any] = []
    run, new_game = search.run, search.new_game
    search.run = lambda state, *args, **kwargs: searched.append(state) or run(state, *args, **kwargs)
    games = [0]
    search.new_game = lambda: games.__setitem__(0, games[0] + 1) or new_game()
    import gymnasium as gym

    env = gym.make(round_id, **RULES)
    obs, info = env.reset(seed=4)
    agent.reset(4)
    done, holes = False, set()
    while not done:
        holes.add(info["hole"])
        obs, _, terminated, truncated, info = env.step(agent.act(env.unwrapped, obs, info["action_mask"]))  # type: ignore[arg-type]
        done = terminated or truncated
    assert holes == set(range(1, 10)) and len(info["hole_scores"]) == 9
    assert searched and all(isinstance(state, GolfState) for state in searched)
    assert games[0] == 1 + 8  # the reset's (hole 1), then one at each hole after it (Game.part)

"""The evaluation tool: statistics, same deals for every agent, CLI output."""

from __future__ import annotations

import json
import math

import pytest

from agents.evaluation.evaluate import Z95, evaluate, main, mean_ci95, paired_ci95, wilson_ci95
from patience_gym.features import observe


def hand_mean_ci95(values):
    """The hand-written interval these functions replaced (normal approximation)."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.959963984540054 * math.sqrt(var / n)


def hand_wilson(successes, n):
    """The hand-written Wilson interval these functions replaced."""
    p = successes / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def test_library_intervals_equal_the_hand_written_ones(monkeypatch):
    import sys

    import numpy as np

    rng = np.random.default_rng(0)
    for n in (2, 3, 10, 500):
        values = rng.normal(10, 4, n).round(1).tolist()
        mean, half = mean_ci95(values)
        ref_mean, ref_half = hand_mean_ci95(values)
        assert mean == pytest.approx(ref_mean, rel=1e-12) and half == pytest.approx(ref_half, rel=1e-12)
    for successes, n in ((0, 10), (5, 10), (10, 10), (37, 1000), (999, 1000)):
        expected = hand_wilson(successes, n)
        assert wilson_ci95(successes, n) == pytest.approx(expected, abs=1e-12)
        # Without statsmodels, scipy's binomtest(...).proportion_ci(method="wilson") gives the same.
        monkeypatch.setitem(sys.modules, "statsmodels.stats.proportion", None)
        assert wilson_ci95(successes, n) == pytest.approx(expected, abs=1e-12)
        monkeypatch.delitem(sys.modules, "statsmodels.stats.proportion")
    assert math.isnan(wilson_ci95(0, 0)[0]) and math.isnan(mean_ci95([3.0])[1])


def test_t_and_paired_intervals():
    from scipy import stats

    values = [1.0, 2.0, 3.0, 4.0]
    mean, half = mean_ci95(values, "t")
    assert half == pytest.approx(stats.t.ppf(0.975, 3) * math.sqrt(5 / 3) / 2)
    lo, hi = stats.ttest_1samp(values, 0).confidence_interval(0.95)
    assert (mean - half, mean + half) == (pytest.approx(lo), pytest.approx(hi))
    a, b = [5.0, 7.0, 6.0, 9.0], [4.0, 7.0, 3.0, 8.0]
    diff, diff_half = paired_ci95(a, b)
    assert (diff, diff_half) == hand_mean_ci95([1.0, 0.0, 3.0, 1.0])
    with pytest.raises(ValueError, match="same deals"):
        paired_ci95(a, b[:3])
    with pytest.raises(ValueError, match="normal or t"):
        mean_ci95(values, "bootstrap")


def test_wilson_interval_matches_textbook_values():
    lo, hi = wilson_ci95(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_ci95(5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))


def test_mean_ci95():
    mean, half = mean_ci95([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and half == pytest.approx(1.959964 * math.sqrt(5 / 3) / 2)


def test_agents_play_the_same_deals_and_greedy_beats_random():
    random_a, greedy = evaluate("patience_gym/Golf-v0", ["random", "greedy"], episodes=60, seed=100)
    random_b = evaluate("patience_gym/Golf-v0", ["random"], episodes=60, seed=100)[0]
    assert random_a.scores == random_b.scores  # deterministic given the seeds
    assert greedy.mean_score + greedy.score_ci95 < random_a.mean_score - random_a.score_ci95


def test_cli_prints_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    main(["--env", "patience_gym/GolfRound-v0", "--agents", "random", "--episodes", "3", "--json", str(out)])
    text = capsys.readouterr().out
    assert "| random | 3 |" in text and "bogey is 40" in text
    data = json.loads(out.read_text())
    assert data["results"][0]["episodes"] == 3 and data["lower_score_is_better"]


def test_unknown_agent_is_named():
    with pytest.raises(ValueError, match="unknown agent 'smart'"):
        evaluate("patience_gym/Golf-v0", ["smart"], episodes=1)
    with pytest.raises(FileNotFoundError, match="no PPO model"):
        evaluate("patience_gym/Golf-v0", ["ppo:/nonexistent/model.zip"], episodes=1)


def test_a_golf_hole_model_plays_a_round_hole_by_hole():
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from agents.ppo import PPOAgent
    from patience_gym.games.golf import hole_in_play

    model = MaskablePPO("MlpPolicy", gym.make("patience_gym/Golf-v0"), n_steps=64, batch_size=32, seed=0)
    agent = PPOAgent(model)
    round_env = gym.make("patience_gym/GolfRound-v0")
    obs, info = round_env.reset(seed=4)
    holes_seen = set()
    for _ in range(400):
        mask = info["action_mask"].astype(bool)
        game, hole = hole_in_play(round_env.unwrapped.game, round_env.unwrapped.state)
        expected, _ = model.predict(
            observe(game, hole, round_env.unwrapped.obs_encoding), action_masks=mask, deterministic=True
        )
        action = agent.act(round_env.unwrapped, obs, mask)
        assert action == int(expected)
        holes_seen.add(info["hole"])
        obs, _, done, _, info = round_env.step(action)
        if done:
            break
    assert done and holes_seen == set(range(1, 10))
    # Any other mismatch of observation shapes is still an error that says what to do.
    with pytest.raises(ValueError, match="obs_encoding the model was trained on"):
        other = gym.make("patience_gym/Golf-v0", obs_encoding="planes")
        obs, info = other.reset(seed=0)
        agent.act(other.unwrapped, obs, info["action_mask"].astype(bool))


def test_several_models_are_named_by_file_and_the_json_keeps_per_deal_scores(tmp_path):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", gym.make("patience_gym/Golf-v0"), n_steps=64, batch_size=32, seed=0)
    for name in ("first", "second"):
        model.save(tmp_path / f"{name}.zip")
    out = tmp_path / "r.json"
    specs = [f"ppo:{tmp_path / 'first.zip'}", f"ppo:{tmp_path / 'second.zip'}"]
    main(["--env", "patience_gym/Golf-v0", "--agents", "greedy", *specs, "--episodes", "2", "--json", str(out)])
    data = json.loads(out.read_text())
    assert [r["agent"] for r in data["results"]] == ["greedy", "ppo:first", "ppo:second"]
    assert data["scores"]["ppo:first"] == data["scores"]["ppo:second"]  # the same weights on the same deals
    assert all(len(s) == 2 for s in data["scores"].values())
    assert [s.agent for s in evaluate("patience_gym/Golf-v0", specs[:1], episodes=1)] == ["ppo"]


def test_agents_that_do_not_read_the_observation_play_on_the_default_one(monkeypatch):
    """The greedy and random agents choose from the state and the mask, so a costly encoding is not built
    for them (the same moves either way); a PPO agent gets the encoding it was trained on."""
    import gymnasium as gym

    from agents.baselines.greedy_milligan import MilliganGreedy
    from agents.baselines.random import RandomAgent
    from agents.evaluation import evaluate as evaluate_module
    from agents.ppo import PPOAgent

    made: list[dict] = []
    real_make = gym.make

    def recording_make(env_id, **kwargs):
        made.append(kwargs)
        return real_make(env_id, **kwargs)

    monkeypatch.setattr(evaluate_module.gym, "make", recording_make)
    kwargs = {"obs_encoding": "moves_endgame"}
    env_id = "patience_gym/MissMilliganPocket-v0"
    plain = evaluate_module.play_episodes(env_id, MilliganGreedy(), [0, 1])
    rich = evaluate_module.play_episodes(env_id, MilliganGreedy(), [0, 1], kwargs)
    evaluate_module.play_episodes(env_id, RandomAgent(0), [0], kwargs)
    assert made[:3] == [{}, {}, {}]
    assert rich.scores == plain.scores and rich.mean_moves == plain.mean_moves
    assert PPOAgent.reads_observation and not MilliganGreedy.reads_observation


def test_parallel_evaluation_gives_the_same_results_in_seed_order():
    """``jobs=2`` plays the deals in two processes and joins them: the same per-deal scores as one process."""
    from agents.evaluation.evaluate import evaluate

    one = evaluate("patience_gym/Golf-v0", ["random", "greedy"], 5, seed=3)
    two = evaluate("patience_gym/Golf-v0", ["random", "greedy"], 5, seed=3, jobs=2)
    for a, b in zip(one, two, strict=True):
        assert (a.agent, a.scores, a.win_rate, a.mean_moves) == (b.agent, b.scores, b.win_rate, b.mean_moves)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random", "random"], "two agents would both be labelled 'random'"),
        (["--agents", "ppo:a/m.zip", "ppo:b/m.zip"], "no PPO model at a/m.zip"),
        (["--agents", "random:foo=1"], "random takes no options"),
        (["--agents", "planner:max_seconds=-1"], "option max_seconds: Input should be greater than or equal to 0"),
        (["--agents", "smart"], "unknown agent 'smart'"),
        (["--episodes", "0"], "--episodes must be at least 1, got 0"),
        (["--seed", "-2"], "--seed must be 0 or more, got -2"),
        (["--env-kwargs", "[1]"], "--env-kwargs must be a JSON object"),
        (["--env-kwargs", '{"obs_encoding": "pictures"}'], "--env-kwargs: "),
        (["--json", "/nonexistent/dir/r.json"], "folder /nonexistent/dir does not exist; create it first"),
    ],
)
def test_cli_user_errors_are_one_line_and_exit_2_before_any_game(capsys, argv, message):
    assert main(["--env", "patience_gym/Golf-v0", "--episodes", "2", *argv]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and len(captured.err.strip().splitlines()) == 1, captured.err
    assert captured.out == ""  # nothing was played


def test_unknown_env_id_is_named(capsys):
    assert main(["--env", "patience_gym/Klondike-v0"]) == 2
    assert "unknown env id 'patience_gym/Klondike-v0'; registered:" in capsys.readouterr().err


def test_duplicate_labels_are_refused_by_evaluate_too(tmp_path):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", gym.make("patience_gym/Golf-v0"), n_steps=64, batch_size=32, seed=0)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        model.save(tmp_path / folder / "model.zip")
    specs = [f"ppo:{tmp_path / 'a' / 'model.zip'}", f"ppo:{tmp_path / 'b' / 'model.zip'}"]
    with pytest.raises(ValueError, match="both be labelled 'ppo:model'"):
        evaluate("patience_gym/Golf-v0", specs, episodes=1)
    with pytest.raises(ValueError, match="both be labelled 'greedy'"):
        evaluate("patience_gym/Golf-v0", ["greedy", "random", "greedy"], episodes=1)


@pytest.mark.parametrize("episodes", [0, -3, 2.0, True])
def test_evaluate_refuses_a_count_of_episodes_that_is_not_positive(episodes):
    """No NaN summary of no deals: the count is refused by name, as the CLI and evaluate_sharded do."""
    for jobs in (1, 2):
        with pytest.raises(ValueError, match=f"episodes must be a whole number of deals, at least 1, got {episodes!r}"):
            evaluate("patience_gym/Golf-v0", ["greedy"], episodes=episodes, jobs=jobs)


def test_a_deterministic_model_plays_its_deals_in_lockstep_as_one_after_another(tmp_path, monkeypatch):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from agents import ppo
    from agents.evaluation.evaluate import play_episodes
    from patience_gym.records import load_record

    model = MaskablePPO("MlpPolicy", gym.make("patience_gym/Golf-v0"), n_steps=64, batch_size=32, seed=0)
    agent = ppo.PPOAgent(model)
    assert agent.plays_in_lockstep and not ppo.PPOAgent(model, deterministic=False).plays_in_lockstep
    seeds = list(range(3, 15))
    one_by_one = play_episodes("patience_gym/GolfRound-v0", agent, seeds, records=tmp_path / "one", lockstep=1)
    # 5 games at once: each env deals the next seed when its game ends, and the rounds end at different moves.
    together = play_episodes("patience_gym/GolfRound-v0", agent, seeds, records=tmp_path / "five", lockstep=5)
    assert together.scores == one_by_one.scores and together.won == one_by_one.won
    assert together.mean_moves == one_by_one.mean_moves and len(set(together.scores)) > 1
    for seed in seeds:  # move for move
        name = f"GolfRound-v0-ppo-seed{seed}.json"
        assert load_record(tmp_path / "five" / name).moves == load_record(tmp_path / "one" / name).moves
    # Where the two best moves are nearly tied, the game is chosen for on its own, as act() would.
    alone: list[int] = []
    monkeypatch.setattr(ppo, "NEAR_TIE", float("inf"))
    monkeypatch.setattr(agent, "act", lambda env, obs, mask: alone.append(1) or ppo.PPOAgent.act(agent, env, obs, mask))
    first_three = play_episodes("patience_gym/GolfRound-v0", agent, seeds[:3], lockstep=3)
    assert first_three.scores == one_by_one.scores[:3]
    assert len(alone) == round(3 * first_three.mean_moves)  # with every gap "near", every move


def test_cli_records_and_backend_flags(tmp_path, capsys):
    records = tmp_path / "records"
    args = ["--env", "patience_gym/Golf-v0", "--agents", "random", "--episodes", "2", "--records", str(records)]
    assert main(args) == 0
    assert len(list(records.glob("*.json"))) == 2
    assert main([*args[:6], "--address", "auto"]) == 2
    assert "--address needs --backend ray" in capsys.readouterr().err
    plain = args[:6]
    for extra, message in [
        (["--workers", "2"], "--workers needs --backend process or ray"),
        (["--shard-size", "0"], "--shard-size must be at least 1, got 0"),
        (["--state-dir", str(records / next(records.iterdir()).name)], "cannot keep the finished shards"),
        (["--state-dir", str(tmp_path / "state"), "--records", str(records)], "--records and --state-dir do not go"),
    ]:
        assert main([*plain, *extra]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "state").exists()  # refused before any deal


def test_records_from_worker_processes_are_the_serial_records(tmp_path, capsys):
    """``--records`` with ``--backend process``: every block's worker writes its deals' records, the same
    files with the same games as the serial evaluation writes."""
    from patience_gym.records import load_record

    golf = ["--env", "patience_gym/Golf-v0", "--agents", "random", "greedy", "--episodes", "3", "--seed", "4"]
    assert main([*golf, "--records", str(tmp_path / "serial")]) == 0
    assert main([*golf, "--records", str(tmp_path / "workers"), "--backend", "process", "--workers", "2"]) == 0
    serial = sorted(p.name for p in (tmp_path / "serial").glob("*.json"))
    assert len(serial) == 6 and serial == sorted(p.name for p in (tmp_path / "workers").glob("*.json"))
    for name in serial:
        a, b = load_record(tmp_path / "serial" / name), load_record(tmp_path / "workers" / name)
        assert a == b and a.moves
    capsys.readouterr()


def test_cli_refuses_records_already_there_before_any_deal(tmp_path, capsys):
    """A second run into the same ``--records`` directory overwrites nothing: refused up front, on every backend."""
    records = tmp_path / "records"
    golf = [
        "--env",
        "patience_gym/Golf-v0",
        "--agents",
        "random",
        "greedy",
        "--episodes",
        "2",
        "--records",
        str(records),
    ]
    assert main(golf) == 0
    before = {p.name: p.read_text() for p in records.iterdir()}
    assert len(before) == 4
    capsys.readouterr()
    for extra in (
        [],
        ["--env-kwargs", '{"wrap_ranks": true}'],
        ["--seed", "1"],
        ["--backend", "process", "--workers", "2"],
    ):
        assert main([*golf, *extra]) == 2
        captured = capsys.readouterr()
        taken = (
            "Golf-v0-random-seed1.json already exists (and 1 more" if "--seed" in extra else "seed0.json already exists"
        )
        assert f"--records: {records}" in captured.err and taken in captured.err, captured.err
        assert "never written over" in captured.err and len(captured.err.strip().splitlines()) == 1
        assert captured.out == ""  # nothing was played
    assert {p.name: p.read_text() for p in records.iterdir()} == before
    assert main([*golf, "--seed", "2"]) == 0  # other deals: other files
    assert len(list(records.iterdir())) == 8


def test_evaluate_sharded_and_play_episodes_refuse_record_files_up_front(tmp_path):
    from agents.evaluation.evaluate import evaluate_sharded, play_episodes
    from agents.registry import make_agent

    (tmp_path / "Golf-v0-greedy-seed4.json").write_text("kept")
    with pytest.raises(FileExistsError, match="Golf-v0-greedy-seed4.json already exists"):
        evaluate_sharded("patience_gym/Golf-v0", None, ["random", "greedy"], range(5), records=tmp_path)
    with pytest.raises(FileExistsError, match="Golf-v0-greedy-seed4.json already exists"):  # the first agent's too
        evaluate("patience_gym/Golf-v0", ["random", "greedy"], 5, records=tmp_path)
    with pytest.raises(ValueError, match="seed 1 is given twice"):
        play_episodes("patience_gym/Golf-v0", make_agent("random", "golf"), [0, 1, 1], records=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["Golf-v0-greedy-seed4.json"]  # no deal was played


def test_cli_keeps_blocks_in_a_state_dir_and_resumes(tmp_path, capsys):
    """``--state-dir``: the same command run again reads its finished blocks back and prints the same table."""
    state = tmp_path / "state"
    args = ["--env", "patience_gym/Golf-v0", "--agents", "random", "greedy", "--episodes", "6", "--seed", "3"]
    assert main(args) == 0
    serial = capsys.readouterr().out
    kept = [*args, "--state-dir", str(state), "--shard-size", "4"]
    assert main(kept) == 0 and capsys.readouterr().out == serial
    files = sorted(state.glob("*.json"))
    assert len(files) == 4  # two agents, blocks of 4 and 2 deals
    stamps = [f.stat().st_mtime_ns for f in files]
    assert main(kept) == 0
    out = capsys.readouterr()
    assert out.out == serial and "4 of 4 blocks of deals read back" in out.err
    assert [f.stat().st_mtime_ns for f in sorted(state.glob("*.json"))] == stamps  # read back, not played again
    files[0].write_text("{}")  # a block of another run: one line naming the file, before any deal
    assert main(kept) == 2
    assert f"kept shard {files[0]} does not hold the deals" in capsys.readouterr().err


def test_cli_names_a_kept_block_with_a_deal_missing_or_a_bad_value_in_one_line(tmp_path, capsys):
    """A kept block whose scores or won flags are not one per deal, or not numbers and flags, is refused
    naming its file (exit 2) before any deal is played, and never counted."""
    state = tmp_path / "state"
    args = ["--env", "patience_gym/Golf-v0", "--agents", "random", "--episodes", "4", "--state-dir", str(state)]
    assert main([*args, "--shard-size", "2"]) == 0
    capsys.readouterr()
    path = sorted(state.glob("*.json"))[0]
    kept = json.loads(path.read_text())
    for edit, problem in [
        ({"scores": kept["scores"][:1]}, "holds 1 entries in 'scores' for its 2 deals"),
        ({"won": [True, "yes"]}, "gives deal 1's won entry as 'yes', not true or false"),
        ({"scores": [1.0, None]}, "gives deal 1's scores entry as None, not a finite number"),
        ({"moves": -3}, "gives moves as -3, not a whole number of 0 or more"),
    ]:
        path.write_text(json.dumps({**kept, **edit}))
        assert main([*args, "--shard-size", "2"]) == 2
        captured = capsys.readouterr()
        assert captured.err == f"error: kept shard {path} {problem}: delete it to solve the shard again\n"
        assert captured.out == ""


HOLDS_AFTER_TWO_BLOCKS = """
import sys, time
from agents.evaluation import blocks, evaluate
play = blocks._play_shard
def play_two_then_wait(shard):
    if shard.seeds[0] >= 5:  # the deals of seeds 3 and 4 are kept, then the run waits to be killed
        time.sleep(600)
    return play(shard)
blocks._play_shard = play_two_then_wait
evaluate.main(sys.argv[1:])
"""


def test_cli_refuses_a_state_dir_in_use_and_takes_over_one_whose_run_was_killed(tmp_path, capsys):
    """One run writes a state dir: a second is refused in one line naming the first (exit 2, nothing played);
    once the first is killed (SIGKILL), the rerun takes its lock over, says so, and counts each deal once."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    state = tmp_path / "state"
    args = ["--env", "patience_gym/Golf-v0", "--agents", "random", "--episodes", "4", "--seed", "3"]
    assert main(args) == 0
    serial = capsys.readouterr().out
    kept = [*args, "--state-dir", str(state), "--shard-size", "1"]
    root = Path(__file__).resolve().parents[2]
    first = subprocess.Popen([sys.executable, "-c", HOLDS_AFTER_TWO_BLOCKS, *kept], cwd=root, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(list(state.glob("*.json"))) < 2 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(list(state.glob("*.json"))) == 2, "the first run kept no two blocks"
        assert main(kept) == 2
        refused = capsys.readouterr()
        assert refused.err.startswith(f"error: --state-dir {state} is in use by pid {first.pid} on ")
        assert len(refused.err.splitlines()) == 1 and refused.out == ""
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    assert main(kept) == 0
    resumed = capsys.readouterr()
    assert f"taking over --state-dir {state} from pid {first.pid} on " in resumed.err
    assert "2 of 4 blocks of deals read back" in resumed.err and resumed.out == serial


MODELS = __import__("pathlib").Path(__file__).resolve().parents[2] / "models"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            [
                "--env",
                "patience_gym/Giant-v0",
                "--env-kwargs",
                '{"obs_encoding": "moves"}',
                "--agents",
                "greedy",
                f"ppo:{MODELS / 'miss_milligan_moves_critic.zip'}",
            ],
            'was trained on patience_gym/MissMilligan-v0 {"obs_encoding": "moves"}, not patience_gym/Giant-v0',
        ),
        (
            [
                "--env",
                "patience_gym/PussInTheCorner-v0",
                "--env-kwargs",
                '{"obs_encoding": "moves_replay"}',
                "--agents",
                f"ppo:{MODELS / 'puss_moves_replay_all.zip'}",
            ],
            '"moves_replay_all"}, not patience_gym/PussInTheCorner-v0 {"obs_encoding": "moves_replay"}',
        ),
        (
            [
                "--env",
                "patience_gym/Golf-v0",
                "--env-kwargs",
                '{"obs_encoding": "rules_moves", "queens_on_kings": true}',
                "--agents",
                f"ppo:{MODELS / 'golf_rules.zip'}",
            ],
            'not patience_gym/Golf-v0 {"obs_encoding": "rules_moves", "queens_on_kings": true}',
        ),
        (
            ["--env", "patience_gym/PussInTheCorner-v0", "--agents", f"ppo:{MODELS / 'golf_rules.zip'}"],
            "was trained on patience_gym/Golf-v0",
        ),
        (["--env", "CartPole-v1"], "--env CartPole-v1 is not a patience_gym env; choose one of patience_gym/Golf-v0"),
        (["--env", "patience_gym/Golf-v0", "--episodes", "99999999999999999999"], "--episodes must be at most 10,000,"),
    ],
)
def test_wrong_models_and_envs_are_one_line_and_exit_2_before_any_game(capsys, argv, message):
    assert main(["--episodes", "2", *argv]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and len(captured.err.strip().splitlines()) == 1, captured.err
    assert captured.out == ""


def test_bad_model_files_and_output_paths_are_refused_before_any_game(tmp_path, capsys):
    not_zip = tmp_path / "notes.zip"
    not_zip.write_text("not a model")
    taken = tmp_path / "taken.txt"
    taken.write_text("keep me")
    golf = ["--env", "patience_gym/Golf-v0", "--episodes", "2"]
    for argv, message in [
        ([*golf, "--agents", f"ppo:{not_zip}"], f"{not_zip} is not a saved model (not a zip file)"),
        ([*golf, "--agents", "random", "--records", str(taken)], f"--records {taken} is a file; give a directory"),
        ([*golf, "--agents", "random", "--json", str(tmp_path)], f"--json {tmp_path} is a directory"),
    ]:
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert message in captured.err and len(captured.err.strip().splitlines()) == 1, captured.err
        assert captured.out == ""
    assert taken.read_text() == "keep me"


def test_evaluate_refuses_a_model_for_another_game_before_any_deal(monkeypatch):
    from agents.evaluation import evaluate as evaluate_module
    from agents.load import ModelSpecError

    played = []
    monkeypatch.setattr(evaluate_module, "play_episodes", lambda *a, **k: played.append(a))
    specs = ["greedy", f"ppo:{MODELS / 'miss_milligan_moves_critic.zip'}"]
    with pytest.raises(ModelSpecError, match="trained on patience_gym/MissMilligan-v0"):
        evaluate_module.evaluate("patience_gym/Giant-v0", specs, 2, env_kwargs={"obs_encoding": "moves"})
    assert played == []  # not even greedy's deals

"""The benchmark scripts run (tiny budgets) and produce sane numbers."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.baselines import to_markdown
from benchmarks.env_speed import time_env
from tests.helpers import AssertRefused


def test_env_speed_times_an_env():
    row = time_env("patience_gym/Golf-v0", seconds=0.05)
    assert row["steps"] >= 256 and row["steps_per_s"] > 0 and row["episodes"] > 0
    assert "obs_encoding" not in row
    row = time_env("patience_gym/Golf-v0", seconds=0.05, obs_encoding="runs")
    assert row["obs_encoding"] == "runs" and row["steps_per_s"] > 0


def test_baselines_markdown_lists_every_row():
    data = {
        "episodes": 2,
        "seed": 0,
        "machine": "test",
        "rows": [
            {
                "env": "patience_gym/Golf-v0",
                "agent": a,
                "mean_score": 1.0,
                "score_ci95": 0.5,
                "win_rate": 0.5,
                "win_ci95": [0.1, 0.9],
                "mean_moves": 3.0,
                "lower_score_is_better": True,
            }
            for a in ("random", "greedy")
        ],
    }
    text = to_markdown(data)
    assert "| Golf-v0 | random | 1.00 ± 0.50 (lower is better) |" in text and "| Golf-v0 | greedy |" in text


def test_speed_table_marks_targets_against_the_reference():
    from benchmarks.env_speed import to_markdown

    rows = [
        {"env": "patience_gym/Golf-v0", "steps_per_s": 5000.0, "ratio_to_openspiel": 5.0},
        {"env": "patience_gym/Giant-v0", "steps_per_s": 1000.0, "ratio_to_openspiel": 1.0},
        {"env": "patience_gym/Giant-v0", "obs_encoding": "moves", "steps_per_s": 500.0, "ratio_to_openspiel": 0.5},
    ]
    text = to_markdown(rows, {"steps_per_s": 1000.0}, "test")
    assert "| Giant-v0 (`moves`) | 500 | 0.50x | - |" in text
    assert "| Golf-v0 | 5,000 | 5.00x | 4x (met) |" in text
    assert "| Giant-v0 | 1,000 | 1.00x | 2x (missed) |" in text
    alone = to_markdown([{**r, "ratio_to_openspiel": None} for r in rows], None, "test")
    assert "no reference" in alone and "nan" not in alone
    assert "| Golf-v0 | 5,000 | - | 4x |" in alone  # no reference timed: neither a ratio nor a verdict


def test_update_readme_replaces_only_between_its_markers(tmp_path):
    from benchmarks.readme import update_readme

    readme = tmp_path / "README.md"
    readme.write_text("a\n<!-- t:start -->\nold\n<!-- t:end -->\nb\n")
    update_readme("t", "new\n", readme)
    assert readme.read_text() == "a\n<!-- t:start -->\nnew\n<!-- t:end -->\nb\n"
    with pytest.raises(SystemExit, match="no <!-- u:start -->"):
        update_readme("u", "x", readme)


def test_planner_results_merge_replaces_only_the_new_envs_rows():
    from benchmarks.planners import merge

    def row(env: str, agent: str, score: float) -> dict:
        return {"env": env, "agent": agent, "mean_score": score}

    old = {"seed": 0, "deals": {"A": 5, "B": 5}, "rows": [row("A", "greedy", 1), row("B", "greedy", 2)], "machine": "m"}
    new = {"seed": 0, "deals": {"B": 9, "C": 3}, "rows": [row("B", "planner", 3), row("C", "greedy", 4)]}
    merged = merge(old, new)
    assert merged["deals"] == {"A": 5, "B": 9, "C": 3}
    assert merged["rows"] == [row("A", "greedy", 1), row("B", "planner", 3), row("C", "greedy", 4)]
    with pytest.raises(SystemExit, match="seed 1"):
        merge(old, {**new, "seed": 1})


def _run(name: str, lower: bool, ppo: list[float], greedy: list[float]) -> dict:
    from agents.evaluation.evaluate import mean_ci95

    results = []
    for agent, scores in (("greedy", greedy), ("ppo", ppo)):
        mean, ci = mean_ci95(scores)
        results.append({"agent": agent, "mean_score": mean, "score_ci95": ci})
    return {"name": name, "lower_score_is_better": lower, "results": results, "scores": {"greedy": greedy, "ppo": ppo}}


def test_ppo_verdict_needs_separated_intervals_in_the_better_direction():
    from benchmarks.results import verdicts

    greedy = [10.0, 12.0, 8.0, 11.0, 9.0] * 20
    rows = verdicts(
        [
            _run("golf-better", True, [g - 3 for g in greedy], greedy),
            _run("golf-worse", True, [g + 3 for g in greedy], greedy),
            _run("golf-level", True, [g - 0.01 for g in greedy], greedy),
            _run("cards-better", False, [g + 3 for g in greedy], greedy),
        ]
    )
    assert rows[2] == "| golf-better | -3.00 ± 0.00 | lower | yes |"
    assert rows[3] == "| golf-worse | +3.00 ± 0.00 | lower | no |"
    # A paired difference can be certain while the two intervals still overlap: that is not "beats".
    assert rows[4] == "| golf-level | -0.01 ± 0.00 | lower | no |"
    assert rows[5] == "| cards-better | +3.00 ± 0.00 | higher | yes |"


def test_best_by_env_picks_the_run_whose_interval_clears_greedy_furthest():
    from benchmarks.results import best_by_env, margin

    greedy = [10.0, 12.0, 8.0, 11.0, 9.0] * 20
    runs = [
        {**_run("golf-a", True, [g - 1 for g in greedy], greedy), "env": "patience_gym/Golf-v0"},
        {**_run("golf-b", True, [g - 3 for g in greedy], greedy), "env": "patience_gym/Golf-v0"},
        {**_run("cards", False, [g - 2 for g in greedy], greedy), "env": "patience_gym/Giant-v0"},
    ]
    ci = runs[0]["results"][0]["score_ci95"]
    assert margin(runs[1]) == pytest.approx(3 - 2 * ci)  # the same spread, shifted by 3
    rows = best_by_env(runs)
    assert rows[2].startswith("| Giant-v0 | cards |") and rows[2].endswith("| no |")
    assert rows[3].startswith("| Golf-v0 | golf-b |") and rows[3].endswith("| yes |")
    assert len(rows) == 4


def test_train_speed_merge_replaces_remeasured_configs_and_keeps_the_rest(tmp_path):
    import json

    from benchmarks.train_speed import merge

    old = [{"config": "a.yaml", "steps_per_s": 1.0}, {"config": "b.yaml", "steps_per_s": 2.0}]
    path = tmp_path / "train_speed.json"
    path.write_text(json.dumps({"machine": "m", "rows": old}))
    new = [{"config": "b.yaml", "steps_per_s": 3.0}, {"config": "c.yaml", "steps_per_s": 4.0}]
    assert [r["steps_per_s"] for r in merge(path, new)] == [1.0, 3.0, 4.0]
    assert merge(tmp_path / "none.json", new) == new
    # A config measured again on another vector env: its old row (another setup) is dropped, not kept beside it.
    old = [{"config": "a.yaml", "vec": "dummy", "steps_per_s": 1.0}, {"config": "b.yaml", "steps_per_s": 2.0}]
    path.write_text(json.dumps({"machine": "m", "rows": old}))
    new = [{"config": "a.yaml", "vec": "batched", "steps_per_s": 5.0}]
    assert [(r["config"], r["steps_per_s"]) for r in merge(path, new)] == [("b.yaml", 2.0), ("a.yaml", 5.0)]


def test_train_speed_baseline_reads_a_config_from_git_history(tmp_path):
    from benchmarks.train_speed import ROOT, config_at, load_config

    before = config_at("8aa2e59", ROOT / "configs" / "golf.yaml", tmp_path)
    if before is None:
        pytest.skip("a shallow clone without the revision")
    assert load_config(before).env_kwargs == {"obs_encoding": "planes"}  # the main job before issue 26
    assert config_at("8aa2e59", ROOT / "configs" / "no_such.yaml", tmp_path) is None


def test_fresh_deals_table_and_verdict(tmp_path, run_benchmark):
    import json

    model = "models/golf_rules.zip"
    args = ["--game", "golf", "--episodes", "2", "--models", f"{model}:rules_moves", "--out", str(tmp_path)]
    done = run_benchmark("benchmarks.fresh_deals", *args)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "golf_fresh_deals.json").read_text())
    (run,) = data["runs"]
    assert [r["agent"] for r in run["results"]] == ["greedy", "ppo"] and len(run["scores"]["ppo"]) == 2
    assert run["lower_score_is_better"] and data["seed"] == 100_000
    table = (tmp_path / "golf_fresh_deals.md").read_text()
    assert "| `models/golf_rules.zip` (`rules_moves`) |" in table and "| models/golf_rules.zip |" in table
    assert "lower score is better" in table


def test_fresh_deals_shipped_models_exist():
    from benchmarks.fresh_deals import GAMES, ROOT

    for game in GAMES.values():
        for model, _ in game.models:
            assert (ROOT / model).is_file(), model


def test_batched_benchmark_row_and_its_picker() -> None:
    """The batched speed rows (benchmarks/env_speed.py) and the vectorised masked-random picker they time."""
    from benchmarks.env_speed import _pick, batched_rows, pick_batched, to_markdown

    rng = np.random.default_rng(0)
    for width, density in ((8, 0.4), (53, 0.05), (1010, 0.01), (1013, 0.5)):  # widths not all multiples of 8
        masks = (rng.random((500, width)) < density).astype(np.int8)
        masks[0] = 0
        masks[1, :] = 0
        masks[1, -1] = 1  # the last action alone
        uniforms = rng.random(500)
        uniforms[2] = np.nextafter(1.0, 0.0)
        for row, stray in ((3, -0.5), (4, np.nan), (5, np.inf), (6, 1.0)):  # out of [0, 1): still a legal action
            uniforms[row] = stray
            masks[row, 0] = 1
        for dtype in (np.int8, np.bool_):
            picked = pick_batched(masks.astype(dtype), uniforms)
            for mask, u, action in zip(masks, uniforms, picked):
                if 0.0 <= u < 1.0:
                    assert action == (_pick(mask, u) if mask.any() else 0)
                else:
                    assert mask[action]
    single = {"env": "patience_gym/Golf-v0", "steps_per_s": 1000.0}
    ranks = {
        "env": "patience_gym/Golf-v0",
        "obs_encoding": "ranks",
        "steps_per_s": 1.0,
    }  # no batched engine for this encoding
    rows = batched_rows([single, ranks], 64, seconds=0.05)
    assert [r["env"] for r in rows] == ["patience_gym/Golf-v0"] and "obs_encoding" not in rows[0]
    row = rows[0]
    assert row["batched"] == 64 and row["steps"] > 0 and row["episodes"] > 0 and row["compile_s"] > 0
    assert row["ratio_to_single"] == pytest.approx(row["steps_per_s"] / 1000.0)
    assert row["cold_compile_s"] > 0  # timed in a fresh process on an empty numba cache
    row["ratio_to_openspiel"] = 1.0
    assert "Golf-v0, batched N=64 (compile " in to_markdown([row], None, "test")
    assert " s cold, " in to_markdown([row], None, "test")


def test_train_speed_reads_each_runs_time_to_beat_greedy(tmp_path):
    import json

    from benchmarks.train_speed import time_to_beat_markdown, time_to_beat_rows

    def write(name: str, found: dict | None) -> None:
        (tmp_path / name).mkdir()
        result = {
            "env": "patience_gym/Golf-v0",
            "env_kwargs": {"obs_encoding": "rules_moves"},
            "train_seconds": 540.0,
            "paired": [{"baseline": "greedy", "mean": -0.4, "ci95": 0.2}],
            "time_to_beat_greedy": found,
        }
        (tmp_path / name / "results.json").write_text(json.dumps(result))

    write("a", {"teacher": "greedy", "step": 1_000_000, "train_seconds": 150.0, "teacher_mean_return": 26.0})
    write("b", {"teacher": "greedy", "step": None, "train_seconds": None, "teacher_mean_return": 26.0})
    write("c", None)  # a run from before the figure was kept
    rows = time_to_beat_rows(tmp_path)
    assert [r["run"] for r in rows] == ["a", "b"]
    table = time_to_beat_markdown(rows)
    assert "| a | `rules_moves` | 2.5 min | 1,000,000 | 9.0 min | -0.40 ± 0.20 |" in table
    assert "| b | `rules_moves` | not reached |  | 9.0 min | -0.40 ± 0.20 |" in table


def test_planner_benchmark_pairs_the_planner_with_the_greedy_on_the_same_deals():
    from benchmarks.planners import measure_env, to_markdown

    rows = measure_env("patience_gym/Golf-v0", 2, 0)
    by_agent = {r["agent"]: r for r in rows}
    assert set(by_agent) == {"random", "greedy", "planner", "solver"}
    paired = by_agent["planner"]["vs_greedy"]
    # the mean of the deal-by-deal differences is the difference of the means
    assert paired["score"] == pytest.approx(by_agent["planner"]["mean_score"] - by_agent["greedy"]["mean_score"])
    assert paired["win_rate"] == pytest.approx(by_agent["planner"]["win_rate"] - by_agent["greedy"]["win_rate"])
    assert all(r["vs_greedy"] is None for r in rows if r["agent"] != "planner")
    for r in rows:  # deal by deal, for pairing a later version with this one
        assert len(r["scores"]) == 2 and np.mean(r["scores"]) == pytest.approx(r["mean_score"])
    table = to_markdown({"seed": 0, "deals": {"patience_gym/Golf-v0": 2}, "machine": "m", "rows": rows})
    assert f"| Golf-v0 | 2 | {100 * paired['win_rate']:+.1f} ± " in table


def test_planner_benchmark_resumes_from_its_kept_blocks(tmp_path, monkeypatch):
    """With a state dir every agent's finished block is kept; a rerun reads them back and makes the same rows."""
    from agents.evaluation import blocks
    from benchmarks import planners
    from benchmarks.planners import measure_env

    monkeypatch.setattr(planners, "AGENTS", ["random", "greedy"])  # the plumbing, without the slow agents
    monkeypatch.setattr(planners, "SOLVER", {})
    first = measure_env("patience_gym/Golf-v0", 3, 7, state_dir=tmp_path, shard_size=2)
    assert len(list(tmp_path.glob("*.json"))) == 4  # 2 agents, blocks of 2 and 1 deals
    monkeypatch.setattr(blocks, "_play_shard", lambda shard: pytest.fail(f"played {shard.seeds} again"))
    again = measure_env("patience_gym/Golf-v0", 3, 7, state_dir=tmp_path, shard_size=2)
    assert [r["scores"] for r in again] == [r["scores"] for r in first]
    assert [r["seconds_per_move"] for r in again] == [r["seconds_per_move"] for r in first]  # the kept times


def test_planner_benchmark_checks_every_envs_kept_blocks_before_playing(tmp_path, monkeypatch, assert_refused):
    """A bad kept block of the second env is named before the first env plays a deal."""
    import json

    from agents.evaluation import blocks
    from benchmarks import planners

    monkeypatch.setattr(planners, "AGENTS", ["random"])
    monkeypatch.setattr(planners, "SOLVER", {})
    planners.measure_env("patience_gym/PussInTheCorner-v0", 2, 0, state_dir=tmp_path, shard_size=2)
    (path,) = tmp_path.glob("*.json")
    path.write_text(json.dumps({**json.loads(path.read_text()), "won": [True]}))
    monkeypatch.setattr(blocks, "_play_shard", lambda shard: pytest.fail(f"played {shard.seeds}"))
    envs = ["--env", "patience_gym/Golf-v0=2", "patience_gym/PussInTheCorner-v0=2"]
    argv = [*envs, "--state-dir", str(tmp_path), "--shard-size", "2", "--out", "never_written"]
    assert_refused(planners.main, [(argv, f"kept shard {path} holds 1 entries in 'won' for its 2 deals")])


def test_planner_benchmark_names_a_bad_env_or_count_before_playing(assert_refused: AssertRefused) -> None:
    from benchmarks import planners

    assert_refused(
        planners.main,
        [
            (["--env", "patience_gym/Nope-v0=3"], "unknown env 'patience_gym/Nope-v0' in --env; choose from"),
            (
                ["--env", "patience_gym/Golf-v0=x"],
                "--env 'patience_gym/Golf-v0=x': the count after '=' must be an integer",
            ),
            (["--env", "patience_gym/Golf-v0=0"], "the count of patience_gym/Golf-v0 must be at least 1, got 0"),
            (["--jobs", "0"], "--jobs must be at least 1, got 0"),
            (["--seed", "-1"], "--seed must be at least 0, got -1"),
            (
                ["--env", "patience_gym/Golf-v0=2", "patience_gym/Golf-v0"],
                "--env gives patience_gym/Golf-v0 twice ('patience_gym/Golf-v0=2' and 'patience_gym/Golf-v0')",
            ),
            (["--shard-size", "0"], "--shard-size must be at least 1, got 0"),
            (["--state-dir", f"{__file__}/state"], "test_benchmarks.py/state cannot keep the finished shards"),
        ],
    )


def test_rollout_speed_times_both_ways_on_the_same_games(tmp_path, assert_refused: AssertRefused):
    """The kernel's greedy and the single env's play the same games (the script checks it); both are timed."""
    import json

    from benchmarks import rollout_speed

    envs = ["patience_gym/Golf-v0", "patience_gym/Giant-v0", "patience_gym/PussInTheCorner-v0"]
    rollout_speed.main(["--worlds", "3", "--env", *envs, "--out", str(tmp_path)])
    data = json.loads((tmp_path / "rollout_speed.json").read_text())
    assert [r["env"] for r in data["rows"]] == envs
    for row in data["rows"]:
        assert row["moves"] > 3 and row["batched_moves_per_s"] > 0 and row["single_moves_per_s"] > 0
    assert "| PussInTheCorner-v0 |" in (tmp_path / "rollout_speed.md").read_text()
    assert_refused(
        rollout_speed.main,
        [
            (["--worlds", "0"], "--worlds must be at least 1, got 0"),
            (["--env", "patience_gym/Klondike-v0"], "invalid choice: 'patience_gym/Klondike-v0'"),
        ],
    )

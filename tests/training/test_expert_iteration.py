"""Expert iteration (``train.py --config`` of an ``algorithm: expert_iteration`` config): a tiny run trains and
reports its four agents, a killed run goes on without playing a finished shard again, and bad configs, runs
and kept self-play are refused by name before any game."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from agents.load import read_model_spec
from agents.training import cli
from agents.training.expert_iteration import (
    load_exit_config,
    network_path,
    new_network,
    save_network,
    shards_of,
    write_report,
)
from agents.training.self_play import Games, keep, read, self_play

ROOT = Path(__file__).resolve().parents[2]
PUSS = "patience_gym/PussInTheCorner-v0"
TINY = {
    PUSS: {
        "algorithm": "expert_iteration",
        "env_kwargs": {"obs_encoding": "rules_moves"},
        "network": {
            "features_extractor_class": "agents.training.networks.MoveRows",
            "features_extractor_kwargs": {"hidden": 16},
            "share_features_extractor": False,
            "critic_reads_logits": False,
        },
        "search": {"sims": 4, "considered": 4},
        "generations": 2,
        "games": 2,
        "shard_size": 1,
        "epochs": 1,
        "batch_size": 64,
        "jobs": 1,
        "report": {"episodes": 2, "seed": 0, "agents": ["greedy"], "sims": 4},
    }
}


def write(path: Path, data: Any) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_tiny_run_trains_its_generations_and_reports_the_four_agents(tmp_path: Path) -> None:
    config = write(tmp_path / "c.yaml", TINY)
    run_dir = tmp_path / "run"
    assert cli.main(["--config", str(config), "--run-dir", str(run_dir), "--no-progress-bar"]) == 0
    record = json.loads((run_dir / "training.json").read_text())
    assert [g["generation"] for g in record["generations"]] == [0, 1]
    assert all(g["games"] == 2 and g["decisions"] > 0 for g in record["generations"])
    for generation in range(3):
        assert network_path(run_dir, generation).is_file()
    results = json.loads((run_dir / "results.json").read_text())
    assert [r["agent"] for r in results["results"]] == ["network alone", "search (4 sims)", "greedy"]
    assert [r["agent"] for r in results["paired"]] == ["network alone", "search (4 sims)"]
    assert results["search_sims"] == 4
    assert "expert iteration" in (run_dir / "report.md").read_text()
    spec = read_model_spec(run_dir / "model.zip")
    assert spec is not None and spec.card == (run_dir / "report.md").read_text()
    assert list((run_dir / "tb").glob("events.*"))
    loaded = load_exit_config(run_dir / "config.yaml")
    for generation in range(2):  # every shard kept, of the network that played it
        for shard in shards_of(loaded, network_path(run_dir, generation), generation, 0):
            games = read(run_dir / "selfplay" / f"gen_{generation:03d}" / shard.filename, shard)
            assert games is not None and len(games.scores) == 1
            assert np.allclose(games.policies.sum(axis=1), 1.0) and np.all(games.policies[~games.masks] == 0)
    roomy = dataclasses.replace(loaded, report=dataclasses.replace(loaded.report, exact_nodes=1_000))
    write_report(roomy, run_dir)  # the report's search with its own budget for the exact line
    results = json.loads((run_dir / "results.json").read_text())
    assert results["search_exact_nodes"] == 1_000
    assert results["results"][1]["agent"] == "search (4 sims, exact line within 1,000 positions)"


def test_a_killed_run_goes_on_without_playing_a_kept_shard_again(tmp_path: Path) -> None:
    slow = {PUSS: {**TINY[PUSS], "games": 6, "generations": 1}}
    config = write(tmp_path / "c.yaml", slow)
    run_dir = tmp_path / "run"
    argv = [sys.executable, str(ROOT / "train.py"), "--config", str(config), "--run-dir", str(run_dir),
            "--no-progress-bar"]  # fmt: skip
    child = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    folder = run_dir / "selfplay" / "gen_000"
    deadline = time.time() + 300
    while len(list(folder.glob("selfplay_*.npz"))) < 2 and time.time() < deadline:
        time.sleep(0.1)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    kept = {p.name: p.stat().st_mtime_ns for p in folder.glob("selfplay_*.npz")}
    assert 2 <= len(kept) < 6, "the run was not killed in the middle of its self-play"
    resumed = subprocess.run([*argv[:2], "--resume", str(run_dir), "--no-progress-bar"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=600)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert "taking over" in resumed.stderr
    after = {p.name: p.stat().st_mtime_ns for p in folder.glob("selfplay_*.npz")}
    assert len(after) == 6 and all(after[name] == stamp for name, stamp in kept.items())  # kept ones not played again
    (generation,) = json.loads((run_dir / "training.json").read_text())["generations"]
    assert generation["games"] == 6 and generation["shards_played"] == 6 - len(kept)


def test_bad_configs_and_runs_are_refused_in_one_line_before_any_game(tmp_path: Path, capsys: Any) -> None:
    def refused(*argv: str) -> str:
        assert cli.main(list(argv)) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1, lines
        return lines[0]

    settings = TINY[PUSS]
    for change, message in [
        ({"env_kwargs": {"obs_encoding": "moves"}}, "must be a rules-only encoding"),
        ({"generations": 0}, "generations"),
        ({"searching": {}}, "searching"),
        ({"search": {"sims": 0}}, "search.sims"),
        ({"report": {"agents": ["oracle"]}}, "unknown agent 'oracle'"),
        ({"network": {"net_arch": "big"}}, "network"),
        ({"search": {"exact_from": 11}}, "search.exact_from is Golf's exact ending"),
        ({"search": {"exact_from": -1}}, "search.exact_from"),
        ({"search": {"exact_nodes": 0}}, "search.exact_nodes"),
        ({"report": {**settings["report"], "exact_nodes": 1.5}}, "report.exact_nodes"),
    ]:
        config = write(tmp_path / "bad.yaml", {PUSS: {**settings, **change}})
        assert message in refused("--config", str(config), "--run-dir", str(tmp_path / "never")), change
        assert not (tmp_path / "never").exists()
    config = write(tmp_path / "c.yaml", TINY)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "something").write_text("")
    assert "is not empty" in refused("--config", str(config), "--run-dir", str(run_dir))
    assert "is missing" in refused("--resume", str(tmp_path / "nothing"))
    made = tmp_path / "made"
    made.mkdir()
    (made / "config.yaml").write_text(yaml.safe_dump(TINY))
    other = write(tmp_path / "other.yaml", {PUSS: {**settings, "games": 3}})
    assert "differs from the config" in refused("--config", str(other), "--resume", str(made))
    never = ("--config", str(config), "--run-dir", str(tmp_path / "never"))
    assert "training seeds are 0..99" in refused(*never, "--seed", "100")
    assert "give it with --backend ray" in refused(*never, "--address", "auto")
    assert "cannot be reached" in refused(*never, "--backend", "ray", "--address", "127.0.0.1:1")
    assert not (tmp_path / "never").exists()


def test_self_play_on_ray_keeps_the_games_played_serially(tmp_path: Path, cluster: Any) -> None:
    config = load_exit_config(write(tmp_path / "c.yaml", {PUSS: {**TINY[PUSS], "games": 3}}))
    save_network(new_network(config, 0), tmp_path / "net.zip", config)
    shards = shards_of(config, tmp_path / "net.zip", 0, 0)
    serial, _ = self_play(shards, tmp_path / "serial")
    on_ray, played = self_play(shards, tmp_path / "ray", "ray", 2)
    assert played == 3 and len(list((tmp_path / "ray").glob("selfplay_*.npz"))) == 3
    for name in ("obs", "masks", "policies", "values", "scores"):
        assert np.array_equal(getattr(serial, name), getattr(on_ray, name)), name


def test_a_kept_shard_of_another_network_is_named_not_counted(tmp_path: Path) -> None:
    config = load_exit_config(write(tmp_path / "c.yaml", TINY))
    run_dir = tmp_path / "run"
    save_network(new_network(config, 0), network_path(run_dir, 0), config)
    (shard,) = shards_of(config, network_path(run_dir, 0), 0, 0)[:1]
    folder = run_dir / "selfplay" / "gen_000"
    empty = Games(*(np.zeros((0,)) for _ in range(5)))
    keep(folder / shard.filename, shard, empty)  # a shard that lacks its deal's game
    with pytest.raises(ValueError, match="is incomplete"):
        self_play(shards_of(config, network_path(run_dir, 0), 0, 0), folder)
    save_network(new_network(config, 1), network_path(run_dir, 0), config)  # another network now plays gen 0
    with pytest.raises(ValueError, match="holds other games"):
        self_play(shards_of(config, network_path(run_dir, 0), 0, 0), folder)
    assert os.path.exists(folder / shard.filename)


def test_a_seed_sweep_trains_each_seed_and_reports_the_network_alone_across_seeds(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``train.py --config EXIT.yaml --seeds N``: each trial is an expert-iteration run (here run in process,
    Tune's report caught; its warm start's relative path read from the driver's directory) and the sweep's
    report aggregates the network alone against the greedy; what such a sweep cannot take is refused in one
    line before any game."""
    from ray import tune

    from agents.training import sweep
    from agents.training.sweep_report import write_sweep_report

    donor = load_exit_config(write(tmp_path / "donor.yaml", TINY))
    save_network(new_network(donor, seed=5), tmp_path / "donor.zip", donor)
    monkeypatch.chdir(tmp_path)  # the warm start's relative path is the driver's
    config = write(tmp_path / "c.yaml", {PUSS: {**TINY[PUSS], "generations": 1, "warm_start": "donor.zip"}})
    where = tmp_path / "sweep"
    for argv, message in [
        (["--seed-list", "3", "100"], "training seeds are 0..99"),
        (["--seeds", "2", "--total-timesteps", "5"], "takes its settings from"),
    ]:
        assert cli.main(["--config", str(config), "--sweep-dir", str(where), *argv]) == 2
        assert message in capsys.readouterr().err
    assert not where.exists()
    args, rest = sweep.parse(["--config", str(config), "--seeds", "2", "--sweep-dir", str(where)])
    plan, _ = sweep.new_sweep(args, rest)
    assert plan.settings["algorithm"] == "expert_iteration" and plan.seeds == (0, 1)
    assert sweep.prepare(plan, where)
    reported: list[dict[str, Any]] = []
    monkeypatch.setattr(tune, "report", reported.append)
    monkeypatch.setattr(sweep, "limit_threads", lambda cpus: None)  # a Ray worker's, not this test process's
    common = sweep.param_space(plan, where, 1, None)
    (tmp_path / "worker").mkdir()
    monkeypatch.chdir(tmp_path / "worker")  # a Ray worker starts elsewhere: the trial reads paths as the driver
    for trial in plan.trials():
        sweep.run_trial({k: v for k, v in common.items() if k != "trial"} | {"trial": vars(trial)})
    assert [r["done"] for r in reported] == [True, True] and all("ppo_minus_greedy" in r for r in reported)
    seeds = [json.loads((where / "trials" / f"seed{s}" / "training.json").read_text())["seed"] for s in (0, 1)]
    assert seeds == [0, 1]
    text = write_sweep_report(where)
    (row,) = json.loads((where / "report.json").read_text())["configs"]
    assert [s["seed"] for s in row["seeds"]] == [0, 1] and all(len(s["scores"]) == 2 for s in row["seeds"])
    assert "last network alone" in text and (where / "profile.png").is_file()


def test_a_warm_start_takes_a_model_s_weights_but_not_its_critic_and_refuses_another_s(
    tmp_path: Path, capsys: Any
) -> None:
    """``warm_start``: generation 0 has the model's weights, its critic's last layer a constant 0.5 (PPO's return
    is not the search's value); a model of another game, another network, or no file is refused by name, in one
    line, before any game."""
    import torch as th

    settings = TINY[PUSS]
    donor = new_network(load_exit_config(write(tmp_path / "c.yaml", TINY)), seed=7)
    save_network(donor, tmp_path / "donor.zip", load_exit_config(tmp_path / "c.yaml"))
    warm = load_exit_config(
        write(tmp_path / "warm.yaml", {PUSS: {**settings, "warm_start": str(tmp_path / "donor.zip")}})
    )
    model = new_network(warm, seed=0)
    theirs, ours = donor.policy.state_dict(), model.policy.state_dict()
    assert all(th.equal(theirs[k], ours[k]) for k in theirs if not k.startswith("value_net."))
    assert not model.policy.value_net.weight.any() and th.all(model.policy.value_net.bias == 0.5)
    assert not th.equal(theirs["value_net.bias"], ours["value_net.bias"])
    wider = {**settings["network"], "features_extractor_kwargs": {"hidden": 32}}
    for change, message in [
        ({"warm_start": str(ROOT / "models" / "golf_rules.zip")}, "was trained on patience_gym/Golf-v0"),
        ({"warm_start": str(tmp_path / "donor.zip"), "network": wider}, "is not the config's network"),
        ({"warm_start": str(tmp_path / "none.zip")}, "none.zip"),
    ]:
        config = write(tmp_path / "bad.yaml", {PUSS: {**settings, **change}})
        assert cli.main(["--config", str(config), "--run-dir", str(tmp_path / "never")]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "warm_start" in lines[0] and message in lines[0], (change, lines)
        assert not (tmp_path / "never").exists()


def test_golf_self_play_with_the_exact_ending_keeps_its_moves_and_names_it_in_its_shards() -> None:
    """``search.exact_from``: self-play plays (and keeps as one-hot targets) the exact expectimax's moves once
    few stock cards are left; a shard with the option is another shard than one without."""
    from agents.training.self_play import SelfPlayShard, play_games

    model = ROOT / "models" / "golf_search.zip"
    rules = json.dumps({"obs_encoding": "rules_moves"})
    plain = SelfPlayShard("patience_gym/Golf-v0", rules, str(model), "x", 4, 4, 0, (11, 12))
    exact = SelfPlayShard("patience_gym/Golf-v0", rules, str(model), "x", 4, 4, 0, (11, 12), 6)
    assert "exact_from" not in plain.describe() and '"exact_from": 6' in exact.describe()
    budget = SelfPlayShard("patience_gym/Golf-v0", rules, str(model), "x", 4, 4, 0, (11, 12), None, 7)
    assert "exact_nodes" not in plain.describe() and '"exact_nodes": 7' in budget.describe()
    one_hot = [int((play_games(shard).policies == 1.0).sum()) for shard in (plain, exact)]
    assert one_hot[1] > one_hot[0]


def test_a_transfer_takes_another_env_s_expert_iteration_network_whole_and_refuses_what_does_not_fit(
    tmp_path: Path, capsys: Any
) -> None:
    """``transfer_from``: generation 0 has every weight of another env's expert-iteration network, its value
    included (a final value on the same scale); a network that is not expert iteration's, one of another encoding
    shape or score scale, another network, or both warm starts at once, is refused by name in one line, before
    any game."""
    import torch as th

    from agents.load import save_model_spec

    pocket = "patience_gym/MissMilliganPocket-v0"
    pocket_settings = {**TINY[PUSS], "report": {**TINY[PUSS]["report"], "agents": ["greedy"]}}
    donor_config = load_exit_config(write(tmp_path / "donor.yaml", {pocket: pocket_settings}))
    donor = new_network(donor_config, seed=3)
    save_network(donor, tmp_path / "donor.zip", donor_config)
    report = f"# {pocket}: expert iteration\n"  # the card a run's report gives its network
    save_model_spec(tmp_path / "donor.zip", pocket, {"obs_encoding": "rules_moves"}, card=report)
    settings = {**pocket_settings, "transfer_from": str(tmp_path / "donor.zip")}
    model = new_network(load_exit_config(write(tmp_path / "c.yaml", {"patience_gym/Giant-v0": settings})), seed=0)
    theirs, ours = donor.policy.state_dict(), model.policy.state_dict()
    assert theirs.keys() == ours.keys() and all(th.equal(theirs[k], ours[k]) for k in theirs)
    save_network(donor, tmp_path / "plain.zip", donor_config)  # no report for a card: not known to be expert iteration
    wider = {**pocket_settings["network"], "features_extractor_kwargs": {"hidden": 32}}
    for env_id, change, message in [
        ("patience_gym/Giant-v0", {"transfer_from": str(tmp_path / "plain.zip")}, "not an expert-iteration network"),
        (PUSS, {}, "observation shape"),
        ("patience_gym/Giant-v0", {"network": wider}, "is not the config's network"),
        ("patience_gym/Giant-v0", {"warm_start": str(tmp_path / "donor.zip")}, "not both"),
    ]:
        config = write(tmp_path / "bad.yaml", {env_id: {**settings, **change}})
        assert cli.main(["--config", str(config), "--run-dir", str(tmp_path / "never")]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (change, lines)
        assert not (tmp_path / "never").exists()

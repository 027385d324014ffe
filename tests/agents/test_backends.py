"""Sharded runs (agents.evaluation.sharding): the serial and Ray backends give the serial results, and the solver
statistics resume from the shards they kept. The Ray tests skip when Ray (the ``[ray]`` extra) is missing."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.evaluation.evaluate import evaluate, evaluate_sharded
from agents.evaluation.sharding import run_sharded
from benchmarks import golf_solver as bench

GOLF = "patience_gym/Golf-v0"


def same_summaries(a: list[Any], b: list[Any]) -> None:
    assert [s.agent for s in a] == [s.agent for s in b]
    for x, y in zip(a, b):
        assert x.scores == y.scores
        assert (x.episodes, x.win_rate, x.mean_moves) == (y.episodes, y.win_rate, y.mean_moves)
        assert (x.mean_score, x.win_ci95) == (y.mean_score, y.win_ci95)


def test_serial_backend_runs_every_shard_in_order_and_reports_each() -> None:
    seen: list[tuple[int, int]] = []
    out = run_sharded(lambda x: x * x, [3, 1, 2], on_result=lambda i, r: seen.append((i, r)))
    assert out == [9, 1, 4] and seen == [(0, 9), (1, 1), (2, 4)]
    assert run_sharded(abs, []) == []


def test_process_backend_gives_the_serial_results_in_shard_order() -> None:
    """``--jobs N`` is this backend: spawned workers, each result handed back once under its shard's index."""
    seen: list[tuple[int, int]] = []
    out = run_sharded(abs, [-3, 1, -2, 5], backend="process", workers=2, on_result=lambda i, r: seen.append((i, r)))
    assert out == [3, 1, 2, 5] and sorted(seen) == [(0, 3), (1, 1), (2, 2), (3, 5)]
    assert run_sharded(abs, [], backend="process") == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"backend": "spark"}, "unknown backend 'spark'"),
        ({"backend": "serial", "address": "auto"}, "address 'auto' is for the ray backend"),
        ({"backend": "serial", "workers": 0}, "workers must be at least 1"),
    ],
)
def test_bad_backend_arguments_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_sharded(abs, [1], **kwargs)


def test_ray_backend_without_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ImportError, match=r"patience_gym\[ray\]"):
        run_sharded(abs, [1], backend="ray")


def test_evaluate_sharded_in_blocks_plays_the_serial_games() -> None:
    specs = ["random", "greedy"]
    serial = evaluate(GOLF, specs, episodes=30, seed=11)
    same_summaries(evaluate_sharded(GOLF, None, specs, range(11, 41), shard_size=7), serial)
    with pytest.raises(ValueError, match="at least one seed"):
        evaluate_sharded(GOLF, None, specs, [])
    with pytest.raises(ValueError, match="shard_size must be at least 1"):
        evaluate_sharded(GOLF, None, specs, [1], shard_size=0)


def test_solver_statistics_do_not_depend_on_sharding(tmp_path: Path) -> None:
    whole = bench.solve_deals({"wrap_ranks": True}, 11, 40, None)
    sharded = bench.solve_deals({"wrap_ranks": True}, 11, 40, None, shard_size=4, state_dir=tmp_path)
    assert sharded["scores"] == whole["scores"] and len(whole["scores"]) == 11
    for key in ("cleared", "cleared_ci95", "mean_score", "nine_holes_mean", "not_proven", "mean_nodes"):
        assert sharded[key] == whole[key]
    assert (sharded["shards"], sharded["shards_solved"], whole["shards"]) == (3, 3, 1)
    assert len(list(tmp_path.glob("wrap_ranks-seed40-*.json"))) == 3
    with pytest.raises(ValueError, match="not one of the rule sets"):
        bench.solve_deals({"wrap_ranks": False}, 3, 0, None)


def test_an_interrupted_solver_run_resumes_losing_no_finished_shard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = bench.solve_deals({"wrap_ranks": True}, 14, 0, None)["scores"]
    solve_shard = bench.solve_shard
    solved: list[int] = []

    def dies_on_the_third(shard: bench.Shard) -> dict[str, Any]:
        if len(solved) == 2:
            raise KeyboardInterrupt
        solved.append(shard.start)
        return solve_shard(shard)

    monkeypatch.setattr(bench, "solve_shard", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        bench.solve_deals({"wrap_ranks": True}, 14, 0, None, shard_size=3, state_dir=tmp_path)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert len(kept) == 2 and not any(name.endswith(".tmp") for name in kept)

    def counted(shard: bench.Shard) -> dict[str, Any]:
        solved.append(shard.start)
        return solve_shard(shard)

    monkeypatch.setattr(bench, "solve_shard", counted)
    resumed = bench.solve_deals({"wrap_ranks": True}, 14, 0, None, shard_size=3, state_dir=tmp_path)
    assert solved == [0, 3, 6, 9, 12]  # the two kept shards were not solved again
    assert resumed["scores"] == expected and resumed["shards_solved"] == 3

    again = bench.solve_deals({"wrap_ranks": True}, 14, 0, None, shard_size=3, state_dir=tmp_path)
    assert again["scores"] == expected and again["shards_solved"] == 0 and len(solved) == 5


def test_a_corrupt_or_foreign_kept_shard_is_named(tmp_path: Path) -> None:
    bench.solve_deals({"wrap_ranks": True}, 4, 0, None, shard_size=2, state_dir=tmp_path)
    first, second = sorted(tmp_path.iterdir())
    second.write_text(first.read_text())  # the first shard's deals under the second's name
    with pytest.raises(ValueError, match=rf"{re.escape(second.name)} does not hold the deals"):
        bench.solve_deals({"wrap_ranks": True}, 4, 0, None, shard_size=2, state_dir=tmp_path)
    second.write_text('{"shard": ')
    with pytest.raises(ValueError, match=rf"{re.escape(second.name)} is not valid JSON"):
        bench.solve_deals({"wrap_ranks": True}, 4, 0, None, shard_size=2, state_dir=tmp_path)


def test_solver_cli_rejects_bad_sharding_options(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in [
        (["--shard-size", "0"], "--shard-size must be at least 1"),
        (["--address", "auto"], "--address needs --backend ray"),
        (["--deals", "0"], "--deals must be at least 1"),
    ]:
        with pytest.raises(SystemExit):
            bench.main(argv)
        assert message in capsys.readouterr().err


# --- on a local 2-worker Ray cluster ---


@pytest.fixture(scope="module")
def ray_module() -> Any:
    ray = pytest.importorskip("ray")
    yield ray
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture
def cluster(ray_module: Any) -> Any:
    if not ray_module.is_initialized():
        ray_module.init(num_cpus=2, include_dashboard=False, object_store_memory=128 * 1024**2, log_to_driver=False)
    return ray_module


def test_ray_starts_a_local_cluster_of_the_workers_asked_and_stops_it(ray_module: Any) -> None:
    if ray_module.is_initialized():
        ray_module.shutdown()
    shards = [bench.Shard("wrap_ranks", 0, start, 2, None, True) for start in (0, 2)]
    out = run_sharded(bench.solve_shard, shards, backend="ray", workers=2)
    assert [r["scores"] for r in out] == [r["scores"] for r in map(bench.solve_shard, shards)]
    assert not ray_module.is_initialized()


def test_ray_results_come_back_in_shard_order_whatever_finishes_first(cluster: Any) -> None:
    # the first shard is the longest, so it finishes last
    shards = [bench.Shard("book", 3, 0, 12, None, True)] + [
        bench.Shard("book", 3, start, 1, None, True) for start in range(12, 17)
    ]
    seen: list[int] = []
    out = run_sharded(bench.solve_shard, shards, backend="ray", on_result=lambda i, r: seen.append(i))
    serial = [bench.solve_shard(s) for s in shards]
    assert [r["scores"] for r in out] == [r["scores"] for r in serial]
    assert [r["shard"] for r in out] == [r["shard"] for r in serial]
    assert sorted(seen) == list(range(len(shards)))
    assert cluster.is_initialized()  # a cluster it did not start is left running


def test_evaluate_sharded_on_ray_plays_the_serial_games(cluster: Any) -> None:
    specs = ["random", "greedy"]
    serial = evaluate(GOLF, specs, episodes=36, seed=100)
    same_summaries(evaluate_sharded(GOLF, {}, specs, range(100, 136), backend="ray", shard_size=5), serial)


def test_solver_statistics_on_ray_equal_the_serial_run(cluster: Any, tmp_path: Path) -> None:
    serial, ray_out = tmp_path / "serial", tmp_path / "ray"
    common = ["--deals", "20", "--seed", "7", "--rounds", "0", "--rules", "book", "wrap_ranks"]
    bench.main([*common, "--out", str(serial)])
    bench.main(
        [*common, "--out", str(ray_out), "--backend", "ray", "--workers", "2", "--shard-size", "6"]
        + ["--state-dir", str(tmp_path / "state")]
    )
    one = json.loads((serial / "golf_solver.json").read_text())
    two = json.loads((ray_out / "golf_solver.json").read_text())
    assert (one["workers"], two["workers"], two["backend"]) == (1, 2, "ray")
    for a, b in zip(one["rows"], two["rows"]):
        assert b["shards"] == 4 and b["shards_solved"] == 4
        for key in ("rules", "deals", "cleared", "cleared_ci95", "mean_score", "score_ci95", "nine_holes_mean"):
            assert a[key] == b[key]
    assert len(list((tmp_path / "state").glob("*.json"))) == 8
    assert "2 ray workers" in (ray_out / "golf_solver.md").read_text()


def test_evaluate_sharded_refuses_a_model_for_another_game_before_any_shard(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.evaluation import evaluate as evaluate_module
    from agents.load import ModelSpecError

    sent: list[Any] = []
    monkeypatch.setattr(evaluate_module, "run_sharded", lambda *a, **k: sent.append(a))
    model = Path(__file__).resolve().parents[2] / "models" / "golf_moves_decay2.zip"
    with pytest.raises(ModelSpecError, match="trained on patience_gym/Golf-v0 .*queens_on_kings"):
        evaluate_sharded(GOLF, {"obs_encoding": "runs", "queens_on_kings": True}, [f"ppo:{model}"], range(4))
    assert sent == []


def test_backends_and_evaluate_import_each_other_in_no_circle() -> None:
    """agents.evaluation.evaluate uses agents.evaluation.sharding; the sharding helper, the generic layer, imports no
    agent module."""
    import ast

    import agents.evaluation.sharding

    tree = ast.parse(Path(agents.evaluation.sharding.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name and name.startswith("agents")}, imported

"""Sharded runs (agents.evaluation.sharding): the serial and Ray backends give the serial results, and the solver
statistics resume from the shards they kept. The Ray tests skip when Ray (the ``[ray]`` extra) is missing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agents.evaluation.evaluate import evaluate, evaluate_sharded
from agents.evaluation.sharding import run_sharded

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


# --- on a local 2-worker Ray cluster ---


def test_evaluate_sharded_on_ray_plays_the_serial_games(cluster: Any) -> None:
    specs = ["random", "greedy"]
    serial = evaluate(GOLF, specs, episodes=36, seed=100)
    same_summaries(evaluate_sharded(GOLF, {}, specs, range(100, 136), backend="ray", shard_size=5), serial)


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

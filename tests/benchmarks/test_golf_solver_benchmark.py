"""benchmarks/golf_solver.py: its script (run as users run it, ``python -m benchmarks.golf_solver``), its sharded solves
resuming from the shards they kept, and the same statistics on a local Ray cluster (skipped without Ray).

The tests of the sharding helper itself and of sharded evaluation: tests/agents/test_backends.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agents.evaluation.sharding import run_sharded
from benchmarks import golf_solver as bench
from tests.helpers import AssertRefused, RunBenchmark

RULES = bench.RULE_SETS


def test_benchmark_script_writes_results_and_counts_unproven_solves(
    tmp_path: Path, run_benchmark: RunBenchmark
) -> None:
    args = ["--deals", "9", "--rounds", "1", "--max-nodes", "300", "--out", str(tmp_path)]
    done = run_benchmark("benchmarks.golf_solver", *args)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "golf_solver.json").read_text())
    assert [row["rules"] for row in data["rows"]] == list(RULES)
    for row in data["rows"]:
        assert row["deals"] == 9 and 0 <= row["cleared"] <= 9 and row["nine_holes_rounds"] == 1
        assert row["nine_holes_mean"] == pytest.approx(9 * row["mean_score"])
        assert 0 < row["not_proven"] <= 9 and row["golf_round"]["not_proven"] > 0
    table = (tmp_path / "golf_solver.md").read_text()
    assert all(f"| {name} |" in table for name in RULES)


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
    kept = sorted(p.name for p in tmp_path.iterdir() if p.name != ".writer.lock")
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
    first, second = sorted(tmp_path.glob("*.json"))
    second.write_text(first.read_text())  # the first shard's deals under the second's name
    with pytest.raises(ValueError, match=rf"{re.escape(second.name)} does not hold the deals"):
        bench.solve_deals({"wrap_ranks": True}, 4, 0, None, shard_size=2, state_dir=tmp_path)
    second.write_text('{"shard": ')
    with pytest.raises(ValueError, match=rf"{re.escape(second.name)} is not valid JSON"):
        bench.solve_deals({"wrap_ranks": True}, 4, 0, None, shard_size=2, state_dir=tmp_path)


def test_a_kept_shard_with_a_score_out_of_range_is_named_before_any_solve(
    tmp_path: Path, assert_refused: AssertRefused
) -> None:
    """The command line checks every kept shard of every rule set before it solves a deal: a score no deal
    can have, or a deal missing, is named with its file, and nothing is solved or counted."""
    state = tmp_path / "state"
    bench.solve_deals({"wrap_ranks": True}, 4, 0, None, shard_size=2, state_dir=state)
    kept = state / bench.Shard("wrap_ranks", 0, 2, 2, None, True).filename
    data = json.loads(kept.read_text())
    argv = ["--deals", "4", "--rounds", "0", "--rules", "book", "wrap_ranks", "--shard-size", "2"]
    argv += ["--state-dir", str(state), "--out", str(tmp_path / "out")]
    for edit, problem in [
        ({"scores": [data["scores"][0], 99]}, "gives deal 3's scores entry as 99, not a whole number from -16 to 35"),
        ({"scores": data["scores"][:1]}, "holds 1 entries in 'scores' for its 2 deals"),
        ({"not_proven": -1}, "gives not_proven as -1, not a whole number of 0 or more"),
    ]:
        kept.write_text(json.dumps({**data, **edit}))
        assert_refused(bench.main, [(argv, f"kept shard {kept} {problem}: delete it to solve the shard again")])
    assert sorted(p.name for p in state.glob("*.json")) == sorted(p.name for p in state.glob("wrap_ranks-*"))
    assert not (tmp_path / "out").exists()


HOLDS_AFTER_TWO_SHARDS = """
import sys, time
from benchmarks import golf_solver
solve = golf_solver.solve_shard
def solve_two_then_wait(shard):
    if shard.start >= 2:  # the first two deals are kept, then the run waits to be killed
        time.sleep(600)
    return solve(shard)
golf_solver.solve_shard = solve_two_then_wait
golf_solver.main(sys.argv[1:])
"""


def test_a_state_dir_in_use_is_refused_and_a_killed_runs_lock_taken_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One run writes a state dir: a second is refused in one line naming the first, before any solve; once
    the first is killed (SIGKILL), the rerun takes its lock over, says so, and counts each deal once."""
    import signal
    import subprocess
    import sys
    import time

    state, out = tmp_path / "state", tmp_path / "out"
    argv = ["--deals", "5", "--rounds", "0", "--rules", "book", "--shard-size", "1", "--state-dir", str(state)]
    argv += ["--out", str(out)]
    root = Path(__file__).resolve().parents[2]
    first = subprocess.Popen([sys.executable, "-c", HOLDS_AFTER_TWO_SHARDS, *argv], cwd=root, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(list(state.glob("*.json"))) < 2 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(list(state.glob("*.json"))) == 2, "the first run kept no two shards"
        with pytest.raises(SystemExit) as refused:
            bench.main(argv)
        assert refused.value.code == 2
        (line,) = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
        assert f"--state-dir {state} is in use by pid {first.pid} on " in line
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    assert not out.exists()
    bench.main(argv)
    assert f"taking over --state-dir {state} from pid {first.pid} on " in capsys.readouterr().err
    (row,) = json.loads((out / "golf_solver.json").read_text())["rows"]
    whole = bench.solve_deals({}, 5, 0, None)
    assert (row["deals"], row["shards"], row["shards_solved"]) == (5, 5, 3)
    assert (row["cleared"], row["mean_score"], row["mean_nodes"]) == (
        whole["cleared"],
        whole["mean_score"],
        whole["mean_nodes"],
    )


def test_solver_cli_rejects_bad_sharding_options(
    tmp_path: Path, run_benchmark: RunBenchmark, assert_refused: AssertRefused
) -> None:
    small = ["--deals", "2", "--rounds", "0", "--out", str(tmp_path / "out")]  # were an option let through
    done = run_benchmark("benchmarks.golf_solver", *small, "--shard-size", "0")  # the command line itself
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--shard-size must be at least 1" in done.stderr
    cases = [
        (["--shard-size", "0"], "--shard-size must be at least 1"),
        (["--address", "auto"], "--address needs --backend ray"),
        (["--deals", "0"], "--deals must be at least 1"),
        (["--seed", "-1"], "--seed must be at least 0, got -1"),
        (["--workers", "0", "--backend", "process"], "--workers must be at least 1, got 0"),
        (["--workers", "2"], "--workers needs --backend process or ray"),
        (["--rounds", "-1"], "--rounds must be at least 0, got -1"),
        (["--out", __file__], f"--out {__file__} is a file; give a folder"),
    ]
    assert_refused(bench.main, [([*small, *argv], message) for argv, message in cases])
    assert not (tmp_path / "out").exists()


def test_a_budget_that_is_not_positive_is_refused_by_name(assert_refused: AssertRefused) -> None:
    """The script and its functions refuse a zero or negative --max-nodes before solving anything (omitted: exact)."""
    assert_refused(
        bench.main,
        [
            (["--max-nodes", "0"], "--max-nodes must be a positive integer (or left out: no limit), got 0"),
            (["--max-nodes", "-1"], "--max-nodes must be a positive integer (or left out: no limit), got -1"),
        ],
    )
    for call in (lambda: bench.solve_deals({}, 2, 0, 0), lambda: bench.measure(2, 0, 0, -3)):
        with pytest.raises(ValueError, match="max_nodes must be a positive integer"):
            call()


# --- on a local 2-worker Ray cluster ---


def test_ray_starts_a_local_cluster_of_the_workers_asked_and_stops_it(ray_module: Any) -> None:
    if ray_module.is_initialized():
        ray_module.shutdown()
    shards = [bench.Shard("wrap_ranks", 0, start, 2, None, True) for start in (0, 2)]
    out = run_sharded(bench.solve_shard, shards, backend="ray", workers=2)
    assert [r["scores"] for r in out] == [r["scores"] for r in map(bench.solve_shard, shards)]
    assert not ray_module.is_initialized()


def test_ray_results_come_back_in_shard_order_whatever_finishes_first(cluster: Any) -> None:
    # the first shard is the longest, so it finishes last
    shards = [bench.Shard("book", 3, 0, 6, None, True)] + [
        bench.Shard("book", 3, start, 1, None, True) for start in range(6, 11)
    ]
    seen: list[int] = []
    out = run_sharded(bench.solve_shard, shards, backend="ray", on_result=lambda i, r: seen.append(i))
    serial = [bench.solve_shard(s) for s in shards]
    assert [r["scores"] for r in out] == [r["scores"] for r in serial]
    assert [r["shard"] for r in out] == [r["shard"] for r in serial]
    assert sorted(seen) == list(range(len(shards)))
    assert cluster.is_initialized()  # a cluster it did not start is left running


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
    kept = sorted((tmp_path / "state").glob("*.json"))
    assert len(kept) == 8
    assert "2 ray workers" in (ray_out / "golf_solver.md").read_text()
    for path in kept[:3]:  # a run stopped before these shards: the same command on Ray resumes from the rest
        path.unlink()
    bench.main(
        [*common, "--out", str(ray_out), "--backend", "ray", "--workers", "2", "--shard-size", "6"]
        + ["--state-dir", str(tmp_path / "state")]
    )
    three = json.loads((ray_out / "golf_solver.json").read_text())
    assert sum(row["shards_solved"] for row in three["rows"]) == 3
    for a, b in zip(one["rows"], three["rows"]):
        assert (a["cleared"], a["mean_score"]) == (b["cleared"], b["mean_score"])

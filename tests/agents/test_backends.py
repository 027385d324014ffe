"""Sharded runs (agents.evaluation.sharding): the serial and Ray backends give the serial results, and the solver
statistics resume from the shards they kept. The Ray tests skip when Ray (the ``[ray]`` extra) is missing."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from agents.evaluation.evaluate import evaluate, evaluate_sharded
from agents.evaluation.sharding import (
    KeptForm,
    KeptShardError,
    holding,
    number,
    one_of,
    run_resumable,
    run_sharded,
    whole,
)

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


SLEEPER = """
import os, time
from pathlib import Path

def sleep_long(folder):
    Path(folder, f"{os.getpid()}.pid").write_text("")
    time.sleep(600)
"""


def _with_path(folder: Path) -> dict[str, str]:
    """This environment, with ``folder`` and the project's root importable (a child process may run elsewhere)."""
    paths = [str(folder), str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie, finished but not yet reaped, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_process_workers_end_when_the_run_is_killed(tmp_path: Path) -> None:
    """A run killed by a signal (``kill``, not Ctrl-C, which reaches the workers too) leaves no worker playing on."""
    import signal
    import subprocess
    import time

    (tmp_path / "sleeper.py").write_text(SLEEPER)
    folder = tmp_path / "pids"
    folder.mkdir()
    script = (
        "import sys; from agents.evaluation.sharding import run_sharded; from sleeper import sleep_long; "
        "run_sharded(sleep_long, [sys.argv[1]] * 2, backend='process', workers=2)"
    )
    env = _with_path(tmp_path)
    parent = subprocess.Popen([sys.executable, "-c", script, str(folder)], env=env)
    try:
        deadline = time.monotonic() + 120
        while len(list(folder.glob("*.pid"))) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
        workers = [int(p.stem) for p in folder.glob("*.pid")]
        assert len(workers) == 2 and all(_alive(pid) for pid in workers)
    finally:
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=60)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:  # a failing check leaves nothing running either
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived the killed run"


def test_a_failing_result_stops_the_workers_still_playing(tmp_path: Path) -> None:
    """A result that cannot be kept raises at once, and the process ends without waiting for a long shard."""
    import subprocess

    (tmp_path / "sleeper.py").write_text(SLEEPER + "\ndef quick_or_long(i):\n    return i if i else sleep_long('.')\n")
    script = (
        "from agents.evaluation.sharding import run_sharded; from sleeper import quick_or_long\n"
        "def keep(i, r): raise OSError('disk full')\n"
        "run_sharded(quick_or_long, [1, 0], backend='process', workers=2, on_result=keep)"
    )
    env = _with_path(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0 and "OSError: disk full" in done.stderr


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


def test_evaluate_sharded_in_blocks_plays_the_serial_games(tmp_path: Path) -> None:
    specs = ["random", "greedy"]
    serial = evaluate(GOLF, specs, episodes=30, seed=11)
    same_summaries(evaluate_sharded(GOLF, None, specs, range(11, 41), shard_size=7), serial)
    with pytest.raises(ValueError, match="at least one seed"):
        evaluate_sharded(GOLF, None, specs, [])
    with pytest.raises(ValueError, match="shard_size must be at least 1"):
        evaluate_sharded(GOLF, None, specs, [1], shard_size=0)
    with pytest.raises(ValueError, match="records and state_dir do not go together"):
        evaluate_sharded(GOLF, None, specs, [1], state_dir=tmp_path / "kept", records=tmp_path / "games")
    assert not list(tmp_path.iterdir())  # refused before anything is made


def test_evaluate_sharded_keeps_its_blocks_and_resumes_from_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interrupted evaluation loses no finished block, plays only the missing ones again, never counts a
    deal twice, and gives the uninterrupted results."""
    from agents.evaluation import blocks

    specs = ["random", "greedy"]
    serial = evaluate(GOLF, specs, episodes=12, seed=5)
    state = tmp_path / "state"
    same_summaries(evaluate_sharded(GOLF, None, specs, range(5, 17), shard_size=5, state_dir=state), serial)
    kept = sorted(p.name for p in state.glob("*.json"))
    assert len(kept) == 6 and all(name.startswith("Golf-v0-") for name in kept)  # 2 agents x blocks of 5, 5, 2

    played: list[list[int]] = []
    play = blocks._play_shard

    def counting(shard: Any) -> dict[str, Any]:
        played.append(shard.seeds)
        return play(shard)

    monkeypatch.setattr(blocks, "_play_shard", counting)
    same_summaries(evaluate_sharded(GOLF, None, specs, range(5, 17), shard_size=5, state_dir=state), serial)
    assert played == []  # every block read back
    (state / kept[0]).unlink()  # as if the run had stopped before that block finished
    same_summaries(evaluate_sharded(GOLF, None, specs, range(5, 17), shard_size=5, state_dir=state), serial)
    assert len(played) == 1 and sorted(p.name for p in state.glob("*.json")) == kept


def test_a_kept_block_of_other_settings_is_refused_by_name(tmp_path: Path) -> None:
    """A planner whose settings changed since its blocks were kept (a new default, say) is not mixed with them."""
    import json

    state = tmp_path / "state"
    spec = ["planner:samples=1,exact_from=none,max_nodes=2000"]
    evaluate_sharded(GOLF, None, spec, range(2), shard_size=2, state_dir=state)
    (path,) = state.glob("*.json")
    data = json.loads(path.read_text())
    data["shard"]["settings"]["max_nodes"] = 3000
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=f"kept shard .*{path.name} does not hold the deals"):
        evaluate_sharded(GOLF, None, spec, range(2), shard_size=2, state_dir=state)
    path.write_text("{not json")
    with pytest.raises(ValueError, match=f"kept shard .*{path.name} is not valid JSON"):
        evaluate_sharded(GOLF, None, spec, range(2), shard_size=2, state_dir=state)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"[1, 2]", "does not hold the deals"),
        (b"\xff\xfe{", "is not valid JSON"),
        (None, "gives deal 2's scores entry as 'x', not a finite number"),
    ],
)
def test_a_damaged_kept_block_is_refused_by_name_before_any_deal(tmp_path: Path, content, problem) -> None:
    """A kept block that is not JSON text, not an object, or holds a score that is not a number is refused naming
    its file before any block is played (the other block, deleted, is not played again)."""
    import json

    state = tmp_path / "state"
    evaluate_sharded(GOLF, None, ["random"], range(4), shard_size=2, state_dir=state)
    first, second = sorted(state.glob("*.json"), key=lambda p: int(p.stem.split("-")[-2]))
    if content is None:
        data = json.loads(second.read_text())
        data["scores"][0] = "x"
        content = json.dumps(data).encode()
    second.write_bytes(content)
    first.unlink()
    with pytest.raises(KeptShardError, match=f"kept shard .*{second.name} {problem}"):
        evaluate_sharded(GOLF, None, ["random"], range(4), shard_size=2, state_dir=state)
    assert not first.exists()


def test_a_state_dir_that_cannot_keep_blocks_is_refused_before_any_deal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match=f"state dir {blocker / 'state'} cannot keep the finished shards"):
        evaluate_sharded(GOLF, None, ["random"], range(2), state_dir=blocker / "state")


def test_a_model_named_without_its_zip_suffix_is_evaluated_and_fingerprinted(tmp_path: Path) -> None:
    """``ppo:PATH`` may leave out ``.zip`` (as Stable-Baselines3 does); its blocks carry the file's digest."""
    import hashlib

    from agents.evaluation.evaluate import agent_settings
    from agents.load import load_for_env

    model = Path(__file__).resolve().parents[2] / "models" / "golf_rules"
    env_kwargs = {"obs_encoding": "rules_moves"}
    agent = load_for_env(str(model), GOLF, env_kwargs)
    digest = hashlib.sha256(model.with_suffix(".zip").read_bytes()).hexdigest()
    assert agent_settings(agent, f"ppo:{model}")["model_sha256"] == digest
    (summary,) = evaluate_sharded(GOLF, env_kwargs, [f"ppo:{model}"], range(3), state_dir=tmp_path)
    assert summary.episodes == 3 and len(list(tmp_path.glob("*.json"))) == 1


def test_agent_settings_hold_a_planners_budget_and_nothing_that_changes_between_builds() -> None:
    from agents.evaluation.evaluate import agent_settings
    from agents.registry import make_agent

    planner = agent_settings(make_agent("planner:samples=5,exact_from=none", "golf"), "planner")
    assert planner["samples"] == 5 and planner["exact_from"] is None and "stats" not in planner
    assert agent_settings(make_agent("random", "golf", seed=1), "random") == {}
    for kind in ("greedy", "planner", "solver"):  # a resume builds the agent again, with another seed
        first = agent_settings(make_agent(kind, "miss_milligan", seed=0), kind)
        assert agent_settings(make_agent(kind, "miss_milligan", seed=9), kind) == first


# --- on a local 2-worker Ray cluster ---


def test_evaluate_sharded_on_ray_plays_the_serial_games(cluster: Any) -> None:
    specs = ["random", "greedy"]
    serial = evaluate(GOLF, specs, episodes=36, seed=100)
    same_summaries(evaluate_sharded(GOLF, {}, specs, range(100, 136), backend="ray", shard_size=5), serial)


def test_evaluate_sharded_refuses_a_model_for_another_game_before_any_shard(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.evaluation import blocks
    from agents.load import ModelSpecError

    sent: list[Any] = []
    monkeypatch.setattr(blocks, "run_resumable", lambda *a, **k: sent.append(a))
    model = Path(__file__).resolve().parents[2] / "models" / "golf_rules.zip"
    with pytest.raises(ModelSpecError, match="trained on patience_gym/Golf-v0 .*queens_on_kings"):
        evaluate_sharded(GOLF, {"obs_encoding": "rules_moves", "queens_on_kings": True}, [f"ppo:{model}"], range(4))
    assert sent == []


def test_backends_and_evaluate_import_each_other_in_no_circle() -> None:
    """agents.evaluation.evaluate uses agents.evaluation.sharding; the sharding helper, the generic layer, imports no
    agent module (only the writer lock, which knows nothing of agents either)."""
    import ast

    import agents.evaluation.sharding

    tree = ast.parse(Path(agents.evaluation.sharding.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {name for name in imported if name and name.startswith("agents")} == {"agents.evaluation.writer_lock"}


# --- kept shards checked, one writer per state dir ---


@dataclass(frozen=True)
class Deals:
    """A shard of the deals ``start .. start+count-1``, as the solver benchmarks cut theirs."""

    start: int
    count: int

    @property
    def seeds(self) -> range:
        return range(self.start, self.start + self.count)

    @property
    def filename(self) -> str:
        return f"deals-{self.start}+{self.count}.json"


VERDICTS = KeptForm(
    deals={"deals": {"seed": whole(0), "verdict": one_of(("won", "lost"))}}, totals={"seconds": number(0.0)}
)


def judge(shard: Deals) -> dict[str, Any]:
    deals = [{"seed": seed, "verdict": "won" if seed % 2 else "lost"} for seed in shard.seeds]
    return {"shard": asdict(shard), "deals": deals, "seconds": 0.5}


def refuse_to_run(shard: Deals) -> dict[str, Any]:
    raise AssertionError(f"{shard} was run, though a kept shard is bad")


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda d: d["deals"].__setitem__(0, dict(d["deals"][2])), "holds deal 2 twice and lacks deal 0"),
        (lambda d: d["deals"].pop(0), "holds 2 entries in 'deals' for its 3 deals"),
        (
            lambda d: d["deals"][1].update(verdict="maybe"),
            "gives deal 1's verdict as 'maybe', not one of ['won', 'lost']",
        ),
        (lambda d: d["deals"][2].update(seed=7), "lacks deal 2 and holds deal 7 of another shard"),
        (lambda d: d["deals"].reverse(), "holds its deals out of seed order"),
        (lambda d: d["deals"][0].update(seed="0"), "gives deal 0's seed as '0', not a whole number of 0 or more"),
        (lambda d: d["deals"][0].pop("verdict"), "has no verdict for deal 0 in 'deals'"),
        (lambda d: d.update(seconds=-1), "gives seconds as -1, not a finite number of 0 or more"),
        (lambda d: d.pop("seconds"), "has no seconds"),
    ],
)
def test_a_kept_shard_is_checked_against_its_seeds_and_values(
    tmp_path: Path, edit: Callable[[dict[str, Any]], object], problem: str
) -> None:
    """A kept shard with a deal twice, a deal missing, a deal of another shard, a verdict the tool does not give
    or a value out of range is named in one line, before any shard runs, and never counted."""
    import json

    shards = [Deals(0, 3), Deals(3, 2)]
    first, _ = run_resumable(judge, shards[:1], tmp_path, VERDICTS)
    path = tmp_path / shards[0].filename
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(KeptShardError) as refused:
        run_resumable(refuse_to_run, shards, tmp_path, VERDICTS)
    assert str(refused.value) == f"kept shard {path} {problem}: delete it to solve the shard again"
    assert not (tmp_path / shards[1].filename).exists()
    path.unlink()
    results, ran = run_resumable(judge, shards, tmp_path, VERDICTS)
    assert results[0] == first[0] and ran == 2


def test_a_state_dir_held_by_this_process_is_not_refused_by_it(tmp_path: Path) -> None:
    """A tool holding its state dir over several runs (one per game) is not refused by its own lock, and
    leaves the lock file, which no reader takes for a shard."""
    with holding(tmp_path, "--state-dir"):
        run_resumable(judge, [Deals(0, 2)], tmp_path, VERDICTS)
        results, ran = run_resumable(judge, [Deals(0, 2), Deals(2, 1)], tmp_path, VERDICTS)
    assert ran == 1 and [d["seed"] for r in results for d in r["deals"]] == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".writer.lock", "deals-0+2.json", "deals-2+1.json"]
    assert run_resumable(refuse_to_run, [Deals(0, 2)], tmp_path, VERDICTS)[1] == 0

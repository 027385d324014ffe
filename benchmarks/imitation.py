"""How well does a policy network copy each teacher? Behaviour cloning alone, no PPO.

For each (env, teacher) it records the teacher's games on deals apart from the
evaluation deals, fits a fresh MaskablePPO policy to them (``agents.imitation``),
and plays the cloned policy (deterministic) on the evaluation deals beside the
teacher. The gap between teacher and student is what PPO fine-tuning starts from.

Usage::

    python -m benchmarks.imitation --env patience_gym/Golf-v0 --teacher greedy --episodes 3000
    python -m benchmarks.imitation --config configs/golf_moves.yaml --teacher planner --episodes 2000 --jobs 2
    python -m benchmarks.imitation --merge   # rebuild the table from the saved rows

By default the student is an MLP (``--net-arch``) over the ``planes`` encoding;
``--config`` takes the env, encoding, policy and network of a training config
instead (for example the Golf move-scoring network).

Appends one row per call to ``benchmarks/results/imitation.json`` and rewrites
``benchmarks/results/imitation.md``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from agents.registry import TEACHERS
from agents.report import machine_description
from benchmarks import RESULTS, write_results

DEMO_SEED = 3_000_000  # teacher games; evaluation deals are seeds 0..N-1


def clone(
    env_id: str,
    teacher: str,
    episodes: int,
    eval_episodes: int,
    epochs: int,
    net_arch: list[int],
    seed: int,
    env_kwargs: dict[str, Any],
    config: str | None = None,
    jobs: int = 1,
    dagger_rounds: int = 0,
    dagger_episodes: int = 500,
    dagger_epochs: int = 4,
) -> dict[str, Any]:
    """Record, fit, evaluate; one result row (the student's network from ``config`` when given).

    ``dagger_rounds`` adds rounds of DAgger (:func:`agents.imitation.dagger`) after the clone,
    on the deals that follow the teacher's.
    """
    import torch as th
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from agents.evaluate import evaluate, play_episodes
    from agents.imitation import collect, dagger, fit, round_seeds
    from agents.ppo import PPOAgent

    th.manual_seed(seed)
    policy: Any = "MlpPolicy"
    policy_kwargs: dict[str, Any] = {"net_arch": net_arch}
    network = "MLP " + "x".join(map(str, net_arch))
    if config is not None:
        from agents.config import load_config, resolve_policy, resolve_policy_kwargs

        train_config = load_config(config)
        env_id, env_kwargs = train_config.env_id, train_config.env_kwargs
        policy = resolve_policy(train_config.policy)
        policy_kwargs = resolve_policy_kwargs(train_config.policy_kwargs)
        network = f"`{config}`"
    demos = collect(env_id, env_kwargs, teacher, range(DEMO_SEED, DEMO_SEED + episodes), jobs=jobs)
    model = MaskablePPO(
        policy,
        make_vec_env(env_id, n_envs=1, env_kwargs={"render_mode": None, **env_kwargs}),
        policy_kwargs=policy_kwargs,
        gamma=1.0,
        seed=seed,
        device="cpu",
    )
    start = time.perf_counter()
    history = fit(model, demos, epochs=epochs, seed=seed)
    fit_seconds = time.perf_counter() - start
    rounds: list[dict[str, Any]] = []
    if dagger_rounds:
        seeds = round_seeds(DEMO_SEED + episodes, dagger_rounds, dagger_episodes)
        demos, rounds = dagger(
            model, demos, env_id, env_kwargs, teacher, seeds, jobs=jobs, epochs=dagger_epochs, seed=seed
        )
        for r in rounds:
            del r["epochs"][:-1]  # the row keeps each round's last epoch

    teacher_summary = evaluate(env_id, [teacher], eval_episodes, 0, env_kwargs)[0]
    student_summary = play_episodes(env_id, PPOAgent(model), range(eval_episodes), env_kwargs)
    return {
        "env": env_id,
        "teacher": teacher,
        "episodes": episodes,
        "decisions": len(demos),
        "epochs": epochs,
        "net_arch": net_arch,
        "network": network,
        "encoding": env_kwargs.get("obs_encoding", "ids"),
        "accuracy": (rounds[-1]["epochs"][-1] if rounds else history[-1])["accuracy"],
        "dagger_episodes": dagger_episodes if rounds else 0,
        "dagger": rounds,
        "record_seconds": demos.seconds,
        "fit_seconds": fit_seconds,
        "eval_episodes": eval_episodes,
        "teacher_score": [teacher_summary.mean_score, teacher_summary.score_ci95],
        "teacher_win_rate": teacher_summary.win_rate,
        "student_score": [student_summary.mean_score, student_summary.score_ci95],
        "student_win_rate": student_summary.win_rate,
        "machine": machine_description(),
    }


def to_markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "Behaviour cloning alone (`python -m benchmarks.imitation`): a MaskablePPO policy fitted to a "
        f"teacher's moves on deals from seed {DEMO_SEED}, then played deterministically on the evaluation "
        "deals (seeds 0..N-1) beside the teacher. `solver` sees the hidden cards; its student does not. "
        "Accuracy: share of sampled training decisions where the student's top move is the teacher's. "
        "`+ R x N DAgger`: R rounds in which the cloned student played N deals of its own, the teacher "
        "labelled its positions, and the student was fitted again on all the rows (`--dagger-rounds`). "
        "Student: an MLP over the `planes` encoding, or the network and encoding of the config named.",
        "",
        "| env | teacher | student | teacher games | decisions | epochs | accuracy | eval deals | teacher score "
        "| student score | teacher wins | student wins |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['env'].split('/')[-1]} | {r['teacher']} | {_network(r)} | {_games(r)} | {r['decisions']:,} "
            f"| {r['epochs']} "
            f"| {100 * r['accuracy']:.1f}% | {r['eval_episodes']} "
            f"| {r['teacher_score'][0]:.2f} ± {r['teacher_score'][1]:.2f} "
            f"| {r['student_score'][0]:.2f} ± {r['student_score'][1]:.2f} "
            f"| {100 * r['teacher_win_rate']:.1f}% | {100 * r['student_win_rate']:.1f}% |"
        )
    return "\n".join(lines) + "\n"


def _games(row: dict[str, Any]) -> str:
    """The teacher's games, and the student's own games DAgger labelled (if any)."""
    rounds = row.get("dagger", [])
    own = f" + {len(rounds)} x {row['dagger_episodes']:,} DAgger" if rounds else ""
    return f"{row['episodes']:,}{own}"


def _network(row: dict[str, Any]) -> str:
    """The student's network (rows saved before ``--config`` existed were all MLPs over ``planes``)."""
    return row.get("network", "MLP " + "x".join(map(str, row["net_arch"])))


def _key(row: dict[str, Any]) -> tuple[str, str, int, str, int]:
    return row["env"], row["teacher"], row["episodes"], _network(row), len(row.get("dagger", []))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="patience_gym/Golf-v0")
    parser.add_argument("--teacher", default="greedy", help=f"{', '.join(TEACHERS)}, with options: planner:margin=1")
    parser.add_argument("--episodes", type=int, default=3000, help="teacher games to clone")
    parser.add_argument("--eval-episodes", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--net-arch", default="256,256")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", help="a training config whose env, encoding and network the student uses")
    parser.add_argument("--jobs", type=int, default=1, help="processes recording the teacher's games")
    parser.add_argument("--dagger-rounds", type=int, default=0, help="DAgger rounds after the clone")
    parser.add_argument("--dagger-episodes", type=int, default=500, help="student games per DAgger round")
    parser.add_argument("--dagger-epochs", type=int, default=4, help="epochs of each DAgger round's fit")
    parser.add_argument("--merge", action="store_true", help="only rebuild the table from the saved rows")
    args = parser.parse_args(argv)
    if args.teacher.partition(":")[0] not in TEACHERS:
        parser.error(f"--teacher must be one of {', '.join(TEACHERS)}, got {args.teacher!r}")
    saved = RESULTS / "imitation.json"
    rows: list[dict[str, Any]] = json.loads(saved.read_text()) if saved.is_file() else []
    if not args.merge:
        arch = [int(x) for x in args.net_arch.split(",")]
        row = clone(
            args.env,
            args.teacher,
            args.episodes,
            args.eval_episodes,
            args.epochs,
            arch,
            args.seed,
            {"obs_encoding": "planes"},
            args.config,
            args.jobs,
            args.dagger_rounds,
            args.dagger_episodes,
            args.dagger_epochs,
        )
        rows = [r for r in rows if _key(r) != _key(row)] + [row]
    write_results("imitation", rows, to_markdown(rows))


if __name__ == "__main__":
    main()

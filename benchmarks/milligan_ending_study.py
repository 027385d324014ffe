"""Study (issue 34, research notes section 26): can PPO on the rules-only encoding learn Miss Milligan's open
ending better than the greedy plays it?

Section 15 found the whole gap between the rules-only student and the greedy in the ending (the stock out,
nothing hidden). This study gives PPO only endings: ``patience_gym/MissMilliganEnding-v0`` (registered here,
not in the library) is Miss Milligan whose reset plays the greedy's game while the stock lasts and hands over
the first position with the stock out; a deal whose greedy game ends before that is replaced by the next deal
of the env's generator. ``train.py`` then trains the canonical recipe's network (``MoveRows`` on
``rules_moves``, hidden 128, a separate critic) on it, cloned from the greedy's own endings (consistent
labels, unlike the solver's lines of section 15), and its report plays the greedy's ending and the student's
from the same positions of 1,000 fresh deals: the paired test says whether PPO's ending beats the greedy's.

    python -m benchmarks.milligan_ending_study --run-dir /tmp/ending [--total-timesteps N] [--teacher-episodes N]
        [--learning-rate X] [--clip-range X]
    python -m benchmarks.milligan_ending_study --evaluate /tmp/ending/checkpoints/STEP.zip [--episodes 1000]

(``--evaluate``: the greedy's ending and a saved model's from the same positions of deals 0..N-1, paired.)
The section's runs, side by side, each stopped by hand (at 815k and 610k steps)::

    OMP_NUM_THREADS=1 python -m benchmarks.milligan_ending_study --run-dir A --total-timesteps 1500000
    OMP_NUM_THREADS=1 python -m benchmarks.milligan_ending_study --run-dir B --total-timesteps 1500000 \
        --learning-rate 3e-4 --clip-range 0.2
    python -m benchmarks.milligan_ending_study --evaluate A/checkpoints/model_600000_steps.zip
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import yaml

import patience_gym
from patience_gym.envs.milligan import MissMilliganEnv
from patience_gym.games.milligan import MilliganGame
from patience_gym.heuristics.milligan_greedy import GreedyRules

ENV_ID = "patience_gym/MissMilliganEnding-v0"


class MissMilliganEndingEnv(MissMilliganEnv):
    """Miss Milligan from the greedy's first position with the stock out (a ``state`` option is played as given)."""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        obs, info = super().reset(seed=seed, options=options)
        if options:
            return obs, info
        game = self.game
        assert isinstance(game, MilliganGame)
        while True:
            rules, state = GreedyRules(), self.state
            while state.stock_left > 0 and not game.is_over(state):
                game.apply(state, rules.choose(game, state, game.legal_mask(state)))
            if not game.is_over(state):
                break
            self.state = game.init(self.np_random)
        self._refresh()
        return self.observer.observe(self.state), self._info(illegal=False)


def register() -> None:
    """Register the ending env with Gymnasium and in ``patience_gym.ENVS`` (model specs name it; idempotent)."""
    entry = f"{__name__}:MissMilliganEndingEnv"
    patience_gym.ENVS[ENV_ID] = (entry, 10_000)
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point=entry, max_episode_steps=10_000)


def config(total_timesteps: int, teacher_episodes: int, learning_rate: float, clip_range: float) -> dict[str, Any]:
    """``configs/miss_milligan.yaml``'s network and PPO settings on the ending env, cloned from the greedy."""
    return {
        ENV_ID: {
            "env_kwargs": {"obs_encoding": "rules_moves"},
            "vec": "dummy",
            "n_envs": 16,
            "total_timesteps": total_timesteps,
            "policy": "agents.training.networks.LogitsPolicy",
            "policy_kwargs": {
                "features_extractor_class": "agents.training.networks.MoveRows",
                "features_extractor_kwargs": {"hidden": 128},
                "share_features_extractor": False,
                "critic_reads_logits": False,
            },
            "ppo": {
                "n_steps": 128,
                "batch_size": 512,
                "n_epochs": 4,
                "learning_rate": learning_rate,
                "clip_range": clip_range,
                "gamma": 0.999,
                "gae_lambda": 0.95,
                "ent_coef": 0.0,
                "max_grad_norm": 100.0,
            },
            "checkpoint_freq": 100_000,
            "eval": {"freq": 100_000, "episodes": 50, "seed": 1_000_000},
            "report": {"episodes": 1000, "seed": 0, "agents": ["random", "greedy"]},
            "pretrain": {"teacher": "greedy", "episodes": teacher_episodes, "epochs": 8, "batch_size": 512},
        }
    }


def evaluate_model(model: str, episodes: int) -> None:
    """Print the greedy's and the model's endings on deals 0..episodes-1 and their paired difference."""
    from agents.evaluation.evaluate import evaluate, format_table, paired_ci95

    env = gym.make(ENV_ID).unwrapped
    handed_over = [env.reset(seed=seed)[1]["score"] for seed in range(episodes)]
    print(f"cards on the foundations at the hand-over: {np.mean(handed_over):.2f} on average")
    results = evaluate(ENV_ID, ["greedy", f"ppo:{model}"], episodes, 0, {"obs_encoding": "rules_moves"})
    print(format_table(ENV_ID, results, False))
    greedy, ppo = results
    mean, half = paired_ci95(ppo.scores, greedy.scores)
    print(f"model minus greedy, paired by deal: {mean:+.2f} ± {half:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir")
    parser.add_argument("--evaluate", metavar="MODEL")
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--total-timesteps", type=int, default=1_000_000)
    parser.add_argument("--teacher-episodes", type=int, default=2000)
    parser.add_argument("--learning-rate", type=float, default=1.0e-4)
    parser.add_argument("--clip-range", type=float, default=0.1)
    args = parser.parse_args()
    register()
    if args.evaluate:
        evaluate_model(args.evaluate, args.episodes)
        return
    if not args.run_dir:
        parser.error("--run-dir is needed to train")
    from agents.training.experiment import main as train_main

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "miss_milligan_ending.yaml"
        settings = config(args.total_timesteps, args.teacher_episodes, args.learning_rate, args.clip_range)
        path.write_text(yaml.safe_dump(settings, sort_keys=False))
        raise SystemExit(train_main(["--config", str(path), "--run-dir", args.run_dir, "--no-progress-bar"]))


if __name__ == "__main__":
    main()

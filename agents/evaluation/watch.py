"""Watch an agent play: an animated GIF (or MP4) of a seeded deal, or of a saved game record.

Usage::

    python -m agents.evaluation.watch --env patience_gym/Golf-v0 --agent greedy --seed 3 --out game.gif
    python -m agents.evaluation.watch --record game.json --out game.gif
    python -m agents.evaluation.watch --env patience_gym/Golf-v0 --agent ppo:models/golf.zip --seed 3 --out ppo.gif

Any agent spec that ``agents.registry.make_agent`` reads works; a PPO model that
carries its spec (``agents.load``) brings its own env kwargs. ``--record-out``
also saves the game record of the filmed game. An ``--out`` or ``--record-out``
file already there is written over only with ``--overwrite``; every file to
write is checked before the game is played. MP4 needs ``imageio-ffmpeg``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.base import Agent
from agents.evaluation.outputs import output_file_problem
from agents.load import read_model_spec
from agents.registry import make_agent
from patience_gym.env import env_kwargs_from_json
from patience_gym.records import GameRecord, RecordEpisodes, RecordError, load_record, make_env, replay, save_record
from patience_gym.render.image import render_rgb, save_animation


def film(
    env: gym.Env[Any, Any], agent: Agent, path: str | Path | None, seed: int | None = None, fps: float = 2.0
) -> tuple[list[np.ndarray], GameRecord]:
    """Play one episode of ``agent`` on ``env`` (reset with ``seed``), a frame per position.

    Writes the animation to ``path`` unless it is None; returns the frames and the game's record.
    """
    recorder = env if isinstance(env, RecordEpisodes) else RecordEpisodes(env, agent=agent.name)
    unwrapped: Any = recorder.unwrapped
    obs, info = recorder.reset(seed=seed)
    agent.reset(seed)
    frames = [render_rgb(unwrapped.game, unwrapped.state)]
    done = False
    while not done:
        action = agent.act(unwrapped, obs, info["action_mask"].astype(bool))
        previous = unwrapped.state.copy()
        obs, _, terminated, truncated, info = recorder.step(action)
        if info["illegal_action"]:
            raise RuntimeError(f"agent {agent.name} chose illegal action {action}")
        frames.append(render_rgb(unwrapped.game, unwrapped.state, action, previous))
        done = terminated or truncated
    if path is not None:
        save_animation(frames, path, fps=fps)
    assert recorder.record is not None
    return frames, recorder.record


def record_frames(record: GameRecord) -> list[np.ndarray]:
    """A frame per position of a recorded game (the record is checked as it replays)."""
    env = make_env(record)
    unwrapped: Any = env.unwrapped
    game = unwrapped.game
    previous = game.from_dict(record.initial_state)
    frames = [render_rgb(game, previous)]
    for n, _ in enumerate(replay(record, env)):
        action = game.action_from_description(record.moves[n])
        frames.append(render_rgb(game, unwrapped.state, action, previous))
        previous = unwrapped.state.copy()
    env.close()
    return frames


def _make_agent(spec: str, env_id: str, env_kwargs: dict[str, Any], seed: int | None) -> tuple[Agent, dict[str, Any]]:
    """The agent of ``spec``, and the env kwargs to play it with.

    A PPO model that carries its spec brings its own env kwargs; those given here must agree with them
    (:func:`agents.registry.make_agent` refuses a model trained on another env, rules or encoding).
    """
    if spec.startswith("ppo:"):
        model_spec = read_model_spec(spec[4:])
        if model_spec is not None and model_spec.plays(env_id):
            env_kwargs = {**model_spec.make_kwargs(), **env_kwargs}
    game_name = gym.make(env_id, **env_kwargs).unwrapped.game.name  # type: ignore[attr-defined]
    return make_agent(spec, game_name, seed=seed, env_id=env_id, env_kwargs=env_kwargs), env_kwargs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", help="registered env id, e.g. patience_gym/Golf-v0")
    parser.add_argument("--agent", default="greedy", help="random, greedy, planner, solver, ppo:PATH, ...")
    parser.add_argument("--seed", type=int, default=0, help="deal seed (0 or more)")
    parser.add_argument("--env-kwargs", default="{}", help="JSON dict of env kwargs")
    parser.add_argument("--record", help="film this saved game record instead of playing")
    parser.add_argument("--record-out", help="also save the filmed game's record here (with --env)")
    parser.add_argument("--out", required=True, help="animation to write: .gif, or .mp4 with imageio-ffmpeg")
    parser.add_argument("--fps", type=float, default=2.0, help="moves per second")
    parser.add_argument("--overwrite", action="store_true", help="write over an --out or --record-out already there")
    args = parser.parse_args(argv)
    problem = _request_problem(args)
    if problem:
        parser.error(problem)
    if args.record:
        try:
            record = load_record(args.record)
            frames = record_frames(record)
        except RecordError as exc:  # one line, no usage text: the record, not the command line, is wrong
            print(f"error: {exc}", file=sys.stderr)
            return 2
    else:
        try:
            env_kwargs = env_kwargs_from_json(args.env_kwargs)
            agent, env_kwargs = _make_agent(args.agent, args.env, env_kwargs, args.seed)
            env = gym.make(args.env, **env_kwargs)
        except (ValueError, TypeError, FileNotFoundError, gym.error.Error) as exc:
            parser.error(str(exc))
        frames, record = film(RecordEpisodes(env, agent=args.agent), agent, None, seed=args.seed)
        if args.record_out:
            save_record(record, args.record_out)
    path = save_animation(frames, args.out, fps=args.fps)
    score = record.final_score
    print(f"wrote {path}: {len(frames)} frames, {len(record.moves)} moves, final score {score:g}", file=sys.stdout)
    return 0


def _request_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the command line (one line), found before any game is played or read, or None."""
    if Path(args.out).suffix.lower() not in (".gif", ".mp4"):
        return f"--out {args.out}: the file name must end in .gif or .mp4"
    if not (math.isfinite(args.fps) and args.fps > 0):
        return f"--fps must be a positive number of moves per second, got {args.fps}"
    if args.seed < 0:
        return f"--seed must be 0 or more, got {args.seed}"
    if not args.record and not args.env:
        return "give --env (with --agent and --seed) or --record"
    if args.record and args.record_out:
        return "--record-out saves the record of a game played here (--env); a --record is saved already"
    outputs = [("--out", args.out, "the animation")]
    if args.record_out:
        if Path(args.out).resolve() == Path(args.record_out).resolve():
            return f"--out and --record-out are the same file {args.out}; give each its own name"
        outputs.append(("--record-out", args.record_out, "the record"))
    for option, path, what in outputs:
        problem = output_file_problem(path, what, overwrite=args.overwrite)
        if problem:
            return f"{option} {path} {problem}"
    return None


if __name__ == "__main__":
    sys.exit(main())

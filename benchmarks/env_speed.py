"""Steps per second of every registered env, and of OpenSpiel's Klondike for scale.

Each env is made with ``gym.make`` (default wrappers included) and played by
a masked uniform-random policy that reads ``info["action_mask"]`` every step.
OpenSpiel's ``solitaire`` (Klondike), when installed (``pip install
open_spiel``), is timed in the same run doing the same per-step work: legal
action mask + observation tensor + apply; only its player moves count as
steps (its chance moves, which turn cards, are applied but not counted).

Besides each env's default observation, the encodings that the PPO configs
train on (``ENCODINGS``: ``runs``, ``moves``, ``moves_search``, ``moves_replay``, ``moves_replay_all``) are timed
the same way; their observation is where most of their per-step work is.

Usage: ``python -m benchmarks.env_speed [--seconds 5] [--env ID ...] [--no-encodings] [--json out.json]``

Writes ``benchmarks/results/env_speed.json`` and ``.md`` (``python -m benchmarks.readme`` copies the
table into the README).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym
from agents.report import machine_description
from benchmarks import write_results

TARGETS = {  # minimum ratio to OpenSpiel Klondike, from the issues
    "patience_gym/Golf-v0": 4.0,
    "patience_gym/GolfRound-v0": 4.0,
    "patience_gym/MissMilligan-v0": 2.0,
    "patience_gym/Giant-v0": 2.0,
    "patience_gym/MissMilliganPocket-v0": 2.0,
    "patience_gym/PussInTheCorner-v0": 4.0,
}


#: (env id, obs_encoding) pairs the PPO configs train on, timed beside the default encodings.
ENCODINGS = [
    ("patience_gym/Golf-v0", "runs"),
    ("patience_gym/MissMilligan-v0", "moves"),
    ("patience_gym/Giant-v0", "moves"),
    ("patience_gym/MissMilliganPocket-v0", "moves"),
    ("patience_gym/MissMilliganPocket-v0", "moves_search"),
    ("patience_gym/PussInTheCorner-v0", "moves"),
    ("patience_gym/PussInTheCorner-v0", "moves_replay"),
    ("patience_gym/PussInTheCorner-v0", "moves_replay_all"),
]


def _pick(mask: np.ndarray, u: float) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(u * len(legal))])


def time_env(env_id: str, seconds: float, seed: int = 0, obs_encoding: str | None = None) -> dict[str, Any]:
    """Masked-random steps per second of ``env_id`` through ``gym.make`` (its default encoding unless given)."""
    env = gym.make(env_id) if obs_encoding is None else gym.make(env_id, obs_encoding=obs_encoding)
    rng = np.random.default_rng(seed)
    uniforms = rng.random(1 << 16)
    _, info = env.reset(seed=seed)
    steps = episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(256):
            _, _, terminated, truncated, info = env.step(_pick(info["action_mask"], uniforms[steps & 0xFFFF]))
            steps += 1
            if terminated or truncated:
                episodes += 1
                _, info = env.reset()
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    row = {"env": env_id, "steps": steps, "episodes": episodes, "seconds": elapsed, "steps_per_s": steps / elapsed}
    if obs_encoding is not None:
        row["obs_encoding"] = obs_encoding
    return row


def time_openspiel(seconds: float, seed: int = 0) -> dict[str, Any] | None:
    """Player steps per second of OpenSpiel's Klondike, or None when not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("solitaire")
    rng = np.random.default_rng(seed)
    uniforms = rng.random(1 << 16)
    steps = draws = episodes = 0
    state = game.new_initial_state()
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(256):
            if state.is_terminal():
                episodes += 1
                state = game.new_initial_state()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(uniforms[draws & 0xFFFF] * len(outcomes))][0])
                draws += 1
                continue
            mask = np.asarray(state.legal_actions_mask(), dtype=bool)
            np.asarray(state.observation_tensor(), dtype=np.float32)
            state.apply_action(_pick(mask, uniforms[steps & 0xFFFF]))
            steps += 1
    elapsed = time.perf_counter() - start
    return {
        "env": "open_spiel/solitaire",
        "steps": steps,
        "episodes": episodes,
        "seconds": elapsed,
        "steps_per_s": steps / elapsed,
    }


def to_markdown(rows: list[dict[str, Any]], reference: dict[str, Any] | None, machine: str) -> str:
    """The speed table: steps per second, ratio to OpenSpiel's Klondike and the target."""
    lines = [
        f"Masked-random steps per second through `gym.make`, one process, on {machine}.",
        "",
        "| env | steps/s | vs OpenSpiel Klondike | target |",
        "|---|---:|---:|---:|",
    ]
    for row in rows:
        ratio = row.get("ratio_to_openspiel", float("nan"))
        target = TARGETS.get(row["env"])
        met = "" if target is None or reference is None else (" (met)" if ratio >= target else " (missed)")
        shown = f"{target:.0f}x{met}" if target else "-"
        name = row["env"].split("/")[-1]
        if "obs_encoding" in row:  # the targets are set for the default encodings only
            name, shown = f"{name} (`{row['obs_encoding']}`)", "-"
        lines.append(f"| {name} | {row['steps_per_s']:,.0f} | {ratio:.2f}x | {shown} |")
    if reference:
        lines.append(f"| OpenSpiel `solitaire` (Klondike) | {reference['steps_per_s']:,.0f} | 1.00x | |")
    else:
        lines.append("| OpenSpiel not installed (`pip install open_spiel`): no reference | | | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="timing per env")
    parser.add_argument("--env", nargs="*", default=sorted(patience_gym.ENVS), help="env ids (default: all)")
    parser.add_argument("--no-encodings", action="store_true", help="skip the training encodings (ENCODINGS)")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    rows = [time_env(env_id, args.seconds) for env_id in args.env]
    if not args.no_encodings:
        rows += [time_env(e, args.seconds, obs_encoding=enc) for e, enc in ENCODINGS if e in args.env]
    reference = time_openspiel(args.seconds)
    machine = machine_description()
    for row in rows:
        row["ratio_to_openspiel"] = row["steps_per_s"] / reference["steps_per_s"] if reference else float("nan")
    data = {"machine": machine, "envs": rows, "openspiel": reference}
    write_results("env_speed", data, to_markdown(rows, reference, machine))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()

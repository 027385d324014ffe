"""Invariants at scale: masked-random episodes through the batched engine, greedy and stalling ones through the env.

Every step of every episode is checked:

* the mask is non-empty while the game is live (and empty once it is over);
* the observation lies in the env's observation space;
* the episode ends within the registered step bound (no truncation);
* the return equals the change of the score (``-`` where a lower score is better; a round of
  Golf adds each new hole's links to its score, so there the return is ``35 * holes - score``);
* no legal move is refused, and none is left once the game is over.

Cards conserved are checked over random playouts by ``tests/games/test_*_invariants.py`` (single env);
the batched engine equals the single env bit for bit (``tests/vector/test_vector_*.py``).

Masked-random episodes run on :mod:`patience_gym.vector` (bit-identical to the env, tested),
greedy and stalling episodes (a policy that prefers moves that change nothing, to push the
progress rule) on the single env. Each env is checked under its default rules and each rule option.

Usage: ``python -m benchmarks.invariants [--random 1000000] [--greedy 10000] [--stalling 10000]
[--env ID ...] [--out DIR]``; writes ``benchmarks/results/invariants.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym
from agents.registry import make_agent
from benchmarks import RESULTS, write_results
from benchmarks.env_speed import pick_batched
from patience_gym.vector import batched_game_class

#: env id -> rule-option sets checked besides the defaults
OPTIONS: dict[str, list[dict[str, bool]]] = {
    "patience_gym/Golf-v0": [{"queens_on_kings": True}, {"wrap_ranks": True}],
    "patience_gym/GolfRound-v0": [{"wrap_ranks": True}],
    "patience_gym/PussInTheCorner-v0": [{"forced_foundation": False, "sevens_after_placing": True}],
    "patience_gym/MissMilligan-v0": [{"waive_sequences": True}],
    "patience_gym/Giant-v0": [{"worry_back_anytime": True}],
    "patience_gym/MissMilliganPocket-v0": [],
}


@dataclasses.dataclass
class Tally:
    """Episodes and steps checked, and the violations found (with a first example)."""

    episodes: int = 0
    steps: int = 0
    violations: int = 0
    example: str = ""
    seconds: float = 0.0

    def fail(self, what: str) -> None:
        self.violations += 1
        self.example = self.example or what


def expected_return(env_id: str, lower_is_better: bool, first: float, last: float, holes: int) -> float:
    """The return an episode must have, given its first and last scores."""
    if holes > 1:  # a round: each hole's 35 links join the score when the hole is dealt
        return 35.0 * holes - last
    return first - last if lower_is_better else last - first


def random_episodes(env_id: str, kwargs: dict[str, Any], episodes: int, seed: int, n: int = 1024) -> Tally:
    """``episodes`` masked-random games on the batched engine, every step checked."""
    tally = Tally()
    engine = batched_game_class(env_id)(n, **kwargs)
    space = engine.single_observation_space
    limit = patience_gym.ENVS[env_id][1]
    lower = bool(gym.make(env_id, **kwargs).unwrapped.game.lower_score_is_better)  # type: ignore[attr-defined]
    holes_of = "hole" in engine.infos()
    engine.seed([seed + i for i in range(n)])
    engine.reset(np.ones(n, dtype=bool))
    rng = np.random.default_rng(seed)
    first = engine.scores().copy()
    returns = np.zeros(n)
    lengths = np.zeros(n, dtype=np.int64)
    started = n
    live = np.ones(n, dtype=bool)
    start = time.perf_counter()
    while live.any():
        masks = engine.masks()
        obs = engine.observe()
        legal = np.asarray(masks.any(axis=1))
        if not legal[live].all():
            tally.fail(f"{env_id} {kwargs}: an all-False mask while live")
        if obs.dtype != space.dtype or (obs < space.low).any() or (obs > space.high).any():
            tally.fail(f"{env_id} {kwargs}: an observation outside the space")
        actions = pick_batched(masks, rng.random(n))
        rewards, terminated, illegal = engine.step(actions)
        tally.steps += int(live.sum())
        if illegal[live].any():
            tally.fail(f"{env_id} {kwargs}: a legal action was refused")
        returns += np.where(live, rewards, 0.0)
        lengths += live
        done = terminated & live
        if (lengths[live] > limit).any():
            tally.fail(f"{env_id} {kwargs}: an episode passed {limit} steps")
        if done.any():
            scores = engine.scores()
            holes = engine.infos()["hole"] if holes_of else np.ones(n, dtype=np.int64)
            for e in np.flatnonzero(done):
                want = expected_return(env_id, lower, first[e], scores[e], int(holes[e]))
                if abs(returns[e] - want) > 1e-9:
                    tally.fail(f"{env_id} {kwargs}: return {returns[e]} but the score says {want}")
                if engine.masks()[e].any():
                    tally.fail(f"{env_id} {kwargs}: a legal move after the end")
            tally.episodes += int(done.sum())
            again = done & (started < episodes)
            live &= ~done
            if again.any():
                engine.reset(again)
                started += int(again.sum())
                first[again] = engine.scores()[again]
                returns[again] = 0.0
                lengths[again] = 0
                live |= again
    tally.seconds = time.perf_counter() - start
    return tally


def stalling_action(env: Any, mask: np.ndarray, rng: np.random.Generator) -> int:
    """A legal move that leaves the score where it is, when there is one (to push the progress rule)."""
    legal = np.flatnonzero(mask)
    score = env.game.score(env.state)
    quiet = []
    for a in rng.permutation(legal)[:8]:
        trial = env.state.copy()
        env.game.apply(trial, int(a))
        if env.game.score(trial) == score:
            quiet.append(int(a))
    return quiet[0] if quiet else int(rng.choice(legal))


def env_episodes(env_id: str, kwargs: dict[str, Any], episodes: int, seed: int, policy: str) -> Tally:
    """``episodes`` games of the greedy or the stalling policy on the single env, every step checked."""
    tally = Tally()
    env = gym.make(env_id, **kwargs)
    unwrapped: Any = env.unwrapped
    lower = bool(unwrapped.game.lower_score_is_better)
    agent = make_agent("greedy", unwrapped.game.name, seed=seed) if policy == "greedy" else None
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for i in range(episodes):
        obs, info = env.reset(seed=seed + i)
        if agent is not None:
            agent.reset(seed + i)
        first, total, done, truncated = info["score"], 0.0, False, False
        while not done:
            mask = info["action_mask"].astype(bool)
            if not mask.any():
                tally.fail(f"{env_id} {kwargs} {policy}: an all-False mask while live")
                break
            action = agent.act(unwrapped, obs, mask) if agent is not None else stalling_action(unwrapped, mask, rng)
            obs, reward, done, truncated, info = env.step(action)
            total += float(reward)
            tally.steps += 1
            if info["illegal_action"]:
                tally.fail(f"{env_id} {kwargs} {policy}: the policy's legal move was refused")
            if not env.observation_space.contains(obs):
                tally.fail(f"{env_id} {kwargs} {policy}: an observation outside the space")
            if truncated:
                tally.fail(f"{env_id} {kwargs} {policy}: truncated by the step limit")
                break
        holes = len(info.get("hole_scores", [])) or 1
        if done and abs(total - expected_return(env_id, lower, first, info["score"], holes)) > 1e-9:
            tally.fail(f"{env_id} {kwargs} {policy}: return {total} does not match the score")
        tally.episodes += 1
    tally.seconds = time.perf_counter() - start
    return tally


def rule_sets(env_id: str) -> Iterator[dict[str, bool]]:
    yield {}
    yield from OPTIONS.get(env_id, [])


def to_markdown(rows: list[dict[str, Any]], command: str) -> str:
    lines = [
        f"Invariants checked at every step (`{command}`).",
        "",
        "| env | rule options | policy | episodes | steps | violations | seconds |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        options = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "defaults"
        lines.append(
            f"| {r['env'].split('/')[-1]} | {options} | {r['policy']} | {r['episodes']:,} | {r['steps']:,} | "
            f"{r['violations']} | {r['seconds']:.0f} |"
        )
    bad = [r for r in rows if r["violations"]]
    lines += ["", f"First violation: {bad[0]['example']}" if bad else "No violation found."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--random", type=int, default=1_000_000, help="masked-random episodes per env and rule set")
    parser.add_argument("--greedy", type=int, default=10_000, help="greedy episodes per env (default rules)")
    parser.add_argument("--stalling", type=int, default=10_000, help="stalling episodes per env (default rules)")
    parser.add_argument("--env", nargs="*", default=list(OPTIONS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    rows = []
    for env_id in args.env:
        plans = [("random", opts, args.random) for opts in rule_sets(env_id)]
        plans += [("greedy", {}, args.greedy), ("stalling", {}, args.stalling)]
        for policy, opts, count in plans:
            if count < 1:
                continue
            if policy == "random":
                tally = random_episodes(env_id, opts, count, args.seed)
            else:
                tally = env_episodes(env_id, opts, count, args.seed, policy)
            row = {"env": env_id, "options": opts, "policy": policy, **dataclasses.asdict(tally)}
            print(f"{env_id} {opts} {policy}: {tally.episodes} episodes, {tally.violations} violations")
            rows.append(row)
    command = "python -m benchmarks.invariants " + " ".join(argv if argv is not None else [])
    write_results("invariants", {"rows": rows}, to_markdown(rows, command.strip()), args.out)
    return rows


if __name__ == "__main__":
    main()

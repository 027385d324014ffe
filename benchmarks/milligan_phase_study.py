"""Study (issue 34; deleted after its commit): where a Miss Milligan student loses, before or after the stock runs out.

    python -m benchmarks.milligan_phase_study handover ENV OPENING ENDING FIRST N
        # agent OPENING while cards are in the stock, agent ENDING once it is out (both agent specs,
        # e.g. ppo:run/model.zip, greedy, planner:top=0); seeds FIRST..FIRST+N-1; prints mean, won
    python -m benchmarks.milligan_phase_study label ENV STUDENT FIRST N NODES OUT.npz [keep]
        # DAgger's data: the saved model STUDENT plays seeds FIRST..FIRST+N-1, each position labelled as the
        # teacher planner:top=0 would play it (see label(); NODES: the solver's budget); rows kept in OUT.npz
    python -m benchmarks.milligan_phase_study fit STUDENT EPOCHS LR OUT.zip ROWS.npz...
        # STUDENT fitted on those rows alone (agents.training.imitation.fit, batches of 512), saved to OUT.zip

Every env is made with ``obs_encoding="rules_moves"``. The runs quoted in the research notes (section 15),
STUDENT the final model of ``configs/miss_milligan.yaml`` as committed in 9e973b7 (its run, section 14):
``handover`` on MissMilligan-v0, seeds 0-199, of the student, the greedy and planner:top=0 in each part;
``label`` at 20,000 positions on seeds 2,001,000-2,001,149 (two processes of 75), then ``fit`` for 4 epochs
at 3e-4, and with ``keep`` on seeds 2,001,000-2,001,099 (two of 50), the same fit; then ``handover`` of
each fitted student.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.registry import make_agent

ENCODING: dict[str, Any] = {"obs_encoding": "rules_moves"}


def handover(env_id: str, opening: str, ending: str, first: int, n: int) -> None:
    env = gym.make(env_id, **ENCODING)
    game = env.unwrapped.game.name  # type: ignore[attr-defined]
    a = make_agent(opening, game, env_id=env_id, env_kwargs=ENCODING)
    b = a if ending == opening else make_agent(ending, game, env_id=env_id, env_kwargs=ENCODING)
    scores, wins = [], []
    start = time.perf_counter()
    for seed in range(first, first + n):
        obs, info = env.reset(seed=seed)
        a.reset(seed=seed)
        b.reset(seed=seed)
        done, total = False, 0.0
        while not done:
            agent = a if env.unwrapped.state.stock_left > 0 else b  # type: ignore[attr-defined]
            obs, reward, terminated, truncated, info = env.step(agent.act(env.unwrapped, obs, info["action_mask"]))  # type: ignore[arg-type]
            total += float(reward)
            done = terminated or truncated
        scores.append(total)
        wins.append(bool(info["won"]))
    seconds = (time.perf_counter() - start) / n
    print(f"{opening} -> {ending}: mean {np.mean(scores):.2f} won {np.mean(wins):.3f} n {n} s/game {seconds:.2f}")
    print("scores", [int(s) for s in scores])


def label(env_id: str, student: str, first: int, n: int, nodes: int, out: str, keep: bool) -> None:
    """The student plays; each position is labelled by the teacher ``planner:top=0`` would be, cheaply:
    while the stock lasts the greedy's move (the planner's own choice with no other candidate), once it is out
    the first move of the solver's winning line (solved again only when the student leaves the line) or,
    once a solve finds no win, the greedy's move for the rest of the game. With ``keep`` the student's own
    move is the label wherever the solver finds a win after it (any move that keeps the win is right)."""
    from agents.baselines.greedy_milligan import MilliganGreedy
    from agents.solvers.milligan import solve

    env = gym.make(env_id, **ENCODING)
    game_name = env.unwrapped.game.name  # type: ignore[attr-defined]
    pupil = make_agent(student, game_name, env_id=env_id, env_kwargs=ENCODING)
    opening = make_agent("planner:top=0", game_name)
    greedy = MilliganGreedy()
    obs_rows, masks, labels, returns, scores, agree = [], [], [], [], [], []
    start = time.perf_counter()
    for seed in range(first, first + n):
        obs, info = env.reset(seed=seed)
        pupil.reset(seed=seed)
        opening.reset(seed=seed)
        greedy.reset()
        line: list[int] | None = None
        failed = False
        rewards = []
        done = False
        while not done:
            game, state = env.unwrapped.game, env.unwrapped.state  # type: ignore[attr-defined]
            mask = info["action_mask"]
            if state.stock_left > 0:
                teacher = opening.act(env.unwrapped, obs, mask)  # type: ignore[arg-type]
            else:
                if line is None and not failed:
                    found = solve(game, state, max_nodes=nodes)
                    line, failed = (list(found.moves), False) if found.verdict == "won" else (None, True)
                teacher = line[0] if line else greedy.choose(game, state, game.legal_mask(state))
            action = pupil.act(env.unwrapped, obs, mask)  # type: ignore[arg-type]
            if line and action != line[0] and keep:  # the student's move is the label if it keeps the win
                child = state.copy()
                game.apply(child, action)
                found = solve(game, child, max_nodes=nodes)
                if found.verdict == "won":
                    teacher, line = action, [action, *found.moves]
            if line:
                line = line[1:] if action == line[0] else None
            obs_rows.append(np.asarray(obs, np.float32))
            masks.append(np.asarray(mask, bool))
            labels.append(teacher)
            agree.append(action == teacher)
            obs, reward, terminated, truncated, info = env.step(action)
            rewards.append(float(reward))
            done = terminated or truncated
        running, back = 0.0, []
        for r in reversed(rewards):
            running = r + 0.999 * running
            back.append(running)
        returns += back[::-1]
        scores.append(sum(rewards))
    np.savez(out, obs=np.stack(obs_rows), masks=np.stack(masks), actions=np.array(labels), returns=np.array(returns))
    print(
        f"{n} games, {len(labels)} rows: student mean {np.mean(scores):.2f}, agreement {np.mean(agree):.3f},"
        f" {time.perf_counter() - start:.0f} s"
    )


def fit_student(student: str, epochs: int, lr: float, out: str, files: list[str]) -> None:
    from sb3_contrib import MaskablePPO

    from agents.training.imitation import Demonstrations, fit

    parts = [np.load(f) for f in files]
    demos = Demonstrations(
        obs=np.concatenate([p["obs"] for p in parts]),
        masks=np.concatenate([p["masks"] for p in parts]),
        actions=np.concatenate([p["actions"] for p in parts]),
        returns=np.concatenate([p["returns"] for p in parts]).astype(np.float32),
        episode_scores=[],
        seconds=0.0,
    )
    model = MaskablePPO.load(student, device="cpu")
    start = time.perf_counter()
    for epoch in fit(model, demos, epochs=epochs, batch_size=512, learning_rate=lr, value_coef=0.5):
        print(epoch)
    print(f"fit on {len(demos)} rows: {time.perf_counter() - start:.0f} s")
    model.save(out)


if __name__ == "__main__":
    what, args = sys.argv[1], sys.argv[2:]
    if what == "handover":
        handover(args[0], args[1], args[2], int(args[3]), int(args[4]))
    elif what == "label":
        label(args[0], args[1], int(args[2]), int(args[3]), int(args[4]), args[5], len(args) > 6 and args[6] == "keep")
    else:
        fit_student(args[0], int(args[1]), float(args[2]), args[3], args[4:])

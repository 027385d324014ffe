"""Terminal play, driven by scripted input: moves by number and notation, undo, hints, bad input, the record."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym
from agents.registry import make_agent
from patience_gym.play import default_record_path, main
from patience_gym.records import load_record

ENV_IDS = list(patience_gym.ENVS)
ROOT = Path(__file__).resolve().parents[1]


def _play(argv: list[str], script: str) -> str:
    out = io.StringIO()
    assert main(argv, stdin=io.StringIO(script), stdout=out) == 0
    return out.getvalue()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_scripted_session(env_id: str, tmp_path: Path) -> None:
    seed = 5
    env = gym.make(env_id)
    obs, info = env.reset(seed=seed)
    game_env: Any = env.unwrapped
    legal = [int(a) for a in np.flatnonzero(info["action_mask"])]
    greedy = make_agent("greedy", game_env.game.name, seed=seed)
    hint = game_env.describe_action(greedy.act(game_env, obs, info["action_mask"].astype(bool)))
    chosen = game_env.describe_action(legal[-1])
    script = "\n".join(["?", "u", "bogus", "99", "h", "1", "u", chosen] + ["1"] * 12 + ["q"]) + "\n"
    path = tmp_path / "game.json"
    text = _play([env_id, "--seed", str(seed), "--record-out", str(path)], script)
    assert "u = undo the last move" in text
    assert "nothing to undo" in text
    assert "unknown move 'bogus'" in text
    assert f"there is no move 99; choose 1..{len(legal)}" in text
    assert f"hint (greedy): {hint} (move " in text
    assert f"played {game_env.describe_action(legal[0])}" in text
    assert "undone" in text
    assert f"record saved to {path}" in text
    record = load_record(path, env_id=env_id)  # replays and checks every move
    assert record.agent == "human" and record.seed == seed
    assert record.moves[0] == chosen  # the undone move is gone
    assert record.initial_state == game_env.state_dict()
    # After the chosen move, each "1" played the first legal move: replay that and compare.
    env.step(legal[-1])
    expected = [chosen]
    for _ in range(12):
        if game_env.game.is_over(game_env.state):
            break
        action = int(np.flatnonzero(game_env.action_masks())[0])
        expected.append(game_env.describe_action(action))
        env.step(action)
    assert record.moves == expected
    assert record.final_score == game_env.game.score(game_env.state)


def test_a_whole_game_by_notation_ends_and_saves(tmp_path: Path) -> None:
    env = gym.make("patience_gym/Golf-v0")
    _, info = env.reset(seed=3)
    game_env: Any = env.unwrapped
    moves = []
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[-1])
        moves.append(game_env.describe_action(action))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    path = tmp_path / "full.json"
    text = _play(["patience_gym/Golf-v0", "--seed", "3", "--record-out", str(path)], "\n".join(moves) + "\n")
    score = game_env.game.score(game_env.state)
    assert f"score {score:g} after {len(moves)} moves" in text
    assert "move> " in text and text.count("played ") == len(moves)
    record = load_record(path)
    assert record.moves == moves and record.terminated and record.final_score == score


def test_illegal_notation_and_end_of_input(tmp_path: Path) -> None:
    env = gym.make("patience_gym/Golf-v0")
    _, info = env.reset(seed=3)
    game_env: Any = env.unwrapped
    illegal = game_env.describe_action(int(np.flatnonzero(~info["action_mask"].astype(bool))[0]))
    path = tmp_path / "g.json"
    text = _play(["patience_gym/Golf-v0", "--seed", "3", "--record-out", str(path)], f"{illegal}\n")
    assert f"'{illegal}' is not legal now; legal: " in text
    assert "(end of input)" in text
    assert load_record(path).moves == []


def test_hint_without_agents_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "agents.registry", None)  # makes the import fail
    text = _play(["patience_gym/Golf-v0", "--seed", "1", "--record-out", str(tmp_path / "g.json")], "h\nq\n")
    assert "hints need the agents package" in text


def test_bad_command_lines_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["patience_gym/Klondike-v0"], stdin=io.StringIO(""), stdout=io.StringIO())
    assert "unknown env 'patience_gym/Klondike-v0'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["patience_gym/Golf-v0", "--env-kwargs", '{"wrap": true}'], stdin=io.StringIO(""), stdout=io.StringIO())
    assert "unknown option 'wrap'" in capsys.readouterr().err


def test_default_record_path_never_overwrites(tmp_path: Path) -> None:
    first = default_record_path("patience_gym/Golf-v0", 3, tmp_path)
    assert first.name == "Golf-v0-seed3.json"
    first.write_text("{}")
    assert default_record_path("patience_gym/Golf-v0", 3, tmp_path).name == "Golf-v0-seed3-2.json"


def test_command_line_run_saves_in_the_current_folder(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "patience_gym.play", "patience_gym/Golf-v0", "--seed", "3"],
        input="1\nq\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "record saved to Golf-v0-seed3.json" in done.stdout
    assert len(load_record(tmp_path / "Golf-v0-seed3.json").moves) == 1
    # patience_gym.play does not import agents until a hint is asked for.
    probe = "import sys, patience_gym.play; print('agents' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == "False"

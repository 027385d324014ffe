"""Terminal play, driven by scripted input: moves by number and notation, undo, hints, bad input, the record."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym
from agents.evaluation import play as agents_play
from agents.registry import make_agent
from patience_gym.play import Session, default_record_path, main
from patience_gym.records import load_record

ENV_IDS = list(patience_gym.ENVS)
ROOT = Path(__file__).resolve().parents[2]


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


def test_plain_play_hints_without_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default hint is the library's greedy heuristic: no agents package needed."""
    monkeypatch.setitem(sys.modules, "agents.registry", None)  # any import of it would fail
    text = _play(["patience_gym/Golf-v0", "--seed", "1", "--record-out", str(tmp_path / "g.json")], "h\nq\n")
    assert "hint (greedy): " in text


def test_a_hint_is_a_callable_passed_in() -> None:
    """Session takes any hint ``(env, obs, mask) -> action``; one that fails says why, and play goes on."""
    seen: list[Any] = []

    def last_legal(env: Any, obs: np.ndarray, mask: np.ndarray) -> int:
        seen.append(env)
        return int(np.flatnonzero(mask)[-1])

    session = Session("patience_gym/PussInTheCorner-v0", {}, 4, hint=last_legal, hint_name="last")
    assert session.hint() == session.legal[-1] and seen == [session.game_env]

    def no_hint(env: Any, obs: np.ndarray, mask: np.ndarray) -> int:
        raise ValueError("nothing to suggest")

    out = io.StringIO()
    from patience_gym.play import run

    run(Session("patience_gym/Golf-v0", {}, 4, hint=no_hint), io.StringIO("h\n1\nq\n"), out)
    assert "no hint: nothing to suggest" in out.getvalue() and "played " in out.getvalue()


def test_plain_play_sends_agent_hints_to_the_agents_floor(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["patience_gym/Golf-v0", "--hint-agent", "planner", "--record-out", str(tmp_path / "g.json")]
    assert "--hint-agent planner: agent hints come from the agents: python -m agents.evaluation.play" in _refused(
        argv, capsys
    )


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
    # patience_gym.play never imports agents, hints included.
    probe = (
        "import io, sys, patience_gym.play as p; "
        "p.run(p.Session('patience_gym/Golf-v0', {}, 1), io.StringIO('h\\n'), io.StringIO()); "
        "print('agents' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == "False"


GOLF_MODEL = ROOT / "models" / "golf_rules.zip"


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], entry: Any = main) -> str:
    """The one line of stderr of a command line refused with exit status 2 before any game is shown."""
    out = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        entry(argv, stdin=io.StringIO("1\nq\n"), stdout=out)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert out.getvalue() == ""  # no board, no game
    return err


def test_bad_seeds_hint_agents_and_record_paths_are_refused_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = ["--record-out", str(tmp_path / "g.json")]
    assert "--seed must be 0 or more, got -1" in _refused(["patience_gym/Golf-v0", "--seed", "-1", *record], capsys)
    hints = agents_play.main  # agent hints: python -m agents.evaluation.play
    argv = ["patience_gym/Golf-v0", "--seed", "1", "--hint-agent", "ppo:/nonexistent.zip", *record]
    err = _refused(argv, capsys, hints)
    assert "--hint-agent ppo:/nonexistent.zip: no PPO model at /nonexistent.zip" in err
    err = _refused(["patience_gym/PussInTheCorner-v0", "--hint-agent", f"ppo:{GOLF_MODEL}", *record], capsys, hints)
    assert "was trained on patience_gym/Golf-v0" in err
    assert "--hint-agent smart: unknown agent 'smart'" in _refused(
        ["patience_gym/Golf-v0", "--hint-agent", "smart"], capsys, hints
    )
    err = _refused(["patience_gym/Golf-v0", "--seed", "-1", *record], capsys, hints)
    assert "--seed must be 0 or more, got -1" in err
    err = _refused(["patience_gym/Golf-v0", "--seed", "1", "--record-out", str(tmp_path)], capsys)
    assert f"--record-out {tmp_path} is a directory; give the record's file name" in err
    (tmp_path / "file").write_text("")
    err = _refused(["patience_gym/Golf-v0", "--record-out", str(tmp_path / "file" / "g.json")], capsys)
    assert f"{tmp_path / 'file'} is a file, not a folder" in err
    assert not (tmp_path / "g.json").exists()


def test_a_ppo_model_gives_hints_for_its_own_game(tmp_path: Path) -> None:
    argv = ["patience_gym/Golf-v0", "--seed", "2", "--env-kwargs", '{"obs_encoding": "rules_moves"}']
    out = io.StringIO()
    argv += ["--hint-agent", f"ppo:{GOLF_MODEL}", "--record-out", str(tmp_path / "g.json")]
    assert agents_play.main(argv, stdin=io.StringIO("h\nq\n"), stdout=out) == 0
    assert f"hint (ppo:{GOLF_MODEL}): " in out.getvalue()


def test_agent_hints_match_the_agent(tmp_path: Path) -> None:
    """``python -m agents.evaluation.play --hint-agent planner`` hints the planner's move (reset to the deal's seed)."""
    env = gym.make("patience_gym/MissMilligan-v0")
    obs, info = env.reset(seed=6)
    planner = make_agent("planner", "miss_milligan", seed=6)
    planner.reset(6)
    move = env.unwrapped.describe_action(planner.act(env.unwrapped, obs, info["action_mask"].astype(bool)))
    out = io.StringIO()
    argv = ["patience_gym/MissMilligan-v0", "--seed", "6", "--hint-agent", "planner"]
    assert agents_play.main([*argv, "--record-out", str(tmp_path / "g.json")], io.StringIO("h\nq\n"), out) == 0
    assert f"hint (planner): {move} (move " in out.getvalue()


def test_a_record_that_cannot_be_written_is_saved_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The path was fine at start-up but writing fails at the end: the game is kept, and the player told where."""
    from patience_gym import play

    wanted = tmp_path / "full" / "g.json"
    real_save = play.save_record

    def failing_save(record: Any, path: Any) -> Path:
        if Path(path) == wanted:
            raise OSError(28, "No space left on device")
        return real_save(record, path)

    monkeypatch.setattr(play, "save_record", failing_save)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    assert main(["patience_gym/Golf-v0", "--seed", "3", "--record-out", str(wanted)], io.StringIO("1\nq\n"), out) == 1
    err = capsys.readouterr().err
    assert f"could not save the record to {wanted}" in err and "No space left on device" in err
    assert "saved it to Golf-v0-seed3.json instead" in err
    assert len(load_record(tmp_path / "Golf-v0-seed3.json").moves) == 1
    # Where nothing can be written at all, the record is printed, to be copied.
    monkeypatch.setattr(play, "save_record", lambda record, path: (_ for _ in ()).throw(PermissionError(13, "denied")))
    assert main(["patience_gym/Golf-v0", "--seed", "3", "--record-out", str(wanted)], io.StringIO("1\nq\n"), out) == 1
    first, printed = capsys.readouterr().err.strip().splitlines()
    assert first.endswith("nor anywhere else; here it is:") and json.loads(printed)["seed"] == 3

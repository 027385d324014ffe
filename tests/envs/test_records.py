"""Game records: every env's games round-trip through a file and replay step for step; bad records are named."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym
from agents.registry import make_agent
from patience_gym.records import (
    FORMAT_VERSION,
    GameRecord,
    RecordEpisodes,
    RecordError,
    check_record_files,
    check_rules,
    load_record,
    record_episode,
    record_file_name,
    replay,
    save_record,
)

ENV_IDS = list(patience_gym.ENVS)


def _play(env: gym.Env[Any, Any], spec: str, seed: int) -> tuple[list[Any], list[float], list[dict[str, Any]]]:
    """Play ``spec`` on ``seed``; the observations after each move, the rewards and the infos."""
    game_env: Any = env.unwrapped
    agent = make_agent(spec, game_env.game.name, seed=seed)
    obs, info = env.reset(seed=seed)
    agent.reset(seed)
    observations, rewards, infos = [], [], []
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(game_env, obs, info["action_mask"].astype(bool)))
        observations.append(obs)
        rewards.append(float(reward))
        infos.append(info)
        done = terminated or truncated
    return observations, rewards, infos


@pytest.mark.parametrize("spec", ["random", "greedy"])
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_round_trip_replays_every_step(env_id: str, spec: str, tmp_path: Path) -> None:
    env = RecordEpisodes(gym.make(env_id), agent=spec)
    observations, rewards, infos = _play(env, spec, seed=11)
    record = env.record
    assert record is not None and record.agent == spec and record.seed == 11
    assert record.library_version == patience_gym.__version__
    assert len(record.moves) == len(rewards)
    assert record.final_score == infos[-1]["score"]
    loaded = load_record(save_record(record, tmp_path / "game.json"), env_id=env_id)
    assert loaded == record
    steps = list(replay(loaded))
    assert [s[1] for s in steps] == rewards
    assert all(np.array_equal(s[0], o) for s, o in zip(steps, observations, strict=True))
    assert [s[4]["score"] for s in steps] == [i["score"] for i in infos]
    assert steps[-1][2] or steps[-1][3]


def test_rule_options_and_encodings_travel_with_the_record(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {"queens_on_kings": True, "obs_encoding": "planes"}
    record = record_episode("patience_gym/Golf-v0", make_agent("greedy", "golf"), seed=4, env_kwargs=kwargs)
    assert record.env_kwargs == kwargs
    env = gym.make("patience_gym/Golf-v0", **kwargs)
    observations, rewards, _ = _play(env, "greedy", seed=4)
    steps = list(replay(load_record(save_record(record, tmp_path / "r.json"))))
    assert [s[1] for s in steps] == rewards
    assert all(np.array_equal(s[0], o) for s, o in zip(steps, observations, strict=True))
    assert steps[0][0].dtype == np.float32  # the planes, not the default ids


def test_recorder_writes_one_file_per_episode(tmp_path: Path) -> None:
    env = RecordEpisodes(gym.make("patience_gym/Golf-v0"), agent="ppo:runs/model.zip", directory=tmp_path)
    for seed in (1, 2):
        _play(env, "greedy", seed)
    names = sorted(p.name for p in env.paths)
    assert names == ["Golf-v0-ppo-runs-model.zip-seed1.json", "Golf-v0-ppo-runs-model.zip-seed2.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    assert load_record(tmp_path / names[1]).seed == 2


def test_illegal_attempts_are_not_moves() -> None:
    env = RecordEpisodes(gym.make("patience_gym/Golf-v0"))
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"].astype(bool))[0])
    legal = int(np.flatnonzero(info["action_mask"])[0])
    env.step(illegal)
    env.step(legal)
    assert env.record is not None and env.record.moves == [env.unwrapped.describe_action(legal)]  # type: ignore[attr-defined]


def test_replay_refuses_an_env_of_other_rules_or_another_id() -> None:
    greedy = make_agent("greedy", "golf")
    for seed in range(20):  # under the other rules many of these games replay move for move
        record = record_episode("patience_gym/Golf-v0", greedy, seed)
        for kwargs in ({"wrap_ranks": True}, {"queens_on_kings": True}):
            name = next(iter(kwargs))
            with pytest.raises(RecordError, match=f"by other rules than the record's: {name}=False in the record, "):
                list(replay(record, env=gym.make("patience_gym/Golf-v0", **kwargs)))
    with pytest.raises(
        RecordError, match="record is for env patience_gym/Golf-v0, but the env given is .*GolfRound-v0"
    ):
        next(replay(record, env=gym.make("patience_gym/GolfRound-v0")))
    from patience_gym.envs.golf import GolfEnv

    both = "queens_on_kings=False in the record, True in the env; wrap_ranks=False in the record, True in the env"
    with pytest.raises(RecordError, match=both):  # an env not made by gym.make, by its rules
        check_rules(record, GolfEnv(wrap_ranks=True, queens_on_kings=True))
    with pytest.raises(
        RecordError, match="'wrap_rank' is neither an argument of .*Golf-v0 nor one of its rule options"
    ):
        check_rules(dataclasses.replace(record, env_kwargs={"wrap_rank": True}), GolfEnv())
    with pytest.raises(RecordError, match="option 'wrap_ranks' for golf must be True or False, got 1"):
        check_rules(dataclasses.replace(record, env_kwargs={"wrap_ranks": 1}), GolfEnv())


def test_replay_takes_an_env_of_the_same_rules_with_other_observations() -> None:
    kwargs: dict[str, Any] = {"queens_on_kings": True}
    record = record_episode("patience_gym/Golf-v0", make_agent("greedy", "golf"), seed=5, env_kwargs=kwargs)
    rewards = [s[1] for s in replay(record)]
    from patience_gym.envs.golf import GolfEnv

    for env in (
        gym.make("patience_gym/Golf-v0", queens_on_kings=True, obs_encoding="planes", render_mode="ansi"),
        gym.make("patience_gym/Golf-v0", queens_on_kings=True, wrap_ranks=False, illegal_action="raise"),
        GolfEnv(queens_on_kings=True),
    ):
        assert [s[1] for s in replay(record, env=env)] == rewards
    default = record_episode("patience_gym/Golf-v0", make_agent("greedy", "golf"), seed=5)
    assert len(list(replay(default, env=gym.make("patience_gym/Golf-v0", queens_on_kings=False)))) == len(default.moves)


def test_recorder_never_writes_over_a_record_and_refuses_before_the_game(tmp_path: Path) -> None:
    golf = RecordEpisodes(gym.make("patience_gym/Golf-v0"), agent="greedy", directory=tmp_path)
    _play(golf, "greedy", seed=0)
    path = tmp_path / "Golf-v0-greedy-seed0.json"
    first = path.read_text()
    for env in (  # other rules, the same file name; or the same wrapper on the same seed again
        RecordEpisodes(gym.make("patience_gym/Golf-v0", wrap_ranks=True), agent="greedy", directory=tmp_path),
        golf,
    ):
        with pytest.raises(FileExistsError, match=f"{path} already exists: RecordEpisodes does not write a game"):
            env.reset(seed=0)
    assert path.read_text() == first and golf.paths == [path]
    fresh = RecordEpisodes(gym.make("patience_gym/Golf-v0", wrap_ranks=True), agent="greedy", directory=tmp_path)
    with pytest.raises(FileExistsError):
        fresh.reset(seed=0)
    assert fresh.record is None and fresh.unwrapped.state is None  # type: ignore[attr-defined]  # nothing dealt
    unseeded = [RecordEpisodes(gym.make("patience_gym/Golf-v0"), directory=tmp_path / "u") for _ in range(2)]
    _play(unseeded[0], "random", seed=None)  # type: ignore[arg-type]
    with pytest.raises(FileExistsError, match="Golf-v0-agent-episode1.json already exists"):
        unseeded[1].reset()


def test_save_record_without_overwrite_leaves_the_file(tmp_path: Path) -> None:
    record = record_episode("patience_gym/Golf-v0", make_agent("greedy", "golf"), seed=1)
    path = tmp_path / "game.json"
    path.write_text("keep me")
    with pytest.raises(FileExistsError, match="game.json already exists; a game record is not written over it"):
        save_record(record, path, overwrite=False)
    assert path.read_text() == "keep me"
    assert load_record(save_record(record, path)) == record  # overwriting is still the default


def test_a_run_whose_record_files_collide_or_exist_is_refused_up_front(tmp_path: Path) -> None:
    golf = "patience_gym/Golf-v0"
    assert record_file_name(golf, "ppo:runs/model.zip", 3) == "Golf-v0-ppo-runs-model.zip-seed3.json"
    assert record_file_name(golf, None, None, episode=2) == "Golf-v0-agent-episode2.json"
    check_record_files(tmp_path / "new", golf, ["random", "greedy"], range(5))  # nothing there yet
    with pytest.raises(ValueError, match=r"seed 2 is given twice: both its games would write the record .*seed2\.json"):
        check_record_files(tmp_path, golf, ["random"], [1, 2, 3, 2])
    with pytest.raises(ValueError, match=r"agents 'ppo:a b' and 'ppo:a-b' would write the same record files"):
        check_record_files(tmp_path, golf, ["ppo:a b", "ppo:a-b"], [0])
    for seed in (3, 4):
        (tmp_path / record_file_name(golf, "greedy", seed)).write_text("kept")
    check_record_files(tmp_path, golf, ["random"], range(10))  # another agent's files
    with pytest.raises(FileExistsError, match=r"greedy-seed3\.json already exists \(and 1 more of this run's record"):
        check_record_files(tmp_path, golf, ["random", "greedy"], range(10))


def _golf_record(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    record = record_episode("patience_gym/Golf-v0", make_agent("greedy", "golf"), seed=3)
    path = save_record(record, tmp_path / "game.json")
    return json.loads(path.read_text()), path


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_corrupt_file_is_named(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    path.write_text(path.read_text()[:-20])
    with pytest.raises(RecordError, match=r"game\.json is not a valid JSON game record"):
        load_record(path)
    with pytest.raises(RecordError, match="no game record at"):
        load_record(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="must be a JSON object"):
        load_record(_write(path, [1, 2]))


def test_wrong_format_version_and_keys(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    with pytest.raises(RecordError, match=f"format version 99 is not readable.*reads format version {FORMAT_VERSION}"):
        load_record(_write(path, {**data, "format_version": 99}))
    with pytest.raises(RecordError, match="unknown key.*: comment"):
        load_record(_write(path, {**data, "comment": "nice game"}))
    without = {k: v for k, v in data.items() if k != "moves"}
    with pytest.raises(RecordError, match="lacks moves"):
        load_record(_write(path, without))
    with pytest.raises(RecordError, match="has 43 moves but 42 rewards"):
        load_record(_write(path, {**data, "rewards": data["rewards"][:-1]}))
    with pytest.raises(RecordError, match="'seed' must be int"):
        load_record(_write(path, {**data, "seed": "three"}))
    with pytest.raises(RecordError, match="not a patience_gym game record"):
        load_record(_write(path, {**data, "format": "pgn"}))


def test_other_env_or_version_is_refused(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    with pytest.raises(
        RecordError, match="Golf-v9, but patience_gym .* has only patience_gym/Golf-v0: another version"
    ):
        load_record(_write(path, {**data, "env_id": "patience_gym/Golf-v9"}))
    with pytest.raises(RecordError, match="Klondike-v0, which is not registered"):
        load_record(_write(path, {**data, "env_id": "patience_gym/Klondike-v0"}))
    path = _write(path, data)
    with pytest.raises(RecordError, match="record is for env patience_gym/Golf-v0, not patience_gym/GolfRound-v0"):
        load_record(path, env_id="patience_gym/GolfRound-v0")


def test_bad_moves_are_named_by_number_and_text(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    moves = list(data["moves"])
    moves[4] = "c9>w"
    with pytest.raises(RecordError, match=r"move 5 'c9>w' is unknown"):
        load_record(_write(path, {**data, "moves": moves}))
    # The first move where some column may not be played: name it, with the legal moves.
    env = gym.make("patience_gym/Golf-v0")
    _, info = env.reset(options={"state": data["initial_state"]})
    game_env: Any = env.unwrapped
    n = 0
    while not (illegal := [a for a in range(7) if not info["action_mask"][a]]):
        _, _, _, _, info = env.step(game_env.action_from_description(data["moves"][n]))
        n += 1
    bad = game_env.describe_action(illegal[0])
    moves = list(data["moves"])
    moves[n] = bad
    with pytest.raises(RecordError, match=rf"move {n + 1} '{bad}' is illegal in that position; the legal moves were"):
        load_record(_write(path, {**data, "moves": moves}))


def test_wrong_rewards_and_endings_are_named(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    rewards = list(data["rewards"])
    rewards[2] += 5
    with pytest.raises(RecordError, match=r"move 3 '.*' gives reward .*, but the record says"):
        load_record(_write(path, {**data, "rewards": rewards}))
    with pytest.raises(RecordError, match="the game ended at move 43, but the record goes on with move 44"):
        load_record(_write(path, {**data, "moves": data["moves"] + ["deal"], "rewards": data["rewards"] + [0.0]}))
    with pytest.raises(RecordError, match="the replay ends with score"):
        load_record(_write(path, {**data, "final_score": data["final_score"] + 1}))
    with pytest.raises(RecordError, match="record says terminated=True"):
        load_record(_write(path, {**data, "moves": data["moves"][:-1], "rewards": data["rewards"][:-1]}))


def test_unchecked_load_then_replay_names_the_move(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    moves = list(data["moves"])
    moves[0] = "bogus"
    record = load_record(_write(path, {**data, "moves": moves}), check=False)
    assert isinstance(record, GameRecord)
    with pytest.raises(RecordError, match="move 1 'bogus' is unknown"):
        next(iter(replay(record)))


def test_evaluate_loop_writes_a_record_per_episode(tmp_path: Path) -> None:
    """What ``agents.evaluation.evaluate --records DIR`` does: its episode loop, on an env wrapped in RecordEpisodes."""
    from agents.evaluation.evaluate import run_episode

    agent = make_agent("greedy", "miss_milligan_pocket")
    env = RecordEpisodes(gym.make("patience_gym/MissMilliganPocket-v0"), agent=agent.name, directory=tmp_path)
    scores = []
    for seed in (3, 4):
        moves = list(run_episode(env, agent, seed))
        scores.append(moves[-1].info["score"])
    records = [load_record(tmp_path / f"MissMilliganPocket-v0-greedy-seed{seed}.json") for seed in (3, 4)]
    assert [r.final_score for r in records] == scores
    assert all(r.terminated and len(r.moves) == len(r.rewards) > 0 for r in records)


def test_a_truncated_game_replays_to_the_same_cut(tmp_path: Path) -> None:
    env = RecordEpisodes(gym.make("patience_gym/MissMilligan-v0", max_episode_steps=7), agent="random")
    _play(env, "random", seed=2)
    record = env.record
    assert record is not None and record.truncated and not record.terminated and len(record.moves) == 7
    steps = list(replay(load_record(save_record(record, tmp_path / "cut.json"))))
    assert len(steps) == 7 and steps[-1][3] and not steps[-1][2]


def _refused(path: Path, data: Any, match: str) -> None:
    with pytest.raises(RecordError, match=match):
        load_record(_write(path, data))


def test_numbers_out_of_range_or_of_the_wrong_type_are_named(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    huge = 10**400  # a 401-digit JSON integer: float() of it overflows
    _refused(path, {**data, "final_score": huge}, "'final_score' must be a finite number, got an integer of 401 digits")
    rewards = list(data["rewards"])
    rewards[3] = huge
    _refused(path, {**data, "rewards": rewards}, r"reward of move 4 .* must be a finite number, got an integer of 401")
    for bad in (float("nan"), float("inf"), -float("inf")):
        _refused(path, {**data, "final_score": bad}, rf"'final_score' must be a finite number, got {bad}")
        rewards[3] = bad
        _refused(path, {**data, "rewards": rewards}, rf"reward of move 4 .* must be a finite number, got {bad}")
    rewards[3] = True
    _refused(path, {**data, "rewards": rewards}, "reward of move 4 .* must be a finite number, got True")
    _refused(path, {**data, "final_score": False}, "'final_score' must be a finite number, got False")
    _refused(path, {**data, "format_version": True}, "format_version must be the integer 1, got True")
    _refused(path, {**data, "format_version": 1.0}, "format_version must be the integer 1, got 1.0")
    _refused(path, {**data, "seed": True}, r"'seed' must be int \(non-negative\), got True")
    _refused(path, {**data, "seed": -1}, r"'seed' must be int \(non-negative\), got -1")
    _refused(path, {**data, "agent": huge}, "'agent' must be str, got an integer of 401 digits")
    for steps in (True, 0, -3, 2.5):
        _refused(path, {**data, "max_episode_steps": steps}, f"'max_episode_steps' must be a positive int.*got {steps}")


def test_an_env_that_is_not_ours_is_refused(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    _refused(path, {**data, "env_id": "CartPole-v1"}, "CartPole-v1, which is not a patience_gym env; ours: .*Golf-v0")
    for key, value in [("max_episode_steps", "x"), ("disable_env_checker", 5), ("render_mode", "human")]:
        _refused(path, {**data, "env_kwargs": {key: value}}, f"env_kwargs may not hold {key!r}")


def test_a_wrong_won_is_refused(tmp_path: Path) -> None:
    data, path = _golf_record(tmp_path)
    assert data["won"] is False
    _refused(path, {**data, "won": True}, "the record says won=True, but the replay gives won=False")


def test_junk_in_any_field_is_a_record_error(tmp_path: Path) -> None:
    """Whatever JSON value a field holds, loading either works or names the problem as a RecordError."""
    data, path = _golf_record(tmp_path)
    junk: list[Any] = [None, True, 0, -1, 2.5, 10**400, float("nan"), "x", [], [None], {}, {"a": 1}, [[None]], ["x"]]
    assert data["terminated"] is True and data["won"] is False
    changes = [(key, {**data, key: value}, value) for key in data for value in junk]
    state = data["initial_state"]
    changes += [(f"initial_state.{k}", {**data, "initial_state": {**state, k: v}}, v) for k in state for v in junk]
    accepted = []
    for key, changed, value in changes:
        try:
            load_record(_write(path, changed))
        except RecordError:
            continue
        accepted.append((key, value))
    # Only the optional summary fields take these values and still replay.
    # Only the values a record may hold (the same as before, or an optional field's) load.
    huge = 10**400
    assert accepted == [
        ("library_version", "x"),
        ("env_kwargs", {}),
        ("max_episode_steps", None),
        ("max_episode_steps", huge),
        ("seed", None),
        ("seed", 0),
        ("seed", huge),
        ("agent", None),
        ("agent", "x"),
        ("final_score", None),
        ("terminated", True),
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"final_score": 10**400}, "'final_score' must be a finite number"),
        ({"env_id": "CartPole-v1"}, "not a patience_gym env"),
        ({"won": True}, "the record says won=True"),
        ({"format_version": True}, "format_version must be the integer 1"),
        ({"rewards": None}, "'rewards' must be list"),
    ],
)
def test_watch_names_a_bad_record_in_one_line(
    change: dict[str, Any], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.evaluation.watch import main as watch

    data, path = _golf_record(tmp_path)
    _write(path, {**data, **change})
    assert watch(["--record", str(path), "--out", str(tmp_path / "g.gif")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err and "game.json" in err
    assert not (tmp_path / "g.gif").exists()

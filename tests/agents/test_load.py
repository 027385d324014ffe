"""Models that carry their spec: stamped into the zip, loaded in one call, refused for another env."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agents.evaluation.evaluate import play_episodes
from agents.load import SPEC_ENTRY, ModelSpecError, load, main, read_model_spec, save_model_spec, slim_model

ENV = "patience_gym/Golf-v0"


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny MaskablePPO model, trained for a few hundred steps on Golf-v0 ("ranks" encoding)."""
    import torch as th
    from sb3_contrib import MaskablePPO

    th.set_num_threads(1)
    env = gym.make(ENV, obs_encoding="ranks")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu", policy_kwargs={"net_arch": [16]}
    )
    model.learn(total_timesteps=192)
    path = tmp_path_factory.mktemp("model") / "golf.zip"
    model.save(path)
    return path


@pytest.fixture
def stamped(model_path: Path, tmp_path: Path) -> Path:
    path = tmp_path / "golf.zip"
    path.write_bytes(model_path.read_bytes())
    save_model_spec(path, ENV, {}, "ranks", card="a test model")
    return path


def _actions(agent: Any, seeds: range) -> list[int]:
    env = gym.make(ENV, obs_encoding="ranks")
    out = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        out.append(agent.act(env.unwrapped, obs, info["action_mask"].astype(bool)))
    return out


def test_a_model_without_spec_is_named(model_path: Path) -> None:
    assert read_model_spec(model_path) is None
    with pytest.raises(ModelSpecError, match="carries no spec"):
        load(model_path)


def test_stamp_then_load_plays_as_before(model_path: Path, stamped: Path) -> None:
    from agents.ppo import PPOAgent

    spec = read_model_spec(stamped)
    assert spec is not None
    assert (spec.env_id, spec.env_kwargs, spec.obs_encoding) == (ENV, {}, "ranks")
    assert spec.observation_shape == [gym.make(ENV, obs_encoding="ranks").observation_space.shape[0]]  # type: ignore[index]
    assert spec.num_actions == 8 and spec.card == "a test model"
    agent = load(stamped)
    assert agent.spec == spec  # type: ignore[attr-defined]
    assert _actions(agent, range(20)) == _actions(PPOAgent(model_path), range(20))
    summary = play_episodes(spec.env_id, agent, range(3), spec.make_kwargs())
    assert summary.episodes == 3 and np.isfinite(summary.mean_score)


def test_another_env_encoding_or_rules_are_refused(stamped: Path) -> None:
    with pytest.raises(ModelSpecError, match="trained on patience_gym/Golf-v0, not patience_gym/PussInTheCorner-v0"):
        load(stamped, env_id="patience_gym/PussInTheCorner-v0")
    with pytest.raises(ModelSpecError, match="trained on obs_encoding 'ranks', not 'planes'"):
        load(stamped, obs_encoding="planes")
    with pytest.raises(ModelSpecError, match="trained on obs_encoding 'ranks', not 'ids'"):
        load(stamped, env_kwargs={"obs_encoding": "ids"})
    with pytest.raises(ModelSpecError, match=r"rule options \{\}, not \{'queens_on_kings': True\}"):
        load(stamped, env_kwargs={"queens_on_kings": True, "obs_encoding": "ranks"})
    # A hole model plays each hole of a round.
    agent = load(stamped, env_id="patience_gym/GolfRound-v0", env_kwargs={"obs_encoding": "ranks"})
    assert play_episodes("patience_gym/GolfRound-v0", agent, [0], {"obs_encoding": "ranks"}).episodes == 1


def test_stamp_checks_the_model_against_the_env(model_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "m.zip"
    path.write_bytes(model_path.read_bytes())
    with pytest.raises(ModelSpecError, match=r"observes shape \[\d+\] with 8 actions, but .* gives shape \[781\]"):
        save_model_spec(path, ENV, {}, "planes")
    with pytest.raises(ValueError, match="unknown option 'wrap'"):
        save_model_spec(path, ENV, {"wrap": True}, "ranks")
    with pytest.raises(ValueError, match="disagrees"):
        save_model_spec(path, ENV, {"obs_encoding": "ids"}, "ranks")
    assert read_model_spec(path) is None  # nothing written by a refused stamp


def test_restamp_replaces_the_spec(stamped: Path) -> None:
    save_model_spec(stamped, ENV, {"obs_encoding": "ranks"}, card="second")
    with zipfile.ZipFile(stamped) as archive:
        assert archive.namelist().count(SPEC_ENTRY) == 1
    spec = read_model_spec(stamped)
    assert spec is not None and spec.card == "second"


def test_bad_files_are_named(stamped: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no PPO model at"):
        load(tmp_path / "none.zip")
    text = tmp_path / "notes.zip"
    text.write_text("hello")
    with pytest.raises(ModelSpecError, match="not a zip file"):
        load(text)
    with zipfile.ZipFile(stamped) as archive:
        data = json.loads(archive.read(SPEC_ENTRY))
    for bad, message in [({**data, "spec_version": 7}, "spec version 7"), ({**data, "extra": 1}, "unknown key.*extra")]:
        broken = tmp_path / "broken.zip"
        with zipfile.ZipFile(stamped) as src, zipfile.ZipFile(broken, "w") as dst:
            for item in src.infolist():
                dst.writestr(item, json.dumps(bad) if item.filename == SPEC_ENTRY else src.read(item.filename))
        with pytest.raises(ModelSpecError, match=message):
            load(broken)


def test_command_line(model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cli.zip"
    path.write_bytes(model_path.read_bytes())
    assert main(["show", str(path)]) == 1
    assert "no spec" in capsys.readouterr().out
    card = tmp_path / "card.md"
    card.write_text("# Golf test model\n")
    assert main(["stamp", str(path), "--env", ENV, "--obs-encoding", "ranks", "--card", str(card)]) == 0
    capsys.readouterr()
    assert main(["show", str(path)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["obs_encoding"] == "ranks" and shown["card"] == "# Golf test model\n"
    with pytest.raises(SystemExit):
        main(["stamp", str(path), "--env", ENV, "--env-kwargs", "[1]"])
    assert "--env-kwargs must be a JSON object" in capsys.readouterr().err


def test_watch_plays_a_stamped_model_with_its_own_encoding(stamped: Path, tmp_path: Path) -> None:
    from agents.evaluation.watch import main as watch

    gif = tmp_path / "ppo.gif"
    assert watch(["--env", ENV, "--agent", f"ppo:{stamped}", "--seed", "1", "--out", str(gif)]) == 0
    assert gif.stat().st_size > 0


def test_slim_keeps_the_policy_and_the_spec_and_drops_the_optimizer_state(stamped: Path, tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    with zipfile.ZipFile(stamped) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    stamped.chmod(0o644)
    full = MaskablePPO.load(stamped, device="cpu")
    assert full.policy.optimizer.state_dict()["state"]  # trained: Adam holds its moments
    before, after = slim_model(stamped)
    assert after < before / 2 and stamped.stat().st_mode & 0o777 == 0o644
    with zipfile.ZipFile(stamped) as archive:
        for name, data in entries.items():
            if name != "policy.optimizer.pth":
                assert archive.read(name) == data, name  # the weights and the spec, byte for byte
    slim = MaskablePPO.load(stamped, device="cpu")
    assert slim.policy.optimizer.state_dict()["state"] == {}
    assert slim.policy.optimizer.param_groups[0]["lr"] == full.policy.optimizer.param_groups[0]["lr"]
    env = gym.make(ENV, obs_encoding="ranks")
    obs, info = env.reset(seed=3)
    for _ in range(20):
        masks = info["action_mask"].astype(bool)
        action, _ = full.predict(obs, action_masks=masks, deterministic=True)
        assert slim.predict(obs, action_masks=masks, deterministic=True)[0] == action
        obs, _, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            obs, info = env.reset()
    assert read_model_spec(stamped) is not None
    not_a_model = tmp_path / "other.zip"
    with zipfile.ZipFile(not_a_model, "w") as archive:
        archive.writestr("data", "{}")
    with pytest.raises(ModelSpecError, match="no policy.optimizer.pth"):
        slim_model(not_a_model)


ROOT = Path(__file__).resolve().parents[2]
GOLF_MODEL = ROOT / "models" / "golf_rules.zip"


@pytest.mark.parametrize(
    ("model", "env_id", "env_kwargs", "message"),
    [
        (
            "miss_milligan_moves_critic.zip",
            "patience_gym/Giant-v0",
            {"obs_encoding": "moves"},
            'was trained on patience_gym/MissMilligan-v0 {"obs_encoding": "moves"}, '
            'not patience_gym/Giant-v0 {"obs_encoding": "moves"}',
        ),
        (
            "puss_moves_replay_all.zip",
            "patience_gym/PussInTheCorner-v0",
            {"obs_encoding": "moves_replay"},
            'was trained on patience_gym/PussInTheCorner-v0 {"obs_encoding": "moves_replay_all"}, '
            'not patience_gym/PussInTheCorner-v0 {"obs_encoding": "moves_replay"}',
        ),
        (
            "golf_rules.zip",
            "patience_gym/Golf-v0",
            {"obs_encoding": "rules_moves", "queens_on_kings": True},
            'was trained on patience_gym/Golf-v0 {"obs_encoding": "rules_moves"}, '
            'not patience_gym/Golf-v0 {"obs_encoding": "rules_moves", "queens_on_kings": true}',
        ),
        (
            "golf_rules.zip",
            "patience_gym/Golf-v0",
            {"obs_encoding": "runs"},
            'was trained on patience_gym/Golf-v0 {"obs_encoding": "rules_moves"}, '
            'not patience_gym/Golf-v0 {"obs_encoding": "runs"}',
        ),
        (
            "golf_rules.zip",
            "patience_gym/PussInTheCorner-v0",
            {},
            'was trained on patience_gym/Golf-v0 {"obs_encoding": "rules_moves"}, '
            'not patience_gym/PussInTheCorner-v0 {"obs_encoding": "ids"}',
        ),
    ],
)
def test_a_committed_model_is_refused_for_another_game(model: str, env_id: str, env_kwargs: dict, message: str) -> None:
    """Same shapes (Miss Milligan and Giant, two Puss encodings, Golf's rule options) or not: refused when made."""
    from agents.load import load_for_env
    from agents.registry import make_agent

    path = ROOT / "models" / model
    with pytest.raises(ModelSpecError) as refused:
        load_for_env(path, env_id, env_kwargs)
    assert f"model {path} {message}" == str(refused.value)
    game = gym.make(env_id).unwrapped.game.name  # type: ignore[attr-defined]
    with pytest.raises(ModelSpecError, match="was trained on"):
        make_agent(f"ppo:{path}", game, env_id=env_id, env_kwargs=env_kwargs)


def test_a_model_plays_its_own_env_and_a_golf_hole_model_a_round() -> None:
    from agents.load import load_for_env

    for env_id, kwargs in [
        ("patience_gym/Golf-v0", {"obs_encoding": "rules_moves"}),
        ("patience_gym/Golf-v0", {"obs_encoding": "rules_moves", "queens_on_kings": False}),  # the default, aloud
        ("patience_gym/GolfRound-v0", {"obs_encoding": "rules_moves"}),  # the hole model plays a round too
    ]:
        agent = load_for_env(GOLF_MODEL, env_id, kwargs)
        assert play_episodes(env_id, agent, [0], kwargs).episodes == 1


def test_make_agent_needs_the_env_a_model_will_play() -> None:
    from agents.registry import make_agent

    with pytest.raises(ValueError, match="needs the env id it will play"):
        make_agent(f"ppo:{GOLF_MODEL}", "golf")


def test_a_model_without_spec_is_checked_against_the_env_when_made(model_path: Path) -> None:
    from agents.load import load_for_env

    agent = load_for_env(model_path, ENV, {"obs_encoding": "ranks"})  # the user's word for what it was trained on
    assert _actions(agent, range(3)) == _actions(load_for_env(model_path, ENV, {"obs_encoding": "ranks"}), range(3))
    with pytest.raises(ModelSpecError, match=r"observes shape \[\d+\] with 8 actions, but patience_gym/Golf-v0"):
        load_for_env(model_path, ENV, {})  # the default encoding: not the model's, refused before any move
    text = model_path.parent / "notes.zip"
    text.write_text("hello")
    with pytest.raises(ModelSpecError, match="not a zip file"):
        load_for_env(text, ENV, {})


def test_load_checks_the_spec_against_the_model(stamped: Path, tmp_path: Path) -> None:
    """A spec that does not describe its model is refused at load, not at the first move."""
    with zipfile.ZipFile(stamped) as archive:
        data = json.loads(archive.read(SPEC_ENTRY))
    for bad, message in [
        ({**data, "observation_shape": [3]}, r"spec says observation shape \[3\] with 8 actions; the model observes"),
        ({**data, "num_actions": 9}, r"with 9 actions; the model observes shape \[\d+\] with 8"),
    ]:
        broken = tmp_path / "broken.zip"
        with zipfile.ZipFile(stamped) as src, zipfile.ZipFile(broken, "w") as dst:
            for item in src.infolist():
                dst.writestr(item, json.dumps(bad) if item.filename == SPEC_ENTRY else src.read(item.filename))
        with pytest.raises(ModelSpecError, match=message):
            load(broken)


def _restamped(stamped: Path, path: Path, **changes: Any) -> Path:
    """A copy of ``stamped`` at ``path`` whose embedded spec has ``changes`` written over it, unchecked."""
    with zipfile.ZipFile(stamped) as archive:
        data = {**json.loads(archive.read(SPEC_ENTRY)), **changes}
    with zipfile.ZipFile(stamped) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, json.dumps(data) if item.filename == SPEC_ENTRY else src.read(item.filename))
    return path


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"env_id": 3}, "the model spec's env_id must be a non-empty string, got 3"),
        ({"env_kwargs": "abc"}, "the model spec's env_kwargs must be an object of env options by name"),
        ({"env_kwargs": {"obs_encoding": "ranks"}}, "env_kwargs must be an object .*without obs_encoding"),
        ({"obs_encoding": ["ranks"]}, r"the model spec's obs_encoding must be a non-empty string, got \['ranks'\]"),
        ({"observation_shape": "951"}, "the model spec's observation_shape must be a list of positive integers"),
        ({"observation_shape": [0]}, "the model spec's observation_shape must be a list of positive integers"),
        ({"num_actions": "8"}, "the model spec's num_actions must be a positive integer, got '8'"),
        ({"num_actions": True}, "the model spec's num_actions must be a positive integer, got True"),
        ({"library_version": None}, "the model spec's library_version must be a non-empty string, got None"),
        ({"card": 5}, r"the model spec's card must be a string \(or null\), got 5"),
        ({"spec_version": True}, "model spec version True; this library reads 1"),
        ({"env_id": "CartPole-v1"}, "trained on CartPole-v1, which patience_gym .* does not register"),
        (
            {"env_kwargs": {"bogus": 1}},
            r"the spec's env_kwargs \{'bogus': 1\} are not options of .*'bogus'",
        ),
        (
            {"env_kwargs": {"wrap_ranks": "yes"}},
            "the spec's env_kwargs .* 'wrap_ranks' for golf must be True or False",
        ),
        ({"obs_encoding": "nope"}, "the spec's obs_encoding 'nope' is refused: unknown obs_encoding 'nope' for golf"),
    ],
)
def test_a_malformed_spec_is_refused_naming_its_field(
    stamped: Path, tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    """A spec whose fields have the wrong type, or that its env would not take, is named at load: never a crash
    elsewhere (``'str' object is not a mapping``) nor a mismatch that contradicts itself (``8`` against ``'8'``)."""
    from agents.load import load_for_env
    from agents.registry import make_agent

    broken = _restamped(stamped, tmp_path / "broken.zip", **changes)
    with pytest.raises(ModelSpecError, match=message):
        load(broken)
    with pytest.raises(ModelSpecError, match=message):
        load_for_env(broken, ENV, {"obs_encoding": "ranks"})
    with pytest.raises(ValueError, match=message):
        make_agent(f"ppo:{broken}", "golf", env_id=ENV, env_kwargs={"obs_encoding": "ranks"})


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--env", "CartPole-v1"], "CartPole-v1 is not a patience_gym env; choose one of patience_gym/Golf-v0"),
        (["--env", ENV, "--card", "DIR"], "--card: DIR is a directory, not a text file"),
        (["--env", ENV, "--card", "missing.md"], "--card: no file at missing.md"),
    ],
)
def test_stamp_user_errors_are_one_line_and_exit_2(
    model_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "DIR").mkdir()
    path = tmp_path / "m.zip"
    path.write_bytes(model_path.read_bytes())
    with pytest.raises(SystemExit) as exited:
        main(["stamp", str(path), "--obs-encoding", "ranks", *extra])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert read_model_spec(path) is None


def test_watch_refuses_a_model_for_another_game_or_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agents.evaluation.watch import main as watch

    gif = tmp_path / "ppo.gif"
    for argv in (
        ["--env", "patience_gym/PussInTheCorner-v0"],
        ["--env", ENV, "--env-kwargs", '{"queens_on_kings": true}'],
    ):
        with pytest.raises(SystemExit) as exited:
            watch([*argv, "--agent", f"ppo:{GOLF_MODEL}", "--seed", "1", "--out", str(gif)])
        err = capsys.readouterr().err
        assert exited.value.code == 2 and "was trained on patience_gym/Golf-v0" in err, err
        assert not gif.exists()


#: The first 40 moves of each committed model on deals 0 and 1, recorded before agents/ was laid out by role
#: (issue 33): the models pickle their classes by the old module paths (agents.networks, agents.config).
FIRST_MOVES = {
    # (golf_rules.zip: the rules-only model with the link-card graph network, recorded when it was committed)
    "golf_rules.zip": [
        7,
        3,
        4,
        2,
        7,
        7,
        0,
        3,
        4,
        7,
        6,
        7,
        0,
        1,
        7,
        7,
        2,
        0,
        1,
        7,
        2,
        7,
        7,
        4,
        1,
        7,
        7,
        7,
        2,
        7,
        1,
        7,
        7,
        5,
        1,
        5,
        7,
        4,
        7,
        1,
    ],
    # (giant_rules.zip: the rules-only afterstate model cloned from planner:top=0, recorded when it was committed)
    "giant_rules.zip": [
        1009,
        939,
        936,
        938,
        91,
        520,
        650,
        663,
        625,
        1009,
        403,
        546,
        91,
        326,
        351,
        403,
        377,
        690,
        1009,
        937,
        351,
        572,
        624,
        248,
        182,
        573,
        429,
        1009,
        938,
        39,
        572,
        198,
        1009,
        234,
        521,
        534,
        1009,
        942,
        942,
        941,
    ],
    "giant_moves_critic_lr3e4_1m.zip": [
        663,
        78,
        183,
        390,
        130,
        1,
        1009,
        936,
        938,
        939,
        520,
        260,
        390,
        690,
        169,
        547,
        1009,
        156,
        325,
        416,
        547,
        92,
        195,
        351,
        30,
        1009,
        937,
        351,
        208,
        585,
        143,
        624,
        0,
        717,
        1009,
        938,
        39,
        1009,
        234,
        521,
    ],
    "miss_milligan_moves_critic.zip": [
        1009,
        936,
        938,
        939,
        91,
        520,
        650,
        1009,
        156,
        403,
        326,
        547,
        1009,
        937,
        351,
        572,
        1009,
        938,
        39,
        572,
        1009,
        1,
        41,
        520,
        534,
        1009,
        942,
        312,
        143,
        599,
        1009,
        943,
        429,
        393,
        225,
        1009,
        937,
        942,
        169,
        937,
    ],
    "miss_milligan_pocket_moves_endgame.zip": [
        1009,
        936,
        938,
        939,
        91,
        520,
        650,
        1009,
        156,
        325,
        547,
        416,
        1,
        832,
        637,
        1009,
        937,
        351,
        572,
        1009,
        938,
        39,
        572,
        121,
        291,
        1009,
        780,
        1,
        312,
        119,
        520,
        534,
        1009,
        942,
        143,
        312,
        378,
        366,
        560,
        858,
    ],
    "puss_moves_replay_all.zip": [
        0,
        1,
        0,
        2,
        0,
        1,
        0,
        2,
        0,
        3,
        0,
        3,
        0,
        3,
        0,
        4,
        0,
        1,
        0,
        3,
        0,
        4,
        0,
        4,
        0,
        2,
        0,
        3,
        0,
        4,
        0,
        2,
        0,
        5,
        9,
        9,
        13,
        9,
        0,
        2,
    ],
}


@pytest.mark.parametrize("name", sorted(FIRST_MOVES))
def test_every_committed_model_loads_and_plays_as_before_the_move(name: str) -> None:
    from agents.training import networks

    agent = load(ROOT / "models" / name)
    assert isinstance(agent.model.policy, networks.LogitsPolicy)
    env = gym.make(agent.spec.env_id, **agent.spec.make_kwargs())  # type: ignore[attr-defined]
    moves: list[int] = []
    for seed in (0, 1):
        obs, info = env.reset(seed=seed)
        done = False
        while not done and len(moves) < 40:
            moves.append(agent.act(env.unwrapped, obs, info["action_mask"]))  # type: ignore[arg-type]
            obs, _, terminated, truncated, info = env.step(moves[-1])
            done = terminated or truncated
    assert moves == FIRST_MOVES[name]


def test_the_old_module_paths_saved_models_name_resolve_to_the_moved_classes() -> None:
    import pickle

    from agents.training import config, networks

    for name in ("LogitsPolicy", "GolfMoves", "MoveListScorer", "MoveScorer", "CardEmbedding"):
        assert pickle.loads(f"cagents.networks\n{name}\n.".encode()) is getattr(networks, name)
    assert pickle.loads(b"cagents.config\nTrainConfig\n.") is config.TrainConfig
    legacy = pickle.loads(b"cagents.config\nLinearSchedule\n.")
    assert legacy is pickle.loads(b"cagents.config\nLinearSchedule\n.") and legacy.__module__ == "agents.config"


def test_stamping_a_model_leaves_the_global_random_streams_as_they_were(tmp_path):
    """train.py stamps every checkpoint mid-run: loading the model to check its shape (SB3 reseeds with the seed
    the model was saved with, and a new policy draws its initial weights) must not change the run's streams."""
    import random

    import torch

    path = tmp_path / "golf.zip"
    shutil.copy("models/golf_rules.zip", path)
    random.seed(11)
    np.random.seed(11)
    torch.manual_seed(11)
    expected = (random.random(), np.random.random(), torch.rand(1).item())
    random.seed(11)
    np.random.seed(11)
    torch.manual_seed(11)
    save_model_spec(path, "patience_gym/Golf-v0", {"obs_encoding": "rules_moves"})
    assert (random.random(), np.random.random(), torch.rand(1).item()) == expected

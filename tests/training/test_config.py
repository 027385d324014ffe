"""Config and command-line validation: every bad value is refused before any training, naming the key
(or flag) and the file, in one line with exit status 2 (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agents.training import experiment
from agents.training.config import ConfigError, Schedule, config_to_dict, load_config

GOLF = "patience_gym/Golf-v0"
BASE = {
    "env_kwargs": {"obs_encoding": "planes"},
    "n_envs": 2,
    "total_timesteps": 1024,
    "ppo": {"n_steps": 256, "batch_size": 128, "n_epochs": 1},
    "checkpoint_freq": 512,
    "eval": {"freq": 512, "episodes": 2, "seed": 99},
    "report": {"episodes": 5, "seed": 0, "agents": ["random", "greedy"]},
}


def write(tmp_path: Path, patch: dict, env_id: str = GOLF) -> Path:
    """BASE with ``patch`` merged in (a mapping into a mapping key by key)."""
    merged = {k: {**v, **patch[k]} if isinstance(v, dict) and k in patch else patch.get(k, v) for k, v in BASE.items()}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({env_id: {**merged, **{k: v for k, v in patch.items() if k not in BASE}}}))
    return path


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"eval": {"episodes": 0}}, f"{GOLF}.eval.episodes: Input should be greater than or equal to 1 (got 0)"),
        ({"report": {"episodes": 0}}, f"{GOLF}.report.episodes: Input should be greater than or equal to 1 (got 0)"),
        ({"ppo": {"batch_size": 0}}, f"{GOLF}.ppo.batch_size: Input should be greater than or equal to 1 (got 0)"),
        ({"ppo": {"gamma": "x"}}, f"{GOLF}.ppo.gamma: Input should be a valid number (got 'x')"),
        ({"ppo": {"gamma": 1.5}}, f"{GOLF}.ppo.gamma: Input should be less than or equal to 1 (got 1.5)"),
        ({"ppo": {"gamma": 0}}, f"{GOLF}.ppo.gamma: Input should be greater than 0 (got 0)"),
        ({"ppo": {"n_steps": -1}}, f"{GOLF}.ppo.n_steps: Input should be greater than or equal to 1 (got -1)"),
        ({"ppo": {"n_epochs": True}}, f"{GOLF}.ppo.n_epochs: Input should be a valid integer (got True)"),
        ({"n_envs": 0}, f"{GOLF}.n_envs: Input should be greater than or equal to 1 (got 0)"),
        ({"n_envs": 2.5}, f"{GOLF}.n_envs: Input should be a valid integer (got 2.5)"),
        ({"n_envs": 10_001}, f"{GOLF}.n_envs: Input should be less than or equal to 10000 (got 10001)"),
        ({"checkpoint_freq": 0}, f"{GOLF}.checkpoint_freq: Input should be greater than or equal to 1 (got 0)"),
        ({"vec": "threads"}, f"{GOLF}.vec: Input should be 'batched', 'dummy' or 'subproc' (got 'threads')"),
        (
            {"report": {"model": "best"}, "eval": {"freq": 2048}},
            f"{GOLF}: report.model 'best' needs a held-out evaluation, and eval.freq 2048 is past total_timesteps 1024",
        ),
        ({"eval": {"seed": -1}}, f"{GOLF}.eval.seed: Input should be greater than or equal to 0 (got -1)"),
        (
            {"report": {"seed": -4, "episodes": 5}},
            f"{GOLF}.report.seed: Input should be greater than or equal to 0 (got -4)",
        ),
        ({"pretrain": {"seed": -1}}, f"{GOLF}.pretrain.seed: Input should be greater than or equal to 0 (got -1)"),
        ({"report": {"seed": 100_000_000}}, f"{GOLF}.report.seed: Input should be less than 100000000 (got 100000000)"),
        ({"report": {"agents": ["random:foo=1"]}}, f"{GOLF}: report.agents[0]: agent 'random:foo=1': random takes no"),
        ({"report": {"agents": ["random:foo=bar"]}}, "agent 'random:foo=bar': option foo must be a number or none"),
        (
            {"report": {"agents": ["greedy", "planner:max_seconds=-1"]}},
            f"{GOLF}: report.agents[1]: agent 'planner:max_seconds=-1': option max_seconds: Input should be greater "
            "than or equal to 0 (got -1.0)",
        ),
        (
            {"report": {"agents": ["planner:samples=1.5"]}},
            "option samples: Input should be a valid integer, got a number with a fractional part (got 1.5)",
        ),
        (
            {"report": {"agents": ["planner:depth=3"]}},
            "unknown option depth; planner takes samples",
        ),
        ({"report": {"agents": ["planner:samples=0"]}}, "samples must be at least 1"),
        ({"report": {"agents": ["oracle"]}}, "unknown agent 'oracle'"),
        (
            {"eval": {"freq": 512, "episodes": 10, "seed": 3}},
            f"{GOLF}: report.seed: the report deals (seeds 0..4) overlap the eval deals (seeds 3..12)",
        ),
        ({"pretrain": {"episodes": 5, "seed": 2}}, "the report deals (seeds 0..4) overlap the pretrain deals"),
        ({"env_kwargs": {"obs_encoding": "pictures"}}, f"{GOLF}: env_kwargs: "),
        ({"env_kwargs": {"colour": True}}, f"{GOLF}: env_kwargs: "),
        # Non-finite numbers would train on NaN logits: refused up front.
        ({"ppo": {"learning_rate": float("inf")}}, f"{GOLF}.ppo.learning_rate: must be a number or lin_<start>"),
        ({"ppo": {"learning_rate": "lin_inf"}}, "positive and finite (got 'lin_inf')"),
        ({"ppo": {"ent_coef": float("inf")}}, f"{GOLF}.ppo.ent_coef: Input should be a finite number (got inf)"),
        ({"ppo": {"vf_coef": float("nan")}}, f"{GOLF}.ppo.vf_coef: Input should be a finite number (got nan)"),
        (
            {"pretrain": {"learning_rate": float("inf")}},
            f"{GOLF}.pretrain.learning_rate: Input should be a finite number",
        ),
        # A minibatch of one step: MaskablePPO's advantage normalisation divides by its spread, NaN.
        (
            {"n_envs": 1, "ppo": {"n_steps": 1, "batch_size": 1}},
            f"{GOLF}: ppo.batch_size 1: a minibatch of one step has no spread to normalise advantages by",
        ),
        (
            {"n_envs": 1, "ppo": {"n_steps": 257, "batch_size": 128}},
            f"{GOLF}: ppo.batch_size 128: the rollout of 257 steps (n_steps 257 x n_envs 1) ends in a minibatch "
            "of one step",
        ),
        (
            {"env_kwargs": {"obs_encoding": "planes", "render_mode": "human"}, "vec": "batched"},
            f"{GOLF}: env_kwargs.render_mode 'human': the batched engine does not render",
        ),
    ],
)
def test_bad_config_values_are_named_with_the_file(tmp_path, patch, message):
    path = write(tmp_path, patch)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert message in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize(
    ("env_id", "learn_on", "message"),
    [
        (
            GOLF,
            "patience_gym/GolfRound-v0",
            "learn_on 'patience_gym/GolfRound-v0': a model of patience_gym/Golf-v0 "
            "may learn on none: patience_gym/Golf-v0 is not played part by part",
        ),
        (
            "patience_gym/GolfRound-v0",
            "patience_gym/PussInTheCorner-v0",
            "learn_on "
            "'patience_gym/PussInTheCorner-v0': a model of patience_gym/GolfRound-v0 may learn on one of "
            "patience_gym/Golf-v0",
        ),
    ],
)
def test_learn_on_must_be_a_part_of_the_game(tmp_path, env_id, learn_on, message):
    path = write(tmp_path, {"learn_on": learn_on}, env_id=env_id)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert message in str(err.value)


def test_learn_on_names_the_env_the_model_learns_on(tmp_path):
    rounds = load_config(write(tmp_path, {"learn_on": GOLF}, env_id="patience_gym/GolfRound-v0"))
    assert (rounds.env_id, rounds.learner_env_id) == ("patience_gym/GolfRound-v0", GOLF)
    assert load_config(write(tmp_path, {})).learner_env_id == GOLF


def test_an_unknown_env_id_is_named(tmp_path):
    path = write(tmp_path, {}, env_id="patience_gym/Klondike-v0")
    with pytest.raises(ConfigError, match=r"unknown env id 'patience_gym/Klondike-v0'; registered: .*Golf-v0"):
        load_config(path)


def test_an_env_that_is_not_ours_is_named(tmp_path):
    """A gymnasium env id of another package (CartPole) has no game to play: named, not an AttributeError."""
    path = write(tmp_path, {"env_kwargs": {}}, env_id="CartPole-v1")
    with pytest.raises(ConfigError, match=r"unknown env id 'CartPole-v1'; registered: patience_gym/"):
        load_config(path)


def test_a_batch_of_one_trains_without_advantage_normalisation(tmp_path):
    """The minibatch check is the real condition: without normalisation, minibatches of one step are fine."""
    path = write(tmp_path, {"n_envs": 1, "ppo": {"n_steps": 1, "batch_size": 1, "normalize_advantage": False}})
    assert load_config(path).ppo.batch_size == 1
    assert load_config(write(tmp_path, {"n_envs": 1, "ppo": {"n_steps": 258, "batch_size": 128}})).n_envs == 1


def test_file_level_errors_are_one_line(tmp_path, capsys):
    """A config that is not UTF-8, or not YAML, is named in one line with exit status 2."""
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"patience_gym/Golf-v0:\n  n_envs: 2  # caf\xe9\n")
    with pytest.raises(ConfigError, match=r"latin.yaml is not UTF-8 text \(byte 0xe9 on line 2\)"):
        load_config(latin)
    bad = tmp_path / "bad.yaml"
    bad.write_text("patience_gym/Golf-v0:\n  n_envs: [2\n  vec: dummy\n")
    for path, message in ((latin, "is not UTF-8 text"), (bad, "bad.yaml: not valid YAML: line 3, column 6: ")):
        assert experiment.main(["--config", str(path), "--run-dir", str(tmp_path / "run")]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_key_given_twice_is_refused_not_overwritten(tmp_path, capsys):
    """Plain YAML keeps the last of two equal keys silently; a config, or a YAML flag, that gives one twice is refused
    naming the key and its line."""
    twice = tmp_path / "twice.yaml"
    twice.write_text("patience_gym/Golf-v0:\n  n_envs: 2\n  n_envs: 3\n")
    with pytest.raises(ConfigError, match=r"twice.yaml: not valid YAML: line 3, column 3: key 'n_envs' is given twice"):
        load_config(twice)
    twice.write_text("patience_gym/Golf-v0:\n  n_envs: 2\npatience_gym/Golf-v0:\n  n_envs: 3\n")
    with pytest.raises(ConfigError, match=r"line 3, column 1: key 'patience_gym/Golf-v0' is given twice"):
        load_config(twice)
    for flag, message in (
        ("{obs_encoding: planes, obs_encoding: runs}", "key 'obs_encoding' is given twice"),
        ("{obs_encoding: ", "not valid YAML: line 1, column 16"),
    ):
        assert experiment.main(["--env-kwargs", flag, "--run-dir", str(tmp_path / "run")]) == 2
        err = capsys.readouterr().err
        assert "--env-kwargs" in err and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--vec", "threads"], "invalid choice 'threads' for argument '--vec'"),
        (["--seed", "x"], "Error parsing --seed: no type matching {None}|INT could be instantiated from ['x']"),
        (["--conf", "x"], "Unrecognized options: --conf, x (perhaps you meant --config)"),
        (["--seed"], "Missing value for argument '--seed'"),
        (["--total-timesteps", "1.5"], "Error parsing --total-timesteps: invalid literal for int()"),
    ],
)
def test_command_line_syntax_errors_are_one_line(capsys, argv, message):
    assert experiment.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "train.py --help" in err and len(err.strip().splitlines()) == 1, err
    assert "\u2502" not in err and "\u256d" not in err  # no box


def test_good_agent_specs_and_schedules_load(tmp_path):
    path = write(
        tmp_path,
        {
            "report": {"episodes": 5, "agents": ["random", "greedy", "planner:samples=2,max_seconds=none", "solver"]},
            "ppo": {"learning_rate": "lin_3e-4", "clip_range": 0.1, "gamma": 1},
        },
    )
    config = load_config(path)
    assert config.report.agents[2] == "planner:samples=2,max_seconds=none"
    assert (config.ppo.n_steps, config.ppo.batch_size, config.ppo.n_epochs, config.ppo.gamma) == (256, 128, 1, 1)
    assert config.ppo.learning_rate == Schedule("lin_3e-4", 3e-4) and config.ppo.clip_range == Schedule(0.1, 0.1)
    # Written back as given: the run's config.yaml reads back as the same config.
    written = config_to_dict(config)[GOLF]["ppo"]
    assert (written["learning_rate"], written["clip_range"], written["target_kl"]) == ("lin_3e-4", 0.1, None)
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump(config_to_dict(config)))
    assert load_config(again) == config


def test_the_linear_schedule_is_sb3s_and_decays_as_before():
    """``lin_<start>`` is parsed once into SB3's LinearSchedule: start * progress_remaining, as the hand-written
    schedule it replaced; a number goes to MaskablePPO as written. Models saved with the old schedule still load it."""
    from stable_baselines3.common.utils import LinearSchedule

    from agents.training.config import PPOConfig

    kwargs = PPOConfig(learning_rate="lin_1e-3", clip_range=0.2).sb3_kwargs()  # type: ignore[arg-type]
    schedule = kwargs["learning_rate"]
    assert isinstance(schedule, LinearSchedule) and kwargs["clip_range"] == 0.2 and kwargs["target_kl"] is None
    for progress in (1.0, 0.75, 0.5, 0.1, 0.0):
        assert schedule(progress) == pytest.approx(1e-3 * progress, abs=1e-18)
    import pickle

    from agents import config  # the old module path: models saved before the move name it (agents.load resolves it)

    # The old schedule pickled as agents.config.LinearSchedule with the state {"start": ...}.
    old = config.LinearSchedule.__new__(config.LinearSchedule)
    old.__setstate__({"start": 2e-3})
    legacy = pickle.loads(pickle.dumps(old))
    assert legacy(0.5) == pytest.approx(1e-3) and legacy(1.0) == pytest.approx(2e-3)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--total-timesteps", "0"], "--total-timesteps: Input should be greater than or equal to 1 (got 0)"),
        (["--total-timesteps", "-5"], "--total-timesteps: Input should be greater than or equal to 1 (got -5)"),
        (["--pretrain-episodes", "-3"], "--pretrain.episodes: Input should be greater than or equal to 0 (got -3)"),
        (["--n-envs", "0"], "--n-envs: Input should be greater than or equal to 1 (got 0)"),
        (["--seed", "-1"], "--seed: Input should be greater than or equal to 0 (got -1)"),
        (["--seed", "99999999999999999999"], "--seed: Input should be less than 4294967296 (got 99999999999999999999)"),
        (["--report-episodes", "0"], "--report.episodes: Input should be greater than or equal to 1 (got 0)"),
        (["--ppo.gamma", "1.5"], "--ppo.gamma: Input should be less than or equal to 1 (got 1.5)"),
        (["--ppo.learning-rate", "lin_fast"], "--ppo.learning-rate: must be a number or lin_<start>"),
        (
            ["--report.agents", "random", "planner:depth=3"],
            "report.agents[1]: agent 'planner:depth=3': unknown option depth",
        ),
        (["--resume", "somewhere", "--run-dir", "x"], "--run-dir cannot be combined with --resume"),
        (["--resume", "somewhere", "--overwrite"], "--overwrite cannot be combined with --resume"),
        (["--config", "nowhere.yaml"], "config file nowhere.yaml does not exist"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2_before_any_work(tmp_path, capsys, flags, message):
    run_dir = tmp_path / "run"
    argv = ["--no-progress-bar", *flags]
    if "--resume" not in flags:
        argv += ["--run-dir", str(run_dir)]
        if "--config" not in flags:
            argv += ["--config", str(write(tmp_path, {}))]
    assert experiment.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not run_dir.exists()


def test_an_override_that_breaks_the_config_names_the_flag(tmp_path, capsys):
    """--report-episodes 20 makes the report deals reach the eval deals of this config: named by its flag."""
    path = write(tmp_path, {"eval": {"freq": 512, "episodes": 2, "seed": 10}})
    assert experiment.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), "--report-episodes", "20"]) == 2
    assert "the report deals (seeds 0..19) overlap the eval deals" in capsys.readouterr().err


def test_every_config_key_is_a_flag_over_the_yaml(tmp_path):
    """tyro's flags are the config's keys, nested ones dotted (``--ppo.learning-rate``); what they set is merged into
    the YAML's settings, which are checked once; the rest stays as the file has it."""
    path = write(tmp_path, {})
    flags = ["--ppo.learning-rate", "lin_1e-3", "--report.episodes", "3", "--env-kwargs", "{obs_encoding: ids}"]
    args = experiment.parse_args(["--config", str(path), "--run-dir", str(tmp_path / "run"), *flags, "--vec", "dummy"])
    assert args.overrides == {
        "env_kwargs": {"obs_encoding": "ids"},
        "vec": "dummy",
        "ppo.learning_rate": "lin_1e-3",
        "report.episodes": 3,
    }
    config = experiment.setup(args).config
    assert config.ppo.learning_rate == Schedule("lin_1e-3", 1e-3) and config.ppo.n_steps == 256
    assert (config.report.episodes, config.report.agents, config.env_kwargs) == (
        3,
        ["random", "greedy"],
        {"obs_encoding": "ids"},
    )
    assert config.vec == "dummy" and config.eval.seed == 99


def test_a_bad_vec_flag_is_a_usage_error(capsys):
    with pytest.raises(ConfigError, match="invalid choice 'threads' for argument '--vec'"):
        experiment.parse_args(["--vec", "threads"])


def test_no_arguments_run_the_canonical_golf_config(tmp_path, monkeypatch):
    """``python train.py`` trains configs/golf.yaml (wherever it is started from)."""
    monkeypatch.chdir(tmp_path)
    args = experiment.parse_args([])
    assert args.config is None and args.resume is None and not args.overwrite
    plan = experiment.setup(args)
    config, run_dir = plan.config, plan.run_dir
    assert config.env_id == GOLF and plan.checkpoint is None and plan.seed == 0
    assert config == load_config(Path(__file__).resolve().parents[2] / "configs" / "golf.yaml")
    assert run_dir.parent == Path("runs") and not Path("runs").exists()  # checked, made when the run starts


def test_help_lists_every_flag_with_its_docstring(capsys):
    with pytest.raises(SystemExit):
        experiment.parse_args(["--help"])
    out = capsys.readouterr().out
    for flag in ("--config", "--total-timesteps", "--n-envs", "--vec", "--run-dir", "--resume", "--overwrite"):
        assert flag in out
    assert "replace the run found in --run-dir" in out


NET = "give a list of layer sizes ([64, 64]) or one per head ({pi: [64, 64], vf: [64, 64]})"
BUILD = f"{GOLF}.policy_kwargs: building the MlpPolicy policy failed: "
CARDS = "agents.training.networks.CardEmbedding"


@pytest.mark.parametrize(
    ("settings", "flags", "message"),
    [
        ({"policy_kwargs": {"net_arch": [-5]}}, [], f"{GOLF}.policy_kwargs: net_arch: layer size -5 is not a whole"),
        (
            {"policy_kwargs": {"net_arch": [64, 1.5]}},
            [],
            "net_arch: layer size 1.5 is not a whole number of at least 1",
        ),
        (
            {"policy_kwargs": {"net_arch": {"pi": [8], "vf": [0]}}},
            [],
            "net_arch.vf: layer size 0 is not a whole number",
        ),
        ({"policy_kwargs": {"net_arch": {"pi": [8], "q": [8]}}}, [], f"net_arch: 'q' is not a head (pi, vf); {NET}"),
        ({"policy_kwargs": {"net_arch": "big"}}, [], f"net_arch: 'big' is not a list of layer sizes; {NET}"),
        ({}, ["--policy-kwargs", "{net_arch: [0]}"], "--policy-kwargs: net_arch: layer size 0 is not a whole number"),
        ({"policy_kwargs": {"activation_fn": "Nope"}}, [], "activation_fn: 'Nope' is not the name of a torch.nn"),
        ({"policy_kwargs": {"activation_fn": 3}}, [], "activation_fn: 3 is not the name of a torch.nn activation"),
        ({"policy_kwargs": {"features_extractor_kwargs": [1]}}, [], "features_extractor_kwargs: [1] is not a mapping"),
        ({"policy_kwargs": {"features_extractor_class": "torch.nn.No"}}, [], "features_extractor_class: cannot import"),
        ({"policy": "NoSuchPolicy"}, [], f"{GOLF}.policy: must be one of MlpPolicy, CnnPolicy, MultiInputPolicy or"),
        ({}, ["--policy", "a.b.C"], "--policy: cannot import 'a.b.C' (got 'a.b.C')"),
        ({"policy": CARDS}, [], "the dotted path of a MaskableActorCriticPolicy subclass (got 'agents.training"),
        ({"policy_kwargs": {"net_arc": [8]}}, [], f"{BUILD}MaskableActorCriticPolicy.__init__() got an unexpected"),
        ({}, ["--policy-kwargs", "{net_ar: [8]}"], "--policy-kwargs: building the MlpPolicy policy failed: "),
        ({"policy": "CnnPolicy"}, [], f"{GOLF}.policy_kwargs: building the CnnPolicy policy failed: You should use"),
        (
            {"policy_kwargs": {"features_extractor_class": CARDS, "features_extractor_kwargs": {"card_slots": 0}}},
            [],
            f"{BUILD}card_slots must be in 1..",
        ),
    ],
)
def test_a_policy_setting_the_model_refuses_is_one_line_and_leaves_no_folder(
    tmp_path, capsys, settings, flags, message
):
    """The policy is checked (and built once) before the run directory is made: a setting it refuses is one line
    naming the key or flag, and the file system is as it was: no new folder, an empty one still empty."""
    path = write(tmp_path, settings)
    existing = tmp_path / "existing"
    existing.mkdir()
    for run_dir in (tmp_path / "runs" / "run", existing):
        assert experiment.main(["--config", str(path), "--run-dir", str(run_dir), "--no-progress-bar", *flags]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {path}: ") and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "runs").exists() and list(existing.iterdir()) == []

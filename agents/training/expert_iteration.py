"""Expert iteration (Anthony, Tian & Barber 2017): a network taught by the search it guides.

    python train.py --config configs/puss_search.yaml                  # a new run: runs/<env>-search-<time>
    python train.py --config configs/puss_search.yaml --resume runs/X  # go on after a stop
    python train.py --config configs/puss_search.yaml --backend ray --address auto  # self-play on a cluster

Each generation, the learned search (:mod:`agents.search`: Gumbel root search over determinized worlds, the
prior and the leaf value from the network, exact where nothing is hidden) plays ``games`` self-play games
with the current network, Gumbel noise on. Every decision is kept with the search's improved policy (the
completed-Q softmax; where nothing is hidden, the solver's proven move) and, once the game ends, the game's
final value. The network is then fitted to the
last ``window`` generations' decisions: cross-entropy to the improved policy, squared error to the value.
No heuristic anywhere: the network starts from random weights on a rules-only encoding (or from a PPO model
trained on it from the rules alone: ``warm_start``), and no greedy plays, evaluates or teaches (an
import-linter contract forbids this module and :mod:`agents.search` to import ``patience_gym.heuristics``
and ``agents.baselines`` directly).

The run directory holds ``config.yaml``, ``network/gen_<k>.zip`` (the network that plays generation ``k``;
each carries its spec, so it also plays alone as ``ppo:PATH``), ``selfplay/gen_<k>/`` (the kept self-play
shards: a run killed in the middle plays again only the shards it had not finished), ``tb/`` (TensorBoard),
``training.json`` (each generation's games, scores, losses and seconds), then ``model.zip`` (the last
network) and the report: the network alone, the search with it, and the config's other agents (the greedy
and the planner) on the same report deals, paired with the greedy (``report.md``, ``results.json``).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import yaml
from pydantic import Field, Strict, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass

from agents.pydantic_errors import one_line
from agents.search.exact import MAX_NODES
from agents.training.config import _STRICT, TRAIN_SEED_BASE, ConfigError, Count, Real, Seed, UniqueKeyLoader
from agents.training.self_play import Games, SelfPlayShard, digest, self_play

#: The only encodings the learned search may read: the rules alone.
RULES_ONLY = ("rules_moves",)


@dataclass(config=_STRICT)
class SearchSettings:
    """The self-play search's budget: leaf evaluations a move and candidate moves at the root."""

    sims: Count = 16
    considered: Count = 16
    #: Golf: with at most this many stock cards left, the exact expectimax's move (:mod:`agents.search.exact`),
    #: in self-play and in the report's search; None: off.
    exact_from: Annotated[int, Strict(), Field(ge=0)] | None = None
    #: Positions the solver may search for the exact line once nothing is hidden, in self-play.
    exact_nodes: Count = MAX_NODES


@dataclass(config=_STRICT)
class ExItReport:
    """The final comparison on the same seeded deals: the network alone, the search, and ``agents``."""

    episodes: Count = 1000
    seed: Seed = 0
    agents: list[Annotated[str, Strict()]] = dataclasses.field(default_factory=lambda: ["greedy", "planner"])
    sims: Count = 16  # the search's budget in the report
    exact_nodes: Count = MAX_NODES  # the report's search's budget for the exact line where nothing is hidden
    jobs: Count = 1


@dataclass(config=_STRICT)
class ExItConfig:
    """An expert-iteration run (see the module docstring)."""

    env_id: Annotated[str, Strict()]
    algorithm: Literal["expert_iteration"]
    env_kwargs: dict[str, Any] = dataclasses.field(default_factory=lambda: {"obs_encoding": "rules_moves"})
    network: dict[str, Any] = dataclasses.field(default_factory=dict)  # MaskablePPO policy_kwargs
    policy: Annotated[str, Strict()] = "agents.training.networks.LogitsPolicy"
    search: SearchSettings = dataclasses.field(default_factory=SearchSettings)
    generations: Count = 10
    games: Count = 200  # self-play games a generation
    shard_size: Count = 10
    window: Count = 3  # generations of games the network is fitted to
    epochs: Count = 4
    batch_size: Count = 256
    learning_rate: Annotated[Real, Field(gt=0)] = 1.0e-3
    value_coef: Annotated[Real, Field(ge=0)] = 1.0
    #: A MaskablePPO model of this env, rules and encoding, with the config's network, trained from the rules
    #: alone (no teacher): generation 0 starts from its weights instead of random ones (see :func:`new_network`).
    warm_start: Annotated[str, Strict()] | None = None
    #: The network of another env's expert-iteration run, with the same encoding, network and score scale (a
    #: game of the same family): generation 0 starts from all its weights, its value included (see
    #: :func:`transfer_weights`).
    transfer_from: Annotated[str, Strict()] | None = None
    jobs: Count = 2  # self-play processes
    report: ExItReport = dataclasses.field(default_factory=ExItReport)

    def __post_init__(self) -> None:
        encoding = self.env_kwargs.get("obs_encoding")
        if encoding not in RULES_ONLY:
            raise ValueError(f"env_kwargs.obs_encoding must be a rules-only encoding ({', '.join(RULES_ONLY)})")
        if self.warm_start is not None and self.transfer_from is not None:
            raise ValueError("give warm_start (a PPO model of this env) or transfer_from (another env's), not both")


_CONFIG = TypeAdapter(ExItConfig)


def is_expert_iteration(path: Path) -> bool:
    """Whether the YAML config at ``path`` is an expert-iteration config (its env's ``algorithm``)."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=UniqueKeyLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and any(
        isinstance(v, dict) and v.get("algorithm") == "expert_iteration" for v in data.values()
    )


def load_exit_config(path: Path) -> ExItConfig:
    """The config of the file's one env; a ConfigError naming the file, the key and the problem."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=UniqueKeyLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict) or len(data) != 1:
        raise ConfigError(f"{path}: an expert-iteration config holds one env id and its settings")
    ((env_id, settings),) = data.items()
    try:
        config = _CONFIG.validate_python({"env_id": env_id, **(settings or {})})
    except ValidationError as exc:
        raise ConfigError(f"{path}: {one_line(exc, env_id, ())}") from None
    check_env(config, path)
    return config


def check_env(config: ExItConfig, path: Path) -> None:
    """The env, its options and the report's agents, made once before any game."""
    import gymnasium as gym

    import patience_gym
    from agents.registry import check_agent_spec

    if config.env_id not in patience_gym.ENVS:
        raise ConfigError(f"{path}: {config.env_id} is not a patience_gym env ({', '.join(patience_gym.ENVS)})")
    try:
        env = gym.make(config.env_id, **config.env_kwargs)
        if config.search.exact_from is not None and env.unwrapped.game.name != "golf":  # type: ignore[attr-defined]
            raise ValueError(f"search.exact_from is Golf's exact ending (one hole), not {config.env_id}'s")
        for spec in config.report.agents:
            check_agent_spec(spec, env.unwrapped.game.name, config.env_id, config.env_kwargs)  # type: ignore[attr-defined]
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from None


# --- the network ---------------------------------------------------------------------------------------


def new_network(config: ExItConfig, seed: int) -> Any:
    """A MaskablePPO model on the config's env and network: random weights, or the ``warm_start`` model's
    (:func:`warm_weights`)."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from agents.training.config import resolve_policy, resolve_policy_kwargs
    from agents.training.networks import complete_extractor_kwargs

    env = gym.make(config.env_id, **config.env_kwargs)
    layout = env.unwrapped.observer.layout  # type: ignore[attr-defined]
    kwargs = complete_extractor_kwargs(resolve_policy_kwargs(config.network), layout)
    try:
        model = MaskablePPO(resolve_policy(config.policy), env, policy_kwargs=kwargs or None, seed=seed, device="cpu")
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ConfigError(f"{config.env_id}.network: {' '.join(str(exc).split())}") from None
    if config.warm_start is not None:
        warm_weights(model, config)
    if config.transfer_from is not None:
        transfer_weights(model, config)
    return model


def warm_weights(model: Any, config: ExItConfig) -> None:
    """Give ``model`` the ``warm_start`` model's weights: refused by name unless that model was trained on the
    config's env, rules and encoding (:func:`agents.load.load_for_env`) with the same network. Its critic
    learnt PPO's return still to come, not the final value the search reads, so the critic's last layer is set
    to a constant (every position worth 0.5): generation 0's search then follows the warm policy's prior, the
    exact endings aside, and the games' final values teach the critic from there."""
    import torch as th

    from agents.load import ModelSpecError, load_for_env

    where = f"{config.env_id}.warm_start {config.warm_start}"
    try:
        warm = load_for_env(str(config.warm_start), config.env_id, config.env_kwargs).model
    except (ModelSpecError, OSError, ValueError) as exc:
        raise ConfigError(f"{where}: {' '.join(str(exc).split())}") from None
    copy_weights(model, warm, where)
    with th.no_grad():
        model.policy.value_net.weight.zero_()
        model.policy.value_net.bias.fill_(0.5)


def transfer_weights(model: Any, config: ExItConfig) -> None:
    """Give ``model`` all the weights of ``transfer_from``: the network of another env's expert-iteration run
    (its card is that run's report), refused by name unless it has the config's encoding, observation and
    action shapes, network and score scale. Its value is kept: it is a final value on the same scale. Such a
    network learnt from its own search alone, so nothing heuristic comes with it."""
    from agents.load import ModelSpecError, load, read_model_spec
    from agents.search.network import SCORE_RANGE

    where = f"{config.env_id}.transfer_from {config.transfer_from}"
    try:
        spec = read_model_spec(str(config.transfer_from))
        if spec is None:
            raise ModelSpecError("it carries no spec (what it was trained on)")
        if not (spec.card or "").startswith(f"# {spec.env_id}: expert iteration"):
            raise ModelSpecError("it is not an expert-iteration network (its card is not such a run's report)")
        donor = load(str(config.transfer_from)).model
    except (ModelSpecError, OSError, ValueError) as exc:
        raise ConfigError(f"{where}: {' '.join(str(exc).split())}") from None
    import gymnasium as gym

    ours = gym.make(config.env_id, **config.env_kwargs).unwrapped
    theirs = gym.make(spec.env_id, **spec.make_kwargs()).unwrapped
    problems = {
        "encoding": (spec.obs_encoding, ours.obs_encoding),  # type: ignore[attr-defined]
        "observation shape": (tuple(spec.observation_shape), ours.observation_space.shape),
        "actions": (spec.num_actions, int(ours.action_space.n)),  # type: ignore[attr-defined]
        "score scale": (SCORE_RANGE[theirs.game.name], SCORE_RANGE[ours.game.name]),  # type: ignore[attr-defined]
    }
    for name, (given, wanted) in problems.items():
        if given != wanted:
            raise ConfigError(f"{where}: it was trained on {spec.env_id}, whose {name} is {given}, not {wanted}")
    copy_weights(model, donor, where)


def copy_weights(model: Any, donor: Any, where: str) -> None:
    """Give ``model`` every weight of ``donor``; a ConfigError naming ``where`` if the networks differ."""
    try:
        model.policy.load_state_dict(donor.policy.state_dict())
    except RuntimeError as exc:
        problem = " ".join(str(exc).split())[:300]
        raise ConfigError(f"{where}: its network is not the config's network ({problem})") from None


def save_network(model: Any, path: Path, config: ExItConfig) -> None:
    """Save ``model`` atomically with its spec (it then plays as ``ppo:PATH`` and ``search:PATH``)."""
    from agents.load import save_model_spec

    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(f".{path.stem}.incoming.zip")
    model.save(str(scratch))
    save_model_spec(scratch, config.env_id, config.env_kwargs)
    scratch.replace(path)


def fit(model: Any, games: Games, config: ExItConfig, seed: int) -> dict[str, float]:
    """Fit the network to the games: cross-entropy to the search's improved policies, squared error to the
    final values; the epochs' last mean losses."""
    import torch as th

    from agents.training.imitation import gradient_step

    policy = model.policy
    optimizer = th.optim.Adam(policy.parameters(), lr=config.learning_rate)
    rng = np.random.default_rng(seed)
    obs, masks = th.as_tensor(games.obs), th.as_tensor(games.masks)
    targets, values = th.as_tensor(games.policies), th.as_tensor(games.values)
    totals = {"policy_loss": 0.0, "value_loss": 0.0}
    for _ in range(config.epochs):
        policy.set_training_mode(True)
        totals = dict.fromkeys(totals, 0.0)
        order = th.as_tensor(rng.permutation(len(games)))
        for start in range(0, len(order), config.batch_size):
            idx = order[start : start + config.batch_size]
            features = policy.obs_to_tensor(obs[idx].numpy())[0]
            distribution = policy.get_distribution(features, action_masks=masks[idx].numpy())
            log_probs = distribution.distribution.logits  # masked log-probabilities
            policy_loss = -(targets[idx] * log_probs.clamp(min=-1e4)).sum(dim=1).mean()
            value_loss = th.nn.functional.mse_loss(policy.predict_values(features).flatten(), values[idx])
            gradient_step(optimizer, policy, policy_loss + config.value_coef * value_loss, 1.0)
            totals["policy_loss"] += float(policy_loss.detach()) * len(idx)
            totals["value_loss"] += float(value_loss.detach()) * len(idx)
    policy.set_training_mode(False)
    return {k: v / max(1, len(games)) for k, v in totals.items()}


# --- the run -------------------------------------------------------------------------------------------


def generation_seeds(config: ExItConfig, seed: int, generation: int) -> range:
    """The deals of one generation's self-play: apart from the report's, the evaluations' and other runs'."""
    start = TRAIN_SEED_BASE + seed * 10_000_000 + generation * config.games
    return range(start, start + config.games)


def shards_of(config: ExItConfig, network: Path, generation: int, seed: int) -> list[SelfPlayShard]:
    """One generation's self-play shards, played by ``network``."""
    seeds = list(generation_seeds(config, seed, generation))
    kwargs = json.dumps(config.env_kwargs, sort_keys=True)
    found = digest(network)
    return [
        SelfPlayShard(
            config.env_id,
            kwargs,
            str(network),
            found,
            config.search.sims,
            config.search.considered,
            generation,
            tuple(seeds[i : i + config.shard_size]),
            config.search.exact_from,
            config.search.exact_nodes,
        )
        for i in range(0, len(seeds), config.shard_size)
    ]


def network_path(run_dir: Path, generation: int) -> Path:
    return run_dir / "network" / f"gen_{generation:03d}.zip"


def train(
    config: ExItConfig,
    run_dir: Path,
    seed: int,
    progress_bar: bool = True,
    backend: str | None = None,
    address: str | None = None,
) -> Path:
    """Run (or go on with) the generations in ``run_dir``, then write the model and the report. Self-play is
    sharded on ``backend`` (default: ``process`` where ``config.jobs`` > 1, else ``serial``; ``ray`` at
    ``address`` or a local Ray), ``config.jobs`` workers."""
    from sb3_contrib import MaskablePPO
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    record_path = run_dir / "training.json"
    record: dict[str, Any] = (
        json.loads(record_path.read_text()) if record_path.is_file() else {"seed": seed, "generations": []}
    )
    done = len(record["generations"])
    if done == 0 and not network_path(run_dir, 0).is_file():
        save_network(new_network(config, seed), network_path(run_dir, 0), config)
    model = MaskablePPO.load(str(network_path(run_dir, done)), device="cpu")
    writer = SummaryWriter(str(run_dir / "tb"))
    bar = tqdm(total=config.generations, initial=done, desc="generations", disable=not progress_bar)
    for generation in range(done, config.generations):
        start = time.perf_counter()
        shards = shards_of(config, network_path(run_dir, generation), generation, seed)
        folder = run_dir / "selfplay" / f"gen_{generation:03d}"
        games, played = self_play(shards, folder, backend or default_backend(config), config.jobs, address)
        scores = games.scores.copy()
        window = [games] + [
            kept_games(config, run_dir, g, seed) for g in range(max(0, generation - config.window + 1), generation)
        ]
        losses = fit(model, Games.join(window), config, seed + generation)
        save_network(model, network_path(run_dir, generation + 1), config)
        entry = {
            "generation": generation,
            "games": len(scores),
            "decisions": len(games),
            "mean_score": float(scores.mean()),
            "shards_played": played,
            "seconds": time.perf_counter() - start,
            **losses,
        }
        record["generations"].append(entry)
        (run_dir / "training.json").write_text(json.dumps(record, indent=2))
        for key in ("mean_score", "policy_loss", "value_loss", "seconds"):
            writer.add_scalar(f"expert_iteration/{key}", entry[key], generation)
        writer.flush()
        bar.update(1)
        bar.set_postfix(score=f"{entry['mean_score']:.2f}")
    bar.close()
    writer.close()
    shutil.copyfile(network_path(run_dir, config.generations), run_dir / "model.zip")
    return run_dir


def default_backend(config: ExItConfig) -> str:
    """Self-play's backend where none is given: processes where the config asks for several jobs."""
    return "process" if config.jobs > 1 else "serial"


def kept_games(config: ExItConfig, run_dir: Path, generation: int, seed: int) -> Games:
    """A finished generation's self-play, read back from its kept shards."""
    shards = shards_of(config, network_path(run_dir, generation), generation, seed)
    games, played = self_play(shards, run_dir / "selfplay" / f"gen_{generation:03d}")
    if played:
        raise ConfigError(f"generation {generation}'s self-play in {run_dir} was not all kept: it was played again")
    return games


def write_report(config: ExItConfig, run_dir: Path) -> str:
    """The network alone, the search and the config's agents on the same report deals, paired with the greedy."""
    from agents.evaluation.evaluate import evaluate, format_table

    model = run_dir / "model.zip"
    exact = "" if config.search.exact_from is None else f",exact_from={config.search.exact_from}"
    if config.report.exact_nodes != MAX_NODES:
        exact += f",exact_nodes={config.report.exact_nodes}"
    specs = [f"ppo:{model}", f"search:{model},sims={config.report.sims}{exact}", *config.report.agents]
    results = evaluate(
        config.env_id, specs, config.report.episodes, config.report.seed, config.env_kwargs, config.report.jobs
    )
    ending = "" if config.search.exact_from is None else f", exact from {config.search.exact_from}"
    if config.report.exact_nodes != MAX_NODES:
        ending += f", exact line within {config.report.exact_nodes:,} positions"
    labels = ["network alone", f"search ({config.report.sims} sims{ending})", *config.report.agents]
    results = [dataclasses.replace(r, agent=label) for r, label in zip(results, labels, strict=True)]
    import gymnasium as gym

    lower = bool(gym.make(config.env_id).unwrapped.game.lower_score_is_better)  # type: ignore[attr-defined]
    table = format_table(config.env_id, results, lower)
    training = json.loads((run_dir / "training.json").read_text())
    payload = {
        "env": config.env_id,
        "env_kwargs": config.env_kwargs,
        "model": labels[0],  # the run's own model in "scores", as a sweep's report reads it
        "timesteps": sum(g["decisions"] for g in training["generations"]),  # the decisions it learned from
        "train_seconds": sum(g["seconds"] for g in training["generations"]),
        "episodes": config.report.episodes,
        "seed": config.report.seed,
        "lower_score_is_better": lower,
        "search_sims": config.report.sims,  # the search's budget in the report, a move
        "search_exact_from": config.search.exact_from,
        "search_exact_nodes": config.report.exact_nodes,
        "results": [r.row() for r in results],
        "paired": paired_with_greedy(results, lower),
        "scores": {r.agent: r.scores for r in results},
        "training": training,
    }
    (run_dir / "results.json").write_text(json.dumps(payload, indent=2))
    text = "\n".join(
        [
            f"# {config.env_id}: expert iteration",
            "",
            f"{config.generations} generations of {config.games} self-play games, searched with "
            f"{config.search.sims} leaf evaluations a move; every agent on the same {config.report.episodes} "
            f"deals (seeds {config.report.seed}..{config.report.seed + config.report.episodes - 1}).",
            "",
            table,
            "",
            "| agent minus greedy | mean difference, paired by deal ± 95% CI | better outside the interval? |",
            "|---|---:|:---:|",
            *(
                f"| {r['agent']} | {r['mean']:+.2f} ± {r['ci95']:.2f} | {'yes' if r['better'] else 'no'} |"
                for r in payload["paired"]
            ),
        ]
    )
    (run_dir / "report.md").write_text(text + "\n")
    from agents.load import save_model_spec

    save_model_spec(model, config.env_id, config.env_kwargs, card=text + "\n")  # the model carries its report
    return text


def train_trial(config_path: Path, run_dir: Path, seed: int, cpus: int) -> None:
    """One trial of a seed sweep (:mod:`agents.training.sweep`): the config's run at ``seed`` in ``run_dir``, its
    self-play and report kept to ``cpus`` processes; a trial restarted after a kill goes on where it stopped."""
    from agents.training.run_directory import hold_run

    config = load_exit_config(config_path)
    config = dataclasses.replace(config, jobs=cpus, report=dataclasses.replace(config.report, jobs=cpus))
    with hold_run(run_dir):
        if not (run_dir / "config.yaml").is_file():
            shutil.copyfile(config_path, run_dir / "config.yaml")
        train(config, run_dir, seed, progress_bar=False)
        write_report(config, run_dir)


def paired_with_greedy(results: list[Any], lower: bool) -> list[dict[str, Any]]:
    """Each agent minus the greedy, deal by deal: mean, 95% half-width, better outside it (none without greedy)."""
    from agents.evaluation.intervals import paired_ci95

    greedy = next((r for r in results if r.agent == "greedy"), None)
    rows = []
    for r in results:
        if greedy is None or r is greedy:
            continue
        mean, half = paired_ci95(r.scores, greedy.scores)
        gain = -mean if lower else mean
        rows.append({"agent": r.agent, "mean": mean, "ci95": half, "better": bool(gain - half > 0)})
    return rows


def parse(argv: Sequence[str]) -> Any:
    import argparse

    parser = argparse.ArgumentParser(prog="train.py", description=__doc__, allow_abbrev=False,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--config", type=Path)
    parser.add_argument("--run-dir", type=Path)
    parser.add_argument("--resume", type=Path)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--no-progress-bar", dest="progress_bar", action="store_false")
    parser.add_argument(
        "--backend",
        choices=("serial", "process", "ray"),
        help="where self-play runs (default: process where the config's jobs > 1, else serial)",
    )
    parser.add_argument("--address", help="a Ray cluster for --backend ray (auto, host:6379, ray://host:10001)")
    return parser.parse_args(list(argv))


def check_backend(args: Any) -> None:
    """``--backend`` and ``--address`` make sense together and Ray is there to use, before any game."""
    if args.address is not None and args.backend != "ray":
        raise ConfigError("--address names a Ray cluster: give it with --backend ray")
    if args.backend != "ray":
        return
    from agents.evaluation.sharding import check_ray_address

    try:
        import ray  # noqa: F401
    except ImportError:
        raise ConfigError('--backend ray needs Ray: pip install -e ".[ray]"') from None
    if args.address is not None:
        try:
            check_ray_address(args.address)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None


def check_seed(seed: int) -> None:
    """A ConfigError for a training seed past 0..99: each seed's self-play deals start 10,000,000 apart."""
    if not 0 <= seed < 100:
        raise ConfigError(
            f"training seed {seed}: expert iteration's training seeds are 0..99 (its deals 10,000,000 apart)"
        )


def plan(args: Any) -> tuple[ExItConfig, Path, int]:
    """The config, the run directory and the seed, checked before any game."""
    if args.resume is not None:
        saved = args.resume / "config.yaml"
        if not saved.is_file():
            raise ConfigError(f"cannot resume: {saved} is missing (is {args.resume} an expert-iteration run?)")
        config = load_exit_config(saved)
        if args.config is not None and load_exit_config(args.config) != config:
            raise ConfigError(f"cannot resume: {args.config} differs from the config {args.resume} was made with")
        seed = json.loads((args.resume / "training.json").read_text()).get("seed", 0) if (
            args.resume / "training.json").is_file() else 0  # fmt: skip
        if args.seed is not None and args.seed != seed:
            raise ConfigError(f"--seed {args.seed} differs from the run's seed {seed}")
        return config, args.resume, seed
    if args.config is None:
        raise ConfigError("give --config FILE (an expert-iteration config) or --resume DIR")
    config = load_exit_config(args.config)
    seed = args.seed or 0
    check_seed(seed)
    new_network(config, seed)  # the network builds (its settings checked) before any folder is made
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = args.run_dir or Path(f"runs/{config.env_id.split('/')[-1]}-search-{stamp}")
    if run_dir.exists() and any(p.name != ".writer.lock" for p in run_dir.iterdir()):
        raise ConfigError(f"run directory {run_dir} is not empty: go on with it by --resume {run_dir}")
    return config, run_dir, seed


def main(argv: Sequence[str] | None = None) -> int:
    """Train by expert iteration; a user error is one line on stderr and exit status 2."""
    from agents.training.run_directory import hold_run

    try:
        args = parse(sys.argv[1:] if argv is None else argv)
        check_backend(args)
        config, run_dir, seed = plan(args)
        with hold_run(run_dir):
            if not (run_dir / "config.yaml").is_file():
                source = args.config.read_text(encoding="utf-8")
                (run_dir / "config.yaml").write_text(source)
            train(config, run_dir, seed, args.progress_bar, args.backend, args.address)
            print(write_report(config, run_dir))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"\nrun written to {run_dir}")
    return 0

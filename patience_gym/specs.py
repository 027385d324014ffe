"""The game table: one :class:`GameSpec` per game, the only place that lists the games.

Every registry reads this table: the registered envs (:data:`patience_gym.ENVS`), the
rules (:data:`patience_gym.games.GAMES`), the observers
(:data:`patience_gym.features.FEATURE_MODULES`), the renderers
(:data:`patience_gym.render.TEXT_RENDERERS`, :data:`patience_gym.render.image.LAYOUTS`),
the batched engines (:data:`patience_gym.vector.BATCHED_GAMES`), the greedy hint of terminal
play (:func:`patience_gym.heuristics.greedy_move`) and the agents' per-game tables
(``agents.registry``). Its entries are ``"module:attr"`` strings imported only when used, and this
module imports nothing but the standard library, so every layer may read it.

Adding a game is a row here plus the game's own modules: see ``docs/pages/adding_a_game.md``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SPECS", "GameSpec", "by_env_id", "by_game", "load"]


@dataclass(frozen=True)
class GameSpec:
    """Where everything of one game lives: ``"module:attr"`` (or module) strings, imported on use."""

    #: The rules' short name (``Game.name``), e.g. ``"golf"``.
    game: str
    #: The registered env id, e.g. ``"patience_gym/Golf-v0"``.
    env_id: str
    #: ``"module:Class"`` of the documented env class (``gym.make``'s entry point).
    env: str
    #: ``"module:Class"`` of the rules (a :class:`patience_gym.core.Game`).
    rules: str
    #: The registered env's safety-net step limit (``max_episode_steps``); stated here only.
    max_episode_steps: int
    #: ``"module:function"`` drawing a state as text: ``render(game, state) -> str``.
    text_renderer: str
    #: Module of the picture layout (``SIZE`` and ``draw(game, state, last_action, previous)``).
    image_layout: str
    #: Module whose ``ENCODINGS`` maps observation encodings to observer factories; None: the plain ones only.
    features: str | None = None
    #: ``"module:function"`` of the greedy move from the visible position, ``(game, state, mask) -> int``.
    greedy_move: str | None = None
    #: ``"module:Class"`` of the batched engine (a ``patience_gym.vector.base.BatchedGame``); None: none.
    batched: str | None = None
    #: The agents floor's per-game agents by kind (``greedy``, ``planner``, ``solver``): ``"module:Class"``.
    agents: Mapping[str, str] = field(default_factory=dict)

    @property
    def vector_entry_point(self) -> str | None:
        """The registered ``vector_entry_point`` (None without a batched engine): ``patience_gym.vector``
        under the env class's name, which :func:`patience_gym.vector.make_batched_env` serves."""
        return "patience_gym.vector:" + self.env.split(":")[1] if self.batched else None


_GOLF_HOLE_LIMIT = 500

SPECS: tuple[GameSpec, ...] = (
    GameSpec(
        game="golf",
        env_id="patience_gym/Golf-v0",
        env="patience_gym.envs.golf:GolfEnv",
        rules="patience_gym.games.golf:Golf",
        max_episode_steps=_GOLF_HOLE_LIMIT,
        text_renderer="patience_gym.render.golf:render_hole",
        image_layout="patience_gym.render.image_golf",
        features="patience_gym.features.golf",
        greedy_move="patience_gym.heuristics.golf_greedy:greedy_move",
        batched="patience_gym.vector.golf:BatchedGolf",
        agents={
            "greedy": "agents.baselines.greedy_golf:GolfGreedy",
            "solver": "agents.solvers.golf:GolfSolverAgent",
            "planner": "agents.planners.golf:GolfPlanner",
        },
    ),
    GameSpec(
        game="golf_round",
        env_id="patience_gym/GolfRound-v0",
        env="patience_gym.envs.golf:GolfRoundEnv",
        rules="patience_gym.games.golf:GolfRound",
        max_episode_steps=9 * _GOLF_HOLE_LIMIT,  # nine holes
        text_renderer="patience_gym.render.golf:render_round",
        image_layout="patience_gym.render.image_golf",
        features="patience_gym.features.golf",
        greedy_move="patience_gym.heuristics.golf_greedy:greedy_move",
        batched="patience_gym.vector.golf:BatchedGolfRound",
        agents={
            "greedy": "agents.baselines.greedy_golf:GolfGreedy",
            "solver": "agents.solvers.golf:GolfSolverAgent",
            "planner": "agents.planners.golf:GolfPlanner",
        },
    ),
    GameSpec(
        game="puss_in_the_corner",
        env_id="patience_gym/PussInTheCorner-v0",
        env="patience_gym.envs.puss:PussInTheCornerEnv",
        rules="patience_gym.games.puss:PussInTheCorner",
        max_episode_steps=1_000,
        text_renderer="patience_gym.render.puss:render",
        image_layout="patience_gym.render.image_puss",
        features="patience_gym.features.puss",
        greedy_move="patience_gym.heuristics.puss_greedy:greedy_move",
        batched="patience_gym.vector.puss:BatchedPuss",
        agents={
            "greedy": "agents.baselines.greedy_puss:PussGreedy",
            "solver": "agents.solvers.puss:PussSolverAgent",
            "planner": "agents.planners.puss:PussPlanner",
        },
    ),
    *(
        GameSpec(
            game=game,
            env_id=f"patience_gym/{title}-v0",
            env=f"patience_gym.envs.milligan:{title}Env",
            rules=f"patience_gym.games.milligan:{title}",
            max_episode_steps=10_000,
            text_renderer="patience_gym.render.milligan:render",
            image_layout="patience_gym.render.image_milligan",
            features="patience_gym.features.milligan",
            greedy_move="patience_gym.heuristics.milligan_greedy:greedy_move",
            batched=f"patience_gym.vector.milligan:Batched{title}",
            agents={
                "greedy": "agents.baselines.greedy_milligan:MilliganGreedy",
                "solver": "agents.solvers.milligan:MilliganSolverAgent",
                "planner": "agents.planners.milligan:MilliganPlanner",
            },
        )
        for game, title in (
            ("miss_milligan", "MissMilligan"),
            ("giant", "Giant"),
            ("miss_milligan_pocket", "MissMilliganPocket"),
        )
    ),
)


def by_game(name: str) -> GameSpec:
    """The spec of game ``name`` (``Game.name``); ValueError naming the known games."""
    for spec in SPECS:
        if spec.game == name:
            return spec
    raise ValueError(f"unknown game {name!r}; known games: {', '.join(sorted(s.game for s in SPECS))}")


def by_env_id(env_id: str) -> GameSpec:
    """The spec of the env registered as ``env_id``; ValueError naming the known ids."""
    for spec in SPECS:
        if spec.env_id == env_id:
            return spec
    raise ValueError(f"unknown env {env_id!r}; choose one of {', '.join(s.env_id for s in SPECS)}")


def load(target: str) -> Any:
    """What a ``"module:attr"`` entry names (a bare module name: the module), imported now."""
    module, _, attr = target.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attr) if attr else loaded

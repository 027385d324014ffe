"""The learned search as an agent: ``search:PATH`` (options ``sims=16``, or ``seconds=0.05`` a move,
``considered=16``, ``root=halving`` or ``root=flat``: determinized Monte Carlo over every move, the baseline
the halving was chosen against, ``exact_nodes=50000``: the positions the solver may search for the exact line
once nothing is hidden, and for Golf ``exact_from=11``: the exact expectimax's move once at most 11 stock cards
are left, for a player who does not see their order), in ``evaluate``, ``watch`` and ``play --hint-agent``.

PATH is a network saved by expert iteration (or any MaskablePPO model on the env's rules-only encoding that
carries its spec): it is refused by name unless it was trained on the env it is asked to play, with the same
rule options and encoding. A game made of parts plays each part as a game of its own: nine-hole Golf is
searched hole by hole with a Golf network (the holes' scores add up, and no hole's cards tell of another's).
The agent plays without Gumbel noise (the best candidates of its prior) and draws its worlds from a
generator seeded by the deal, so a game is the same twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from agents.base import Agent
from agents.search.exact import MAX_NODES
from agents.search.gumbel import GumbelSearch, SearchConfig
from agents.search.network import PolicyValue
from patience_gym.env import PatienceEnv
from patience_gym.features import make_observer

#: The options of ``search:PATH,...`` and their defaults.
OPTIONS: dict[str, Any] = {
    "sims": 16,
    "seconds": None,
    "considered": 16,
    "root": "halving",
    "exact_from": None,
    "exact_nodes": MAX_NODES,
}
#: The root searches ``root=`` names.
ROOTS = ("halving", "flat")


class SearchAgent(Agent):
    """Gumbel root search over determinized worlds with a learned prior and value (:mod:`agents.search.gumbel`)."""

    name = "search"
    reads_observation = False

    def __init__(
        self,
        path: str,
        env_id: str,
        env_kwargs: Mapping[str, Any] | None = None,
        sims: int = 16,
        seconds: float | None = None,
        considered: int = 16,
        root: str = "halving",
        exact_from: int | None = None,
        exact_nodes: int = MAX_NODES,
    ) -> None:
        check_budget(sims, seconds, considered)
        check_whole("exact_nodes", exact_nodes, 1)
        check_exact_from(exact_from)
        if root not in ROOTS:
            raise ValueError(f"the search's root must be one of {', '.join(ROOTS)}, got {root!r}")
        self.net = PolicyValue.load(path, env_id, env_kwargs)
        env = gym.make(env_id, **dict(env_kwargs or {}))
        env.reset(seed=0)
        unwrapped: PatienceEnv = env.unwrapped  # type: ignore[assignment]
        game, _ = unwrapped.game.stage(unwrapped.state)  # a round's hole: the search plays it as a game
        observer = make_observer(game, unwrapped.obs_encoding)
        exact = None if exact_from is None else int(exact_from)
        config = SearchConfig(
            sims=int(sims),
            seconds=seconds,
            considered=int(considered),
            root=root,
            exact_from=exact,
            exact_nodes=int(exact_nodes),
        )
        self.search = GumbelSearch(game, observer.observe, self.net, config)
        self.rng = np.random.default_rng(0)
        self._part = 0  # the part in play (a round's hole, :meth:`patience_gym.core.Game.part`)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.search.new_game()
        self._part = 0

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        _, position = env.game.stage(env.state)
        part = env.game.part(env.state)
        if part != self._part:  # each hole of a round is a game of its own: its hidden cards, its score
            self._part = part
            self.search.new_game()
        return self.search.run(position, self.rng, gumbel=False).action


def check_budget(sims: Any, seconds: Any, considered: Any) -> None:
    """A ValueError naming a budget of zero or less, or a count that is not a whole number."""
    if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0 and np.isfinite(seconds)):
        raise ValueError(f"the search's seconds a move must be a positive number, got {seconds!r}")
    for name, value in (("sims", sims), ("considered", considered)):
        check_whole(name, value, 1)


def check_whole(name: str, value: Any, least: int) -> None:
    """A ValueError naming a search option that is not a whole number of at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < least:
        raise ValueError(f"the search's {name} must be a whole number of at least {least}, got {value!r}")


def check_exact_from(exact_from: Any) -> None:
    """A ValueError naming an ``exact_from`` (stock cards) that is neither None nor a whole number of at least 0."""
    if exact_from is not None:
        check_whole("exact_from", exact_from, 0)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``search:PATH,sims=16`` as the path and its options; a ValueError naming an unknown or bad option."""
    _, _, arg = spec.partition(":")
    path, *items = arg.split(",")
    if not path or "=" in path:
        raise ValueError(f"agent {spec!r}: the search needs its network's path first: search:PATH,sims=16")
    options: dict[str, Any] = {}
    for item in items:
        name, eq, text = item.partition("=")
        if not eq or name not in OPTIONS:
            raise ValueError(f"agent {spec!r}: unknown search option {item!r}; the search takes {', '.join(OPTIONS)}")
        if name == "root":
            if text not in ROOTS:
                raise ValueError(f"agent {spec!r}: root must be one of {', '.join(ROOTS)}, got {text!r}")
            options[name] = text
            continue
        try:
            options[name] = None if text.lower() == "none" else float(text)
        except ValueError:
            raise ValueError(f"agent {spec!r}: search option {name} must be a number, got {text!r}") from None
    merged = {**OPTIONS, **options}
    if merged["seconds"] is not None and "sims" in options:
        raise ValueError(f"agent {spec!r}: give the budget in sims or in seconds, not both")
    check_budget(merged["sims"], merged["seconds"], merged["considered"])
    try:
        check_exact_from(merged["exact_from"])
        check_whole("exact_nodes", merged["exact_nodes"], 1)
    except ValueError as exc:
        raise ValueError(f"agent {spec!r}: {exc}") from None
    budget = {"sims": int(merged["sims"]), "seconds": merged["seconds"], "considered": int(merged["considered"])}
    exact = None if merged["exact_from"] is None else int(merged["exact_from"])
    return path, {**budget, "root": merged["root"], "exact_from": exact, "exact_nodes": int(merged["exact_nodes"])}

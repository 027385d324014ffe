"""The published models of each game and the observation encoding each reads (``models/<name>.md`` is each
one's card): played on fresh deals by :mod:`benchmarks.fresh_deals`, shown by :mod:`benchmarks.results`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Game:
    """One game's shipped models (path, the observation encoding it reads) and how they are played."""

    env_id: str
    lower_score_is_better: bool
    models: tuple[tuple[str, str], ...]


GOLF_MODELS = (("models/golf_rules.zip", "rules_moves"),)

GAMES = {
    "golf": Game("patience_gym/Golf-v0", True, GOLF_MODELS),
    "golf_round": Game("patience_gym/GolfRound-v0", True, GOLF_MODELS),
    "milligan": Game(
        "patience_gym/MissMilligan-v0",
        False,
        (("models/miss_milligan_moves_critic.zip", "moves"),),
    ),
    "giant": Game(
        "patience_gym/Giant-v0",
        False,
        (("models/giant_rules.zip", "rules_moves"), ("models/giant_moves_critic_lr3e4_1m.zip", "moves")),
    ),
    "pocket": Game(
        "patience_gym/MissMilliganPocket-v0",
        False,
        (("models/miss_milligan_pocket_moves_endgame.zip", "moves_endgame"),),
    ),
    "puss": Game(
        "patience_gym/PussInTheCorner-v0",
        False,
        (("models/puss_moves_replay_all.zip", "moves_replay_all"),),
    ),
}

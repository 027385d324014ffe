"""Feature extractors for card-game observations (Stable-Baselines3 ``features_extractor_class``) and the
policy that reads logits from them, one module per role:

* :mod:`~agents.training.networks.policy`: :class:`LogitsPolicy` (an extractor's first outputs as the
  action logits) and :func:`complete_extractor_kwargs` (layout arguments read from the encoding);
* :mod:`~agents.training.networks.cards`: the plain ``ids`` encodings (:class:`CardEmbedding`,
  :class:`GolfColumns`);
* :mod:`~agents.training.networks.golf_moves`: Golf's move network (:class:`GolfMoves`, ``runs`` or
  ``rules_moves``);
* :mod:`~agents.training.networks.move_scorers`: the heuristic ``moves`` encodings (:class:`MoveScorer`,
  :class:`MoveListScorer`);
* :mod:`~agents.training.networks.move_rows`: every game's rules-only ``rules_moves`` encoding
  (:class:`MoveRows`).

The rules-only networks (``golf_moves``, ``move_rows``) import nothing that reaches
:mod:`patience_gym.heuristics`; an import-linter contract in ``pyproject.toml`` checks it.

Configs and saved models name these classes by this package's path, which keeps every one of them::

    policy: agents.training.networks.LogitsPolicy
    policy_kwargs:
      features_extractor_class: agents.training.networks.CardEmbedding
      features_extractor_kwargs: {card_slots: 36, embed_dim: 32}
"""

from agents.training.networks.cards import CardEmbedding, GolfColumns
from agents.training.networks.golf_moves import GolfMoves, _LinkChains
from agents.training.networks.move_rows import MoveRows
from agents.training.networks.move_scorers import MoveListScorer, MoveScorer
from agents.training.networks.policy import FirstLogits, LogitsPolicy, ValueFromFeatures, complete_extractor_kwargs

__all__ = [
    "CardEmbedding",
    "FirstLogits",
    "GolfColumns",
    "GolfMoves",
    "LogitsPolicy",
    "MoveListScorer",
    "MoveRows",
    "MoveScorer",
    "ValueFromFeatures",
    "_LinkChains",
    "complete_extractor_kwargs",
]

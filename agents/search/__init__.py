"""Learned search: a Gumbel root search over determinized worlds, its move prior and leaf value from one
network on a rules-only encoding (:mod:`agents.search.network`), exact where nothing is hidden
(:mod:`agents.search.exact`). No heuristic anywhere: an import-linter contract forbids this package to
import ``patience_gym.heuristics`` and ``agents.baselines`` (the exact endings call the perfect-knowledge
solvers, whose move ordering reads the greedy's evaluation: that changes how fast a proven value is found,
never the value, so the contract counts direct imports only)."""

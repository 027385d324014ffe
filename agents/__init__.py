"""Agents that play patience_gym envs: baselines, PPO and search, behind one interface.

``agents.load("models/x.zip")`` loads a saved model that carries its spec, ready for evaluation.

This package is installed with patience_gym (its second top-level package), so code in any folder
can evaluate against the baselines (``agents.evaluation.evaluate.evaluate``). Other distributions
install a top-level ``agents`` too (openai-agents does): ``patience_gym.check_agents()`` says, in one
line, when another one is what ``import agents`` finds.
"""

from agents.base import Agent
from agents.load import load
from agents.registry import make_agent

__all__ = ["Agent", "load", "make_agent"]

"""Agents that play patience_gym envs: baselines, PPO and search, behind one interface.

``agents.load("models/x.zip")`` loads a saved model that carries its spec, ready for evaluation.
"""

from agents.base import Agent
from agents.load import load
from agents.registry import make_agent

__all__ = ["Agent", "load", "make_agent"]

"""Agents that play patience_gym envs: baselines, PPO and search, behind one interface."""

from agents.base import Agent
from agents.registry import make_agent

__all__ = ["Agent", "make_agent"]

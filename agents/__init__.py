"""Agents: random, heuristic and search players; the registry; the bot protocol."""

from .base import Agent, Decision, ParamSpec
from .registry import AGENTS, make, parse_spec, register

__all__ = ["AGENTS", "Agent", "Decision", "ParamSpec", "make", "parse_spec", "register"]

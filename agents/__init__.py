"""Baseline agents and a small registry mapping names to constructors.

``make_agent(name, rules, **kw)`` builds an agent from a name: ``"random"``,
``"heuristic"``, ``"search"`` (the determinised-search agent, when installed;
``"search-policy"`` and ``"search-uniform"`` draw its worlds by a player model
or uniformly, and ``"search:<agent>"`` rolls out with the agent named
``<agent>``, see ``agents.determinized``),
``"trained"`` (the bundled trained model), or ``"<prefix>:<argument>"`` such
as ``"model:runs/ppo/model.safetensors"`` for a prefix registered with
``register_prefix``. Agents in optional modules (search, SB3 models) are
imported on first use, so ``import agents`` stays light. New agents plug in with
``register_agent(name, factory)``; a factory is called as
``factory(rules, **kw)`` and returns a ``euchre_env.types.Policy``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from agents.base import Agent
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.view import ObsView
from euchre_env.rules import RulesConfig
from euchre_env.types import Policy

Factory = Callable[..., Policy]

_AGENTS: dict[str, Factory] = {"random": RandomAgent, "heuristic": HeuristicAgent}
_PREFIXES: dict[str, Callable[..., Policy]] = {}
# Agents that live in modules of their own, imported on first use: name -> "module:attribute".
_LAZY: dict[str, str] = {
    "search": "agents.determinized:DeterminizedAgent",
    "search-policy": "agents.determinized:policy_search_agent",  # worlds weighed by a player model
    "search-uniform": "agents.determinized:uniform_search_agent",  # uniform consistent worlds
    "trained": "agents.sb3_policy:trained_agent",
}
# Prefixes whose loader a module registers when imported: prefix -> module.
_LAZY_PREFIXES: dict[str, str] = {"model": "agents.sb3_policy", "search": "agents.determinized"}


def register_agent(name: str, factory: Factory) -> None:
    """Register ``factory(rules, **kw) -> Policy`` under ``name`` (replacing any previous one)."""
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"agent name must be a non-empty string without ':', got {name!r}")
    _AGENTS[name] = factory


def register_prefix(prefix: str, loader: Callable[..., Policy]) -> None:
    """Register ``loader(argument, rules, **kw) -> Policy`` for names ``"<prefix>:<argument>"``."""
    if not isinstance(prefix, str) or not prefix or ":" in prefix:
        raise ValueError(f"agent prefix must be a non-empty string without ':', got {prefix!r}")
    _PREFIXES[prefix] = loader


def agent_names() -> list[str]:
    """Known agent names (and ``"<prefix>:..."`` forms), sorted."""
    return sorted({*_AGENTS, *_LAZY} | {f"{p}:..." for p in {*_PREFIXES, *_LAZY_PREFIXES}})


def make_agent(name: str, rules: RulesConfig, **kwargs: Any) -> Policy:
    """Build the agent called ``name`` for ``rules``.

    Raises:
        ValueError: an unknown name or prefix (the message lists the known ones),
            ``rules`` not a RulesConfig, or an agent whose module is not available.
    """
    if not isinstance(name, str):
        raise ValueError(f"agent name must be a string, got {name!r}")
    if not isinstance(rules, RulesConfig):
        raise ValueError(
            f"rules must be a RulesConfig (see euchre_env.make_rules), got {type(rules).__name__}"
        )
    prefix, sep, arg = name.partition(":")
    if sep:
        if prefix in _LAZY_PREFIXES and prefix not in _PREFIXES:
            _try_import(_LAZY_PREFIXES[prefix])  # registers the prefix when the module is present
        if prefix not in _PREFIXES:
            raise ValueError(f"unknown agent prefix {prefix!r} in {name!r}; known agents: {agent_names()}")
        return _PREFIXES[prefix](arg, rules, **kwargs)
    if name not in _AGENTS and name in _LAZY:
        module, _, attr = _LAZY[name].partition(":")
        if _try_import(module):
            _AGENTS[name] = getattr(importlib.import_module(module), attr)
        else:
            raise ValueError(f"agent {name!r} needs module {module}, which is not available")
    if name not in _AGENTS:
        raise ValueError(f"unknown agent {name!r}; known agents: {agent_names()}")
    return _AGENTS[name](rules, **kwargs)


def _try_import(module: str) -> bool:
    """Import ``module`` if it exists; False when it (not one of its imports) is missing."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and module.startswith(err.name):
            return False
        raise
    return True


__all__ = [
    "Agent",
    "HeuristicAgent",
    "ObsView",
    "RandomAgent",
    "agent_names",
    "make_agent",
    "register_agent",
    "register_prefix",
]

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

Agents of your own code need no registration:

* ``"py:package.module:factory"`` imports ``package.module`` (which must be
  importable: installed, or on ``PYTHONPATH``) and calls its ``factory(rules, **kw)``;
* an installed package can declare an entry point in the group
  ``"euchre_env.agents"`` (``ENTRY_POINT_GROUP``), e.g. ``mybot = "mypkg.bots:make_bot"``
  in ``[project.entry-points."euchre_env.agents"]``, and then ``"mybot"`` is an
  agent name. Entry points are read only when a name is not a registered one
  (registered names win) and by ``agent_names()``.
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

ENTRY_POINT_GROUP = "euchre_env.agents"
PY_FORM = "py:package.module:factory"

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
    """Known agent names (and ``"<prefix>:..."`` forms), sorted; includes installed entry-point agents."""
    prefixes = {f"{p}:..." for p in {*_PREFIXES, *_LAZY_PREFIXES}}
    return sorted({*_AGENTS, *_LAZY, *_entry_points()} | prefixes)


def make_agent(name: str, rules: RulesConfig, **kwargs: Any) -> Policy:
    """Build the agent called ``name`` for ``rules``.

    ``name`` is a registered name, ``"<prefix>:<argument>"`` for a registered
    prefix, ``"py:package.module:factory"`` (your own factory, imported and
    called as ``factory(rules, **kwargs)``) or the name of an entry point of
    the group ``"euchre_env.agents"`` of an installed package.

    Raises:
        ValueError: an unknown name or prefix (the message lists the known ones),
            ``rules`` not a RulesConfig, an agent whose module is not available,
            or a ``py:`` / entry-point agent that cannot be imported, is not
            callable or does not return a policy (an object with ``act``).
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
        found = _entry_points().get(name)
        if found is None:
            raise ValueError(f"unknown agent {name!r}; known agents: {agent_names()}")
        return _entry_point_agent(name, found, rules, kwargs)
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


# ----------------------------------------------------------------------------------------------
# Agents of the user's own code: "py:module:factory" and entry points


def _load_py_agent(spec: str, rules: RulesConfig, **kwargs: Any) -> Policy:
    """Loader of the ``py:`` prefix: ``spec`` is ``"package.module:factory"``."""
    given = f"py:{spec}"
    module, sep, attr = spec.rpartition(":")
    if not sep or not module or not attr or ":" in module:
        raise ValueError(
            f"agent {given!r} is not of the form {PY_FORM!r} (a module to import, ':', and the name of "
            f"a factory in it, called as factory(rules, **kw))"
        )
    factory = _resolve(module, attr, f"agent {given!r}")
    return _checked_call(factory, rules, kwargs, f"agent {given!r}")


def _resolve(module: str, attr: str, what: str) -> Any:
    """``module.attr`` (``attr`` may be dotted), with a ValueError saying what is missing."""
    try:
        obj = importlib.import_module(module)
    except Exception as err:  # any error importing user code is reported the same way
        hint = ""
        if isinstance(err, ModuleNotFoundError) and err.name and f"{module}.".startswith(f"{err.name}."):
            hint = " (is it installed, or its folder on PYTHONPATH?)"
        raise ValueError(
            f"{what}: cannot import module {module!r}{hint}: {type(err).__name__}: {err}"
        ) from err
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{what}: module {module!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _checked_call(factory: Any, rules: RulesConfig, kwargs: dict[str, Any], what: str) -> Policy:
    """``factory(rules, **kwargs)``, checked to be callable and to return an object with ``act``."""
    if not callable(factory):
        raise ValueError(
            f"{what}: {factory!r} is not callable; expected a factory called as factory(rules, **kw) "
            f"that returns a policy (an object with act(observations, action_masks, rng))"
        )
    agent = factory(rules, **kwargs)
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"{what}: its factory returned {type(agent).__name__} ({agent!r:.80}), which has no "
            f"act(observations, action_masks, rng) method: a factory must return a policy "
            f"(euchre_env.types.Policy, e.g. a subclass of agents.Agent)"
        )
    return agent


def _entry_points() -> dict[str, list[Any]]:
    """Installed entry points of ``ENTRY_POINT_GROUP`` by name (several when packages disagree)."""
    from importlib.metadata import entry_points

    found: dict[str, list[Any]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name and ":" not in ep.name:
            same = found.setdefault(ep.name, [])
            if all(e.value != ep.value for e in same):
                same.append(ep)
    return found


def _entry_point_agent(name: str, eps: list[Any], rules: RulesConfig, kwargs: dict[str, Any]) -> Policy:
    """The agent of the entry point(s) called ``name``; several different ones are an error."""
    if len(eps) > 1:
        where = ", ".join(sorted(f"{_dist_name(ep)} ({ep.value})" for ep in eps))
        raise ValueError(
            f"agent {name!r} is declared by several installed packages in the {ENTRY_POINT_GROUP!r} "
            f"entry points: {where}; name the one you mean as 'py:<module>:<factory>'"
        )
    ep = eps[0]
    what = f"agent {name!r} (entry point {ep.name} = {ep.value} of {_dist_name(ep)})"
    module, sep, attr = ep.value.partition(":")
    module, attr = module.strip(), attr.strip().split("[")[0].strip()  # drop any [extras]
    if not sep or not module or not attr:
        raise ValueError(f"{what}: its value must be of the form 'package.module:factory'")
    return _checked_call(_resolve(module, attr, what), rules, kwargs, what)


def _dist_name(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return (
        f"package {dist.name!r}" if dist is not None and getattr(dist, "name", None) else "an unnamed package"
    )


register_prefix("py", _load_py_agent)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Agent",
    "HeuristicAgent",
    "ObsView",
    "RandomAgent",
    "agent_names",
    "make_agent",
    "register_agent",
    "register_prefix",
]

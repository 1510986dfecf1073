"""PettingZoo's classic AEC wrappers, with the hot attributes read directly.

``aec_env.env()`` wraps ``raw_env`` as PettingZoo classic environments do
(``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw)))``).
PettingZoo's ``BaseWrapper`` forwards every attribute through ``__getattr__``,
one level per wrapper, and the AEC loop reads ``agent_selection``,
``terminations``, ``infos``, ... about twenty times per decision, so more
than half of a wrapped decision went into those lookups. The subclasses here
are PettingZoo's classes with the same checks, errors and warnings; they only
read and write the per-step attributes of the unwrapped environment through
properties, and ``AssertOutOfBoundsWrapper`` accepts a plain in-range ``int``
without building numpy scalars (anything else goes to ``Discrete.contains``
as before).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.base import BaseWrapper

# Attributes the AEC loop and the wrappers read at every decision.
HOT_ATTRIBUTES = (
    "agent_selection",
    "agents",
    "terminations",
    "truncations",
    "rewards",
    "infos",
    "_cumulative_rewards",
)
# OrderEnforcingWrapper refuses these before reset (see its ``__getattr__``).
_BEFORE_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"})


def _setter(name: str) -> Any:
    def set_(self: Any, value: Any) -> None:
        setattr(self._raw, name, value)

    return set_


def _direct(name: str) -> property:
    """``name`` of the unwrapped environment, read and written directly."""
    return property(
        attrgetter(f"_raw.{name}"), _setter(name), doc=f"``{name}`` of the unwrapped environment."
    )


def _checked(name: str) -> property:
    """As ``_direct``, but an AttributeError before ``reset`` (OrderEnforcingWrapper's rule)."""

    def get(self: Any) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, _setter(name), doc=f"``{name}`` of the unwrapped environment (after reset).")


def _hot_properties(cls: type) -> type:
    """Class decorator: the HOT_ATTRIBUTES of ``cls`` become properties over the unwrapped env."""
    checks = issubclass(cls, wrappers.OrderEnforcingWrapper)
    for name in HOT_ATTRIBUTES:
        setattr(cls, name, _checked(name) if checks and name in _BEFORE_RESET else _direct(name))
    return cls


class _DirectAttributes:
    """Mixin: remember the unwrapped env before the PettingZoo wrapper's own ``__init__``."""

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._raw = env.unwrapped
        super().__init__(env, *args, **kwargs)  # type: ignore[call-arg]

    def __str__(self) -> str:
        return str(self.env)  # type: ignore[attr-defined]


@_hot_properties
class TerminateIllegalWrapper(_DirectAttributes, wrappers.TerminateIllegalWrapper):
    __doc__ = wrappers.TerminateIllegalWrapper.__doc__


@_hot_properties
class AssertOutOfBoundsWrapper(_DirectAttributes, wrappers.AssertOutOfBoundsWrapper):
    __doc__ = wrappers.AssertOutOfBoundsWrapper.__doc__

    def __init__(self, env: AECEnv, num_actions: int) -> None:
        super().__init__(env)
        self._num_actions = num_actions

    def step(self, action: Any) -> None:
        """As PettingZoo's, with a fast path for an ``int`` in ``0..num_actions-1``."""
        if type(action) is int and 0 <= action < self._num_actions:
            BaseWrapper.step(self, action)
        else:
            super().step(action)


@_hot_properties
class OrderEnforcingWrapper(_DirectAttributes, wrappers.OrderEnforcingWrapper):
    __doc__ = wrappers.OrderEnforcingWrapper.__doc__


def wrap_classic(raw: AECEnv, num_actions: int, illegal_reward: float = -1) -> AECEnv:
    """``raw`` wrapped as PettingZoo classic envs are, outermost first: order
    enforcing, out-of-bounds assertion (every agent's ``Discrete(num_actions)``),
    an illegal move ends the episode with ``illegal_reward`` for the offender."""
    inner = TerminateIllegalWrapper(raw, illegal_reward)
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(inner, num_actions))

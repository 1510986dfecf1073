"""Four-handed Euchre as a versioned PettingZoo module, as PettingZoo's classic games are.

::

    from euchre_env import euchre_v0

    env = euchre_v0.env(render_mode="rgb_array")  # wrapped as PettingZoo classic envs
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

``env(**kwargs)`` and ``raw_env(**kwargs)`` are :func:`euchre_env.envs.aec_env.env`
and :class:`euchre_env.envs.aec_env.raw_env` with ``variant="four_handed"``; every
other argument (``render_mode``, ``zero_sum``, ``stick_the_dealer``,
``defend_alone``, ``points_to_win``, ``episode``) is theirs, and
:mod:`euchre_env.envs.aec_env`'s docstring is the full specification. The
five-handed game is :mod:`euchre_env.euchre_five_handed_v0`. There is no
``parallel_env``: Euchre is turn-based. ``v0`` changes when a change to the
environment could change learning results.
"""

from __future__ import annotations

from typing import Any

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from euchre_env.actions import NUM_ACTIONS
from euchre_env.envs import aec_env
from euchre_env.envs.aec_wrappers import wrap_classic

__all__ = ["VARIANT", "env", "raw_env"]

VARIANT = "four_handed"


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` wrapped as PettingZoo classic envs are: an illegal move ends the episode (-1)."""
    return wrap_classic(raw_env(**kwargs), NUM_ACTIONS, illegal_reward=-1)


class raw_env(aec_env.raw_env):
    """:class:`euchre_env.envs.aec_env.raw_env` of four-handed Euchre (keyword arguments only)."""

    def __init__(self, **kwargs: Any) -> None:
        if "variant" in kwargs:
            raise ValueError(
                f"euchre_v0 is the {VARIANT} game: leave out variant= (got {kwargs['variant']!r}), "
                "or use euchre_env.euchre_five_handed_v0 / euchre_env.env(variant)"
            )
        super().__init__(VARIANT, **kwargs)
        EzPickle.__init__(self, **kwargs)  # pickles as this class, without a variant

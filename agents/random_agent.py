"""``RandomAgent``: a uniformly random legal action (the weakest baseline)."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from euchre_env.policies import RandomPolicy


class RandomAgent(Agent, RandomPolicy):
    """``euchre_env.policies.RandomPolicy`` as an agent: the same choices, plus
    ``Agent.check_batch``'s input errors; all randomness from ``rng``.

    Besides ``act`` it offers the observation-free fast path
    ``act_bits(base, bits, u)`` over the engine's compact legal sets (see
    ``engine.legal_bits``), which the evaluation harness uses to skip encoding.
    """

    name = "random"

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per row (``RandomPolicy.act``). Int64 (B,)."""
        obs, masks = self.check_batch(observations, action_masks)
        return RandomPolicy.act(self, obs, masks, rng)

"""``RandomAgent``: a uniformly random legal action (the weakest baseline)."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from euchre_env.engine import sample_bits


class RandomAgent(Agent):
    """Uniform over the legal actions of each row; all randomness from ``rng``.

    Besides ``act`` it offers the observation-free fast path
    ``act_bits(base, bits, u)`` over the engine's compact legal sets (see
    ``engine.legal_bits``), which the evaluation harness uses to skip encoding.
    """

    name = "random"

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per row. Int64 (B,)."""
        _, masks = self.check_batch(observations, action_masks)
        # The argmax of i.i.d. uniform keys over the legal set is uniform over that set.
        keys = np.where(masks, rng.random(masks.shape), -1.0)
        return keys.argmax(axis=1).astype(np.int64)

    def act_bits(self, base: np.ndarray, bits: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The legal action of rank ``floor(u * count)`` per row (uniform for uniform ``u``). Int64 (B,)."""
        return sample_bits(base, bits, u)

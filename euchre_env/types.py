"""Shared types: the ``Policy`` protocol that opponents and agents satisfy.

The library never imports ``agents``; anything with an ``act`` method of this
shape plugs into every environment as an opponent (compare SB3's
``PolicyPredictor``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]


@runtime_checkable
class Policy(Protocol):
    """Maps a batch of seat observations and legal-action masks to actions.

    ``observations`` is ``(B, D)`` (``encoding.encode`` of the acting seat),
    ``action_masks`` is ``(B, A)`` bool, and the result is ``(B,)`` int action
    ids, each legal under its mask. ``rng`` is the only source of randomness.
    """

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Actions for a batch of decisions. Shape (B,)."""
        ...

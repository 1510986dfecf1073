"""``Agent``: the base class of the baseline agents (a ``euchre_env.types.Policy``).

An agent acts on a batch of decisions: ``act(observations (B, D),
action_masks (B, A) bool, rng) -> (B,)`` action ids, each legal under its mask.
It sees only the acting seat's observation (``encoding.encode``), never the
engine state. ``check_batch`` gives every agent the same clear input errors.

``ActionModel`` is the protocol of a *model of the players*: action
probabilities rather than actions (``LogitAgent`` satisfies it with the
softmax of its scores). ``agents.beliefs.PolicyBelief`` weighs hidden worlds by it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol, runtime_checkable

import numpy as np

from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.rules import RulesConfig


@runtime_checkable
class ActionModel(Protocol):
    """A model of the players: the probability of every action at a batch of decisions."""

    def action_probs(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Float (B, A) probabilities for (B, D) observations and (B, A) bool masks; 0 off the mask."""
        ...


class Agent(ABC):
    """A policy over seat observations of one rules configuration.

    Attributes:
        rules: the rules the observations are encoded with.
        name: a short label for reports.
    """

    name = "agent"

    def __init__(self, rules: RulesConfig) -> None:
        if not isinstance(rules, RulesConfig):
            raise ValueError(
                f"rules must be a RulesConfig (see euchre_env.make_rules), got {type(rules).__name__}"
            )
        self.rules = rules

    @abstractmethod
    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Actions for a batch of decisions.

        Args:
            observations: (B, D) observations of the acting seats.
            action_masks: (B, A) bool legal actions.
            rng: the only source of randomness.

        Returns:
            Int64 array of shape (B,): a legal action id per row.
        """

    def check_batch(
        self, observations: np.ndarray, action_masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Validate and return ``(observations, masks)`` as arrays.

        Raises:
            ValueError: wrong shapes, mismatched batch sizes, or a row with no legal action.
        """
        obs = np.asarray(observations)
        masks = np.asarray(action_masks)
        size = obs_layout(self.rules).size
        if obs.ndim != 2 or obs.shape[1] != size:
            raise ValueError(
                f"{type(self).__name__}.act: observations must have shape (B, {size}) for the "
                f"{self.rules.variant} game, got shape {obs.shape}"
            )
        if masks.ndim != 2 or masks.shape != (obs.shape[0], NUM_ACTIONS):
            raise ValueError(
                f"{type(self).__name__}.act: action_masks must have shape ({obs.shape[0]}, {NUM_ACTIONS}), "
                f"got shape {masks.shape}"
            )
        masks = masks.astype(bool, copy=False)
        empty = ~masks.any(axis=1)
        if empty.any():
            raise ValueError(
                f"{type(self).__name__}.act: action_masks row {int(np.flatnonzero(empty)[0])} has no legal "
                f"action (finished tables must not be passed to an agent)"
            )
        return obs, masks

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rules.variant!r})"


def masked_choice(
    scores: np.ndarray, masks: np.ndarray, rng: np.random.Generator | None, deterministic: bool
) -> np.ndarray:
    """The legal action with the best score per row, or (``deterministic=False``) a sample of softmax(scores).

    Args:
        scores: (B, A) logits.
        masks: (B, A) bool legal actions, at least one per row.
        rng: source of the Gumbel noise when sampling (unused when deterministic).

    Returns:
        Int64 array of shape (B,).
    """
    scores = np.asarray(scores, np.float64)
    if not deterministic:
        scores = scores + rng.gumbel(size=scores.shape)  # Gumbel-max: a sample of softmax(scores)
    scores = np.where(masks, scores, -np.inf)
    return np.argmax(scores, axis=1).astype(np.int64)


class LogitAgent(Agent):
    """An agent that scores every action (a network's logits) and takes the best legal one.

    Subclasses set ``deterministic`` and define :meth:`scores`; ``act`` takes
    the best legal score, or samples from the masked softmax of the scores.
    """

    deterministic = True

    @abstractmethod
    def scores(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """(B, A) float scores of every action for (B, D) observations and (B, A) bool masks."""

    def action_probs(
        self, observations: np.ndarray, action_masks: np.ndarray, temperature: float = 1.0
    ) -> np.ndarray:
        """The masked softmax of ``scores / temperature``: float64 (B, A), 0 off the mask (``ActionModel``).

        Raises:
            ValueError: bad shapes or masks (``check_batch``), or a temperature
                that is not a positive number.
        """
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
            raise ValueError(f"temperature must be a positive number, got {temperature!r}")
        obs, masks = self.check_batch(observations, action_masks)
        z = np.where(masks, np.asarray(self.scores(obs, masks), np.float64) / temperature, -np.inf)
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A legal action per row: the best masked score, or a sample from the masked softmax.

        Args:
            observations: (B, D) observations of the acting seats.
            action_masks: (B, A) bool legal actions, at least one per row.
            rng: source of the Gumbel noise when sampling (unused when deterministic).

        Returns:
            Int64 array of shape (B,).
        """
        obs, masks = self.check_batch(observations, action_masks)
        if obs.shape[0] == 0:
            return np.zeros(0, np.int64)
        return masked_choice(self.scores(obs, masks), masks, rng, self.deterministic)

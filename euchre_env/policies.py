"""Opponent policies for the single-agent environments, and the ``opponents`` argument.

Anything with an ``act(observations, action_masks, rng)`` method (the
:class:`euchre_env.types.Policy` protocol) can sit at a table. A policy that
does not look at observations may also offer the optional fast path::

    act_bits(base, bits, u) -> actions

over the engine's compact legal sets (``engine.legal_bits``: action
``base + k`` is legal iff bit ``k`` of ``bits`` is set) and one uniform number
``u`` in ``[0, 1)`` per decision. The batched environments then skip encoding
observations and expanding masks for it, and draw ``u`` per table from a
counter-based hash, so a table plays exactly the same whichever batch it sits
in (see :mod:`euchre_env.envs.learner_tables`). :class:`RandomPolicy` has both.

Seats in the ``opponents`` argument are *relative to the learner*: relative
seat ``r`` (``1 .. P-1``) sits ``r`` places to the learner's left, so in the
four-handed game ``r = 2`` is the learner's partner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from euchre_env.engine import sample_bits
from euchre_env.types import Policy

__all__ = ["RandomPolicy", "normalize_opponents"]

Opponents = Policy | Sequence[Policy] | Mapping[int, Policy] | None


class RandomPolicy:
    """Uniformly random legal actions.

    Both entry points pick, for each row, the legal action of rank
    ``floor(u * count)`` in ascending action-id order, so ``act`` with
    ``u = rng.random(B)`` and ``act_bits`` with the same ``u`` agree.

    Example:
        >>> policy = RandomPolicy()
        >>> masks = np.zeros((2, 5), bool); masks[0, [1, 3]] = True; masks[1, 4] = True
        >>> policy.act(np.zeros((2, 1)), masks, np.random.default_rng(0)).tolist()
        [3, 4]
    """

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per row.

        Args:
            observations: (B, D) observations (ignored).
            action_masks: (B, A) bool legal-action masks, each row with at least one True.
            rng: source of the ``B`` uniform draws.

        Returns:
            Int64 array of shape (B,).

        Raises:
            ValueError: if ``action_masks`` is not 2-D or a row has no legal action.
        """
        masks = np.asarray(action_masks, dtype=bool)
        if masks.ndim != 2:
            raise ValueError(f"action_masks must have shape (B, A), got shape {masks.shape}")
        counts = np.cumsum(masks, axis=1)  # (B, A)
        total = counts[:, -1] if masks.shape[1] else np.zeros(masks.shape[0], np.int64)
        if (total == 0).any():
            row = int(np.flatnonzero(total == 0)[0])
            raise ValueError(f"action_masks row {row} has no legal action")
        rank = np.minimum((rng.random(masks.shape[0]) * total).astype(np.int64), total - 1)  # (B,)
        return np.argmax(counts > rank[:, None], axis=1).astype(np.int64)

    def act_bits(self, base: np.ndarray, bits: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The fast path: the legal action of rank ``floor(u * count)``.

        Args:
            base: (B,) int64 first action id of each row's legal window.
            bits: (B,) uint64 legal set within the window.
            u: (B,) floats in [0, 1).

        Returns:
            Int64 array of shape (B,); -1 where a row has no legal action.
        """
        return sample_bits(base, bits, u)

    def __repr__(self) -> str:
        return "RandomPolicy()"


def _check_policy(policy: object, where: str) -> Policy:
    if not isinstance(policy, Policy) or not callable(getattr(policy, "act", None)):
        raise ValueError(
            f"opponents: {where} must be a Policy (an object with an "
            f"act(observations, action_masks, rng) method), got {policy!r}"
        )
    return policy


def normalize_opponents(opponents: Opponents, num_players: int) -> tuple[Policy, ...]:
    """One policy per relative seat ``1 .. P-1`` from an ``opponents`` argument.

    Args:
        opponents: ``None`` (a :class:`RandomPolicy` everywhere), one Policy
            for every other seat, a sequence of ``P - 1`` policies for relative
            seats ``1 .. P-1`` (the learner's left first), or a mapping
            ``{relative seat: policy}`` with exactly the keys ``1 .. P-1``.
        num_players: ``P``, from ``rules.num_players``.

    Returns:
        Tuple of ``P - 1`` policies; entry ``r - 1`` plays relative seat ``r``.

    Raises:
        ValueError: naming ``opponents`` and what was wrong with it.
    """
    others = num_players - 1
    if opponents is None:
        return (RandomPolicy(),) * others
    if isinstance(opponents, Policy):
        return (_check_policy(opponents, "the policy"),) * others
    if isinstance(opponents, Mapping):
        keys = set(opponents)
        want = set(range(1, num_players))
        if keys != want:
            raise ValueError(
                f"opponents mapping must have exactly the relative seats {sorted(want)} as keys "
                f"(1 = the learner's left), got keys {sorted(keys, key=repr)}"
            )
        return tuple(
            _check_policy(opponents[r], f"entry for relative seat {r}") for r in range(1, num_players)
        )
    if isinstance(opponents, Sequence) and not isinstance(opponents, (str, bytes)):
        if len(opponents) != others:
            raise ValueError(
                f"opponents sequence must have {others} policies (relative seats 1..{others}, "
                f"the learner's left first), got {len(opponents)}"
            )
        return tuple(_check_policy(p, f"entry {i} (relative seat {i + 1})") for i, p in enumerate(opponents))
    raise ValueError(
        "opponents must be None, a Policy, a sequence of Policies or a {relative seat: Policy} "
        f"mapping, got {type(opponents).__name__}: {opponents!r}"
    )

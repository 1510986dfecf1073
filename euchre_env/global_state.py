"""The full-information state of a table, for centralised critics (PettingZoo's ``state()``).

A global state is every seat's observation, absolute seat 0 first, followed
by the cards of the kitty (the cards nobody holds: the hidden cards, and the
upcard until the dealer takes it)::

    [ encode(seat 0) | encode(seat 1) | ... | encode(seat P-1) | kitty ]
      D entries each (encoding.obs_layout(rules))                 CARD_SLOTS

Together these hold everything about the hand: every hand, the dealer's
discard (in the dealer's view), who holds the called card (its holder's
``i_hold_called``) and the hidden cards. It is for training only (a
centralised critic, as in QMIX or MAPPO): a policy that acts on it sees the
other hands. Every entry is 0 or 1, so it lies in ``state_space(rules)``,
``Box(0, 1, (state_size(rules),), float32)``: 2576 entries four-handed and
3832 five-handed at the default ``points_to_win=10``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from euchre_env.encoding import CARD_SLOTS, encode, obs_layout
from euchre_env.engine.single import Table, observe
from euchre_env.rules import RulesConfig
from euchre_env.state import State

__all__ = ["encode_state", "state_size", "state_space", "table_state"]


def state_size(rules: RulesConfig) -> int:
    """Entries of a global state: ``P * D + CARD_SLOTS``."""
    return rules.num_players * obs_layout(rules).size + CARD_SLOTS


def state_space(rules: RulesConfig) -> spaces.Box:
    """``Box(0, 1, (state_size(rules),), float32)``."""
    return spaces.Box(0.0, 1.0, (state_size(rules),), np.float32)


def _kitty_bits(kitty: np.ndarray) -> np.ndarray:
    """(B,) uint32 card masks -> (B, CARD_SLOTS) uint8 0/1 (entry ``c`` = card id ``c``)."""
    words = np.ascontiguousarray(kitty, dtype="<u4").reshape(-1, 1)
    return np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")


def encode_state(s: State, rules: RulesConfig, dtype: type = np.float32) -> np.ndarray:
    """Global states of the ``B`` tables of ``s``, shape ``(B, state_size(rules))``."""
    parts = [encode(s, seat, rules, np.uint8) for seat in range(rules.num_players)]
    return np.concatenate([*parts, _kitty_bits(s.kitty)], axis=1).astype(dtype, copy=False)


def table_state(t: Table, dtype: type = np.float32) -> np.ndarray:
    """The global state of one table (the engine's single-table path), shape ``(state_size(rules),)``."""
    parts = [observe(t, seat, np.uint8) for seat in range(t.rules.num_players)]
    parts.append(_kitty_bits(np.array([t.kitty], np.uint32))[0])
    return np.concatenate(parts).astype(dtype, copy=False)

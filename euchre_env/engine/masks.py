"""Legal actions, batched.

Mask semantics (one place):

* In every phase the legal actions lie in one window of at most 64 action
  ids, so the engine's compact form is ``(base, bits)``: action ``base + k``
  is legal iff bit ``k`` of ``bits`` is set (``legal_bits``).
* ``legal_action_mask`` expands that to a bool array ``(B, A)``.
* A live table always has at least one legal action; a finished (``DONE``)
  table has none: ``bits == 0`` and an all-False mask row.
"""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.actions import ALONE, CALL_BASE, DEFEND_ALONE, NAME_SUIT_BASE, NUM_ACTIONS, ORDER_UP, PASS, WITH_PARTNER, Phase
from euchre_env.engine.tables import PHASE_BASE
from euchre_env.rules import RulesConfig
from euchre_env.state import State

_U1 = np.uint64(1)
_BID_UPCARD_BITS = np.uint64(1 << (PASS - PASS) | 1 << (ORDER_UP - PASS))
_NAME_BITS = np.array([1 << (NAME_SUIT_BASE + s - PASS) for s in range(cards.NUM_SUITS)], np.uint64)
_ALL_NAMES = np.uint64(sum(int(b) for b in _NAME_BITS))
_DECLARE_BITS = np.uint64(1 << (ALONE - PASS) | 1 << (WITH_PARTNER - PASS))
_DEFEND_BITS = np.uint64(1 << (PASS - PASS) | 1 << (DEFEND_ALONE - PASS))
_CALL_ALONE_BIT = np.uint64(1 << (ALONE - CALL_BASE))


def legal_bits(s: State, rules: RulesConfig) -> tuple[np.ndarray, np.ndarray]:
    """Compact legal sets: ``base`` (B,) int64 and ``bits`` (B,) uint64.

    * BID_UPCARD: pass or order up (RULES-NOTES 5).
    * DISCARD: any of the dealer's six cards.
    * BID_SUIT: a suit other than the upcard's; pass, except the dealer when
      sticking (RULES-NOTES 6, 10, 16).
    * CALL: any card not in the maker's hand, or alone (RULES-NOTES 11).
    * DECLARE: alone or with partner; DEFEND: defend alone or pass.
    * PLAY: a card of the led suit if the hand has one, else any (RULES-NOTES 7).
    """
    b = s.batch_size
    rows = np.arange(b)
    phase = s.phase
    hand = s.hands[rows, s.turn].astype(np.uint64)  # (B,) hand of the seat to act
    follow = hand & cards.SUIT_BITS[s.trump, s.led]  # led -1 -> every card
    play = np.where(follow != 0, follow, hand)
    dealer_hand = s.hands[rows, s.dealer].astype(np.uint64)
    upsuit = cards.CARD_SUIT[s.upcard]
    may_pass = (s.turn != s.dealer) | (not rules.stick_the_dealer)
    bid_suit = (_ALL_NAMES & ~_NAME_BITS[upsuit]) | may_pass.astype(np.uint64)
    call = (np.uint64(rules.deck_mask) & ~hand) | _CALL_ALONE_BIT
    zero = np.zeros(b, np.uint64)
    choices = [zero] * len(Phase)
    choices[Phase.BID_UPCARD] = np.full(b, _BID_UPCARD_BITS)
    choices[Phase.DISCARD] = dealer_hand
    choices[Phase.BID_SUIT] = bid_suit
    choices[Phase.CALL] = call
    choices[Phase.DECLARE] = np.full(b, _DECLARE_BITS)
    choices[Phase.DEFEND] = np.full(b, _DEFEND_BITS)
    choices[Phase.PLAY] = play
    return PHASE_BASE[phase], np.choose(phase, choices)


def expand(base: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Bool mask ``(B, NUM_ACTIONS)`` from a compact ``(base, bits)`` pair."""
    b = bits.shape[0]
    unpacked = np.unpackbits(bits.astype("<u8").view(np.uint8).reshape(b, 8), axis=1, bitorder="little")
    wide = np.zeros((b, NUM_ACTIONS + 64), dtype=bool)
    for start in np.unique(base):
        rows = np.flatnonzero(base == start)
        wide[rows, start : start + 64] = unpacked[rows]
    return wide[:, :NUM_ACTIONS]


def legal_action_mask(s: State, rules: RulesConfig) -> np.ndarray:
    """Legal actions of the seat to act at each table. Bool array of shape ``(B, A)``."""
    return expand(*legal_bits(s, rules))


def sample_bits(base: np.ndarray, bits: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Pick the legal action of rank ``floor(u * count)`` among the set bits.

    With ``u`` uniform in [0, 1) this is a uniform random legal action. Rows
    with no legal action (finished tables) get -1.

    Args:
        base, bits: the compact legal sets of ``legal_bits``, shape (B,).
        u: float array (B,) in [0, 1).

    Returns:
        Int64 array of shape (B,).
    """
    count = np.bitwise_count(bits).astype(np.uint64)
    k = np.minimum((u * count).astype(np.uint64), np.maximum(count, _U1) - _U1)
    pos = np.zeros(bits.shape, np.uint64)
    x = bits
    for width in (32, 16, 8, 4, 2, 1):
        w = np.uint64(width)
        low = np.bitwise_count(x & np.uint64((1 << width) - 1)).astype(np.uint64)
        high = k >= low
        k = np.where(high, k - low, k)
        x = np.where(high, x >> w, x)
        pos += np.where(high, w, np.uint64(0))
    return np.where(count > 0, base + pos.astype(np.int64), -1)


def sample_legal(s: State, rules: RulesConfig, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per table (-1 for finished tables). Shape (B,)."""
    base, bits = legal_bits(s, rules)
    return sample_bits(base, bits, rng.random(bits.shape[0]))

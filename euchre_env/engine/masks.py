"""Legal actions, batched.

Mask semantics (one place):

* In every phase the legal actions lie in one window of at most 64 action
  ids, so the engine's compact form is ``(base, bits)``: action ``base + k``
  is legal iff bit ``k`` of ``bits`` is set.
* The engine keeps the compact form of the seat to act in the state
  (``state.mask_base``, ``state.mask_bits``), computed once per step by
  ``compute_legal_bits``; ``legal_bits`` reads it.
* ``legal_action_mask`` expands it to a bool array ``(B, A)``.
* A live table always has at least one legal action; a finished (``DONE``)
  table has none: ``bits == 0`` and an all-False mask row.

Lookup tables are indexed with ``intp`` arrays throughout the engine
(``table[field.astype(np.intp)]``, flat rather than 2-D indices): numpy's fancy
indexing takes a much slower path for ``int8``/``uint8`` index arrays.
"""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.actions import (
    ALONE,
    CALL_BASE,
    DEFEND_ALONE,
    NAME_SUIT_BASE,
    NUM_ACTIONS,
    NUM_PHASES,
    ORDER_UP,
    PASS,
    WITH_PARTNER,
    Phase,
)
from euchre_env.engine.tables import PHASE_BASE
from euchre_env.rules import RulesConfig
from euchre_env.state import State

_U1 = np.uint64(1)
_U64 = np.uint64(64)
assert NUM_ACTIONS <= 128, "expand packs a legal set into 128 bits"
_NAME_BITS = np.array([1 << (NAME_SUIT_BASE + s - PASS) for s in range(cards.NUM_SUITS)], np.uint64)
_ALL_NAMES = np.uint64(sum(int(b) for b in _NAME_BITS))
_NAMES_BUT = _ALL_NAMES & ~_NAME_BITS[cards.CARD_SUIT]  # [upcard]: the suits that may be named in round 2
_CALL_ALONE_BIT = np.uint64(1 << (ALONE - CALL_BASE))
# Phases whose legal set does not depend on the cards: pass/order up, alone/with
# partner, pass/defend alone. The other phases are filled in by compute_legal_bits.
_FIXED_BITS = np.zeros(NUM_PHASES, np.uint64)
_FIXED_BITS[Phase.BID_UPCARD] = 1 << (PASS - PASS) | 1 << (ORDER_UP - PASS)
_FIXED_BITS[Phase.DECLARE] = 1 << (ALONE - PASS) | 1 << (WITH_PARTNER - PASS)
_FIXED_BITS[Phase.DEFEND] = 1 << (PASS - PASS) | 1 << (DEFEND_ALONE - PASS)
_PHASE_BASE_I8 = PHASE_BASE.astype(np.int8)
_CARD_PHASE = np.isin(np.arange(NUM_PHASES), [Phase.PLAY, Phase.DISCARD])  # phases choosing a card in hand
# FOLLOW[trump * 5 + led + 1]: cards that follow ``led`` (-1: no lead yet -> every card).
_FOLLOW = np.concatenate([cards.SUIT_BITS[:, -1:], cards.SUIT_BITS[:, :-1]], axis=1).reshape(-1)
_CALL, _BID_SUIT = int(Phase.CALL), int(Phase.BID_SUIT)


def compute_legal_bits(
    s: State, rules: RulesConfig, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Compute the compact legal sets from the rules: ``base`` (B,) int8, ``bits`` (B,) uint64.

    With ``rows`` (int array (n,)), those of rows ``rows`` only, shape (n,).

    * BID_UPCARD: pass or order up (rules.md#c5).
    * DISCARD: any of the dealer's six cards (the dealer is the seat to act).
    * BID_SUIT: a suit other than the upcard's; pass, except the dealer when
      sticking (rules.md#c6, #c10, #c16).
    * CALL: any card not in the maker's hand, or alone (rules.md#c11).
    * DECLARE: alone or with partner; DEFEND: defend alone or pass.
    * PLAY: a card of the led suit if the hand has one, else any (rules.md#c7).
    """
    p = rules.num_players
    pick = (lambda a: a) if rows is None else (lambda a: a[rows])
    phase, turn = pick(s.phase), pick(s.turn)
    ph = phase.astype(np.intp)  # (see the module docstring)
    at = np.arange(s.batch_size) if rows is None else rows
    flat = at * p + turn  # turn -1 (done) reads a neighbour; masked below
    hand = s.hands.reshape(-1)[flat].astype(np.uint64)  # hand of the seat to act
    # PLAY: the led suit if held, else any card; DISCARD (no card led yet, so follow == hand): any card.
    bits = np.where(_CARD_PHASE[ph], play_bits(hand, pick(s.trump), pick(s.led)), _FIXED_BITS[ph])
    if rules.called_card:
        in_call = phase == _CALL
        if in_call.any():
            bits = np.where(in_call, (np.uint64(rules.deck_mask) & ~hand) | _CALL_ALONE_BIT, bits)
    in_suit = phase == _BID_SUIT
    if in_suit.any():
        may_pass = (turn != pick(s.dealer)) | (not rules.stick_the_dealer)
        names = _NAMES_BUT[pick(s.upcard).astype(np.intp)]
        bits = np.where(in_suit, names | may_pass.astype(np.uint64), bits)
    return _PHASE_BASE_I8[ph], bits


def play_bits(hand: np.ndarray, trump: np.ndarray, led: np.ndarray) -> np.ndarray:
    """Cards a seat may play (rules.md#c7): of the led suit if it holds one, else any card.

    Args:
        hand: uint64 card bitmasks, any shape.
        trump, led: suit ids broadcastable to ``hand`` (``led`` -1: nothing led yet, so any card).

    Returns:
        uint64 array of ``hand``'s shape.
    """
    follow = hand & _FOLLOW[(trump * 5 + led + 1).astype(np.intp)]  # cards of the led suit
    return np.where(follow != 0, follow, hand)


def refresh(s: State, rules: RulesConfig, rows: np.ndarray | None = None) -> None:
    """Store the legal sets of the seat to act in ``s.mask_base``/``s.mask_bits`` (of ``rows``), in place."""
    if rows is None:
        s.mask_base[:], s.mask_bits[:] = compute_legal_bits(s, rules)
    else:
        s.mask_base[rows], s.mask_bits[rows] = compute_legal_bits(s, rules, rows)


def legal_bits(s: State, rules: RulesConfig | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Compact legal sets of the seat to act: ``base`` (B,) int8 and ``bits`` (B,) uint64."""
    return s.mask_base, s.mask_bits


def is_legal(action: np.ndarray, base: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Whether each action lies in its row's compact legal set. Bool array (B,).

    Args:
        action: (B,) int64 action ids (any value; out-of-window ids are illegal).
        base: (B,) base action id of each compact legal set.
        bits: (B,) uint64 set bits of each compact legal set.
    """
    # An offset outside 0..63 wraps to a shift of 64 or more, which numpy maps to 0.
    off = np.asarray(action, np.int64) - base
    return ((bits >> off.view(np.uint64)) & _U1).astype(bool)


def expand(base: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Bool mask ``(B, NUM_ACTIONS)`` from a compact ``(base, bits)`` pair.

    Each set is shifted into place as one 128-bit number (two uint64 words;
    numpy maps a shift of 64 or more to 0) and unpacked once.
    """
    b = base.astype(np.uint64)
    words = np.empty((bits.shape[0], 2), "<u8")  # action a is bit a of the 128
    words[:, 0] = bits << b
    words[:, 1] = (bits >> (_U64 - b)) | (bits << (b - _U64))  # wrapping subtraction picks the right one
    return np.unpackbits(words.view(np.uint8), axis=1, count=NUM_ACTIONS, bitorder="little").view(bool)


def legal_action_mask(s: State, rules: RulesConfig | None = None) -> np.ndarray:
    """Legal actions of the seat to act at each table. Bool array of shape ``(B, A)``."""
    return expand(s.mask_base, s.mask_bits)


_SELECT16: np.ndarray | None = None
_POP16 = np.array([x.bit_count() for x in range(1 << 16)], np.int16)


def _select16() -> np.ndarray:
    """SELECT16[w, k]: position of the k-th set bit of the 16-bit word ``w`` (built once)."""
    global _SELECT16
    if _SELECT16 is None:
        words = np.arange(1 << 16, dtype="<u2").view(np.uint8).reshape(-1, 2)
        bits = np.unpackbits(words, axis=1, bitorder="little")  # (65536, 16)
        _SELECT16 = np.argsort(1 - bits, axis=1, kind="stable").astype(np.uint8)
    return _SELECT16


_SELECT32: np.ndarray | None = None
_TWO_WORDS = np.uint64(1 << 32)
_HIGH_HALF = 1 << 20  # in _select32: where the high word's entries start (65536 * 16)


def _select32() -> np.ndarray:
    """SELECT16 flattened, then again plus 16: entry ``w * 16 + k`` (+ ``_HIGH_HALF`` for the high word)."""
    global _SELECT32
    if _SELECT32 is None:
        low = _select16().reshape(-1)
        _SELECT32 = np.concatenate([low, low + 16])
    return _SELECT32


def sample_bits(base: np.ndarray, bits: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Pick the legal action of rank ``floor(u * count)`` among the set bits.

    With ``u`` uniform in [0, 1) this is a uniform random legal action. Rows
    with no legal action (finished tables) get -1.

    Args:
        base: (B,) action id of bit 0; bits: (B,) uint64 legal sets.
        u: float array (B,) in [0, 1).

    Returns:
        Int64 array of shape (B,).
    """
    b = bits.shape[0]
    words = bits.astype("<u8", copy=False).view("<u2").reshape(b, 4)  # (B, 4) 16-bit words, low first
    if bits.max(initial=0) < _TWO_WORDS:  # every set within 32 bits (all but five-handed CALL)
        w0, w1 = words[:, 0].astype(np.intp), words[:, 1].astype(np.intp)
        c1 = _POP16[w0]
        count = c1 + _POP16[w1]
        k = np.minimum((u * count).astype(np.int16), count - 1)  # rank wanted (-1 for an empty set)
        hi = k >= c1
        at = np.where(hi, w1 * 16 + (k - c1) + _HIGH_HALF, w0 * 16 + k)
        return np.where(count > 0, np.add(base, _select32()[at], dtype=np.int64), -1)  # int64
    pop = _POP16[words]  # (B, 4)
    c1 = pop[:, 0]
    c2 = c1 + pop[:, 1]
    c3 = c2 + pop[:, 2]
    count = c3 + pop[:, 3]
    k = np.minimum((u * count).astype(np.int16), np.maximum(count - 1, 0))  # rank wanted
    hi1, hi2, hi3 = k >= c1, k >= c2, k >= c3
    j = hi1.astype(np.int64) + hi2 + hi3  # word holding it
    before = np.where(hi3, c3, np.where(hi2, c2, np.where(hi1, c1, 0)))
    word = words.reshape(-1)[np.arange(b) * 4 + j]
    pos = 16 * j + _select16().reshape(-1)[word.astype(np.intp) * 16 + (k - before)]
    return np.where(count > 0, base + pos, -1)  # int64


def sample_legal(s: State, rules: RulesConfig | None, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per table (-1 for finished tables). Shape (B,)."""
    return sample_bits(s.mask_base, s.mask_bits, rng.random(s.batch_size))

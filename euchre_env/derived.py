"""Card sets a seat can work out from its observation: voids, unseen cards, the trick's state.

Everything here is a function of one seat's observation vector alone (it
decodes the observation as :mod:`euchre_env.infoset` does), so it cannot leak
anything the seat does not know. A network could learn these from the raw
observation, but each is a conjunction over many entries (a seat is void in
a suit when the card it played in some trick is not of the suit that trick's
leader led), which small MLPs learn slowly. Policies that ask for them
(``features="derived"`` in a model's config) see the observation followed by
these card sets.

Each set is ``CARD_SLOTS`` entries like the observation's card sets (entry
``c`` is card id ``c``), so the suit relabelling of
:mod:`agents.suit_symmetry` applies to them unchanged. In order
(:func:`derived_layout`):

* ``may_hold``, one set per relative seat ``1 .. P-1``: the hidden cards that
  seat may hold (not seen by the viewer, not of a suit the seat has shown it
  lacks, the upcard only at the dealer who took it, the called card not at
  the maker);
* ``unseen``: every card the viewer cannot place (in another hand, the kitty
  or the dealer's discard);
* ``masters``: the viewer's cards that no unseen card outranks in their
  effective suit (trump made; else empty);
* ``beats_table``: the viewer's cards that would take the lead of the trick
  now (a card has been led this trick; else empty);
* ``winning_card``, one set per relative seat ``0 .. P-1``: the card now
  winning the trick, under the seat that played it (else empty).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.encoding import CARD_SLOTS, obs_layout
from euchre_env.infoset import constraint_masks, public_state
from euchre_env.rules import NUM_TRICKS, RulesConfig

C = cards.NUM_CARDS


@cache
def derived_layout(rules: RulesConfig) -> tuple[tuple[str, int], ...]:
    """``(name, number of card sets)`` of each derived piece, in order."""
    p = rules.num_players
    return (("may_hold", p - 1), ("unseen", 1), ("masters", 1), ("beats_table", 1), ("winning_card", p))


def num_derived_sets(rules: RulesConfig) -> int:
    """Card sets :func:`derived_card_sets` appends (``2 P + 2``)."""
    return sum(n for _, n in derived_layout(rules))


def _make_outranked_by() -> np.ndarray:
    """OUTRANKED_BY[trump, c]: uint32 mask of the cards of ``c``'s effective suit that beat it. (4, C)."""
    table = np.zeros((cards.NUM_SUITS, C), np.uint32)
    for t in range(cards.NUM_SUITS):
        eff = cards.EFFECTIVE_SUIT[t]
        power = cards.STRENGTH[t, eff, np.arange(C) + 1]  # each card led in its own suit
        for c in range(C):
            above = (eff == eff[c]) & (power > power[c])
            table[t, c] = np.bitwise_or.reduce(cards.CARD_BIT[above]) if above.any() else 0
    return table


OUTRANKED_BY = _make_outranked_by()


def derived_card_sets(obs: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """The derived card sets of each observation.

    Args:
        obs: (B, D) observations of live decisions (not of a finished hand),
            ``D == obs_layout(rules).size``, any numeric dtype.
        rules: the rules they were encoded with.

    Returns:
        uint8 (B, CARD_SLOTS * num_derived_sets(rules)), pieces in
        :func:`derived_layout` order.
    """
    obs = np.asarray(obs)
    d = obs_layout(rules).size
    if obs.ndim != 2 or obs.shape[1] != d:
        raise ValueError(f"obs must have shape (B, {d}) for {rules.variant}, got {obs.shape}")
    b, p = obs.shape[0], rules.num_players
    if b == 0:
        return np.zeros((0, num_derived_sets(rules) * CARD_SLOTS), np.uint8)
    s = public_state(obs > 0, rules, np.random.default_rng(0))
    hidden, allowed, _ = constraint_masks(s, rules)  # uint32 (B,), (B, P + 1)
    rows, every = np.arange(b), np.uint32(cards.ALL_CARDS_28)
    hand = s.hands[:, 0].astype(np.uint32)
    trump = s.trump.astype(np.intp)
    made = trump < cards.NUM_SUITS
    sets = np.zeros((b, num_derived_sets(rules)), "<u4")  # one card mask per set
    sets[:, : p - 1] = hidden[:, None] & allowed[:, 1:p]
    sets[:, p - 1] = hidden
    outranked = OUTRANKED_BY[np.where(made, trump, 0)]  # (B, C)
    masters = np.bitwise_or.reduce(np.where((outranked & hidden[:, None]) == 0, cards.CARD_BIT, 0), axis=1)
    sets[:, p] = hand & masters & np.where(made, every, 0)
    t = np.minimum(s.trick_no, NUM_TRICKS - 1).astype(np.intp)
    table_cards = s.trick_cards[rows, t].astype(np.intp)  # (B, P) relative seats, -1: none
    led = np.maximum(s.led, 0).astype(np.intp)
    strength = cards.STRENGTH[trump[:, None], led[:, None], table_cards + 1]  # (B, P), -1 for no card
    live = (s.phase == Phase.PLAY) & (s.n_played > 0)
    best = strength.max(axis=1)
    mine = cards.STRENGTH[trump[:, None], led[:, None], np.arange(C) + 1]  # (B, C)
    beats = np.bitwise_or.reduce(np.where(mine > best[:, None], cards.CARD_BIT, 0), axis=1)
    sets[:, p + 1] = hand & beats & np.where(live, every, 0)
    at, seat = np.flatnonzero(live), strength.argmax(axis=1)
    sets[at, p + 2 + seat[at]] = cards.CARD_BIT[table_cards[at, seat[at]]]
    return np.unpackbits(sets.view(np.uint8), axis=1, bitorder="little")  # CARD_SLOTS = 32 bits per mask

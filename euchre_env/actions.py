"""The one action table covering every decision of both games.

Each decision kind has its own id range, so an id means the same thing in
every phase and ``describe`` needs no context::

    id      action                      phase(s) where it can be legal
    0..27   play(card)                  PLAY
    28..55  discard(card)               DISCARD (dealer, after a round-1 accept)
    56..83  call(card)                  CALL (five-handed maker names a partner card)
    84      PASS                        BID_UPCARD, BID_SUIT, DEFEND
    85      ORDER_UP  (accept upcard)   BID_UPCARD
    86..89  name_suit(C, D, H, S)       BID_SUIT (not the upcard's suit)
    90      ALONE                       CALL (five-handed), DECLARE (four-handed)
    91      WITH_PARTNER                DECLARE (four-handed)
    92      DEFEND_ALONE                DEFEND (four-handed, ``defend_alone=True``)

Card ids are those of :mod:`euchre_env.cards`. ``NUM_ACTIONS`` is 93 in both games.
"""

from __future__ import annotations

from enum import IntEnum

from euchre_env import cards

NUM_CARDS = cards.NUM_CARDS
PLAY_BASE = 0
DISCARD_BASE = PLAY_BASE + NUM_CARDS  # 28
CALL_BASE = DISCARD_BASE + NUM_CARDS  # 56
PASS = CALL_BASE + NUM_CARDS  # 84
ORDER_UP = PASS + 1  # 85
NAME_SUIT_BASE = ORDER_UP + 1  # 86..89
ALONE = NAME_SUIT_BASE + cards.NUM_SUITS  # 90
WITH_PARTNER = ALONE + 1  # 91
DEFEND_ALONE = WITH_PARTNER + 1  # 92
NUM_ACTIONS = DEFEND_ALONE + 1  # 93


class Phase(IntEnum):
    """Whose decision the table is waiting for. ``DONE`` rows are inert."""

    BID_UPCARD = 0  # round 1: pass or accept the upcard's suit
    DISCARD = 1  # dealer discards one of six cards
    BID_SUIT = 2  # round 2: pass or name another suit
    CALL = 3  # five-handed maker: call a partner card or go alone
    DECLARE = 4  # four-handed maker: alone or with partner
    DEFEND = 5  # four-handed defenders: defend alone or pass
    PLAY = 6  # trick play
    DONE = 7  # episode over


NUM_PHASES = len(Phase)


def _card_action(base: int, card: int | str) -> int:
    """``base`` + the card's id; ``card`` is an id or a name (validated either way)."""
    if isinstance(card, str):
        return base + cards.parse(card)
    cards.name(card)  # raises ValueError for anything but an id 0..27
    return base + int(card)


def play(card: int | str) -> int:
    """Action id for playing ``card`` (an id or a name like ``"AS"``)."""
    return _card_action(PLAY_BASE, card)


def discard(card: int | str) -> int:
    """Action id for the dealer discarding ``card``."""
    return _card_action(DISCARD_BASE, card)


def call(card: int | str) -> int:
    """Action id for the five-handed maker calling ``card`` as the partner card."""
    return _card_action(CALL_BASE, card)


def name_suit(suit: int | str) -> int:
    """Action id for naming ``suit`` (``"H"``, ``"hearts"``, ``"♥"`` or 0..3) in round 2."""
    return NAME_SUIT_BASE + cards.parse_suit(suit)


_SINGLE = {
    PASS: "pass",
    ORDER_UP: "order up",
    ALONE: "alone",
    WITH_PARTNER: "with partner",
    DEFEND_ALONE: "defend alone",
}


def describe(action: int) -> str:
    """Words for an action id: ``"play AS"``, ``"name hearts"``, ``"pass"``.

    Raises:
        ValueError: if ``action`` is not an id in ``0 .. NUM_ACTIONS - 1``.
    """
    try:
        a = int(action)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an infinite float
        raise ValueError(f"action must be an integer id, got {action!r}") from None
    if a != action or not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action id must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r}")
    if a < DISCARD_BASE:
        return f"play {cards.name(a - PLAY_BASE)}"
    if a < CALL_BASE:
        return f"discard {cards.name(a - DISCARD_BASE)}"
    if a < PASS:
        return f"call {cards.name(a - CALL_BASE)}"
    if NAME_SUIT_BASE <= a < ALONE:
        return f"name {cards.SUIT_NAMES[a - NAME_SUIT_BASE]}"
    return _SINGLE[a]


def parse(text: str) -> int:
    """Action id from words as ``describe`` writes them (``"play AS"``, ``"pass"``).

    Raises:
        ValueError: quoting ``text`` if it is not an action.
    """
    t = " ".join(str(text).strip().lower().split())
    for a, words in _SINGLE.items():
        if t == words:
            return a
    verb, _, arg = t.partition(" ")
    makers = {"play": play, "discard": discard, "call": call, "name": name_suit}
    if verb in makers and arg:
        return makers[verb](arg)
    raise ValueError(
        f"unknown action {text!r}: expected e.g. 'play AS', 'discard 9H', 'call AS', "
        f"'name hearts', 'pass', 'order up', 'alone', 'with partner', 'defend alone'"
    )

"""Cards: one id space for the 28-card deck, names, and trump-aware lookup tables.

Card ids are suit-major, ``id = suit * 7 + rank``::

    rank  8  9  T  J  Q  K  A          suit  C=0 D=1 H=2 S=3
    id    0  1  2  3  4  5  6   (clubs)  ...  21..27 (spades)

The four-handed game uses the same ids and simply never deals the 8s (ids 0, 7,
14, 21), so action ids and observation encodings line up across both games.
A set of cards is a ``uint32`` bitmask with bit ``id`` set for each card.

Lookup tables (built once at import) take the trump suit as their first index;
index ``NO_TRUMP`` (4) is the "no trump yet" row, where no card is a bower.
"""

from __future__ import annotations

import numpy as np

SUIT_CHARS = "CDHS"
RANK_CHARS = "89TJQKA"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
NUM_SUITS = 4
NUM_RANKS = 7
NUM_CARDS = NUM_SUITS * NUM_RANKS  # 28
NO_TRUMP = NUM_SUITS  # index of the "no trump yet" row of the tables
NO_CARD = -1

EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(NUM_RANKS)
CLUBS, DIAMONDS, HEARTS, SPADES = range(NUM_SUITS)
BLACK, RED = 0, 1

CARD_SUIT = np.arange(NUM_CARDS, dtype=np.int8) // NUM_RANKS  # (C,) printed suit
CARD_RANK = np.arange(NUM_CARDS, dtype=np.int8) % NUM_RANKS  # (C,) printed rank
SUIT_COLOUR = np.array([BLACK, RED, RED, BLACK], dtype=np.int8)  # (4,)
SAME_COLOUR_SUIT = np.array([SPADES, HEARTS, DIAMONDS, CLUBS], dtype=np.int8)
CARD_BIT = (np.uint32(1) << np.arange(NUM_CARDS, dtype=np.uint32)).astype(np.uint32)
ALL_CARDS_28 = np.uint32((1 << NUM_CARDS) - 1)
EIGHTS = np.uint32(sum(1 << (s * NUM_RANKS + EIGHT) for s in range(NUM_SUITS)))
ALL_CARDS_24 = np.uint32(ALL_CARDS_28 & ~EIGHTS)

_RANK_ALIASES = {"10": "T"}
_SYMBOL_TO_SUIT = {sym: SUIT_CHARS[i] for i, sym in enumerate(SUIT_SYMBOLS)}


def card_id(rank: int, suit: int) -> int:
    """The id of the card with printed ``rank`` (0 = 8 .. 6 = ace) and ``suit``."""
    return suit * NUM_RANKS + rank


def parse(text: str) -> int:
    """Card id of a card name such as ``"AS"``, ``"10H"``, ``"TH"`` or ``"A♠"``.

    Raises:
        ValueError: if ``text`` is not a card name; the message quotes it.
    """
    if not isinstance(text, str):
        raise ValueError(f"card name must be a string like 'AS', got {text!r}")
    t = text.strip().upper()
    if len(t) < 2:
        raise ValueError(f"unknown card {text!r}: expected rank then suit, e.g. 'AS'")
    rank_txt, suit_txt = t[:-1], t[-1]
    suit_txt = _SYMBOL_TO_SUIT.get(text.strip()[-1], suit_txt)
    rank_txt = _RANK_ALIASES.get(rank_txt, rank_txt)
    if len(rank_txt) != 1 or rank_txt not in RANK_CHARS or suit_txt not in SUIT_CHARS:
        raise ValueError(
            f"unknown card {text!r}: expected a rank in 8 9 10/T J Q K A then a suit in C D H S or ♣ ♦ ♥ ♠"
        )
    return card_id(RANK_CHARS.index(rank_txt), SUIT_CHARS.index(suit_txt))


def name(card: int) -> str:
    """Name of a card id, rank then suit (``"AS"``, ``"TH"``, ``"8C"``).

    Raises:
        ValueError: if ``card`` is not an id in ``0 .. 27``.
    """
    if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)):
        raise ValueError(f"card id must be an integer in 0..{NUM_CARDS - 1}, got {card!r}")
    c = int(card)
    if not 0 <= c < NUM_CARDS:
        raise ValueError(f"card id must be an integer in 0..{NUM_CARDS - 1}, got {card!r}")
    return RANK_CHARS[c % NUM_RANKS] + SUIT_CHARS[c // NUM_RANKS]


def parse_suit(text: str | int) -> int:
    """Suit index of exactly ``"C"``, ``"clubs"``, ``"♣"`` (any case, spaces around) or an int 0..3."""
    if (
        isinstance(text, (int, np.integer))
        and not isinstance(text, (bool, np.bool_))
        and 0 <= int(text) < NUM_SUITS
    ):
        return int(text)
    if isinstance(text, str):
        t = text.strip()
        if len(t) == 1 and t in SUIT_SYMBOLS:
            return SUIT_SYMBOLS.index(t)
        if t.upper() in SUIT_CHARS and len(t) == 1:
            return SUIT_CHARS.index(t.upper())
        if t.lower() in SUIT_NAMES:
            return SUIT_NAMES.index(t.lower())
    raise ValueError(f"unknown suit {text!r}: expected one of C D H S, a suit name or 0..3")


def mask_of(cards: list[int] | np.ndarray) -> int:
    """Bitmask (a Python int) of a list of card ids."""
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask: int) -> list[int]:
    """Card ids in a bitmask, ascending."""
    m = int(mask)
    return [c for c in range(NUM_CARDS) if m >> c & 1]


def _make_effective_suit() -> np.ndarray:
    """EFFECTIVE_SUIT[trump, card]: the suit a card follows; the left bower is trump.

    Shape (NUM_SUITS + 1, C), int8.
    """
    table = np.tile(CARD_SUIT, (NUM_SUITS + 1, 1))
    for trump in range(NUM_SUITS):
        table[trump, card_id(JACK, SAME_COLOUR_SUIT[trump])] = trump
    return table


def _make_trump_order() -> np.ndarray:
    """TRUMP_ORDER[trump, card]: 0 for a non-trump, else 1 (lowest) .. 8 (right bower).

    Trump ranks right bower, left bower, A K Q 10 9 8 (rules.md#c3).
    Shape (NUM_SUITS + 1, C), int8.
    """
    table = np.zeros((NUM_SUITS + 1, NUM_CARDS), dtype=np.int8)
    for trump in range(NUM_SUITS):
        for rank in (EIGHT, NINE, TEN, QUEEN, KING, ACE):
            table[trump, card_id(rank, trump)] = 1 + [EIGHT, NINE, TEN, QUEEN, KING, ACE].index(rank)
        table[trump, card_id(JACK, SAME_COLOUR_SUIT[trump])] = 7  # left bower
        table[trump, card_id(JACK, trump)] = 8  # right bower
    return table


def _make_strength() -> np.ndarray:
    """STRENGTH[trump, led, card + 1]: the card's power in a trick, 0 if it cannot win.

    Trumps score 100 + their trump order; cards of the led suit score 1 + rank;
    anything else 0. Column 0 stands for "no card" (id -1 shifted by one) and
    scores -1, so a seat that sits out never wins. Shape (5, 4, C + 1), int16.
    """
    table = np.zeros((NUM_SUITS + 1, NUM_SUITS, NUM_CARDS + 1), dtype=np.int16)
    table[:, :, 0] = -1
    for trump in range(NUM_SUITS + 1):
        for led in range(NUM_SUITS):
            for c in range(NUM_CARDS):
                if TRUMP_ORDER[trump, c]:
                    table[trump, led, c + 1] = 100 + TRUMP_ORDER[trump, c]
                elif EFFECTIVE_SUIT[trump, c] == led:
                    table[trump, led, c + 1] = 1 + CARD_RANK[c]
    return table


def _make_suit_bits() -> np.ndarray:
    """SUIT_BITS[trump, suit]: bitmask of the cards that follow ``suit`` under ``trump``.

    Column NUM_SUITS (also reachable as index -1) holds every card, so "no led
    suit yet" selects the whole hand. Shape (5, 5), uint32.
    """
    table = np.zeros((NUM_SUITS + 1, NUM_SUITS + 1), dtype=np.uint32)
    for trump in range(NUM_SUITS + 1):
        for c in range(NUM_CARDS):
            table[trump, EFFECTIVE_SUIT[trump, c]] |= CARD_BIT[c]
        table[trump, NUM_SUITS] = ALL_CARDS_28
    return table


EFFECTIVE_SUIT = _make_effective_suit()
TRUMP_ORDER = _make_trump_order()
STRENGTH = _make_strength()
SUIT_BITS = _make_suit_bits()

"""Dealing: seeded shuffles, given deals, and (re)starting a hand.

Every deal of a table is a pure function of its ``seed`` and ``hand_no``
(a counter-based hash, splitmix64), so a table deals the same cards whatever
batch it sits in, and a restored state deals on exactly as the original.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import fields
from functools import cache, reduce
from typing import Any

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.rules import HAND_SIZE, NUM_TRICKS, RulesConfig
from euchre_env.state import State

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_DEALER_SALT = np.uint64(0xD1B54A32D192ED03)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise over a uint64 array (wrapping arithmetic)."""
    z = np.asarray(x, dtype=np.uint64) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def shuffled_decks(seed: np.ndarray, hand_no: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """One shuffled deck per table, a function of ``(seed, hand_no)`` only.

    Returns:
        Int8 array of shape ``(n, rules.num_cards_in_play)``: card ids in deal order.
    """
    deck = _deck_array(rules)
    key = splitmix64(np.asarray(seed, np.uint64) ^ splitmix64(np.asarray(hand_no, np.uint64)))
    noise = splitmix64(key[:, None] + np.arange(deck.size, dtype=np.uint64) * _GOLDEN)
    return deck[np.argsort(noise, axis=1, kind="stable")]


@cache
def _deck_array(rules: RulesConfig) -> np.ndarray:
    """The card ids in play, ascending, int8 (built once per rules)."""
    return np.array(rules.deck, dtype=np.int8)


def first_dealer(seed: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """Dealer of a game's first hand, drawn from the table seed. Shape (n,), int8."""
    return (splitmix64(np.asarray(seed, np.uint64) ^ _DEALER_SALT) % np.uint64(rules.num_players)).astype(np.int8)


def empty_state(batch_size: int, rules: RulesConfig) -> State:
    """A state of ``batch_size`` tables with every field at its "before the deal" value."""
    b, p = batch_size, rules.num_players
    i8 = lambda v, *shape: np.full((b, *shape), v, dtype=np.int8)
    return State(
        seed=np.zeros(b, np.uint64), hand_no=np.zeros(b, np.int16), dealer=i8(0),
        hands=np.zeros((b, p), np.uint32), kitty=np.zeros(b, np.uint32), upcard=i8(-1),
        discard=i8(-1), phase=i8(Phase.BID_UPCARD), turn=i8(-1), trump=i8(cards.NO_TRUMP),
        maker=i8(-1), bid_round=i8(1), alone=np.zeros(b, bool), called=i8(-1), partner=i8(-1),
        revealed=i8(-1), defender_alone=i8(-1), out=np.zeros(b, np.uint8), trick_no=i8(0),
        leader=i8(-1), led=i8(-1), n_played=i8(0), trick_cards=i8(-1, NUM_TRICKS, p),
        trick_winner=i8(-1, NUM_TRICKS), played_by=np.zeros((b, p), np.uint32),
        trick_bits=np.zeros((b, NUM_TRICKS), np.uint32), tricks_won=i8(0, p), scores=np.zeros((b, p), np.int16),
        hand_over=np.zeros(b, bool), last_points=i8(0, p), last_tricks=i8(0, p), last_maker=i8(-1),
        last_trump=i8(cards.NO_TRUMP), last_called=i8(-1), last_partner=i8(-1),
        last_alone=np.zeros(b, bool), last_defender_alone=i8(-1), winners=np.zeros(b, np.uint8),
        mask_base=i8(0), mask_bits=np.zeros(b, np.uint64),
    )  # fmt: skip


# Fields ``start_hand`` sets; every other field belongs to the game (``start_games`` resets them).
HAND_FIELDS = (
    "hands", "upcard", "kitty", "discard", "phase", "turn", "trump", "maker", "called", "partner",
    "revealed", "defender_alone", "leader", "led", "bid_round", "alone", "out", "trick_no", "n_played",
    "trick_cards", "trick_winner", "played_by", "trick_bits", "tricks_won",
)  # fmt: skip
GAME_FIELDS = tuple(f.name for f in fields(State) if f.name not in HAND_FIELDS)


@cache
def _blank(rules: RulesConfig) -> State:
    """One table of ``empty_state`` (the defaults ``start_games`` copies)."""
    return empty_state(1, rules)


def start_games(s: State, rows: np.ndarray, seeds: np.ndarray, rules: RulesConfig) -> None:
    """New games at ``rows`` (int array (n,)), in place, dealt from ``seeds`` ((n,) uint64).

    The rows end as ``init_state(rules, seeds=seeds)`` starts them, except the
    legal sets (``mask_*``), which the caller refreshes.
    """
    blank = _blank(rules)
    for name in GAME_FIELDS:
        getattr(s, name)[rows] = getattr(blank, name)[0]
    s.seed[rows] = seeds
    s.dealer[rows] = first_dealer(seeds, rules)
    start_hand(s, rows, shuffled_decks(seeds, np.zeros(rows.size, np.uint64), rules), rules)


def start_hand(s: State, rows: np.ndarray, order: np.ndarray, rules: RulesConfig) -> None:
    """Deal ``order`` (shape ``(n, cards in play)``, card ids) to ``rows``, in place.

    Five cards to each seat starting left of the dealer; the next card is the
    upcard; the rest are the hidden kitty (RULES-NOTES 4). Resets every
    per-hand field; keeps seed, hand_no, dealer and scores.
    """
    p = rules.num_players
    n = rows.size
    bits = cards.CARD_BIT[order]  # (n, N) uint32
    dealt = bits[:, : p * HAND_SIZE].reshape(n, p, HAND_SIZE)
    hand_bits = reduce(operator.or_, (dealt[:, :, i] for i in range(HAND_SIZE)))  # (n, P)
    seats = (s.dealer[rows, None].astype(np.int64) + 1 + np.arange(p)) % p  # (n, P)
    hands = np.empty((n, p), np.uint32)
    np.put_along_axis(hands, seats, hand_bits, axis=1)
    s.hands[rows] = hands
    s.upcard[rows] = order[:, p * HAND_SIZE]
    s.kitty[rows] = np.bitwise_or.reduce(bits[:, p * HAND_SIZE :], axis=1)
    s.discard[rows] = -1
    s.phase[rows] = Phase.BID_UPCARD
    s.turn[rows] = (s.dealer[rows] + 1) % p
    s.trump[rows] = cards.NO_TRUMP
    for name in ("maker", "called", "partner", "revealed", "defender_alone", "leader", "led"):
        getattr(s, name)[rows] = -1
    s.bid_round[rows] = 1
    s.alone[rows] = False
    s.out[rows] = 0
    s.trick_no[rows] = 0
    s.n_played[rows] = 0
    s.trick_cards[rows] = -1
    s.trick_winner[rows] = -1
    s.played_by[rows] = 0
    s.trick_bits[rows] = 0
    s.tricks_won[rows] = 0


def deal_seeded(s: State, rows: np.ndarray, rules: RulesConfig) -> None:
    """Deal ``rows`` from their seed and hand number, in place."""
    start_hand(s, rows, shuffled_decks(s.seed[rows], s.hand_no[rows], rules), rules)


# --- given deals ------------------------------------------------------------


def _parse_cards(value: Any, what: str) -> list[int]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValueError(f"deal {what} must be a list of card names, got {value!r}")
    return [cards.parse(v) if isinstance(v, str) else _bad_card(v, what) for v in value]


def _bad_card(v: Any, what: str) -> int:
    raise ValueError(f"deal {what}: card must be a name like 'AS', got {v!r}")


def deal_order(deal: Mapping[str, Any], rules: RulesConfig) -> tuple[int, np.ndarray, np.ndarray | None]:
    """Validate a given deal and turn it into ``(dealer, order, scores)``.

    A deal is a mapping with card names::

        {"dealer": 0,
         "hands": [["AS", "KS", "QS", "JS", "TS"], ...],   # P hands of 5, seat 0 first
         "upcard": "9H",
         "kitty": ["TC", "8D"],                            # the hidden kitty cards
         "scores": [0, 0, 0, 0]}                           # optional starting scores

    Raises:
        ValueError: saying what is wrong (unknown key, bad dealer, wrong hand
            size, unknown, repeated, out-of-deck or missing card, bad scores).
    """
    p = rules.num_players
    if not isinstance(deal, Mapping):
        raise ValueError(f"a deal must be a mapping with keys dealer, hands, upcard, kitty; got {type(deal).__name__}")
    known = {"dealer", "hands", "upcard", "kitty", "scores"}
    unknown = sorted(set(deal) - known)
    missing = sorted({"dealer", "hands", "upcard", "kitty"} - set(deal))
    if unknown or missing:
        raise ValueError(f"deal keys: unknown {unknown}, missing {missing}; expected {sorted(known)}")
    dealer = deal["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < p:
        raise ValueError(f"deal dealer must be a seat in 0..{p - 1}, got {dealer!r}")
    hands = deal["hands"]
    if isinstance(hands, str) or not isinstance(hands, Sequence) or len(hands) != p:
        raise ValueError(f"deal hands must be a list of {p} hands (one per seat), got {hands!r}")
    held = [_parse_cards(h, f"hands[{i}]") for i, h in enumerate(hands)]
    for i, h in enumerate(held):
        if len(h) != HAND_SIZE:
            raise ValueError(f"deal hands[{i}] must hold {HAND_SIZE} cards, got {len(h)}: {hands[i]!r}")
    upcard = deal["upcard"]
    if not isinstance(upcard, str):
        raise ValueError(f"deal upcard must be one card name, got {upcard!r}")
    kitty = _parse_cards(deal["kitty"], "kitty")
    if len(kitty) != rules.kitty_size - 1:
        raise ValueError(
            f"deal kitty must hold the {rules.kitty_size - 1} hidden cards (the upcard apart), "
            f"got {len(kitty)}: {deal['kitty']!r}"
        )
    where: dict[int, str] = {}
    places = [(f"hands[{i}]", h) for i, h in enumerate(held)]
    places += [("upcard", [cards.parse(upcard)]), ("kitty", kitty)]
    for place, ids in places:
        for c in ids:
            if not rules.deck_mask >> c & 1:
                raise ValueError(f"deal {place}: card {cards.name(c)} is not in the {rules.variant} deck")
            if c in where:
                raise ValueError(f"deal: card {cards.name(c)} appears twice ({where[c]} and {place})")
            where[c] = place
    absent = [cards.name(c) for c in rules.deck if c not in where]
    if absent:
        raise ValueError(f"deal: card(s) missing from the deal: {absent}")
    # Deal order: hands from the dealer's left, then upcard, then the kitty.
    order = [c for k in range(p) for c in held[(dealer + 1 + k) % p]]
    order += [cards.parse(upcard), *kitty]
    scores = _parse_scores(deal.get("scores"), rules)
    return int(dealer), np.array(order, dtype=np.int8), scores


def _parse_scores(scores: Any, rules: RulesConfig) -> np.ndarray | None:
    if scores is None:
        return None
    p = rules.num_players
    if isinstance(scores, str) or not isinstance(scores, Sequence) or len(scores) != p:
        raise ValueError(f"deal scores must be a list of {p} integers, got {scores!r}")
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 10_000 for v in scores):
        raise ValueError(f"deal scores must be non-negative integers, got {scores!r}")
    if not rules.called_card and (scores[0] != scores[2] or scores[1] != scores[3]):
        raise ValueError(f"deal scores: partners (seats 0 and 2, 1 and 3) share one score, got {scores!r}")
    if rules.episode == "game" and max(scores) >= rules.points_to_win:
        raise ValueError(
            f"deal scores {list(scores)} already reach points_to_win={rules.points_to_win}: the game would be over"
        )
    return np.array(scores, dtype=np.int16)

"""Dealing: seeded shuffles, given deals, and (re)starting a hand.

Every deal of a table is a pure function of its ``seed`` and ``hand_no``
(a counter-based hash, splitmix64), so a table deals the same cards whatever
batch it sits in, and a restored state deals on exactly as the original.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import fields
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.engine.masks import compute_legal_bits
from euchre_env.rules import HAND_SIZE, NUM_TRICKS, RulesConfig
from euchre_env.state import State, short_repr

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
GOLDEN = _GOLDEN  # splitmix64's increment: stream position n is seed + n * GOLDEN
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_DEALER_SALT = np.uint64(0xD1B54A32D192ED03)
_S11, _S27, _S30, _S31 = np.uint64(11), np.uint64(27), np.uint64(30), np.uint64(31)
_INDEX_MASK = np.uint64(31)  # a sort key's low 5 bits hold the card's deck index
_TOP = ~_INDEX_MASK  # the noise bits a sort key keeps


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise over a uint64 array (wrapping arithmetic)."""
    z = np.asarray(x, dtype=np.uint64) + _GOLDEN  # a new array (a numpy scalar for a scalar x)
    return _finish_mix(z) if z.ndim else _finish_mix(z.reshape(1))[0]


def splitmix_uniform(x: np.ndarray) -> np.ndarray:
    """Uniform floats in [0, 1) from splitmix64 stream positions: ``(splitmix64(x) >> 11) * 2**-53``.

    ``x``: uint64 array (any shape); returns float64 of the same shape.
    """
    return (_finish_mix(x + _GOLDEN) >> _S11).astype(np.float64) * 2.0**-53


def _finish_mix(z: np.ndarray) -> np.ndarray:
    """``splitmix64(z - golden)``, computed in place in the uint64 array ``z`` and returned."""
    t = z >> _S30
    z ^= t
    z *= _MIX1
    np.right_shift(z, _S27, out=t)
    z ^= t
    z *= _MIX2
    np.right_shift(z, _S31, out=t)
    z ^= t
    return z


class _Tables(NamedTuple):
    """The deal's constants for one rules (``_tables``); ``N`` cards in play, ``P`` seats."""

    steps: np.ndarray  # (N,) uint64: (i + 1) * golden (card i's noise is splitmix64(key + i * golden))
    index: np.ndarray  # (N,) uint64: the deck indices 0..N-1
    card_id: np.ndarray  # (N,) int8: deck index -> card id (the deck, ascending)
    card_bit: np.ndarray  # (N,) uint32: deck index -> the card's bit
    hand_of: np.ndarray  # (P, P) intp: [dealer, seat] -> which hand dealt (0: the first) the seat gets
    next_seat: np.ndarray  # (P,) int8: [dealer] -> the seat left of the dealer
    pack_starts: np.ndarray  # (P + 1,) intp: 0, 5, ..: where each hand, then the kitty, starts in the deal
    first_salts: np.ndarray  # (2, 1) uint64: splitmix64(0) (hand 0's key) and the dealer salt
    hand_scalars: tuple[tuple[str, Any], ...]  # (field, value) a new hand sets, 1-D fields
    hand_rows: tuple[tuple[str, np.ndarray, np.ndarray], ...]  # (field, row, row as a record), 2-D fields
    game_scalars: tuple[tuple[str, Any], ...]  # as hand_*, for the game fields start_games resets
    game_rows: tuple[tuple[str, np.ndarray, np.ndarray], ...]


@cache
def _tables(rules: RulesConfig) -> _Tables:
    """The deal's lookup tables and reset values for ``rules`` (built once per rules)."""
    deck, p = _deck_array(rules), rules.num_players
    assert deck.size <= int(_INDEX_MASK) + 1
    seats = np.arange(p)
    blank = empty_state(1, rules)  # the values before a deal: what a new hand / game resets to
    hand_scalars, hand_rows = _defaults(
        blank, [n for n in HAND_FIELDS if n not in ("hands", "upcard", "kitty", "turn")]
    )
    game_scalars, game_rows = _defaults(
        blank, [n for n in GAME_FIELDS if n not in ("seed", "dealer", "mask_base", "mask_bits")]
    )
    return _Tables(
        steps=np.arange(1, deck.size + 1, dtype=np.uint64) * _GOLDEN,
        index=np.arange(deck.size, dtype=np.uint64),
        card_id=deck,
        card_bit=cards.CARD_BIT[deck],
        hand_of=(seats[None, :] - seats[:, None] - 1) % p,
        next_seat=((seats + 1) % p).astype(np.int8),
        pack_starts=np.arange(0, p * HAND_SIZE + 1, HAND_SIZE),
        first_salts=np.array([splitmix64(np.zeros(1, np.uint64)), [_DEALER_SALT]]),
        hand_scalars=hand_scalars,
        hand_rows=hand_rows,
        game_scalars=game_scalars,
        game_rows=game_rows,
    )


def _defaults(
    blank: State, names: list[str]
) -> tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, np.ndarray, np.ndarray], ...]]:
    """Fields ``names`` of the one-table state ``blank``: ``(name, value)`` of the 1-D fields and
    ``_row_value`` of the others."""
    values = {n: getattr(blank, n)[0] for n in names}
    scalars = tuple((n, v.item()) for n, v in values.items() if v.ndim == 0)
    rows = tuple(_row_value(n, v) for n, v in values.items() if v.ndim > 0)
    return scalars, rows


def _row_value(name: str, row: np.ndarray) -> tuple[str, np.ndarray, np.ndarray]:
    """``(name, row, row as one opaque record)``, read-only copies, for ``_fill_rows``."""
    row = np.array(row)
    rec = np.ndarray((), _record(row.nbytes), row.copy())
    row.flags.writeable = rec.flags.writeable = False
    return name, row, rec


def _fill_rows(a: np.ndarray, rows: np.ndarray, row: np.ndarray, rec: np.ndarray) -> None:
    """``a[rows] = row`` for a state field ``a`` (B, ...) of more than one axis.

    A C-contiguous ``a`` is seen as (B,) opaque records of one row each, so the
    assignment copies whole rows (several times faster than element by element).
    """
    if a.flags.c_contiguous and a.dtype == row.dtype and a.shape[1:] == row.shape:
        np.ndarray(a.shape[:1], rec.dtype, a)[rows] = rec
    else:
        a[rows] = row


def _set_rows(a: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``a[rows] = values`` for a state field ``a`` (B, ...) and ``values`` (n, ...), copying
    whole rows as opaque records (as ``_fill_rows``) when both are C-contiguous."""
    if (
        a.flags.c_contiguous
        and values.flags.c_contiguous
        and a.dtype == values.dtype
        and a.shape[1:] == values.shape[1:]
    ):
        rec = _record(a.itemsize * math.prod(a.shape[1:]))
        np.ndarray(a.shape[:1], rec, a)[rows] = np.ndarray(values.shape[:1], rec, values)
    else:
        a[rows] = values


@cache
def _record(nbytes: int) -> np.dtype:
    """An opaque record type of ``nbytes`` bytes."""
    return np.dtype((np.void, nbytes))


def _sort_keys(key: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """Deal order of the deck of each table keyed ``key`` ((n,) uint64), as sort keys.

    Card ``i`` of the deck (ascending ids) gets the noise ``splitmix64(key + i *
    golden)``; the deck is dealt in ascending noise, ties to the lower index (a
    stable argsort; splitmix64 is a bijection, so there are none). Each card's
    key is its noise with the low 5 bits replaced by ``i``, so one plain sort of
    the keys gives the deal order; should two noises of a row agree above those
    5 bits (about once in 2**50 rows), the row is ordered again from the full noise.

    Returns:
        Uint64 array of shape ``(n, rules.num_cards_in_play)``, C-contiguous,
        whose low 5 bits at ``[r, k]`` are the deck index of the ``k``-th card
        dealt at table ``r``.
    """
    t = _tables(rules)
    z = _finish_mix(key[:, None] + t.steps)  # the noise, (n, N)
    z &= _TOP
    z |= t.index
    z.sort(axis=1)
    flat = z.reshape(-1)
    if flat.size > 1 and (flat[1:] ^ flat[:-1]).min() <= _INDEX_MASK:  # neighbours (maybe across rows) agree
        rows = np.flatnonzero(((z[:, 1:] ^ z[:, :-1]) <= _INDEX_MASK).any(axis=1))
        if rows.size:
            noise = splitmix64(key[rows, None] + t.index * _GOLDEN)
            z[rows] = t.index[np.argsort(noise, axis=1, kind="stable")]
    return z


def _deck_index(z: np.ndarray) -> np.ndarray:
    """The deck indices held in sort keys ``z`` (``_sort_keys``), int64 of the same shape."""
    return z.view(np.int64) & np.int64(_INDEX_MASK)


def shuffled_decks(seed: np.ndarray, hand_no: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """One shuffled deck per table, a function of ``(seed, hand_no)`` only.

    Returns:
        Int8 array of shape ``(n, rules.num_cards_in_play)``: card ids in deal order.
    """
    key = splitmix64(np.asarray(seed, np.uint64) ^ splitmix64(np.asarray(hand_no, np.uint64)))
    return np.take(_tables(rules).card_id, _deck_index(_sort_keys(key, rules)))


@cache
def _deck_array(rules: RulesConfig) -> np.ndarray:
    """The card ids in play, ascending, int8 (built once per rules)."""
    deck = np.array(rules.deck, dtype=np.int8)
    deck.flags.writeable = False
    return deck


def first_dealer(seed: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """Dealer of a game's first hand, drawn from the table seed. Shape (n,), int8."""
    return (splitmix64(np.asarray(seed, np.uint64) ^ _DEALER_SALT) % np.uint64(rules.num_players)).astype(
        np.int8
    )


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


def start_games(s: State, rows: np.ndarray, seeds: np.ndarray, rules: RulesConfig) -> None:
    """New games at ``rows`` (int array (n,)), in place, dealt from ``seeds`` ((n,) uint64).

    The rows end exactly as ``init_state(rules, seeds=seeds)`` starts them,
    legal sets (``mask_*``) included.
    """
    t = _tables(rules)
    for name, value in t.game_scalars:  # empty_state's values
        getattr(s, name)[rows] = value
    for name, row, rec in t.game_rows:
        _fill_rows(getattr(s, name), rows, row, rec)
    s.mask_base[rows], s.mask_bits[rows] = _opening_legal(rules)
    s.seed[rows] = seeds
    # One splitmix64 pass for hand 0's key and the first dealer's draw (as shuffled_decks, first_dealer).
    z = np.asarray(seeds, np.uint64)[None, :] ^ t.first_salts
    z += _GOLDEN
    key, draw = _finish_mix(z)
    dealer = (draw % np.uint64(rules.num_players)).astype(np.int8)
    s.dealer[rows] = dealer
    _deal_keys(s, rows, _sort_keys(key, rules), dealer, t, rules)


@cache
def _opening_legal(rules: RulesConfig) -> tuple[int, int]:
    """The legal set ``(mask_base, mask_bits)`` that opens every hand, whatever the cards and
    dealer: the first bid on the upcard, pass or order up (checked here on a few deals)."""
    p = rules.num_players
    s = empty_state(8 * p, rules)
    s.seed[:] = np.arange(8 * p)
    s.dealer[:] = np.arange(8 * p) % p
    start_hand(s, np.arange(8 * p), shuffled_decks(s.seed, s.hand_no, rules), rules)
    base, bits = compute_legal_bits(s, rules)
    assert (base == base[0]).all() and (bits == bits[0]).all(), "hands open with different legal sets"
    return int(base[0]), int(bits[0])


def start_hand(s: State, rows: np.ndarray, order: np.ndarray, rules: RulesConfig) -> None:
    """Deal ``order`` (shape ``(n, cards in play)``, card ids) to ``rows``, in place.

    Five cards to each seat starting left of the dealer; the next card is the
    upcard; the rest are the hidden kitty (rules.md#c4). Resets every
    per-hand field; keeps seed, hand_no, dealer and scores.
    """
    order = np.asarray(order)
    upcard = order[:, rules.num_players * HAND_SIZE]
    _start_hand(s, rows, cards.CARD_BIT[order], upcard, s.dealer[rows], _tables(rules), rules)


def deal_seeded(s: State, rows: np.ndarray, rules: RulesConfig) -> None:
    """Deal ``rows`` from their seed and hand number, in place."""
    key = splitmix64(s.seed[rows] ^ splitmix64(s.hand_no[rows].astype(np.uint64)))
    _deal_keys(s, rows, _sort_keys(key, rules), s.dealer[rows], _tables(rules), rules)


def _deal_keys(
    s: State, rows: np.ndarray, z: np.ndarray, dealer: np.ndarray, t: _Tables, rules: RulesConfig
) -> None:
    """``start_hand`` from the sort keys ``z`` of ``_sort_keys`` and the rows' dealers ((n,) int8)."""
    index = _deck_index(z)
    upcard = t.card_id[index[:, rules.num_players * HAND_SIZE]]
    _start_hand(s, rows, np.take(t.card_bit, index), upcard, dealer, t, rules)


def _start_hand(
    s: State,
    rows: np.ndarray,
    bits: np.ndarray,
    upcard: np.ndarray,
    dealer: np.ndarray,
    t: _Tables,
    rules: RulesConfig,
) -> None:
    """``start_hand`` from the card bits in deal order (``bits``, (n, N) uint32), the
    upcards ((n,) int8) and the rows' dealers ((n,) int8)."""
    p = rules.num_players
    n = bits.shape[0]
    packs = np.bitwise_or.reduceat(bits, t.pack_starts, axis=1)  # (n, P + 1): the P hands dealt, the kitty
    hand_of = t.hand_of[dealer]  # (n, P): the hand each seat gets, as an index into packs' rows
    hand_of += np.arange(0, n * (p + 1), p + 1)[:, None]
    _set_rows(s.hands, rows, packs.reshape(-1)[hand_of])
    s.upcard[rows] = upcard
    s.kitty[rows] = packs[:, p]
    s.turn[rows] = t.next_seat[dealer]
    for name, value in t.hand_scalars:
        getattr(s, name)[rows] = value
    for name, row, rec in t.hand_rows:
        _fill_rows(getattr(s, name), rows, row, rec)


# --- given deals ------------------------------------------------------------


def _parse_cards(value: Any, what: str) -> list[int]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValueError(f"deal {what} must be a list of card names, got {short_repr(value)}")
    return [cards.parse(v) if isinstance(v, str) else _bad_card(v, what) for v in value]


def _bad_card(v: Any, what: str) -> int:
    raise ValueError(f"deal {what}: card must be a name like 'AS', got {short_repr(v)}")


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
        raise ValueError(
            f"a deal must be a mapping with keys dealer, hands, upcard, kitty; got {type(deal).__name__}"
        )
    known = {"dealer", "hands", "upcard", "kitty", "scores"}
    unknown = sorted(set(deal) - known)
    missing = sorted({"dealer", "hands", "upcard", "kitty"} - set(deal))
    if unknown or missing:
        raise ValueError(f"deal keys: unknown {unknown}, missing {missing}; expected {sorted(known)}")
    dealer = deal["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < p:
        raise ValueError(f"deal dealer must be a seat in 0..{p - 1}, got {short_repr(dealer)}")
    hands = deal["hands"]
    if isinstance(hands, str) or not isinstance(hands, Sequence) or len(hands) != p:
        raise ValueError(f"deal hands must be a list of {p} hands (one per seat), got {short_repr(hands)}")
    held = [_parse_cards(h, f"hands[{i}]") for i, h in enumerate(hands)]
    for i, h in enumerate(held):
        if len(h) != HAND_SIZE:
            raise ValueError(f"deal hands[{i}] must hold {HAND_SIZE} cards, got {len(h)}: {short_repr(hands[i])}")
    upcard = deal["upcard"]
    if not isinstance(upcard, str):
        raise ValueError(f"deal upcard must be one card name, got {short_repr(upcard)}")
    kitty = _parse_cards(deal["kitty"], "kitty")
    if len(kitty) != rules.kitty_size - 1:
        raise ValueError(
            f"deal kitty must hold the {rules.kitty_size - 1} hidden cards (the upcard apart), "
            f"got {len(kitty)}: {short_repr(deal['kitty'])}"
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
        raise ValueError(f"deal scores must be a list of {p} integers, got {short_repr(scores)}")
    if not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 10_000 for v in scores
    ):
        raise ValueError(f"deal scores must be non-negative integers, got {short_repr(scores)}")
    if not rules.called_card and (scores[0] != scores[2] or scores[1] != scores[3]):
        raise ValueError(f"deal scores: partners (seats 0 and 2, 1 and 3) share one score, got {short_repr(scores)}")
    if rules.episode == "game" and max(scores) >= rules.points_to_win:
        raise ValueError(
            f"deal scores {list(scores)} already reach points_to_win={rules.points_to_win}: the game would be over"
        )
    return np.array(scores, dtype=np.int16)

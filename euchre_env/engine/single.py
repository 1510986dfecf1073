"""One table at Python speed: the engine's transitions on Python ints.

numpy's per-call cost dominates a batch of one, so single-table users (the
PettingZoo AEC env, the single-agent Gymnasium env, interactive play) step a
``Table`` instead. It holds one row of a ``State`` as Python ints, applies the
same per-phase transitions as the batched functions (with the same lookup
tables), including dealing (the same splitmix64 shuffle), scoring, the hand
record and the game flow. ``Table.new(rules, seed)`` deals a new table without
building a batched state.

``tests/test_single_table.py`` checks ``Table.new`` against ``init_state`` and
steps a ``Table`` and the batched engine in lockstep over thousands of random
hands per preset, requiring identical states, legal sets and observations
after every decision.
"""

from __future__ import annotations

import bisect
from dataclasses import fields
from functools import cache

import numpy as np

from euchre_env import cards
from euchre_env.actions import (
    ALONE,
    CALL_BASE,
    DEFEND_ALONE,
    DISCARD_BASE,
    NAME_SUIT_BASE,
    NUM_ACTIONS,
    ORDER_UP,
    Phase,
)
from euchre_env.encoding import CARD_SLOTS, obs_layout, score_thresholds
from euchre_env.engine import deal, masks
from euchre_env.engine.tables import NEXT_ACTIVE, NUM_ACTIVE
from euchre_env.rules import HAND_SIZE, NUM_TRICKS, RulesConfig
from euchre_env.state import State

_EFFECTIVE_SUIT = cards.EFFECTIVE_SUIT.tolist()
_STRENGTH = cards.STRENGTH.tolist()  # [trump][led][card + 1]
_CARD_SUIT = cards.CARD_SUIT.tolist()
_FIELDS = [f.name for f in fields(State)]
_NEXT = {p: NEXT_ACTIVE[p].tolist() for p in NEXT_ACTIVE}
_NUM_ACTIVE = {p: NUM_ACTIVE[p].tolist() for p in NUM_ACTIVE}
M64 = (1 << 64) - 1
_MASK_BYTES = (NUM_ACTIONS + 7) // 8
_MASKS: dict[int, np.ndarray] = {}  # legal_mask's cache: action bits -> int8 mask (copied out)
_MASK_CACHE_SIZE = 1 << 14
_GOLDEN, _MIX1, _MIX2, _DEALER_SALT = (
    int(x) for x in (deal._GOLDEN, deal._MIX1, deal._MIX2, deal._DEALER_SALT)
)

_BID_UPCARD, _DISCARD, _BID_SUIT, _CALL, _DECLARE, _DEFEND, _PLAY, _DONE = (int(p) for p in Phase)


class Table:
    """One table's state as Python values, stepped with the engine's rules.

    Attributes mirror ``State`` fields for one row (arrays become lists).
    ``state()`` returns the equivalent one-row ``State``.
    """

    def __init__(self, state: State, rules: RulesConfig, row: int = 0) -> None:
        self._setup(rules)
        self._load(state.take([row]))

    @classmethod
    def new(cls, rules: RulesConfig, seed: int) -> Table:
        """A new game (or hand) dealt from ``seed``: equal to ``Table(init_state(rules, seeds=[seed]), rules)``.

        Dealt on Python ints (the same splitmix64 shuffle as ``engine.deal``),
        without building a batched state.
        """
        t = cls.__new__(cls)
        t._setup(rules)
        t._row = _empty_row(rules)
        t.seed, t.hand_no, t.scores, t.winners = int(seed), 0, [0] * t._p, 0
        t.dealer = mix(t.seed ^ _DEALER_SALT) % t._p
        t.hand_over, t.mask_base, t.mask_bits = False, 0, 0
        t.last_points, t.last_tricks = [0] * t._p, [0] * t._p
        t.last_maker = t.last_called = t.last_partner = t.last_defender_alone = -1
        t.last_trump, t.last_alone = cards.NO_TRUMP, False
        t._deal_seeded()
        t._refresh()
        return t

    def _setup(self, rules: RulesConfig) -> None:
        self.rules = rules
        self._p = rules.num_players
        self._next = _NEXT[self._p]
        self._num_active = _NUM_ACTIVE[self._p]
        self._deck = _deck(rules)
        self._obs: _ObsConsts | None = None
        self._static_obs: dict[int, tuple[tuple[int, int], int]] = {}  # observe's PLAY-phase cache

    def _obs_consts(self) -> _ObsConsts:
        """Observation offsets of this table's rules, built once per table."""
        if self._obs is None:
            self._obs = _ObsConsts(self.rules)
        return self._obs

    # --- conversion ---------------------------------------------------------
    def _load(self, s: State) -> None:
        for name in _FIELDS:
            value = getattr(s, name)[0]
            setattr(self, name, value.tolist())
        self._row = s  # the batch-of-one State this table was loaded from

    def state(self) -> State:
        """The equivalent one-row ``State`` (a new object)."""
        s = self._row.copy()
        for name in _FIELDS:
            getattr(s, name)[0] = getattr(self, name)
        return s

    # --- queries --------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether the episode is over."""
        return self.phase == _DONE

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, ascending (empty when done)."""
        base, bits = self.mask_base, self.mask_bits
        out = []
        while bits:
            low = bits & -bits
            out.append(base + low.bit_length() - 1)
            bits ^= low
        return out

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now."""
        off = action - self.mask_base
        return 0 <= off < 64 and bool(self.mask_bits >> off & 1)

    def legal_mask(self, dtype: type = np.int8) -> np.ndarray:
        """Legal-action mask of the seat to act, shape (A,)."""
        key = self.mask_bits << self.mask_base  # bit a = action a
        mask = _MASKS.get(key)
        if mask is None:
            if len(_MASKS) >= _MASK_CACHE_SIZE:
                _MASKS.clear()
            raw = np.frombuffer(key.to_bytes(_MASK_BYTES, "little"), np.uint8)
            mask = _MASKS[key] = np.unpackbits(raw, count=NUM_ACTIONS, bitorder="little").view(np.int8)
        return mask.astype(dtype)

    # --- transitions ---------------------------------------------------------
    def step(self, action: int) -> None:
        """Apply one legal action in place (the caller checks ``is_legal``)."""
        phase = self.phase
        self.hand_over = False
        if phase == _PLAY:
            self._play(action - 0)
        elif phase == _BID_UPCARD:
            self._bid_upcard(action)
        elif phase == _DISCARD:
            self._discard(action - DISCARD_BASE)
        elif phase == _BID_SUIT:
            self._bid_suit(action)
        elif phase == _CALL:
            self._call(action)
        elif phase == _DECLARE:
            self._declare(action)
        elif phase == _DEFEND:
            self._defend(action)
        self._refresh()

    def _refresh(self) -> None:
        """Legal set of the seat to act, as ``masks.compute_legal_bits`` for one row."""
        phase = self.phase
        if phase == _PLAY:
            hand = self.hands[self.turn]
            follow = hand & int(masks._FOLLOW[self.trump * 5 + self.led + 1])
            self.mask_base, self.mask_bits = 0, follow or hand
        elif phase == _DONE:
            self.mask_base, self.mask_bits = 0, 0
        else:
            self.mask_base = int(masks._PHASE_BASE_I8[phase])
            if phase == _DISCARD:
                self.mask_bits = self.hands[self.turn]
            elif phase == _CALL:
                self.mask_bits = (self.rules.deck_mask & ~self.hands[self.turn]) | int(masks._CALL_ALONE_BIT)
            elif phase == _BID_SUIT:
                may_pass = self.turn != self.dealer or not self.rules.stick_the_dealer
                names = int(masks._ALL_NAMES) & ~int(masks._NAME_BITS[_CARD_SUIT[self.upcard]])
                self.mask_bits = names | int(may_pass)
            else:
                self.mask_bits = int(masks._FIXED_BITS[phase])

    def _declare_phase(self) -> int:
        return _CALL if self.rules.called_card else _DECLARE

    def _bid_upcard(self, a: int) -> None:
        if a == ORDER_UP:
            self.maker = self.turn
            self.trump = _CARD_SUIT[self.upcard]
            bit = 1 << self.upcard
            self.hands[self.dealer] |= bit
            self.kitty &= ~bit
            self.phase = _DISCARD
            self.turn = self.dealer
        else:
            if self.turn == self.dealer:
                self.phase = _BID_SUIT
                self.bid_round = 2
            self.turn = (self.turn + 1) % self._p

    def _discard(self, card: int) -> None:
        self.hands[self.dealer] &= ~(1 << card)
        self.discard = card
        self.phase = self._declare_phase()
        self.turn = self.maker

    def _bid_suit(self, a: int) -> None:
        if a >= NAME_SUIT_BASE:
            self.trump = a - NAME_SUIT_BASE
            self.maker = self.turn
            self.phase = self._declare_phase()
        elif self.turn == self.dealer:
            self.turn = (self.turn + 1) % self._p
            self._end_hand(thrown_in=True)
        else:
            self.turn = (self.turn + 1) % self._p

    def _call(self, a: int) -> None:
        self.alone = a == ALONE
        if not self.alone:
            card = a - CALL_BASE
            self.called = card
            self.partner = next((seat for seat, h in enumerate(self.hands) if h >> card & 1), -1)
        self._start_play()

    def _first_defender(self) -> int:
        left = (self.dealer + 1) % 4
        return left if left % 2 != self.maker % 2 else (left + 1) % 4

    def _declare(self, a: int) -> None:
        self.alone = a == ALONE
        if self.alone:
            self.out |= 1 << ((self.maker + 2) % 4)
            if self.rules.defend_alone:
                self.phase = _DEFEND
                self.turn = self._first_defender()
                return
        self._start_play()

    def _defend(self, a: int) -> None:
        if a == DEFEND_ALONE:
            self.defender_alone = self.turn
            self.out |= 1 << ((self.turn + 2) % 4)
            self._start_play()
        elif self.turn == self._first_defender():
            self.turn = (self.turn + 2) % 4
        else:
            self._start_play()

    def _start_play(self) -> None:
        lead = self._next[self.out][self.dealer]
        self.phase = _PLAY
        self.leader = lead
        self.turn = lead
        self.trick_no = 0
        self.n_played = 0
        self.led = -1

    def _play(self, card: int) -> None:
        seat, t = self.turn, self.trick_no
        bit = 1 << card
        self.hands[seat] &= ~bit
        self.played_by[seat] |= bit
        self.trick_bits[t] |= bit
        self.trick_cards[t][seat] = card
        if self.n_played == 0:
            self.led = _EFFECTIVE_SUIT[self.trump][card]
        if self.rules.called_card and card == self.called:
            self.revealed = t
        self.n_played += 1
        self.turn = self._next[self.out][seat]
        if self.n_played == self._num_active[self.out]:
            self._finish_trick()

    def _finish_trick(self) -> None:
        t = self.trick_no
        power = _STRENGTH[self.trump][self.led]
        played = self.trick_cards[t]
        winner = max(range(self._p), key=lambda seat: (power[played[seat] + 1], -seat))
        self.trick_winner[t] = winner
        self.tricks_won[winner] += 1
        self.trick_no = t + 1
        self.leader = winner
        self.turn = winner
        self.n_played = 0
        self.led = -1
        if t + 1 == NUM_TRICKS:
            self._end_hand(thrown_in=False)

    def _end_hand(self, thrown_in: bool) -> None:
        """Score, record the hand and end the episode or deal on: ``play.end_hand`` for one table."""
        p = self._p
        pts = [0] * p if thrown_in else self._hand_points()
        self.scores = [a + b for a, b in zip(self.scores, pts, strict=True)]
        self.hand_over = True
        self.last_points, self.last_tricks = pts, list(self.tricks_won)
        self.last_maker, self.last_trump, self.last_called = self.maker, self.trump, self.called
        self.last_partner, self.last_alone, self.last_defender_alone = (
            self.partner,
            self.alone,
            self.defender_alone,
        )
        if self.rules.episode == "game":
            top = max(self.scores)
            if top < self.rules.points_to_win:
                self.hand_no += 1
                self.dealer = (self.dealer + 1) % p
                self._deal_seeded()
                return
            self.winners = sum(1 << i for i, v in enumerate(self.scores) if v == top)
        self.phase, self.turn = _DONE, -1

    def _hand_points(self) -> list[int]:
        """Points per seat of the finished hand, as ``play.hand_points``."""
        maker, seats = self.maker, range(self._p)
        if self.rules.called_card:
            side = [s == maker or s == self.partner for s in seats]
        else:
            side = [s % 2 == maker % 2 for s in seats]
        taken = sum(n for n, on in zip(self.tricks_won, side, strict=True) if on)
        if taken >= 3:
            win = (4 if self.alone else 2) if taken == NUM_TRICKS else 1
            return [win if on else 0 for on in side]
        euchre = 4 if self.alone and self.defender_alone >= 0 else 2
        return [0 if on else euchre for on in side]

    def _deal_seeded(self) -> None:
        """Deal from (seed, hand_no) and reset the per-hand fields, as ``deal.deal_seeded``."""
        p, deck = self._p, self._deck
        key = mix(self.seed ^ mix(self.hand_no & M64))
        noise = [mix((key + i * _GOLDEN) & M64) for i in range(len(deck))]
        order = [deck[i] for i in sorted(range(len(deck)), key=noise.__getitem__)]
        hands = [0] * p
        for k in range(p):
            bits = 0
            for c in order[k * HAND_SIZE : (k + 1) * HAND_SIZE]:
                bits |= 1 << c
            hands[(self.dealer + 1 + k) % p] = bits
        self.hands = hands
        self.upcard = order[p * HAND_SIZE]
        kitty = 0
        for c in order[p * HAND_SIZE :]:
            kitty |= 1 << c
        self.kitty = kitty
        self.discard, self.phase, self.turn = -1, _BID_UPCARD, (self.dealer + 1) % p
        self.trump, self.bid_round, self.alone, self.out = cards.NO_TRUMP, 1, False, 0
        self.maker = self.called = self.partner = self.revealed = -1
        self.defender_alone = self.leader = self.led = -1
        self.trick_no = self.n_played = 0
        self.trick_cards = [[-1] * p for _ in range(NUM_TRICKS)]
        self.trick_winner, self.trick_bits = [-1] * NUM_TRICKS, [0] * NUM_TRICKS
        self.played_by, self.tricks_won = [0] * p, [0] * p


def mix(x: int) -> int:
    """splitmix64 of one Python int (``deal.splitmix64`` for a scalar)."""
    z = (x + _GOLDEN) & M64
    z = ((z ^ (z >> 30)) * _MIX1) & M64
    z = ((z ^ (z >> 27)) * _MIX2) & M64
    return z ^ (z >> 31)


@cache
def _empty_row(rules: RulesConfig) -> State:
    """A batch-of-one state of the right dtypes (``Table.state`` writes into a copy of it)."""
    return deal.empty_state(1, rules)


@cache
def _deck(rules: RulesConfig) -> list[int]:
    """The card ids in play, ascending (``rules.deck``, built once per rules)."""
    return rules.deck


def observe(t: Table, viewer: int, dtype: type = np.float32) -> np.ndarray:
    """Seat ``viewer``'s observation of table ``t``: ``encoding.encode`` for one row.

    The observation is built as one Python int (bit ``i`` = entry ``i``; a card
    set is a 32-bit field, so card bitmasks are shifted in whole) and unpacked
    with one numpy call. The pieces fixed during trick play (bids,
    declarations, scores, ...) are cached per viewer while the table is in the
    PLAY phase.

    Returns:
        Array of shape ``(obs_layout(rules).size,)``.
    """
    return _unpack(observe_bits(t, viewer), t._obs_consts(), dtype)


def observe_bits(t: Table, viewer: int) -> int:
    """The observation of ``observe`` as an int: bit ``i`` is entry ``i``."""
    k = t._obs_consts()
    p = t._p
    rel = k.rel[viewer]  # absolute seat of each relative seat
    # Card sets, CARD_SLOTS bits each, card id c at bit c of its set.
    bits = t.hands[viewer] << k.hand | 1 << (t.upcard + k.upcard)
    if t.dealer == viewer and t.discard >= 0:
        bits |= 1 << (t.discard + k.my_discard)
    if k.five and t.called >= 0:
        bits |= 1 << (t.called + k.called_card)
    if t.trick_no < NUM_TRICKS:
        trick = t.trick_cards[t.trick_no]
        off = k.current_trick
        for a in rel:
            if trick[a] >= 0:
                bits |= 1 << (trick[a] + off)
            off += CARD_SLOTS
    played_by, off = t.played_by, k.played_by
    for a in rel:
        bits |= played_by[a] << off
        off += CARD_SLOTS
    off = k.played_in
    for tb in t.trick_bits:
        bits |= tb << off
        off += CARD_SLOTS
    # Pieces fixed during trick play.
    if t.phase == _PLAY:
        key = (t.hand_no, t.revealed)
        cached = t._static_obs.get(viewer)
        if cached is None or cached[0] != key:
            cached = (key, _static_bits(t, viewer, k))
            t._static_obs[viewer] = cached
        bits |= cached[1]
    else:
        bits |= _static_bits(t, viewer, k)
    # Pieces that change during trick play.
    tricks_won = t.tricks_won
    for r, a in enumerate(rel):
        bits |= ((1 << tricks_won[a]) - 1) << (k.tricks_won + r * NUM_TRICKS)
    for i, w in enumerate(t.trick_winner):
        if w < 0:
            break
        bits |= 1 << (k.trick_winner + i * p + (w - viewer) % p)
    if t.turn >= 0:
        bits |= 1 << (k.to_act + (t.turn - viewer) % p)
    return bits | 1 << (k.phase + t.phase)


def _unpack(bits: int, k: _ObsConsts, dtype: type) -> np.ndarray:
    """Bits of an int as a 0/1 array of shape ``(k.size,)``."""
    raw = np.frombuffer(bits.to_bytes(k.nbytes, "little"), np.uint8)
    return np.unpackbits(raw, count=k.size, bitorder="little").astype(dtype, copy=False)


def _static_bits(t: Table, viewer: int, k: _ObsConsts) -> int:
    """Bits set by the pieces that do not change during trick play (as ``observe_bits``)."""
    p = t._p
    dealer, maker = t.dealer, t.maker
    made = maker >= 0
    if made:
        stop = (maker - dealer - 1) % p
    elif t.phase == _BID_UPCARD or t.phase == _BID_SUIT:
        stop = (t.turn - dealer - 1) % p
    else:
        stop = p
    stop1, stop2 = (p, stop) if t.bid_round == 2 else (stop, 0)
    on: list[int] = []
    out, scores = t.out, t.scores
    for r, a in enumerate(k.rel[viewer]):
        pos = (a - dealer - 1) % p
        if pos < stop1:
            on.append(k.passed1 + r)
        if pos < stop2:
            on.append(k.passed2 + r)
        if out >> a & 1:
            on.append(k.sitting_out + r)
        first = k.scores + r * k.nbins
        on.extend(range(first, first + bisect.bisect_right(k.thresholds, scores[a])))
    if made and t.bid_round == 1:
        on.append(k.upcard_taken)
    if t.alone:
        on.append(k.alone)
    on.append(k.dealer + (dealer - viewer) % p)
    if made:
        on += [k.maker + (maker - viewer) % p, k.maker_round + t.bid_round - 1]
    if t.trump < cards.NUM_SUITS:
        on.append(k.trump + t.trump)
    if k.five:
        if t.partner == viewer and t.called >= 0:
            on.append(k.i_hold_called)
        if t.revealed >= 0:
            on.append(k.other + (t.partner - viewer) % p)
    elif t.defender_alone >= 0:
        on.append(k.other + (t.defender_alone - viewer) % p)
    bits = 0
    for i in on:
        bits |= 1 << i
    return bits


class _ObsConsts:
    """Observation offsets of one rules configuration, as plain attributes (looked up once)."""

    def __init__(self, rules: RulesConfig) -> None:
        lay = obs_layout(rules)
        at = lay.offsets
        p = rules.num_players
        self.size = lay.size
        self.nbytes = (lay.size + 7) // 8
        self.hand, self.upcard, self.my_discard = at["hand"], at["upcard"], at["my_discard"]
        self.called_card = at.get("called_card", -1)
        self.current_trick, self.played_by, self.played_in = (
            at["current_trick"],
            at["played_by"],
            at["played_in"],
        )
        self.five = rules.called_card
        self.rel = [[(v + r) % p for r in range(p)] for v in range(p)]
        self.no_trick = [-1] * p
        self.thresholds = score_thresholds(rules).tolist()
        self.nbins = len(self.thresholds)
        self.passed1, self.passed2 = at["passed_round_1"], at["passed_round_2"]
        self.sitting_out, self.tricks_won, self.scores = at["sitting_out"], at["tricks_won"], at["scores"]
        self.upcard_taken, self.alone = at["upcard_taken"], at["alone"]
        self.i_hold_called = at.get("i_hold_called", -1)
        self.other = at["revealed_by"] if self.five else at["defender_alone"]
        self.dealer, self.maker, self.maker_round = at["dealer"], at["maker"], at["maker_round"]
        self.trump, self.trick_winner = at["trump"], at["trick_winner"]
        self.to_act, self.phase = at["to_act"], at["phase"]

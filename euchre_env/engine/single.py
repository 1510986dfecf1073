"""One table at Python speed: the engine's transitions on Python ints.

numpy's per-call cost dominates a batch of one, so single-table users (the
PettingZoo AEC env, the single-agent Gymnasium env, interactive play) step a
``Table`` instead. It holds one row of a ``State`` as Python ints, applies the
same per-phase transitions as the batched functions (with the same lookup
tables), and hands over to the batched engine wherever a hand starts or ends:
dealing, scoring, the game flow and the hand record are the batched code
itself (``play.end_hand``), run on a batch of one.

``tests/test_single_table.py`` steps a ``Table`` and the batched engine in
lockstep over thousands of random hands per preset and requires identical
states, legal sets and observations after every decision.
"""

from __future__ import annotations

import bisect
from dataclasses import fields

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
from euchre_env.encoding import SPREAD_BITS, obs_layout, score_thresholds
from euchre_env.engine import masks, play
from euchre_env.engine.tables import NEXT_ACTIVE, NUM_ACTIVE
from euchre_env.rules import NUM_TRICKS, RulesConfig
from euchre_env.state import State

_EFFECTIVE_SUIT = cards.EFFECTIVE_SUIT.tolist()
_STRENGTH = cards.STRENGTH.tolist()  # [trump][led][card + 1]
_CARD_SUIT = cards.CARD_SUIT.tolist()
_FIELDS = [f.name for f in fields(State)]

_BID_UPCARD, _DISCARD, _BID_SUIT, _CALL, _DECLARE, _DEFEND, _PLAY, _DONE = (int(p) for p in Phase)


class Table:
    """One table's state as Python values, stepped with the engine's rules.

    Attributes mirror ``State`` fields for one row (arrays become lists).
    ``state()`` returns the equivalent one-row ``State``.
    """

    def __init__(self, state: State, rules: RulesConfig, row: int = 0) -> None:
        self.rules = rules
        self._p = rules.num_players
        self._next = NEXT_ACTIVE[self._p].tolist()
        self._num_active = NUM_ACTIVE[self._p].tolist()
        self._obs: _ObsConsts | None = None
        self._static_obs: dict[int, tuple[tuple[int, int], list[int]]] = {}  # observe's PLAY-phase cache
        self._load(state.take([row]))

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
        buf = bytearray(NUM_ACTIONS)
        for a in self.legal_actions():
            buf[a] = 1
        return np.frombuffer(buf, dtype=np.int8).astype(dtype)

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
        """Score and deal on with the batched engine itself, on a batch of one."""
        s = self.state()
        play.end_hand(s, np.zeros(1, np.int64), self.rules, thrown_in=thrown_in)
        self._load(s)


def observe(t: Table, viewer: int, dtype: type = np.float32) -> np.ndarray:
    """Seat ``viewer``'s observation of table ``t``: ``encoding.encode`` for one row.

    The pieces fixed during trick play (bids, declarations, scores, ...) are
    cached per viewer while the table is in the PLAY phase.

    Returns:
        Array of shape ``(obs_layout(rules).size,)``.
    """
    k = t._obs_consts()
    p = t._p
    rel = k.rel[viewer]  # absolute seat of each relative seat
    # Card sets, spread to one byte per card with one numpy call.
    trick = t.trick_cards[t.trick_no] if t.trick_no < NUM_TRICKS else k.no_trick
    sets = [t.hands[viewer], 1 << t.upcard, (1 << t.discard) if t.dealer == viewer and t.discard >= 0 else 0]
    if k.five:
        sets.append((1 << t.called) if t.called >= 0 else 0)
    sets += [(1 << trick[a]) if trick[a] >= 0 else 0 for a in rel]
    sets += [t.played_by[a] for a in rel]
    sets += t.trick_bits
    card_bytes = np.take(SPREAD_BITS, np.array(sets, dtype="<u4").view(np.uint8)).tobytes()
    if t.phase == _PLAY:
        key = (t.hand_no, t.revealed)
        cached = t._static_obs.get(viewer)
        if cached is None or cached[0] != key:
            cached = (key, _static_on(t, viewer, k))
            t._static_obs[viewer] = cached
        on = list(cached[1])
    else:
        on = _static_on(t, viewer, k)
    # Pieces that change during trick play.
    tricks_won = t.tricks_won
    for r, a in enumerate(rel):
        first = k.tricks_won + r * NUM_TRICKS
        on.extend(range(first, first + tricks_won[a]))
    for i, w in enumerate(t.trick_winner):
        if w < 0:
            break
        on.append(k.trick_winner + i * p + (w - viewer) % p)
    if t.turn >= 0:
        on.append(k.to_act + (t.turn - viewer) % p)
    on.append(k.phase + t.phase)
    buf = bytearray(k.size)
    buf[: len(card_bytes)] = card_bytes
    for i in on:
        buf[i] = 1
    return np.frombuffer(buf, dtype=np.uint8).astype(dtype)


def _static_on(t: Table, viewer: int, k: _ObsConsts) -> list[int]:
    """Indices set by the pieces that do not change during trick play."""
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
    return on


class _ObsConsts:
    """Observation offsets of one rules configuration, as plain attributes (looked up once)."""

    def __init__(self, rules: RulesConfig) -> None:
        lay = obs_layout(rules)
        at = lay.offsets
        p = rules.num_players
        self.size = lay.size
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

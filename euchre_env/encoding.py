"""Seat-relative observation encoding, vectorised over the batch.

The observing seat is seat 0 of its own view: relative seat ``r`` is absolute
seat ``(viewer + r) % P`` (``r = 1`` is the viewer's left). An observation is
one flat binary vector made of named pieces; ``ObsLayout`` holds their order
and sizes and ``ObsLayout.table`` renders the index table the docs show.

It holds everything the seat may know (rules.md#c8) and nothing else: its
own hand and discard, the upcard, all public bids and declarations, the
called card and whether this seat holds it, who revealed the partnership,
every card played and by whom, trick winners, whose turn, the phase and the
scores. Every feature is 0 or 1 (scores as a thermometer), so any dtype works.

Card sets (the hand, the cards each relative seat played, ...) come first,
each as ``CARD_SLOTS = 32`` entries: entry ``c`` is card id ``c`` and entries
28..31 are always 0. The padding lets the encoder copy each card bitmask
whole; decode a piece with ``piece.reshape(-1, CARD_SLOTS)[:, :NUM_CARDS]``.

How ``encode`` works: it builds each observation as a row of bits (bit ``i``
is entry ``i``) and unpacks all rows with one ``np.unpackbits``. The card sets
are ``uint32`` bitmasks (the state's, or a card id's bit), copied in whole.
Every later entry (the "tail": flags, thermometers, one-hots) comes from
lookup tables built once per rules: a ``_Feature`` maps a few small integer
fields of the state (seats, phase, bid round, ...) to the tail bits it sets,
so the tail of a row is a few table rows (one per feature, or one per seat
or per trick) OR-ed together. Fields are expected in their ``State`` ranges.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from euchre_env import actions, cards
from euchre_env.actions import NUM_PHASES, Phase
from euchre_env.rules import NUM_TRICKS, RulesConfig
from euchre_env.state import State

C = cards.NUM_CARDS
CARD_SLOTS = 32  # entries per card set in the observation (card ids 0..27, then 4 zeros)
MAX_SCORE_BINS = 20  # scores thermometer: one bin per point up to this many


@dataclass(frozen=True)
class ObsLayout:
    """Ordered ``(name, size, meaning)`` pieces of the flat observation vector."""

    pieces: tuple[tuple[str, int, str], ...]
    offsets: dict[str, int] = field(init=False, compare=False)
    size: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        offsets, at = {}, 0
        for name, n, _ in self.pieces:
            offsets[name] = at
            at += n
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "size", at)

    def slice(self, name: str) -> slice:
        """Index range of a piece."""
        start = self.offsets[name]
        return slice(start, start + {n: k for n, k, _ in self.pieces}[name])

    def table(self) -> str:
        """Markdown table of the pieces: index range, size, meaning."""
        rows = ["| indices | piece | size | meaning |", "|---|---|---|---|"]
        for name, n, meaning in self.pieces:
            start = self.offsets[name]
            rows.append(f"| {start}..{start + n - 1} | `{name}` | {n} | {meaning} |")
        return "\n".join(rows)


def score_bins(rules: RulesConfig) -> int:
    """Thermometer bins per seat for the running scores."""
    return min(rules.points_to_win, MAX_SCORE_BINS)


@cache
def score_thresholds(rules: RulesConfig) -> np.ndarray:
    """Score at which each thermometer bin switches on. Shape (bins,), int16."""
    bins = score_bins(rules)
    return np.ceil(np.arange(1, bins + 1) * rules.points_to_win / bins).astype(np.int16)


@cache
def obs_layout(rules: RulesConfig) -> ObsLayout:
    """The observation layout of a rules configuration (sizes from ``rules`` and ``cards``).

    Three blocks: card sets (``CARD_SLOTS`` entries each), yes/no and
    thermometer flags, then one-hot pieces.
    """
    p, k, five = rules.num_players, CARD_SLOTS, rules.called_card
    pieces: list[tuple[str, int, str]] = [
        ("hand", k, "cards in my hand (entry = card id)"),
        ("upcard", k, "the turned-up card"),
        ("my_discard", k, "the card I discarded as dealer"),
        *([("called_card", k, "the card the maker called (five-handed)")] if five else []),
        (
            "current_trick",
            p * k,
            "cards on the table in the current trick, per relative seat (0 = me, 1 = my left, ...)",
        ),
        ("played_by", p * k, "every card played this hand, per relative seat"),
        ("played_in", NUM_TRICKS * k, "cards played in each trick 0..4"),
        # flags
        ("passed_round_1", p, "relative seats that passed in bidding round 1"),
        ("passed_round_2", p, "relative seats that passed in bidding round 2"),
        ("sitting_out", p, "relative seats sitting out this hand"),
        ("upcard_taken", 1, "the upcard was accepted and taken by the dealer"),
        ("alone", 1, "the maker declared alone"),
        *([("i_hold_called", 1, "I hold the called card: I am the hidden partner")] if five else []),
        ("tricks_won", p * NUM_TRICKS, "tricks won per relative seat, thermometer (>=1 .. >=5)"),
        ("scores", p * score_bins(rules), "running scores per relative seat, thermometer"),
        # one-hots
        ("dealer", p, "dealer, relative seat"),
        ("maker", p, "relative seat that made trump"),
        ("maker_round", 2, "trump was made in round 1 / round 2"),
        ("trump", cards.NUM_SUITS, "trump suit (C D H S)"),
        ("revealed_by", p, "relative seat that revealed the partnership by playing the called card")
        if five
        else ("defender_alone", p, "relative seat defending alone (four-handed)"),
        ("trick_winner", NUM_TRICKS * p, "winner of each finished trick, trick-major, relative seat"),
        ("to_act", p, "relative seat to act"),
        ("phase", NUM_PHASES, "phase: " + ", ".join(ph.name for ph in Phase)),
    ]
    return ObsLayout(tuple(pieces))


# --- the encoder -------------------------------------------------------------

_BIT_OR_NONE = np.concatenate([cards.CARD_BIT, np.zeros(1, np.uint32)])  # [-1] -> no card
_IS_BIDDING = np.isin(np.arange(NUM_PHASES), [Phase.BID_UPCARD, Phase.BID_SUIT])  # (NUM_PHASES,) by phase
Entries = Iterator[tuple[str, int]]  # (piece, index in the piece) of entries that are 1


@dataclass(frozen=True)
class _Feature:
    """Tail entries that are a function of a few small integer fields of the state.

    ``fields`` are ``(name, size, low)``: the field takes the values ``low ..
    low + size - 1`` (``low`` is -1 for seats, where -1 means "none"). ``v``
    is the viewer; a ``seat`` or ``trick`` field makes one lookup per seat or
    per trick. ``entries(*values)`` yields the entries that are 1 for one
    value per field, in the order of ``fields``.
    """

    fields: tuple[tuple[str, int, int], ...]
    entries: Callable[..., Entries]


def _features(rules: RulesConfig) -> dict[str, _Feature]:
    """The pieces after the card sets, grouped into features and written per table."""
    p, bins = rules.num_players, score_bins(rules)
    v, seat = ("v", p, 0), ("seat", p, 0)

    def rel(a: int, v: int) -> int:
        return (a - v) % p

    def bidding(v: int, dealer: int, maker: int, turn: int, bidding: int, bid_round: int) -> Entries:
        def pos(a: int) -> int:  # bidding position: 0 = the dealer's left
            return (a - dealer - 1) % p

        made = maker >= 0
        stop = pos(maker) if made else pos(turn) if bidding else p  # first seat that did not pass
        stop_1, stop_2 = (p, stop) if bid_round == 2 else (stop, 0)
        for r in range(p):
            if pos((v + r) % p) < stop_1:
                yield "passed_round_1", r
            if pos((v + r) % p) < stop_2:
                yield "passed_round_2", r
        yield "dealer", rel(dealer, v)
        if made:
            yield "maker", rel(maker, v)
            yield "maker_round", bid_round - 1
            if bid_round == 1:
                yield "upcard_taken", 0

    def sitting_out(v: int, out: int) -> Entries:
        for r in range(p):
            if out >> ((v + r) % p) & 1:
                yield "sitting_out", r

    def facts(alone: int, trump: int, phase: int) -> Entries:
        if alone:
            yield "alone", 0
        if trump < cards.NUM_SUITS:
            yield "trump", trump
        yield "phase", phase

    def seats_four(v: int, defender: int, turn: int) -> Entries:
        if defender >= 0:
            yield "defender_alone", rel(defender, v)
        if turn >= 0:
            yield "to_act", rel(turn, v)

    def seats_five(v: int, partner: int, revealed: int, called: int, turn: int) -> Entries:
        if revealed:
            yield "revealed_by", rel(partner, v)
        if called and partner == v:
            yield "i_hold_called", 0
        if turn >= 0:
            yield "to_act", rel(turn, v)

    def seat_counts(v: int, seat: int, tricks: int, level: int) -> Entries:
        for i in range(tricks):
            yield "tricks_won", rel(seat, v) * NUM_TRICKS + i
        for i in range(level):
            yield "scores", rel(seat, v) * bins + i

    def trick_winner(v: int, trick: int, winner: int) -> Entries:
        if winner >= 0:
            yield "trick_winner", trick * p + rel(winner, v)

    if rules.called_card:
        fields = (v, ("partner", p + 1, -1), ("revealed", 2, 0), ("called", 2, 0), ("turn", p + 1, -1))
        seats = _Feature(fields, seats_five)
    else:
        seats = _Feature((v, ("defender", p + 1, -1), ("turn", p + 1, -1)), seats_four)
    return {
        "bidding": _Feature(
            (
                v,
                ("dealer", p, 0),
                ("maker", p + 1, -1),
                ("turn", p + 1, -1),
                ("bidding", 2, 0),
                ("bid_round", 3, 0),
            ),
            bidding,
        ),
        "sitting_out": _Feature((v, ("out", 256, 0)), sitting_out),
        "facts": _Feature(
            (("alone", 2, 0), ("trump", cards.NUM_SUITS + 1, 0), ("phase", NUM_PHASES, 0)), facts
        ),
        "seats": seats,
        "seat_counts": _Feature(
            (v, seat, ("tricks", NUM_TRICKS + 1, 0), ("level", bins + 1, 0)), seat_counts
        ),
        "trick_winner": _Feature((v, ("trick", NUM_TRICKS, 0), ("winner", p + 1, -1)), trick_winner),
    }


@dataclass(frozen=True)
class _Encoder:
    """Sizes and lookup tables of ``encode`` for one rules configuration.

    The tail is encoded with ``R`` table lookups (one per feature, one per
    seat or trick for per-seat and per-trick features): lookup ``j`` reads
    table row ``first_row[j] + viewer_stride[j] * v + sum(stride * value)``
    over the ``terms`` of lookup ``j``.
    """

    size: int  # observation entries D
    called_card: bool  # five-handed: the called card is a card set
    num_sets: int  # card sets K, 32 bits each, at the start of the row
    rot: np.ndarray  # (P, P) int8: [r, v] absolute seat of relative seat r for viewer v
    tricks: np.ndarray  # (256,) int8: tricks won clipped to 0..NUM_TRICKS, by int8 value as uint8
    score_level: np.ndarray  # (65536,) int8: score bins switched on, by int16 score as uint16
    table: np.ndarray  # (rows, W) '<u8': tail bits of each feature value; tail bit i = entry 32 K + i
    first_row: np.ndarray  # (R, 1) int16: table row of each lookup with all its fields at 0
    viewer_stride: np.ndarray  # (R, 1) int16: rows per step of the viewer (0: not a field)
    terms: tuple[tuple[slice, str, np.int16], ...]  # (lookups, field, stride): add stride * value


def _feature_table(f: _Feature, at: dict[str, int], first: int, words: int) -> np.ndarray:
    """Table of one feature: one row per value of its fields (C order), as tail words."""
    rows = []
    for values in itertools.product(*(range(low, low + n) for _, n, low in f.fields)):
        bits = sum(1 << (at[piece] + i - first) for piece, i in set(f.entries(*values)))
        rows.append([bits >> (64 * w) & (2**64 - 1) for w in range(words)])
    return np.array(rows, dtype="<u8").reshape(-1, words)


@cache
def _encoder(rules: RulesConfig) -> _Encoder:
    """Build the encoder of a rules configuration (once per rules)."""
    lay, p = obs_layout(rules), rules.num_players
    num_sets = lay.offsets["passed_round_1"] // CARD_SLOTS
    first = num_sets * CARD_SLOTS
    words = -(-(lay.size - first) // 64)
    per = {"seat": p, "trick": NUM_TRICKS}  # fields that make one lookup per seat / per trick
    tables, first_rows, viewer_strides, terms, num_rows = [], [], [], [], 0
    for f in _features(rules).values():
        names = [name for name, _, _ in f.fields]
        strides = {name: int(np.prod([n for _, n, _ in f.fields[j + 1 :]])) for j, name in enumerate(names)}
        each = next((name for name in names if name in per), None)
        index = np.arange(per[each]) * strides[each] if each else np.zeros(1, int)  # one per lookup
        first_row = num_rows - sum(low * strides[name] for name, _, low in f.fields)
        lookups = slice(len(first_rows), len(first_rows) + len(index))
        first_rows += list(first_row + index)
        viewer_strides += [strides.get("v", 0)] * len(index)
        terms += [(lookups, name, np.int16(strides[name])) for name in names if name not in ("v", *per)]
        tables.append(_feature_table(f, lay.offsets, first, words))
        num_rows += len(tables[-1])
    table = np.concatenate(tables)
    if len(table) > np.iinfo(np.int16).max:
        raise ValueError(f"{len(table)} table rows do not fit the int16 lookup codes")
    uint8s = np.arange(256, dtype=np.uint8).view(np.int8)
    uint16s = np.arange(65536, dtype=np.uint16).view(np.int16)
    return _Encoder(
        size=lay.size,
        called_card=rules.called_card,
        num_sets=num_sets,
        rot=((np.arange(p)[:, None] + np.arange(p)) % p).astype(np.int8),
        tricks=np.clip(uint8s, 0, NUM_TRICKS).astype(np.int8),
        score_level=(uint16s[:, None] >= score_thresholds(rules)).sum(axis=1).astype(np.int8),
        table=table,
        first_row=np.array(first_rows, dtype=np.int16)[:, None],
        viewer_stride=np.array(viewer_strides, dtype=np.int16)[:, None],
        terms=tuple(terms),
    )


def _tail_bits(s: State, v: np.ndarray, enc: _Encoder) -> np.ndarray:
    """The entries after the card sets as bits: (B, W) '<u8', bit ``i`` = entry ``32 K + i``."""
    values = {  # (B,) per table; (n, B) for per-seat and per-trick fields
        "dealer": s.dealer,
        "maker": s.maker,
        "turn": s.turn,
        "bidding": np.take(_IS_BIDDING, s.phase),
        "bid_round": s.bid_round,
        "out": s.out,
        "alone": s.alone,
        "trump": s.trump,
        "phase": s.phase,
        "tricks": np.take(enc.tricks, s.tricks_won.view(np.uint8).T),
        "level": np.take(enc.score_level, s.scores.view(np.uint16).T),
        "winner": s.trick_winner.T,
    }
    if enc.called_card:
        values.update(partner=s.partner, revealed=s.revealed >= 0, called=s.called >= 0)
    else:
        values.update(defender=s.defender_alone)
    codes = enc.viewer_stride * v + enc.first_row  # (R, B): table row of each lookup
    for lookups, name, stride in enc.terms:
        codes[lookups] += values[name] * stride if stride != 1 else values[name]
    return np.bitwise_or.reduce(np.take(enc.table, codes, axis=0), axis=0)


def _card_sets(s: State, v: np.ndarray, enc: _Encoder) -> list[np.ndarray]:
    """The card sets as ``uint32`` bitmasks, (B, 1) or (B, n) each, in layout order."""
    b, p = s.batch_size, enc.rot.shape[0]
    # Per-seat arrays are gathered as (P, B): relative seat r of every table in one row.
    seat_idx = np.take(enc.rot, v, axis=1) + np.arange(0, b * p, p)  # (P, B) flat index into (B, P)
    trick = np.arange(0, b * NUM_TRICKS, NUM_TRICKS) + np.minimum(s.trick_no, NUM_TRICKS - 1)
    current = np.take(np.take(s.trick_cards.reshape(-1, p), trick, axis=0), seat_idx)  # (P, B) card ids
    current = np.where(s.trick_no < NUM_TRICKS, current, -1)  # all tricks played: none
    return [
        np.take(s.hands, seat_idx[0])[:, None],
        np.take(_BIT_OR_NONE, s.upcard)[:, None],
        np.take(_BIT_OR_NONE, np.where(s.dealer == v, s.discard, -1))[:, None],
        *([np.take(_BIT_OR_NONE, s.called)[:, None]] if enc.called_card else []),
        np.take(_BIT_OR_NONE, current).T,
        np.take(s.played_by, seat_idx).T,
        s.trick_bits,
    ]


def encode(s: State, viewer: np.ndarray | int, rules: RulesConfig, dtype: type = np.float32) -> np.ndarray:
    """Observations of seat ``viewer`` at each table.

    Args:
        s: state of ``B`` tables.
        viewer: absolute seat per table, int array (B,) or one int for all.
        rules: the rules (for the layout).
        dtype: output dtype (every feature is 0 or 1); ``np.uint8``, ``np.int8``
            and ``np.bool_`` are fastest.

    Returns:
        Array of shape ``(B, obs_layout(rules).size)``.
    """
    enc = _encoder(rules)
    v = np.asarray(viewer)
    if v.shape != (s.batch_size,):
        v = np.broadcast_to(v, (s.batch_size,))
    tail = _tail_bits(s, v, enc).view("<u4")
    row = np.concatenate([*_card_sets(s, v, enc), tail], axis=1)  # (B, K + 2 W) '<u4': bit i = entry i
    bits = np.unpackbits(row.view(np.uint8), axis=1, count=enc.size, bitorder="little")
    dtype = np.dtype(dtype)
    return bits.view(dtype) if dtype.itemsize == 1 and dtype.kind in "biu" else bits.astype(dtype)


# --- suit symmetry -------------------------------------------------------------
#
# Renaming the suits of a deal (keeping the two suits of a colour together)
# gives the same game. A network can use that: relabel every observation so its
# *reference suit* (trump once made, else the upcard's suit) is suit 0, the
# other suit of its colour suit 1 and the remaining two suits 2 and 3 (in
# printed order), and map its output back. Then every deal teaches it all four
# trump suits at once.


def suit_roles() -> np.ndarray:
    """int64 (4, 4): ``[r, k]`` is the printed suit playing role ``k`` when ``r`` is the reference suit
    (role 0: ``r``, 1: its same-colour suit, 2 and 3: the other colour in printed order)."""
    roles = np.zeros((cards.NUM_SUITS, cards.NUM_SUITS), np.int64)
    for r in range(cards.NUM_SUITS):
        same = int(cards.SAME_COLOUR_SUIT[r])
        roles[r] = [r, same, *[s for s in range(cards.NUM_SUITS) if s not in (r, same)]]
    return roles


def reference_suit(obs: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """int64 (B,): the reference suit of each (B, D) observation: trump once made, else the upcard's suit."""
    layout, obs = obs_layout(rules), np.asarray(obs)
    trump = obs[:, layout.slice("trump")] > 0
    upcard = obs[:, layout.slice("upcard")][:, :C].reshape(-1, cards.NUM_SUITS, cards.NUM_RANKS).any(axis=2)
    return np.where(trump.any(axis=1), trump.argmax(axis=1), upcard.argmax(axis=1)).astype(np.int64)


def suit_symmetry_tables(
    rules: RulesConfig, extra_card_sets: int = 0, extra_columns: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Index tables that put observations in canonical suits and map a network's logits back.

    Args:
        rules: the rules (for the layout).
        extra_card_sets: card sets (``CARD_SLOTS`` entries each) appended after
            the observation (the training critic's view of the other hands).
        extra_columns: entries between the observation and those card sets
            that no suit relabelling moves (a network's partner belief).

    Returns:
        ``(obs_src, action_src)``: int64 (8, D') and (8, A). Row ``2 * r + w``
        is for reference suit ``r``, the other colour's two suits in printed
        order (``w = 0``) or swapped (``w = 1``, see :func:`other_colour_entries`):
        the canonical input is ``x[:, obs_src[row]]`` and the logit of action
        ``a`` is the canonical logit ``action_src[row, a]`` (card actions and
        suit naming are relabelled; everything else maps to itself).
    """
    layout = obs_layout(rules)
    roles = suit_roles()
    size = layout.size + extra_columns + CARD_SLOTS * extra_card_sets
    card_entries = ((0, layout.offsets["passed_round_1"]), (layout.size + extra_columns, size))  # card sets
    trump = layout.offsets["trump"]
    obs_src = np.tile(np.arange(size, dtype=np.int64), (2 * cards.NUM_SUITS, 1))
    action_src = np.tile(np.arange(actions.NUM_ACTIONS, dtype=np.int64), (2 * cards.NUM_SUITS, 1))
    rank = np.arange(cards.NUM_RANKS)
    for row, (r, w) in enumerate(itertools.product(range(cards.NUM_SUITS), range(2))):
        order = roles[r][[0, 1, 3, 2]] if w else roles[r]
        for k, s in enumerate(order):  # canonical suit k holds printed suit s
            for lo, hi in card_entries:
                for base in range(lo, hi, CARD_SLOTS):
                    obs_src[row, base + k * cards.NUM_RANKS + rank] = base + s * cards.NUM_RANKS + rank
            obs_src[row, trump + k] = trump + s
            for base in (actions.PLAY_BASE, actions.DISCARD_BASE, actions.CALL_BASE):
                action_src[row, base + s * cards.NUM_RANKS + rank] = base + k * cards.NUM_RANKS + rank
            action_src[row, actions.NAME_SUIT_BASE + s] = actions.NAME_SUIT_BASE + k
    return obs_src, action_src


def other_colour_entries(rules: RulesConfig) -> tuple[np.ndarray, np.ndarray]:
    """Where a canonical observation shows the cards of suits 2 and 3 (the other colour than the reference suit's).

    Those two suits play the same part in the game, so a canonical input may
    also order them (``agents.suit_symmetry``): suit 2 is the one of which the
    seat has held the lowest rank where its holdings of the two differ (its
    cards in hand, discarded and played: the same all hand long once the
    dealer has discarded), else the one with the 1 at the first other
    card-set entry where they differ. Where none differ, either order gives
    the same input.

    Returns:
        ``(held, entries)``: int64 (2, 3, R), for suit 2 and suit 3 the entries
        of rank ``0..R-1`` in the hand, the discard and the seat's own played
        cards; and int64 (2, n), their entries in every card set, matched.
    """
    layout = obs_layout(rules)
    rank = np.arange(cards.NUM_RANKS)
    starts = np.array([layout.offsets["hand"], layout.offsets["my_discard"], layout.offsets["played_by"]])
    bases = np.arange(0, layout.offsets["passed_round_1"], CARD_SLOTS)
    held = np.stack([starts[:, None] + k * cards.NUM_RANKS + rank for k in (2, 3)])
    entries = np.stack([(bases[:, None] + k * cards.NUM_RANKS + rank).ravel() for k in (2, 3)])
    return held, entries

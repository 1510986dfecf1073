"""Seat-relative observation encoding, vectorised over the batch.

The observing seat is seat 0 of its own view: relative seat ``r`` is absolute
seat ``(viewer + r) % P`` (``r = 1`` is the viewer's left). An observation is
one flat binary vector made of named pieces; ``ObsLayout`` holds their order
and sizes and ``layout_table`` renders the index table the docs show.

It holds everything the seat may know (RULES-NOTES 8) and nothing else: its
own hand and discard, the upcard, all public bids and declarations, the
called card and whether this seat holds it, who revealed the partnership,
every card played and by whom, trick winners, whose turn, the phase and the
scores. Every feature is 0 or 1 (scores as a thermometer), so any dtype works.

Card sets (the hand, the cards each relative seat played, ...) come first,
each as ``CARD_SLOTS = 32`` entries: entry ``c`` is card id ``c`` and entries
28..31 are always 0. The padding lets the encoder write eight entries at a
time; decode a piece with ``piece.reshape(-1, CARD_SLOTS)[:, :NUM_CARDS]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from euchre_env import cards
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
        ("current_trick", p * k, "cards on the table in the current trick, per relative seat (0 = me, 1 = my left, ...)"),
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


_BIT_OR_NONE = np.concatenate([cards.CARD_BIT, np.zeros(1, np.uint32)])  # [-1] -> no card
# SPREAD_BITS[byte]: the byte's 8 bits as 8 bytes of 0/1 (little-endian), one uint64.
SPREAD_BITS = np.array([sum((x >> i & 1) << (8 * i) for i in range(8)) for x in range(256)], dtype="<u8")
_TRICK_STEPS = np.arange(NUM_TRICKS, dtype=np.int8)


def _rel(seat: np.ndarray, viewer: np.ndarray, p: int) -> np.ndarray:
    """Relative seat of absolute ``seat`` for ``viewer`` (both broadcastable int arrays)."""
    return (seat.astype(np.int64) - viewer + p) % p


def encode(
    s: State, viewer: np.ndarray | int, rules: RulesConfig, dtype: type = np.float32
) -> np.ndarray:
    """Observations of seat ``viewer`` at each table.

    Args:
        s: state of ``B`` tables.
        viewer: absolute seat per table, int array (B,) or one int for all.
        rules: the rules (for the layout).
        dtype: output dtype (every feature is 0 or 1); ``np.uint8`` is fastest.

    Returns:
        Array of shape ``(B, obs_layout(rules).size)``.
    """
    lay = obs_layout(rules)
    b, p, d = s.batch_size, rules.num_players, lay.size
    width = -(-(d + 1) // 8) * 8  # row length: a spare column for switched-off one-hots, 8-aligned
    v = np.broadcast_to(np.asarray(viewer, dtype=np.int64), (b,))
    rows = np.arange(b)
    rot = rows[:, None] * p + (np.arange(p) + v[:, None]) % p  # (B, P) flat index of relative seat r
    out = np.empty((b, width), dtype=np.uint8)
    at = lay.offsets

    # Card sets: bitmasks spread to one byte per card, eight bytes at a time.
    trick = np.minimum(s.trick_no, NUM_TRICKS - 1).astype(np.int64)
    current = np.take(s.trick_cards, (rot // p * NUM_TRICKS + trick[:, None]) * p + rot % p)  # (B, P)
    current = np.where((s.trick_no < NUM_TRICKS)[:, None], _BIT_OR_NONE[current], 0)
    sets = [
        np.take(s.hands, rows * p + v)[:, None],
        _BIT_OR_NONE[s.upcard][:, None],
        np.where(s.dealer == v, _BIT_OR_NONE[s.discard], 0)[:, None],
        *([_BIT_OR_NONE[s.called][:, None]] if rules.called_card else []),
        current,
        np.take(s.played_by, rot),
        s.trick_bits,
    ]
    card_block = np.concatenate(sets, axis=1).astype("<u4")  # (B, K)
    k8 = card_block.shape[1] * CARD_SLOTS // 8
    out.view("<u8")[:, :k8] = np.take(SPREAD_BITS, card_block.view(np.uint8), mode="clip")

    # Flags: bidding passes, sitting out, yes/no facts and thermometers.
    made = s.maker >= 0
    bidding = (s.phase == Phase.BID_UPCARD) | (s.phase == Phase.BID_SUIT)
    pos = lambda seat: (seat.astype(np.int64) - s.dealer - 1) % p
    stop = np.where(made, pos(s.maker), np.where(bidding, pos(s.turn), p))  # first seat that did not pass
    round2 = s.bid_round == 2
    seat_pos = (rot % p - s.dealer[:, None] - 1) % p  # (B, P) bidding position of each relative seat
    flags = [
        seat_pos < np.where(round2, p, stop)[:, None],
        seat_pos < np.where(round2, stop, 0)[:, None],
        (s.out[:, None] >> (rot % p).astype(np.uint8)) & 1 == 1,
        (made & (s.bid_round == 1))[:, None],
        s.alone[:, None],
        *([((s.partner == v) & (s.called >= 0))[:, None]] if rules.called_card else []),
        (np.take(s.tricks_won, rot)[:, :, None] > _TRICK_STEPS).reshape(b, -1),
        (np.take(s.scores, rot)[:, :, None] >= score_thresholds(rules)).reshape(b, -1),
    ]
    flag_start = at["passed_round_1"]
    flag_block = np.concatenate(flags, axis=1)
    out[:, flag_start : flag_start + flag_block.shape[1]] = flag_block.view(np.uint8)

    # One-hots: zeros, then one scatter; column d swallows the switched-off ones.
    hot_start = at["dealer"]
    out[:, hot_start:] = 0
    if rules.called_card:
        other = (at["revealed_by"] + _rel(s.partner, v, p), s.revealed >= 0)
    else:
        other = (at["defender_alone"] + _rel(s.defender_alone, v, p), s.defender_alone >= 0)
    hots = [
        (at["dealer"] + _rel(s.dealer, v, p), True),
        (at["maker"] + _rel(s.maker, v, p), made),
        (at["maker_round"] + s.bid_round.astype(np.int64) - 1, made),
        (at["trump"] + s.trump.astype(np.int64), s.trump < cards.NUM_SUITS),
        other,
        (at["to_act"] + _rel(s.turn, v, p), s.turn >= 0),
        (at["phase"] + s.phase.astype(np.int64), True),
    ]
    cols = np.stack([np.where(on, col, d) for col, on in hots], axis=1)  # (B, 7)
    winners = at["trick_winner"] + np.arange(NUM_TRICKS) * p + _rel(s.trick_winner, v[:, None], p)
    cols = np.concatenate([cols, np.where(s.trick_winner >= 0, winners, d)], axis=1)
    out.reshape(-1)[(rows[:, None] * width + cols).reshape(-1)] = 1
    obs = out[:, :d]
    return obs.astype(dtype) if dtype is not np.uint8 else np.ascontiguousarray(obs)

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from euchre_env import cards
from euchre_env.actions import NUM_PHASES, Phase
from euchre_env.rules import NUM_TRICKS, RulesConfig
from euchre_env.state import State

C = cards.NUM_CARDS
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
        return slice(start, start + dict((n, k) for n, k, _ in self.pieces)[name])

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


@lru_cache(maxsize=None)
def obs_layout(rules: RulesConfig) -> ObsLayout:
    """The observation layout of a rules configuration (sizes from ``rules`` and ``cards``)."""
    p = rules.num_players
    pieces: list[tuple[str, int, str]] = [
        ("hand", C, "cards in my hand (card id order)"),
        ("upcard", C, "the turned-up card"),
        ("upcard_taken", 1, "the upcard was accepted and taken by the dealer"),
        ("dealer", p, "dealer, relative seat (0 = me, 1 = my left, ...)"),
        ("passed_round_1", p, "relative seats that passed in bidding round 1"),
        ("passed_round_2", p, "relative seats that passed in bidding round 2"),
        ("maker", p, "relative seat that made trump"),
        ("maker_round", 2, "trump was made in round 1 / round 2"),
        ("trump", cards.NUM_SUITS, "trump suit (C D H S)"),
        ("alone", 1, "the maker declared alone"),
        ("sitting_out", p, "relative seats sitting out this hand"),
    ]
    if rules.called_card:
        pieces += [
            ("called_card", C, "the card the maker called (five-handed)"),
            ("i_hold_called", 1, "I hold the called card: I am the hidden partner"),
            ("revealed_by", p, "relative seat that revealed the partnership by playing the called card"),
        ]
    else:
        pieces += [("defender_alone", p, "relative seat defending alone (four-handed)")]
    pieces += [
        ("my_discard", C, "the card I discarded as dealer"),
        ("current_trick", p * C, "cards on the table in the current trick, by relative seat"),
        ("played_by", p * C, "every card played this hand, by relative seat"),
        ("played_in", C * NUM_TRICKS, "trick (0-4) in which each card was played, card-major"),
        ("trick_winner", NUM_TRICKS * p, "winner of each finished trick, trick-major, relative seat"),
        ("tricks_won", p * NUM_TRICKS, "tricks won per relative seat, thermometer (>=1 .. >=5)"),
        ("to_act", p, "relative seat to act"),
        ("phase", NUM_PHASES, "phase: " + ", ".join(ph.name for ph in Phase)),
        ("scores", p * score_bins(rules), "running scores per relative seat, thermometer"),
    ]
    return ObsLayout(tuple(pieces))


def _rel(seat: np.ndarray, viewer: np.ndarray, p: int) -> np.ndarray:
    """Relative seat of absolute ``seat`` for ``viewer`` (both broadcastable int arrays)."""
    return (seat.astype(np.int64) - viewer + p) % p


def _unpack(bits: np.ndarray) -> np.ndarray:
    """(n,) uint32 card bitmasks -> (n, C) uint8 0/1."""
    u8 = bits.astype("<u4").view(np.uint8).reshape(-1, 4)
    return np.unpackbits(u8, axis=1, bitorder="little")[:, :C]


def encode(
    s: State, viewer: np.ndarray | int, rules: RulesConfig, dtype: type = np.float32
) -> np.ndarray:
    """Observations of seat ``viewer`` at each table.

    Args:
        s: state of ``B`` tables.
        viewer: absolute seat per table, int array (B,) or one int for all.
        rules: the rules (for the layout).
        dtype: output dtype (every feature is 0 or 1).

    Returns:
        Array of shape ``(B, obs_layout(rules).size)``.
    """
    lay = obs_layout(rules)
    b, p = s.batch_size, rules.num_players
    v = np.broadcast_to(np.asarray(viewer, dtype=np.int64), (b,))
    rows = np.arange(b)
    out = np.zeros((b, lay.size), dtype=dtype)
    at = lay.offsets

    def onehot(name: str, idx: np.ndarray, on: np.ndarray | None = None) -> None:
        r = rows if on is None else rows[on]
        out[r, at[name] + (idx if on is None else idx[on])] = 1

    out[:, lay.slice("hand")] = _unpack(s.hands[rows, v])
    onehot("upcard", s.upcard.astype(np.int64))
    made = s.maker >= 0
    out[:, at["upcard_taken"]] = made & (s.bid_round == 1)
    onehot("dealer", _rel(s.dealer, v, p))
    # Bids: every seat before the maker (or before the seat to act) in a round passed.
    pos = lambda seat: (seat.astype(np.int64) - s.dealer - 1) % p  # noqa: E731
    bidding = (s.phase == Phase.BID_UPCARD) | (s.phase == Phase.BID_SUIT)
    last_r1 = np.where(s.bid_round == 2, p, np.where(made, pos(s.maker), np.where(bidding, pos(s.turn), 0)))
    last_r2 = np.where(s.bid_round == 2, np.where(made, pos(s.maker), np.where(bidding, pos(s.turn), p)), 0)
    seat_pos = (np.arange(p) + v[:, None] - s.dealer[:, None] - 1) % p  # (B, P) bidding position of rel seat
    out[:, lay.slice("passed_round_1")] = seat_pos < last_r1[:, None]
    out[:, lay.slice("passed_round_2")] = seat_pos < last_r2[:, None]
    onehot("maker", _rel(s.maker, v, p), made)
    onehot("maker_round", s.bid_round.astype(np.int64) - 1, made)
    onehot("trump", s.trump.astype(np.int64), s.trump < cards.NUM_SUITS)
    out[:, at["alone"]] = s.alone
    rel_bits = (np.arange(p) + v[:, None]) % p  # (B, P) absolute seat of each relative seat
    out[:, lay.slice("sitting_out")] = (s.out[:, None] >> rel_bits.astype(np.uint8)) & 1
    if rules.called_card:
        onehot("called_card", s.called.astype(np.int64), s.called >= 0)
        out[:, at["i_hold_called"]] = (s.partner == v) & (s.called >= 0)
        rev = s.revealed >= 0
        onehot("revealed_by", _rel(s.partner, v, p), rev)
    else:
        onehot("defender_alone", _rel(s.defender_alone, v, p), s.defender_alone >= 0)
    onehot("my_discard", s.discard.astype(np.int64), (s.discard >= 0) & (s.dealer == v))
    _encode_tricks(s, v, rules, out, lay)
    onehot("to_act", _rel(s.turn, v, p), s.turn >= 0)
    onehot("phase", s.phase.astype(np.int64))
    bins = score_bins(rules)
    thresholds = np.ceil(np.arange(1, bins + 1) * rules.points_to_win / bins)  # (bins,)
    rel_scores = np.take_along_axis(s.scores, rel_bits, axis=1)  # (B, P)
    out[:, lay.slice("scores")] = (rel_scores[:, :, None] >= thresholds).reshape(b, -1)
    return out


def _encode_tricks(s: State, v: np.ndarray, rules: RulesConfig, out: np.ndarray, lay: ObsLayout) -> None:
    """Fill current_trick, played_by, played_in, trick_winner, tricks_won."""
    p = rules.num_players
    at = lay.offsets
    b_idx, t_idx, seat = np.nonzero(s.trick_cards >= 0)  # every card played this hand
    card = s.trick_cards[b_idx, t_idx, seat].astype(np.int64)
    rel = _rel(seat, v[b_idx], p)
    out[b_idx, at["played_by"] + rel * C + card] = 1
    out[b_idx, at["played_in"] + card * NUM_TRICKS + t_idx] = 1
    cur = t_idx == s.trick_no[b_idx]
    out[b_idx[cur], at["current_trick"] + rel[cur] * C + card[cur]] = 1
    wb, wt = np.nonzero(s.trick_winner >= 0)
    out[wb, at["trick_winner"] + wt * p + _rel(s.trick_winner[wb, wt], v[wb], p)] = 1
    won = np.take_along_axis(s.tricks_won, (np.arange(p) + v[:, None]) % p, axis=1)  # (B, P)
    therm = won[:, :, None] > np.arange(NUM_TRICKS)  # (B, P, 5)
    out[:, lay.slice("tricks_won")] = therm.reshape(s.batch_size, -1)

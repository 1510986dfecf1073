"""Trick play, the end of a hand, scoring, and the whole-game flow.

Functions mutate the state in place on ``rows`` (row indices, shape ``(n,)``).
"""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.actions import PLAY_BASE, Phase
from euchre_env.engine import deal
from euchre_env.engine.tables import NEXT_ACTIVE, NUM_ACTIVE, SEAT_BIT
from euchre_env.rules import NUM_TRICKS, RulesConfig
from euchre_env.state import State


def start_play(s: State, rows: np.ndarray, rules: RulesConfig) -> None:
    """The player left of the dealer leads, skipping a seat that sits out (RULES-NOTES 7)."""
    if not rows.size:
        return
    lead = NEXT_ACTIVE[rules.num_players][s.out[rows], s.dealer[rows]]
    s.phase[rows] = Phase.PLAY
    s.leader[rows] = lead
    s.turn[rows] = lead
    s.trick_no[rows] = 0
    s.n_played[rows] = 0
    s.led[rows] = -1


def apply_play(s: State, rows: np.ndarray, a: np.ndarray, rules: RulesConfig) -> None:
    """Play one card to the current trick; finish the trick when every active seat has played.

    Playing the called card reveals the hidden partner (RULES-NOTES 12).
    """
    p = rules.num_players
    card = a - PLAY_BASE if PLAY_BASE else a
    seat = s.turn[rows]
    t = s.trick_no[rows]
    bit = cards.CARD_BIT[card]
    at = rows * p + seat  # flat index of (row, seat)
    s.hands.reshape(-1)[at] &= ~bit
    s.played_by.reshape(-1)[at] |= bit
    rt = rows * NUM_TRICKS + t  # flat index of (row, trick)
    s.trick_bits.reshape(-1)[rt] |= bit
    s.trick_cards.reshape(-1)[rt * p + seat] = card
    n = s.n_played[rows]
    leads = n == 0
    lead_rows = rows[leads]
    s.led[lead_rows] = cards.EFFECTIVE_SUIT[s.trump[lead_rows], card[leads]]
    if rules.called_card:
        called_now = card == s.called[rows]
        s.revealed[rows[called_now]] = t[called_now]
    n = n + 1
    s.n_played[rows] = n
    out = s.out[rows]
    s.turn[rows] = _NEXT_FLAT[p][out * p + seat]  # NEXT_ACTIVE[p][out, seat] (out * p < 256), flat is faster
    full = n == NUM_ACTIVE[p][out]
    if full.any():
        finish_trick(s, rows[full], rules)


_NEXT_FLAT = {p: table.reshape(-1) for p, table in NEXT_ACTIVE.items()}
_STRENGTH_FLAT = cards.STRENGTH.reshape(-1)
_STRENGTH_ROW = cards.STRENGTH.shape[2]  # C + 1 entries per (trump, led)
# _STRENGTH_KEY[trump, led] + card: flat index of STRENGTH[trump, led, card + 1].
_STRENGTH_KEY = (np.arange(cards.STRENGTH.shape[0] * cards.NUM_SUITS) * _STRENGTH_ROW + 1).reshape(
    -1, cards.NUM_SUITS
)


def finish_trick(s: State, rows: np.ndarray, rules: RulesConfig) -> None:
    """Highest trump wins, else the highest card of the led suit; the winner leads next."""
    t = s.trick_no[rows]
    rt = rows * NUM_TRICKS + t  # flat index of (row, trick)
    played = s.trick_cards.reshape(-1, rules.num_players)[rt]  # (n, P), -1 for a seat that sits out
    power = _STRENGTH_FLAT[_STRENGTH_KEY[s.trump[rows], s.led[rows]][:, None] + played]  # (n, P)
    winner = power.argmax(axis=1)  # int64; stored as int8
    s.trick_winner.reshape(-1)[rt] = winner
    s.tricks_won.reshape(-1)[rows * rules.num_players + winner] += 1
    t += 1
    s.trick_no[rows] = t
    s.leader[rows] = winner
    s.turn[rows] = winner
    s.n_played[rows] = 0
    s.led[rows] = -1
    last = t == NUM_TRICKS
    if last.any():
        end_hand(s, rows[last], rules)


def hand_points(s: State, rows: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """Points each seat scores for the finished hand (RULES-NOTES 13, 17).

    The side is the maker plus the partner (fixed partner four-handed; the
    called card's holder five-handed, none if alone or the card is in the kitty).
    Side takes 3-4: 1 each; 5: 2 each, 4 for a declared loner; 0-2: each
    defender 2, or 4 when a lone defender euchres a lone maker.

    Returns:
        Int8 array of shape ``(n, P)``.
    """
    seats = np.arange(rules.num_players)
    maker = s.maker[rows, None]
    if rules.called_card:
        side = (seats == maker) | (seats == s.partner[rows, None])
    else:
        side = seats % 2 == maker % 2
    side_tricks = (s.tricks_won[rows] * side).sum(axis=1)
    alone = s.alone[rows]
    made = side_tricks >= 3
    win = np.where(side_tricks == 5, np.where(alone, 4, 2), 1)
    euchre = np.where(alone & (s.defender_alone[rows] >= 0), 4, 2)
    pts = np.where(side, np.where(made, win, 0)[:, None], np.where(made, 0, euchre)[:, None])
    return pts.astype(np.int8)


def end_hand(s: State, rows: np.ndarray, rules: RulesConfig, thrown_in: bool = False) -> None:
    """Score the hand, record it in ``last_*``, and end the episode or deal on.

    A thrown-in hand scores nothing (RULES-NOTES 16). In a game, after a hand,
    if any total reaches ``points_to_win`` the highest totals share the victory
    (RULES-NOTES 14, 19); otherwise the deal moves one seat left (RULES-NOTES 1).
    """
    if not rows.size:
        return
    pts = np.zeros((rows.size, rules.num_players), np.int8) if thrown_in else hand_points(s, rows, rules)
    s.scores[rows] += pts
    s.hand_over[rows] = True
    s.last_points[rows] = pts
    s.last_tricks[rows] = s.tricks_won[rows]
    for f in ("maker", "trump", "called", "partner", "alone", "defender_alone"):
        getattr(s, "last_" + f)[rows] = getattr(s, f)[rows]
    if rules.episode == "hand":
        _finish(s, rows)
        return
    scores = s.scores[rows]
    top = scores.max(axis=1)
    over = top >= rules.points_to_win
    done = rows[over]
    s.winners[done] = ((scores[over] == top[over, None]) * SEAT_BIT[: rules.num_players]).sum(axis=1)
    _finish(s, done)
    nxt = rows[~over]
    s.hand_no[nxt] += 1
    s.dealer[nxt] = (s.dealer[nxt] + 1) % rules.num_players
    deal.deal_seeded(s, nxt, rules)


def _finish(s: State, rows: np.ndarray) -> None:
    s.phase[rows] = Phase.DONE
    s.turn[rows] = -1

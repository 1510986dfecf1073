"""Bidding and declarations: one function per phase, each over a subset of rows.

Every function takes the state (mutated in place on ``rows`` only), the row
indices ``rows`` (shape ``(n,)``) whose tables are in that phase, their legal
actions ``a`` (shape ``(n,)``), and the rules. The caller checked legality.
"""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.actions import ALONE, CALL_BASE, DEFEND_ALONE, DISCARD_BASE, NAME_SUIT_BASE, ORDER_UP, Phase
from euchre_env.engine import play
from euchre_env.engine.tables import SEAT_BIT
from euchre_env.rules import RulesConfig
from euchre_env.state import State


def _declare_phase(rules: RulesConfig) -> Phase:
    """After trump and any discard the maker declares (rules.md#c7, #c11, #c15)."""
    return Phase.CALL if rules.called_card else Phase.DECLARE


def apply_bid_upcard(s: State, rows: np.ndarray, a: np.ndarray, rules: RulesConfig) -> None:
    """Round 1: pass, or accept the upcard's suit (rules.md#c5).

    On an accept the acceptor is the maker and the dealer takes the upcard into
    hand, then discards. After the dealer's pass, round 2 starts left of the dealer.
    """
    order = rows[a == ORDER_UP]
    if order.size:
        up = s.upcard[order].astype(np.intp)  # intp indices: see engine.masks
        dealer = s.dealer[order]
        s.maker[order] = s.turn[order]
        s.trump[order] = cards.CARD_SUIT[up]
        s.hands.reshape(-1)[order * rules.num_players + dealer] |= cards.CARD_BIT[up]
        s.kitty[order] &= ~cards.CARD_BIT[up]
        s.phase[order] = Phase.DISCARD
        s.turn[order] = dealer
    passed = rows[a != ORDER_UP]
    if passed.size:
        to_round_2 = passed[s.turn[passed] == s.dealer[passed]]
        s.turn[passed] = (s.turn[passed] + 1) % rules.num_players
        s.phase[to_round_2] = Phase.BID_SUIT
        s.bid_round[to_round_2] = 2


def apply_discard(s: State, rows: np.ndarray, a: np.ndarray, rules: RulesConfig) -> None:
    """The dealer discards any one of six cards face down, then the maker declares."""
    card = a - DISCARD_BASE
    s.hands.reshape(-1)[rows * rules.num_players + s.dealer[rows]] &= ~cards.CARD_BIT[card]
    s.discard[rows] = card
    s.phase[rows] = _declare_phase(rules)
    s.turn[rows] = s.maker[rows]


def apply_bid_suit(s: State, rows: np.ndarray, a: np.ndarray, rules: RulesConfig) -> list[np.ndarray]:
    """Round 2: pass, or name a suit other than the upcard's (rules.md#c6).

    Returns:
        Rows whose hand is thrown in: every seat passed, stick the dealer off
        (rules.md#c16). The caller ends those hands.
    """
    named = a >= NAME_SUIT_BASE
    nr = rows[named]
    s.trump[nr] = a[named] - NAME_SUIT_BASE
    s.maker[nr] = s.turn[nr]
    s.phase[nr] = _declare_phase(rules)
    passed = rows[~named]
    thrown = passed[s.turn[passed] == s.dealer[passed]]
    s.turn[passed] = (s.turn[passed] + 1) % rules.num_players
    return [thrown]


def apply_call(s: State, rows: np.ndarray, a: np.ndarray, rules: RulesConfig) -> None:
    """Five-handed maker calls a card not in hand, or goes alone (rules.md#c11, #c12).

    The holder of the called card becomes the hidden partner; if no seat holds
    it (kitty or the dealer's discard) the maker has no partner.
    """
    alone = a == ALONE
    s.alone[rows] = alone
    cr = rows[~alone]
    if cr.size:
        card = a[~alone] - CALL_BASE
        s.called[cr] = card
        holds = (s.hands[cr] & cards.CARD_BIT[card][:, None]) != 0  # (n, P)
        s.partner[cr] = np.where(holds.any(axis=1), holds.argmax(axis=1), -1)
    play.start_play(s, rows, rules)


def _first_defender(s: State, rows: np.ndarray) -> np.ndarray:
    """First defender clockwise from the dealer's left (four-handed). Shape (n,)."""
    left = (s.dealer[rows] + 1) % 4
    return np.where(left % 2 != s.maker[rows] % 2, left, (left + 1) % 4).astype(np.int8)


def apply_declare(s: State, rows: np.ndarray, a: np.ndarray, rules: RulesConfig) -> None:
    """Four-handed maker goes alone (partner sits out) or plays with partner (rules.md#c15)."""
    alone = a == ALONE
    s.alone[rows] = alone
    lone = rows[alone]
    s.out[lone] |= SEAT_BIT[(s.maker[lone] + 2) % 4]
    if rules.defend_alone and lone.size:
        # Defending alone: each defender from the dealer's left may go alone (rules.md#c18).
        s.phase[lone] = Phase.DEFEND
        s.turn[lone] = _first_defender(s, lone)
        play.start_play(s, rows[~alone], rules)
    else:
        play.start_play(s, rows, rules)


def apply_defend(s: State, rows: np.ndarray, a: np.ndarray, rules: RulesConfig) -> None:
    """A defender defends alone (partner sits out) or passes to the other defender."""
    lone = a == DEFEND_ALONE
    dr = rows[lone]
    s.defender_alone[dr] = s.turn[dr]
    s.out[dr] |= SEAT_BIT[(s.turn[dr] + 2) % 4]
    passed = rows[~lone]
    first = s.turn[passed] == _first_defender(s, passed)
    ask_next = passed[first]
    s.turn[ask_next] = (s.turn[ask_next] + 2) % 4
    play.start_play(s, np.concatenate([dr, passed[~first]]), rules)

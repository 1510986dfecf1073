"""Bidding rules of thumb of the rule-based player: make trump, discard, alone, call, defend.

Hand strength is a count of likely tricks for a candidate trump suit: each
trump counts by its rank (the bowers count as trump, the right bower as a sure
trick), each off-suit ace about two thirds of a trick, and each void off-suit
a little when the hand has trump to ruff with. A player makes trump when the
count clears a threshold that depends on the seat (the dealer gains the
upcard, the dealer's opponents hand it to the other side, nobody gains it in
round 2). Every function takes ``(B, ...)`` arrays and returns ``(B,)`` arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.view import ObsView, card_bits
from euchre_env import cards
from euchre_env.rules import RulesConfig

C = cards.NUM_CARDS
S = cards.NUM_SUITS

# Likely tricks per trump, indexed by cards.TRUMP_ORDER (0 = not trump, 1 = the 8 .. 8 = right bower).
TRUMP_TRICK_VALUE = np.array([0.0, 0.35, 0.4, 0.45, 0.5, 0.6, 0.75, 0.85, 1.0])
OFF_ACE_VALUE = 0.65  # an off-suit ace usually wins the first round of its suit
VOID_VALUE = 0.25  # a void off-suit lets a hand with trump ruff
MIN_TRUMP_FOR_VOIDS = 2  # voids only help a hand that has trump to ruff with
MIN_TRUMP_TO_MAKE = 2  # never make trump holding fewer than two of them

# Strength (likely tricks) needed to make trump, by situation (four-handed game).
ORDER_UP_STRENGTH = 2.7  # dealer's opponent orders up: the upcard goes to the other side
ASSIST_STRENGTH = 1.5  # dealer's partner assists: the upcard joins our side
PICK_UP_STRENGTH = 1.9  # dealer picks up: counted after taking the upcard and discarding
NAME_SUIT_STRENGTH = 2.1  # round 2: nobody gains a card
NEXT_SUIT_BONUS = 0.2  # round 2, left of dealer: "next" (the upcard's colour mate) is favoured
FIVE_HANDED_MARGIN = -0.2  # five-handed maker calls the best trump it lacks, so its partner brings about a trick (tuned by duplicate self-play)
DEFEND_ALONE_STRENGTH = 3.2  # four-handed: defend alone only with three likely trump tricks
ALONE_MIN_TRUMP = 3  # a lone hand needs trump length to draw the defenders' trump
ALONE_MAX_LOSERS = 1  # a lone hand may carry one card that is neither trump nor an off ace

BID_VALUE = np.zeros((S, C))  # BID_VALUE[trump, card]: likely tricks of one card
for _t in range(S):
    BID_VALUE[_t] = TRUMP_TRICK_VALUE[cards.TRUMP_ORDER[_t]]
    BID_VALUE[_t] += OFF_ACE_VALUE * ((cards.CARD_RANK == cards.ACE) & (cards.TRUMP_ORDER[_t] == 0))
IS_ACE = cards.CARD_RANK == cards.ACE


@dataclass(frozen=True)
class Thresholds:
    """Strength thresholds (likely tricks) of one game; see the module constants for the reasons."""

    order_up: float
    assist: float
    pick_up: float
    name_suit: float

    @staticmethod
    def for_rules(rules: RulesConfig) -> Thresholds:
        """Four-handed defaults, raised by ``FIVE_HANDED_MARGIN`` in the five-handed game."""
        m = FIVE_HANDED_MARGIN if rules.called_card else 0.0
        return Thresholds(
            ORDER_UP_STRENGTH + m, ASSIST_STRENGTH + m, PICK_UP_STRENGTH + m, NAME_SUIT_STRENGTH + m
        )


def suit_counts(hand: np.ndarray) -> np.ndarray:
    """counts[b, t, s]: cards of effective suit ``s`` in hand ``b`` if ``t`` were trump. Int (B, 4, 4)."""
    return np.bitwise_count(card_bits(hand)[:, None, None] & cards.SUIT_BITS[None, :S, :S]).astype(np.int16)


def hand_strength(hand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Likely tricks and trump count of a hand for each candidate trump suit.

    Counts trump by rank (bowers included), off-suit aces, and off-suit voids
    when holding at least ``MIN_TRUMP_FOR_VOIDS`` trump: the counting a club
    player does before bidding.

    Args:
        hand: bool (B, C).

    Returns:
        ``(strength, n_trump)``: float (B, 4) and int (B, 4), indexed by trump suit.
    """
    counts = suit_counts(hand)  # (B, 4, 4)
    n_trump = counts[:, np.arange(S), np.arange(S)]  # (B, 4)
    voids = (counts == 0).sum(axis=2)  # trump suit itself is never void when n_trump >= 2
    strength = hand.astype(np.float64) @ BID_VALUE.T + VOID_VALUE * voids * (n_trump >= MIN_TRUMP_FOR_VOIDS)
    return strength, n_trump


def choose_discard(hand6: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """The dealer's discard: short-suit yourself, keep trump and aces.

    Discarding a singleton off-suit card voids the suit, so the dealer can
    trump it later; a low card of a longer suit is the next choice. Trump and
    off-suit aces are kept: they are the hand's tricks.

    Args:
        hand6: bool (B, C), the dealer's six cards.
        trump: int (B,), the trump suit.

    Returns:
        Card id per row, int (B,).
    """
    order = cards.TRUMP_ORDER[trump].astype(np.int64)  # (B, C)
    suit = cards.EFFECTIVE_SUIT[trump]
    held_in_suit = np.bitwise_count(card_bits(hand6)[:, None] & cards.SUIT_BITS[trump, :S])  # (B, 4)
    count = np.take_along_axis(held_in_suit, suit.astype(np.int64), axis=1)  # (B, C)
    plain = 100 * (count.astype(np.int64) - 1) + cards.CARD_RANK[None, :]
    cost = np.where(order > 0, 1000 + order, np.where(IS_ACE[None, :], 500, plain))
    return np.where(hand6, cost, 10_000).argmin(axis=1)


def strength_after_pickup(hand: np.ndarray, upcard: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dealer's likely tricks and trump count in the upcard's suit after taking it and discarding.

    Returns:
        ``(strength, n_trump)``, float (B,) and int (B,).
    """
    rows = np.arange(hand.shape[0])
    up = np.maximum(upcard, 0)
    upsuit = cards.CARD_SUIT[up].astype(np.int64)
    six = hand.copy()
    six[rows, up] = True
    six[rows, choose_discard(six, upsuit)] = False
    strength, n_trump = hand_strength(six)
    return strength[rows, upsuit], n_trump[rows, upsuit]


def should_go_alone(hand: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """Go alone with a hand that should take every trick, or all but one, by itself.

    The right bower and at least three trump, with the left bower or the ace
    of trump behind it ("both bowers and an ace"), and at most
    ``ALONE_MAX_LOSERS`` card that is neither trump nor an off-suit ace; or
    four trump headed by the right bower with no loser at all. A lone march
    scores 4 instead of 2, and a lone 3-4 tricks still scores 1
    (rules.md#c13, #c17), so a single loser is worth the risk.

    Args:
        hand: bool (B, C); trump: int (B,).

    Returns:
        Bool (B,).
    """
    order = cards.TRUMP_ORDER[trump]  # (B, C)
    held = np.where(hand, order, 0)
    n_trump = (held > 0).sum(axis=1)
    right, left, ace = ((held == k).any(axis=1) for k in (8, 7, 6))
    losers = (hand & (order == 0) & ~IS_ACE[None, :]).sum(axis=1)
    backed = (left | ace) & (losers <= ALONE_MAX_LOSERS)
    long_clean = (n_trump >= ALONE_MIN_TRUMP + 1) & (losers == 0)
    return right & (n_trump >= ALONE_MIN_TRUMP) & (backed | long_clean)


def bid_upcard(view: ObsView, th: Thresholds) -> np.ndarray:
    """Round 1: order up / assist / pick up when the upcard's suit is strong enough for this seat.

    The dealer counts the hand after taking the upcard (PICK_UP); the dealer's
    partner counts the upcard as help (ASSIST); an opponent of the dealer
    hands the dealer a trump, so needs more (ORDER_UP). Five-handed, every
    non-dealer orders with the ORDER_UP threshold.

    Returns:
        Bool (B,): accept the upcard's suit.
    """
    rows = np.arange(view.batch_size)
    upsuit = cards.CARD_SUIT[np.maximum(view.upcard, 0)].astype(np.int64)
    strength, n_trump = hand_strength(view.hand)
    mine, mine_n = strength[rows, upsuit], n_trump[rows, upsuit]
    dealer_s, dealer_n = strength_after_pickup(view.hand, view.upcard)
    i_deal = view.dealer == 0
    partner_deals = (view.dealer == 2) & (not view.rules.called_card)
    need = np.where(partner_deals, th.assist, th.order_up)
    accept_other = (mine >= need) & (mine_n >= MIN_TRUMP_TO_MAKE)
    accept_dealer = (dealer_s >= th.pick_up) & (dealer_n >= MIN_TRUMP_TO_MAKE + 1)
    return np.where(i_deal, accept_dealer, accept_other)


def bid_suit(view: ObsView, legal: np.ndarray, th: Thresholds) -> np.ndarray:
    """Round 2: name the strongest legal suit if it is strong enough; a stuck dealer must name it.

    The seat left of the dealer favours "next" (the suit of the upcard's
    colour): the dealer turned it down, so its bowers are likely not there.

    Args:
        legal: bool (B, 4) suits that may be named; ``pass_ok`` is read from the mask.

    Returns:
        Int (B,): the suit to name, or -1 to pass.
    """
    strength, n_trump = hand_strength(view.hand)
    up = np.maximum(view.upcard, 0)
    next_suit = cards.SAME_COLOUR_SUIT[cards.CARD_SUIT[up]]
    left_of_dealer = view.dealer == view.num_players - 1
    strength = strength + NEXT_SUIT_BONUS * (left_of_dealer[:, None] & (np.arange(S) == next_suit[:, None]))
    score = np.where(legal, strength, -np.inf)
    best = score.argmax(axis=1)
    rows = np.arange(view.batch_size)
    good = (score[rows, best] >= th.name_suit) & (n_trump[rows, best] >= MIN_TRUMP_TO_MAKE)
    return np.where(good, best, -1)


def choose_call(view: ObsView, legal_calls: np.ndarray) -> np.ndarray:
    """Five-handed: call the highest trump you lack, else an off-suit ace you lack.

    The right bower (then the left, the ace of trump) is the card most sure to
    take a trick, so its holder is the most useful partner. A card known to be
    out of play (the turned-down upcard, my own discard) is never called: that
    would be a solo without the lone bonus.

    Args:
        legal_calls: bool (B, C) cards that may be called (not in my hand).

    Returns:
        Card id per row, int (B,).
    """
    order = cards.TRUMP_ORDER[view.trump].astype(np.float64)  # (B, C)
    suit_len = view.suit_len  # (B, C)
    off_ace = IS_ACE[None, :] & (order == 0)
    cost = np.where(order > 0, 10.0 - order, 100.0)
    cost = np.where(off_ace, 4.5 + 0.1 * suit_len, cost)  # after the ace of trump (cost 4)
    cost = np.where(view.hidden_known_out, 1000.0, cost)
    return np.where(legal_calls, cost, np.inf).argmin(axis=1)


def should_defend_alone(view: ObsView) -> np.ndarray:
    """Four-handed: defend alone against a loner only with about three sure trump tricks.

    Euchring a lone maker alone scores 4 instead of 2 (rules.md#c18), but a
    lone defender must take three tricks without help.

    Returns:
        Bool (B,).
    """
    rows = np.arange(view.batch_size)
    strength, n_trump = hand_strength(view.hand)
    t = np.minimum(view.trump, S - 1)
    return (strength[rows, t] >= DEFEND_ALONE_STRENGTH) & (n_trump[rows, t] >= 3)

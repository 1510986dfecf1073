"""Invariant groups of the deal and the bidding: what each phase fixes, hand sizes."""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.engine.tables import SEAT_BIT
from euchre_env.rules import HAND_SIZE
from euchre_env.state import State
from euchre_env.validation.common import (
    BID_SUIT,
    BID_UPCARD,
    CALL,
    DECLARE,
    DEFEND,
    DISCARD,
    DONE,
    PLAY,
    Game,
    Problem,
    card_name,
    count_cards,
    first_problem,
    maker_set,
    phase_name,
    played_cards,
    upcard_taken,
)


def check_phase(s: State, game: Game) -> Problem | None:
    """The fields each phase fixes: bidding round, maker, trump, seat to act, upcard, discard, declarations."""
    r, p = game.rules, game.rules.num_players
    ph, made, taken = s.phase, maker_set(s), upcard_taken(s)
    bidding = (ph == BID_UPCARD) | (ph == BID_SUIT)
    declared = (ph == PLAY) | (ph == DONE) | (ph == DEFEND)  # the maker has declared (if there is one)
    up_suit = cards.CARD_SUIT[s.upcard.astype(np.intp)]
    up_bit = cards.CARD_BIT[s.upcard.astype(np.intp)]
    dealer = s.dealer.astype(np.intp)
    rows = np.arange(s.batch_size)
    held = s.hands | played_cards(s)  # (B, P): each seat's cards this hand (the dealer's after any discard)
    thrown_in_ok = not (game.exact and r.stick_the_dealer) and not r.called_card
    partner_seat = (s.maker.astype(np.intp) + 2) % p
    lone_maker = made & s.alone & declared
    out_want = np.where(lone_maker & ~r.called_card, SEAT_BIT[partner_seat], 0)
    da = s.defender_alone.astype(np.intp)
    out_want |= np.where(da >= 0, SEAT_BIT[(da + 2) % p], 0)
    holder = np.where((held & cards.CARD_BIT[np.maximum(s.called, 0)][:, None]) != 0, np.arange(p), p).min(1)
    checks = [
        (
            ((ph == BID_UPCARD) | (ph == DISCARD)) & (s.bid_round != 1)
            | (ph == BID_SUIT) & (s.bid_round != 2),
            "bid_round",
            lambda row: f"is {s.bid_round[row]} in phase {phase_name(s, row)}",
        ),
        (bidding & made, "maker", lambda row: f"is seat {s.maker[row]} while trump is still bid for"),
        (
            ~bidding & (ph != DONE) & ~made,
            "maker",
            lambda row: f"is -1 (nobody) in phase {phase_name(s, row)}, after trump was made",
        ),
        (
            (s.trump != cards.NO_TRUMP) != made,
            "trump",
            lambda row: f"is {s.trump[row]} but maker is {s.maker[row]}: trump is made iff there is a maker",
        ),
        (
            taken & (s.trump != up_suit),
            "trump",
            lambda row: (
                f"is {s.trump[row]}, but the upcard {card_name(s.upcard[row])} was ordered up in round 1"
            ),
        ),
        (
            made & (s.bid_round == 2) & (s.trump == up_suit),
            "trump",
            lambda row: (
                f"is the suit of the upcard {card_name(s.upcard[row])}, which cannot be named in round 2"
            ),
        ),
        (
            (ph == DONE) & ~made & ((s.bid_round != 2) | (not thrown_in_ok)),
            "maker",
            lambda row: (
                "is -1 in a finished hand: a hand is thrown in only after two passed rounds, "
                "without stick the dealer"
            ),
        ),
        (
            (ph == DONE) != (s.turn == -1),
            "turn",
            lambda row: f"is {s.turn[row]} in phase {phase_name(s, row)}",
        ),
        (
            (ph == DISCARD) & (s.turn != s.dealer),
            "turn",
            lambda row: f"is seat {s.turn[row]}, but the dealer (seat {s.dealer[row]}) discards",
        ),
        (
            ((ph == CALL) | (ph == DECLARE)) & (s.turn != s.maker),
            "turn",
            lambda row: f"is seat {s.turn[row]}, but the maker (seat {s.maker[row]}) declares",
        ),
        (
            (ph == DEFEND) & ((s.turn.astype(np.int64) - s.maker) % 2 == 0),
            "turn",
            lambda row: f"is seat {s.turn[row]}, not a defender against maker {s.maker[row]}",
        ),
        (
            (s.kitty & up_bit != 0) == taken,
            "upcard",
            lambda row: (
                f"{card_name(s.upcard[row])} "
                + ("is in the kitty, but the dealer took it" if taken[row] else "is not in the kitty")
                + f" (maker {s.maker[row]}, bid_round {s.bid_round[row]})"
            ),
        ),
        (
            taken & ((held[rows, dealer] & up_bit) == 0) & (s.discard != s.upcard),
            "upcard",
            lambda row: (
                f"{card_name(s.upcard[row])} was taken by the dealer (seat {s.dealer[row]}), who has "
                "neither held, played nor discarded it"
            ),
        ),
        (
            (s.discard >= 0) != (taken & (ph != DISCARD)),
            "discard",
            lambda row: (
                f"is {card_name(s.discard[row])}: the dealer discards once, after ordering up in round 1 "
                f"(phase {phase_name(s, row)}, maker {s.maker[row]}, bid_round {s.bid_round[row]})"
            ),
        ),
        (
            s.alone & ~(made & declared),
            "alone",
            lambda row: f"is True but no maker has declared (phase {phase_name(s, row)})",
        ),
        (
            (ph == DEFEND) & ~s.alone,
            "alone",
            lambda row: "is False, but defenders are asked to defend alone only against a lone maker",
        ),
    ]
    if r.called_card:
        called = s.called >= 0
        checks += [
            (
                called & ~(made & declared) | (made & declared & (called == s.alone)),
                "called",
                lambda row: (
                    f"is {card_name(s.called[row])} with alone {s.alone[row]} in phase {phase_name(s, row)}: "
                    "the maker calls a card or goes alone, once"
                ),
            ),
            (
                called & (holder == s.maker),
                "called",
                lambda row: f"{card_name(s.called[row])} is the maker's own card",
            ),
            (
                s.partner != np.where(called & (holder < p), holder, -1),
                "partner",
                lambda row: (
                    f"is {s.partner[row]}, but the called card {card_name(s.called[row])} is held by "
                    + (f"seat {holder[row]}" if s.called[row] >= 0 and holder[row] < p else "nobody")
                ),
            ),
        ]
    else:
        checks += [
            (
                (da >= 0) & ~(s.alone & declared & (ph != DEFEND) & ((da - s.maker) % 2 == 1)),
                "defender_alone",
                lambda row: (
                    f"is seat {da[row]}: only a defender against a lone maker, once asked, "
                    f"defends alone (maker {s.maker[row]}, alone {s.alone[row]}, phase {phase_name(s, row)})"
                ),
            ),
            (
                (ph == DEFEND) & (da >= 0),
                "defender_alone",
                lambda row: "is set while the defenders are still asked",
            ),
            (
                s.out != out_want,
                "out",
                lambda row: (
                    f"is {s.out[row]:0{p}b} (seats bits), expected {out_want[row]:0{p}b}: the lone "
                    "maker's partner and a lone defender's partner sit out"
                ),
            ),
        ]
    for bad, field, detail in checks:
        problem = first_problem(np.asarray(bad), field, detail)
        if problem is not None:
            return problem
    return None


def check_hands(s: State, game: Game) -> Problem | None:
    """Five cards per seat counting those played; six for the dealer while discarding."""
    p = game.rules.num_players
    have = count_cards(s.hands) + count_cards(played_cards(s))  # (B, P)
    want = np.full(have.shape, HAND_SIZE)
    want[np.arange(s.batch_size), s.dealer.astype(np.intp)] += s.phase == DISCARD
    bad = have != want
    return first_problem(
        bad.any(axis=1),
        "hands",
        lambda row: "; ".join(
            f"seat {i} holds {count_cards(s.hands[row, i])} and has played {have[row, i] - count_cards(s.hands[row, i])}"
            f" cards, expected {want[row, i]} in all"
            for i in range(p)
            if bad[row, i]
        ),
    )

"""Scripted hands from given deals, one or more per numbered convention of docs/rules.md.

Convention 5 is cited as ``rules.md#c5``, and its tests are named ``test_rn5_...``.

Deals are written by seat (seat 0 first), cards as in rules.md#c2. Scripts are
action words as ``actions.describe`` writes them ("pass", "order up",
"discard 9C", "name hearts", "call AS", "alone", "with partner",
"defend alone"); tricks are the cards in play order from the leader.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from euchre_env import actions as act
from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.engine import (
    IllegalActionError,
    current_player,
    init_state,
    is_done,
    legal_action_mask,
    rewards,
    sample_legal,
    step,
)
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State

# --- helpers -------------------------------------------------------------------


def deal(
    dealer: int, hands: list[str], upcard: str, kitty: str, scores: list[int] | None = None
) -> dict[str, Any]:
    """A given deal from space-separated card names."""
    d: dict[str, Any] = {
        "dealer": dealer,
        "hands": [h.split() for h in hands],
        "upcard": upcard,
        "kitty": kitty.split(),
    }
    if scores is not None:
        d["scores"] = scores
    return d


def start(rules: RulesConfig, given: dict[str, Any]) -> State:
    """One table dealt ``given``."""
    return init_state(rules, deals=[given], rng=np.random.default_rng(0))


def run(state: State, rules: RulesConfig, script: list[str]) -> State:
    """Apply scripted actions (words) to a one-table state."""
    for t, words in enumerate(script):
        assert not is_done(state)[0], f"[{t}] the hand is over before {words!r}"
        state = step(state, np.array([act.parse(words)]), rules)
    return state


def plays(tricks: list[str]) -> list[str]:
    """Script of play actions for tricks written as cards in play order."""
    return [f"play {c}" for trick in tricks for c in trick.split()]


def legal(state: State, rules: RulesConfig) -> set[str]:
    """The legal actions of table 0, in words."""
    return {act.describe(a) for a in np.flatnonzero(legal_action_mask(state, rules)[0])}


def names(mask: int) -> set[str]:
    """Card names of a bitmask."""
    return {cards.name(c) for c in cards.cards_of(int(mask))}


def build_deal(
    rules: RulesConfig,
    dealer: int,
    fixed: dict[int, list[str]],
    upcard: str,
    avoid: dict[int, Callable[[int], bool]] | None = None,
) -> dict[str, Any]:
    """A full legal deal holding the ``fixed`` cards; the rest filled in id order.

    ``avoid[seat]`` rejects cards for that seat (e.g. to make a seat void in a suit).
    """
    avoid = avoid or {}
    used = {cards.parse(c) for cs in fixed.values() for c in cs} | {cards.parse(upcard)}
    pool = [c for c in rules.deck if c not in used]
    hands: dict[int, list[int]] = {
        s: [cards.parse(c) for c in fixed.get(s, [])] for s in range(rules.num_players)
    }
    for seat in sorted(range(rules.num_players), key=lambda s: s not in avoid):
        reject = avoid.get(seat, lambda c: False)
        while len(hands[seat]) < 5:
            c = next(c for c in pool if not reject(c))
            pool.remove(c)
            hands[seat].append(c)
    return {
        "dealer": dealer,
        "hands": [[cards.name(c) for c in hands[s]] for s in range(rules.num_players)],
        "upcard": upcard,
        "kitty": [cards.name(c) for c in pool],
    }


def eff_suit(card: int, trump: int) -> int:
    """The suit a card follows under ``trump``: the left bower counts as trump (rules.md#c3)."""
    jack, suit = card % 7 == cards.JACK, card // 7
    return trump if jack and suit == int(cards.SAME_COLOUR_SUIT[trump]) else suit


# --- the deals --------------------------------------------------------------------
# Five-handed: seat 4 deals, the 8C is turned up and everyone passes it; seat 0 leads.
# FIVE_A: seat 0 holds the five top hearts and takes every trick with hearts trump.

FIVE_A = deal(
    4,
    ["JH JD AH KH QH", "TH 9H 8H 9C TC", "AS KS QS JS TS", "AD KD QD TD 9D", "AC KC QC JC 9S"],
    "8C",
    "8D 8S",
)
TRICKS_A = ["JH 8H TS 9D 9S", "JD 9H JS TD JC", "AH TH QS QD QC", "KH 9C KS KD KC", "QH TC AS AD AC"]
# seat 0 takes three tricks with its trumps, seat 1 the last two with spades
FIVE_B = deal(
    4,
    ["JH JD AH 9S TS", "AS KS QS JS 8S", "KH QH TH AD KD", "AC KC QC JC TC", "8D 9D TD QD 9C"],
    "8C",
    "8H 9H",
)
TRICKS_B = ["JH 8S TH TC 8D", "JD JS QH JC 9D", "AH QS KH QC TD", "9S AS AD KC QD", "KS KD AC 9C TS"]
# seat 0 takes four, seat 1 the last
FIVE_B2 = deal(
    4,
    ["JH JD AH KH 9S", "AS KS QS JS 8S", "QH TH TS AD KD", "AC KC QC JC TC", "8D 9D TD QD 9C"],
    "8C",
    "8H 9H",
)
TRICKS_B2 = ["JH 8S TH TC 8D", "JD JS QH JC 9D", "AH QS TS QC TD", "KH KS AD KC QD", "9S AS KD AC 9C"]
# FIVE_D: the dealer (seat 4) orders up the QH, discards the 9C and calls it: no partner
FIVE_D = deal(
    4,
    ["AC KC QC JC TC", "TH 9H 8H AS KS", "QS JS TS 9S 8S", "AD KD QD TD 9D", "JH JD AH KH 9C"],
    "QH",
    "8C 8D",
)
TRICKS_D = ["AC AS 8S 9D QH", "JH KC 8H 9S TD", "JD QC 9H TS QD", "AH JC TH JS KD", "KH TC KS QS AD"]
FIVE_PASS_ROUND_1 = ["pass"] * 5

# Four-handed: the four hands of the worked example "four hands to 8-1" (rules.md §4.7).
F1 = deal(3, ["JH JD AH KH QH", "9H TH AC KC QC", "AS KS QS JS TS", "AD KD QD TD 9D"], "9C", "JC TC 9S")
F1_TRICKS = ["JH 9H AS AD", "JD TH KS KD", "AH AC QS QD", "KH KC JS TD", "QH QC TS 9D"]
F2 = deal(0, ["QS TS 9S AD KD", "JS JC AS KS 9H", "AH KH QH JH TH", "AC KC QC TC 9C"], "9D", "JD QD TD")
F2_TRICKS = ["JS TH 9C 9S", "JC JH TC TS", "AS QH QC QS", "KS KH KC KD", "9H AH AC AD"]
F3 = deal(1, ["JH JD AH KH QH", "TH AC KC QC JC", "AS KS QS JS TS", "AD KD QD TD 9D"], "9H", "9C TC 9S")
F3_TRICKS_ALONE = ["AD QH AC", "JH 9H KD", "JD TH QD", "AH KC TD", "KH QC 9D"]
F4 = deal(2, ["JC AS 9D TD KH", "QC QS QD JD TH", "AH TC TS KD JH", "AC KC AD 9H 9S"], "9C", "JS QH KS")
F4_TRICKS = ["AC JC QC 9C", "AS QS TS 9S", "9D JD KD AD", "KC TD QD TC", "9H KH TH AH"]
FOUR_PASS_ROUND_1 = ["pass"] * 4

FIVE = PRESETS["five_handed"]
FOUR = PRESETS["four_handed"]
FOUR_NO_STICK = PRESETS["four_handed_no_stick"]
FOUR_DEFEND = PRESETS["four_handed_defend_alone"]


def test_given_deals_are_complete() -> None:
    """Every scripted deal of this file is a legal deal of its variant (checked by the engine)."""
    for d in (FIVE_A, FIVE_B, FIVE_B2, FIVE_D):
        assert start(FIVE, d).phase[0] == Phase.BID_UPCARD, "five-handed deal not accepted"
    for d in (F1, F2, F3, F4):
        assert start(FOUR, d).phase[0] == Phase.BID_UPCARD, "four-handed deal not accepted"


# --- rules.md#c1: seats and the deal's rotation -----------------------------------------


def test_rn1_bidding_goes_clockwise_from_the_dealers_left(variant: str) -> None:
    """rules.md#c1: seats sit clockwise, the left of seat s is s + 1; bidding starts there."""
    rules = make_rules(variant)
    p = rules.num_players
    state = init_state(rules, seeds=list(range(40)))
    for k in range(2 * p):
        want = (state.dealer.astype(int) + 1 + k) % p
        assert (current_player(state) == want).all(), (
            f"[{k}] bidding turn is not clockwise from the dealer's left"
        )
        if k < 2 * p - 1:
            state = step(state, np.full(40, act.PASS), rules)
    assert len({int(d) for d in init_state(rules, seeds=list(range(40))).dealer}) == p, (
        "first dealer varies by seed"
    )


def test_rn1_the_deal_moves_left_after_each_hand(variant: str) -> None:
    """rules.md#c1: in a game the deal moves one seat left after each hand."""
    rules = make_rules(variant, episode="game", points_to_win=10)
    rng = np.random.default_rng(1)
    state = init_state(rules, 200, rng=rng)
    moves = 0
    for t in range(3000):
        if is_done(state).all():
            break
        before = state.dealer.copy()
        state = step(state, sample_legal(state, rules, rng), rules)
        dealt = state.hand_over & ~is_done(state)
        assert (state.dealer[dealt] == (before[dealt] + 1) % rules.num_players).all(), (
            f"[{t}] deal did not move left"
        )
        assert (state.dealer[~state.hand_over] == before[~state.hand_over]).all(), (
            f"[{t}] dealer changed mid-hand"
        )
        assert (current_player(state)[dealt] == (state.dealer[dealt] + 1) % rules.num_players).all(), (
            f"[{t}] the new hand's bidding must start left of the new dealer"
        )
        moves += int(dealt.sum())
    assert moves > 200, f"only {moves} new deals seen"


# --- rules.md#c2: card names --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("AS", 27),
        ("as", 27),
        ("8C", 0),
        ("TH", 16),
        ("10H", 16),
        ("A♠", 27),
        ("10♥", 16),
        ("J♦", 10),
        ("9♣", 1),
    ],
)
def test_rn2_card_names_parse(text: str, card: int) -> None:
    """rules.md#c2: rank then suit, 10 or T, letters or suit symbols."""
    assert cards.parse(text) == card, f"{text!r} should be card id {card}"


@pytest.mark.parametrize("text", ["XX", "1H", "AX", "A", "", "11S", "ASS", "9 H"])
def test_rn2_unknown_card_text_is_quoted(text: str) -> None:
    """rules.md#c2: unknown card text raises ValueError quoting it."""
    with pytest.raises(ValueError, match=re.escape(f"unknown card {text!r}")):
        cards.parse(text)


def test_rn2_names_round_trip_and_colours() -> None:
    """rules.md#c2: every id has a name that parses back; clubs and spades black, diamonds and hearts red."""
    for c in range(cards.NUM_CARDS):
        assert cards.parse(cards.name(c)) == c, f"card {c} ({cards.name(c)}) does not round-trip"
    assert [cards.name(c) for c in range(7)] == ["8C", "9C", "TC", "JC", "QC", "KC", "AC"], "clubs 8..A"
    assert cards.name(27) == "AS", "ids are suit-major, spades last"
    colour = {s: int(cards.SUIT_COLOUR[cards.SUIT_CHARS.index(s)]) for s in "CDHS"}
    assert colour["C"] == colour["S"] != colour["D"] == colour["H"], f"colours {colour}"
    with pytest.raises(ValueError, match="28"):
        cards.name(28)


# --- rules.md#c3: bowers and trick winners ----------------------------------------------

TRICK_CASES = [
    # variant, trump, cards in play order (seat 0 leads), winning seat
    ("four_handed", "H", ["AH", "JD", "JH", "9H"], 2),  # right bower beats left bower
    ("four_handed", "S", ["AC", "9S", "KC", "9C"], 1),  # lowest trump beats the led ace
    ("four_handed", "C", ["JS", "AC", "9C", "AS"], 0),  # left bower leads as trump
    ("four_handed", "H", ["AD", "JD", "KD", "QD"], 1),  # left bower is no diamond: it trumps the AD
    ("four_handed", "D", ["KC", "AC", "JC", "QC"], 1),  # no trump: highest of the led suit
    ("four_handed", "D", ["9S", "AH", "AC", "TS"], 3),  # off-suit aces never win
    ("four_handed", "S", ["9H", "TH", "JC", "AS"], 2),  # left bower beats the ace of trump
    ("four_handed", "C", ["QH", "JS", "AC", "JC"], 3),  # trumping in: right bower over left bower and ace
    ("four_handed", "H", ["KS", "AS", "9H", "TH"], 3),  # two trumps in: the higher wins
    ("five_handed", "C", ["8S", "9S", "8C", "AS", "KS"], 2),  # the 8 of trump beats the led suit's ace
    ("five_handed", "H", ["QS", "JD", "AS", "KS", "8H"], 1),  # left bower over the 8 of trump
    ("five_handed", "S", ["JC", "JS", "AS", "8S", "9S"], 1),  # right over left, left led
    ("five_handed", "D", ["JH", "AD", "KD", "8D", "JS"], 0),  # left bower led beats the ace of trump
    ("five_handed", "C", ["9D", "8D", "JD", "TD", "QD"], 4),  # plain suit: Q > J > 10 > 9 > 8
    ("five_handed", "S", ["AH", "KH", "JD", "8C", "8S"], 4),  # jack of the other red suit is plain; 8S trumps
]


@pytest.mark.parametrize(("variant", "trump", "played", "winner"), TRICK_CASES)
def test_rn3_trick_winner(variant: str, trump: str, played: list[str], winner: int) -> None:
    """rules.md#c3 and #c7: highest trump wins (bowers on top), else the highest card of the led suit."""
    rules = make_rules(variant)
    p = rules.num_players
    t = cards.parse_suit(trump)
    ids = [cards.parse(c) for c in played]
    led = eff_suit(ids[0], t)
    avoid = {s: (lambda c, led=led: eff_suit(c, t) == led) for s in range(1, p) if eff_suit(ids[s], t) != led}
    upcard = next(
        cards.name(c)
        for c in rules.deck
        if c // 7 != t and c not in ids and all(not avoid[s](c) for s in avoid)
    )
    given = build_deal(rules, p - 1, {s: [played[s]] for s in range(p)}, upcard, avoid)
    state = start(rules, given)
    declare = "alone" if rules.called_card else "with partner"
    state = run(state, rules, ["pass"] * p + [f"name {cards.SUIT_NAMES[t]}", declare])
    state = run(state, rules, [f"play {c}" for c in played])
    assert state.trick_winner[0, 0] == winner, (
        f"trump {trump}, {played}: seat {state.trick_winner[0, 0]} won, expected seat {winner}"
    )
    assert current_player(state)[0] == winner, "the trick winner leads the next trick (rules.md#c7)"
    assert state.tricks_won[0, winner] == 1, "the winner is credited with the trick"


def test_rn3_left_bower_follows_trump_not_its_printed_suit() -> None:
    """rules.md#c3: the left bower is a trump for following suit, and no longer a card of its printed suit."""
    hand1 = ["JD", "AC", "KC", "QC", "TC"]
    # a diamond is led: JD is not a diamond, so seat 1 (no other diamonds) may play anything
    rules = FIVE
    given = build_deal(rules, 4, {0: ["AD"], 1: hand1}, "8C")
    state = run(start(rules, given), rules, [*FIVE_PASS_ROUND_1, "name hearts", "alone", "play AD"])
    assert legal(state, rules) == {f"play {c}" for c in hand1}, (
        "seat 1 holds no diamond once hearts are trump"
    )
    # a heart (trump) is led: seat 1 must follow with the JD, its only trump
    given = build_deal(rules, 4, {0: ["AH"], 1: hand1}, "8C")
    state = run(start(rules, given), rules, [*FIVE_PASS_ROUND_1, "name hearts", "alone", "play AH"])
    assert legal(state, rules) == {"play JD"}, "the left bower must follow a trump lead"
    # diamonds are trump: the JH (left bower) must follow a diamond lead, and need not follow hearts
    rules = FOUR
    given = build_deal(rules, 3, {0: ["KD", "AH"], 1: ["JH", "AC", "KC", "QC", "TC"]}, "9S")
    state = run(start(rules, given), rules, [*FOUR_PASS_ROUND_1, "name diamonds", "with partner", "play KD"])
    assert legal(state, rules) == {"play JH"}, "JH is a diamond when diamonds are trump"


# --- rules.md#c4, #c9, #c15: the deal -----------------------------------------------------


@pytest.mark.parametrize(("given", "rules"), [(FIVE_A, FIVE), (F1, FOUR)], ids=["five", "four"])
def test_rn4_a_given_deal_is_dealt_as_written(given: dict[str, Any], rules: RulesConfig) -> None:
    """rules.md#c4: five cards each, the rest form the kitty, whose top card is turned up."""
    state = start(rules, given)
    for s, hand in enumerate(given["hands"]):
        assert names(state.hands[0, s]) == set(hand), (
            f"seat {s} holds {names(state.hands[0, s])}, dealt {hand}"
        )
    assert cards.name(state.upcard[0]) == given["upcard"], "upcard"
    assert names(state.kitty[0]) == {given["upcard"], *given["kitty"]}, (
        "the kitty holds the upcard and the rest"
    )
    assert state.dealer[0] == given["dealer"], "dealer"
    assert state.discard[0] == -1 and state.trump[0] == cards.NO_TRUMP, "nothing discarded, no trump yet"
    assert current_player(state)[0] == (given["dealer"] + 1) % rules.num_players, (
        "the dealer's left bids first"
    )


@pytest.mark.parametrize(
    ("preset", "deck", "kitty"),
    [("five_handed", 28, 3), ("four_handed", 24, 4)],
    ids=["rn9_five", "rn15_four"],
)
def test_rn9_rn15_seeded_deals_use_the_variants_deck(preset: str, deck: int, kitty: int) -> None:
    """rules.md#c9 and #c15: 28 cards and a kitty of three five-handed; 24 and four four-handed."""
    rules = PRESETS[preset]
    assert (rules.num_cards_in_play, rules.kitty_size) == (deck, kitty), "sizes of the rules config"
    state = init_state(rules, 500, rng=np.random.default_rng(5))
    assert (np.bitwise_count(state.hands) == 5).all(), "five cards each"
    assert (np.bitwise_count(state.kitty) == kitty).all(), f"a kitty of {kitty}"
    assert (state.kitty >> state.upcard.astype(np.uint32) & 1).all(), (
        "the upcard is the kitty's turned-up card"
    )
    union = np.bitwise_or.reduce(state.hands, axis=1) | state.kitty
    assert (union == rules.deck_mask).all(), "the deal uses the whole deck"
    eights = np.uint32(cards.EIGHTS)
    dealt_eights = ((np.bitwise_or.reduce(state.hands, axis=1) & eights) != 0).any()
    assert dealt_eights == rules.called_card, "the 8s are dealt in the five-handed game only"


# --- rules.md#c5: round 1 -----------------------------------------------------------------


def test_rn5_order_up_dealer_takes_upcard_and_may_discard_it() -> None:
    """rules.md#c5: on an accept the dealer takes the upcard and discards any of six, the upcard included."""
    rules = FIVE
    state = run(start(rules, FIVE_A), rules, ["pass", "pass", "order up"])
    assert state.phase[0] == Phase.DISCARD and current_player(state)[0] == 4, "the dealer discards next"
    assert state.maker[0] == 2 and state.trump[0] == cards.CLUBS, "seat 2 made clubs"
    dealer_cards = set(FIVE_A["hands"][4]) | {"8C"}
    assert names(state.hands[0, 4]) == dealer_cards, "the dealer holds six cards, the upcard among them"
    assert legal(state, rules) == {f"discard {c}" for c in dealer_cards}, "any of the six may be discarded"
    assert "8C" not in names(state.kitty[0]), "the upcard has left the kitty"
    state = run(state, rules, ["discard 8C"])
    assert names(state.hands[0, 4]) == set(FIVE_A["hands"][4]), "discarding the upcard restores the hand"
    assert cards.name(state.discard[0]) == "8C", "the discard is recorded"
    assert state.phase[0] == Phase.CALL and current_player(state)[0] == 2, "then the maker declares"


def test_rn5_round_one_offers_pass_or_order_up_in_turn() -> None:
    """rules.md#c5: from the dealer's left each player passes or accepts the upcard's suit."""
    rules = FOUR
    state = start(rules, F4)
    for k, seat in enumerate([3, 0, 1, 2]):
        assert current_player(state)[0] == seat, f"[{k}] seat {seat} bids now"
        assert legal(state, rules) == {"pass", "order up"}, f"[{k}] round 1 choices"
        state = run(state, rules, ["pass"])
    assert state.phase[0] == Phase.BID_SUIT and state.bid_round[0] == 2, "after four passes, round 2"


# --- rules.md#c6: round 2 -----------------------------------------------------------------


def test_rn6_round_two_excludes_upcard_suit_and_has_no_pickup() -> None:
    """rules.md#c6: round 2 names a suit other than the upcard's; the upcard stays out of play."""
    rules = FIVE
    state = run(start(rules, FIVE_A), rules, FIVE_PASS_ROUND_1)
    assert current_player(state)[0] == 0, "round 2 starts left of the dealer"
    assert legal(state, rules) == {"pass", "name diamonds", "name hearts", "name spades"}, "no clubs (the 8C)"
    with pytest.raises(IllegalActionError, match="name clubs"):
        run(state, rules, ["name clubs"])
    state = run(state, rules, ["pass", "name spades"])
    assert state.maker[0] == 1 and state.trump[0] == cards.SPADES, "seat 1 made spades"
    assert names(state.hands[0, 4]) == set(FIVE_A["hands"][4]), "no pickup in round 2"
    assert "8C" in names(state.kitty[0]) and cards.name(state.upcard[0]) == "8C", (
        "the upcard stays turned down"
    )
    assert state.discard[0] == -1, "no discard in round 2"
    assert state.phase[0] == Phase.CALL and current_player(state)[0] == 1, "the maker declares next"


# --- rules.md#c7: declaring, leading, following --------------------------------------------------


def test_rn7_left_of_dealer_leads_and_must_follow_suit() -> None:
    """rules.md#c7: after the declaration the dealer's left leads; players follow the led suit when able."""
    rules = FIVE
    state = run(start(rules, FIVE_A), rules, [*FIVE_PASS_ROUND_1, "pass", "name hearts", "call AS"])
    assert state.phase[0] == Phase.PLAY and current_player(state)[0] == 0, "seat 0 (dealer's left) leads"
    assert legal(state, rules) == {f"play {c}" for c in FIVE_A["hands"][0]}, "the leader may lead anything"
    state = run(state, rules, ["play JH"])
    assert legal(state, rules) == {"play 8H", "play 9H", "play TH"}, "seat 1 must follow trump"
    with pytest.raises(IllegalActionError, match="play 9C"):
        run(state, rules, ["play 9C"])
    state = run(state, rules, ["play 8H"])
    assert legal(state, rules) == {f"play {c}" for c in FIVE_A["hands"][2]}, (
        "seat 2, void in hearts, plays anything"
    )


def test_rn7_trick_winner_leads_next() -> None:
    """rules.md#c7: the winner of a trick leads the next; five tricks are played."""
    rules = FIVE
    state = run(start(rules, FIVE_B), rules, [*FIVE_PASS_ROUND_1, "name hearts", "call KH"])
    leaders = []
    for k, trick in enumerate(TRICKS_B):
        leaders.append(int(current_player(state)[0]))
        state = run(state, rules, plays([trick]))
        assert state.trick_winner[0, k] == (0 if k < 3 else 1), f"[{k}] winner {state.trick_winner[0, k]}"
    assert leaders == [0, 0, 0, 0, 1], f"leaders {leaders}: each trick's winner leads the next"
    assert is_done(state)[0] and state.trick_no[0] == 5, "the hand ends after five tricks"


def test_rn7_lead_skips_a_seat_that_sits_out() -> None:
    """rules.md#c7 and #c15: when the dealer's left sits out a lone hand, the next seat leads."""
    rules = FOUR
    state = run(start(rules, F3), rules, ["pass", "pass", "order up", "discard JC", "alone"])
    assert current_player(state)[0] == 3, "seat 2 sits out (partner of the lone seat 0), so seat 3 leads"
    state = run(state, rules, plays(F3_TRICKS_ALONE))
    assert (state.trick_cards[0, :, 2] == -1).all(), "the seat that sits out plays no card"
    assert state.last_tricks[0].tolist() == [5, 0, 0, 0], "the loner takes all five"


# --- rules.md#c10, #c16: stick the dealer -----------------------------------------------------------


def test_rn10_five_handed_dealer_is_stuck() -> None:
    """rules.md#c10: if the first four pass in round 2 the five-handed dealer must name a suit."""
    rules = FIVE
    state = run(start(rules, FIVE_A), rules, [*FIVE_PASS_ROUND_1, "pass", "pass", "pass", "pass"])
    assert current_player(state)[0] == 4, "the dealer is the last to bid"
    assert legal(state, rules) == {"name diamonds", "name hearts", "name spades"}, "the dealer may not pass"
    with pytest.raises(IllegalActionError, match="pass"):
        run(state, rules, ["pass"])
    state = run(state, rules, ["name spades"])
    assert state.maker[0] == 4 and state.trump[0] == cards.SPADES, "the stuck dealer made spades"


def test_rn16_stick_the_dealer_on_four_handed() -> None:
    """rules.md#c16: stick the dealer is on by default; the four-handed dealer must name a suit."""
    assert make_rules("four_handed").stick_the_dealer, "stick the dealer defaults to on (rules.md#c16)"
    rules = FOUR
    state = run(start(rules, F1), rules, [*FOUR_PASS_ROUND_1, "pass", "pass", "pass"])
    assert current_player(state)[0] == 3, "the dealer bids last"
    assert legal(state, rules) == {"name diamonds", "name hearts", "name spades"}, "stuck: no pass, no clubs"
    with pytest.raises(IllegalActionError, match="BID_SUIT"):
        run(state, rules, ["pass"])


def test_rn16_no_stick_throws_the_hand_in() -> None:
    """rules.md#c16: with stick the dealer off, all passing in round 2 throws the hand in; nobody scores."""
    rules = FOUR_NO_STICK
    state = run(start(rules, F1), rules, [*FOUR_PASS_ROUND_1, "pass", "pass", "pass"])
    assert "pass" in legal(state, rules), "the dealer may pass"
    state = run(state, rules, ["pass"])
    assert is_done(state)[0] and state.hand_over[0], "the thrown-in hand ends the one-hand episode"
    assert state.last_points[0].tolist() == [0, 0, 0, 0], "nobody scores"
    assert state.scores[0].tolist() == [0, 0, 0, 0], "nobody scores"
    assert state.last_maker[0] == -1 and state.last_trump[0] == cards.NO_TRUMP, "no maker, no trump"
    assert state.last_tricks[0].tolist() == [0, 0, 0, 0], "no tricks were played"


def test_rn16_thrown_in_hand_in_a_game_moves_the_deal() -> None:
    """rules.md#c16 and #c1: a thrown-in hand in a game scores nothing and the deal passes left."""
    rules = make_rules("four_handed_no_stick", episode="game")
    state = start(rules, {**F1, "scores": [3, 5, 3, 5]})
    state = run(state, rules, ["pass"] * 8)
    assert state.hand_over[0] and not is_done(state)[0], "the game goes on"
    assert state.last_points[0].tolist() == [0, 0, 0, 0], "nobody scores a thrown-in hand"
    assert state.scores[0].tolist() == [3, 5, 3, 5], "the running totals are unchanged"
    assert state.dealer[0] == 0, "the deal passed left from seat 3 to seat 0"
    assert state.hand_no[0] == 1, "a new hand was dealt"
    assert state.phase[0] == Phase.BID_UPCARD and current_player(state)[0] == 1, (
        "bidding starts left of seat 0"
    )
    assert (np.bitwise_count(state.hands[0]) == 5).all(), "five fresh cards each"


# --- rules.md#c11, #c12: the five-handed call --------------------------------------------------------


def test_rn11_maker_calls_a_card_not_in_hand_or_alone() -> None:
    """rules.md#c11: the maker names any card not in hand at that moment, or announces alone."""
    rules = FIVE
    state = run(start(rules, FIVE_A), rules, [*FIVE_PASS_ROUND_1, "name hearts"])
    want = {f"call {cards.name(c)}" for c in rules.deck if cards.name(c) not in FIVE_A["hands"][0]} | {
        "alone"
    }
    assert legal(state, rules) == want, "23 cards not held, or alone"
    with pytest.raises(IllegalActionError, match="call JH"):
        run(state, rules, ["call JH"])


def test_rn11_calling_the_turned_down_upcard_is_a_hidden_solo() -> None:
    """rules.md#c11 and #c12: naming the turned-down upcard is legal; the maker then has no partner."""
    rules = FIVE
    state = run(start(rules, FIVE_A), rules, [*FIVE_PASS_ROUND_1, "name hearts", "call 8C"])
    assert state.called[0] == cards.parse("8C") and state.partner[0] == -1, (
        "the 8C is out of play: no partner"
    )
    assert not state.alone[0], "not a declared loner"


def test_rn11_dealer_maker_may_call_own_discard() -> None:
    """rules.md#c11: the dealer-maker may name its own discard, a solo the table does not know about."""
    rules = FIVE
    state = run(start(rules, FIVE_D), rules, ["pass"] * 4 + ["order up", "discard 9C"])
    assert "call 9C" in legal(state, rules), "the discard is not in the maker's hand after discarding"
    assert "call JH" not in legal(state, rules), "a held card cannot be called"
    state = run(state, rules, ["call 9C"])
    assert state.partner[0] == -1, "the discarded called card gives no partner"


def test_rn12_holder_is_partner_revealed_only_when_played() -> None:
    """rules.md#c12: the called card's holder is the partner at once; it is revealed when played."""
    rules = FIVE
    state = run(start(rules, FIVE_A), rules, [*FIVE_PASS_ROUND_1, "name hearts", "call AS"])
    assert state.partner[0] == 2, "seat 2 holds the AS"
    assert state.revealed[0] == -1, "not revealed before the AS is played"
    state = run(state, rules, plays(TRICKS_A[:4]))
    assert state.revealed[0] == -1, "still hidden after four tricks"
    state = run(state, rules, plays(TRICKS_A[4:]))
    assert state.last_partner[0] == 2, "the partner is recorded"
    assert state.revealed[0] == 4, "revealed in the fifth trick, when the AS was played"


def test_rn12_nobody_sits_out_five_handed() -> None:
    """rules.md#c12: nobody sits out in the five-handed game, even against a declared loner."""
    rules = FIVE
    state = run(start(rules, FIVE_A), rules, [*FIVE_PASS_ROUND_1, "name hearts", "alone"])
    assert state.out[0] == 0 and state.alone[0], "alone, and nobody out"
    state = run(state, rules, plays(TRICKS_A))
    assert (state.trick_cards[0] >= 0).all(), "all five seats played to every trick"


# --- rules.md#c13: five-handed scoring --------------------------------------------------------------

FIVE_SCORING = [
    # id, deal, bidding after round 1, tricks, tricks per seat, points per seat
    ("partnered_3", FIVE_B, ["name hearts", "call KH"], TRICKS_B, [3, 2, 0, 0, 0], [1, 0, 1, 0, 0]),
    ("partnered_4", FIVE_B2, ["name hearts", "call QH"], TRICKS_B2, [4, 1, 0, 0, 0], [1, 0, 1, 0, 0]),
    (
        "partnered_5_partner_no_trick",
        FIVE_A,
        ["name hearts", "call AS"],
        TRICKS_A,
        [5, 0, 0, 0, 0],
        [2, 0, 2, 0, 0],
    ),
    ("partnered_5_split", FIVE_B, ["name hearts", "call AS"], TRICKS_B, [3, 2, 0, 0, 0], [2, 2, 0, 0, 0]),
    (
        "partnered_2",
        FIVE_B,
        ["pass", "pass", "name hearts", "call AS"],
        TRICKS_B,
        [3, 2, 0, 0, 0],
        [2, 0, 0, 2, 2],
    ),
    ("partnered_0", FIVE_A, ["pass", "name hearts", "call AS"], TRICKS_A, [5, 0, 0, 0, 0], [2, 0, 0, 2, 2]),
    ("alone_5", FIVE_A, ["name hearts", "alone"], TRICKS_A, [5, 0, 0, 0, 0], [4, 0, 0, 0, 0]),
    ("alone_4", FIVE_B2, ["name hearts", "alone"], TRICKS_B2, [4, 1, 0, 0, 0], [1, 0, 0, 0, 0]),
    ("alone_3", FIVE_B, ["name hearts", "alone"], TRICKS_B, [3, 2, 0, 0, 0], [1, 0, 0, 0, 0]),
    ("alone_2", FIVE_B, ["pass", "name hearts", "alone"], TRICKS_B, [3, 2, 0, 0, 0], [2, 0, 2, 2, 2]),
    ("alone_0", FIVE_A, ["pass", "name hearts", "alone"], TRICKS_A, [5, 0, 0, 0, 0], [2, 0, 2, 2, 2]),
    ("kitty_5", FIVE_A, ["name hearts", "call 8S"], TRICKS_A, [5, 0, 0, 0, 0], [2, 0, 0, 0, 0]),
    ("upcard_5", FIVE_A, ["name hearts", "call 8C"], TRICKS_A, [5, 0, 0, 0, 0], [2, 0, 0, 0, 0]),
    ("kitty_4", FIVE_B2, ["name hearts", "call 8H"], TRICKS_B2, [4, 1, 0, 0, 0], [1, 0, 0, 0, 0]),
    ("kitty_3", FIVE_B, ["name hearts", "call 9H"], TRICKS_B, [3, 2, 0, 0, 0], [1, 0, 0, 0, 0]),
    ("kitty_2", FIVE_B, ["pass", "name hearts", "call 8H"], TRICKS_B, [3, 2, 0, 0, 0], [2, 0, 2, 2, 2]),
    (
        "kitty_0",
        FIVE_B,
        ["pass", "pass", "name hearts", "call 9H"],
        TRICKS_B,
        [3, 2, 0, 0, 0],
        [2, 2, 0, 2, 2],
    ),
]


@pytest.mark.parametrize(
    ("given", "bids", "tricks", "want_tricks", "want_points"),
    [c[1:] for c in FIVE_SCORING],
    ids=[c[0] for c in FIVE_SCORING],
)
def test_rn13_five_handed_scoring_table(
    given: dict[str, Any], bids: list[str], tricks: list[str], want_tricks: list[int], want_points: list[int]
) -> None:
    """rules.md#c13: every row of the five-handed scoring table, awards entered per person."""
    rules = FIVE
    state = run(start(rules, given), rules, [*FIVE_PASS_ROUND_1, *bids, *plays(tricks)])
    assert is_done(state)[0] and state.hand_over[0], "the hand is over"
    assert state.last_tricks[0].tolist() == want_tricks, f"tricks {state.last_tricks[0].tolist()}"
    assert state.last_points[0].tolist() == want_points, (
        f"points {state.last_points[0].tolist()}, the table says {want_points} "
        f"(maker {state.last_maker[0]}, partner {state.last_partner[0]}, alone {state.last_alone[0]})"
    )


def test_rn13_called_card_in_dealers_discard_maker_takes_five() -> None:
    """rules.md#c13: the called card in the dealer-maker's discard: a sweep scores the maker 2."""
    rules = FIVE
    state = run(
        start(rules, FIVE_D), rules, ["pass"] * 4 + ["order up", "discard 9C", "call 9C", *plays(TRICKS_D)]
    )
    assert state.last_tricks[0].tolist() == [0, 0, 0, 0, 5], f"tricks {state.last_tricks[0].tolist()}"
    assert state.last_points[0].tolist() == [0, 0, 0, 0, 2], (
        "a buried partner card: maker 2 for a sweep, not 4"
    )
    assert state.last_partner[0] == -1 and state.revealed[0] == -1, "no partner, never revealed"


# --- rules.md#c14: the five-handed game ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "bids", "tricks", "scores", "final", "winners"),
    [
        (FIVE_B, ["name hearts", "call KH"], TRICKS_B, [9, 3, 9, 2, 1], [10, 3, 10, 2, 1], {0, 2}),
        (FIVE_A, ["name hearts", "call AS"], TRICKS_A, [9, 0, 8, 9, 0], [11, 0, 10, 9, 0], {0}),
        (FIVE_A, ["pass", "name hearts", "call AS"], TRICKS_A, [8, 9, 9, 8, 1], [10, 9, 9, 10, 3], {0, 3}),
    ],
    ids=["nine_to_ten_co_win", "eleven_beats_ten", "defenders_co_win"],
)
def test_rn14_five_handed_game_shared_victory(
    given: dict[str, Any],
    bids: list[str],
    tricks: list[str],
    scores: list[int],
    final: list[int],
    winners: set[int],
) -> None:
    """rules.md#c14: once anyone has at least 10, the highest total wins; equal highest totals share."""
    rules = make_rules("five_handed", episode="game")
    state = run(start(rules, {**given, "scores": scores}), rules, [*FIVE_PASS_ROUND_1, *bids, *plays(tricks)])
    assert state.scores[0].tolist() == final, f"totals {state.scores[0].tolist()}"
    assert is_done(state)[0], "the game is over"
    got = {s for s in range(5) if int(state.winners[0]) >> s & 1}
    assert got == winners, f"winners {got}, expected {winners}"


def test_rn14_game_goes_on_below_the_target() -> None:
    """rules.md#c14: below 10 nobody wins and the next hand is dealt by the next seat."""
    rules = make_rules("five_handed", episode="game")
    state = start(rules, {**FIVE_A, "scores": [7, 0, 0, 0, 0]})
    state = run(state, rules, [*FIVE_PASS_ROUND_1, "name hearts", "call AS", *plays(TRICKS_A)])
    assert state.scores[0].tolist() == [9, 0, 2, 0, 0], f"totals {state.scores[0].tolist()}"
    assert not is_done(state)[0] and state.winners[0] == 0, "9 does not win"
    assert state.dealer[0] == 0 and current_player(state)[0] == 1, "seat 0 deals next, seat 1 bids first"


# --- rules.md#c15: four-handed partnerships and lone hands -------------------------------------------


def test_rn15_lone_partner_sits_out_after_the_dealer_exchanged() -> None:
    """rules.md#c15: the declaration follows the discard, so the dealer exchanges even when its partner goes alone."""
    rules = FOUR
    state = run(start(rules, F3), rules, ["pass", "order up"])
    assert state.phase[0] == Phase.DISCARD and current_player(state)[0] == 1, (
        "the dealer (seat 1) discards first"
    )
    state = run(state, rules, ["discard JC"])
    assert state.phase[0] == Phase.DECLARE and current_player(state)[0] == 3, (
        "then the maker (seat 3) declares"
    )
    assert legal(state, rules) == {"alone", "with partner"}, "alone or with partner"
    state = run(state, rules, ["alone"])
    assert state.out[0] == 1 << 1, "the dealer, seat 3's partner, sits out"
    assert names(state.hands[0, 1]) == {"TH", "AC", "KC", "QC", "9H"}, (
        "the dealer has exchanged the JC for the 9H"
    )
    for t in range(15):
        if is_done(state)[0]:
            break
        assert current_player(state)[0] != 1, f"[{t}] the seat sitting out never acts"
        state = step(state, np.array([np.flatnonzero(legal_action_mask(state, rules)[0])[0]]), rules)
    assert is_done(state)[0], "15 plays finish a lone hand of three seats"
    assert (state.trick_cards[0, :, 1] == -1).all(), "the seat sitting out shows no cards"
    assert np.bitwise_count(state.hands[0, 1]) == 5, "its five cards stay in its hand"


def test_rn15_partners_sit_opposite() -> None:
    """rules.md#c15: partners sit opposite (0 and 2, 1 and 3)."""
    rules = FOUR
    assert [rules.partner_of(s) for s in range(4)] == [2, 3, 0, 1], "partner seats"
    state = run(
        start(rules, F2), rules, [*FOUR_PASS_ROUND_1, "name spades", "with partner", *plays(F2_TRICKS)]
    )
    assert state.last_tricks[0].tolist() == [0, 4, 1, 0], "seat 3 took no trick"
    assert state.last_points[0].tolist() == [0, 1, 0, 1], "seat 3 still scores with its partner"


# --- rules.md#c17, #c18: four-handed scoring ------------------------------------------------------------

FOUR_SCORING = [
    # id, preset, deal, bidding, tricks, tricks per seat, points per seat
    ("makers_5", "four_handed", F1, [*FOUR_PASS_ROUND_1, "name hearts", "with partner"], F1_TRICKS,
     [5, 0, 0, 0], [2, 0, 2, 0]),
    ("makers_4", "four_handed", F2, [*FOUR_PASS_ROUND_1, "name spades", "with partner"], F2_TRICKS,
     [0, 4, 1, 0], [0, 1, 0, 1]),
    ("makers_3", "four_handed", F4, ["pass", "order up", "discard JH", "with partner"], F4_TRICKS,
     [2, 0, 1, 2], [1, 0, 1, 0]),
    ("makers_2_euchred", "four_handed", F4, ["order up", "discard JH", "with partner"], F4_TRICKS,
     [2, 0, 1, 2], [2, 0, 2, 0]),
    ("lone_5", "four_handed", F3, ["pass", "pass", "order up", "discard JC", "alone"], F3_TRICKS_ALONE,
     [5, 0, 0, 0], [4, 0, 4, 0]),
    ("lone_4", "four_handed", F2, [*FOUR_PASS_ROUND_1, "name spades", "alone"],
     ["JS TH 9S", "JC JH TS", "AS QH QS", "KS KH KD", "9H AH AD"], [0, 4, 1, 0], [0, 1, 0, 1]),
    ("lone_3", "four_handed", F4, ["pass", "order up", "discard JH", "alone"],
     ["AC JC QC", "AS QS 9S", "9D JD AD", "KC TD QD", "9H KH TH"], [3, 0, 0, 2], [1, 0, 1, 0]),
    ("lone_2_euchred", "four_handed", F4, ["order up", "discard JH", "alone"],
     ["AC JC 9C", "AS TS 9S", "9D KD AD", "KC TD TC", "9H KH AH"], [2, 0, 1, 2], [2, 0, 2, 0]),
    ("lone_defender_euchres_loner", "four_handed_defend_alone", F4,
     ["order up", "discard JH", "alone", "defend alone"], ["AC JC", "AS 9S", "9D AD", "KC TD", "9H KH"],
     [3, 0, 0, 2], [4, 0, 4, 0]),
    ("second_defender_alone_loner_takes_3", "four_handed_defend_alone", F4,
     ["order up", "discard JH", "alone", "pass", "defend alone"], ["AC 9C", "KC TC", "AD KD", "9S TS", "AH 9H"],
     [0, 0, 2, 3], [0, 1, 0, 1]),
    ("lone_defender_loner_takes_5", "four_handed_defend_alone", F1,
     [*FOUR_PASS_ROUND_1, "name hearts", "alone", "defend alone"], ["JH 9H", "JD TH", "AH AC", "KH KC", "QH QC"],
     [5, 0, 0, 0], [4, 0, 4, 0]),
    ("both_defenders_pass", "four_handed_defend_alone", F3, ["pass", "pass", "order up", "discard JC", "alone",
     "pass", "pass"], F3_TRICKS_ALONE, [5, 0, 0, 0], [4, 0, 4, 0]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("preset", "given", "bids", "tricks", "want_tricks", "want_points"),
    [c[1:] for c in FOUR_SCORING],
    ids=[c[0] for c in FOUR_SCORING],
)
def test_rn17_rn18_four_handed_scoring_table(
    preset: str,
    given: dict[str, Any],
    bids: list[str],
    tricks: list[str],
    want_tricks: list[int],
    want_points: list[int],
) -> None:
    """rules.md#c17 and #c18: every row of the four-handed table, to both members of a partnership."""
    rules = PRESETS[preset]
    state = run(start(rules, given), rules, [*bids, *plays(tricks)])
    assert is_done(state)[0] and state.hand_over[0], "the hand is over"
    assert state.last_tricks[0].tolist() == want_tricks, f"tricks {state.last_tricks[0].tolist()}"
    assert state.last_points[0].tolist() == want_points, (
        f"points {state.last_points[0].tolist()}, the table says {want_points} (maker {state.last_maker[0]}, "
        f"alone {state.last_alone[0]}, lone defender {state.last_defender_alone[0]})"
    )


def test_rn18_defenders_asked_in_turn_from_the_dealers_left() -> None:
    """rules.md#c18: after a lone declaration each defender in turn from the dealer's left may defend alone."""
    rules = FOUR_DEFEND
    state = run(start(rules, F3), rules, ["pass", "pass", "order up", "discard JC", "alone"])
    assert state.phase[0] == Phase.DEFEND, "defenders are asked"
    assert current_player(state)[0] == 3, "seat 2 (dealer's left) sits out; seat 3 is the first defender"
    assert legal(state, rules) == {"pass", "defend alone"}, "defend alone or pass"
    state = run(state, rules, ["pass"])
    assert current_player(state)[0] == 1, "then seat 1"
    state = run(state, rules, ["defend alone"])
    assert state.defender_alone[0] == 1 and state.out[0] == (1 << 2) | (1 << 3), "seats 2 and 3 sit out"
    assert state.phase[0] == Phase.PLAY and current_player(state)[0] == 0, "seat 0 leads (2 and 3 sit out)"


def test_rn18_defending_alone_only_when_offered() -> None:
    """rules.md#c18: defending alone is a setting (off by default) and only answers a lone maker."""
    assert not make_rules("four_handed").defend_alone, "defend_alone defaults to off"
    state = run(start(FOUR, F3), FOUR, ["pass", "pass", "order up", "discard JC", "alone"])
    assert state.phase[0] == Phase.PLAY, "without the setting play starts at once"
    state = run(start(FOUR_DEFEND, F1), FOUR_DEFEND, [*FOUR_PASS_ROUND_1, "name hearts", "with partner"])
    assert state.phase[0] == Phase.PLAY, "no defending alone against a partnership"


# --- rules.md#c19: the game target ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("points_to_win", "scores", "over"),
    [
        (5, [3, 4, 3, 4], True),
        (7, [5, 6, 5, 6], True),
        (10, [7, 9, 7, 9], False),
        (15, [12, 14, 12, 14], False),
    ],
)
def test_rn19_points_to_win(points_to_win: int, scores: list[int], over: bool) -> None:
    """rules.md#c19: a four-handed game ends when a partnership reaches points_to_win (5, 7, 10, 15)."""
    rules = make_rules("four_handed", episode="game", points_to_win=points_to_win)
    state = start(rules, {**F1, "scores": scores})
    state = run(state, rules, [*FOUR_PASS_ROUND_1, "name hearts", "with partner", *plays(F1_TRICKS)])
    total = scores[0] + 2
    assert state.scores[0].tolist() == [total, scores[1], total, scores[1]], "seats 0 and 2 score 2 each"
    assert bool(is_done(state)[0]) == over, f"{total} vs target {points_to_win}: game over should be {over}"
    assert int(state.winners[0]) == (0b0101 if over else 0), f"winners {state.winners[0]:b}"


# --- the worked examples ---------------------------------------------------------------------------------

ALEX, BLAIR, CASEY, DEVON, ELLIS = range(5)
WORKED_FIVE = deal(
    ELLIS,
    ["JH JD AH KC 9S", "AC QS 8H 9H TH", "AS KS QH KH 9D", "AD KD QD TD 8D", "TS 8S JS 9C TC"],
    "8C",
    "JC QC",
    scores=[6, 4, 3, 5, 2],
)
WORKED_FIVE_TRICKS = [
    "JH 8H QH 8D 9C",
    "JD 9H KH TD TC",
    "AH TH 9D QD 8S",
    "KC AC AS AD TS",
    "QS KS KD JS 9S",
]


def test_worked_example_five_handed() -> None:
    """rules.md §3.7 worked example: Ellis deals, all pass the 8C, Alex names hearts and calls the AS; totals 7 4 4 5 2."""
    rules = make_rules("five_handed", episode="game")
    state = run(start(rules, WORKED_FIVE), rules, [*FIVE_PASS_ROUND_1, "name hearts", "call AS"])
    assert state.maker[0] == ALEX and state.partner[0] == CASEY, "Casey holds the AS: Alex's hidden partner"
    assert state.discard[0] == -1, "no cards are exchanged"
    state = run(state, rules, plays(WORKED_FIVE_TRICKS[:3]))
    assert state.tricks_won[0, ALEX] == 3, "Alex wins the first three tricks"
    assert current_player(state)[0] == ALEX, "Alex leads the fourth"
    state = run(state, rules, plays(WORKED_FIVE_TRICKS[3:4]))
    assert state.trick_winner[0, 3] == BLAIR, "Blair wins the fourth with the AC: no trump was played"
    assert state.revealed[0] == 3, "Casey's losing AS reveals the partnership"
    state = run(state, rules, plays(WORKED_FIVE_TRICKS[4:]))
    assert state.last_tricks[0].tolist() == [3, 1, 1, 0, 0], (
        "Casey wins the fifth with the KS: Alex and Casey 4, Blair 1"
    )
    assert state.last_points[0].tolist() == [1, 0, 1, 0, 0], "Alex and Casey one point each"
    assert state.scores[0].tolist() == [7, 4, 4, 5, 2], "the five new totals"
    assert not is_done(state)[0] and state.dealer[0] == ALEX, "nobody has 10: Alex deals next"


WORKED_FOUR = [
    # deal, bidding, tricks, points of the hand
    (
        F1,
        [*FOUR_PASS_ROUND_1, "name hearts", "with partner"],
        F1_TRICKS,
        [2, 0, 2, 0],
    ),  # A names hearts, takes 5
    (
        F2,
        [*FOUR_PASS_ROUND_1, "name spades", "with partner"],
        F2_TRICKS,
        [0, 1, 0, 1],
    ),  # B names spades, takes 4
    (
        F3,
        ["pass", "pass", "order up", "discard JC", "alone"],
        F3_TRICKS_ALONE,
        [4, 0, 4, 0],
    ),  # A alone takes 5
    (F4, ["order up", "discard JH", "with partner"], F4_TRICKS, [2, 0, 2, 0]),  # B makes trump, takes 2
]


def test_worked_example_four_hands_to_8_1() -> None:
    """rules.md §4.7 worked example "four hands to 8-1": results 2, 1, 4, 2 give totals 8 and 1."""
    rules = make_rules("four_handed", episode="game", points_to_win=10)
    scores = [0, 0, 0, 0]
    dealer = WORKED_FOUR[0][0]["dealer"]
    for k, (given, bids, tricks, points) in enumerate(WORKED_FOUR):
        assert given["dealer"] == dealer, f"[hand {k}] the deal moves left each hand"
        state = run(start(rules, {**given, "scores": scores}), rules, [*bids, *plays(tricks)])
        assert state.hand_over[0] and not is_done(state)[0], f"[hand {k}] the game goes on"
        assert state.last_points[0].tolist() == points, f"[hand {k}] points {state.last_points[0].tolist()}"
        scores = state.scores[0].tolist()
        dealer = int(state.dealer[0])
    assert scores == [8, 1, 8, 1], f"totals {scores}: partnership A (seats 0, 2) 8, B (1, 3) 1"


# --- errors ------------------------------------------------------------------------------------------------


def test_illegal_action_error_names_action_phase_and_legal_actions() -> None:
    """rules.md#c22: an illegal action raises IllegalActionError naming the action, phase and legal actions."""
    rules = FIVE
    state = start(rules, FIVE_A)
    with pytest.raises(IllegalActionError) as info:
        step(state, np.array([act.play("AS")]), rules)
    msg = str(info.value)
    for part in ("play AS", "BID_UPCARD", "pass", "order up", str(act.play("AS"))):
        assert part in msg, f"{part!r} missing from the error: {msg}"
    state = run(state, rules, [*FIVE_PASS_ROUND_1, "name hearts", "call AS", "play JH"])
    with pytest.raises(IllegalActionError) as info:
        step(state, np.array([act.play("9C")]), rules)
    msg = str(info.value)
    for part in ("play 9C", "PLAY", "play 8H", "play 9H", "play TH"):
        assert part in msg, f"{part!r} missing from the error: {msg}"
    assert "play TC" not in msg, f"only legal actions are listed: {msg}"
    assert issubclass(IllegalActionError, ValueError), "IllegalActionError is a ValueError"


def test_illegal_action_leaves_state_unchanged() -> None:
    """A rejected action does not change the state it was given."""
    rules = FIVE
    state = start(rules, FIVE_A)
    before = state.copy()
    with pytest.raises(IllegalActionError):
        step(state, np.array([act.NUM_ACTIONS + 5]), rules)
    assert state == before, "the state must be untouched"


@pytest.mark.parametrize(
    ("actions", "match"),
    [
        (np.array([84, 84]), "shape"),
        (np.array([[84]]), "shape"),
        (np.array([84.5]), "integer"),
        (np.array(["pass"]), "integer"),
    ],
    ids=["too_many", "2d", "fractional", "strings"],
)
def test_wrong_action_shape_or_dtype(actions: np.ndarray, match: str) -> None:
    """step rejects actions of the wrong shape or dtype with ValueError."""
    state = start(FIVE, FIVE_A)
    with pytest.raises(ValueError, match=match):
        step(state, actions, FIVE)


def test_rewards_are_the_hands_points() -> None:
    """rules.md#c21: rewards are the hand's points when it ends; the zero-sum option as documented."""
    rules = FOUR
    state = run(
        start(rules, F2), rules, [*FOUR_PASS_ROUND_1, "name spades", "with partner", *plays(F2_TRICKS[:4])]
    )
    assert (rewards(state, rules) == 0).all(), "no reward before the hand ends"
    state = run(state, rules, plays(F2_TRICKS[4:]))
    assert rewards(state, rules)[0].tolist() == [0, 1, 0, 1], "the points each seat scored"
    assert rewards(state, rules, zero_sum=True)[0].tolist() == [-1, 1, -1, 1], "four-handed zero-sum: +1 / -1"
    rules = FIVE
    state = run(start(rules, FIVE_B), rules, [*FIVE_PASS_ROUND_1, "name hearts", "call KH", *plays(TRICKS_B)])
    zs = rewards(state, rules, zero_sum=True)[0]
    assert np.allclose(zs, np.array([1, 0, 1, 0, 0]) - 0.4), (
        f"five-handed zero-sum: points minus the mean, got {zs}"
    )


def test_mixed_given_and_seeded_deals() -> None:
    """init_state takes given deals for some rows ({row: deal}) and deals the others from their seeds."""
    rules = FOUR
    state = init_state(rules, 3, seeds=[5, 6, 7], deals={1: F2})
    alone = init_state(rules, seeds=[5, 6, 7])
    assert names(state.hands[1, 1]) == set(F2["hands"][1]), "row 1 holds the given deal"
    for row in (0, 2):
        assert (state.hands[row] == alone.hands[row]).all(), f"row {row} is dealt from its seed"


def test_done_tables_ignore_their_action() -> None:
    """A finished table is inert: any action is ignored and it stays done."""
    rules = FOUR_NO_STICK
    state = run(start(rules, F1), rules, ["pass"] * 8)
    assert is_done(state)[0], "thrown in"
    after = step(state, np.array([-1]), rules)
    assert is_done(after)[0] and after.scores[0].tolist() == [0, 0, 0, 0], "still done, nothing scored"


def _with(given: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = {k: (list(map(list, v)) if k == "hands" else v) for k, v in given.items()}
    out.update(changes)
    return out


def _hands_with(given: dict[str, Any], seat: int, hand: list[str]) -> list[list[str]]:
    hands = [list(h) for h in given["hands"]]
    hands[seat] = hand
    return hands


BAD_DEALS = [
    ("unknown_card", FIVE, _with(FIVE_A, upcard="ZZ"), r"unknown card 'ZZ'"),
    ("unknown_card_in_hand", FIVE, _with(FIVE_A, hands=_hands_with(FIVE_A, 1, ["TH", "9H", "8H", "9C", "1C"])),
     r"unknown card '1C'"),
    ("repeated_card", FIVE, _with(FIVE_A, hands=_hands_with(FIVE_A, 1, ["TH", "9H", "8H", "9C", "JH"])),
     r"JH appears twice"),
    ("hand_too_small", FIVE, _with(FIVE_A, hands=_hands_with(FIVE_A, 1, ["TH", "9H", "8H", "9C"])),
     r"hands\[1\] must hold 5 cards"),
    ("hand_too_big", FIVE, _with(FIVE_A, hands=_hands_with(FIVE_A, 1, ["TH", "9H", "8H", "9C", "TC", "8D"]),
     kitty=["8S"]), r"hands\[1\] must hold 5 cards"),
    ("card_missing", FIVE, _with(FIVE_A, kitty=["8D"]), r"kitty must hold the 2 hidden cards"),
    ("upcard_missing", FOUR, {k: v for k, v in F1.items() if k != "upcard"}, r"missing \['upcard'\]"),
    ("eight_in_four_handed", FOUR, _with(F1, kitty=["JC", "TC", "8S"]), r"8S is not in the four_handed deck"),
    ("bad_dealer", FOUR, _with(F1, dealer=4), r"dealer must be a seat in 0..3"),
    ("negative_dealer", FIVE, _with(FIVE_A, dealer=-1), r"dealer must be a seat in 0..4"),
    ("too_few_hands", FOUR, _with(F1, hands=F1["hands"][:3]), r"list of 4 hands"),
    ("unknown_key", FOUR, _with(F1, trump="H"), r"unknown \['trump'\]"),
    ("partners_scores_differ", FOUR, _with(F1, scores=[1, 0, 2, 0]), r"partners"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("rules", "given", "match"), [c[1:] for c in BAD_DEALS], ids=[c[0] for c in BAD_DEALS]
)
def test_malformed_deal_raises(rules: RulesConfig, given: dict[str, Any], match: str) -> None:
    """A malformed given deal raises ValueError saying what is wrong."""
    with pytest.raises(ValueError, match=match):
        init_state(rules, deals=[given])


def test_a_huge_bad_deal_value_is_quoted_short() -> None:
    """The message quotes a bad value shortened, however big it is."""
    for changes, match in (({"hands": [["AS"] * 10_000] * 50}, r"list of 4 hands \(one per seat\), got \[\[.AS., .AS., .AS., .AS., \.\.\.\]"),
                           ({"scores": [10**5000] * 4}, r"got a list holding an integer of more than \d+ digits"),
                           ({"dealer": "x" * 10**6}, r"dealer must be a seat in 0..3, got 'x+\.\.\.x+'$")):  # fmt: skip
        with pytest.raises(ValueError, match=match) as err:
            init_state(FOUR, deals=[_with(F1, **changes)])
        assert len(str(err.value)) < 300, str(err.value)[:300]


def test_invalid_rules_config_direct() -> None:
    """RulesConfig itself validates: the five-handed game always sticks the dealer (rules.md#c10)."""
    with pytest.raises(ValueError, match="stick_the_dealer"):
        RulesConfig(variant="five_handed", stick_the_dealer=False)
    with pytest.raises(ValueError, match="variant"):
        RulesConfig(variant="three_handed")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("variant", "settings", "match"),
    [
        ("five_handed", {"stick_the_dealer": False}, "stick_the_dealer"),
        ("five_handed", {"defend_alone": True}, "defend_alone"),
        ("four_handed", {"points_to_win": 0}, "points_to_win"),
        ("four_handed", {"points_to_win": 2.5}, "points_to_win"),
        ("four_handed", {"episode": "match"}, "episode"),
        ("four_handed", {"stick_the_dealer": "yes"}, "stick_the_dealer"),
        ("six_handed", {}, "variant"),
        ("four_handed", {"jokers": True}, "unknown setting"),
    ],
)
def test_invalid_rules_raise(variant: str, settings: dict[str, Any], match: str) -> None:
    """Invalid RulesConfig combinations raise ValueError naming the setting."""
    with pytest.raises(ValueError, match=match):
        make_rules(variant, **settings)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (0, "play 8C"),
        (27, "play AS"),
        (28, "discard 8C"),
        (act.discard("9H"), "discard 9H"),
        (act.call("AS"), "call AS"),
        (act.PASS, "pass"),
        (act.ORDER_UP, "order up"),
        (act.name_suit("C"), "name clubs"),
        (act.name_suit("♥"), "name hearts"),
        (act.ALONE, "alone"),
        (act.WITH_PARTNER, "with partner"),
        (act.DEFEND_ALONE, "defend alone"),
    ],
)
def test_describe_actions(action: int, words: str) -> None:
    """actions.describe names every kind of action; actions.parse reads the words back."""
    assert act.describe(action) == words, f"{action} described as {act.describe(action)!r}"
    assert act.parse(words) == action, f"{words!r} parsed as {act.parse(words)}"


@pytest.mark.parametrize("bad", [-1, act.NUM_ACTIONS, 3.5, "pass"])
def test_describe_rejects_non_actions(bad: Any) -> None:
    """actions.describe raises ValueError for anything that is not an action id."""
    with pytest.raises(ValueError, match="action"):
        act.describe(bad)

"""A slow, plainly readable one-hand Euchre rules oracle, used only by the tests.

Written straight from the rulebook ``docs/rules.md``: its rules and its numbered
conventions (convention 5 is cited as ``rules.md#c5``), with plain Python lists
and sets. It shares nothing with ``euchre_env.engine``: only card
names/ids (:mod:`euchre_env.cards`) and action ids (:mod:`euchre_env.actions`)
are borrowed, so that the two can be compared action by action.

Usage::

    hand = ReferenceHand("five_handed", dealer=4, hands=[[...5 ids...] x 5],
                         upcard=card_id, kitty=[hidden ids])
    while not hand.done:
        seat, legal = hand.to_act(), hand.legal_actions()
        hand.apply(some action in legal)
    hand.points, hand.tricks_won
"""

from __future__ import annotations

from euchre_env import actions as act
from euchre_env import cards

# --- cards, from the rule texts -------------------------------------------

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = 0, 1, 2, 3, 4, 5, 6
# "Colours: clubs and spades black, diamonds and hearts red" (rules.md#c2): the other suit of
# the same colour as each suit.
SAME_COLOUR = {CLUBS: SPADES, SPADES: CLUBS, DIAMONDS: HEARTS, HEARTS: DIAMONDS}
# Plain suits rank A K Q J 10 9 (8), high to low (rules.md#c3).
PLAIN_ORDER_HIGH_TO_LOW = [ACE, KING, QUEEN, JACK, TEN, NINE, EIGHT]
# Trump ranks right bower, left bower, then A K Q 10 9 (8) (rules.md#c3).
TRUMP_ORDER_HIGH_TO_LOW = ["right", "left", ACE, KING, QUEEN, TEN, NINE, EIGHT]


def suit_of(card: int) -> int:
    """Printed suit of a card id."""
    return card // 7


def rank_of(card: int) -> int:
    """Printed rank of a card id (0 = 8 .. 6 = ace)."""
    return card % 7


def is_right_bower(card: int, trump: int) -> bool:
    """The jack of the trump suit."""
    return rank_of(card) == JACK and suit_of(card) == trump


def is_left_bower(card: int, trump: int) -> bool:
    """The jack of the other suit of the trump's colour."""
    return rank_of(card) == JACK and suit_of(card) == SAME_COLOUR[trump]


def effective_suit(card: int, trump: int) -> int:
    """The suit a card belongs to for this hand: the left bower is a trump (rules.md#c3)."""
    if is_left_bower(card, trump):
        return trump
    return suit_of(card)


def is_trump(card: int, trump: int) -> bool:
    """Whether a card is a trump (the left bower included)."""
    return effective_suit(card, trump) == trump


def trump_power(card: int, trump: int) -> int:
    """Higher is stronger; only meaningful for trumps."""
    if is_right_bower(card, trump):
        key: int | str = "right"
    elif is_left_bower(card, trump):
        key = "left"
    else:
        key = rank_of(card)
    return len(TRUMP_ORDER_HIGH_TO_LOW) - TRUMP_ORDER_HIGH_TO_LOW.index(key)


def plain_power(card: int) -> int:
    """Higher is stronger, within one plain suit."""
    return len(PLAIN_ORDER_HIGH_TO_LOW) - PLAIN_ORDER_HIGH_TO_LOW.index(rank_of(card))


def trick_winner(played: list[int], trump: int) -> int:
    """Index into ``played`` (play order, the lead first) of the card that wins.

    Highest trump wins; if none is played, the highest card of the led suit (rules.md#c7).
    """
    trumps = [i for i, c in enumerate(played) if is_trump(c, trump)]
    if trumps:
        return max(trumps, key=lambda i: trump_power(played[i], trump))
    led = effective_suit(played[0], trump)
    following = [i for i, c in enumerate(played) if effective_suit(c, trump) == led]
    return max(following, key=lambda i: plain_power(played[i]))


def deck_of(variant: str) -> list[int]:
    """Card ids of the deck: 8 through ace (28) five-handed, 9 through ace (24) four-handed."""
    low = EIGHT if variant == "five_handed" else NINE
    return [suit * 7 + rank for suit in range(4) for rank in range(low, ACE + 1)]


# --- one hand ---------------------------------------------------------------


class ReferenceHand:
    """One hand of either game, from the deal to the score.

    Attributes:
        phase: "round1", "discard", "round2", "call", "declare", "defend",
            "play" or "done".
        points: per-seat points once the hand is over (all zero if thrown in).
        tricks_won: per-seat tricks.
        trick_winners: winner seat of each finished trick.
    """

    def __init__(
        self,
        variant: str,
        dealer: int,
        hands: list[list[int]],
        upcard: int,
        kitty: list[int],
        stick_the_dealer: bool = True,
        defend_alone: bool = False,
    ) -> None:
        assert variant in ("five_handed", "four_handed"), variant
        self.variant = variant
        self.five = variant == "five_handed"
        self.num_players = 5 if self.five else 4
        self.deck = deck_of(variant)
        self.dealer = dealer
        self.hands = [set(h) for h in hands]
        self.upcard = upcard
        self.hidden_kitty = set(kitty)
        self.stick_the_dealer = True if self.five else stick_the_dealer  # rules.md#c10
        self.defend_alone = defend_alone and not self.five  # rules.md#c18
        all_cards = [c for h in hands for c in h] + [upcard, *kitty]
        assert sorted(all_cards) == self.deck, "a deal must use every card of the deck once"
        assert all(len(h) == 5 for h in hands), "five cards each (rules.md#c4)"

        self.phase = "round1"
        self.turn = self.left_of(dealer)  # rules.md#c5: bidding starts left of the dealer
        self.trump: int | None = None
        self.maker: int | None = None
        self.discarded: int | None = None
        self.upcard_taken = False
        self.alone = False
        self.called: int | None = None
        self.partner: int | None = None  # called-card holder (five-handed)
        self.revealed = False
        self.lone_defender: int | None = None
        self.defenders_to_ask: list[int] = []
        self.sitting_out: set[int] = set()
        self.trick: list[tuple[int, int]] = []  # (seat, card) in play order
        self.tricks_won = [0] * self.num_players
        self.trick_winners: list[int] = []
        self.points = [0] * self.num_players
        self.thrown_in = False

    # --- seats --------------------------------------------------------------

    def left_of(self, seat: int) -> int:
        """Seats sit clockwise; the left of seat s is s + 1 (rules.md#c1)."""
        return (seat + 1) % self.num_players

    def fixed_partner(self, seat: int) -> int:
        """Four-handed: partners sit opposite (rules.md#c15)."""
        return (seat + 2) % 4

    def next_active(self, seat: int) -> int:
        """Next seat clockwise that does not sit out."""
        nxt = self.left_of(seat)
        while nxt in self.sitting_out:
            nxt = self.left_of(nxt)
        return nxt

    # --- queries ------------------------------------------------------------

    @property
    def done(self) -> bool:
        """Whether the hand is over."""
        return self.phase == "done"

    def to_act(self) -> int:
        """Seat whose decision it is, -1 once the hand is over."""
        return -1 if self.done else self.turn

    def legal_actions(self) -> set[int]:
        """Legal action ids of the seat to act (empty once the hand is over)."""
        seat = self.turn
        if self.phase == "round1":
            return {act.PASS, act.ORDER_UP}
        if self.phase == "discard":
            # The dealer discards any one of the six cards, the upcard included (rules.md#c5).
            return {act.DISCARD_BASE + c for c in self.hands[self.dealer]}
        if self.phase == "round2":
            # Any suit but the upcard's (rules.md#c6); the dealer may not pass when stuck (rules.md#c10, #c16).
            legal = {act.NAME_SUIT_BASE + s for s in range(4) if s != suit_of(self.upcard)}
            if not (self.stick_the_dealer and seat == self.dealer):
                legal.add(act.PASS)
            return legal
        if self.phase == "call":
            # Any card not in the maker's hand at that moment, or alone (rules.md#c11).
            legal = {act.CALL_BASE + c for c in self.deck if c not in self.hands[seat]}
            legal.add(act.ALONE)
            return legal
        if self.phase == "declare":
            return {act.ALONE, act.WITH_PARTNER}
        if self.phase == "defend":
            return {act.PASS, act.DEFEND_ALONE}
        if self.phase == "play":
            hand = self.hands[seat]
            if self.trick:
                led = effective_suit(self.trick[0][1], self.trump)
                following = {c for c in hand if effective_suit(c, self.trump) == led}
                if following:  # must follow the led suit when able (rules.md#c7)
                    return {act.PLAY_BASE + c for c in following}
            return {act.PLAY_BASE + c for c in hand}
        return set()

    # --- transitions --------------------------------------------------------

    def apply(self, action: int) -> None:
        """Apply one legal action of the seat to act."""
        if action not in self.legal_actions():
            raise ValueError(f"reference: action {action} ({act.describe(action)}) is not legal")
        seat = self.turn
        getattr(self, "_" + self.phase)(seat, action)

    def _round1(self, seat: int, action: int) -> None:
        if action == act.ORDER_UP:
            # The acceptor is the maker; the dealer takes the upcard and discards (rules.md#c5).
            self.maker = seat
            self.trump = suit_of(self.upcard)
            self.hands[self.dealer].add(self.upcard)
            self.upcard_taken = True
            self.phase = "discard"
            self.turn = self.dealer
        elif seat == self.dealer:
            # Everyone passed: the upcard is turned down, round 2 from the dealer's left (rules.md#c6).
            self.phase = "round2"
            self.turn = self.left_of(self.dealer)
        else:
            self.turn = self.left_of(seat)

    def _discard(self, seat: int, action: int) -> None:
        card = action - act.DISCARD_BASE
        self.hands[seat].remove(card)
        self.discarded = card
        self._maker_declares()

    def _round2(self, seat: int, action: int) -> None:
        if action == act.PASS:
            if seat == self.dealer:
                # Thrown in: nobody scores (rules.md#c16).
                self.thrown_in = True
                self.phase = "done"
                return
            self.turn = self.left_of(seat)
            return
        self.maker = seat
        self.trump = action - act.NAME_SUIT_BASE
        self._maker_declares()

    def _maker_declares(self) -> None:
        # After trump and any discard the maker declares (rules.md#c7, #c11, #c15).
        self.phase = "call" if self.five else "declare"
        self.turn = self.maker

    def _call(self, seat: int, action: int) -> None:
        if action == act.ALONE:
            self.alone = True
        else:
            card = action - act.CALL_BASE
            self.called = card
            holders = [s for s in range(self.num_players) if card in self.hands[s]]
            # In the kitty (or the dealer's discard): no partner (rules.md#c12).
            self.partner = holders[0] if holders else None
        self._start_play()

    def _declare(self, seat: int, action: int) -> None:
        if action == act.WITH_PARTNER:
            self._start_play()
            return
        self.alone = True
        self.sitting_out.add(self.fixed_partner(seat))  # rules.md#c15
        if self.defend_alone:
            # Each defender in turn from the dealer's left may defend alone (rules.md#c18).
            defenders = []
            s = self.left_of(self.dealer)
            for _ in range(4):
                if s != seat and s != self.fixed_partner(seat):
                    defenders.append(s)
                s = self.left_of(s)
            self.defenders_to_ask = defenders
            self.phase = "defend"
            self.turn = defenders[0]
        else:
            self._start_play()

    def _defend(self, seat: int, action: int) -> None:
        self.defenders_to_ask.remove(seat)
        if action == act.DEFEND_ALONE:
            self.lone_defender = seat
            self.sitting_out.add(self.fixed_partner(seat))
            self._start_play()
        elif self.defenders_to_ask:
            self.turn = self.defenders_to_ask[0]
        else:
            self._start_play()

    def _start_play(self) -> None:
        # The player left of the dealer leads, skipping a seat that sits out (rules.md#c7).
        self.phase = "play"
        self.turn = self.next_active(self.dealer)
        self.trick = []

    def _play(self, seat: int, action: int) -> None:
        card = action - act.PLAY_BASE
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if card == self.called:
            self.revealed = True  # win or lose (rules.md#c12)
        active = self.num_players - len(self.sitting_out)
        if len(self.trick) < active:
            self.turn = self.next_active(seat)
            return
        winner = self.trick[trick_winner([c for _, c in self.trick], self.trump)][0]
        self.tricks_won[winner] += 1
        self.trick_winners.append(winner)
        self.trick = []
        self.turn = winner  # the winner leads next (rules.md#c7)
        if len(self.trick_winners) == 5:
            self._score()
            self.phase = "done"

    # --- scoring ------------------------------------------------------------

    def makers_side(self) -> set[int]:
        """The maker plus partner: fixed four-handed, the called card's holder five-handed."""
        assert self.maker is not None
        if self.five:
            return {self.maker} | ({self.partner} if self.partner is not None else set())
        return {self.maker, self.fixed_partner(self.maker)}

    def _score(self) -> None:
        side = self.makers_side()
        side_tricks = sum(self.tricks_won[s] for s in side)
        others = [s for s in range(self.num_players) if s not in side]
        if self.five:
            self._score_five(side, side_tricks, others)
        else:
            self._score_four(side, side_tricks, others)

    def _score_five(self, side: set[int], side_tricks: int, others: list[int]) -> None:
        """The five-handed table (rules.md#c13); every side member gets the award."""
        if side_tricks <= 2:
            for s in others:  # three defenders, or four against a solo
                self.points[s] = 2
            return
        if side_tricks == 5:
            if self.alone:
                award = 4  # declared alone takes 5
            elif self.partner is None:
                award = 2  # called card in the kitty (or the discard), maker takes 5
            else:
                award = 2  # partnered side takes 5
        else:
            award = 1  # 3 or 4, partnered or any solo
        for s in side:
            self.points[s] = award

    def _score_four(self, side: set[int], side_tricks: int, others: list[int]) -> None:
        """The four-handed table (rules.md#c17, #c18); each partnership member gets its points."""
        if side_tricks <= 2:
            award = 4 if (self.alone and self.lone_defender is not None) else 2
            for s in others:
                self.points[s] = award
            return
        if side_tricks == 5:
            award = 4 if self.alone else 2
        else:
            award = 1
        for s in side:
            self.points[s] = award


def describe_hand(hand: ReferenceHand) -> str:
    """A short text of the hand (for failure messages)."""
    names = [" ".join(cards.name(c) for c in sorted(h)) for h in hand.hands]
    return (
        f"dealer {hand.dealer}, upcard {cards.name(hand.upcard)}, phase {hand.phase}, "
        f"turn {hand.to_act()}, trump {hand.trump}, maker {hand.maker}, hands {names}"
    )

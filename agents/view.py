"""Named numpy views of a batch of observations (what a seat may know, decoded).

``ObsView(observations, rules)`` turns the flat ``(B, D)`` vectors of
:func:`euchre_env.encoding.encode` back into named arrays: the hand as a
``(B, C)`` bool array, the trump suit as ``(B,)`` ints, the current trick as a
card per relative seat, and so on. Everything here is derived from the
observation alone, so an agent built on it never peeks at the engine state.

Seats are relative, as in the encoding: ``0`` is the observer, ``1`` its left.
``-1`` stands for "none" in every int array; a suit of ``cards.NO_TRUMP`` (4)
means trump is not made yet. Derived quantities (the trick leader, the card
currently winning, the cards still unseen) are cached properties, computed on
first use with numpy over the whole batch.
"""

from __future__ import annotations

from functools import cache, cached_property

import numpy as np

from euchre_env import cards
from euchre_env.encoding import ObsLayout, obs_layout
from euchre_env.infoset import onehot_index
from euchre_env.rules import NUM_TRICKS, RulesConfig

C = cards.NUM_CARDS

# KEY[trump, card]: order of a card inside its effective suit (higher is better);
# trumps sit above every plain card (100 + trump order), plain cards use their rank.
KEY = np.where(cards.TRUMP_ORDER > 0, 100 + cards.TRUMP_ORDER, cards.CARD_RANK[None, :]).astype(np.int16)
# NOT_BELOW[trump, card]: bits of the cards of the card's effective suit that rank as high or higher
# (the card itself included) under ``trump``; a card is boss when no unseen card is among them. (5, C).
_SAME_SUIT = cards.EFFECTIVE_SUIT[:, :, None] == cards.EFFECTIVE_SUIT[:, None, :]
NOT_BELOW = ((_SAME_SUIT & (KEY[:, None, :] >= KEY[:, :, None])) << np.arange(C, dtype=np.uint32)).sum(
    axis=2, dtype=np.uint32
)
# SUIT_MATES[trump, card]: bits of the cards of the card's effective suit under ``trump`` (itself included). (5, C).
SUIT_MATES = np.take_along_axis(cards.SUIT_BITS, cards.EFFECTIVE_SUIT.astype(np.int64), axis=1)


def card_bits(mask: np.ndarray) -> np.ndarray:
    """A bool card set ``(B, C)`` as one uint32 per row, bit ``c`` for card ``c``. ``(B,)``."""
    return (mask * cards.CARD_BIT).sum(axis=1, dtype=np.uint32)


@cache
def _slices(rules: RulesConfig) -> dict[str, slice]:
    """Column range of every piece of the layout (cached: views are built per ``act`` call)."""
    layout = obs_layout(rules)
    return {name: layout.slice(name) for name, _, _ in layout.pieces}


class ObsView:
    """Decoded observations of one seat per row.

    Args:
        observations: ``(B, D)`` array from ``encoding.encode`` (any dtype,
            entries 0/1), with ``D == obs_layout(rules).size``.
        rules: the rules the observations were encoded with.

    Raises:
        ValueError: if ``observations`` is not 2-D with ``D`` columns.
    """

    def __init__(self, observations: np.ndarray, rules: RulesConfig) -> None:
        obs = np.asarray(observations)
        layout: ObsLayout = obs_layout(rules)
        if obs.ndim != 2 or obs.shape[1] != layout.size:
            raise ValueError(
                f"observations must have shape (B, {layout.size}) for the {rules.variant} game, "
                f"got shape {obs.shape}"
            )
        self.obs = obs
        self.rules = rules
        self.layout = layout
        self.batch_size = obs.shape[0]
        self.num_players = rules.num_players
        self._slices = _slices(rules)
        # 0/1 entries: integers and bools compare with 0 without a cast to float (several times faster)
        self._exact = obs.dtype.kind in "biu"

    def piece(self, name: str) -> np.ndarray:
        """The raw 0/1 columns of one piece of the layout, as bool ``(B, size)`` (a new array)."""
        cols = self.obs[:, self._slices[name]]
        return cols != 0 if self._exact else cols > 0.5

    def card_piece(self, name: str, sets: int = 1) -> np.ndarray:
        """A piece made of ``sets`` card sets, as bool ``(B, sets, C)``.

        Each card set may be padded past ``C`` entries (entry ``c`` is card id
        ``c``); the padding is dropped.
        """
        raw = self.piece(name)
        return raw.reshape(self.batch_size, sets, raw.shape[1] // sets)[:, :, :C]

    # --- direct pieces ----------------------------------------------------
    @cached_property
    def hand(self) -> np.ndarray:
        """Cards in my hand, bool (B, C)."""
        return self.card_piece("hand")[:, 0]

    @cached_property
    def upcard(self) -> np.ndarray:
        """The turned-up card id, int (B,)."""
        return onehot_index(self.card_piece("upcard")[:, 0])

    @cached_property
    def upcard_taken(self) -> np.ndarray:
        """The dealer took the upcard (trump made in round 1), bool (B,)."""
        return self.piece("upcard_taken")[:, 0]

    @cached_property
    def dealer(self) -> np.ndarray:
        """Dealer, relative seat, int (B,)."""
        return onehot_index(self.piece("dealer"))

    @cached_property
    def maker(self) -> np.ndarray:
        """Maker, relative seat, -1 before trump is made, int (B,)."""
        return onehot_index(self.piece("maker"))

    @cached_property
    def trump(self) -> np.ndarray:
        """Trump suit, ``cards.NO_TRUMP`` before it is made, int (B,)."""
        t = onehot_index(self.piece("trump"))
        return np.where(t < 0, cards.NO_TRUMP, t)

    @cached_property
    def alone(self) -> np.ndarray:
        """The maker declared alone, bool (B,)."""
        return self.piece("alone")[:, 0]

    @cached_property
    def sitting_out(self) -> np.ndarray:
        """Relative seats sitting out this hand, bool (B, P)."""
        return self.piece("sitting_out")

    @cached_property
    def phase(self) -> np.ndarray:
        """Phase (``actions.Phase`` values), int (B,)."""
        return onehot_index(self.piece("phase"))

    @cached_property
    def my_discard(self) -> np.ndarray:
        """The card I discarded as dealer, -1 if none, int (B,)."""
        return onehot_index(self.card_piece("my_discard")[:, 0])

    @cached_property
    def called_card(self) -> np.ndarray:
        """Five-handed called card, -1 if none (or four-handed), int (B,)."""
        if not self.rules.called_card:
            return np.full(self.batch_size, -1)
        return onehot_index(self.card_piece("called_card")[:, 0])

    @cached_property
    def i_hold_called(self) -> np.ndarray:
        """I am the hidden partner (I hold the called card), bool (B,)."""
        if not self.rules.called_card:
            return np.zeros(self.batch_size, bool)
        return self.piece("i_hold_called")[:, 0]

    @cached_property
    def revealed_by(self) -> np.ndarray:
        """Relative seat that revealed the partnership, -1 if not (yet), int (B,)."""
        if not self.rules.called_card:
            return np.full(self.batch_size, -1)
        return onehot_index(self.piece("revealed_by"))

    @cached_property
    def defender_alone(self) -> np.ndarray:
        """Four-handed lone defender, relative seat, -1 if none, int (B,)."""
        if self.rules.called_card:
            return np.full(self.batch_size, -1)
        return onehot_index(self.piece("defender_alone"))

    @cached_property
    def current_trick(self) -> np.ndarray:
        """Card each relative seat played to the current trick, -1 none, int (B, P)."""
        grid = self.card_piece("current_trick", self.num_players)
        return onehot_index(grid)

    @cached_property
    def played(self) -> np.ndarray:
        """Every card played this hand, by anyone, bool (B, C)."""
        return self.card_piece("played_by", self.num_players).any(axis=1)

    @cached_property
    def trick_winner(self) -> np.ndarray:
        """Winner of each finished trick, relative seat, -1 before, int (B, T)."""
        grid = self.piece("trick_winner").reshape(self.batch_size, NUM_TRICKS, self.num_players)
        return onehot_index(grid)

    @cached_property
    def tricks_won(self) -> np.ndarray:
        """Tricks won by each relative seat this hand, int (B, P)."""
        therm = self.piece("tricks_won").reshape(self.batch_size, self.num_players, NUM_TRICKS)
        return therm.sum(axis=2)

    # --- derived ----------------------------------------------------------
    @cached_property
    def hidden_known_out(self) -> np.ndarray:
        """Cards I know are out of play: the turned-down upcard and my own discard, bool (B, C)."""
        out = np.zeros((self.batch_size, C), bool)
        rows = np.arange(self.batch_size)
        turned_down = (self.upcard >= 0) & ~self.upcard_taken & (self.trump != cards.NO_TRUMP)
        out[rows[turned_down], self.upcard[turned_down]] = True
        mine = self.my_discard >= 0
        out[rows[mine], self.my_discard[mine]] = True
        return out

    @cached_property
    def unseen(self) -> np.ndarray:
        """Cards in play that could still be in another seat's hand, bool (B, C)."""
        deck = (np.uint32(self.rules.deck_mask) >> np.arange(C, dtype=np.uint32)) & 1
        return deck.astype(bool)[None, :] & ~self.hand & ~self.played & ~self.hidden_known_out

    @cached_property
    def n_in_trick(self) -> np.ndarray:
        """Cards already on the table in the current trick, int (B,)."""
        return (self.current_trick >= 0).sum(axis=1)

    @cached_property
    def num_active(self) -> np.ndarray:
        """Seats that play this hand (not sitting out), int (B,)."""
        return self.num_players - self.sitting_out.sum(axis=1)

    @cached_property
    def to_play_after_me(self) -> np.ndarray:
        """Seats still to play to this trick after me, int (B,)."""
        return self.num_active - self.n_in_trick - 1

    @cached_property
    def leader(self) -> np.ndarray:
        """Relative seat that led the current trick, -1 if nobody has, int (B,).

        The first trick is led by the first active seat left of the dealer;
        later tricks by the previous trick's winner (rules.md#c7).
        """
        p = self.num_players
        done = (self.trick_winner >= 0).sum(axis=1)
        rows = np.arange(self.batch_size)
        last_winner = self.trick_winner[rows, np.maximum(done - 1, 0)]
        first = np.full(self.batch_size, -1)
        for k in range(p, 0, -1):  # loop over seats, not rows: the nearest active seat wins
            seat = (self.dealer + k) % p
            first = np.where(~self.sitting_out[rows, seat], seat, first)
        lead = np.where(done > 0, last_winner, first)
        return np.where(self.n_in_trick > 0, lead, -1)

    @cached_property
    def led_suit(self) -> np.ndarray:
        """Effective suit led in the current trick, -1 before the lead, int (B,)."""
        rows = np.arange(self.batch_size)
        card = self.current_trick[rows, np.maximum(self.leader, 0)]
        return np.where(self.leader >= 0, cards.EFFECTIVE_SUIT[self.trump, np.maximum(card, 0)], -1)

    @cached_property
    def trick_strength(self) -> np.ndarray:
        """Power of each relative seat's card in the current trick (``cards.STRENGTH``), int (B, P)."""
        led = np.maximum(self.led_suit, 0)
        return cards.STRENGTH[self.trump[:, None], led[:, None], self.current_trick + 1]

    @cached_property
    def winning_seat(self) -> np.ndarray:
        """Relative seat currently winning the trick, -1 before the lead, int (B,)."""
        return np.where(self.n_in_trick > 0, self.trick_strength.argmax(axis=1), -1)

    @cached_property
    def winning_strength(self) -> np.ndarray:
        """Strength of the card currently winning the trick, -1 before the lead, int (B,)."""
        return np.where(self.n_in_trick > 0, self.trick_strength.max(axis=1), -1)

    @cached_property
    def card_key(self) -> np.ndarray:
        """Order of each card inside its effective suit under this row's trump, int (B, C)."""
        return KEY[self.trump]

    @cached_property
    def card_suit(self) -> np.ndarray:
        """Effective suit of each card under this row's trump, int (B, C)."""
        return cards.EFFECTIVE_SUIT[self.trump]

    @cached_property
    def is_trump(self) -> np.ndarray:
        """Each card is a trump under this row's trump, bool (B, C)."""
        return cards.TRUMP_ORDER[self.trump] > 0

    @cached_property
    def suit_count(self) -> np.ndarray:
        """Cards I hold in each effective suit, int (B, 4)."""
        in_suit = cards.SUIT_BITS[self.trump, : cards.NUM_SUITS]  # (B, 4): not the "every card" column
        return np.bitwise_count(in_suit & card_bits(self.hand)[:, None]).astype(np.int16)

    @cached_property
    def suit_len(self) -> np.ndarray:
        """Cards I hold in each card's effective suit, int16 (B, C)."""
        return np.bitwise_count(SUIT_MATES[self.trump] & card_bits(self.hand)[:, None]).astype(np.int16)

    @cached_property
    def boss(self) -> np.ndarray:
        """Cards that are the highest of their effective suit among the unseen cards, bool (B, C).

        A boss card wins any trick of its suit unless trumped: the ace while the
        suit's ace is out, the king once the ace has gone, the right bower always.
        """
        return (NOT_BELOW[self.trump] & card_bits(self.unseen)[:, None]) == 0

    @cached_property
    def known_friends(self) -> np.ndarray:
        """Relative seats known to be on my side this hand, bool (B, P); never myself.

        Four-handed: the partner opposite, unless sitting out. Five-handed: the
        maker knows the partner once the called card is played; the hidden
        partner knows the maker; defenders know each other when the maker is
        alone, or the partnership is revealed, or the called card is one the
        defender knows to be out of play.
        """
        b, p = self.batch_size, self.num_players
        friends = np.zeros((b, p), bool)
        if not self.rules.called_card:
            friends[:, 2] = ~self.sitting_out[:, 2]
            return friends
        rows = np.arange(b)
        made = self.maker >= 0
        am_maker = self.maker == 0
        revealed = self.revealed_by >= 0
        sel = am_maker & revealed
        friends[rows[sel], self.revealed_by[sel]] = True
        sel = self.i_hold_called & made
        friends[rows[sel], self.maker[sel]] = True
        called_out = (self.called_card >= 0) & self.hidden_known_out[rows, np.maximum(self.called_card, 0)]
        solo = self.alone | called_out | revealed
        defender = made & ~am_maker & ~self.i_hold_called & solo
        seat = np.arange(p)[None, :]
        team = (seat != 0) & (seat != self.maker[:, None]) & (seat != self.revealed_by[:, None])
        friends |= defender[:, None] & team
        return friends

    @cached_property
    def on_making_side(self) -> np.ndarray:
        """I am the maker or (known to myself) the maker's partner, bool (B,)."""
        made = self.maker >= 0
        if self.rules.called_card:
            return made & ((self.maker == 0) | self.i_hold_called)
        return made & ((self.maker == 0) | (self.maker == 2))

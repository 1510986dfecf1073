"""Card-play rules of thumb of the rule-based player: leads and follows.

Each rule scores the legal cards of every row, ``(B, C)``, and the best legal
card wins (``argmax`` of a score, or ``argmin`` of a cost); no Python loop runs
over the batch. The player reads only its observation (``ObsView``): its hand,
the cards played so far, who is winning the trick, and which seats it knows to
be on its side.
"""

from __future__ import annotations

import numpy as np

from agents.view import ObsView
from euchre_env import cards

C = cards.NUM_CARDS

MIN_TRUMP_TO_PULL = 3  # a maker with three or more trump leads them to draw the defenders' trump
BOSS_PREFERENCE = 1000  # with seats still to play, win with a card nobody can beat in suit
HIDE_CALLED_PENALTY = 150  # the hidden partner keeps the called card back rather than throw it away
NONE = 10_000  # cost of a card that is not legal


def _pick_min(cost: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Legal card of least cost per row, int (B,)."""
    return np.where(legal, cost, NONE).argmin(axis=1)


def _called_mask(view: ObsView) -> np.ndarray:
    """The called card, when I am the hidden partner of a partnered maker, bool (B, C)."""
    mine = view.i_hold_called & ~view.alone
    return mine[:, None] & (np.arange(C)[None, :] == view.called_card[:, None])


def throw_cost(view: ObsView) -> np.ndarray:
    """Cost of giving a card away on a trick I will not win (lowest goes first), int (B, C).

    Throw the lowest plain card, from the shortest suit (to make a void for
    ruffing later); keep boss cards and trump, which are tricks. The hidden
    partner keeps the called card back: throwing it reveals the partnership
    for nothing.
    """
    key = view.card_key
    plain = 10 * key + view.suit_len
    cost = np.where(view.is_trump, 300 + key, np.where(view.boss, 200 + key, plain))
    return cost + HIDE_CALLED_PENALTY * _called_mask(view)


def lead_score(view: ObsView) -> np.ndarray:
    """Preference of each card as a lead (highest is led), int (B, C).

    In order: a maker's side leads a boss trump (the right bower first) while
    the defenders may hold trump; a maker with ``MIN_TRUMP_TO_PULL`` trump
    leads the highest; anyone cashes off-suit boss cards (aces), short suit
    first since long suits get trumped; the maker's partner leads low trump to
    the maker; otherwise lead low from a short suit and keep trump.
    """
    key = view.card_key
    trump = view.is_trump
    boss = view.boss
    trumps_out = (view.unseen & trump).any(axis=1)[:, None]
    making = view.on_making_side[:, None]
    am_maker = (view.maker == 0)[:, None]
    n_trump = (view.hand & trump).sum(axis=1)[:, None]
    suit_len = view.suit_len
    score = np.where(trump, -key, 100 - 10 * suit_len - key)
    score = np.where(making & ~am_maker & trump, 200 - key, score)
    score = np.where(~trump & boss, 300 - suit_len, score)
    score = np.where(trump & boss & ~trumps_out, 350 + key, score)
    score = np.where(am_maker & trump & trumps_out & (n_trump >= MIN_TRUMP_TO_PULL), 400 + key, score)
    score = np.where(making & trump & boss & trumps_out, 500 + key, score)
    return score - HIDE_CALLED_PENALTY * (_called_mask(view) & ~boss)


def choose_lead(view: ObsView, legal: np.ndarray) -> np.ndarray:
    """Card to lead per row (see ``lead_score``), int (B,)."""
    return np.where(legal, lead_score(view), -NONE).argmax(axis=1)


def card_strength(view: ObsView) -> np.ndarray:
    """Power of each card in the current trick (``cards.STRENGTH``; 0 cannot win), int (B, C)."""
    led = np.maximum(view.led_suit, 0)
    return cards.STRENGTH[view.trump[:, None], led[:, None], np.arange(1, C + 1)[None, :]]


def choose_follow(view: ObsView, legal: np.ndarray) -> np.ndarray:
    """Card to play to a trick already led, int (B,).

    * A seat known to be on my side is winning: do not overtake it, throw the
      lowest card (partner's trick is our trick).
    * Otherwise win as cheaply as possible, trumping in when void in the led
      suit; with seats still to play, prefer a plain boss card, which nobody
      can beat without trump.
    * Cannot win: throw the lowest card (``throw_cost``).

    Five-handed, the hidden partner thus reveals itself only when the called
    card is its cheapest way to take a trick from the defenders.
    """
    rows = np.arange(view.batch_size)
    friend_winning = view.known_friends[rows, np.maximum(view.winning_seat, 0)] & (view.winning_seat >= 0)
    strength = card_strength(view)
    beats = legal & (strength > view.winning_strength[:, None])
    later = (view.to_play_after_me > 0)[:, None]
    win_cost = strength - BOSS_PREFERENCE * (view.boss & ~view.is_trump & later)
    win = _pick_min(win_cost, beats)
    throw = _pick_min(throw_cost(view), legal)
    return np.where(beats.any(axis=1) & ~friend_winning, win, throw)


def choose_play(view: ObsView, legal: np.ndarray) -> np.ndarray:
    """Card to play per row: a lead on an empty trick, else a follow. Int (B,) card ids.

    Args:
        view: decoded observations of ``B`` seats in the PLAY phase.
        legal: bool (B, C), the cards the seat may play.
    """
    leading = view.n_in_trick == 0
    if leading.all():  # tables stepped together (search rollouts) are mostly all leading or all following
        return choose_lead(view, legal)
    if not leading.any():
        return choose_follow(view, legal)
    out = np.empty(view.batch_size, np.int64)
    for rows, choose in ((np.flatnonzero(leading), choose_lead), (np.flatnonzero(~leading), choose_follow)):
        out[rows] = choose(ObsView(view.obs[rows], view.rules), legal[rows])
    return out

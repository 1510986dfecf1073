"""What the learned partner belief reads: a view's evidence, in the maker's frame and suits relative to trump.

Five-handed only. :func:`belief_features` turns checked view observations
(``euchre_env.beliefs.check_observations``) into a fixed-length vector per
view. Seats are counted from the maker (``j = 0`` the maker, ``1`` its left,
...), so "the seat two to the maker's left trumped its lead" is one input
whoever made trump; cards are described by their part in the hand (trump
order, rank, colour), never by their printed suit. The counted rules-only
belief (``euchre_env.beliefs.ExactBelief``) is one of the inputs, so the
network learns what the players' choices add to counting.

Groups (:data:`GROUPS`, in order; ``T = 5`` tricks, ``P = 5`` seats):

* ``exact``: the counted belief, maker frame (``P + 1``: seats 0..4 from the
  maker, then "no partner"): probabilities and their logs (floored at 1e-4);
* ``plays``: per trick and maker-frame seat (T x P x 11): played, led,
  followed suit, failed to follow, trumped in, won the trick, the maker was
  winning the trick when it played, its card took the lead, the card is a
  trump, its trump order / 8, its rank / 6 when not a trump;
* ``bidding``: who passed in round 1 and in round 2, the dealer (maker
  frame), the round trump was made in, the upcard taken, the upcard's trump
  order / 8 and whether it is of the trump suit's colour;
* ``called``: the called card's trump order (one-hot 0..8), its rank when not
  a trump (one-hot), whether it is of trump's colour;
* ``view``: the viewer's seat in the maker frame (one-hot; zeros for the
  public), public, the trick number (one-hot 0..5);
* ``hand``: the viewer's hand by (canonical suit, rank): canonical suit 0 is
  trump, 1 the same colour, 2 and 3 the others in printed order; zeros for the public.
"""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.encoding import suit_roles
from euchre_env.infoset import onehot_index, pieces, public_state, trick_leaders
from euchre_env.rules import NUM_TRICKS, RulesConfig

PLAY_FEATURES = 11
CHOICE_FEATURES = 9
GROUPS = ("exact", "plays", "choices", "bidding", "called", "view", "hand")


def group_sizes(num_players: int = 5) -> dict[str, int]:
    """The length of each group of :data:`GROUPS` (module docstring)."""
    p, t, c = num_players, NUM_TRICKS, cards.NUM_CARDS
    return {"exact": 2 * (p + 1), "plays": t * p * PLAY_FEATURES,
            "choices": (t + 1) * p * CHOICE_FEATURES, "bidding": 3 * p + 5,
            "called": 9 + cards.NUM_RANKS + 1, "view": p + 1 + t + 1, "hand": c}  # fmt: skip


def num_features(num_players: int = 5) -> int:
    """Length of the feature vector."""
    return sum(group_sizes(num_players).values())


def group_slices(num_players: int = 5) -> dict[str, slice]:
    """Where each group of :data:`GROUPS` sits in the vector."""
    sizes = group_sizes(num_players)
    ends = np.cumsum([sizes[g] for g in GROUPS])
    return {g: slice(int(e - sizes[g]), int(e)) for g, e in zip(GROUPS, ends, strict=True)}


def seat_columns(num_players: int = 5) -> np.ndarray:
    """Int64 (P, S): the columns of each maker-frame seat's own features, seat ``j`` in row ``j``.

    Its counted probability and log, its plays and choices in every trick, its choices' sums, whether it
    passed in each round and dealt, and whether it is the viewer: the inputs a network shared by the
    seats reads for each (``agents.partner_model``).
    """
    p, t, sl = num_players, NUM_TRICKS, group_slices(num_players)
    rows = []
    for j in range(p):
        own = [sl["exact"].start + j, sl["exact"].start + p + 1 + j]
        own += [sl["plays"].start + (k * p + j) * PLAY_FEATURES + f for k in range(t) for f in range(PLAY_FEATURES)]
        own += [sl["choices"].start + (k * p + j) * CHOICE_FEATURES + f
                for k in range(t + 1) for f in range(CHOICE_FEATURES)]  # fmt: skip
        own += [sl["bidding"].start + j, sl["bidding"].start + p + j, sl["bidding"].start + 2 * p + j]
        own += [sl["view"].start + j]
        rows.append(own)
    return np.array(rows, dtype=np.int64)


def maker_seat(obs: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """int64 (N,): the maker's seat relative to the viewer (0 where none has declared)."""
    return np.maximum(onehot_index(pieces(obs, rules)("maker")), 0)


def to_maker_frame(rel: np.ndarray, maker: np.ndarray) -> np.ndarray:
    """(N, P + 1) viewer-frame columns -> maker frame (column ``j`` = seat ``(maker + j) % P``; last unchanged)."""
    p = rel.shape[1] - 1
    cols = (maker[:, None] + np.arange(p)) % p
    return np.concatenate([np.take_along_axis(rel[:, :p], cols, axis=1), rel[:, p:]], axis=1)


def to_viewer_frame(m: np.ndarray, maker: np.ndarray) -> np.ndarray:
    """The inverse of :func:`to_maker_frame`."""
    p = m.shape[1] - 1
    cols = (np.arange(p)[None, :] - maker[:, None]) % p
    return np.concatenate([np.take_along_axis(m[:, :p], cols, axis=1), m[:, p:]], axis=1)


def belief_features(obs: np.ndarray, public: np.ndarray, rules: RulesConfig, exact: np.ndarray) -> np.ndarray:
    """Float32 (N, :func:`num_features`) of checked observations (N, D) bool, ``public`` (N,) bool and the
    counted belief ``exact`` (N, P + 1) in the viewer's frame (NaN rows allowed: their features are zeros).

    Rows where no maker has declared give meaningless features; callers use open rows only.
    """
    n, p = obs.shape[0], rules.num_players
    piece = pieces(obs, rules)
    s = public_state(obs, rules, np.random.default_rng(0))
    maker = np.maximum(s.maker.astype(np.int64), 0)
    trump = np.where(s.trump < cards.NUM_SUITS, s.trump, 0).astype(np.int64)
    rot = (maker[:, None] + np.arange(p)) % p  # maker-frame seat j -> viewer-relative seat
    rows = np.arange(n)
    parts: list[np.ndarray] = []

    ex = to_maker_frame(np.nan_to_num(exact, nan=0.0), maker)
    parts += [ex, np.log(np.maximum(ex, 1e-4))]

    # plays: trick x maker-frame seat
    tc = np.take_along_axis(s.trick_cards.astype(np.int64), np.broadcast_to(rot[:, None, :], (n, NUM_TRICKS, p)), axis=2)
    played = tc >= 0
    card = np.maximum(tc, 0)
    tr = trump[:, None, None]
    eff = cards.EFFECTIVE_SUIT[tr, card]
    order = cards.TRUMP_ORDER[tr, card].astype(np.int64)
    leader = (trick_leaders(s, rules) - maker[:, None]) % p  # (N, T) maker frame
    lead_card = np.take_along_axis(tc, leader[:, :, None], axis=2)[:, :, 0]
    led = np.where(lead_card >= 0, np.take_along_axis(eff, leader[:, :, None], axis=2)[:, :, 0], -1)
    has_led = led[:, :, None] >= 0
    follow = played & has_led & (eff == led[:, :, None])
    failed = played & has_led & (eff != led[:, :, None])
    strength = np.where(played, cards.STRENGTH[tr, np.maximum(led, 0)[:, :, None], card + 1], -1).astype(np.int64)
    pos = (np.arange(p)[None, None, :] - leader[:, :, None]) % p  # (N, T, P) place in the trick's order
    before = played[:, :, None, :] & (pos[:, :, None, :] < pos[:, :, :, None])  # [.., j, k]: k played before j
    best = np.where(before, strength[:, :, None, :], -1)
    best_seat = best.argmax(axis=3)
    best_val = best.max(axis=3)
    maker_winning = played & (best_val >= 0) & (best_seat == 0)
    took = played & (strength > best_val)
    winner = s.trick_winner.astype(np.int64)
    won = (winner[:, :, None] >= 0) & (((winner - maker[:, None]) % p)[:, :, None] == np.arange(p))
    is_trump = order > 0
    # choices: what a follower did against a card it held (played later; or the called card, if it has it)
    args = (tr, card, played, eff, led, pos, strength, best_val)
    later = np.arange(NUM_TRICKS)[None, :] > np.arange(NUM_TRICKS)[:, None]  # [k, l]: trick l after trick k
    _, could_win, higher_loser, dearer_win = _choices_against(card[:, None], later[None, :, :, None] & played[:, None], *args)
    called_card = np.maximum(s.called.astype(np.int64), 0)[:, None, None, None]
    c_legal, c_win, c_loser, c_dearer = _choices_against(called_card, np.ones((1, 1, 1, 1), bool), *args)
    plays = np.stack([
        played, played & (pos == 0), follow, failed, failed & is_trump, won & played, maker_winning, took & (pos > 0),
        played & is_trump, np.where(played, order / 8.0, 0.0),
        np.where(played & ~is_trump, cards.CARD_RANK[card] / 6.0, 0.0),
    ], axis=3)  # fmt: skip
    parts.append(plays.reshape(n, -1))
    choices = np.stack([could_win, could_win & maker_winning, higher_loser, dearer_win,
                        c_legal, c_win, c_win & maker_winning, c_loser, c_dearer], axis=3)  # fmt: skip
    parts += [choices.reshape(n, -1), choices.sum(axis=1).reshape(n, -1) / 2.0]  # per trick, then per seat

    # bidding
    def maker_frame(onehot: np.ndarray) -> np.ndarray:
        return np.take_along_axis(onehot, rot, axis=1)

    up = np.maximum(s.upcard.astype(np.int64), 0)
    parts += [
        maker_frame(piece("passed_round_1")), maker_frame(piece("passed_round_2")), maker_frame(piece("dealer")),
        piece("maker_round"), piece("upcard_taken"),
        (cards.TRUMP_ORDER[trump, up] / 8.0)[:, None],
        (cards.SUIT_COLOUR[cards.CARD_SUIT[up]] == cards.SUIT_COLOUR[trump])[:, None],
    ]  # fmt: skip

    # the called card
    called = np.maximum(s.called.astype(np.int64), 0)
    c_order = cards.TRUMP_ORDER[trump, called].astype(np.int64)
    parts += [
        np.eye(9)[c_order],
        np.eye(cards.NUM_RANKS)[cards.CARD_RANK[called]] * (c_order == 0)[:, None],
        (cards.SUIT_COLOUR[cards.CARD_SUIT[called]] == cards.SUIT_COLOUR[trump])[:, None],
    ]

    # the view
    me = (-maker) % p  # the viewer (relative seat 0) in the maker frame
    parts += [np.eye(p)[me] * ~public[:, None], public[:, None], np.eye(NUM_TRICKS + 1)[np.minimum(s.trick_no, NUM_TRICKS)]]

    # the viewer's hand in canonical suits (trump first)
    canon = np.argsort(suit_roles()[trump], axis=1)  # printed suit -> canonical suit, per row
    hand = piece("hand", 1)[:, 0]  # (N, C)
    to = canon[:, cards.CARD_SUIT.astype(np.int64)] * cards.NUM_RANKS + cards.CARD_RANK  # (N, C)
    h = np.zeros((n, cards.NUM_CARDS), bool)
    h[rows[:, None], to] = hand
    parts.append(h)

    out = np.concatenate([np.asarray(x, np.float32).reshape(n, -1) for x in parts], axis=1)
    assert out.shape[1] == num_features(p), (out.shape, num_features(p))
    return out


def _card_value(tr: np.ndarray, card: np.ndarray) -> np.ndarray:
    """A card's worth to its holder, int64 (shape of ``card``): trump above every plain card, then rank."""
    order = cards.TRUMP_ORDER[tr, card].astype(np.int64)
    return np.where(order > 0, 100 + order, cards.CARD_RANK[card])


def _choices_against(
    alt: np.ndarray, held: np.ndarray, tr: np.ndarray, card: np.ndarray, played: np.ndarray, eff: np.ndarray,
    led: np.ndarray, pos: np.ndarray, strength: np.ndarray, best_val: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """What each follower chose over alternative cards it held, per trick and seat, bool (N, T, P) each.

    ``alt`` int and ``held`` bool, both broadcastable to (N, T, L, P): ``L`` alternative cards per trick
    ``k`` and seat, and whether each counts (the seat had it at trick ``k``). Returns ``(legal, could_win,
    higher_loser, dearer_win)``: an alternative was a legal play there (of the suit led, or the seat failed
    to follow); the seat did not take the lead but an alternative would have; it lost with a card worth
    more than an alternative that would also have lost; it took the lead with more than it needed. The
    other arguments are :func:`belief_features`' (maker frame, (N, T, P); ``led`` (N, T); ``tr`` (N, 1, 1)).
    """
    tr4 = tr[:, :, :, None]
    s_alt = cards.STRENGTH[tr4, np.maximum(led, 0)[:, :, None, None], alt + 1]  # its strength in trick k
    following = played & (pos > 0) & (led[:, :, None] >= 0)
    failed = (eff != led[:, :, None])[:, :, None, :]
    legal = held & following[:, :, None, :] & ((cards.EFFECTIVE_SUIT[tr4, alt] == led[:, :, None, None]) | failed)
    beats = s_alt > best_val[:, :, None, :]
    cheaper = _card_value(tr4, alt) < _card_value(tr, card)[:, :, None, :]
    took = strength > best_val
    could_win = ~took & (legal & beats).any(axis=2)
    higher_loser = ~took & (legal & ~beats & cheaper).any(axis=2)
    dearer_win = took & (legal & beats & (s_alt < strength[:, :, None, :])).any(axis=2)
    return legal.any(axis=2), could_win, higher_loser, dearer_win

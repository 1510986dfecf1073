"""Trick play, the end of a hand, scoring, and the whole-game flow.

Functions mutate the state in place on ``rows`` (row indices, shape ``(n,)``).
"""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.actions import PLAY_BASE, Phase
from euchre_env.engine import deal
from euchre_env.engine.masks import play_bits, refresh, sample_bits
from euchre_env.engine.tables import FOLLOWERS, NEXT_ACTIVE, NUM_ACTIVE, SEAT_BIT
from euchre_env.rules import NUM_TRICKS, RulesConfig
from euchre_env.state import State


def start_play(s: State, rows: np.ndarray, rules: RulesConfig) -> None:
    """The player left of the dealer leads, skipping a seat that sits out (rules.md#c7)."""
    if not rows.size:
        return
    p = rules.num_players
    lead = _NEXT_FLAT[p][s.out[rows].astype(np.intp) * p + s.dealer[rows]]
    s.phase[rows] = Phase.PLAY
    s.leader[rows] = lead
    s.turn[rows] = lead
    s.trick_no[rows] = 0
    s.n_played[rows] = 0
    s.led[rows] = -1


def apply_play(s: State, rows: np.ndarray, a: np.ndarray, rules: RulesConfig) -> None:
    """Play one card to the current trick; finish the trick when every active seat has played.

    Playing the called card reveals the hidden partner (rules.md#c12).
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
    s.led[lead_rows] = _EFFECTIVE_FLAT[s.trump[lead_rows].astype(np.intp) * cards.NUM_CARDS + card[leads]]
    if rules.called_card:
        called_now = card == s.called[rows]
        s.revealed[rows[called_now]] = t[called_now]
    n = n + 1
    s.n_played[rows] = n
    out = s.out[rows].astype(np.intp)
    s.turn[rows] = _NEXT_FLAT[p][out * p + seat]  # NEXT_ACTIVE[p][out, seat]
    full = n == NUM_ACTIVE[p][out]
    if full.any():
        finish_trick(s, rows[full], rules)


def play_out_random(
    s: State, rows: np.ndarray, counters: np.ndarray, rules: RulesConfig, *, check: bool = True
) -> np.ndarray:
    """Finish the hand at tables ``rows`` with uniformly random legal cards, in place (a random playout).

    The ``j``-th card played from now at table ``rows[i]`` is the legal card of
    rank ``floor(u * count)`` (``masks.sample_bits``) with
    ``u = deal.splitmix_uniform(counters[i] + j * golden)``: exactly the cards
    that one ``step`` per card, with those draws, would play. A trick is drawn
    and played at once (the followers' legal cards depend only on the card led
    and their own hands), so it costs one round of array operations, not one
    per seat. Afterwards the hand is over (in a game, the next one is dealt)
    and the legal sets are stored, as after ``step``.

    Args:
        s: the state, ``B`` tables.
        rows: (n,) int64 distinct tables in PLAY, each at the start of a trick.
        counters: (n,) uint64 stream positions of the next draw.
        rules: the game's rules.
        check: validate the arguments (a caller that picked ``rows`` by these
            conditions itself may pass False).

    Returns:
        (n,) int64 cards played at each table (the next draw is at ``counters + played * golden``).

    Raises:
        ValueError: ``rows``/``counters`` have the wrong shape or dtype, or a
            table is not in card play at the start of a trick (nothing has changed).
    """
    if check:
        _check_play_out(s, rows, counters)
    p = rules.num_players
    s.hand_over[rows] = False
    size = NUM_ACTIVE[p][s.out[rows].astype(np.intp)].astype(np.int64)  # (n,) cards in a trick
    left = NUM_TRICKS - s.trick_no[rows].astype(np.int64)  # (n,) tricks left
    played = left * size
    k, most = int(size.max()), int(left.max())
    # u[i, j]: the uniform of the j-th draw from now at table rows[i].
    u = deal.splitmix_uniform(counters[:, None] + np.arange(most * k, dtype=np.uint64) * deal.GOLDEN)
    # A trick of fewer than k cards gets filler slots: no card, at a seat that sits out (see FOLLOWERS).
    short = None if size.min() == k else np.arange(1, k) >= size[:, None]  # (n, k - 1)
    g, cols = rows, np.arange(k)
    for trick in range(most):
        if trick and left.min() <= trick:  # tables whose hand ended drop out
            keep = left > trick
            g, u, size, left = g[keep], u[keep], size[keep], left[keep]
            short = None if short is None else short[keep]
        if short is None:
            ut = u[:, trick * k : (trick + 1) * k]
        else:
            ut = np.take_along_axis(u, trick * size[:, None] + cols, axis=1)
        _random_trick(s, g, ut, short, rules)
    refresh(s, rules, rows)
    return played


def _check_play_out(s: State, rows: np.ndarray, counters: np.ndarray) -> None:
    if not (
        isinstance(rows, np.ndarray)
        and isinstance(counters, np.ndarray)
        and rows.ndim == 1
        and rows.dtype == np.int64
        and counters.shape == rows.shape
        and counters.dtype == np.uint64
    ):
        raise ValueError(
            "play_out_random needs rows (n,) int64 and counters (n,) uint64, got "
            f"{getattr(rows, 'dtype', type(rows).__name__)} {np.shape(rows)} and "
            f"{getattr(counters, 'dtype', type(counters).__name__)} {np.shape(counters)}"
        )
    if not rows.size:
        raise ValueError("play_out_random needs at least one table")
    if rows.min() < 0 or rows.max() >= s.batch_size:
        raise ValueError(f"play_out_random: rows must be table indices in 0..{s.batch_size - 1}")
    bad = (s.phase[rows] != Phase.PLAY) | (s.n_played[rows] != 0)
    if bad.any():
        row = int(rows[np.flatnonzero(bad)[0]])
        raise ValueError(
            f"play_out_random: table {row} is not at the start of a trick in card play "
            f"(phase {Phase(s.phase[row]).name}, {int(s.n_played[row])} cards played to the trick)"
        )


def _random_trick(
    s: State, rows: np.ndarray, u: np.ndarray, short: np.ndarray | None, rules: RulesConfig
) -> None:
    """One whole trick at ``rows``: the leader's card drawn with ``u[:, 0]``, the followers' with ``u[:, 1:]``.

    ``u``: (n, k) uniforms. ``short``: None, or (n, k - 1) bool: follower
    slots past a table's trick size (no card).
    """
    p = rules.num_players
    n, k = u.shape
    lead = s.turn[rows]
    base = rows * p
    hand = s.hands.reshape(-1)[base + lead].astype(np.uint64)  # nothing led yet: any card
    card = np.empty((n, k), np.int64)
    card[:, 0] = sample_bits(PLAY_BASE, hand, u[:, 0]) - PLAY_BASE
    trump = s.trump[rows]
    led = _EFFECTIVE_FLAT[trump.astype(np.intp) * cards.NUM_CARDS + card[:, 0]]
    seats = np.empty((n, k), np.intp)  # the leader, then the followers in turn order
    seats[:, 0] = lead
    seats[:, 1:] = FOLLOWERS[p][s.out[rows].astype(np.intp) * p + lead, : k - 1]
    hands = s.hands.reshape(-1)[base[:, None] + seats[:, 1:]].astype(np.uint64)  # (n, k - 1)
    bits = play_bits(hands, trump[:, None], led[:, None])
    if short is not None:
        bits[short] = 0  # sample_bits gives -1: no card
    follow = sample_bits(PLAY_BASE, bits.reshape(-1), u[:, 1:].reshape(-1))
    card[:, 1:] = (follow if PLAY_BASE == 0 else np.where(follow >= 0, follow - PLAY_BASE, -1)).reshape(
        n, k - 1
    )
    apply_trick(s, rows, seats, card, led, rules)


def apply_trick(
    s: State, rows: np.ndarray, seats: np.ndarray, card: np.ndarray, led: np.ndarray, rules: RulesConfig
) -> None:
    """Play a whole trick at ``rows`` and finish it: what ``apply_play`` does card by card.

    Args:
        rows: (n,) tables, each at the start of a trick.
        seats: (n, k) the seats in turn order, the leader first.
        card: (n, k) int64 their cards; -1 for a filler slot (no card), whose
            seat must sit out the hand.
        led: (n,) the effective suit of the card led.
    """
    p = rules.num_players
    bit = np.where(card >= 0, cards.CARD_BIT[card], 0)  # (n, k) uint32
    at = (rows * p)[:, None] + seats  # flat indices of (row, seat)
    s.hands.reshape(-1)[at] &= ~bit
    s.played_by.reshape(-1)[at] |= bit
    t = s.trick_no[rows]
    rt = rows * NUM_TRICKS + t  # flat index of (row, trick)
    s.trick_bits.reshape(-1)[rt] |= np.bitwise_or.reduce(bit, axis=1)
    s.trick_cards.reshape(-1)[(rt * p)[:, None] + seats] = card  # a filler's seat holds -1 already
    s.led[rows] = led
    if rules.called_card:
        called_now = ((card == s.called[rows, None]) & (card >= 0)).any(axis=1)
        s.revealed[rows[called_now]] = t[called_now]
    finish_trick(s, rows, rules)


_NEXT_FLAT = {p: table.reshape(-1) for p, table in NEXT_ACTIVE.items()}
_STRENGTH_FLAT = cards.STRENGTH.reshape(-1)
_STRENGTH_ROW = cards.STRENGTH.shape[2]  # C + 1 entries per (trump, led)
# _STRENGTH_KEY[trump * NUM_SUITS + led] + card: flat index of STRENGTH[trump, led, card + 1].
_STRENGTH_KEY = np.arange(cards.STRENGTH.shape[0] * cards.NUM_SUITS) * _STRENGTH_ROW + 1
_EFFECTIVE_FLAT = cards.EFFECTIVE_SUIT.reshape(-1)  # [trump * NUM_CARDS + card]: EFFECTIVE_SUIT[trump, card]


def finish_trick(s: State, rows: np.ndarray, rules: RulesConfig) -> None:
    """Highest trump wins, else the highest card of the led suit; the winner leads next."""
    t = s.trick_no[rows]
    rt = rows * NUM_TRICKS + t  # flat index of (row, trick)
    played = s.trick_cards.reshape(-1, rules.num_players)[rt]  # (n, P), -1 for a seat that sits out
    key = _STRENGTH_KEY[s.trump[rows].astype(np.intp) * cards.NUM_SUITS + s.led[rows]]
    power = _STRENGTH_FLAT[key[:, None] + played]  # (n, P)
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
    """Points each seat scores for the finished hand (rules.md#c13, #c17, #c18).

    The side is the maker plus the partner (fixed partner four-handed; the
    called card's holder five-handed, none if alone or the card is in the kitty).
    Side takes 3-4: 1 each; 5: 2 each, 4 for a declared loner; 0-2: each
    defender 2, or 4 when a lone defender euchres a lone maker.

    Returns:
        Int8 array of shape ``(n, P)``.
    """
    maker = s.maker[rows]
    if rules.called_card:
        seats = np.arange(rules.num_players)
        side = (seats == maker[:, None]) | (seats == s.partner[rows, None])
    else:
        side = _SAME_SIDE[maker.astype(np.intp)]
    side_tricks = (s.tricks_won[rows] * side).sum(axis=1)
    pair = _HAND_POINTS[side_tricks * 4 + s.alone[rows] * 2 + (s.defender_alone[rows] >= 0)]  # (n, 2)
    return np.where(side, pair[:, :1], pair[:, 1:])


def _make_hand_points() -> np.ndarray:
    """_HAND_POINTS[side_tricks * 4 + alone * 2 + lone_defender]: (each side member's points, each defender's)."""
    table = np.zeros((6 * 4, 2), np.int8)
    for tricks in range(6):
        for alone in (0, 1):
            for lone_defender in (0, 1):
                if tricks >= 3:
                    points = ((4 if alone else 2) if tricks == 5 else 1, 0)
                else:
                    points = (0, 4 if alone and lone_defender else 2)
                table[tricks * 4 + alone * 2 + lone_defender] = points
    return table


_HAND_POINTS = _make_hand_points()
# _SAME_SIDE[maker, seat]: four-handed, the seat is on the maker's side. (4, 4) bool.
_SAME_SIDE = np.arange(4) % 2 == np.arange(4)[:, None] % 2


def end_hand(s: State, rows: np.ndarray, rules: RulesConfig, thrown_in: bool = False) -> None:
    """Score the hand, record it in ``last_*``, and end the episode or deal on.

    A thrown-in hand scores nothing (rules.md#c16). In a game, after a hand,
    if any total reaches ``points_to_win`` the highest totals share the victory
    (rules.md#c14, #c19); otherwise the deal moves one seat left (rules.md#c1).
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

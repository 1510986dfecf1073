"""Leak-free world sampling: complete deals consistent with what one seat knows.

``sample_worlds(observation, rules, n, rng)`` takes nothing but a seat's
observation vector (the output of :func:`euchre_env.encoding.encode`) and
returns ``n`` engine states, each a complete deal that agrees with everything
the seat has seen, continued from the current phase. Worlds are built in the
viewer's relative frame: the viewer is seat 0, its left is seat 1, and so on
(the rules are rotation-symmetric), so an action chosen in a world is the
action to take at the real table.

What the seat knows, and so what every world respects:

* its own hand and its own discard (as dealer), the upcard, every card played
  and by whom, trick winners, bids, maker, trump, declarations, scores;
* voids: a seat that did not follow the led suit holds no card of that
  effective suit (bowers included) for the rest of the hand;
* the dealer took the upcard after an accept: it is in the dealer's hand or is
  the dealer's discard, unless it has been played;
* five-handed: the called card, whether the viewer holds it, who revealed it;
  the maker did not hold it when calling.

Exactness. The hidden cards are the deck minus everything the seat can see.
Each has a set of allowed *locations*: the hidden kitty, the hand of another
seat, or the dealer's discard (one slot). Every consistent world is one
assignment of hidden cards to locations with exactly the right number of
cards in each, and the sampler draws these assignments **uniformly**. It
counts completions with a small dynamic programme over the remaining
capacities of the explicit locations (the kitty takes the rest) and then
places the hidden cards one at a time, each to a location with probability
proportional to the number of completions: exact sequential sampling, no
rejection. Uniform over consistent deals is the posterior under a uniform
deal when the other seats' choices are ignored as evidence (bids and plays
only constrain through the rules above); it is not a model of the opponents.

The readers it is built from serve the partner beliefs
(:mod:`euchre_env.beliefs`), the derived card sets (:mod:`euchre_env.derived`)
and the belief features (:mod:`agents.partner_features`) too: ``pieces`` and
``onehot_index`` read an observation, ``public_state`` rebuilds what it
determines, ``trick_leaders`` and ``shown_voids`` what the tricks tell,
``constraint_masks`` where each hidden card may lie, and ``refresh_derived``
completes a rebuilt state.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from euchre_env import actions, cards, engine
from euchre_env.actions import Phase
from euchre_env.encoding import obs_layout, score_bins
from euchre_env.engine.tables import NEXT_ACTIVE
from euchre_env.rules import HAND_SIZE, NUM_TRICKS, RulesConfig
from euchre_env.state import SCHEMA, State

C = cards.NUM_CARDS
_CHUNK = 32  # observations whose counting tables are built together (memory ~0.5 MB each)


def sample_worlds(observation: np.ndarray, rules: RulesConfig, n: int, rng: np.random.Generator) -> State:
    """Sample ``n`` complete worlds uniformly among those consistent with a seat's view.

    Args:
        observation: one seat's observation, shape ``(D,)``, or a batch of
            them, shape ``(B, D)``, with ``D == obs_layout(rules).size``.
        rules: the rules the observation was encoded with.
        n: worlds per observation, a positive integer.
        rng: the only source of randomness.

    Returns:
        A ``State`` of ``B * n`` tables (``n`` for a single observation); rows
        ``b * n .. b * n + n - 1`` belong to observation ``b``. The viewer is
        seat 0 of every world, and ``encode(world, 0, rules)`` reproduces the
        observation exactly. ``engine.step`` continues each world correctly.
        Fields the observation cannot show and play does not depend on are
        set plainly: ``hand_no`` 0, a fresh ``seed``, the ``last_*`` record
        of the previous hand empty; scores are the thermometer's values.

    Raises:
        ValueError: for a bad argument, an observation of a finished hand, or
            an observation that no deal matches (say which).
    """
    obs = _check_args(observation, rules, n, rng)
    parts = [_sample_chunk(obs[i : i + _CHUNK], rules, n, rng) for i in range(0, obs.shape[0], _CHUNK)]
    return parts[0] if len(parts) == 1 else State.concatenate(parts)


def _check_args(observation: np.ndarray, rules: RulesConfig, n: int, rng: np.random.Generator) -> np.ndarray:
    if not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig, got {type(rules).__name__}")
    size = obs_layout(rules).size
    obs = np.asarray(observation)
    if obs.ndim == 1:
        obs = obs[None]
    if obs.ndim != 2 or obs.shape[1] != size or obs.shape[0] == 0:
        raise ValueError(
            f"observation must have shape ({size},) or (B, {size}) for the {rules.variant} game, "
            f"got shape {np.shape(observation)}"
        )
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (worlds per observation) must be a positive integer, got {n!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return obs > 0.5


# --- decoding the observation -------------------------------------------------


def pieces(obs: np.ndarray, rules: RulesConfig) -> Callable[..., np.ndarray]:
    """Reader of named pieces: ``piece(name)`` (B, size) bool; ``piece(name, k)`` (B, k, C).

    A card-set piece holds ``k`` sets of equal width whose entry ``c`` is card
    id ``c`` (the encoding may pad each set past the last card id).
    """
    lay = obs_layout(rules)

    def piece(name: str, sets: int | None = None) -> np.ndarray:
        cols = obs[:, lay.slice(name)]
        return cols if sets is None else cols.reshape(obs.shape[0], sets, -1)[:, :, :C]

    return piece


def _masks(card_sets: np.ndarray) -> np.ndarray:
    """uint32 (B, k) card masks of (B, k, C) card sets (entry ``c`` = card id ``c``; C <= 32 packs in 4 bytes)."""
    packed = np.packbits(card_sets.astype(bool), axis=2, bitorder="little")  # (B, k, 4) bytes
    return np.ascontiguousarray(packed).view("<u4")[..., 0]


def onehot_index(onehot: np.ndarray) -> np.ndarray:
    """Position of the set entry of each row of a (..., K) one-hot array, -1 if none. Int64 (...)."""
    at = onehot.argmax(axis=-1)
    return np.where(np.take_along_axis(onehot, at[..., None], axis=-1)[..., 0], at, -1)


def public_state(obs: np.ndarray, rules: RulesConfig, rng: np.random.Generator) -> State:
    """Every field the observation determines, in the viewer's frame; hidden cards left out.

    Returns:
        A ``State`` of ``B`` tables: ``hands[:, 0]`` is the viewer's hand, other
        hands are empty, ``kitty`` holds the upcard only while it is not taken.
    """
    b, p = obs.shape[0], rules.num_players
    piece = pieces(obs, rules)
    s = engine.init_state(rules, b, rng=rng)
    s.phase[:] = onehot_index(piece("phase"))
    if (s.phase == Phase.DONE).any():
        raise ValueError("observation is of a finished hand (phase DONE): there is no world to sample")
    s.dealer[:] = onehot_index(piece("dealer"))
    s.turn[:] = onehot_index(piece("to_act"))
    s.upcard[:] = onehot_index(piece("upcard", 1)[:, 0])
    s.maker[:] = onehot_index(piece("maker"))
    made = s.maker >= 0
    s.bid_round[:] = np.where(
        made, onehot_index(piece("maker_round")) + 1, np.where(s.phase == Phase.BID_SUIT, 2, 1)
    )
    trump = onehot_index(piece("trump"))
    s.trump[:] = np.where(trump >= 0, trump, cards.NO_TRUMP)
    s.alone[:] = piece("alone")[:, 0]
    s.out[:] = (piece("sitting_out") * (1 << np.arange(p))).sum(axis=1)
    s.called[:] = onehot_index(piece("called_card", 1)[:, 0]) if rules.called_card else -1
    s.defender_alone[:] = -1 if rules.called_card else onehot_index(piece("defender_alone"))
    s.hands[:] = 0
    s.hands[:, 0] = (piece("hand", 1)[:, 0] * cards.CARD_BIT.astype(np.uint64)).sum(axis=1)
    taken = piece("upcard_taken")[:, 0]
    s.kitty[:] = np.where(taken, 0, cards.CARD_BIT[s.upcard])
    s.discard[:] = onehot_index(piece("my_discard", 1)[:, 0])
    _decode_tricks(s, piece, rules)
    thresholds = np.ceil(np.arange(1, score_bins(rules) + 1) * rules.points_to_win / score_bins(rules))
    level = piece("scores").reshape(b, p, -1).sum(axis=2)  # thermometer bins switched on
    s.scores[:] = np.where(level > 0, thresholds[np.maximum(level - 1, 0)], 0)
    s.hand_no[:] = 0
    return s


def _decode_tricks(s: State, piece: Callable[..., np.ndarray], rules: RulesConfig) -> None:
    """Fill trick_cards, trick_winner, tricks_won, trick_no, n_played, leader, led, revealed."""
    b, p = s.batch_size, rules.num_players
    by = _masks(piece("played_by", p))  # (B, P) uint32
    when = _masks(piece("played_in", NUM_TRICKS))  # (B, T)
    both = by[:, None, :] & when[:, :, None]  # (B, T, P): one card's bit, or 0
    s.trick_cards[:] = np.where(both > 0, np.bitwise_count(both - np.uint32(1)), -1)  # the bit's index
    winners = piece("trick_winner").reshape(b, NUM_TRICKS, p)
    s.trick_winner[:] = onehot_index(winners.reshape(-1, p)).reshape(b, NUM_TRICKS)
    s.tricks_won[:] = piece("tricks_won").reshape(b, p, NUM_TRICKS).sum(axis=2)
    in_play = s.phase == Phase.PLAY
    done_tricks = (s.trick_winner >= 0).sum(axis=1)
    s.trick_no[:] = np.where(in_play, done_tricks, 0)
    s.n_played[:] = np.where(in_play, piece("current_trick", p).any(axis=2).sum(axis=1), 0)
    leaders = trick_leaders(s, rules)  # (B, T)
    rows = np.arange(b)
    t = np.minimum(s.trick_no, NUM_TRICKS - 1).astype(np.int64)
    s.leader[:] = np.where(in_play, leaders[rows, t], -1)
    lead_card = s.trick_cards[rows, t, np.maximum(s.leader, 0)]
    s.led[:] = np.where(in_play & (s.n_played > 0), cards.EFFECTIVE_SUIT[s.trump, lead_card], -1)
    if rules.called_card:
        hit = s.trick_cards == s.called[:, None, None]  # (B, T, P)
        s.revealed[:] = np.where((s.called >= 0) & hit.any(axis=(1, 2)), hit.any(axis=2).argmax(axis=1), -1)


def trick_leaders(s: State, rules: RulesConfig) -> np.ndarray:
    """Seat that led each trick (the first from the dealer's left, then the winners). (B, T) int64."""
    first = NEXT_ACTIVE[rules.num_players][s.out, s.dealer].astype(np.int64)
    prev_winner = s.trick_winner[:, :-1].astype(np.int64)
    return np.concatenate([first[:, None], np.maximum(prev_winner, 0)], axis=1)


# --- what the hidden cards may be -----------------------------------------------


def shown_voids(s: State, rules: RulesConfig) -> np.ndarray:
    """Effective suits each seat has shown it lacks, as 4-bit masks. Int64 (B, P)."""
    b = s.batch_size
    rows = np.arange(b)
    leaders = trick_leaders(s, rules)
    played = s.trick_cards.astype(np.int64)  # (B, T, P)
    eff = cards.EFFECTIVE_SUIT[s.trump[:, None, None], np.maximum(played, 0)]  # (B, T, P)
    lead = played[rows[:, None], np.arange(NUM_TRICKS), leaders]  # (B, T)
    led = np.where(lead >= 0, eff[rows[:, None], np.arange(NUM_TRICKS), leaders], -1)  # (B, T)
    failed = (played >= 0) & (led[:, :, None] >= 0) & (eff != led[:, :, None])  # (B, T, P)
    return np.bitwise_or.reduce(np.where(failed, 1 << np.maximum(led, 0)[:, :, None], 0), axis=1)


def constraint_masks(s: State, rules: RulesConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hidden cards, where each may lie, and how many cards each location takes, as card masks.

    Locations: 0 the hidden kitty, ``1 .. P-1`` the other seats' hands
    (relative seats), ``P`` the dealer's discard.

    Returns:
        ``hidden`` uint32 (B,): cards the viewer cannot place;
        ``allowed`` uint32 (B, P + 1): cards each location may hold;
        ``caps`` (B, P + 1) int64: cards each location takes (kitty included).
    """
    b, p = s.batch_size, rules.num_players
    rows = np.arange(b)
    bit_or_none = lambda card: np.where(card >= 0, cards.CARD_BIT[np.maximum(card, 0)], np.uint32(0))
    played = np.bitwise_or.reduce(bit_or_none(s.trick_cards.reshape(b, -1)), axis=1)
    dealer_taking = s.phase == Phase.DISCARD  # the dealer holds the upcard, face up so far
    up = cards.CARD_BIT[s.upcard]
    seen = s.hands[:, 0] | s.kitty | played | bit_or_none(s.discard) | np.where(dealer_taking, up, 0)
    hidden = np.uint32(rules.deck_mask) & ~seen.astype(np.uint32)
    every = np.uint32(cards.ALL_CARDS_28)
    allowed = np.full((b, p + 1), every, np.uint32)
    voids = shown_voids(s, rules)  # (B, P) 4-bit masks of effective suits
    suit_cards = cards.SUIT_BITS[s.trump, : cards.NUM_SUITS]  # (B, 4)
    for k in range(cards.NUM_SUITS):
        allowed[:, 1:p] &= np.where((voids[:, 1:] >> k) & 1 == 1, ~suit_cards[:, k : k + 1], every)
    maker = s.maker.astype(np.int64)
    called_hidden = (s.called >= 0) & (maker > 0)
    allowed[rows[called_hidden], maker[called_hidden]] &= ~cards.CARD_BIT[s.called[called_hidden]]
    up_hidden = (hidden & up) != 0  # taken by another dealer, not played, not face up
    keep = allowed[rows, s.dealer] & up
    allowed[up_hidden] &= ~up[up_hidden, None]
    allowed[rows[up_hidden], s.dealer[up_hidden]] |= keep[up_hidden]
    allowed[up_hidden, p] |= up[up_hidden]
    caps = np.zeros((b, p + 1), np.int64)
    caps[:, 0] = rules.kitty_size - 1
    caps[:, 1:p] = HAND_SIZE - (s.trick_cards[:, :, 1:] >= 0).sum(axis=1)
    taken = (s.maker >= 0) & (s.bid_round == 1)
    caps[:, p] = taken & ~dealer_taking & (s.dealer != 0)
    return hidden, allowed, caps


def _constraints(s: State, rules: RulesConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`constraint_masks` as bools: ``hidden`` (B, C), ``allowed`` (B, C, P + 1), and ``caps``."""
    hidden, allowed, caps = constraint_masks(s, rules)
    bit = lambda mask: (mask.astype(np.int64)[..., None] >> np.arange(C)) & 1 == 1
    return bit(hidden), bit(allowed).transpose(0, 2, 1), caps


# --- exact uniform sampling ---------------------------------------------------


def _count_tables(allowed: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """Completion counts for placing cards ``i ..`` into the explicit locations.

    ``tables[b, i, c]`` is the number of ways to put cards ``i, i+1, ...`` of
    observation ``b`` so that explicit location ``l`` (locations 1..P) gets
    exactly ``c[l-1]`` of them and the kitty the rest; ``c`` is flattened
    C-order over ``dims``.

    Args:
        allowed: (B, U, P + 1) bool; a padding card allows only the kitty.
        dims: capacity range per explicit location, ``(cap_max + 1, ...)``.

    Returns:
        Float64 array of shape (B, U + 1, prod(dims)).
    """
    b, u = allowed.shape[:2]
    tables = np.zeros((b, u + 1, *dims))
    tables[(slice(None), u, *([0] * len(dims)))] = 1.0
    for i in range(u - 1, -1, -1):
        nxt = tables[:, i + 1]
        cur = tables[:, i]
        cur += allowed[:, i, 0].reshape(-1, *[1] * len(dims)) * nxt
        for axis in range(len(dims)):
            on = allowed[:, i, axis + 1].reshape(-1, *[1] * len(dims))
            dst = [slice(None)] * (len(dims) + 1)
            src = list(dst)
            dst[axis + 1], src[axis + 1] = slice(1, None), slice(None, -1)
            cur[tuple(dst)] += on * nxt[tuple(src)]
    return tables.reshape(b, u + 1, -1)


def _sample_chunk(obs: np.ndarray, rules: RulesConfig, n: int, rng: np.random.Generator) -> State:
    """``sample_worlds`` for a few observations at once."""
    p = rules.num_players
    public = public_state(obs, rules, rng)
    hidden, allowed, caps = _constraints(public, rules)
    b = obs.shape[0]
    u_max = int(hidden.sum(axis=1).max())
    order = np.argsort(~hidden, axis=1, kind="stable")[:, :u_max]  # hidden cards first, id order
    real = np.take_along_axis(hidden, order, axis=1)  # (B, U) False on padding
    card_allowed = np.take_along_axis(allowed, order[:, :, None], axis=1) & real[:, :, None]
    card_allowed[:, :, 0] |= ~real  # padding goes to the kitty: a factor of one
    dims = (HAND_SIZE + 1,) * (p - 1) + (2,)
    if (caps.sum(axis=1) != hidden.sum(axis=1)).any() or (caps < 0).any() or (caps[:, 1:] >= dims).any():
        raise ValueError("observation is inconsistent: the hidden cards do not fill the hidden places")
    tables = _count_tables(card_allowed, dims)
    strides = np.array([int(np.prod(dims[k + 1 :])) for k in range(p)], np.int64)  # (P,)
    start = caps[:, 1:] @ strides  # (B,)
    if (tables[np.arange(b), 0, start] == 0).any():
        raise ValueError("observation is inconsistent: no deal of the hidden cards matches it")
    owner = np.repeat(np.arange(b), n)  # (W,) observation of each world
    where = _place(tables, card_allowed, caps[owner, 1:], strides, owner, rng)  # (W, U)
    world = public.take(owner)
    world.seed[:] = rng.integers(0, 2**63, size=owner.size, dtype=np.uint64)
    _fill(world, order[owner], real[owner], where, rules)
    refresh_derived(world, rules)
    return world


def refresh_derived(s: State, rules: RulesConfig) -> None:
    """Recompute the engine's cached fields from the primary ones, in place.

    ``played_by`` and ``trick_bits`` summarise ``trick_cards``; ``mask_base``
    and ``mask_bits`` are the legal actions of the seat to act.
    """
    played = np.where(s.trick_cards >= 0, cards.CARD_BIT[np.maximum(s.trick_cards, 0)], 0)  # (B, T, P)
    s.played_by[:] = np.bitwise_or.reduce(played, axis=1)
    s.trick_bits[:] = np.bitwise_or.reduce(played, axis=2)
    s.mask_base[:], s.mask_bits[:] = engine.compute_legal_bits(s, rules)


def _place(
    tables: np.ndarray,
    allowed: np.ndarray,
    caps: np.ndarray,
    strides: np.ndarray,
    owner: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Place the hidden cards one by one, each location weighted by its completion count.

    Args:
        tables: (B, U + 1, S) completion counts from ``_count_tables``.
        allowed: (B, U, P + 1) bool.
        caps: (W, P) capacities of the explicit locations, per world.
        strides: (P,) flat-index stride of each explicit location.
        owner: (W,) observation of each world.

    Returns:
        Int64 (W, U): the location of each card in each world.
    """
    w, u = owner.size, allowed.shape[1]
    flat = caps @ strides  # (W,)
    where = np.zeros((w, u), np.int64)
    shift = np.concatenate([[0], strides])  # (P + 1,) kitty leaves the index alone
    room = np.concatenate([np.ones((w, 1), bool), caps > 0], axis=1)  # (W, P + 1)
    left = caps.copy()
    uniform = rng.random((w, u))
    for i in range(u):
        ok = allowed[owner, i] & room  # (W, P + 1)
        nxt = tables[owner[:, None], i + 1, np.where(ok, flat[:, None] - shift, 0)]  # (W, P + 1)
        cum = np.cumsum(np.where(ok, nxt, 0.0), axis=1)  # (W, P + 1)
        loc = np.argmax(cum > uniform[:, i, None] * cum[:, -1:], axis=1)
        where[:, i] = loc
        flat -= shift[loc]
        explicit = loc > 0
        left[explicit, loc[explicit] - 1] -= 1
        room[:, 1:] = left > 0
    return where


def _fill(world: State, order: np.ndarray, real: np.ndarray, where: np.ndarray, rules: RulesConfig) -> None:
    """Write the placed cards into the hands, kitty and discard; set the partner.

    Args:
        world: (W tables) public states, changed in place.
        order, real, where: (W, U) card ids, real-card flags and locations.
    """
    p = rules.num_players
    bits = np.where(real, cards.CARD_BIT[order], 0).astype(np.uint64)  # (W, U)
    for loc in range(p):
        got = np.where(where == loc, bits, 0).sum(axis=1).astype(np.uint32)
        if loc == 0:
            world.kitty |= got
        else:
            world.hands[:, loc] |= got
    in_discard = real & (where == p)
    got = in_discard.any(axis=1)
    world.discard[got] = order[got, in_discard[got].argmax(axis=1)]
    dealer_taking = world.phase == Phase.DISCARD
    world.hands[np.flatnonzero(dealer_taking), world.dealer[dealer_taking]] |= cards.CARD_BIT[
        world.upcard[dealer_taking]
    ]
    if rules.called_card:
        called = np.maximum(world.called, 0)
        holds = (world.hands >> called[:, None].astype(np.uint32)) & 1 == 1  # (W, P)
        holds |= (world.trick_cards == world.called[:, None, None]).any(axis=1)
        world.partner[:] = np.where((world.called >= 0) & holds.any(axis=1), holds.argmax(axis=1), -1)


def rewind_to_deal(worlds: State, rules: RulesConfig) -> State:
    """The tables as they were dealt: every card back in its first holder's hand.

    Played cards return to the seats that played them; a dealer who took the
    upcard gets the discard back and returns the upcard to the kitty. The
    seat to act is the dealer's left, in round 1; scores, dealer and seed are
    kept. Replaying the public actions of ``worlds`` from here with
    ``engine.step`` reaches the same tables again (the dealer's discard
    included), which is how a model of the other seats can weigh a world.

    Args:
        worlds: ``B`` open-card tables in the same hand (e.g. ``sample_worlds`` output).

    Returns:
        A new ``State`` of ``B`` tables in phase ``BID_UPCARD``.
    """
    s = worlds.copy()
    b, p = s.batch_size, rules.num_players
    rows = np.arange(b)
    played = np.where(s.trick_cards >= 0, cards.CARD_BIT[np.maximum(s.trick_cards, 0)], 0)  # (B, T, P)
    s.hands |= np.bitwise_or.reduce(played, axis=1).astype(np.uint32)
    taken = (s.maker >= 0) & (s.bid_round == 1)
    up_bit = np.where(taken, cards.CARD_BIT[s.upcard], 0).astype(np.uint32)
    back = np.where(s.discard >= 0, cards.CARD_BIT[np.maximum(s.discard, 0)], 0).astype(np.uint32)
    dealer = s.dealer.astype(np.int64)
    s.hands[rows, dealer] = (s.hands[rows, dealer] | back) & ~up_bit
    s.kitty |= up_bit
    s.turn[:] = (dealer + 1) % p
    start = {"phase": Phase.BID_UPCARD, "trump": cards.NO_TRUMP, "bid_round": 1, "alone": False, "out": 0}
    start |= {"trick_no": 0, "n_played": 0, "tricks_won": 0, "hand_over": False}
    none = ("maker", "called", "partner", "revealed", "defender_alone", "leader", "led", "discard")
    start |= dict.fromkeys((*none, "trick_cards", "trick_winner"), -1)
    for name, value in start.items():
        getattr(s, name)[...] = value
    refresh_derived(s, rules)
    return s


def history_action(cur: State, target: State) -> np.ndarray:
    """The action each table ``target`` took at point ``cur`` of its history. Int64 (B,).

    ``cur`` is an earlier state of the same hand (e.g. from ``rewind_to_deal``
    and ``engine.step``); bids, declarations, plays and the dealer's discard are
    read from ``target``. Stepping ``cur`` with these actions retraces ``target``.
    """
    t = cur.turn.astype(np.int64)
    rows = np.arange(cur.batch_size)
    maker = target.maker == t
    card = target.trick_cards[rows, np.minimum(cur.trick_no, NUM_TRICKS - 1), t].astype(np.int64)
    by_phase = {
        Phase.BID_UPCARD: np.where(maker & (target.bid_round == 1), actions.ORDER_UP, actions.PASS),
        Phase.BID_SUIT: np.where(maker, actions.NAME_SUIT_BASE + target.trump.astype(np.int64), actions.PASS),
        Phase.DISCARD: actions.DISCARD_BASE + target.discard.astype(np.int64),
        Phase.CALL: np.where(target.alone, actions.ALONE, actions.CALL_BASE + target.called.astype(np.int64)),
        Phase.DECLARE: np.where(target.alone, actions.ALONE, actions.WITH_PARTNER),
        Phase.DEFEND: np.where(target.defender_alone == t, actions.DEFEND_ALONE, actions.PASS),
        Phase.PLAY: actions.PLAY_BASE + card,
    }
    out = np.full(cur.batch_size, -1, np.int64)
    for phase, action in by_phase.items():
        on = cur.phase == phase
        out[on] = np.broadcast_to(action, out.shape)[on]
    return out


_SEAT_AXIS = tuple(name for name, (_, axes) in SCHEMA.items() if axes[-1] == "P")  # (B, P) and (B, T, P)
_SEAT_VALUED = ("dealer", "turn", "maker", "partner", "defender_alone", "leader", "trick_winner", "last_maker",
                "last_partner", "last_defender_alone")  # fmt: skip
_SEAT_BITS = ("out", "winners")


def seat_frame(s: State, seat: np.ndarray) -> State:
    """The real tables in the relative frame of ``seat``: that seat becomes seat 0, its left seat 1, and so on.

    The frame of :func:`sample_worlds`' worlds, so ``encode(seat_frame(s, seat), 0)`` is
    ``encode(s, seat)`` and an action chosen in the rotated table is the action to take at
    the real one; it holds the real hidden cards, so it is for open-card measurements
    (``arena.open_cards``), never for an agent's own decisions. Play within the hand is
    the same from every seat (``engine.step`` commutes with it); in game mode the next
    hand is dealt to the real seats, so it does not carry over a hand's end.

    Args:
        s: ``B`` tables.
        seat: int (B,), a seat of each table.

    Returns:
        A new ``State`` of ``B`` tables (``s`` is not changed).
    """
    out = s.copy()
    p = s.num_players
    seat = np.asarray(seat, np.int64).reshape(-1)
    if seat.shape != (s.batch_size,) or ((seat < 0) | (seat >= p)).any():
        raise ValueError(f"seat must be {s.batch_size} seats in 0..{p - 1}, got {np.asarray(seat).tolist()!r}")
    src = (np.arange(p)[None, :] + seat[:, None]) % p  # (B, P): the real seat at each relative seat
    for name in _SEAT_AXIS:  # (B, P) or (B, T, P)
        a = getattr(s, name)
        index = src if a.ndim == 2 else np.broadcast_to(src[:, None, :], a.shape)
        setattr(out, name, np.take_along_axis(a, index, axis=-1))
    for name in _SEAT_VALUED:  # seat numbers, -1 for none
        a = getattr(s, name)
        shift = seat.reshape((-1,) + (1,) * (a.ndim - 1))
        setattr(out, name, np.where(a >= 0, (a - shift) % p, a).astype(a.dtype))
    for name in _SEAT_BITS:  # bit k: seat k
        a = getattr(s, name).astype(np.int64)
        bits = sum((((a >> ((k + seat) % p)) & 1) << k) for k in range(p))
        setattr(out, name, bits.astype(getattr(s, name).dtype))
    return out

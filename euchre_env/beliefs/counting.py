"""Counting and drawing the deals consistent with a view: the engine room of :mod:`euchre_env.beliefs`.

``places`` lists, for ``n`` decoded views, the cards the view cannot see, the
places each may occupy and how many cards each place holds (voids, the
maker and the called card, the taken upcard). ``groups`` builds the counting
tables: cards allowed in every place with room ("free") are exchangeable and
fill whatever room is left in ``m! / prod(room!)`` ways, so a dynamic
programme runs over the other ("constrained") cards only, the called card
first, with the roomiest place implicit. ``exact_weights`` reads the called
card's distribution off the tables; ``draw`` places cards one by one with
probability proportional to their completions (exact uniform sampling over
consistent deals, no rejection), then deals the free cards at random.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial, prod

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.infoset import shown_voids
from euchre_env.rules import HAND_SIZE, RulesConfig
from euchre_env.state import State

C = cards.NUM_CARDS
_INV_FACT = np.array([1.0 / factorial(k) for k in range(C + 1)])
_MAX_CELLS = 1 << 22  # float64 entries of counting tables built at once (32 MB)


# --- where the hidden cards may be ----------------------------------------------


@dataclass
class Places:
    """The hidden cards of ``n`` views and the places they may occupy (view frame).

    Places ``L = P + 2``: 0 the hidden kitty, ``1 + r`` the hand of relative
    seat ``r``, ``P + 1`` the dealer's discard.

    Attributes:
        hidden: (n, C) bool, cards the view cannot place.
        allowed: (n, C, L) bool, places each card may occupy.
        caps: (n, L) int64, hidden cards each place holds.
        called: (n,) int64, the called card, -1 none.
    """

    hidden: np.ndarray
    allowed: np.ndarray
    caps: np.ndarray
    called: np.ndarray


def places(s: State, rules: RulesConfig, public: np.ndarray) -> Places:
    """The ``Places`` of decoded views ``s`` (``infoset.public_state``); public rows see no hand."""
    b, p = s.batch_size, rules.num_players
    rows = np.arange(b)
    bit = lambda mask: (mask.astype(np.int64)[..., None] >> np.arange(C)) & 1 == 1
    played = bit(
        np.bitwise_or.reduce(
            np.where(s.trick_cards >= 0, cards.CARD_BIT[np.maximum(s.trick_cards, 0)], 0), axis=(1, 2)
        )
    )
    dealer_taking = s.phase == Phase.DISCARD  # the dealer holds the upcard, in sight of all
    seen = bit(s.hands[:, 0]) | bit(s.kitty) | played
    seen[rows[s.discard >= 0], s.discard[s.discard >= 0]] = True
    seen[rows, s.upcard] |= dealer_taking
    hidden = bit(np.uint32(rules.deck_mask)) & ~seen
    allowed = np.ones((b, C, p + 2), bool)
    eff = cards.EFFECTIVE_SUIT[s.trump].astype(np.int64)  # (B, C)
    allowed[:, :, 1 : p + 1] = (shown_voids(s, rules)[:, None, :] >> eff[:, :, None]) & 1 == 0
    allowed[:, :, 1] &= public[:, None]  # a seat knows its own hand
    called = s.called.astype(np.int64)
    named = np.flatnonzero(called >= 0)
    allowed[named, called[named], 1 + s.maker[named]] = False  # the maker did not hold it
    up = np.flatnonzero(hidden[rows, s.upcard])  # taken by the dealer, not played, out of sight
    keep = allowed[up, s.upcard[up], 1 + s.dealer[up]]
    allowed[up, s.upcard[up], :] = False
    allowed[up, s.upcard[up], 1 + s.dealer[up]] = keep
    allowed[up, s.upcard[up], p + 1] = True
    caps = np.zeros((b, p + 2), np.int64)
    caps[:, 0] = rules.kitty_size - 1
    caps[:, 1 : p + 1] = HAND_SIZE - (s.trick_cards >= 0).sum(axis=1)
    caps[:, 1] *= public
    taken = (s.maker >= 0) & (s.bid_round == 1) & ~dealer_taking
    caps[:, p + 1] = taken & (public | (s.dealer != 0))
    if (caps.sum(axis=1) != hidden.sum(axis=1)).any() or (caps < 0).any():
        raise ValueError("observation is inconsistent: the hidden cards do not fill the hidden places")
    return Places(hidden, allowed, caps, called)


# --- counting ---------------------------------------------------------------------


@dataclass
class Group:
    """Views whose places sort to the same capacities: one set of counting tables.

    ``order`` (g, L) sorts the places by capacity, roomiest first (it is
    implicit: its count is what the others leave); ``cards`` (g, K) are the
    constrained cards, the called card first when it is hidden, -1 padding;
    ``allowed`` (g, K, L) in sorted order (padding: only the implicit place);
    ``tables`` (g, K + 1, S): ``tables[:, i, c]`` weighs completing cards
    ``i ..`` from counts ``c`` (flat over ``dims``, the explicit places' room + 1).
    """

    rows: np.ndarray
    order: np.ndarray
    cards: np.ndarray
    allowed: np.ndarray
    dims: tuple[int, ...]
    tables: np.ndarray


def groups(pl: Places, full: bool) -> list[Group]:
    """Counting tables of every view (``full=False``: layers 0 and 1 only, see ``count``)."""
    n, _L = pl.caps.shape
    rows = np.arange(n)
    room = pl.caps > 0
    is_called = np.zeros_like(pl.hidden)
    is_called[rows[pl.called >= 0], pl.called[pl.called >= 0]] = True
    is_called &= pl.hidden  # counted first only where the view cannot place it
    free = pl.hidden & ~is_called & (pl.allowed | ~room[:, None, :]).all(axis=2)
    constrained = pl.hidden & ~free
    key = np.where(is_called, -1, np.where(constrained, np.arange(C), C))  # called first, then by id
    picked = np.argsort(key, axis=1, kind="stable")
    k_real = constrained.sum(axis=1)
    k = max(int(k_real.max(initial=0)), 1)
    card_ids = np.where(np.arange(k) < k_real[:, None], picked[:, :k], -1)
    order = np.argsort(-pl.caps, axis=1, kind="stable")
    caps = np.take_along_axis(pl.caps, order, axis=1)
    allowed = pl.allowed[rows[:, None], np.maximum(card_ids, 0)]  # (n, K, L)
    allowed = np.take_along_axis(allowed, order[:, None, :], axis=2) & (card_ids >= 0)[:, :, None]
    allowed[:, :, 0] |= card_ids < 0
    out = []
    shapes, which = np.unique(caps[:, 1:] + 1, axis=0, return_inverse=True)
    for g, shape in enumerate(shapes):
        dims = tuple(int(d) for d in shape)
        members = np.flatnonzero(which.reshape(-1) == g)
        members = members[np.argsort(k_real[members], kind="stable")]  # similar numbers of constrained cards
        step = max(1, _MAX_CELLS // ((k + 1 if full else 4) * prod(dims)))
        for at in range(0, members.size, step):
            m = members[at : at + step]
            km = max(int(k_real[m].max()), 1)
            tables = count(allowed[m, :km], caps[m], k_real[m], dims, full)
            out.append(Group(m, order[m], card_ids[m, :km], allowed[m, :km], dims, tables))
    return out


def count(
    allowed: np.ndarray, caps: np.ndarray, k_real: np.ndarray, dims: tuple[int, ...], full: bool
) -> np.ndarray:
    """Completion weights (see ``Group.tables``); the free cards' ``m!`` is left out.

    Args:
        allowed: (g, K, L) bool, places in sorted order; caps: (g, L); k_real: (g,).

    Returns:
        Float64 (g, K + 1, S); with ``full=False`` only layers 0 and 1, (g, 2, S).
    """
    g, k = allowed.shape[:2]
    grid = np.indices(dims).reshape(len(dims), -1)  # (L - 1, S) counts of the explicit places
    left = caps[:, 1:, None] - grid[None]  # (g, L - 1, S) room the free cards fill
    left_implicit = caps[:, :1] - (k_real[:, None] - grid.sum(axis=0))  # (g, S)
    fill = lambda r: np.where(r >= 0, _INV_FACT[np.clip(r, 0, C)], 0.0)
    nxt = fill(left).prod(axis=1) * fill(left_implicit)
    tables = np.zeros((g, k + 1 if full else 2, grid.shape[1]))
    tables[:, min(k, tables.shape[1] - 1)] = nxt
    for i in range(k - 1, -1, -1):
        src = nxt.reshape(g, *dims)
        cur = allowed[:, i, 0].reshape(-1, *[1] * len(dims)) * src
        for j, d in enumerate(dims):
            if d > 1:
                on = allowed[:, i, 1 + j].reshape(-1, *[1] * len(dims))
                head = (slice(None),) * (j + 1)
                cur[(*head, slice(0, -1))] += on * src[(*head, slice(1, None))]
        nxt = cur.reshape(g, -1)
        if full or i <= 1:
            tables[:, i] = nxt
    return tables


def exact_weights(pl: Places, rules: RulesConfig) -> np.ndarray:
    """(n, P + 1) beliefs of views whose called card is hidden: the weight of each place for card 0."""
    n, L = pl.caps.shape
    p = rules.num_players
    weight = np.zeros((n, L))
    for grp in groups(pl, full=False):
        strides = np.array([prod(grp.dims[j + 1 :]) for j in range(len(grp.dims))])
        first = grp.tables[:, 1]  # (g, S): the called card placed
        w = np.zeros((grp.rows.size, L))
        w[:, 0] = first[:, 0]
        for j, d in enumerate(grp.dims):
            if d > 1:
                w[:, 1 + j] = first[:, strides[j]]
        weight[grp.rows] = _unsort(w * grp.allowed[:, 0], grp.order)
    total = weight.sum(axis=1, keepdims=True)
    if (total <= 0).any():
        raise ValueError("observation is inconsistent: no deal of the hidden cards matches it")
    weight /= total
    return np.concatenate([weight[:, 1 : p + 1], weight[:, :1] + weight[:, p + 1 :]], axis=1)


def _unsort(x: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Values ``x`` (g, L) given in ``order`` back in place order."""
    out = np.empty_like(x)
    np.put_along_axis(out, order, x, axis=1)
    return out


def draw(grp: Group, pl: Places, owner: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Places of every card in worlds of one group's views. Int64 (W, C), -1 for cards not hidden."""
    if (grp.tables[:, 0, 0] <= 0).any():
        raise ValueError("observation is inconsistent: no deal of the hidden cards matches it")
    w, k = owner.size, grp.cards.shape[1]
    L = grp.order.shape[1]
    strides = np.array([prod(grp.dims[j + 1 :]) for j in range(len(grp.dims))])
    shift = np.concatenate([[0], strides])  # (L,) flat step of each sorted place
    caps = np.take_along_axis(pl.caps[grp.rows], grp.order, axis=1)[owner]  # (W, L) sorted
    used = np.zeros((w, L), np.int64)
    flat = np.zeros(w, np.int64)
    u = rng.random((w, k))
    where = np.full((w, C), -1, np.int64)
    for i in range(k):
        ok = grp.allowed[owner, i] & (used < caps)
        ok[:, 0] = grp.allowed[owner, i, 0]  # the implicit place: the tables say if it has room
        idx = np.where(ok, flat[:, None] + shift, 0)
        weight = np.where(ok, grp.tables[owner[:, None], i + 1, idx], 0.0)
        cum = np.cumsum(weight, axis=1)
        pos = np.argmax(cum > u[:, i, None] * cum[:, -1:], axis=1)
        flat += shift[pos]
        real = grp.cards[owner, i] >= 0
        used[np.flatnonzero(real), pos[real]] += 1
        where[np.flatnonzero(real), grp.cards[owner[real], i]] = grp.order[owner[real], pos[real]]
    placed = _unsort(used, grp.order[owner])  # (W, L) constrained cards per place
    room = pl.caps[grp.rows][owner] - placed
    free = pl.hidden[grp.rows][owner] & (where < 0)  # (W, C)
    # Free cards, shuffled, fill the remaining room place by place.
    slot_place = (np.arange(C)[None, :, None] >= np.cumsum(room, axis=1)[:, None, :]).sum(axis=2)  # (W, C)
    keys = np.where(free, rng.random(free.shape), np.inf)
    shuffled = np.argsort(keys, axis=1)  # free cards first, in random order
    n_free = free.sum(axis=1)
    rows, slot = np.nonzero(np.arange(C)[None, :] < n_free[:, None])
    where[rows, shuffled[rows, slot]] = slot_place[rows, slot]
    return where

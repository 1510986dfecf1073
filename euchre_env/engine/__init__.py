"""The vectorised rules engine: pure functions over a batched ``State``.

``B`` tables advance in one call; no Python loop runs over the batch.

* ``init_state(rules, batch_size, rng=..., seeds=..., deals=...)``: new games;
  ``reset_rows(state, rows, seeds, rules)`` starts new games at some rows in place.
* ``legal_action_mask(state, rules)``: bool ``(B, A)``; ``legal_bits`` is the
  compact form (see :mod:`euchre_env.engine.masks` for the mask semantics).
* ``current_player(state)``: seat to act ``(B,)``, -1 once a table is done.
* ``step(state, actions, rules)``: a new state after one action per table;
  ``step_rows(state, rows, actions, rules)`` moves just some tables, in place.
  Rows that are done are inert: their action is ignored (pass anything, e.g. -1).
* ``play_out_random(state, rows, counters, rules)``: finish hands with random
  legal cards drawn from counter-based streams (fast rollouts).
* ``hand_over`` / ``last_points``: the step that ends a hand sets
  ``state.hand_over[row]`` and records the hand in ``state.last_*``;
  ``rewards`` turns that into per-seat rewards.

An episode is one hand (``rules.episode == "hand"``) or a whole game, in which
the engine deals on by itself (dealer rotation, thrown-in hands, game end).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from euchre_env import actions, cards
from euchre_env.actions import NUM_ACTIONS, Phase
from euchre_env.engine import bidding, deal, play
from euchre_env.engine.masks import (
    compute_legal_bits,
    expand,
    is_legal,
    legal_action_mask,
    legal_bits,
    refresh,
    sample_bits,
    sample_legal,
)
from euchre_env.engine.play import play_out_random
from euchre_env.rules import NUM_TRICKS, RulesConfig
from euchre_env.state import State

__all__ = [
    "IllegalActionError",
    "compute_legal_bits",
    "current_player",
    "expand",
    "init_state",
    "is_done",
    "is_legal",
    "legal_action_mask",
    "legal_bits",
    "play_out_random",
    "points_to_rewards",
    "reset_rows",
    "rewards",
    "sample_bits",
    "sample_legal",
    "step",
    "step_rows",
]

Deals = Sequence[Mapping[str, Any] | None] | Mapping[int, Mapping[str, Any]]


class IllegalActionError(ValueError):
    """An action that is not legal at its table (names the action, phase and legal actions)."""


def init_state(
    rules: RulesConfig,
    batch_size: int | None = None,
    *,
    rng: np.random.Generator | None = None,
    seeds: Sequence[int] | np.ndarray | None = None,
    deals: Deals | None = None,
) -> State:
    """Start ``B`` new games (or single hands, by ``rules.episode``).

    Args:
        rules: the game's rules.
        batch_size: number of tables ``B``; may be omitted when ``seeds`` or
            ``deals`` (a sequence) give it.
        rng: draws one seed per table when ``seeds`` is not given.
        seeds: one non-negative integer per table. A table's deals are a pure
            function of its seed, so a batch with seeds ``s`` plays exactly as
            separate tables with those seeds would.
        deals: given deals (card names, see ``deal.deal_order``): a sequence of
            ``B`` entries (a deal or None) or a mapping ``{row: deal}``. Later
            hands of a game are dealt from the seed.

    Raises:
        ValueError: for a bad argument or a malformed deal, saying which.
    """
    if not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig, got {type(rules).__name__}")
    if deals is not None and not isinstance(deals, Mapping) and batch_size is None:
        batch_size = len(deals)
    if seeds is not None:
        seed_arr = _check_seeds(seeds, batch_size)
        batch_size = seed_arr.size
    elif batch_size is None:
        raise ValueError("init_state needs batch_size (or seeds, or a list of deals)")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if seeds is None:
        gen = rng if rng is not None else np.random.default_rng()
        if not isinstance(gen, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        seed_arr = gen.integers(0, 2**63, size=batch_size, dtype=np.uint64)
    s = deal.empty_state(int(batch_size), rules)
    s.seed[:] = seed_arr
    s.dealer[:] = deal.first_dealer(s.seed, rules)
    rows = np.arange(s.batch_size)
    orders = deal.shuffled_decks(s.seed, s.hand_no, rules)
    for row, given in _given_deals(deals, s.batch_size):
        dealer, order, scores = deal.deal_order(given, rules)
        s.dealer[row] = dealer
        orders[row] = order
        if scores is not None:
            s.scores[row] = scores
    deal.start_hand(s, rows, orders, rules)
    refresh(s, rules)
    return s


def reset_rows(s: State, rows: np.ndarray, seeds: np.ndarray, rules: RulesConfig) -> None:
    """Start new games (or hands) at ``rows`` of ``s``, in place, dealt from ``seeds``.

    Afterwards ``s.take(rows) == init_state(rules, seeds=seeds)``; other rows
    are untouched. Cheaper than building a state and ``put``-ting it.

    Args:
        s: the state, ``B`` tables.
        rows: int array (n,) of distinct row indices.
        seeds: (n,) uint64 table seeds.
    """
    rows = np.asarray(rows)
    seeds = np.asarray(seeds)
    if rows.ndim != 1 or rows.dtype.kind not in "iu" or seeds.shape != rows.shape or seeds.dtype != np.uint64:
        raise ValueError(
            f"reset_rows needs rows (n,) ints and seeds (n,) uint64, got {rows.dtype} {rows.shape} and "
            f"{seeds.dtype} {seeds.shape}"
        )
    _check_fits(s, rules)
    _check_rows(s, rows, "reset_rows")
    deal.start_games(s, rows, seeds, rules)  # legal sets included


def _check_seeds(seeds: Sequence[int] | np.ndarray, batch_size: int | None) -> np.ndarray:
    arr = seeds if isinstance(seeds, np.ndarray) else np.array(list(seeds), dtype=object)
    if arr.ndim != 1 or arr.size == 0 or not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == object):
        raise ValueError(f"seeds must be a 1-D sequence of non-negative integers, got {seeds!r}")
    if arr.dtype == object:  # Python ints (any size): check each
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in arr.tolist()):
            raise ValueError(f"seeds must be non-negative integers, got {seeds!r}")
        values = [int(v) for v in arr.tolist()]
        if any(v < 0 or v >= 2**64 for v in values):
            raise ValueError(f"seeds must be non-negative integers below 2**64, got {seeds!r}")
        arr = np.array(values, dtype=np.uint64)
    elif arr.dtype.kind == "i" and (arr < 0).any():
        raise ValueError(f"seeds must be non-negative integers, got {seeds!r}")
    if batch_size is not None and arr.size != batch_size:
        raise ValueError(f"seeds has {arr.size} entries but batch_size is {batch_size}")
    return arr.astype(np.uint64)


def _given_deals(deals: Deals | None, b: int) -> list[tuple[int, Mapping[str, Any]]]:
    if deals is None:
        return []
    if isinstance(deals, Mapping):
        if {"hands", "dealer"} & set(deals):
            raise ValueError("deals must be a list of deals or a {row: deal} mapping, not a single deal")
        items = list(deals.items())
    elif isinstance(deals, Sequence) and not isinstance(deals, str):
        if len(deals) != b:
            raise ValueError(f"deals has {len(deals)} entries but there are {b} tables")
        items = [(i, d) for i, d in enumerate(deals) if d is not None]
    else:
        raise ValueError(
            f"deals must be a list of deals or a {{row: deal}} mapping, got {type(deals).__name__}"
        )
    for row, _ in items:
        if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < b:
            raise ValueError(f"deals: row {row!r} is not a table index in 0..{b - 1}")
    return items


def current_player(s: State) -> np.ndarray:
    """Seat to act at each table, -1 once it is done. Int8 array of shape (B,)."""
    return s.turn


def is_done(s: State) -> np.ndarray:
    """Whether each table's episode is over. Bool array of shape (B,)."""
    return s.phase == Phase.DONE


_HANDLERS = (  # one transition function per phase, as plain ints for speed
    (int(Phase.BID_UPCARD), bidding.apply_bid_upcard),
    (int(Phase.DISCARD), bidding.apply_discard),
    (int(Phase.BID_SUIT), bidding.apply_bid_suit),
    (int(Phase.CALL), bidding.apply_call),
    (int(Phase.DECLARE), bidding.apply_declare),
    (int(Phase.DEFEND), bidding.apply_defend),
    (int(Phase.PLAY), play.apply_play),
)
_DONE = int(Phase.DONE)


def step(
    s: State,
    action: np.ndarray | Sequence[int],
    rules: RulesConfig,
    active: np.ndarray | None = None,
    *,
    inplace: bool = False,
) -> State:
    """Apply one action per table and return the new state (``s`` is not changed unless ``inplace``).

    Args:
        s: the state, ``B`` tables.
        action: int array (B,): an action id for each live table; ignored for
            done tables.
        rules: the game's rules.
        active: optional bool array (B,): only these tables move; the others
            keep their state exactly (their action is ignored).
        inplace: update ``s`` itself and return it (saves copying every
            array; the errors below are raised before anything changes).

    Raises:
        ValueError: ``action`` or ``active`` has the wrong shape or type, or a
            table that would move has its phase, seat to act, dealer or trick
            number out of range (a corrupt state; ``State.from_json`` and
            ``validation.validate_state`` check everything).
        IllegalActionError: an action is not legal at its table.
    """
    _check_fits(s, rules)
    a = _check_actions(s, action)
    live = s.phase != _DONE
    if active is not None:
        active = np.asarray(active)
        if active.shape != (s.batch_size,) or active.dtype != np.bool_:
            raise ValueError(
                f"active must be a bool array of shape ({s.batch_size},), got {active.dtype} {active.shape}"
            )
        live &= active
    _check_indices(s, None, live, rules.num_players)
    bad = live > is_legal(a, s.mask_base, s.mask_bits)
    if bad.any():
        raise _illegal(s, a, s.mask_base.astype(np.int64), s.mask_bits, int(np.flatnonzero(bad)[0]))
    new = s if inplace else s.copy()
    if active is None:
        new.hand_over[:] = False
    else:
        new.hand_over[active] = False
    rows = np.flatnonzero(live)
    _dispatch(new, rows, a[rows], s.phase[rows], rules)  # phases gathered before the handlers change them
    refresh(new, rules)
    return new


def step_rows(
    s: State, rows: np.ndarray, action: np.ndarray, rules: RulesConfig, *, check: bool = True
) -> None:
    """Apply ``action[i]`` at table ``rows[i]``, in place; every other table keeps its state.

    ``step(s, a, rules, active=mask, inplace=True)`` for the tables ``rows``,
    at a cost that grows with ``len(rows)`` rather than with the batch.

    Args:
        s: the state, ``B`` tables.
        rows: (n,) int64 distinct row indices of live tables.
        action: (n,) int64 action ids.
        check: validate the arguments and every action's legality. Only a
            caller whose actions come from the legal sets themselves (such as
            ``sample_bits`` on ``mask_base``/``mask_bits``) may pass False;
            an illegal action would then corrupt the state.

    Raises:
        ValueError: ``rows``/``action`` have the wrong shape or dtype, a row is
            done, or a table's indices are out of range (as ``step``).
        IllegalActionError: an action is not legal at its table (nothing has changed).
    """
    if check:
        _check_fits(s, rules)
        _check_step_rows(s, rows, action)
        _check_indices(s, rows, None, rules.num_players)
    if not rows.size:
        return
    s.hand_over[rows] = False
    _dispatch(s, rows, action, s.phase[rows], rules)
    refresh(s, rules, rows)


def _check_step_rows(s: State, rows: np.ndarray, action: np.ndarray) -> None:
    if not (
        isinstance(rows, np.ndarray)
        and isinstance(action, np.ndarray)
        and rows.ndim == 1
        and rows.dtype == np.int64
        and action.shape == rows.shape
        and action.dtype == np.int64
    ):
        raise ValueError(
            "step_rows needs rows and action as (n,) int64 arrays, got "
            f"{getattr(rows, 'dtype', type(rows).__name__)} {np.shape(rows)} and "
            f"{getattr(action, 'dtype', type(action).__name__)} {np.shape(action)}"
        )
    _check_rows(s, rows, "step_rows")
    bad = ~is_legal(action, s.mask_base[rows], s.mask_bits[rows])
    if bad.any():
        row = int(rows[np.flatnonzero(bad)[0]])
        if s.phase[row] == _DONE:
            raise ValueError(f"step_rows: table {row} is done")
        full = np.zeros(s.batch_size, np.int64)
        full[rows] = action
        raise _illegal(s, full, s.mask_base.astype(np.int64), s.mask_bits, row)


def _check_fits(s: State, rules: RulesConfig) -> None:
    """The state must be of ``rules``' game (as many seats per table)."""
    if not isinstance(s, State):
        raise ValueError(f"expected a State, got {type(s).__name__}")
    if not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig, got {type(rules).__name__}")
    if s.hands.ndim != 2 or s.hands.shape[1] != rules.num_players:
        raise ValueError(
            f"the state has {s.hands.shape[1] if s.hands.ndim == 2 else '?'} seats per table but {rules.variant} has "
            f"{rules.num_players}: a state of another game's rules"
        )


_SMALL_BATCH = 16  # up to this many tables, _check_indices loops in Python (cheaper than numpy calls)
_INT8 = np.dtype(np.int8)


def _check_indices(s: State, rows: np.ndarray | None, moving: np.ndarray | None, p: int) -> None:
    """The tables about to move have a live phase and their seat to act, dealer and trick in range.

    The phase handlers index flat arrays (``row * P + seat``, ``row * T + trick``), so an
    out-of-range value at one table would read or write another table's cards. The engine
    keeps these in range itself; this cheap check (a few operations per step) stops a state
    changed by hand before anything moves. ``rows``: (n,) the tables to check, None for all;
    ``moving``: None, or (B,) bool with ``rows`` None: only these tables move.
    """
    phase, turn, dealer, trick_no = s.phase, s.turn, s.dealer, s.trick_no
    if rows is not None:
        phase, turn, dealer, trick_no = phase[rows], turn[rows], dealer[rows], trick_no[rows]
    if not phase.dtype == turn.dtype == dealer.dtype == trick_no.dtype == _INT8:
        raise ValueError(
            "the state's phase, turn, dealer and trick_no must be int8 arrays, got "
            f"{[str(a.dtype) for a in (phase, turn, dealer, trick_no)]}: a corrupt state"
        )
    first = -1
    if phase.shape[0] <= _SMALL_BATCH:
        flags = None if moving is None else moving.tolist()
        values = zip(phase.tolist(), turn.tolist(), dealer.tolist(), trick_no.tolist(), strict=True)
        for i, (ph, t, d, k) in enumerate(values):
            if not (0 <= ph < _DONE and 0 <= t < p and 0 <= d < p and 0 <= k < NUM_TRICKS) and (
                flags is None or flags[i]
            ):
                first = i
                break
    else:
        u8 = np.uint8  # a negative value viewed as uint8 is 128 or more: one comparison per bound
        out = np.maximum(turn.view(u8), dealer.view(u8)) >= p
        out |= trick_no.view(u8) >= NUM_TRICKS
        out |= phase.view(u8) >= _DONE
        if moving is not None:
            out &= moving
        if np.count_nonzero(out):
            first = int(np.argmax(out))
    if first >= 0:
        table = first if rows is None else int(rows[first])
        raise ValueError(
            f"table {table} is corrupt: phase {phase[first]}, turn {turn[first]}, dealer {dealer[first]}, "
            f"trick_no {trick_no[first]}; a live table needs a phase below {_DONE}, seats in 0..{p - 1} "
            f"and a trick in 0..{NUM_TRICKS - 1} (validation.validate_state checks a whole state; "
            "State.from_json does)"
        )


def _check_rows(s: State, rows: np.ndarray, who: str) -> None:
    """Row indices must be in ``0..B-1`` and distinct (a repeated row would be moved or dealt once, silently)."""
    if rows.size and (rows.min() < 0 or rows.max() >= s.batch_size):
        raise ValueError(
            f"{who}: row indices must be in 0..{s.batch_size - 1}, got {rows.min()}..{rows.max()}"
        )
    if rows.size > 1 and np.unique(rows).size != rows.size:
        u, counts = np.unique(rows, return_counts=True)
        raise ValueError(f"{who}: rows must be distinct, row {int(u[counts > 1][0])} is given more than once")


def _dispatch(s: State, rows: np.ndarray, a: np.ndarray, phase_of: np.ndarray, rules: RulesConfig) -> None:
    """Each phase's transition on its tables among ``rows`` (live), in place; ``a``, ``phase_of``: (n,).

    A hand thrown in (nobody made trump) ends unscored.
    """
    present = np.bincount(phase_of, minlength=len(Phase)).tolist()
    for phase, handler in _HANDLERS:
        n = present[phase]
        if not n:
            continue
        if n == rows.size:  # one phase: no split
            thrown = handler(s, rows, a, rules)
        else:
            mine = phase_of == phase
            thrown = handler(s, rows[mine], a[mine], rules)
        if thrown and thrown[0].size:
            play.end_hand(s, thrown[0], rules, thrown_in=True)


def _check_actions(s: State, action: np.ndarray | Sequence[int]) -> np.ndarray:
    if type(action) is np.ndarray and action.dtype == np.int64 and action.shape == (s.batch_size,):
        return action  # the common case; step never writes to it
    a = np.asarray(action)
    if a.shape != (s.batch_size,):
        if a.ndim == 0 and s.batch_size == 1:
            a = a.reshape(1)
        else:
            raise ValueError(f"actions must have shape ({s.batch_size},), one per table; got shape {a.shape}")
    if not np.issubdtype(a.dtype, np.integer):
        if a.dtype.kind == "f" and np.all((a == np.round(a)) & (np.abs(a) < 2**62)):  # whole, finite
            a = a.astype(np.int64)
        else:
            raise ValueError(f"actions must be integer action ids, got dtype {a.dtype}: {action!r}")
    return a.astype(np.int64)


def _illegal(s: State, a: np.ndarray, base: np.ndarray, bits: np.ndarray, row: int) -> IllegalActionError:
    legal = [int(base[row]) + k for k in range(64) if int(bits[row]) >> k & 1]
    what = actions.describe(a[row]) if 0 <= a[row] < NUM_ACTIONS else "not an action id"
    names = ", ".join(f"{x} ({actions.describe(x)})" for x in legal)
    return IllegalActionError(
        f"illegal action {int(a[row])} ({what}) at table {row}: phase {Phase(s.phase[row]).name}, "
        f"seat {int(s.turn[row])} to act; legal actions: {names}"
    )


def rewards(s: State, rules: RulesConfig, zero_sum: bool = False) -> np.ndarray:
    """Per-seat rewards of the hand that just ended, zero elsewhere (rules.md#c21).

    Default: the points each seat scored. ``zero_sum=True``: four-handed, own
    side's points minus the other side's; five-handed, points minus the mean.

    Returns:
        Float32 array of shape (B, P).
    """
    return points_to_rewards(np.where(s.hand_over[:, None], s.last_points, 0), rules, zero_sum)


def points_to_rewards(points: np.ndarray, rules: RulesConfig, zero_sum: bool = False) -> np.ndarray:
    """Rewards from hand points ``(B, P)`` (see ``rewards``). Returns float32 ``(B, P)``."""
    pts = np.asarray(points, dtype=np.float32)
    if not zero_sum:
        return pts
    if rules.called_card:
        return pts - pts.mean(axis=1, keepdims=True)
    return pts - np.roll(pts, -1, axis=1)


def card_names(mask: int) -> list[str]:
    """Names of the cards in a bitmask (for people and tests)."""
    return [cards.name(c) for c in cards.cards_of(mask)]

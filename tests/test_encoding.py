"""Observation encoding: layout sizes and bounds, seat rotation, and no hidden-information leaks."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from euchre_env import cards
from euchre_env.encoding import encode, obs_layout
from euchre_env.engine import init_state, is_done, sample_legal, step
from euchre_env.infoset import seat_frame
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State

LEAK_PRESETS = ["four_handed", "four_handed_defend_alone", "five_handed"]
U32 = np.uint32


@pytest.fixture(params=["four_handed", "five_handed"])
def variant(request: pytest.FixtureRequest) -> str:
    """Each game in turn (local, so this file does not depend on conftest.py)."""
    return str(request.param)


def _positions(rules: RulesConfig, seed: int, tables: int = 48) -> State:
    """Random positions from every stage of random hands: one snapshot of the batch per step."""
    rng = np.random.default_rng(seed)
    s = init_state(rules, tables, rng=rng)
    snaps = [s]
    while not is_done(s).all():
        s = step(s, sample_legal(s, rules, rng), rules)
        snaps.append(s)
    return State.concatenate(snaps)


@pytest.fixture(scope="module", params=LEAK_PRESETS)
def positions(request: pytest.FixtureRequest) -> tuple[RulesConfig, State]:
    """Rules and a batch of random positions (all phases, including finished hands)."""
    rules = PRESETS[str(request.param)]
    return rules, _positions(rules, seed=len(str(request.param)))


def _low_bit(x: np.ndarray) -> np.ndarray:
    """Lowest set bit of each uint32 (0 where none)."""
    x = x.astype(U32)
    return x & (~x + U32(1))


def _other_seats(b: int, p: int, viewer: int, rng: np.random.Generator, k: int) -> list[np.ndarray]:
    """``k`` distinct random seats per row, none of them ``viewer``. List of k arrays (B,)."""
    others = np.array([x for x in range(p) if x != viewer])
    picks = np.argsort(rng.random((b, others.size)), axis=1)[:, :k]
    return [others[picks[:, i]] for i in range(k)]


# --- changes of what the viewer cannot see -----------------------------------


def _swap_other_hands(s: State, v: int, rng: np.random.Generator) -> State:
    new, rows = s.copy(), np.arange(s.batch_size)
    a, b = _other_seats(s.batch_size, s.num_players, v, rng, 2)
    new.hands[rows, a], new.hands[rows, b] = s.hands[rows, b], s.hands[rows, a]
    return new


def _swap_hand_and_kitty(s: State, v: int, rng: np.random.Generator) -> State:
    new, rows = s.copy(), np.arange(s.batch_size)
    (a,) = _other_seats(s.batch_size, s.num_players, v, rng, 1)
    hidden = s.kitty & ~cards.CARD_BIT[s.upcard]
    from_hand, from_kitty = _low_bit(s.hands[rows, a]), _low_bit(hidden)
    ok = (from_hand != 0) & (from_kitty != 0)
    new.hands[rows, a] = np.where(ok, s.hands[rows, a] ^ from_hand ^ from_kitty, s.hands[rows, a])
    new.kitty = np.where(ok, s.kitty ^ from_hand ^ from_kitty, s.kitty).astype(U32)
    return new


def _change_others_discard(s: State, v: int, rng: np.random.Generator) -> State:
    new = s.copy()
    hidden = (s.discard >= 0) & (s.dealer != v)
    new.discard = np.where(
        hidden, (s.discard + 1 + rng.integers(0, 26, s.batch_size)) % 28, s.discard
    ).astype(np.int8)
    return new


def _change_hidden_partner(s: State, v: int, rng: np.random.Generator) -> State:
    new = s.copy()
    (a,) = _other_seats(s.batch_size, s.num_players, v, rng, 1)
    hidden = (s.called >= 0) & (s.revealed < 0) & (s.partner != v)
    new.partner = np.where(hidden, np.where(rng.random(s.batch_size) < 0.2, -1, a), s.partner).astype(np.int8)
    return new


def _change_seed_and_cached_mask(s: State, v: int, rng: np.random.Generator) -> State:
    new = s.copy()
    new.seed = rng.integers(0, 2**63, s.batch_size, dtype=np.uint64)
    new.mask_bits = rng.integers(0, 2**63, s.batch_size, dtype=np.uint64)
    return new


def _hidden_all(s: State, v: int, rng: np.random.Generator) -> State:
    for fn in (_swap_other_hands, _swap_hand_and_kitty, _change_others_discard, _change_hidden_partner):
        s = fn(s, v, rng)
    return _change_seed_and_cached_mask(s, v, rng)


HIDDEN_CHANGES: dict[str, Callable[[State, int, np.random.Generator], State]] = {
    "other hands": _swap_other_hands,
    "hidden kitty": _swap_hand_and_kitty,
    "other's discard": _change_others_discard,
    "seed and the acting seat's legal set": _change_seed_and_cached_mask,
    "all of them at once": _hidden_all,
}


@pytest.mark.parametrize("change", list(HIDDEN_CHANGES))
def test_hidden_changes_leave_observation_equal(positions: tuple[RulesConfig, State], change: str) -> None:
    """Changing what a seat cannot see never changes that seat's observation."""
    rules, s = positions
    rng = np.random.default_rng(1)
    for v in range(rules.num_players):
        changed = HIDDEN_CHANGES[change](s, v, rng)
        assert changed != s, f"[seat {v}] the {change} change changed nothing: the test is vacuous"
        before, after = encode(s, v, rules), encode(changed, v, rules)
        bad = np.flatnonzero((before != after).any(axis=1))
        assert bad.size == 0, f"[seat {v}] changing {change} changed the observation of rows {bad[:10]}"


def test_hidden_partner_change_leaves_observation_equal() -> None:
    """Five-handed: who holds an unplayed called card is invisible to every other seat."""
    rules = PRESETS["five_handed"]
    s = _positions(rules, seed=11)
    rng = np.random.default_rng(3)
    for v in range(rules.num_players):
        changed = _change_hidden_partner(s, v, rng)
        assert changed != s, f"[seat {v}] no hidden partnership to change: the test is vacuous"
        bad = np.flatnonzero((encode(s, v, rules) != encode(changed, v, rules)).any(axis=1))
        assert bad.size == 0, (
            f"[seat {v}] moving the hidden partner changed the observation of rows {bad[:10]}"
        )


# --- changes of what the viewer can see --------------------------------------


def _visible_own_hand(s: State, v: int, rng: np.random.Generator) -> tuple[State, np.ndarray]:
    new, rows = s.copy(), np.arange(s.batch_size)
    (a,) = _other_seats(s.batch_size, s.num_players, v, rng, 1)
    mine, theirs = _low_bit(s.hands[:, v]), _low_bit(s.hands[rows, a])
    ok = (mine != 0) & (theirs != 0)
    new.hands[:, v] = np.where(ok, s.hands[:, v] ^ mine ^ theirs, s.hands[:, v])
    new.hands[rows, a] = np.where(ok, s.hands[rows, a] ^ mine ^ theirs, s.hands[rows, a])
    return new, ok


def _visible_played_card(s: State, v: int, rng: np.random.Generator) -> tuple[State, np.ndarray]:
    """Replace one played card by an unplayed one, in trick_cards and the engine's played sets."""
    new = s.copy()
    ok = (s.trick_cards >= 0).any(axis=(1, 2))
    for row in np.flatnonzero(ok):
        t, seat = np.argwhere(s.trick_cards[row] >= 0)[0]
        old = int(s.trick_cards[row, t, seat])
        gone = int(np.bitwise_or.reduce(s.trick_bits[row]))
        unplayed = [c for c in range(cards.NUM_CARDS) if not gone >> c & 1]
        fresh = int(rng.choice(unplayed))
        new.trick_cards[row, t, seat] = fresh
        swap = U32(cards.CARD_BIT[old] | cards.CARD_BIT[fresh])
        new.played_by[row, seat] ^= swap
        new.trick_bits[row, t] ^= swap
    return new, ok


def _visible_trump(s: State, v: int, rng: np.random.Generator) -> tuple[State, np.ndarray]:
    new = s.copy()
    ok = s.trump < cards.NUM_SUITS
    new.trump = np.where(ok, (s.trump + 1) % cards.NUM_SUITS, s.trump).astype(np.int8)
    return new, ok


def _visible_own_discard(s: State, v: int, rng: np.random.Generator) -> tuple[State, np.ndarray]:
    new = s.copy()
    ok = (s.discard >= 0) & (s.dealer == v)
    new.discard = np.where(ok, (s.discard + 1) % cards.NUM_CARDS, s.discard).astype(np.int8)
    return new, ok


VISIBLE_CHANGES = {
    "own hand": _visible_own_hand,
    "a played card": _visible_played_card,
    "trump": _visible_trump,
    "own discard": _visible_own_discard,
}


@pytest.mark.parametrize("change", list(VISIBLE_CHANGES))
def test_visible_changes_change_observation(positions: tuple[RulesConfig, State], change: str) -> None:
    """Changing what a seat can see changes that seat's observation (on every affected row)."""
    rules, s = positions
    rng = np.random.default_rng(2)
    affected = 0
    for v in range(rules.num_players):
        changed, ok = VISIBLE_CHANGES[change](s, v, rng)
        same = (encode(s, v, rules) == encode(changed, v, rules)).all(axis=1)
        bad = np.flatnonzero(ok & same)
        assert bad.size == 0, f"[seat {v}] changing {change} left the observation of rows {bad[:10]} equal"
        affected += int(ok.sum())
    assert affected > 0, f"no position had {change} to change"


def test_revealed_partner_is_visible() -> None:
    """Five-handed: once the called card is played, the partner's seat is part of every observation."""
    rules = PRESETS["five_handed"]
    s = _positions(rules, seed=9)
    rows = (s.revealed >= 0) & (s.partner >= 0)
    assert rows.any(), "no revealed partnership among the positions"
    moved = s.copy()
    moved.partner = np.where(rows, (s.partner + 1) % rules.num_players, s.partner).astype(np.int8)
    for v in range(rules.num_players):
        same = (encode(s, v, rules) == encode(moved, v, rules)).all(axis=1)
        assert not (same & rows).any(), f"[seat {v}] the revealed partner is not in the observation"


def test_holder_knows_it_holds_the_called_card() -> None:
    """Five-handed: the holder of an unrevealed called card sees that; others' views ignore who."""
    rules = PRESETS["five_handed"]
    s = _positions(rules, seed=10)
    rows = (s.called >= 0) & (s.partner >= 0) & (s.revealed < 0)
    assert rows.any(), "no hidden partnership among the positions"
    lay = obs_layout(rules)
    obs = encode(s, s.partner.clip(0), rules)
    assert (obs[rows, lay.slice("i_hold_called")] == 1).all(), (
        "the holder does not see that it holds the card"
    )


# --- layout, shapes, rotation ------------------------------------------------


@pytest.mark.parametrize("points_to_win", [1, 10, 37])
def test_layout_pieces_tile_the_vector(variant: str, points_to_win: int) -> None:
    """Pieces are contiguous, in order, inside 0..size, and their sizes add up to size."""
    lay = obs_layout(make_rules(variant, points_to_win=points_to_win))
    at = 0
    for name, n, _ in lay.pieces:
        sl = lay.slice(name)
        assert (sl.start, sl.stop) == (at, at + n), f"piece {name} is not at {at}..{at + n}"
        assert 0 <= sl.start < sl.stop <= lay.size, f"piece {name} out of bounds"
        at += n
    assert at == lay.size, "pieces do not add up to the layout size"
    assert len({name for name, _, _ in lay.pieces}) == len(lay.pieces), "duplicate piece names"


def test_encode_shape_dtype_and_values(positions: tuple[RulesConfig, State]) -> None:
    """encode returns (B, layout size) 0/1 values in the requested dtype."""
    rules, s = positions
    obs = encode(s, 0, rules)
    assert obs.shape == (s.batch_size, obs_layout(rules).size), f"shape {obs.shape}"
    assert obs.dtype == np.float32, f"default dtype {obs.dtype}"
    assert np.isin(obs, (0, 1)).all(), "values other than 0 and 1"
    as_u8 = encode(s, 0, rules, np.uint8)
    assert as_u8.dtype == np.uint8 and np.array_equal(as_u8, obs), "dtype changes the values"


def test_seat_rotation(positions: tuple[RulesConfig, State]) -> None:
    """Seat s's observation of a table equals seat 0's of the table rotated by s seats."""
    rules, s = positions
    p = rules.num_players
    for k in range(1, p):
        rotated = seat_frame(s, np.full(s.batch_size, k))  # new seat i is old seat (i + k) % p
        for v in range(p):
            mine, theirs = encode(s, v, rules), encode(rotated, (v - k) % p, rules)
            bad = np.flatnonzero((mine != theirs).any(axis=1))
            assert bad.size == 0, f"[rotate {k}, seat {v}] observations differ on rows {bad[:10]}"


def test_viewer_array_matches_single_seats(positions: tuple[RulesConfig, State]) -> None:
    """A per-row viewer array gives each row the observation of that row's seat."""
    rules, s = positions
    viewers = np.arange(s.batch_size) % rules.num_players
    mixed = encode(s, viewers, rules)
    for v in range(rules.num_players):
        rows = viewers == v
        assert np.array_equal(mixed[rows], encode(s, v, rules)[rows]), f"seat {v} rows differ"

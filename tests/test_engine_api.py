"""Engine API details: stepping a subset of tables, seeds, state size."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env import engine as E
from euchre_env.rules import PRESETS


@pytest.mark.parametrize("name", ["five_handed", "four_handed"])
def test_step_active_moves_only_active_tables(name: str) -> None:
    """engine.step(active=...) leaves the other tables exactly as they were, and moves the rest as a full step."""
    rules = PRESETS[name]
    rng = np.random.default_rng(3)
    s = E.init_state(rules, 256, rng=rng)
    for t in range(40):
        acts = E.sample_legal(s, rules, rng)
        active = rng.random(256) < 0.5
        new = E.step(s, acts, rules, active=active)
        full = E.step(s, acts, rules)
        held, moved = np.flatnonzero(~active), np.flatnonzero(active)
        assert new.take(held) == s.take(held), f"[{t}] an inactive table changed"
        assert new.take(moved) == full.take(moved), f"[{t}] active tables differ from a full step"
        s = new


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_step_inplace_equals_step(name: str) -> None:
    """engine.step(inplace=True) updates the state itself to exactly what step() returns, with and
    without ``active``, over whole games; an illegal action changes nothing."""
    from euchre_env.rules import make_rules

    rules = make_rules(name, episode="game", points_to_win=5)
    rng = np.random.default_rng(4)
    s = E.init_state(rules, 300, rng=rng)
    mine = s.copy()
    while not E.is_done(s).all():
        acts = E.sample_legal(s, rules, rng)
        active = rng.random(300) < 0.7 if rng.random() < 0.5 else None
        s = E.step(s, acts, rules, active=active)
        out = E.step(mine, acts, rules, active=active, inplace=True)
        assert out is mine and mine == s, "in-place step differs from step"
    live = E.init_state(rules, 2, rng=rng)
    before = live.copy()
    with pytest.raises(E.IllegalActionError):
        E.step(live, np.array([0, 0]), rules, inplace=True)
    assert live == before, "an illegal in-place step changed the state"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_step_rows_equals_step_with_active(name: str) -> None:
    """engine.step_rows(rows) moves exactly those tables as step(active=mask) does, over whole games;
    a done row or an illegal action raises and changes nothing."""
    from euchre_env.rules import make_rules

    rules = make_rules(name, episode="game", points_to_win=5)
    rng = np.random.default_rng(6)
    s = E.init_state(rules, 200, rng=rng)
    mine = s.copy()
    while not E.is_done(s).all():
        acts = E.sample_legal(s, rules, rng)
        active = (rng.random(200) < rng.random()) & ~E.is_done(s)
        s = E.step(s, acts, rules, active=active)
        rows = rng.permutation(np.flatnonzero(active))  # any order
        E.step_rows(mine, rows, acts[rows], rules)
        assert mine == s, "step_rows differs from step(active=...)"
    live = E.init_state(rules, 3, rng=rng)
    before = live.copy()
    with pytest.raises(E.IllegalActionError, match="table 2"):
        E.step_rows(live, np.array([0, 2]), np.array([E.sample_legal(live, rules, rng)[0], 0]), rules)
    with pytest.raises(ValueError, match="int64"):
        E.step_rows(live, np.array([0, 1], np.int32), np.array([84, 84]), rules)
    assert live == before, "a refused step_rows changed the state"
    with pytest.raises(ValueError, match="done"):
        E.step_rows(s, np.array([0]), np.array([0]), rules)


@pytest.mark.parametrize("episode", ["hand", "game"])
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_reset_rows_equals_init_state(name: str, episode: str) -> None:
    """engine.reset_rows restarts exactly the given rows of a state in mid-play (scores, last hand,
    winners, masks included) as init_state deals those seeds, and leaves the other rows alone."""
    from euchre_env.rules import make_rules

    rules = make_rules(name, episode=episode, points_to_win=3)
    rng = np.random.default_rng(5)
    s = E.init_state(rules, 200, rng=rng)
    for _ in range(int(rng.integers(20, 60))):  # scores, finished hands and games in the rows
        s = E.step(s, E.sample_legal(s, rules, rng), rules)
    rows = rng.choice(200, 70, replace=False)
    seeds = rng.integers(0, 2**64 - 1, 70, dtype=np.uint64, endpoint=True)
    seeds[:2] = [0, 2**64 - 1]
    before = s.copy()
    E.reset_rows(s, rows, seeds, rules)
    assert s.take(rows) == E.init_state(rules, seeds=seeds), "reset rows differ from init_state"
    others = np.setdiff1d(np.arange(200), rows)
    assert s.take(others) == before.take(others), "a row that was not reset changed"
    with pytest.raises(ValueError, match="uint64"):
        E.reset_rows(s, rows, seeds.astype(np.int64), rules)


def test_step_active_ignores_illegal_actions_of_inactive_tables() -> None:
    """An inactive table's action is not checked (it does not move)."""
    rules = PRESETS["four_handed"]
    s = E.init_state(rules, 2, rng=np.random.default_rng(0))
    acts = E.sample_legal(s, rules, np.random.default_rng(1))
    acts[1] = 0  # play 8C: never legal while bidding
    E.step(s, acts, rules, active=np.array([True, False]))
    with pytest.raises(E.IllegalActionError, match="illegal action 0"):
        E.step(s, acts, rules)


def test_step_active_rejects_bad_mask() -> None:
    """A wrong-shaped or non-bool active mask is a ValueError naming it."""
    rules = PRESETS["four_handed"]
    s = E.init_state(rules, 2, rng=np.random.default_rng(0))
    acts = E.sample_legal(s, rules, np.random.default_rng(1))
    with pytest.raises(ValueError, match="active must be a bool array"):
        E.step(s, acts, rules, active=np.array([1, 0]))


def test_seeds_accept_numpy_and_python_ints_and_reject_negative() -> None:
    """Seeds may be any non-negative integers up to 2**64-1; negatives are a ValueError."""
    rules = PRESETS["four_handed"]
    a = E.init_state(rules, seeds=np.array([1, 2**63 + 5], dtype=np.uint64))
    b = E.init_state(rules, seeds=[1, 2**63 + 5])
    assert a == b, "uint64 array and Python int seeds must deal the same"
    with pytest.raises(ValueError, match="non-negative"):
        E.init_state(rules, seeds=[3, -1])


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_state_is_at_most_256_bytes_per_table(name: str) -> None:
    """The issue's size budget: at most 256 bytes of state per table."""
    s = E.init_state(PRESETS[name], 16, rng=np.random.default_rng(0))
    assert s.nbytes_per_table <= 256, f"{s.nbytes_per_table} bytes per table"


@pytest.mark.parametrize("high", [False, True])
def test_sample_bits_picks_the_rank_of_u(high: bool) -> None:
    """sample_bits returns the legal action of rank floor(u * count) (the rule RandomPolicy and the
    single-table path share), -1 for an empty set; both its 32-bit and its 64-bit paths."""
    rng = np.random.default_rng(7)
    n = 3000
    width = 64 if high else 32
    bits = rng.integers(0, 2**width - 1, n, dtype=np.uint64, endpoint=True)
    bits &= rng.integers(0, 2**width - 1, n, dtype=np.uint64, endpoint=True)  # sparser sets
    bits[:5] = [0, 1, 1 << (width - 1), 2**width - 1, 0b1010]
    base = rng.integers(0, 30, n).astype(np.int8)
    u = rng.random(n)
    u[:5] = [0.3, 0.0, 0.999999, 1 - 2**-53, 0.5]
    got = E.sample_bits(base, bits, u)
    for i in range(n):
        ones = [k for k in range(64) if int(bits[i]) >> k & 1]
        want = int(base[i]) + ones[min(int(u[i] * len(ones)), len(ones) - 1)] if ones else -1
        assert got[i] == want, (i, int(bits[i]), u[i])


def test_a_state_of_the_other_game_and_repeated_or_unknown_rows_are_refused_and_change_nothing():
    r4, r5 = PRESETS["four_handed"], PRESETS["five_handed"]
    for mine, other in ((r4, r5), (r5, r4)):
        s = E.init_state(mine, 8, rng=np.random.default_rng(0))
        before = s.copy()
        acts = E.sample_legal(s, mine, np.random.default_rng(1))
        with pytest.raises(ValueError, match="another game's rules"):
            E.step(s, acts, other, inplace=True)
        with pytest.raises(ValueError, match="another game's rules"):
            E.step_rows(s, np.arange(8), acts.astype(np.int64), other)
        with pytest.raises(ValueError, match="another game's rules"):
            E.reset_rows(s, np.array([0]), np.array([5], np.uint64), other)
        with pytest.raises(ValueError, match="row 3 is given more than once"):
            E.step_rows(s, np.array([3, 1, 3]), acts[[3, 1, 3]].astype(np.int64), mine)
        with pytest.raises(ValueError, match="row 2 is given more than once"):
            E.reset_rows(s, np.array([2, 2]), np.array([1, 2], np.uint64), mine)
        with pytest.raises(ValueError, match=r"row indices must be in 0..7"):
            E.step_rows(s, np.array([8]), np.array([84]), mine)
        assert s == before, "a refused call changed the state"

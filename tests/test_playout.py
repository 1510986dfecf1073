"""``engine.play_out_random``: a whole hand of random cards at once, exactly as card-by-card steps.

The rules it must keep are those of ``step``: follow the led suit if you can
(rules.md#c7), a seat sitting out a lone hand plays no card (rules.md#c15, #c18),
the trick's winner leads the next one, and the hand is scored at its end
(rules.md#c13, #c17). The reference is ``step_rows`` one card at a time with the
same draws, so any difference in cards, tricks, scores or the next deal shows.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from euchre_env import engine as E
from euchre_env.actions import Phase
from euchre_env.engine.deal import GOLDEN, splitmix_uniform
from euchre_env.engine.tables import NUM_ACTIVE
from euchre_env.rules import make_rules


def _tables_at_trick_starts(rules, n: int, seed: int) -> tuple[E.State, np.ndarray]:
    """``n`` tables played by random legal actions, each stopped at the start of some trick (0-4)."""
    rng = np.random.default_rng(seed)
    s = E.init_state(rules, n, rng=rng)
    stop_at = rng.integers(0, 5, n)  # the trick to stop at
    moving = np.ones(n, bool)
    while moving.any():
        at_start = (s.phase == Phase.PLAY) & (s.n_played == 0) & (s.trick_no == stop_at)
        moving &= ~at_start
        # A table that missed its trick (a thrown-in or finished hand) waits for a later one.
        rows = np.flatnonzero(moving & (s.phase != Phase.DONE))
        stop_at[moving & (s.phase == Phase.DONE)] = -1
        moving &= s.phase != Phase.DONE
        E.step_rows(s, rows, E.sample_legal(s.take(rows), rules, rng), rules)
    return s, np.flatnonzero(stop_at >= 0)


def _card_by_card(s: E.State, rows: np.ndarray, counters: np.ndarray, rules) -> np.ndarray:
    """The reference: one ``step_rows`` per card, the legal card of rank floor(u * count)."""
    played = np.zeros(rows.size, np.int64)
    live = np.ones(rows.size, bool)
    s.hand_over[rows] = False
    while live.any():
        r = rows[live]
        u = splitmix_uniform(counters[live] + played[live].astype(np.uint64) * GOLDEN)
        E.step_rows(s, r, E.sample_bits(s.mask_base[r], s.mask_bits[r], u), rules)
        played[live] += 1
        live[live] = ~s.hand_over[r]
    return played


@pytest.mark.parametrize("episode", ["hand", "game"])
@pytest.mark.parametrize("name", ["four_handed", "four_handed_defend_alone", "five_handed"])
def test_play_out_random_equals_card_by_card_steps(name: str, episode: str) -> None:
    """Over 1500 tables stopped at every trick of random hands, lone hands (two or three cards a trick)
    and defended ones mixed, the playout leaves exactly the state that card-by-card steps leave:
    hands, tricks, winners, points, scores, the next deal in a game, the legal sets."""
    rules = make_rules(name, episode=episode, points_to_win=6)
    s, rows = _tables_at_trick_starts(rules, 1500, seed=len(name) + len(episode))
    assert np.unique(s.trick_no[rows]).tolist() == [0, 1, 2, 3, 4], "every starting trick is covered"
    if not rules.called_card:
        sizes = NUM_ACTIVE[4][s.out[rows]]
        want_sizes = {2, 3, 4} if rules.defend_alone else {3, 4}  # 3: a lone maker; 2: a lone defender too
        assert set(sizes.tolist()) == want_sizes, "every trick size is covered"
    counters = np.random.default_rng(9).integers(0, 2**64, rows.size, dtype=np.uint64, endpoint=False)
    ref = s.copy()
    want = _card_by_card(ref, rows, counters, rules)
    got = E.play_out_random(s, rows, counters, rules)
    assert np.array_equal(got, want), "cards played per table"
    assert s == ref, "state after the playout"
    assert s.hand_over[rows].all()


def test_play_out_random_rows_in_any_order_and_others_untouched() -> None:
    """Rows are independent: a shuffled subset plays the same, and the tables not named do not change."""
    rules = make_rules("four_handed_defend_alone")
    s, rows = _tables_at_trick_starts(rules, 400, seed=5)
    counters = np.arange(rows.size, dtype=np.uint64) * np.uint64(12345)
    a, b = s.copy(), s.copy()
    E.play_out_random(a, rows, counters, rules)
    order = np.random.default_rng(0).permutation(rows.size)[: rows.size // 2]
    E.play_out_random(b, rows[order], counters[order], rules)
    assert b.take(rows[order]) == a.take(rows[order])
    others = np.setdiff1d(np.arange(400), rows[order])
    assert b.take(others) == s.take(others)


def test_play_out_random_rejects_bad_input_and_changes_nothing() -> None:
    """Wrong shapes or dtypes, and a table that is not at the start of a trick, get a specific error."""
    rules = make_rules("four_handed")
    s, rows = _tables_at_trick_starts(rules, 50, seed=2)
    mid_trick = rows[:1]  # one card into its trick
    E.step_rows(s, mid_trick, E.sample_legal(s.take(mid_trick), rules, np.random.default_rng(0)), rules)
    rows = rows[1:]
    counters = np.zeros(rows.size, np.uint64)
    before = s.copy()
    with pytest.raises(ValueError, match=re.escape("rows (n,) int64 and counters (n,) uint64")):
        E.play_out_random(s, rows.astype(np.int32), counters, rules)
    with pytest.raises(ValueError, match=re.escape("rows (n,) int64 and counters (n,) uint64")):
        E.play_out_random(s, rows, counters[:-1], rules)
    with pytest.raises(ValueError, match="table indices"):
        E.play_out_random(s, np.array([50]), np.zeros(1, np.uint64), rules)
    with pytest.raises(ValueError, match=f"table {mid_trick[0]} is not at the start of a trick"):
        E.play_out_random(s, np.concatenate([rows, mid_trick]), np.zeros(rows.size + 1, np.uint64), rules)
    assert s == before

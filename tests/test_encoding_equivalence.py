"""The batched encoder equals a slow per-table reference and the single-table observer.

``encoding.encode`` is built from lookup tables for speed; here each observation is
rebuilt entry by entry from the state fields (``_reference``), the way the layout
describes them, over thousands of positions from random play in both games, for one
hand and for whole games, and for every viewer, dtype and several batch sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.encoding import CARD_SLOTS, encode, obs_layout, score_thresholds
from euchre_env.engine import init_state, is_done, sample_legal, step
from euchre_env.engine.single import Table, observe
from euchre_env.rules import NUM_TRICKS, RulesConfig, make_rules
from euchre_env.state import State

CONFIGS = {
    "four_handed": make_rules("four_handed"),
    "five_handed": make_rules("five_handed"),
    "four_handed_defend_alone": make_rules("four_handed", defend_alone=True),
    "four_handed_game": make_rules("four_handed", episode="game", points_to_win=5),
    "five_handed_game": make_rules("five_handed", episode="game", points_to_win=5),
    "five_handed_game_30": make_rules("five_handed", episode="game", points_to_win=30),  # 20 score bins
}
DTYPES = [np.float32, np.uint8, np.bool_, np.int8, np.float64, np.int64]


def _positions(rules: RulesConfig, seed: int, tables: int = 64, max_steps: int = 120) -> State:
    """Snapshots of a batch after every random legal step (bidding, discard, play, done rows)."""
    rng = np.random.default_rng(seed)
    s = init_state(rules, tables, rng=rng)
    snaps = [s]
    for _ in range(max_steps):
        if is_done(s).all():
            break
        s = step(s, sample_legal(s, rules, rng), rules)
        snaps.append(s)
    return State.concatenate(snaps)


def _reference(s: State, viewer: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """Observations as 0/1 uint8, one table and one piece at a time. Shape (B, D)."""
    lay, p = obs_layout(rules), rules.num_players
    thresholds = score_thresholds(rules).tolist()
    obs = np.zeros((s.batch_size, lay.size), np.uint8)
    for i in range(s.batch_size):
        v, row = int(viewer[i]), obs[i]

        def put(piece: str, index: int, row: np.ndarray = row) -> None:
            row[lay.offsets[piece] + index] = 1

        def card_set(piece: str, bits: int, k: int = 0) -> None:
            for c in range(cards.NUM_CARDS):
                if bits >> c & 1:
                    put(piece, k * CARD_SLOTS + c)

        def seat(r: int, v: int = v) -> int:  # absolute seat of relative seat r
            return (v + r) % p

        def rel(a: int, v: int = v) -> int:  # relative seat of absolute seat a
            return (int(a) - v) % p

        dealer, maker, turn, bid_round = (
            int(s.dealer[i]),
            int(s.maker[i]),
            int(s.turn[i]),
            int(s.bid_round[i]),
        )
        card_set("hand", int(s.hands[i, v]))
        if s.upcard[i] >= 0:
            put("upcard", int(s.upcard[i]))
        if dealer == v and s.discard[i] >= 0:
            put("my_discard", int(s.discard[i]))
        if rules.called_card and s.called[i] >= 0:
            put("called_card", int(s.called[i]))
        if s.trick_no[i] < NUM_TRICKS:
            for r in range(p):
                card = int(s.trick_cards[i, s.trick_no[i], seat(r)])
                if card >= 0:
                    put("current_trick", r * CARD_SLOTS + card)
        for r in range(p):
            card_set("played_by", int(s.played_by[i, seat(r)]), r)
        for t in range(NUM_TRICKS):
            card_set("played_in", int(s.trick_bits[i, t]), t)

        # Bidding goes round from the dealer's left; everyone before the first
        # seat that did not pass (the maker, or the seat to bid) has passed.
        def pos(a: int, dealer: int = dealer) -> int:
            return (a - dealer - 1) % p

        made = maker >= 0
        bidding = s.phase[i] in (Phase.BID_UPCARD, Phase.BID_SUIT)
        stop = pos(maker) if made else pos(turn) if bidding else p
        for r in range(p):
            if bid_round == 2:
                put("passed_round_1", r)
                if pos(seat(r)) < stop:
                    put("passed_round_2", r)
            elif pos(seat(r)) < stop:
                put("passed_round_1", r)
            if int(s.out[i]) >> seat(r) & 1:
                put("sitting_out", r)
            for t in range(min(max(int(s.tricks_won[i, seat(r)]), 0), NUM_TRICKS)):
                put("tricks_won", r * NUM_TRICKS + t)
            for j, th in enumerate(thresholds):
                if s.scores[i, seat(r)] >= th:
                    put("scores", r * len(thresholds) + j)
        if made and bid_round == 1:
            put("upcard_taken", 0)
        if s.alone[i]:
            put("alone", 0)
        if rules.called_card and s.partner[i] == v and s.called[i] >= 0:
            put("i_hold_called", 0)

        put("dealer", rel(dealer))
        if made:
            put("maker", rel(maker))
            put("maker_round", bid_round - 1)
        if s.trump[i] < cards.NUM_SUITS:
            put("trump", int(s.trump[i]))
        if rules.called_card and s.revealed[i] >= 0:
            put("revealed_by", rel(s.partner[i]))
        if not rules.called_card and s.defender_alone[i] >= 0:
            put("defender_alone", rel(s.defender_alone[i]))
        for t in range(NUM_TRICKS):
            if s.trick_winner[i, t] >= 0:
                put("trick_winner", t * p + rel(s.trick_winner[i, t]))
        if turn >= 0:
            put("to_act", rel(turn))
        put("phase", int(s.phase[i]))
    return obs


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def case(request: pytest.FixtureRequest) -> tuple[RulesConfig, State, np.ndarray, np.ndarray]:
    """Rules, random positions, a random viewer per row and the reference observations."""
    name = str(request.param)
    rules = CONFIGS[name]
    s = _positions(rules, seed=1)
    viewer = np.random.default_rng(1).integers(0, rules.num_players, s.batch_size).astype(np.int8)
    return rules, s, viewer, _reference(s, viewer, rules)


def test_positions_cover_every_phase(case: tuple[RulesConfig, State, np.ndarray, np.ndarray]) -> None:
    """The positions reach bidding, play and (short episodes) finished rows."""
    rules, s, _, _ = case
    phases = set(s.phase.tolist())
    expected = {Phase.BID_UPCARD, Phase.DISCARD, Phase.BID_SUIT, Phase.PLAY}
    if rules.episode == "hand" or rules.points_to_win <= 5:
        expected |= {Phase.DONE}
    assert expected <= phases, f"phases seen: {sorted(phases)}"
    assert s.batch_size >= 1000, f"only {s.batch_size} positions"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_array_viewer_matches_reference(
    case: tuple[RulesConfig, State, np.ndarray, np.ndarray], dtype: type
) -> None:
    """A (B,) viewer array, every dtype: same values, dtype and shape as the reference."""
    rules, s, viewer, ref = case
    for vw in (viewer, viewer.astype(np.int64)):
        obs = encode(s, vw, rules, dtype)
        assert obs.dtype == np.dtype(dtype) and obs.shape == ref.shape, f"{obs.dtype} {obs.shape}"
        assert obs.flags.c_contiguous, "observations are C-contiguous"
        bad = np.argwhere(obs != ref.astype(dtype))
        assert bad.size == 0, f"{len(bad)} entries differ, first (row, entry) {bad[:5].tolist()}"


def test_int_viewer_matches_reference(case: tuple[RulesConfig, State, np.ndarray, np.ndarray]) -> None:
    """One int viewer for the whole batch equals the reference for every seat."""
    rules, s, _, _ = case
    rows = s.take(np.arange(0, s.batch_size, 3))
    for v in range(rules.num_players):
        ref = _reference(rows, np.full(rows.batch_size, v), rules)
        for viewer in (v, np.int8(v), np.array(v)):
            assert np.array_equal(encode(rows, viewer, rules, np.uint8), ref), f"viewer {viewer!r}"
        assert np.array_equal(encode(rows, v, rules, np.float32), ref.astype(np.float32)), f"seat {v}"


@pytest.mark.parametrize("size", [1, 2, 7, 64])
def test_small_batches_match_reference(
    case: tuple[RulesConfig, State, np.ndarray, np.ndarray], size: int
) -> None:
    """Sub-batches (as opponents encode them) equal the matching rows of the reference."""
    rules, s, viewer, ref = case
    rng = np.random.default_rng(size)
    for _ in range(5):
        rows = rng.choice(s.batch_size, size, replace=False)
        obs = encode(s.take(rows), viewer[rows], rules, np.float32)
        assert np.array_equal(obs, ref[rows].astype(np.float32)), f"rows {rows.tolist()}"


def test_empty_batch(case: tuple[RulesConfig, State, np.ndarray, np.ndarray]) -> None:
    """Zero tables give a (0, D) array."""
    rules, s, viewer, _ = case
    obs = encode(s.take(np.arange(0)), viewer[:0], rules, np.float32)
    assert obs.shape == (0, obs_layout(rules).size), f"shape {obs.shape}"


def test_matches_single_table_observer(case: tuple[RulesConfig, State, np.ndarray, np.ndarray]) -> None:
    """The single-table observer (an independent implementation) agrees on sampled rows."""
    rules, s, viewer, _ = case
    rows = np.random.default_rng(2).choice(s.batch_size, 200, replace=False)
    obs = encode(s.take(rows), viewer[rows], rules, np.float32)
    for k, i in enumerate(rows):
        expected = observe(Table(s, rules, int(i)), int(viewer[i]), np.float32)
        assert np.array_equal(obs[k], expected), f"row {i} viewer {viewer[i]}"


def test_thermometers_for_any_count(case: tuple[RulesConfig, State, np.ndarray, np.ndarray]) -> None:
    """Tricks won and scores out of the reachable range (negative, huge) still give thermometers."""
    rules, s, viewer, _ = case
    rng = np.random.default_rng(3)
    rows = s.take(np.arange(min(s.batch_size, 300)))
    rows.tricks_won = rng.integers(-128, 128, rows.tricks_won.shape).astype(np.int8)
    rows.scores = rng.integers(-(2**15), 2**15, rows.scores.shape).astype(np.int16)
    rows.scores[:, 0] = rng.integers(-3, rules.points_to_win + 3, rows.batch_size)
    v = viewer[: rows.batch_size]
    assert np.array_equal(encode(rows, v, rules, np.uint8), _reference(rows, v, rules)), "thermometers"

"""Property tests over many random batched playouts (pgx api_test, OpenSpiel RandomSimTest style).

Every run plays 20,000 random hands of each preset in one batch and checks, at
every step, that the cards are conserved and that live tables always have a
legal action; at the end, that each hand's points follow from its tricks by the
scoring tables (recomputed here, rules.md#c13 and #c17).
"""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env import actions as act
from euchre_env import cards
from euchre_env.actions import NUM_ACTIONS, Phase
from euchre_env.engine import current_player, init_state, is_done, legal_action_mask, sample_legal, step
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State

NUM_HANDS = 20_000
MAX_STEPS_PER_HAND = 60


def random_actions(state: State, rules: RulesConfig, rng: np.random.Generator) -> np.ndarray:
    """Uniform legal actions, but passing half the time when a pass is legal (reaches round 2)."""
    a = sample_legal(state, rules, rng)
    mask = legal_action_mask(state, rules)
    pass_now = mask[:, act.PASS] & (rng.random(state.batch_size) < 0.5)
    return np.where(pass_now, act.PASS, a)


def card_bits(ids: np.ndarray) -> np.ndarray:
    """Bitmask (uint64) of card ids along the last axis, -1 meaning no card."""
    ids = np.asarray(ids, dtype=np.int64)
    bits = np.where(ids >= 0, np.left_shift(np.uint64(1), np.maximum(ids, 0).astype(np.uint64)), np.uint64(0))
    return np.bitwise_or.reduce(bits.reshape(*ids.shape[:1], -1), axis=1)


def check_cards_conserved(state: State, rules: RulesConfig, t: int) -> None:
    """Every card of the deck is in exactly one place: a hand, the kitty, the discard or a trick."""
    b = state.batch_size
    places = [state.hands[:, s].astype(np.uint64) for s in range(rules.num_players)]
    places.append(state.kitty.astype(np.uint64))
    places.append(card_bits(state.discard.reshape(b, 1)))
    places.append(card_bits(state.trick_cards.reshape(b, -1)))
    union = np.zeros(b, np.uint64)
    count = np.zeros(b, np.int64)
    for p in places:
        union |= p
        count += np.bitwise_count(p)
    deck = np.uint64(rules.deck_mask)
    bad = np.flatnonzero((union != deck) | (count != rules.num_cards_in_play))
    assert bad.size == 0, (
        f"[step {t}] table {bad[0]}: cards not conserved: {count[bad[0]]} cards placed, union "
        f"{cards.cards_of(int(union[bad[0]]))} != the {rules.variant} deck"
    )


def check_trick_records(state: State, rules: RulesConfig, t: int) -> None:
    """``played_by`` and ``trick_bits`` are the per-seat and per-trick card sets of ``trick_cards``."""
    b = state.batch_size
    for s in range(rules.num_players):
        want = card_bits(state.trick_cards[:, :, s].reshape(b, -1))
        assert (state.played_by[:, s] == want).all(), (
            f"[step {t}] played_by of seat {s} disagrees with trick_cards"
        )
    for k in range(state.trick_cards.shape[1]):
        want = card_bits(state.trick_cards[:, k, :].reshape(b, -1))
        assert (state.trick_bits[:, k] == want).all(), (
            f"[step {t}] trick_bits of trick {k} disagrees with trick_cards"
        )


def check_masks(state: State, rules: RulesConfig, t: int) -> None:
    """Live tables have a legal action for the seat to act; finished tables have none."""
    mask = legal_action_mask(state, rules)
    done = is_done(state)
    assert mask.shape == (state.batch_size, NUM_ACTIONS), f"[step {t}] mask shape {mask.shape}"
    assert mask.dtype == np.bool_, f"[step {t}] mask dtype {mask.dtype}"
    live_empty = np.flatnonzero(~done & ~mask.any(axis=1))
    assert live_empty.size == 0, f"[step {t}] live table {live_empty[0]} has no legal action"
    done_legal = np.flatnonzero(done & mask.any(axis=1))
    assert done_legal.size == 0, f"[step {t}] finished table {done_legal[0]} still has legal actions"
    turn = current_player(state)
    assert (turn[done] == -1).all(), f"[step {t}] finished tables must have no seat to act"
    assert ((turn[~done] >= 0) & (turn[~done] < rules.num_players)).all(), (
        f"[step {t}] live table without a seat"
    )


def side_of_maker(state: State, rules: RulesConfig) -> tuple[np.ndarray, np.ndarray]:
    """(side, partner) of each finished hand, the partner recomputed from the tricks.

    Five-handed, the partner is whoever played the called card (nobody if it stayed
    in the kitty or the discard, rules.md#c12); four-handed, the seat opposite.
    """
    b, p = state.batch_size, rules.num_players
    seats = np.arange(p)
    maker = state.last_maker.astype(np.int64)
    if rules.called_card:
        called = state.last_called.astype(np.int64)
        played = state.trick_cards.astype(np.int64)  # (B, T, P)
        hit = (played == called[:, None, None]) & (called[:, None, None] >= 0)
        by_seat = hit.any(axis=1)  # (B, P)
        partner = np.where(by_seat.any(axis=1), by_seat.argmax(axis=1), -1)
    else:
        partner = (maker + 2) % 4
    side = (seats[None, :] == maker[:, None]) | (seats[None, :] == partner[:, None])
    assert side.shape == (b, p)
    return side, partner


def expected_points(state: State, rules: RulesConfig) -> np.ndarray:
    """Each finished hand's points from its tricks by the scoring tables (rules.md#c13, #c17, #c18)."""
    side, _ = side_of_maker(state, rules)
    tricks = state.last_tricks.astype(np.int64)
    side_tricks = (tricks * side).sum(axis=1)
    alone = state.last_alone
    pts = np.zeros_like(tricks)
    for i in range(state.batch_size):
        if state.last_maker[i] < 0:
            continue  # thrown in: nobody scores (rules.md#c16)
        st = side_tricks[i]
        if st >= 3:
            if st == 5:
                award = 4 if alone[i] else 2  # a buried called card makes a solo worth 2 (rules.md#c13)
            else:
                award = 1
            pts[i, side[i]] = award
        else:
            lone_defence = alone[i] and state.last_defender_alone[i] >= 0
            pts[i, ~side[i]] = 4 if lone_defence else 2
    return pts


def play_out(rules: RulesConfig, n: int, rng: np.random.Generator) -> State:
    """Play ``n`` random hands, checking the per-step invariants."""
    state = init_state(rules, n, rng=rng)
    for t in range(MAX_STEPS_PER_HAND):
        check_cards_conserved(state, rules, t)
        check_trick_records(state, rules, t)
        check_masks(state, rules, t)
        if is_done(state).all():
            return state
        state = step(state, random_actions(state, rules, rng), rules)
    raise AssertionError(f"hands not finished after {MAX_STEPS_PER_HAND} steps")


@pytest.fixture(scope="module")
def finished() -> dict[str, State]:
    """20,000 random finished hands of each preset (played once, checked per step)."""
    rng = np.random.default_rng(7)
    return {name: play_out(rules, NUM_HANDS, rng) for name, rules in PRESETS.items()}


def test_random_hands_keep_cards_and_masks(finished: dict[str, State], preset_name: str) -> None:
    """20,000 random hands per preset: cards conserved, trick records agree, masks non-empty exactly while live."""
    state = finished[preset_name]
    assert state.batch_size == NUM_HANDS, f"expected {NUM_HANDS} hands, got {state.batch_size}"
    assert is_done(state).all(), "every hand must be finished"


def test_finished_hands_have_five_tricks(
    finished: dict[str, State], rules: RulesConfig, preset_name: str
) -> None:
    """Exactly five tricks per played hand; none in a thrown-in hand (rules.md#c7, #c16)."""
    state = finished[preset_name]
    played = state.last_maker >= 0
    total = state.last_tricks.astype(np.int64).sum(axis=1)
    assert (total[played] == 5).all(), f"tricks per played hand: {np.unique(total[played])}"
    assert (state.trick_winner[played] >= 0).all(), "every trick of a played hand has a winner"
    assert (total[~played] == 0).all(), "a thrown-in hand has no tricks"
    if rules.stick_the_dealer:
        assert played.all(), "with stick the dealer no hand is thrown in (rules.md#c10, #c16)"
    else:
        assert (~played).any(), (
            "20,000 random hands without one thrown in: stick_the_dealer=False not exercised"
        )
    # a seat that sits out a lone hand plays no card and takes no trick
    for s in range(rules.num_players):
        sat_out = (state.trick_cards[:, :, s] < 0).all(axis=1) & played
        assert (state.last_tricks[sat_out, s] == 0).all(), f"seat {s} took a trick while sitting out"


def test_points_follow_from_tricks(finished: dict[str, State], rules: RulesConfig, preset_name: str) -> None:
    """Each hand's points are the scoring table's award for its tricks (rules.md#c13, #c17, #c18)."""
    state = finished[preset_name]
    want = expected_points(state, rules)
    got = state.last_points.astype(np.int64)
    bad = np.flatnonzero((got != want).any(axis=1))
    assert bad.size == 0, (
        f"{bad.size} hands scored wrongly; table {bad[0]}: points {got[bad[0]].tolist()}, expected "
        f"{want[bad[0]].tolist()} (maker {state.last_maker[bad[0]]}, partner {state.last_partner[bad[0]]}, "
        f"alone {state.last_alone[bad[0]]}, lone defender {state.last_defender_alone[bad[0]]}, "
        f"tricks {state.last_tricks[bad[0]].tolist()})"
    )
    assert (state.scores == state.last_points).all(), "one-hand episodes: the scores are the hand's points"


def test_called_card_partner_is_its_holder(finished: dict[str, State]) -> None:
    """Five-handed: the recorded partner is the seat that played the called card, or none (rules.md#c12)."""
    state = finished["five_handed"]
    rules = PRESETS["five_handed"]
    _, partner = side_of_maker(state, rules)
    want = np.where(state.last_alone, -1, partner)
    assert (state.last_partner == want).all(), (
        f"{int((state.last_partner != want).sum())} hands record the wrong partner"
    )
    assert (state.out == 0).all(), "nobody sits out in the five-handed game (rules.md#c12)"
    assert ((state.trick_cards >= 0).all(axis=2) | (state.last_maker < 0)[:, None]).all(), (
        "all five seats play to every trick in the five-handed game"
    )


@pytest.mark.parametrize("name", [n for n, r in PRESETS.items() if not r.called_card])
def test_four_handed_points_go_to_partnerships(finished: dict[str, State], name: str) -> None:
    """Four-handed: partners (seats 0 and 2, 1 and 3) score alike, and only one side scores (rules.md#c15, #c17)."""
    pts = finished[name].last_points.astype(np.int64)
    assert (pts[:, 0] == pts[:, 2]).all(), "seats 0 and 2 are partners and must score alike"
    assert (pts[:, 1] == pts[:, 3]).all(), "seats 1 and 3 are partners and must score alike"
    assert (pts[:, 0] * pts[:, 1] == 0).all(), "only one partnership scores in a hand"


def test_every_scoring_row_occurs(finished: dict[str, State], rules: RulesConfig, preset_name: str) -> None:
    """The random hands reach every award of the scoring table (so the points check means something)."""
    pts = finished[preset_name].last_points
    awards = set(np.unique(pts).tolist())
    want = {0, 1, 2, 4}
    assert want <= awards, f"awards seen: {sorted(awards)}; expected all of {sorted(want)}"


def per_table_actions(state: State, rules: RulesConfig, rngs: list[np.random.Generator]) -> np.ndarray:
    """One action per live table, each drawn from that table's own random stream."""
    mask = legal_action_mask(state, rules)
    a = np.full(state.batch_size, -1, dtype=np.int64)
    for i in np.flatnonzero(~is_done(state)):
        legal = np.flatnonzero(mask[i])
        a[i] = legal[rngs[i].integers(legal.size)]
    return a


def run_tables(rules: RulesConfig, seeds: list[int], batched: bool) -> list[State]:
    """Whole games from ``seeds``, in one batch or one table at a time.

    Returns each table's state (a batch of one) as of the step that ended its game.
    """
    groups = [seeds] if batched else [[s] for s in seeds]
    out: list[State] = []
    for group in groups:
        state = init_state(rules, seeds=group)
        rngs = [np.random.default_rng(s) for s in group]
        final: dict[int, State] = {}
        for _ in range(5000):
            if is_done(state).all():
                break
            state = step(state, per_table_actions(state, rules, rngs), rules)
            for i in np.flatnonzero(is_done(state)):
                final.setdefault(int(i), state.take([i]))
        else:
            raise AssertionError("games did not finish")
        out += [final[i] for i in range(len(group))]
    return out


def test_batch_equals_single_tables(preset_name: str) -> None:
    """64 tables in one batch play exactly as 64 single-table runs with the same seeds (whole short games)."""
    rules = make_rules(preset_name, episode="game", points_to_win=3)
    seeds = [1000 + 7919 * i for i in range(64)]
    batch = run_tables(rules, seeds, batched=True)
    single = run_tables(rules, seeds, batched=False)
    for i, (b, s) in enumerate(zip(batch, single, strict=True)):
        assert b == s, f"table {i} (seed {seeds[i]}): the batched run differs from the single-table run"
    assert len({int(s.hand_no[0]) for s in single}) > 1, "games of different lengths expected"


def test_copy_and_json_round_trip_mid_hand(preset_name: str) -> None:
    """copy() and to_json()/from_json() restore a mid-hand state exactly, and it plays on identically."""
    rules = make_rules(preset_name, episode="game", points_to_win=5)
    state = init_state(rules, 256, rng=np.random.default_rng(3))
    rng = np.random.default_rng(4)
    for _ in range(9):
        state = step(state, random_actions(state, rules, rng), rules)
    assert not is_done(state).any(), "the round trip is meant to happen mid-hand"
    assert (state.phase == Phase.PLAY).any() and (state.trick_cards >= 0).any(), "mid-play states expected"
    copied = state.copy()
    restored = State.from_json(state.to_json())
    assert copied == state, "copy() must equal the original"
    assert restored == state, "from_json(to_json()) must equal the original, dtypes included"
    assert restored.to_json() == state.to_json(), "a restored state must serialise identically"
    copied.hands[0, 0] ^= np.uint32(1)
    assert copied != state, "changing a copy must not change the original (deep copy)"
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    for t in range(4000):
        if is_done(state).all():
            break
        a, b = random_actions(state, rules, rng_a), random_actions(restored, rules, rng_b)
        assert np.array_equal(a, b), f"[{t}] the restored state offers different legal actions"
        state, restored = step(state, a, rules), step(restored, b, rules)
    assert is_done(state).all(), "games did not finish"
    assert restored == state, "the restored state must play on exactly as the original"


@pytest.mark.parametrize("points_to_win", [5, 10])
def test_game_winners_hold_the_top_score(preset_name: str, points_to_win: int) -> None:
    """Game mode ends with winners = every seat holding the top total, which reaches the target (rules.md#c14, #c19)."""
    rules = make_rules(preset_name, episode="game", points_to_win=points_to_win)
    state = init_state(rules, 2000, rng=np.random.default_rng(11))
    rng = np.random.default_rng(12)
    for t in range(5000):
        done = is_done(state)
        assert (state.winners[~done] == 0).all(), f"[{t}] winners set before the game is over"
        if done.all():
            break
        before = state.scores.copy()
        state = step(state, random_actions(state, rules, rng), rules)
        gained = state.scores.astype(np.int64) - before
        over = state.hand_over
        assert (gained[~over] == 0).all(), f"[{t}] scores changed without a hand ending"
        assert (gained[over] == state.last_points[over]).all(), f"[{t}] scores must grow by the hand's points"
    else:
        raise AssertionError("games did not finish")
    scores = state.scores.astype(np.int64)
    top = scores.max(axis=1)
    assert (top >= points_to_win).all(), (
        f"a game ended below {points_to_win}: {scores[top < points_to_win][0]}"
    )
    want = ((scores == top[:, None]) * (1 << np.arange(rules.num_players))).sum(axis=1)
    bad = np.flatnonzero(state.winners.astype(np.int64) != want)
    assert bad.size == 0, (
        f"table {bad[0]}: winners {state.winners[bad[0]]:b} but top scores held by {want[bad[0]]:b}"
    )
    assert (state.phase == Phase.DONE).all(), "every game is over"
    if rules.called_card:
        assert (np.bitwise_count(state.winners) > 1).any(), "no shared victory in 2,000 five-handed games"

"""The world sampler: consistent, exact (uniform), leak-free worlds that the engine continues."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import random_positions

from euchre_env import cards, engine, make_rules
from euchre_env.actions import Phase
from euchre_env.encoding import encode, obs_layout
from euchre_env.infoset import history_action, rewind_to_deal, sample_worlds, seat_frame
from euchre_env.rules import HAND_SIZE, NUM_TRICKS, PRESETS, RulesConfig
from euchre_env.state import State

PUBLIC_FIELDS = (
    "phase", "turn", "dealer", "upcard", "trump", "maker", "bid_round", "alone", "called", "revealed",
    "defender_alone", "out", "trick_no", "leader", "led", "n_played", "trick_cards", "trick_winner",
    "tricks_won", "scores", "played_by", "trick_bits",
)  # fmt: skip


def bits_of(mask: np.ndarray) -> np.ndarray:
    """(...) uint32 card masks -> (..., C) bool."""
    return (mask.astype(np.int64)[..., None] >> np.arange(cards.NUM_CARDS)) & 1 == 1


def shown_voids(s: State, rules: RulesConfig) -> np.ndarray:
    """(B, P, 4) bool: seat failed to follow that effective suit (plain loops, independent of the sampler)."""
    p = rules.num_players
    out = np.zeros((s.batch_size, p, cards.NUM_SUITS), bool)
    for b in range(s.batch_size):
        lead = (int(s.dealer[b]) + 1) % p
        while int(s.out[b]) >> lead & 1:
            lead = (lead + 1) % p
        for t in range(NUM_TRICKS):
            if t > 0:
                lead = int(s.trick_winner[b, t - 1])
            if lead < 0 or s.trick_cards[b, t, lead] < 0:
                break
            led = cards.EFFECTIVE_SUIT[s.trump[b], s.trick_cards[b, t, lead]]
            for seat in range(p):
                c = s.trick_cards[b, t, seat]
                if c >= 0 and cards.EFFECTIVE_SUIT[s.trump[b], c] != led:
                    out[b, seat, led] = True
    return out


def replay_is_legal(worlds: State, rules: RulesConfig) -> np.ndarray:
    """Whether each world comes from a real deal whose public history is legal (bool (B,)).

    The rewound deal must give five cards to each seat and the rest, upcard
    included, to the kitty; the engine then judges every public action.
    """
    cur, idx = rewind_to_deal(worlds, rules), np.arange(worlds.batch_size)
    sizes = np.concatenate([bits_of(cur.hands).sum(axis=2), bits_of(cur.kitty).sum(axis=1)[:, None]], axis=1)
    every = np.bitwise_or.reduce(cur.hands, axis=1) | cur.kitty
    ok = (sizes == [HAND_SIZE] * rules.num_players + [rules.kitty_size]).all(axis=1)
    ok &= (every == rules.deck_mask) & bits_of(cur.kitty)[np.arange(idx.size), cur.upcard]
    while idx.size:
        target = worlds.take(idx)
        here = (cur.phase == target.phase) & (cur.turn == target.turn)
        here &= (cur.trick_no == target.trick_no) & (cur.n_played == target.n_played)
        a = history_action(cur, target)
        legal = engine.legal_action_mask(cur, rules)[np.arange(idx.size), np.maximum(a, 0)] & (a >= 0)
        ok[idx[~here & ~legal]] = False
        go = np.flatnonzero(~here & legal)
        cur, idx = engine.step(cur.take(go), a[go], rules), idx[go]
    return ok


def positions_and_viewers(
    rules: RulesConfig, rng: np.random.Generator, tables: int
) -> tuple[State, np.ndarray]:
    """Random positions, each seen by a random seat."""
    s = random_positions(rules, rng, tables)
    return s, rng.integers(0, rules.num_players, s.batch_size)


def test_worlds_reproduce_the_observation_and_public_state(
    rules: RulesConfig, rng: np.random.Generator
) -> None:
    """Every sampled world re-encodes to the viewer's observation and has the true public fields."""
    s, viewer = positions_and_viewers(rules, rng, 100)
    n = 3
    obs = encode(s, viewer, rules, np.uint8)
    worlds = sample_worlds(obs, rules, n, rng)
    assert worlds.batch_size == s.batch_size * n, "n worlds per observation"
    again = encode(worlds, 0, rules, np.uint8)
    bad = np.flatnonzero((again != np.repeat(obs, n, axis=0)).any(axis=1))
    assert bad.size == 0, f"{bad.size} worlds re-encode differently, first at position {bad[:1] // n}"
    truth = seat_frame(s, viewer).take(np.repeat(np.arange(s.batch_size), n))
    for name in PUBLIC_FIELDS:
        got, want = getattr(worlds, name), getattr(truth, name)
        assert np.array_equal(got, want), f"public field {name} differs from the truth"
    assert np.array_equal(worlds.hands[:, 0], truth.hands[:, 0]), "the viewer's own hand is kept"
    mine = truth.dealer == 0
    assert np.array_equal(worlds.discard[mine], truth.discard[mine]), "the viewer's own discard is kept"
    acting = truth.turn == 0
    assert np.array_equal(worlds.mask_bits[acting], truth.mask_bits[acting]), "the viewer's legal actions"


def test_worlds_conserve_cards_and_respect_constraints(rules: RulesConfig, rng: np.random.Generator) -> None:
    """Hands, kitty, discard and played cards partition the deck; voids, upcard and called card hold."""
    s, viewer = positions_and_viewers(rules, rng, 60)
    n = 4
    worlds = sample_worlds(encode(s, viewer, rules), rules, n, rng)
    held = bits_of(worlds.hands)  # (W, P, C)
    played = bits_of(worlds.played_by)  # (W, P, C)
    discard = np.zeros((worlds.batch_size, cards.NUM_CARDS), bool)
    has_discard = worlds.discard >= 0
    discard[np.flatnonzero(has_discard), worlds.discard[has_discard]] = True
    count = held.sum(axis=1) + played.sum(axis=1) + bits_of(worlds.kitty) + discard
    deck = bits_of(np.uint32(rules.deck_mask))
    assert np.array_equal(count, np.broadcast_to(deck, count.shape).astype(int)), "each card in one place"
    size = held.sum(axis=2) + played.sum(axis=2)  # (W, P)
    taking = (worlds.phase == Phase.DISCARD)[:, None] & (
        np.arange(rules.num_players) == worlds.dealer[:, None]
    )
    assert np.array_equal(size, HAND_SIZE + taking), "every seat holds five cards (six while discarding)"
    eff = cards.EFFECTIVE_SUIT[worlds.trump]  # (W, C)
    suits_held = (held[:, :, :, None] & (eff[:, None, :, None] == np.arange(cards.NUM_SUITS))).any(axis=2)
    voids = shown_voids(worlds, rules)  # (W, P, 4)
    assert not (voids & suits_held).any(), "a seat holds a card of a suit it showed out of"
    rows = np.arange(worlds.batch_size)
    taken = (worlds.maker >= 0) & (worlds.bid_round == 1)
    up_in_hand = held[rows, worlds.dealer, worlds.upcard] | played[rows, worlds.dealer, worlds.upcard]
    assert (up_in_hand | (worlds.discard == worlds.upcard))[taken].all(), "the dealer took the upcard"
    if rules.called_card:
        named = worlds.called >= 0
        maker_has = held[rows, np.maximum(worlds.maker, 0), np.maximum(worlds.called, 0)]
        assert not (named & maker_has).any(), "the maker never holds the called card"
        viewer_holds = encode(worlds, 0, rules)[:, obs_layout(rules).slice("i_hold_called")][:, 0] > 0
        assert np.array_equal(viewer_holds, named & (worlds.partner == 0)), (
            "partner is the called card's holder"
        )


def test_worlds_retrace_their_history_and_play_on(rules: RulesConfig, rng: np.random.Generator) -> None:
    """Rewinding a world and replaying its public history is legal and reaches the world exactly."""
    s, viewer = positions_and_viewers(rules, rng, 40)
    worlds = sample_worlds(encode(s, viewer, rules), rules, 2, rng)
    assert replay_is_legal(worlds, rules).all(), "some world's history is illegal for its hidden cards"
    cur, idx, final = rewind_to_deal(worlds, rules), np.arange(worlds.batch_size), worlds.copy()
    while idx.size:
        target = worlds.take(idx)
        here = (cur.phase == target.phase) & (cur.turn == target.turn)
        here &= (cur.trick_no == target.trick_no) & (cur.n_played == target.n_played)
        final.put(idx[here], cur.take(np.flatnonzero(here)))
        go = np.flatnonzero(~here)
        cur, idx = engine.step(cur.take(go), history_action(cur.take(go), target.take(go)), rules), idx[go]
    assert final == worlds, "replaying the history from the deal does not reach the sampled world"
    while not engine.is_done(worlds).all():
        worlds = engine.step(worlds, engine.sample_legal(worlds, rules, rng), rules)
    assert (worlds.last_tricks.sum(axis=1)[worlds.last_maker >= 0] == NUM_TRICKS).all(), "hands play out"


def test_game_mode_scores_and_later_hands(rng: np.random.Generator) -> None:
    """Observations from later hands of a game (non-zero scores) are reproduced too."""
    rules = make_rules("five_handed", episode="game", points_to_win=7)
    s = random_positions(rules, rng, 12)
    s = s.take(np.flatnonzero(s.hand_no > 0))
    assert (s.scores > 0).any(), "the positions include scores"
    obs = encode(s, s.turn, rules)
    worlds = sample_worlds(obs, rules, 2, rng)
    assert np.array_equal(encode(worlds, 0, rules), np.repeat(obs, 2, axis=0)), "game-mode worlds re-encode"


def _enumerate_deals(rel: State, rules: RulesConfig) -> State:
    """Every placement of the viewer's unseen cards into the places they could be (one late position)."""
    p = rules.num_players
    up_bit = int(cards.CARD_BIT[rel.upcard[0]])
    taken = bool(rel.maker[0] >= 0 and rel.bid_round[0] == 1)
    kitty = int(rel.kitty[0]) & ~(0 if taken else up_bit)
    slots = [int(rel.hands[0, r]) for r in range(1, p)] + [kitty]
    hidden_discard = bool(rel.dealer[0] != 0 and rel.discard[0] >= 0)
    pool = cards.cards_of(sum(slots) | (1 << int(rel.discard[0]) if hidden_discard else 0))
    sizes = [x.bit_count() for x in slots] + [int(hidden_discard)]
    deals = []

    def place(left: list[int], k: int, chosen: list[int]) -> None:
        if k == len(sizes):
            deals.append(chosen)
            return
        for combo in itertools.combinations(left, sizes[k]):
            place([c for c in left if c not in combo], k + 1, [*chosen, cards.mask_of(list(combo))])

    place(pool, 0, [])
    cand = rel.take(np.zeros(len(deals), np.int64))
    d = np.array(deals, dtype=np.int64)
    cand.hands[:, 1:] = d[:, : p - 1]
    cand.kitty[:] = d[:, p - 1] | (0 if taken else up_bit)
    if hidden_discard:
        cand.discard[:] = np.log2(np.maximum(d[:, p], 1)).astype(np.int8)
    if rules.called_card and rel.called[0] >= 0:
        holds = bits_of(cand.hands | cand.played_by)[:, :, rel.called[0]]
        cand.partner[:] = np.where(holds.any(axis=1), holds.argmax(axis=1), -1)
    return cand


def _key(w: State) -> np.ndarray:
    """One row per world: the hidden placement (hands, kitty, discard)."""
    return np.concatenate([w.hands.astype(np.int64), w.kitty[:, None], w.discard[:, None]], axis=1)


@pytest.mark.parametrize("variant", ["five_handed", "four_handed"])
def test_sampling_is_uniform_over_consistent_deals(variant: str, rng: np.random.Generator) -> None:
    """Late in a hand, sample frequencies match a uniform draw over every consistent deal (chi-square)."""
    rules = PRESETS[variant]
    s = random_positions(rules, rng, 150)
    late = np.flatnonzero((s.phase == Phase.PLAY) & (s.trick_no == NUM_TRICKS - 1))
    tested = 0
    for row in rng.permutation(late):
        truth = s.take([row])
        viewer = np.array([truth.turn[0]])
        rel = seat_frame(truth, viewer)
        obs = encode(truth, viewer, rules)
        cand = _enumerate_deals(rel, rules)
        good = replay_is_legal(cand, rules) & (encode(cand, 0, rules) == obs).all(axis=1)
        k = int(good.sum())
        if not 4 <= k <= 400:
            continue
        keys = _key(cand.take(np.flatnonzero(good)))  # (k, P + 2), distinct rows
        draws = 40 * k
        got = _key(sample_worlds(obs, rules, draws, rng))
        table, counts = np.unique(np.concatenate([keys, got]), axis=0, return_counts=True)
        assert table.shape[0] == k, "a sampled world is not one of the consistent deals"
        counts = counts - 1  # each consistent deal was counted once from ``keys``
        chi2 = ((counts - draws / k) ** 2 / (draws / k)).sum()
        df = k - 1
        z = ((chi2 / df) ** (1 / 3) - (1 - 2 / (9 * df))) / np.sqrt(2 / (9 * df))  # Wilson-Hilferty
        assert z < 4.5, f"non-uniform sampling: chi2 {chi2:.1f} on {df} df over {k} consistent deals"
        tested += 1
        if tested == 6:
            break
    assert tested >= 3, f"only {tested} positions with several consistent deals"


def _locations(w: State, card_ids: np.ndarray) -> np.ndarray:
    """Where each card is in each world: seat, or -1 kitty, -2 discard, -3 elsewhere. (W, K) int."""
    held = bits_of(w.hands)[:, :, card_ids]  # (W, P, K)
    loc = np.where(held.any(axis=1), held.argmax(axis=1), -3)
    loc = np.where(bits_of(w.kitty)[:, card_ids], -1, loc)
    return np.where(w.discard[:, None] == card_ids, -2, loc)


def test_same_view_gives_the_same_samples(variant: str, rng: np.random.Generator) -> None:
    """Two different hidden truths behind one observation give identical samples for identical seeds."""
    rules = PRESETS[variant]
    s, viewer = positions_and_viewers(rules, rng, 30)
    obs = encode(s, viewer, rules)
    decoy = sample_worlds(obs, rules, 1, np.random.default_rng(99))  # another truth behind each view
    assert np.array_equal(encode(decoy, 0, rules), obs), "the decoy looks the same to the seat"
    truth = seat_frame(s, viewer)
    differ = (decoy.hands[:, 1:] != truth.hands[:, 1:]).any(axis=1)
    assert differ.mean() > 0.5, "the decoys mostly hide other cards"
    a = sample_worlds(obs, rules, 8, np.random.default_rng(5))
    b = sample_worlds(encode(decoy, 0, rules), rules, 8, np.random.default_rng(5))
    assert a == b, "samples depend on the hidden truth, not only on the observation"


def test_true_holder_is_not_favoured(variant: str, rng: np.random.Generator) -> None:
    """Before play, worlds put each card with its true holder no more often than with a decoy holder."""
    rules = PRESETS[variant]
    s = random_positions(rules, rng, 300)
    s = s.take(np.flatnonzero(s.phase != Phase.PLAY)[:400])
    viewer = rng.integers(0, rules.num_players, s.batch_size)
    obs = encode(s, viewer, rules)
    n = 32
    truth = seat_frame(s, viewer)
    decoy = sample_worlds(obs, rules, 1, rng)
    worlds = sample_worlds(obs, rules, n, rng)
    diffs = []
    taken = (truth.maker >= 0) & (truth.bid_round == 1)
    up_seen = ~taken | (truth.phase == Phase.DISCARD)
    for row in range(s.batch_size):
        unseen = ~bits_of(truth.hands[row, 0]) & bits_of(np.uint32(rules.deck_mask))
        unseen[truth.upcard[row]] &= not up_seen[row]
        if truth.dealer[row] == 0 and truth.discard[row] >= 0:
            unseen[truth.discard[row]] = False
        hidden = np.flatnonzero(unseen)
        where = _locations(worlds.take(np.arange(row * n, row * n + n)), hidden)  # (n, K)
        f_true = (where == _locations(truth.take([row]), hidden)).mean()
        f_decoy = (where == _locations(decoy.take([row]), hidden)).mean()
        diffs.append(f_true - f_decoy)
    d = np.array(diffs)
    z = d.mean() / (d.std(ddof=1) / np.sqrt(d.size))
    assert abs(z) < 4, f"true holders drawn {d.mean():+.4f} more often than decoy holders (z = {z:.1f})"


def test_bad_input_is_rejected(rng: np.random.Generator) -> None:
    """Wrong shapes, finished hands, bad n or rng, and impossible observations raise ValueError."""
    rules = PRESETS["four_handed"]
    s = engine.init_state(rules, 2, rng=rng)
    obs = encode(s, s.turn, rules)
    with pytest.raises(ValueError, match="shape"):
        sample_worlds(obs[:, :-1], rules, 2, rng)
    with pytest.raises(ValueError, match="positive integer"):
        sample_worlds(obs, rules, 0, rng)
    with pytest.raises(ValueError, match="Generator"):
        sample_worlds(obs, rules, 2, 7)  # type: ignore[arg-type]
    broken = obs.copy()
    broken[0, obs_layout(rules).slice("hand")] = 0  # a hand with no cards
    with pytest.raises(ValueError, match="inconsistent"):
        sample_worlds(broken, rules, 2, rng)
    while not engine.is_done(s).all():
        s = engine.step(s, engine.sample_legal(s, rules, rng), rules)
    with pytest.raises(ValueError, match="finished"):
        sample_worlds(encode(s, 0, rules), rules, 2, rng)


def test_seat_frame_commutes_with_play_and_refuses_a_bad_seat(rules: RulesConfig, rng: np.random.Generator) -> None:
    """The rules are the same from every seat: stepping a table seen from a seat gives that seat's view of the
    stepped table (every field, legal actions and rewards included), and frames compose as seat numbers add."""
    live, viewer = positions_and_viewers(rules, rng, 40)  # every position is of a live hand
    p = rules.num_players
    acts = engine.sample_legal(live, rules, rng)
    assert seat_frame(engine.step(live, acts, rules), viewer) == engine.step(seat_frame(live, viewer), acts, rules)
    other = rng.integers(0, p, live.batch_size)
    assert seat_frame(seat_frame(live, viewer), other) == seat_frame(live, (viewer + other) % p)
    assert seat_frame(live, np.zeros(live.batch_size, np.int64)) == live
    with pytest.raises(ValueError, match="seat must be"):
        seat_frame(live, np.full(live.batch_size, p))

"""The batched deal (``engine.deal``) against a plain-Python reference of the shuffle and deal.

Every deal is a pure function of ``(seed, hand_no)``: card ``i`` of the deck
(ascending ids) gets the noise ``splitmix64(key + i * golden)`` with ``key =
splitmix64(seed ^ splitmix64(hand_no))``; the deck is dealt in ascending noise
(ties to the lower index), five cards to each seat from the dealer's left, then
the upcard, then the hidden kitty. The first dealer is ``splitmix64(seed ^
salt) % P``. Published evaluation figures depend on these exact deals.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from euchre_env import engine as E
from euchre_env.engine import deal
from euchre_env.rules import make_rules
from euchre_env.state import State

M64 = (1 << 64) - 1
GOLDEN, MIX1, MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
DEALER_SALT = 0xD1B54A32D192ED03
VARIANTS = ["four_handed", "five_handed"]


def mix(x: int) -> int:
    z = (x + GOLDEN) & M64
    z = ((z ^ (z >> 30)) * MIX1) & M64
    z = ((z ^ (z >> 27)) * MIX2) & M64
    return z ^ (z >> 31)


def ref_order(seed: int, hand_no: int, deck: list[int]) -> list[int]:
    key = mix(seed ^ mix(hand_no))
    noise = [mix((key + i * GOLDEN) & M64) for i in range(len(deck))]
    return [deck[i] for i in sorted(range(len(deck)), key=lambda i: (noise[i], i))]


def ref_deal(order: list[int], dealer: int, p: int) -> tuple[list[int], int, int]:
    """(hands by seat, upcard, kitty) as bitmasks / card id."""
    hands = [0] * p
    for k in range(p):
        for c in order[5 * k : 5 * k + 5]:
            hands[(dealer + 1 + k) % p] |= 1 << c
    kitty = 0
    for c in order[5 * p :]:
        kitty |= 1 << c
    return hands, order[5 * p], kitty


def some_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    seeds = rng.integers(0, M64, n, dtype=np.uint64, endpoint=True)
    seeds[:6] = [0, M64, 1, 2**63, 2**63 - 1, 2**32]
    return seeds


def assert_deals(s: State, rows: np.ndarray, rules, what: str) -> None:
    """The deal at ``rows`` of ``s`` is the reference deal of their seed, hand_no and dealer."""
    p, deck = rules.num_players, rules.deck
    for r in rows.tolist():
        seed, hand_no, dealer = int(s.seed[r]), int(s.hand_no[r]), int(s.dealer[r])
        hands, upcard, kitty = ref_deal(ref_order(seed, hand_no, deck), dealer, p)
        got = (s.hands[r].tolist(), int(s.upcard[r]), int(s.kitty[r]), int(s.turn[r]))
        assert got == (hands, upcard, kitty, (dealer + 1) % p), (
            f"{what}: row {r}, seed {seed}, hand {hand_no}"
        )


@pytest.mark.parametrize("variant", VARIANTS)
def test_shuffled_decks_match_reference(variant: str) -> None:
    rules = make_rules(variant)
    rng = np.random.default_rng(11)
    seeds = some_seeds(rng, 3000)
    hand_no = rng.integers(0, 2**15, seeds.size).astype(np.int16)
    hand_no[:3] = 0
    got = deal.shuffled_decks(seeds, hand_no, rules)
    assert got.dtype == np.int8 and got.shape == (seeds.size, rules.num_cards_in_play)
    want = [
        ref_order(int(a), int(h), rules.deck) for a, h in zip(seeds.tolist(), hand_no.tolist(), strict=True)
    ]
    assert got.tolist() == want
    dealers = deal.first_dealer(seeds, rules)
    assert dealers.tolist() == [mix(int(a) ^ DEALER_SALT) % rules.num_players for a in seeds.tolist()]


@pytest.mark.parametrize("episode", ["hand", "game"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_reset_rows_deals_match_reference(variant: str, episode: str) -> None:
    """reset_rows on arbitrary row subsets (unsorted, one row, none, all) of a state in mid-play deals
    the reference deal, from the reference first dealer, equals init_state and leaves the other rows."""
    rules = make_rules(variant, episode=episode, points_to_win=3)
    rng = np.random.default_rng(12)
    b = 700
    s = E.init_state(rules, b, rng=rng)
    for _ in range(30):
        s = E.step(s, E.sample_legal(s, rules, rng), rules)
    for n in (b, 1, 0, 3, 64, 600, 333):
        rows = rng.permutation(b)[:n]
        seeds = some_seeds(rng, n) if n >= 6 else rng.integers(0, M64, n, dtype=np.uint64, endpoint=True)
        before = s.copy()
        E.reset_rows(s, rows, seeds, rules)
        assert s.seed[rows].tolist() == seeds.tolist()
        assert s.dealer[rows].tolist() == [
            mix(int(a) ^ DEALER_SALT) % rules.num_players for a in seeds.tolist()
        ]
        assert_deals(s, rows, rules, f"reset_rows n={n}")
        if n:
            assert s.take(rows) == E.init_state(rules, seeds=seeds), f"n={n}: differs from init_state"
        others = np.setdiff1d(np.arange(b), rows)
        assert s.take(others) == before.take(others), f"n={n}: a row that was not reset changed"
        for _ in range(5):
            s = E.step(s, E.sample_legal(s, rules, rng), rules)


@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_seeded_matches_reference(variant: str) -> None:
    """deal_seeded (the next hand of a game) deals the reference deal of (seed, hand_no, dealer)."""
    rules = make_rules(variant, episode="game")
    rng = np.random.default_rng(13)
    b = 2000
    s = E.init_state(rules, seeds=some_seeds(rng, b))
    s.hand_no[:] = rng.integers(0, 2**15, b)
    s.dealer[:] = rng.integers(0, rules.num_players, b)
    rows = np.sort(rng.permutation(b)[:1500])
    before = s.copy()
    deal.deal_seeded(s, rows, rules)
    assert_deals(s, rows, rules, "deal_seeded")
    others = np.setdiff1d(np.arange(b), rows)
    assert s.take(others) == before.take(others)


@pytest.mark.parametrize("variant", VARIANTS)
def test_noise_ties_fall_back_to_the_full_noise(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sort keys keep the top bits of the noise; rows where two cards agree on those are ordered
    from the full noise. With the keys cut to 8 noise bits nearly every row has such a tie, and the
    deal must not change."""
    rules = make_rules(variant)
    rng = np.random.default_rng(14)
    seeds = some_seeds(rng, 1000)
    hand_no = rng.integers(0, 2**15, seeds.size).astype(np.int16)
    want = deal.shuffled_decks(seeds, hand_no, rules)
    monkeypatch.setattr(deal, "_TOP", np.uint64(0xFF << 56))
    assert deal.shuffled_decks(seeds, hand_no, rules).tolist() == want.tolist()
    s = E.init_state(rules, seeds=seeds)
    E.reset_rows(s, np.arange(seeds.size)[::-1], seeds[::-1].copy(), rules)
    assert_deals(s, np.arange(0, seeds.size, 7), rules, "reset_rows with ties")


@pytest.mark.parametrize("variant", VARIANTS)
def test_reset_rows_on_non_contiguous_fields(variant: str) -> None:
    """A state whose 2-D fields are not C-contiguous (rows are not whole records) resets the same."""
    rules = make_rules(variant, episode="game")
    rng = np.random.default_rng(15)
    s = E.init_state(rules, 300, rng=rng)
    for _ in range(25):
        s = E.step(s, E.sample_legal(s, rules, rng), rules)
    odd = State(**{f.name: np.asfortranarray(getattr(s, f.name)) for f in fields(State)})
    assert not odd.hands.flags.c_contiguous
    rows = rng.permutation(300)[:120]
    seeds = some_seeds(rng, 120)
    E.reset_rows(s, rows, seeds, rules)
    E.reset_rows(odd, rows, seeds, rules)
    assert odd == s

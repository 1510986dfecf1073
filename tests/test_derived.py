"""Derived card sets (euchre_env.derived): true of the real deal, and what the engine then does."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import random_positions

from euchre_env import cards, engine, make_rules
from euchre_env.actions import PLAY_BASE, Phase
from euchre_env.derived import derived_card_sets, derived_layout, num_derived_sets
from euchre_env.encoding import CARD_SLOTS, encode, obs_layout
from euchre_env.rules import RulesConfig
from euchre_env.state import State

C = cards.NUM_CARDS


def pieces(sets: np.ndarray, rules: RulesConfig) -> dict[str, np.ndarray]:
    """Derived sets (B, K * CARD_SLOTS) by name: bool (B, n, C)."""
    x = sets.reshape(len(sets), -1, CARD_SLOTS)[:, :, :C].astype(bool)
    out, at = {}, 0
    for name, n in derived_layout(rules):
        out[name], at = x[:, at : at + n], at + n
    return out


def bits(mask: np.ndarray) -> np.ndarray:
    return (mask.astype(np.int64)[..., None] >> np.arange(C)) & 1 == 1


@pytest.fixture
def positions(
    rules: RulesConfig, rng: np.random.Generator
) -> tuple[State, dict[str, np.ndarray], np.ndarray]:
    s = random_positions(rules, rng, 150)
    v = s.turn.astype(np.int64)
    sets = derived_card_sets(encode(s, v, rules), rules)
    assert sets.shape == (s.batch_size, CARD_SLOTS * num_derived_sets(rules)) and sets.dtype == np.uint8
    assert not sets.reshape(s.batch_size, -1, CARD_SLOTS)[:, :, C:].any()  # padding stays empty
    return s, pieces(sets, rules), v


def test_hidden_cards_are_where_the_sets_allow(rules: RulesConfig, positions) -> None:
    s, d, v = positions
    p, rows = rules.num_players, np.arange(s.batch_size)
    hands = bits(s.hands)  # (B, P, C) absolute seats
    mine = hands[rows, v]
    played = bits(np.bitwise_or.reduce(s.played_by, axis=1))
    for r in range(1, p):
        theirs = hands[rows, (v + r) % p]
        assert (d["may_hold"][:, r - 1] >= theirs).all()  # every card a seat holds is allowed there
        assert not (d["may_hold"][:, r - 1] & (mine | played)).any()
        assert (d["unseen"][:, 0] >= theirs).all()
    assert not (d["unseen"][:, 0] & (mine | played)).any()
    elsewhere = np.bitwise_or.reduce(s.hands, axis=1) | s.kitty
    elsewhere = bits(elsewhere | np.where(s.discard >= 0, cards.CARD_BIT[np.maximum(s.discard, 0)], 0))
    assert (elsewhere >= d["unseen"][:, 0]).all()  # an unseen card is somewhere real
    play = s.phase == Phase.PLAY
    assert d["may_hold"][play].any() or not play.any()


def test_masters_are_not_outranked_by_any_card_the_viewer_cannot_see(rules: RulesConfig, positions) -> None:
    s, d, v = positions
    rows = np.arange(s.batch_size)
    masters = d["masters"][:, 0]
    made = s.trump < cards.NUM_SUITS
    assert not masters[~made].any()
    assert (bits(s.hands[rows, v]) >= masters).all()
    checked = 0
    for b in np.flatnonzero(made)[:400]:
        t = int(s.trump[b])
        unseen = np.flatnonzero(d["unseen"][b, 0])
        for c in np.flatnonzero(bits(s.hands[b, v[b]])):
            led = cards.EFFECTIVE_SUIT[t, c]
            beaten = any(
                cards.EFFECTIVE_SUIT[t, x] == led
                and cards.STRENGTH[t, led, x + 1] > cards.STRENGTH[t, led, c + 1]
                for x in unseen
            )
            assert masters[b, c] == (not beaten)
            checked += 1
    assert checked > 100


def test_the_trick_goes_as_beats_table_and_winning_card_say(rules: RulesConfig, positions) -> None:
    """Where the viewer plays the trick's last card, the engine's winner is the viewer exactly for the
    cards in ``beats_table``, else the seat under ``winning_card``."""
    s, d, v = positions
    p = rules.num_players
    active = p - np.bitwise_count(s.out.astype(np.uint32)).astype(np.int64)
    last = (s.phase == Phase.PLAY) & (s.n_played == active - 1) & (s.n_played > 0)
    rows = np.flatnonzero(last)
    assert rows.size > 50
    winners = d["winning_card"][rows].any(axis=2)  # (n, P) relative seats
    assert (winners.sum(axis=1) == 1).all()
    legal = engine.legal_action_mask(s.take(rows), rules)[:, PLAY_BASE : PLAY_BASE + C]
    for c in range(C):
        at = np.flatnonzero(legal[:, c])
        if not at.size:
            continue
        after = engine.step(s.take(rows[at]), np.full(at.size, PLAY_BASE + c), rules)
        t = s.trick_no[rows[at]].astype(np.intp)
        won = after.trick_winner[np.arange(at.size), t].astype(np.int64)
        expect = np.where(d["beats_table"][rows[at], 0, c], 0, winners[at].argmax(axis=1))
        assert (won == (v[rows[at]] + expect) % p).all()
    leading = (s.phase != Phase.PLAY) | (s.n_played == 0)
    assert not d["beats_table"][leading].any() and not d["winning_card"][leading].any()


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_renaming_the_suits_renames_the_sets(variant: str, rng: np.random.Generator) -> None:
    """Under each renaming of the suits that keeps colours together (the same game), the sets of the
    renamed observation are the renamed sets: so a suit-symmetric network can relabel them with the
    observation's card sets."""
    rules = make_rules(variant)
    s = random_positions(rules, rng, 100)
    obs = encode(s, s.turn.astype(np.int64), rules)
    sets = derived_card_sets(obs, rules)
    layout, card = obs_layout(rules), np.arange(C)
    renamings = [np.array(pi) for pi in itertools.permutations(range(cards.NUM_SUITS))
                 if all(pi[cards.SAME_COLOUR_SUIT[x]] == cards.SAME_COLOUR_SUIT[pi[x]] for x in range(4))]  # fmt: skip
    assert len(renamings) == 8
    for pi in renamings:
        new = pi[card // cards.NUM_RANKS] * cards.NUM_RANKS + card % cards.NUM_RANKS

        def rename(x: np.ndarray, stop: int, new: np.ndarray = new) -> np.ndarray:
            out = x.copy()
            for base in range(0, stop, CARD_SLOTS):
                out[:, base + new] = x[:, base + card]
            return out

        renamed = rename(obs, layout.offsets["passed_round_1"])
        trump = layout.offsets["trump"]
        renamed[:, trump + pi] = obs[:, trump + np.arange(cards.NUM_SUITS)]
        assert (derived_card_sets(renamed, rules) == rename(sets, sets.shape[1])).all()


def test_bad_observations_are_refused() -> None:
    rules = make_rules("four_handed")
    with pytest.raises(ValueError, match=r"obs must have shape \(B, 636\)"):
        derived_card_sets(np.zeros((3, 10)), rules)
    assert derived_card_sets(np.zeros((0, obs_layout(rules).size)), rules).shape == (0, CARD_SLOTS * 10)

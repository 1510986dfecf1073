"""The single-table path (engine.single) equals the batched engine, decision by decision."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env import encoding
from euchre_env import engine as E
from euchre_env.engine.single import Table, observe
from euchre_env.rules import PRESETS, RulesConfig, make_rules

CONFIGS = {
    **PRESETS,
    "five_handed_game": make_rules("five_handed", episode="game", points_to_win=5),
    "four_handed_no_stick_game": make_rules(
        "four_handed", stick_the_dealer=False, episode="game", points_to_win=5
    ),
    "four_handed_defend_alone_game": make_rules(
        "four_handed", defend_alone=True, episode="game", points_to_win=7
    ),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_lockstep_with_batched_engine(name: str) -> None:
    """States, legal sets and every seat's observation agree after each decision."""
    rules: RulesConfig = CONFIGS[name]
    rng = np.random.default_rng(7)
    b = 150
    state = E.init_state(rules, b, rng=rng)
    tables = [Table(state, rules, i) if i % 2 else Table.new(rules, int(state.seed[i])) for i in range(b)]
    step = 0
    while not E.is_done(state).all():
        actions = E.sample_legal(state, rules, rng)
        mask = E.legal_action_mask(state)
        for i, t in enumerate(tables):
            assert t.legal_actions() == np.flatnonzero(mask[i]).tolist(), (
                f"[{step}] table {i}: legal sets differ"
            )
        state = E.step(state, actions, rules)
        for i, t in enumerate(tables):
            t.step(int(actions[i]))
        for i in range(step % 10, b, 10):
            assert tables[i].state() == state.take([i]), f"[{step}] table {i}: states differ"
            row = state.take([i])
            for seat in range(rules.num_players):
                assert np.array_equal(observe(tables[i], seat), encoding.encode(row, seat, rules)[0]), (
                    f"[{step}] table {i} seat {seat}: observations differ"
                )
        step += 1
    assert all(t.state() == state.take([i]) for i, t in enumerate(tables)), "final states differ"


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_new_table_deals_as_init_state(name: str) -> None:
    """Table.new(rules, seed) deals exactly as init_state(rules, seeds=[seed]) (rules.md#c1, #c4)."""
    rules: RulesConfig = CONFIGS[name]
    seeds = [0, 1, 2**63 - 1, 2**64 - 1, *np.random.default_rng(3).integers(0, 2**63, 300).tolist()]
    state = E.init_state(rules, seeds=seeds)
    for i, seed in enumerate(seeds):
        assert Table.new(rules, seed).state() == state.take([i]), f"seed {seed}: dealt differently"


def test_table_state_round_trip() -> None:
    """A Table built from a state gives back an equal state."""
    rules = PRESETS["five_handed"]
    state = E.init_state(rules, 3, rng=np.random.default_rng(0))
    for i in range(3):
        assert Table(state, rules, i).state() == state.take([i]), f"table {i} does not round-trip"

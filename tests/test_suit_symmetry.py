"""Suit symmetry: renaming the suits of a deal gives the same game, and the suit-symmetric network uses it.

Checks that the engine really is symmetric under colour-preserving renamings of
the suits (the premise), that ``euchre_env.encoding``'s reference suit and
tables are what they say, and that ``agents.suit_symmetry.SuitSymmetric`` gives
renamed logits for renamed observations.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from agents.neural import NeuralAgent, PolicyConfig, build_mlp, load_policy, rules_metadata, save_policy
from agents.suit_symmetry import SuitSymmetric
from euchre_env import actions, cards, engine
from euchre_env.encoding import (
    CARD_SLOTS,
    encode,
    obs_layout,
    other_colour_entries,
    reference_suit,
    suit_roles,
    suit_symmetry_tables,
)
from euchre_env.records import deal_of
from euchre_env.rules import RulesConfig, make_rules

VARIANTS = ["four_handed", "five_handed"]
# renamings that keep the two suits of each colour together: 8 of the 24
RENAMINGS = [
    np.array(p)
    for p in itertools.permutations(range(cards.NUM_SUITS))
    if all(p[cards.SAME_COLOUR_SUIT[s]] == cards.SAME_COLOUR_SUIT[p[s]] for s in range(cards.NUM_SUITS))
]


def rename_card(card: np.ndarray, pi: np.ndarray) -> np.ndarray:
    return pi[card // cards.NUM_RANKS] * cards.NUM_RANKS + card % cards.NUM_RANKS


def rename_action(a: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """Action ids with their card or suit renamed by ``pi`` (others unchanged)."""
    a = np.asarray(a)
    base = (a // cards.NUM_CARDS) * cards.NUM_CARDS
    out = np.where(a < actions.PASS, base + rename_card(a % cards.NUM_CARDS, pi), a)
    named = (a >= actions.NAME_SUIT_BASE) & (a < actions.NAME_SUIT_BASE + cards.NUM_SUITS)
    return np.where(named, actions.NAME_SUIT_BASE + pi[np.clip(a - actions.NAME_SUIT_BASE, 0, 3)], out)


def rename_obs(x: np.ndarray, pi: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """Observations (B, D) of the renamed deal, written from the layout (not from the tables under test)."""
    layout, out = obs_layout(rules), np.array(x)
    for base in range(0, layout.offsets["passed_round_1"], CARD_SLOTS):
        card = np.arange(cards.NUM_CARDS)
        out[:, base + rename_card(card, pi)] = x[:, base + card]
    trump = layout.offsets["trump"]
    out[:, trump + pi] = x[:, trump + np.arange(cards.NUM_SUITS)]
    return out


def rename_deal(deal: dict, pi: np.ndarray) -> dict:
    name = lambda c: c[:-1] + cards.SUIT_CHARS[pi[cards.SUIT_CHARS.index(c[-1])]]
    return {**deal, "hands": [[name(c) for c in h] for h in deal["hands"]],
            "upcard": name(deal["upcard"]), "kitty": [name(c) for c in deal["kitty"]]}  # fmt: skip


def test_renamings_are_the_colour_preserving_ones() -> None:
    assert len(RENAMINGS) == 8 and any((p == np.arange(4)).all() for p in RENAMINGS)


@pytest.mark.parametrize("variant", VARIANTS)
def test_renamed_deal_plays_the_renamed_game(variant: str) -> None:
    """The premise: a deal with its suits renamed has renamed legal moves, observations and the same points."""
    rules = make_rules(variant, episode="hand")
    for k, pi in enumerate(RENAMINGS):
        rng = np.random.default_rng(k)
        s1 = engine.init_state(rules, 40, rng=rng)
        s2 = engine.init_state(rules, deals=[rename_deal(deal_of(s1, rules, i), pi) for i in range(40)])
        while not engine.is_done(s1).all():
            assert np.array_equal(engine.is_done(s1), engine.is_done(s2))
            live = np.flatnonzero(~engine.is_done(s1))
            m1 = engine.legal_action_mask(s1, rules)[live]
            m2 = engine.legal_action_mask(s2, rules)[live]
            a = np.arange(actions.NUM_ACTIONS)
            assert np.array_equal(m2[:, rename_action(a, pi)], m1), f"renaming {pi}: legal moves differ"
            x1 = encode(s1.take(live), s1.turn[live], rules)
            x2 = encode(s2.take(live), s2.turn[live], rules)
            assert np.array_equal(x2, rename_obs(x1, pi, rules)), f"renaming {pi}: observations differ"
            assert np.array_equal(reference_suit(x2, rules), pi[reference_suit(x1, rules)])
            step = engine.sample_legal(s1, rules, rng)
            s1 = engine.step(s1, step, rules)
            s2 = engine.step(s2, np.where(step >= 0, rename_action(step, pi), step), rules)
        assert np.array_equal(engine.rewards(s1, rules), engine.rewards(s2, rules))


def _positions(rules: RulesConfig, tables: int, seed: int) -> np.ndarray:
    """float32 observations of the acting seats over whole random hands."""
    rng = np.random.default_rng(seed)
    s, obs = engine.init_state(rules, tables, rng=rng), []
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        obs.append(encode(s.take(live), s.turn[live], rules, np.float32))
        s = engine.step(s, engine.sample_legal(s, rules, rng), rules)
    return np.concatenate(obs)


@pytest.mark.parametrize("variant", VARIANTS)
def test_reference_suit_is_trump_else_the_upcards_suit(variant: str) -> None:
    rules = make_rules(variant, episode="hand")
    x = _positions(rules, 30, seed=1)
    layout = obs_layout(rules)
    trump = x[:, layout.slice("trump")]
    upcard = x[:, layout.slice("upcard")][:, : cards.NUM_CARDS].argmax(axis=1) // cards.NUM_RANKS
    made = trump.any(axis=1)
    assert made.any() and (~made).any()
    ref = reference_suit(x, rules)
    assert np.array_equal(ref[made], trump[made].argmax(axis=1))
    assert np.array_equal(ref[~made], upcard[~made])
    actor = SuitSymmetric(build_mlp([layout.size, 8, actions.NUM_ACTIONS]), rules)
    assert np.array_equal(actor.reference(torch.from_numpy(x)).numpy(), ref), "torch and numpy disagree"


@pytest.mark.parametrize("variant", VARIANTS)
def test_tables_relabel_cards_and_suits_only(variant: str) -> None:
    """Each table row is a permutation; reference suit 0 relabels nothing but the same-colour/other order."""
    rules = make_rules(variant)
    layout = obs_layout(rules)
    obs_src, action_src = suit_symmetry_tables(rules, extra_card_sets=2)
    assert obs_src.shape == (8, layout.size + 2 * CARD_SLOTS) and action_src.shape == (8, actions.NUM_ACTIONS)
    for row in (*obs_src, *action_src):
        assert np.array_equal(np.sort(row), np.arange(len(row)))
    trump = layout.offsets["trump"]
    fixed = np.r_[layout.offsets["passed_round_1"] : trump, trump + 4 : layout.size]
    assert (obs_src[:, fixed] == fixed).all(), "flags and one-hots other than trump must not move"
    assert (action_src[:, actions.PASS : actions.NAME_SUIT_BASE] == [actions.PASS, actions.ORDER_UP]).all()
    roles = suit_roles()
    assert (roles[:, 0] == np.arange(4)).all() and (roles[:, 1] == cards.SAME_COLOUR_SUIT).all()
    extra = layout.size + CARD_SLOTS  # the second extra card set
    for r in range(4):  # the canonical ace of trump is the reference suit's ace, in every card set
        ace = cards.card_id(cards.ACE, 0)
        for row in (2 * r, 2 * r + 1):
            assert obs_src[row, ace] == cards.card_id(cards.ACE, r)
            assert obs_src[row, extra + ace] == extra + cards.card_id(cards.ACE, r)
            assert action_src[row, actions.play(cards.card_id(cards.ACE, r))] == actions.play(ace)
        for k, w in itertools.product(range(4), range(2)):  # row 2r + w: roles in order, or 2 and 3 swapped
            suit = roles[r, [0, 1, 3, 2][k] if w else k]
            assert obs_src[2 * r + w, extra + cards.card_id(cards.KING, k)] == extra + cards.card_id(cards.KING, suit)
            assert action_src[2 * r + w, actions.NAME_SUIT_BASE + suit] == actions.NAME_SUIT_BASE + k


def test_columns_between_the_observation_and_its_card_sets_are_not_relabelled() -> None:
    """A partner belief (``extra_columns``, over seats) sits after the observation and stays put; the card
    sets after it are relabelled exactly as without it, one place further on."""
    rules = make_rules("five_handed")
    size = obs_layout(rules).size
    plain, _ = suit_symmetry_tables(rules, extra_card_sets=2)
    with_cols, _ = suit_symmetry_tables(rules, extra_card_sets=2, extra_columns=6)
    assert with_cols.shape == (8, size + 6 + 2 * CARD_SLOTS)
    assert (with_cols[:, size : size + 6] == np.arange(size, size + 6)).all()
    assert (with_cols[:, :size] == plain[:, :size]).all()
    assert (with_cols[:, size + 6 :] == plain[:, size:] + 6).all()
    assert (plain[:, size:] != np.arange(size, size + 2 * CARD_SLOTS)).any()  # the card sets do move


@pytest.mark.parametrize("variant", VARIANTS)
def test_symmetric_actor_gives_renamed_logits_for_renamed_observations(variant: str) -> None:
    """For every reference suit r and r': renaming r's roles onto r''s renames the logits the same way."""
    rules = make_rules(variant, episode="hand")
    x = _positions(rules, 40, seed=2)
    torch.manual_seed(0)
    actor = SuitSymmetric(build_mlp([obs_layout(rules).size, 16, actions.NUM_ACTIONS]), rules)
    plain = build_mlp([obs_layout(rules).size, 16, actions.NUM_ACTIONS])
    plain.load_state_dict(actor.state_dict())
    ref, roles, a = reference_suit(x, rules), suit_roles(), np.arange(actions.NUM_ACTIONS)
    with torch.no_grad():
        logits = actor(torch.from_numpy(x)).numpy()
        assert not np.allclose(logits, plain(torch.from_numpy(x)).numpy()), "the relabelling did nothing"
        for r, r2 in itertools.product(range(4), range(4)):
            rows = ref == r
            pi = np.empty(4, np.int64)
            pi[roles[r]] = roles[r2]  # the suit playing role k for r becomes the one playing it for r2
            x2 = rename_obs(x[rows], pi, rules)
            assert (reference_suit(x2, rules) == r2).all()
            got = actor(torch.from_numpy(x2)).numpy()
            np.testing.assert_allclose(got[:, rename_action(a, pi)], logits[rows], atol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_sorting_the_other_colour_makes_every_renaming_one_input(variant: str) -> None:
    """With ``sort_other_colour``, all 8 renamings of a position give the same canonical input, and the
    logits are renamed with it wherever the other colour's two suits differ in the observation."""
    rules = make_rules(variant, episode="hand")
    x = _positions(rules, 40, seed=6)
    torch.manual_seed(1)
    actor = SuitSymmetric(build_mlp([obs_layout(rules).size, 16, actions.NUM_ACTIONS]), rules, sort_other_colour=True)
    a = np.arange(actions.NUM_ACTIONS)

    def canonical(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The canonical inputs (B, D) and whether the other colour's suits differ there (B,)."""
        t = torch.from_numpy(x)
        canon = t.gather(1, actor.obs_src[actor.rows(t)])
        differ = (canon[:, actor.entries[0]] != canon[:, actor.entries[1]]).any(dim=1)
        return canon.numpy(), differ.numpy()

    base, differ = canonical(x)
    assert 0.5 < differ.mean() < 1, "positions with and without a difference between the two suits"
    held, entries = other_colour_entries(rules)
    mine = base[:, held].max(axis=2)  # (B, 2, R): the cards the seat has held of suits 2 and 3
    key = np.concatenate([mine[:, 0] - mine[:, 1], base[:, entries[0]] - base[:, entries[1]]], axis=1)
    first = np.argmax(key != 0, axis=1)
    assert (key[differ, first[differ]] == 1).all(), "suit 2 has the 1 at the first difference"
    holds = mine.sum(axis=2)
    assert (holds[:, 0] >= holds[:, 1]).mean() > 0.6 and (holds[:, 0] != holds[:, 1]).any()
    with torch.no_grad():
        logits = actor(torch.from_numpy(x)).numpy()
        for pi in RENAMINGS:
            x2 = rename_obs(x, pi, rules)
            assert np.array_equal(canonical(x2)[0], base), f"renaming {pi} gives another input"
            got = actor(torch.from_numpy(x2)).numpy()[:, rename_action(a, pi)]
            np.testing.assert_allclose(got[differ], logits[differ], atol=1e-5)
    # without sorting, swapping the other colour's two suits (clubs/spades reference: D <-> H) gives other inputs
    plain = lambda v: torch.from_numpy(v).gather(1, actor.obs_src[2 * actor.reference(torch.from_numpy(v))]).numpy()
    rows = differ & np.isin(reference_suit(x, rules), [cards.SUIT_CHARS.index("C"), cards.SUIT_CHARS.index("S")])
    swapped = plain(rename_obs(x, np.array([0, 2, 1, 3]), rules))
    assert rows.any() and (swapped[rows] != plain(x)[rows]).any(axis=1).all()


def test_symmetric_critic_is_invariant_and_keeps_the_plain_names() -> None:
    rules = make_rules("four_handed", episode="hand")
    x = _positions(rules, 20, seed=3)
    extra = np.zeros((len(x), 3 * CARD_SLOTS), np.float32)
    critic = SuitSymmetric(build_mlp([x.shape[1] + extra.shape[1], 8, 1]), rules, 3, relabel_output=False)
    assert set(critic.state_dict()) == set(build_mlp([1, 8, 1]).state_dict()), "tables must not be saved"
    ref, roles = reference_suit(x, rules), suit_roles()
    with torch.no_grad():
        v = critic(torch.from_numpy(np.hstack([x, extra])))
        rows = ref == 2
        pi = np.empty(4, np.int64)
        pi[roles[2]] = roles[1]
        v2 = critic(torch.from_numpy(np.hstack([rename_obs(x[rows], pi, rules), extra[rows]])))
    assert v.shape == (len(x), 1)
    np.testing.assert_allclose(v2.numpy(), v[rows].numpy(), atol=1e-5)


@pytest.mark.parametrize("sort", [False, True])
def test_symmetric_model_file_round_trip(tmp_path, sort: bool) -> None:
    """A policy saved with ``suit_symmetry`` loads as a symmetric actor that acts as the saved one."""
    rules = make_rules("five_handed", episode="hand")
    size = obs_layout(rules).size
    torch.manual_seed(5)
    config = PolicyConfig(rules=rules_metadata(rules), obs_size=size, hidden=[12], suit_symmetry=True,
                          sort_other_colour=sort)  # fmt: skip
    actor = SuitSymmetric(build_mlp([size, 12, actions.NUM_ACTIONS]), rules, sort_other_colour=sort)
    path = save_policy(tmp_path / "sym.safetensors", actor, config)
    loaded, got = load_policy(path)
    assert got.suit_symmetry and isinstance(loaded, SuitSymmetric)
    assert got.sort_other_colour == loaded.sort_other_colour == sort
    x = _positions(rules, 10, seed=4)
    with torch.no_grad():
        assert torch.equal(loaded(torch.from_numpy(x)), actor(torch.from_numpy(x)))
    rng = np.random.default_rng(0)
    s = engine.init_state(rules, 50, rng=rng)
    agent = NeuralAgent(str(path), rules)
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        masks = engine.legal_action_mask(s, rules)[live]
        act = agent.act(encode(s.take(live), s.turn[live], rules), masks, rng)
        assert masks[np.arange(len(live)), act].all()
        full = np.full(s.batch_size, -1, np.int64)
        full[live] = act
        s = engine.step(s, full, rules)

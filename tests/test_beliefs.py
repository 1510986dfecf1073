"""Hidden-partner beliefs: exact counting against brute force, sampled beliefs, leaks, env infos."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from conftest import random_positions

from agents.beliefs import (
    HeuristicModel,
    LogitModel,
    MixtureModel,
    NoisyModel,
    PolicyBelief,
    SeatMixtureModel,
    UniformModel,
    history_log_likelihood,
    with_noise,
)
from agents.neural import NeuralAgent
from euchre_env import cards, engine, make_rules
from euchre_env.actions import Phase
from euchre_env.beliefs import (
    PRIVATE_PIECES,
    PUBLIC,
    ExactBelief,
    UniformBelief,
    exact_partner_belief,
    sample_view_worlds,
    to_absolute,
    view_observations,
)
from euchre_env.encoding import encode, obs_layout
from euchre_env.envs import aec_env
from euchre_env.envs.vector_env import EuchreVectorEnv
from euchre_env.infoset import history_action, rewind_to_deal
from euchre_env.rules import HAND_SIZE, NUM_TRICKS
from euchre_env.state import State

RULES = make_rules("five_handed")
P = RULES.num_players
VIEWS = [*range(P), PUBLIC]
MODEL_FILE = Path(__file__).resolve().parents[1] / "agents" / "models" / "five_handed.safetensors"


def bits_of(mask: np.ndarray) -> np.ndarray:
    """(...) uint32 card masks -> (..., C) bool."""
    return (mask.astype(np.int64)[..., None] >> np.arange(cards.NUM_CARDS)) & 1 == 1


# --- brute force: every deal, judged by the engine ---------------------------------


def replay(worlds: State, skip: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Replay each world's history from its deal with the engine.

    Returns ``ok`` (B,) (a proper deal, every public action legal), the
    ``partner`` the engine makes at the call, and the log-likelihood of the
    decisions of every seat but ``skip`` under uniformly random legal play.
    """
    cur, idx = rewind_to_deal(worlds, RULES), np.arange(worlds.batch_size)
    sizes = np.concatenate([bits_of(cur.hands).sum(axis=2), bits_of(cur.kitty).sum(axis=1)[:, None]], axis=1)
    every = np.bitwise_or.reduce(cur.hands, axis=1) | cur.kitty
    ok = (sizes == [HAND_SIZE] * P + [RULES.kitty_size]).all(axis=1) & (every == RULES.deck_mask)
    ok &= bits_of(cur.kitty)[idx, cur.upcard]
    partner, loglik = np.full(worlds.batch_size, -9), np.zeros(worlds.batch_size)
    while idx.size:
        target = worlds.take(idx)
        here = (cur.phase == target.phase) & (cur.turn == target.turn)
        here &= (cur.trick_no == target.trick_no) & (cur.n_played == target.n_played)
        partner[idx[here]] = cur.partner[here]
        a = history_action(cur, target)
        masks = engine.legal_action_mask(cur, RULES)
        legal = masks[np.arange(idx.size), np.maximum(a, 0)] & (a >= 0)
        ok[idx[~here & ~legal]] = False
        loglik[idx] -= np.where(~here & (cur.turn != skip), np.log(masks.sum(axis=1)), 0.0)
        go = np.flatnonzero(~here & legal)
        cur, idx = engine.step(cur.take(go), a[go], RULES), idx[go]
    return ok, partner, loglik


def enumerate_deals(truth: State, viewer: int) -> State:
    """Every placement of the cards ``viewer`` cannot see into the places it cannot see (one table)."""
    public = viewer == PUBLIC
    taken = bool(truth.maker[0] >= 0 and truth.bid_round[0] == 1)
    up = int(truth.upcard[0])
    seen = int(np.bitwise_or.reduce(truth.played_by[0])) | (0 if taken else 1 << up)
    seats = [s for s in range(P) if public or s != viewer]
    if not public:
        seen |= int(truth.hands[0, viewer])
        if truth.dealer[0] == viewer and truth.discard[0] >= 0:
            seen |= 1 << int(truth.discard[0])
    hidden_discard = taken and (public or truth.dealer[0] != viewer)
    sizes = [int(bits_of(truth.hands[0, s]).sum()) for s in seats] + [
        RULES.kitty_size - 1,
        int(hidden_discard),
    ]
    deals: list[list[int]] = []

    def place(left: list[int], k: int, chosen: list[int]) -> None:
        if k == len(sizes):
            deals.append(chosen)
            return
        for combo in itertools.combinations(left, sizes[k]):
            place([c for c in left if c not in combo], k + 1, [*chosen, cards.mask_of(list(combo))])

    place(cards.cards_of(RULES.deck_mask & ~seen), 0, [])
    d = np.array(deals, dtype=np.int64)
    cand = truth.take(np.zeros(len(deals), np.int64))
    for j, s in enumerate(seats):
        cand.hands[:, s] = d[:, j]
    cand.kitty[:] = d[:, len(seats)] | (0 if taken else 1 << up)
    if hidden_discard:
        cand.discard[:] = np.log2(np.maximum(d[:, -1], 1)).astype(np.int8)
    return cand


def public_view(obs: np.ndarray) -> np.ndarray:
    """A seat-0 observation with the private pieces zeroed."""
    obs = obs.copy()
    for name in PRIVATE_PIECES:
        obs[:, obs_layout(RULES).slice(name)] = 0
    return obs


def brute_force(truth: State, viewer: int) -> tuple[np.ndarray, np.ndarray]:
    """Beliefs over every consistent deal: uniform (rules only) and under random play. (P + 1,) each."""
    cand = enumerate_deals(truth, viewer)
    v = 0 if viewer == PUBLIC else viewer
    same = encode(cand, v, RULES) == encode(truth, v, RULES)
    if viewer == PUBLIC:
        same = public_view(encode(cand, v, RULES)) == public_view(encode(truth, v, RULES))
    ok, partner, loglik = replay(cand, skip=viewer)
    good = same.all(axis=1) & ok
    col = np.where(partner[good] >= 0, partner[good], P)
    rules_only = np.bincount(col, minlength=P + 1) / good.sum()
    w = np.exp(loglik[good] - loglik[good].max())
    return rules_only, np.bincount(col, weights=w, minlength=P + 1) / w.sum()


def late_positions(rng: np.random.Generator, trick: int, min_played: int, count: int) -> State:
    """Positions in ``trick`` with a called card still hidden (at least ``min_played`` cards on the table)."""
    s = random_positions(RULES, rng, 40)
    rows = (s.phase == Phase.PLAY) & (s.trick_no == trick) & (s.n_played >= min_played)
    rows &= (s.called >= 0) & (s.revealed < 0)
    return s.take(rng.permutation(np.flatnonzero(rows))[:count])


# --- exact beliefs -----------------------------------------------------------------


def test_exact_belief_equals_brute_force_enumeration(rng: np.random.Generator) -> None:
    """Late in a hand, for every view, the counted belief is the enumeration of all consistent deals."""
    last = late_positions(rng, NUM_TRICKS - 1, 0, 8)
    fourth = late_positions(rng, NUM_TRICKS - 2, 3, 3)
    assert last.batch_size == 8 and fourth.batch_size == 3, "not enough late positions"
    uncertain = 0
    for s, views in ((last, VIEWS), (fourth, [int(truth) for truth in fourth.maker])):
        for row in range(s.batch_size):
            truth = s.take([row])
            for viewer in views if s is last else [views[row], (views[row] + 1) % P]:
                expect, _ = brute_force(truth, viewer)
                got = exact_partner_belief(truth, RULES, viewer)[0]
                np.testing.assert_allclose(got, expect, atol=1e-12, err_msg=f"row {row} viewer {viewer}")
                uncertain += expect.max() < 1
    assert uncertain >= 20, f"only {uncertain} uncertain beliefs: the test is too weak"


def test_beliefs_are_distributions_that_never_rule_out_the_truth(rng: np.random.Generator) -> None:
    """Rows sum to 1, NaN before the call, certain when the view knows, and the true partner is possible."""
    s = random_positions(RULES, rng, 40)
    declared = (s.called >= 0) | s.alone
    truth = np.where(s.partner >= 0, s.partner, P)
    rows = np.arange(s.batch_size)
    for viewer in VIEWS:
        for kind in (ExactBelief(), UniformBelief()):
            probs = kind(s, RULES, viewer).probs
            assert np.array_equal(~np.isnan(probs).any(axis=1), declared), f"{kind.name}: defined rows"
            p = probs[declared]
            np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
            assert (p >= 0).all() and (p[np.arange(p.shape[0]), s.maker[declared]] == 0).all(), "maker col"
            assert (probs[rows[declared], truth[declared]] > 0).all(), f"{kind.name} rules out the truth"
            known = declared & (s.alone | (s.revealed >= 0) | ((s.partner == viewer) & (viewer != PUBLIC)))
            assert (probs[rows[known], truth[known]] == 1).all(), (
                f"{kind.name}: a known partner is not certain"
            )
    exact = ExactBelief()(s, RULES, PUBLIC).probs[declared]
    assert (exact.max(axis=1) < 1).mean() > 0.3, "the public should be unsure in many positions"
    seat = rng.integers(0, P, s.batch_size)  # the public view from another seat's frame: the same belief
    rel = ExactBelief().from_observations(encode(s, seat, RULES), RULES, np.ones(s.batch_size, bool)).probs
    np.testing.assert_allclose(to_absolute(rel, seat), ExactBelief()(s, RULES, PUBLIC).probs, atol=1e-12)


def test_four_handed_and_bad_input_are_refused(rng: np.random.Generator) -> None:
    """Four-handed partners are never hidden; bad viewers, shapes and types get a clear ValueError."""
    four = make_rules("four_handed")
    with pytest.raises(ValueError, match="five_handed game only"):
        ExactBelief()(engine.init_state(four, 2, rng=rng), four, 0)
    s = engine.init_state(RULES, 3, rng=rng)
    for bad in (5, -2, [0, 1], 1.5, True):
        with pytest.raises(ValueError, match="viewer"):
            ExactBelief()(s, RULES, bad)
    with pytest.raises(ValueError, match="shape"):
        ExactBelief().from_observations(np.zeros((2, 7)), RULES, np.zeros(2, bool))
    with pytest.raises(ValueError, match="n_worlds"):
        PolicyBelief(UniformModel(), n_worlds=0)
    with pytest.raises(ValueError, match="action_probs"):
        PolicyBelief(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="epsilon"):
        HeuristicModel(RULES, epsilon=1.5)


# --- leaks -------------------------------------------------------------------------


def shuffle_unseen(s: State, viewer: np.ndarray, rng: np.random.Generator) -> State:
    """Swap random cards between places each view cannot see: other hands, hidden kitty, hidden discard.

    Swaps ignore the rules (voids, the maker and the called card), so they
    also test that a belief reads nothing but the view. ``partner`` follows the called card.
    """
    out = s.copy()
    for b in range(s.batch_size):
        v = int(viewer[b])
        places: list[tuple[str, int]] = [("hand", q) for q in range(P) if q != v]
        taken = out.maker[b] >= 0 and out.bid_round[b] == 1
        places.append(("kitty", -1))
        if taken and out.discard[b] >= 0 and out.dealer[b] != v:
            places.append(("discard", -1))
        called = int(out.called[b])
        home = [i for i, (k, q) in enumerate(places) if called >= 0 and _holds(out, b, k, q, called)]
        for step in range(4):  # first move the called card if it lies unseen, then swap at random
            i, j = rng.choice(len(places), 2, replace=False)
            if step == 0 and home:
                i, j = home[0], rng.choice([x for x in range(len(places)) if x != home[0]])
            (ka, qa), (kb, qb) = places[i], places[j]
            ca = called if step == 0 and home else _pick(out, b, ka, qa, rng)
            cb = _pick(out, b, kb, qb, rng)
            if ca is None or cb is None:
                continue
            _put(out, b, ka, qa, ca, cb)
            _put(out, b, kb, qb, cb, ca)
    holds = bits_of(out.hands)[np.arange(out.batch_size), :, np.maximum(out.called, 0)]  # (B, P)
    moved = (out.called >= 0) & (out.revealed < 0)
    out.partner[:] = np.where(moved, np.where(holds.any(axis=1), holds.argmax(axis=1), -1), out.partner)
    return out


def _holds(s: State, b: int, kind: str, seat: int, card: int) -> bool:
    if kind == "discard":
        return int(s.discard[b]) == card
    mask = int(s.hands[b, seat]) if kind == "hand" else int(s.kitty[b]) & ~(1 << int(s.upcard[b]))
    return bool(mask >> card & 1)


def _pick(s: State, b: int, kind: str, seat: int, rng: np.random.Generator) -> int | None:
    if kind == "discard":
        return int(s.discard[b])
    mask = int(s.hands[b, seat]) if kind == "hand" else int(s.kitty[b]) & ~(1 << int(s.upcard[b]))
    ids = cards.cards_of(mask)
    return int(rng.choice(ids)) if ids else None


def _put(s: State, b: int, kind: str, seat: int, old: int, new: int) -> None:
    if kind == "discard":
        s.discard[b] = new
    elif kind == "hand":
        s.hands[b, seat] = (int(s.hands[b, seat]) & ~(1 << old)) | (1 << new)
    else:
        s.kitty[b] = (int(s.kitty[b]) & ~(1 << old)) | (1 << new)


def test_nothing_a_view_cannot_see_moves_its_belief(rng: np.random.Generator) -> None:
    """Reshuffling the unseen cards leaves every kind of belief unchanged; a seat's own cards do move it."""
    s = random_positions(RULES, rng, 12)
    s = s.take(np.flatnonzero((s.called >= 0) & (s.phase == Phase.PLAY))[::3])
    for viewer in (rng.integers(0, P, s.batch_size), np.full(s.batch_size, PUBLIC)):
        other = shuffle_unseen(s, viewer, rng)
        assert (other.hands != s.hands).any(axis=1).mean() > 0.5, "the reshuffle changed little"
        for kind in (ExactBelief(), UniformBelief()):
            np.testing.assert_array_equal(kind(other, RULES, viewer).probs, kind(s, RULES, viewer).probs)
        a = PolicyBelief(UniformModel(), n_worlds=16, seed=3)(s, RULES, viewer)
        b = PolicyBelief(UniformModel(), n_worlds=16, seed=3)(other, RULES, viewer)
        np.testing.assert_array_equal(a.probs, b.probs)
        np.testing.assert_array_equal(a.ess, b.ess)
        hidden = (s.revealed < 0) & (s.partner != viewer)
        assert (other.partner != s.partner)[hidden].mean() > 0.3, "the reshuffle rarely moved the partner"


# --- sampled beliefs ----------------------------------------------------------------


def test_sampled_worlds_are_consistent_with_the_view(rng: np.random.Generator) -> None:
    """Worlds re-encode to the view's observation and replay legally from a proper deal."""
    s = random_positions(RULES, rng, 10)
    s = s.take(rng.permutation(np.flatnonzero(s.phase != Phase.DONE))[:120])
    for viewer in (rng.integers(0, P, s.batch_size), PUBLIC):
        obs, _, public = view_observations(s, RULES, viewer)
        worlds = sample_view_worlds(obs, RULES, public, 3, rng)
        again = encode(worlds, 0, RULES, np.uint8)
        if np.all(viewer == PUBLIC):
            again = public_view(again)
        assert np.array_equal(again, np.repeat(obs, 3, axis=0)), "a world looks different to the view"
        ok, partner, _ = replay(worlds, skip=-1)
        assert ok.all(), "a sampled world's history is illegal"
        named = worlds.called >= 0
        assert np.array_equal(partner[named], worlds.partner[named]), (
            "partner is not the called card's holder"
        )


def test_equal_weights_estimate_the_exact_belief(rng: np.random.Generator) -> None:
    """With no player model, the sampled belief is the exact one within 5 standard errors."""
    s = random_positions(RULES, rng, 30)
    s = s.take(rng.permutation(np.flatnonzero((s.called >= 0) & (s.revealed < 0)))[:80])
    n = 1000
    for viewer in (PUBLIC, rng.integers(0, P, s.batch_size)):
        exact = ExactBelief()(s, RULES, viewer).probs
        got = PolicyBelief(None, n_worlds=n, seed=11)(s, RULES, viewer)
        sampled = ~np.isnan(got.ess)
        assert sampled.mean() > 0.5 and (got.ess[sampled] == n).all(), "equal weights: ESS is n"
        np.testing.assert_array_equal(got.probs[~sampled], exact[~sampled])  # certain rows are not sampled
        err = np.abs(got.probs - exact)[sampled]
        bound = 5 * np.sqrt(exact * (1 - exact) / n)[sampled]
        assert (err <= bound).all(), f"sampled belief off by {err.max():.3f} (> 5 standard errors)"


def test_uniform_model_is_the_random_play_posterior(rng: np.random.Generator) -> None:
    """UniformModel weighs worlds by random play: brute force agrees, and plays are evidence there."""
    s = late_positions(rng, NUM_TRICKS - 1, 0, 5)
    differs = 0
    for row in range(s.batch_size):
        truth = s.take([row])
        for viewer in (int(rng.integers(P)), PUBLIC):
            rules_only, random_play = brute_force(truth, viewer)
            got = PolicyBelief(UniformModel(), n_worlds=4000, seed=row)(truth, RULES, viewer)
            if np.isnan(got.ess[0]):
                continue
            se = np.sqrt(random_play * (1 - random_play) / got.ess[0])
            assert (np.abs(got.probs[0] - random_play) <= 5 * se + 1e-12).all(), f"row {row} viewer {viewer}"
            differs += (np.abs(rules_only - random_play) > 5 * se).any()
    assert differs >= 2, "random play should be evidence about the called card in late positions"


def test_player_models(rng: np.random.Generator) -> None:
    """All-noise heuristic = uniform; noisy heuristic and a trained network give proper beliefs and ESS."""
    s = random_positions(RULES, rng, 6)
    s = s.take(rng.permutation(np.flatnonzero((s.called >= 0) & (s.revealed < 0)))[:12])
    viewer = rng.integers(0, P, s.batch_size)
    a = PolicyBelief(UniformModel(), n_worlds=24, seed=5)(s, RULES, viewer)
    b = PolicyBelief(HeuristicModel(RULES, epsilon=1.0), n_worlds=24, seed=5)(s, RULES, viewer)
    np.testing.assert_allclose(b.probs, a.probs, atol=1e-9)  # the observation path = the fast path
    net = NeuralAgent(MODEL_FILE, RULES)
    for model in (HeuristicModel(RULES, epsilon=0.2), LogitModel(net, temperature=2.0), net):
        got = PolicyBelief(model, n_worlds=24, seed=5)(s, RULES, viewer)
        np.testing.assert_allclose(got.probs.sum(axis=1), 1.0, atol=1e-9)
        assert ((got.ess >= 1 - 1e-9) & (got.ess <= 24 + 1e-9)).all(), f"{model!r}: ESS outside [1, n]"
    obs, masks = encode(s, s.turn, RULES), engine.legal_action_mask(s, RULES)
    probs = net.action_probs(obs, masks)
    assert (probs[~masks] == 0).all() and np.allclose(probs.sum(axis=1), 1.0), "LogitAgent.action_probs"
    assert np.array_equal(probs.argmax(axis=1), net.act(obs, masks, rng)), "the most likely action is played"


def test_noisy_and_mixture_models_are_the_stated_blends(rng: np.random.Generator) -> None:
    """NoisyModel(base, eps) = (1 - eps) base + eps uniform over the legal actions, a grid of eps at once;
    MixtureModel = the weighted mean of its models; bad arguments are refused by name."""
    s = random_positions(RULES, rng, 4)
    s = s.take(rng.permutation(s.batch_size)[:40])
    obs, masks = encode(s, s.turn, RULES), engine.legal_action_mask(s, RULES)
    base = HeuristicModel(RULES, epsilon=0.0)
    sharp = base.action_probs(obs, masks)
    uniform = masks / masks.sum(axis=1, keepdims=True)
    grid = NoisyModel(base, np.array([0.0, 0.3, 1.0])).action_probs(obs, masks)
    assert grid.shape == (*masks.shape, 3)
    for i, eps in enumerate((0.0, 0.3, 1.0)):
        one = NoisyModel(base, eps).action_probs(obs, masks)
        np.testing.assert_allclose(one, (1 - eps) * sharp + eps * uniform, atol=1e-12)
        np.testing.assert_allclose(grid[:, :, i], one, atol=1e-12)
    mix = MixtureModel([(1.0, base), (3.0, UniformModel())]).action_probs(obs, masks)
    np.testing.assert_allclose(mix, 0.25 * sharp + 0.75 * uniform, atol=1e-12)
    for bad in (-0.1, 1.5, True, np.zeros((2, 2))):
        with pytest.raises(ValueError, match="epsilon must be"):
            NoisyModel(base, bad)
    with pytest.raises(ValueError, match="parts must be"):
        MixtureModel([(0.0, base)])


def test_a_grid_of_noises_weighs_the_same_worlds_as_one_noise_at_a_time(rng: np.random.Generator) -> None:
    """partner_lab.noise.grid_beliefs: column i is PolicyBelief(NoisyModel(base, grid[i])) on the same worlds,
    and fit_noise picks the grid's lowest log-loss."""
    from euchre_env.beliefs import view_observations
    from partner_lab.noise import fit_noise, grid_beliefs

    s = random_positions(RULES, rng, 5)
    s = s.take(rng.permutation(np.flatnonzero((s.called >= 0) & (s.revealed < 0)))[:10])
    base, grid = HeuristicModel(RULES, epsilon=0.0), (0.05, 0.5)
    for viewer in (1, PUBLIC):
        obs, _, public = view_observations(s, RULES, viewer)
        got = grid_beliefs(base, grid, obs, RULES, public, 32, np.random.default_rng(7))
        for i, eps in enumerate(grid):
            one = PolicyBelief(NoisyModel(base, eps), 32).from_observations(obs, RULES, public,
                                                                             rng=np.random.default_rng(7))
            np.testing.assert_allclose(got[:, :, i], one.probs, atol=1e-9, equal_nan=True)
    truth = np.where(s.partner >= 0, s.partner, P)
    fit = fit_noise(base, s, RULES, truth, grid, n_worlds=32, seed=1)
    for kind in ("seat", "public"):
        table = fit[kind]["grid"]
        assert [r["epsilon"] for r in table] == list(grid)
        assert fit[kind]["epsilon"] == min(table, key=lambda r: r["log_loss"])["epsilon"]


def test_a_seat_mixture_mixes_each_seats_whole_history(rng: np.random.Generator) -> None:
    """SeatMixtureModel: a world weighs prod over seats of sum_k w_k P_k(that seat's decisions), its noise on
    every part; each seat's share is recovered from single models by leaving that seat out (``skip``)."""
    from euchre_env.beliefs import sample_view_worlds, view_observations

    s = random_positions(RULES, rng, 4)
    s = s.take(rng.permutation(np.flatnonzero((s.called >= 0) & (s.revealed < 0)))[:6])
    obs, _, public = view_observations(s, RULES, PUBLIC)
    worlds = sample_view_worlds(obs.astype(bool), RULES, public, 8, np.random.default_rng(3))
    none = np.full(worlds.batch_size, -1)
    parts = [(1.0, HeuristicModel(RULES, epsilon=0.0)), (2.0, UniformModel())]
    grid = np.array([0.1, 0.6])
    got = history_log_likelihood(worlds, RULES, SeatMixtureModel(parts, grid), none)
    assert got.shape == (worlds.batch_size, 2)
    per_seat = np.zeros((worlds.batch_size, P, 2, 2))  # (W, seat, part, G)
    for k, (_, m) in enumerate(parts):
        total = history_log_likelihood(worlds, RULES, NoisyModel(m, grid), none)
        for seat in range(P):
            per_seat[:, seat, k] = total - history_log_likelihood(worlds, RULES, NoisyModel(m, grid),
                                                                  np.full(worlds.batch_size, seat))
    weights = np.array([1 / 3, 2 / 3])[None, None, :, None]
    want = np.log((np.exp(per_seat) * weights).sum(axis=2)).sum(axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-9)
    untracked = history_log_likelihood(worlds, RULES, NoisyModel(MixtureModel(parts), grid), none)
    assert not np.allclose(got, untracked), "tracking the seats changes the weights"
    one = history_log_likelihood(worlds, RULES, SeatMixtureModel(parts, 0.6), none)
    np.testing.assert_allclose(one, got[:, 1], rtol=1e-12)  # a grid column = that noise alone
    same = SeatMixtureModel([(1.0, UniformModel()), (4.0, UniformModel())])
    np.testing.assert_allclose(history_log_likelihood(worlds, RULES, same, none),
                               history_log_likelihood(worlds, RULES, UniformModel(), none), rtol=1e-12)
    assert isinstance(with_noise(same, 0.2), SeatMixtureModel) and with_noise(same, 0.2).epsilon == 0.2
    with pytest.raises(ValueError, match="SeatMixtureModel"):
        NoisyModel(same, 0.1)
    with pytest.raises(ValueError, match="parts must be"):
        SeatMixtureModel([(1.0, same)])


# --- environments: the truth is opt-in ------------------------------------------------


def test_default_aec_infos_never_name_a_hidden_partner() -> None:
    """Over thousands of states default infos name a partner only once public; opt-in names it always."""
    rng = np.random.default_rng(8)
    states = named = 0
    for truth in (False, True):
        e = aec_env.env("five_handed", ground_truth=truth) if truth else aec_env.env("five_handed")
        for seed in range(60 if truth else 140):
            e.reset(seed=seed)
            for agent in e.agent_iter():
                _, _, term, trunc, info = e.last()
                s = e.unwrapped.engine_state
                public = bool(s.revealed[0] >= 0 or s.alone[0])
                assert info["partner_public"] == public, "partner_public"
                if truth:
                    named += s.called[0] >= 0 and not public
                    expect = f"player_{s.partner[0]}" if s.called[0] >= 0 and s.partner[0] >= 0 else None
                    assert info["true_partner"] == expect, "ground_truth=True: the partner"
                else:
                    states += 1
                    assert public or ("true_partner" not in info and "reveal_trick" not in info), (
                        f"{agent}'s infos name a partner who is not public: {info}"
                    )
                mask = e.observe(agent)["action_mask"]
                e.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
    assert states > 2000 and named > 500, f"{states} default states, {named} hidden partners named"


def test_vector_env_infos_describe_finished_hands_only() -> None:
    """EuchreVectorEnv's ``partner`` is the last finished hand's, which all cards played made public."""
    env = EuchreVectorEnv(16, "five_handed")
    _, info = env.reset(seed=4)
    last = np.full(16, -1)
    rng = np.random.default_rng(4)
    ends = 0
    for _ in range(60):
        masks = env.action_masks()
        act = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, _, _, _, info = env.step(act)
        s = env.tables.state
        over = info["hand_over"]
        for i in np.flatnonzero(over):
            played = s.trick_cards[i] == info["called"][i]  # (T, P): the finished hand, not yet reset
            last[i] = played.any(axis=0).argmax() if played.any() else -1
            ends += 1
        assert np.array_equal(info["partner"][over], last[over]), "partner is not who played the called card"
        stale = (info["partner"] == -1) | (info["partner"] == last)
        assert stale.all(), "infos name the partner of a hand still being played"
    assert ends > 16, "too few hands ended"

"""The search agent's worlds drawn by a player model (``worlds="policy"``): consistency, weights, play, defaults."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents import make_agent
from agents.beliefs import HeuristicModel, UniformModel
from agents.determinized import DeterminizedAgent
from agents.heuristic import HeuristicAgent
from euchre_env import engine
from euchre_env.actions import Phase
from euchre_env.encoding import encode
from euchre_env.infoset import history_action, rewind_to_deal, sample_worlds
from euchre_env.rules import PRESETS, RulesConfig
from euchre_env.state import State

FIVE = PRESETS["five_handed"]
EVERY_PHASE = [ph for ph in Phase if ph != Phase.DONE]


def decisions(
    rules: RulesConfig, tables: int, rng: np.random.Generator, phase: Phase, min_trick: int = 0
) -> tuple:
    """Observations and masks (``(N, D)``, ``(N, A)``) of ``phase`` choices (from trick ``min_trick`` on).

    Heuristic self-play; only real choices (two legal actions or more) are kept.
    """
    policy = HeuristicAgent(rules)
    s = engine.init_state(rules, tables, rng=rng)
    obs, masks = [], []
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        sub = s.take(live)
        o, m = encode(sub, sub.turn, rules, np.uint8), engine.legal_action_mask(sub, rules)
        keep = (sub.phase == phase) & (sub.trick_no >= min_trick) & (m.sum(axis=1) > 1)
        obs.append(o[keep])
        masks.append(m[keep])
        a = np.full(tables, -1)
        a[live] = policy.act(o, m, rng)
        s = engine.step(s, a, rules)
    return np.concatenate(obs), np.concatenate(masks)


def heuristic_replay(world: State, rules: RulesConfig, epsilon: float) -> tuple[bool, float]:
    """Replay one world's history from its deal, asking the heuristic at every other seat's choice.

    Returns whether the heuristic took every one of those decisions and the
    log probability of the history under "the heuristic's choice w.p.
    ``1 - epsilon``, else uniform" (an independent, one-table-at-a-time oracle).
    """
    heuristic = HeuristicAgent(rules)
    cur = rewind_to_deal(world, rules)
    agrees, logp = True, 0.0
    while not (
        cur.phase[0] == world.phase[0]
        and cur.turn[0] == world.turn[0]
        and cur.trick_no[0] == world.trick_no[0]
        and cur.n_played[0] == world.n_played[0]
    ):
        taken = history_action(cur, world)
        mask = engine.legal_action_mask(cur, rules)
        k = int(mask.sum())
        if cur.turn[0] != 0 and k > 1:  # seat 0 is the searching seat: its own choices are no evidence
            choice = int(heuristic.act(encode(cur, cur.turn, rules, np.uint8), mask)[0])
            same = choice == int(taken[0])
            agrees &= same
            p = epsilon / k + (1 - epsilon) * same
            logp += math.log(p) if p > 0 else -math.inf
        cur = engine.step(cur, taken, rules)
    return agrees, logp


def test_policy_worlds_are_consistent_with_the_view(rng: np.random.Generator) -> None:
    """Every world the policy-weighted sampler returns re-encodes to the searching seat's observation."""
    obs, _ = decisions(FIVE, 12, rng, Phase.PLAY, min_trick=1)
    obs = obs[:: max(1, len(obs) // 12)]
    agent = DeterminizedAgent(FIVE, worlds="policy", oversample=4)
    worlds = agent.search_worlds(obs, 6, rng)
    assert worlds.batch_size == len(obs) * 6
    again = encode(worlds, 0, FIVE, np.uint8)
    bad = np.flatnonzero((again != np.repeat(obs, 6, axis=0)).any(axis=1))
    assert bad.size == 0, f"{bad.size} of {worlds.batch_size} worlds re-encode differently"


def test_weights_are_the_history_likelihood_under_the_model(rng: np.random.Generator) -> None:
    """Log weights equal an independent replay's; at epsilon 0 a world against the heuristic weighs 0.

    Second-round bids (after five passes and some more) split uniform worlds
    into ones where the heuristic would have passed too and ones where it
    would have ordered up or named trump; card plays check the sums over long
    histories.
    """
    bids, _ = decisions(FIVE, 20, rng, Phase.BID_SUIT)
    plays, _ = decisions(FIVE, 4, rng, Phase.PLAY, min_trick=2)
    split = sample_worlds(bids[:: max(1, len(bids) // 4)][:4], FIVE, 12, rng)
    long = sample_worlds(plays[:: max(1, len(plays) // 2)][:2], FIVE, 4, rng)
    for eps in (0.0, 0.1):
        agent = DeterminizedAgent(FIVE, worlds="policy", world_model=HeuristicModel(FIVE, eps))
        for candidates in (split, long):
            logw = agent.world_log_weights(candidates, rng)
            replay = [heuristic_replay(candidates.take([i]), FIVE, eps) for i in range(candidates.batch_size)]
            assert np.allclose(logw, [lp for _, lp in replay]), f"eps={eps}: weights differ from the replay"
        logw = agent.world_log_weights(split, rng)
        agrees = np.array([heuristic_replay(split.take([i]), FIVE, eps)[0] for i in range(split.batch_size)])
        assert agrees.any() and (~agrees).any(), "the candidates hold worlds on both sides of the model"
        if eps == 0:
            assert np.isneginf(logw[~agrees]).all() and np.isfinite(logw[agrees]).all()
        else:  # each disagreement costs a factor of at most (eps / 2) / (1 - eps / 2)
            assert np.isfinite(logw).all() and logw[agrees].mean() > logw[~agrees].mean() + 2


def test_resampling_keeps_only_worlds_the_model_allows(rng: np.random.Generator) -> None:
    """At epsilon 0 the searched worlds are drawn among the candidates the heuristic explains."""
    obs, _ = decisions(FIVE, 30, rng, Phase.BID_SUIT)
    obs = obs[:: max(1, len(obs) // 6)][:6]
    agent = DeterminizedAgent(FIVE, worlds="policy", world_model=HeuristicModel(FIVE, 0.0), oversample=4)
    w = 4
    candidates = sample_worlds(obs, FIVE, w * 4, np.random.default_rng(7))  # the same draw as inside
    allowed = np.isfinite(agent.world_log_weights(candidates, rng)).reshape(len(obs), -1)
    chosen = agent.search_worlds(obs, w, np.random.default_rng(7))
    assert np.array_equal(encode(chosen, 0, FIVE, np.uint8), np.repeat(obs, w, axis=0)), "consistent worlds"
    ok = np.isfinite(agent.world_log_weights(chosen, rng)).reshape(len(obs), w)
    rows = allowed.any(axis=1)
    assert rows.any() and not allowed.all(), "some candidates are ruled out, some allowed"
    assert ok[rows].all(), "a world the model rules out was searched although an allowed one was drawn"
    # Late in the hand the deterministic heuristic rules out every candidate of most decisions: those
    # keep their candidates with equal weights rather than failing.
    late, _ = decisions(FIVE, 4, rng, Phase.PLAY, min_trick=3)
    late = late[:4]
    candidates = sample_worlds(late, FIVE, w * 4, np.random.default_rng(8))
    ruled_out = ~np.isfinite(agent.world_log_weights(candidates, rng)).reshape(len(late), -1).any(axis=1)
    assert ruled_out.any(), "some late decision has no candidate the heuristic explains"
    chosen = agent.search_worlds(late, w, np.random.default_rng(8))
    assert np.array_equal(encode(chosen, 0, FIVE, np.uint8), np.repeat(late, w, axis=0)), "consistent worlds"


@pytest.mark.parametrize("variant", ["five_handed", "four_handed"])
def test_policy_search_plays_legal_moves_in_full_hands(variant: str, rng: np.random.Generator) -> None:
    """Whole hands with ``worlds="policy"`` searching every phase: every action is legal."""
    rules = PRESETS[variant]
    agent = DeterminizedAgent(
        rules, worlds="policy", num_worlds=3, bid_worlds=3, oversample=2, search_phases=EVERY_PHASE
    )
    tables = 4
    s = engine.init_state(rules, tables, rng=rng)
    decisions = 0
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        sub = s.take(live)
        mask = engine.legal_action_mask(sub, rules)
        chosen = agent.act(encode(sub, sub.turn, rules), mask, rng)
        assert mask[np.arange(live.size), chosen].all(), "the agent chose an illegal action"
        a = np.full(tables, -1)
        a[live] = chosen
        s = engine.step(s, a, rules)
        decisions += live.size
    assert decisions >= tables * rules.num_players * 5, f"only {decisions} decisions"


def test_registered_names_and_defaults() -> None:
    """``search-policy`` weighs by the heuristic with noise 0.1; ``search`` keeps the surprise rule."""
    policy = make_agent("search-policy", FIVE, num_worlds=2)
    assert isinstance(policy, DeterminizedAgent) and policy.worlds == "policy"
    assert isinstance(policy.world_model, HeuristicModel) and policy.world_model.epsilon == 0.1
    assert policy.name == "search-policy" and policy.oversample == 4
    uniform = make_agent("search-uniform", FIVE)
    assert uniform.worlds == "uniform" and uniform.oversample == 1 and uniform.world_model is None
    default = make_agent("search", FIVE)
    assert default.worlds == "surprise" and default.log_surprise == pytest.approx(math.log(0.1))
    custom = DeterminizedAgent(FIVE, worlds="policy", world_model=UniformModel())
    assert isinstance(custom.world_model, UniformModel)


def test_default_and_uniform_worlds_are_unchanged() -> None:
    """The default is the surprise rule as before; ``"uniform"`` is ``surprise=None``, infoset's own draw."""
    s = engine.init_state(FIVE, 6, rng=np.random.default_rng(3))
    obs, mask = encode(s, s.turn, FIVE), engine.legal_action_mask(s, FIVE)
    for before, after in (({}, {"worlds": "surprise"}), ({"surprise": None}, {"worlds": "uniform"})):
        a = DeterminizedAgent(FIVE, num_worlds=4, bid_worlds=4, **before)
        b = DeterminizedAgent(FIVE, num_worlds=4, bid_worlds=4, **after)
        assert np.array_equal(
            a.act(obs, mask, np.random.default_rng(11)), b.act(obs, mask, np.random.default_rng(11))
        ), f"{before} and {after} differ"
    uniform = DeterminizedAgent(FIVE, worlds="uniform")
    drawn = uniform.search_worlds(obs, 5, np.random.default_rng(2))
    direct = sample_worlds(obs, FIVE, 5, np.random.default_rng(2))
    assert np.array_equal(drawn.hands, direct.hands) and np.array_equal(drawn.kitty, direct.kitty)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"worlds": "posterior"}, "worlds must be one of"),
        ({"worlds": 1}, "worlds must be one of"),
        ({"world_model": UniformModel()}, "world_model"),
        ({"worlds": "policy", "world_model": "heuristic"}, "world_model"),
        ({"worlds": "policy", "infer_from_play": False}, "infer_from_play"),
    ],
)
def test_bad_world_settings_are_rejected(kwargs: dict, match: str) -> None:
    """Each bad combination raises ValueError naming the setting."""
    with pytest.raises(ValueError, match=match):
        DeterminizedAgent(FIVE, **kwargs)

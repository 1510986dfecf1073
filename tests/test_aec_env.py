"""PettingZoo AEC env: API conformance, seeding, playouts against the engine, errors, infos."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import euchre_env
from euchre_env import actions, engine
from euchre_env.actions import Phase
from euchre_env.encoding import encode, obs_layout
from euchre_env.engine import IllegalActionError
from euchre_env.envs import aec_env
from euchre_env.envs.aec_env import env, raw_env
from euchre_env.rules import make_rules

EPISODES = [{}, {"episode": "game", "points_to_win": 3}]
MAKERS = [env, raw_env]


@pytest.fixture(params=["four_handed", "five_handed"])
def variant(request: pytest.FixtureRequest) -> str:
    """Each game in turn (local, so this file does not depend on conftest.py)."""
    return str(request.param)


# Given deals: four-handed, dealer 0, seat 2 orders up JH; five-handed, dealer 4,
# seat 0 orders up 9S and calls AS (held by seat 2).
DEALS = json.loads((Path(__file__).parent / "data" / "deals.json").read_text(encoding="utf-8"))
DEAL_4, DEAL_5 = DEALS["four_handed"], DEALS["five_handed"]


def _first_legal(obs: dict[str, np.ndarray]) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


def _play_out(e: Any, pick: Any) -> list[int]:
    """Play ``e`` to the end through agent_iter/last/step; returns the actions taken."""
    taken = []
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        a = pick(obs)
        taken.append(a)
        e.step(a)
    return taken


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("make", MAKERS, ids=["env", "raw_env"])
@pytest.mark.parametrize("settings", EPISODES, ids=["hand", "game"])
def test_pettingzoo_api_test(variant: str, settings: dict[str, Any], make: Any) -> None:
    """PettingZoo's api_test passes for both games, hand and game episodes, wrapped and raw."""
    api_test(make(variant, **settings), num_cycles=300)


@pytest.mark.parametrize("make", MAKERS, ids=["env", "raw_env"])
@pytest.mark.parametrize("settings", EPISODES, ids=["hand", "game"])
def test_pettingzoo_seed_test(variant: str, settings: dict[str, Any], make: Any) -> None:
    """PettingZoo's seed_test passes: equal seeds give equal episodes."""
    seed_test(lambda: make(variant, **settings), num_cycles=200)


def _random_playouts(variant: str, n: int, zero_sum: bool = False, **settings: Any) -> None:
    """Play ``n`` seeded episodes through the AEC API, then replay them in the batched engine."""
    rules = make_rules(variant, **settings)
    e = raw_env(variant, zero_sum=zero_sum, **settings)
    rng = np.random.default_rng(7)
    seeds = np.arange(1000, 1000 + n)
    played, totals = [], np.zeros((n, rules.num_players))
    for i, seed in enumerate(seeds):
        e.reset(seed=int(seed))
        taken = []
        for agent in e.agent_iter():
            obs, reward, term, _, _ = e.last()
            totals[i, int(agent.split("_")[1])] += reward
            if term:
                e.step(None)
                continue
            s = e.engine_state
            seat = int(agent.split("_")[1])
            assert int(s.turn[0]) == seat, f"[{seed}] agent_selection {agent} is not the engine's player"
            assert not int(s.out[0]) >> seat & 1, f"[{seed}] {agent} sits out but was asked to act"
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            taken.append(a)
            e.step(a)
        played.append(taken)
    # Replay every episode at once in the engine; padding (-1) only reaches finished tables.
    acts = np.full((n, max(map(len, played))), -1, dtype=np.int64)
    for i, taken in enumerate(played):
        acts[i, : len(taken)] = taken
    state = engine.init_state(rules, seeds=seeds)
    expected = np.zeros((n, rules.num_players))
    for t in range(acts.shape[1]):
        state = engine.step(state, acts[:, t], rules)
        expected += engine.rewards(state, rules, zero_sum)
    assert engine.is_done(state).all(), "the replayed actions did not finish every episode"
    np.testing.assert_allclose(totals, expected, err_msg="AEC rewards differ from the engine's points")
    if not zero_sum:
        np.testing.assert_array_equal(totals, state.scores, err_msg="rewards do not add up to the scores")


@pytest.mark.parametrize(
    "preset", ["four_handed", "four_handed_no_stick", "four_handed_defend_alone", "five_handed"]
)
def test_random_playouts_reward_engine_points(preset: str) -> None:
    """500 random legal hands per preset end with legal actions only and the engine's points as rewards."""
    _random_playouts(preset, 500)


def test_random_game_playouts_reward_each_hand(variant: str) -> None:
    """Whole games pay each hand's points at its end; the totals equal the final scores."""
    _random_playouts(variant, 30, episode="game", points_to_win=5)


def test_zero_sum_rewards_match_engine(variant: str) -> None:
    """zero_sum=True gives the engine's zero-sum rewards, which sum to zero per hand."""
    _random_playouts(variant, 100, zero_sum=True)
    for seed in range(5):
        rewards = _hand_rewards(variant, seed)
        assert abs(sum(rewards)) < 1e-6 and any(rewards), f"[{seed}] not zero-sum: {rewards}"


def _hand_rewards(variant: str, seed: int) -> list[float]:
    e = raw_env(variant, zero_sum=True)
    e.reset(seed=seed)
    got = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, _, _ = e.last()
        got[agent] += reward
        e.step(None if term else _first_legal(obs))
    return list(got.values())


def test_observations_and_masks_match_engine(variant: str) -> None:
    """Each agent observes encoding.encode of its seat; only agent_selection has a (legal) mask."""
    e = raw_env(variant)
    e.reset(seed=11)
    rules = e.rules
    for t in range(40):
        if not e.agents or e.terminations[e.agent_selection]:
            break
        state = e.engine_state
        legal = engine.legal_action_mask(state, rules)[0]
        for agent in e.agents:
            obs = e.observe(agent)
            expected = encode(state, int(agent.split("_")[1]), rules)[0]
            assert np.array_equal(obs["observation"], expected), f"[{t}] {agent}: observation is not encode's"
            mask = obs["action_mask"]
            assert mask.dtype == np.int8, f"[{t}] mask dtype {mask.dtype}"
            if agent == e.agent_selection:
                np.testing.assert_array_equal(mask, legal.astype(np.int8), err_msg=f"[{t}] wrong mask")
            else:
                assert not mask.any(), f"[{t}] {agent} is not to act but has a non-zero mask"
        e.step(_first_legal(e.observe(e.agent_selection)))
    assert all(not e.observe(a)["action_mask"].any() for a in e.possible_agents), "mask after the end"


def test_spaces_follow_layout(variant: str) -> None:
    """Observation and action spaces take their sizes from the layout and the action table."""
    e = raw_env(variant, points_to_win=7)
    size = obs_layout(e.rules).size
    for agent in e.possible_agents:
        space = e.observation_space(agent)
        assert space["observation"].shape == (size,), "observation size is not the layout's"
        assert space["observation"].dtype == np.float32, "observation dtype"
        assert space["action_mask"].shape == (actions.NUM_ACTIONS,), "mask size"
        assert e.action_space(agent).n == actions.NUM_ACTIONS, "action space size"
    e.reset(seed=0)
    assert e.observation_space("player_0").contains(e.observe("player_0")), "observation out of its space"


def test_seed_deals_like_engine_seed(variant: str) -> None:
    """reset(seed=s) deals exactly what engine.init_state(seeds=[s]) deals; seedless resets follow on."""
    e = raw_env(variant)
    e.reset(seed=123)
    ref = engine.init_state(e.rules, seeds=[123])
    np.testing.assert_array_equal(e.engine_state.hands, ref.hands, err_msg="hands differ from the engine's")
    assert int(e.engine_state.dealer[0]) == int(ref.dealer[0]), "dealer differs from the engine's"
    e.reset()
    follow_1 = e.engine_state.seed.copy()
    e.reset(seed=123)
    e.reset()
    assert np.array_equal(e.engine_state.seed, follow_1), (
        "seedless reset after reset(seed) is not reproducible"
    )


def test_reset_with_given_deal(variant: str) -> None:
    """options={'deal': ...} starts from that deal."""
    deal = DEAL_5 if variant == "five_handed" else DEAL_4
    e = raw_env(variant)
    e.reset(seed=1, options={"deal": deal})
    s = e.engine_state
    for seat, hand in enumerate(deal["hands"]):
        assert sorted(engine.card_names(int(s.hands[0, seat]))) == sorted(hand), f"seat {seat} hand"
    assert e.agent_selection == f"player_{(deal['dealer'] + 1) % len(deal['hands'])}", "first bidder"


def test_illegal_action_raw_env_error() -> None:
    """The raw env rejects an illegal action, naming the action, the phase and the legal actions."""
    e = raw_env()
    e.reset(seed=0, options={"deal": DEAL_4})
    with pytest.raises(IllegalActionError) as info:
        e.step(actions.play("9D"))
    msg = str(info.value)
    for part in ("player_1", "play 9D", "BID_UPCARD", "84 (pass)", "85 (order up)"):
        assert part in msg, f"{part!r} missing from {msg!r}"
    assert e.agent_selection == "player_1" and not any(e.terminations.values()), "state changed"


@pytest.mark.parametrize(
    ("action", "error", "words"),
    [
        (actions.NUM_ACTIONS, ValueError, "out of range"),
        (-1, ValueError, "out of range"),
        (1.0, TypeError, "integer action id"),
        ("pass", TypeError, "integer action id"),
        (True, TypeError, "integer action id"),
        (np.array([84, 85]), TypeError, "integer action id"),
        (None, TypeError, "player_1 is to act"),
    ],
)
def test_bad_action_errors(action: Any, error: type, words: str) -> None:
    """Out-of-range and wrong-type actions give a specific error, not a numpy crash."""
    e = raw_env()
    e.reset(seed=0, options={"deal": DEAL_4})
    with pytest.raises(error, match=words):
        e.step(action)


def test_numpy_integer_actions_accepted() -> None:
    """np.int32 / 0-d array actions work like Python ints."""
    e = raw_env()
    e.reset(seed=0, options={"deal": DEAL_4})
    e.step(np.int32(actions.PASS))
    e.step(np.array(actions.ORDER_UP))
    assert e.engine_state.phase[0] == Phase.DISCARD, "the order up was not applied"


def test_step_after_end_errors() -> None:
    """A terminated agent takes only None; stepping after everyone left or before reset raises."""
    with pytest.raises(RuntimeError, match="reset"):
        raw_env().step(actions.PASS)
    e = raw_env()
    e.reset(seed=3)
    while not e.terminations[e.agent_selection]:
        e.step(_first_legal(e.observe(e.agent_selection)))
    with pytest.raises(ValueError, match="episode is over"):
        e.step(actions.PASS)
    while e.agents:
        e.step(None)
    with pytest.raises(RuntimeError, match="every agent has left"):
        e.step(None)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"stick_dealer": True}, "unknown setting"),
        ({"points_to_win": 0}, "points_to_win"),
        ({"episode": "match"}, "episode"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"variant": "three_handed"}, "variant"),
    ],
)
def test_bad_settings_raise(kwargs: dict[str, Any], words: str) -> None:
    """Unknown settings, bad values and unknown render modes raise a ValueError naming them."""
    with pytest.raises(ValueError, match=words):
        raw_env(**kwargs)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"hands": DEAL_4["hands"][:3]}, "list of 4 hands"),
        ({"upcard": "9C"}, "appears twice"),
        ({"kitty": ["JC", "JD"]}, "kitty must hold"),
        ({"dealer": 4}, "dealer"),
        ({"upcard": "ZZ"}, "unknown card"),
        ({"trump": "H"}, "unknown"),
    ],
)
def test_malformed_deal_raises(change: dict[str, Any], words: str) -> None:
    """A malformed deal raises a ValueError saying what is wrong."""
    e = raw_env()
    with pytest.raises(ValueError, match=words):
        e.reset(options={"deal": {**DEAL_4, **change}})


def test_bad_reset_arguments_raise() -> None:
    """Non-dict options, a None deal and bad seeds raise specific errors."""
    e = raw_env()
    with pytest.raises(TypeError, match="options must be a dict"):
        e.reset(options=["deal"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="deal"):
        e.reset(options={"deal": None})
    with pytest.raises(ValueError, match="seed"):
        e.reset(seed=-1)
    with pytest.raises(TypeError, match="seed"):
        e.reset(seed=1.5)  # type: ignore[arg-type]


def test_wrapped_env_illegal_move_ends_episode() -> None:
    """env(): an illegal move gives the offender -1, the others 0, and ends the episode."""
    e = env()
    e.reset(seed=0, options={"deal": DEAL_4})
    e.step(actions.play("9D"))
    assert all(e.terminations.values()), "the episode did not end"
    seen = {}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        assert term or trunc, f"{agent} still live after an illegal move"
        seen[agent] = reward
        e.step(None)
    assert seen == {"player_0": 0, "player_1": -1, "player_2": 0, "player_3": 0}, f"rewards {seen}"


def test_wrapped_env_out_of_range_asserts() -> None:
    """env(): an out-of-range action fails AssertOutOfBoundsWrapper's check."""
    e = env()
    e.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        e.step(actions.NUM_ACTIONS)


def _pettingzoo_wrapped(variant: str) -> Any:
    """raw_env wrapped with PettingZoo's own classic wrappers (the reference for env())."""
    from pettingzoo.utils import wrappers

    w = wrappers.TerminateIllegalWrapper(raw_env(variant), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(w))


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_wrapped_env_behaves_as_pettingzoo_wrappers(variant: str) -> None:
    """env() (aec_wrappers' subclasses) gives exactly what PettingZoo's own wrappers give:
    the same last() at every decision over random hands, with an illegal move now and then."""
    from pettingzoo.utils import wrappers

    ours, ref = env(variant), _pettingzoo_wrapped(variant)
    assert isinstance(ours, wrappers.OrderEnforcingWrapper) and str(ours) == str(ref), "not a classic wrapper"
    for e in (ours, ref):
        with pytest.raises(AttributeError, match="before reset"):
            _ = e.agent_selection
    rng = np.random.default_rng(5)
    for episode in range(60):
        ours.reset(seed=episode)
        ref.reset(seed=episode)
        illegal_at = int(rng.integers(0, 40)) if episode % 3 == 0 else -1
        for n, agent in enumerate(ref.agent_iter()):
            assert ours.agent_selection == agent, f"episode {episode}: agent_selection differs"
            (o1, r1, t1, u1, i1), (o2, r2, t2, u2, i2) = ours.last(), ref.last()
            assert (r1, t1, u1, i1) == (r2, t2, u2, i2), f"episode {episode} step {n}: last() differs"
            assert np.array_equal(o1["observation"], o2["observation"]), "observations differ"
            assert np.array_equal(o1["action_mask"], o2["action_mask"]), "masks differ"
            if t2 or u2:
                action = None
            elif n == illegal_at:
                action = int(np.flatnonzero(o2["action_mask"] == 0)[0])
            else:
                legal = np.flatnonzero(o2["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            for e in (ours, ref):
                e.step(np.int64(action) if action is not None and n % 2 else action)
            assert ours.rewards == ref.rewards and ours._cumulative_rewards == ref._cumulative_rewards, (
                "rewards"
            )
        assert not ours.agents and ours.terminations == ref.terminations == {}, "episode did not end alike"


def _play_named(e: Any, names: list[str]) -> None:
    for text in names:
        e.step(actions.parse(text))


def test_five_handed_partner_infos() -> None:
    """true_partner is the engine's partner; partner_public flips exactly when the called card is played."""
    e = raw_env("five_handed", ground_truth=True)
    e.reset(seed=0, options={"deal": DEAL_5})
    assert e.infos["player_0"]["true_partner"] is None, "partner before the call"
    _play_named(e, ["order up", "discard 9S", "call AS"])
    s = e.engine_state
    assert int(s.partner[0]) == 2, "the deal gives AS to seat 2"
    for agent in e.agents:
        info = e.infos[agent]
        assert info["true_partner"] == "player_2", f"{agent}: {info}"
        assert info["partner_public"] is False and info["reveal_trick"] is None, f"{agent}: {info}"
    # Trick 1: seat 0 leads JS; seats 1, 2 (AS, the called card), 3 and 4 follow.
    _play_named(e, ["play JS", "play 8C"])
    assert e.infos["player_0"]["partner_public"] is False, "revealed before AS was played"
    _play_named(e, ["play AS"])
    assert e.infos["player_3"]["partner_public"] is True, "not revealed when AS was played"
    assert e.infos["player_3"]["reveal_trick"] == 0, "reveal trick"


def test_partner_infos_follow_engine_over_random_hands() -> None:
    """Five-handed random hands: infos track the engine's partner, and publicity flips on the called card."""
    e = raw_env("five_handed", ground_truth=True)
    rng = np.random.default_rng(3)
    reveals = 0
    for seed in range(120):
        e.reset(seed=seed)
        public = False
        while not e.terminations[e.agent_selection]:
            a = int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
            e.step(a)
            s, info = e.engine_state, e.infos[e.agent_selection]
            called, partner = int(s.called[0]), int(s.partner[0])
            expect = f"player_{partner}" if called >= 0 and partner >= 0 else None
            assert info["true_partner"] == expect, f"[{seed}] true_partner {info['true_partner']} != {expect}"
            flipped = info["partner_public"] and not public
            played_called = called >= 0 and a == actions.play(called)
            went_alone = a == actions.ALONE  # no partner: nothing hidden from then on
            assert flipped == (played_called or went_alone), f"[{seed}] partner_public flipped at action {a}"
            if played_called:
                reveals += 1
                assert info["reveal_trick"] == int(s.revealed[0]), f"[{seed}] reveal_trick"
            public = info["partner_public"]
    assert reveals > 20, f"only {reveals} reveals in 120 hands: the test is too weak"


def test_four_handed_partner_infos() -> None:
    """Four-handed: true_partner is the maker's fixed partner and is public."""
    e = raw_env()
    e.reset(seed=0, options={"deal": DEAL_4})
    assert e.infos["player_1"]["true_partner"] is None, "partner before trump is made"
    _play_named(e, ["pass", "order up"])
    assert e.infos["player_3"]["true_partner"] == "player_0", "maker seat 2's partner is seat 0"
    assert e.infos["player_3"]["partner_public"] is True, "fixed partnerships are public"


def test_hand_summary_on_hand_end(variant: str) -> None:
    """hand_summary appears exactly on hand-ending steps and matches the engine's record."""
    e = raw_env(variant, episode="game", points_to_win=4)
    e.reset(seed=21)
    hands_seen = 0
    while not e.terminations[e.agent_selection]:
        e.step(_first_legal(e.observe(e.agent_selection)))
        s = e.engine_state
        info = e.infos[e.agent_selection]
        assert ("hand_summary" in info) == bool(s.hand_over[0]), "hand_summary presence"
        if bool(s.hand_over[0]):
            hands_seen += 1
            summary = info["hand_summary"]
            assert summary["points"] == s.last_points[0].tolist(), "points"
            assert summary["tricks"] == s.last_tricks[0].tolist(), "tricks"
            assert summary["scores"] == s.scores[0].tolist(), "scores"
            maker = int(s.last_maker[0])
            assert summary["maker"] == (f"player_{maker}" if maker >= 0 else None), "maker"
    assert hands_seen >= 2, "a game to 4 should take several hands"
    assert "winners" in e.infos[e.agent_selection], "winners missing at the game's end"


def test_pettingzoo_registry_makes_both_games() -> None:
    """pettingzoo.make builds the registered euchre ids with settings passed through."""
    assert "env" in euchre_env.__all__ and "raw_env" in euchre_env.__all__, "re-exports"
    four = pettingzoo.make("aec", "euchre_env/euchre_v0", points_to_win=5, episode="game")
    five = pettingzoo.make("aec", "euchre_env/euchre_five_handed_v0")
    assert four.unwrapped.rules.variant == "four_handed" and four.unwrapped.rules.points_to_win == 5, "four"
    assert five.unwrapped.rules.variant == "five_handed", "five"
    assert str(five) == "euchre_five_handed_v0" and str(four) == "euchre_v0", "metadata names"


def test_raw_env_pickles() -> None:
    """The raw env pickles (EzPickle) with its settings."""
    e = pickle.loads(pickle.dumps(raw_env("five_handed", points_to_win=7, zero_sum=True)))
    assert e.rules.points_to_win == 7 and e.zero_sum, "settings lost in pickling"


def test_docstring_has_current_tables() -> None:
    """The module docstring shows the current observation tables, sizes and action table verbatim."""
    doc = aec_env.__doc__ or ""
    hint = "regenerate the tables in euchre_env/envs/aec_env.py's docstring"
    for variant in ("four_handed", "five_handed"):
        lay = obs_layout(make_rules(variant))
        assert lay.table() in doc, f"{variant} observation table out of date: {hint}"
        assert f"({lay.size},)" in doc, f"{variant} observation size out of date: {hint}"
    assert aec_env.action_table() in doc, f"action table out of date: {hint}"
    assert f"Discrete({actions.NUM_ACTIONS})" in doc, "action count"

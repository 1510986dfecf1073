"""EuchreVectorEnv and EuchreSB3VecEnv: equal to single envs, autoreset, batching, bad input, MaskablePPO."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from euchre_env import engine
from euchre_env.actions import NUM_ACTIONS
from euchre_env.engine import IllegalActionError
from euchre_env.envs.gym_env import EuchreEnv
from euchre_env.envs.learner_tables import LearnerTables
from euchre_env.envs.sb3_vec_env import EuchreSB3VecEnv
from euchre_env.envs.vector_env import EuchreVectorEnv
from euchre_env.policies import RandomPolicy
from euchre_env.rules import make_rules

CONFIGS = [
    ("four_handed", {}),
    ("five_handed", {}),
    ("four_handed", {"episode": "game", "points_to_win": 5, "defend_alone": True}),
    ("five_handed", {"episode": "game", "points_to_win": 5}),
    ("four_handed", {"zero_sum": True, "opponents": "mixed"}),
    ("five_handed", {"zero_sum": True, "opponents": "mixed", "episode": "game", "points_to_win": 3}),
]


class HighestLegal:
    """A deterministic policy without the act_bits fast path: the highest legal action id."""

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The highest legal id per row."""
        assert observations.shape[0] == action_masks.shape[0], "one observation per mask"
        return (action_masks.shape[1] - 1 - np.argmax(action_masks[:, ::-1], axis=1)).astype(np.int64)


class CountingPolicy(RandomPolicy):
    """A RandomPolicy without the fast path that counts its calls and rows."""

    act_bits = None  # type: ignore[assignment]

    def __init__(self) -> None:
        self.calls = 0
        self.rows = 0

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Random legal actions, counted."""
        self.calls += 1
        self.rows += len(action_masks)
        return super().act(observations, action_masks, rng)


@pytest.mark.parametrize(("variant", "settings"), CONFIGS)
def test_vector_env_equals_single_envs(variant: str, settings: dict) -> None:
    """Table i of a vector env seeded s plays exactly as EuchreEnv seeded s + i (NEXT_STEP autoreset)."""
    _assert_equals_single_envs(variant, settings, n=24, steps=60)


@pytest.mark.parametrize("settings", [{}, {"episode": "game", "points_to_win": 5, "defend_alone": True}])
def test_random_playouts_keep_the_vector_env_equal_to_single_envs(
    settings: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With random opponents, a four-handed table whose learner sits out a lone hand finishes it in one
    random playout (engine.play_out_random); it still plays exactly as the single env, card by card."""
    played = []
    real = engine.play_out_random

    def spy(s, rows, counters, rules, **kwargs):  # type: ignore[no-untyped-def]
        played.append(rows.size)
        return real(s, rows, counters, rules, **kwargs)

    monkeypatch.setattr(engine, "play_out_random", spy)
    _assert_equals_single_envs("four_handed", settings, n=64, steps=40)
    assert sum(played) >= 20, f"the playout should have finished many hands, got {played}"


def _assert_equals_single_envs(variant: str, settings: dict, n: int, steps: int) -> None:
    settings = dict(settings)
    if settings.get("opponents") == "mixed":
        p = 4 if variant == "four_handed" else 5
        mixed = [RandomPolicy(), HighestLegal(), RandomPolicy(), HighestLegal()][: p - 1]
        settings["opponents"] = mixed
    venv = EuchreVectorEnv(n, variant, **settings)
    envs = [EuchreEnv(variant, **settings) for _ in range(n)]
    vobs, vinfo = venv.reset(seed=50)
    for i, env in enumerate(envs):
        obs, info = env.reset(seed=50 + i)
        assert np.array_equal(obs, vobs[i]) and np.array_equal(
            info["action_mask"], vinfo["action_mask"][i]
        ), i
    venv.action_space.seed(1)
    resets = 0
    for t in range(steps):
        was_done = venv.prev_done.copy()
        act = venv.action_space.sample()
        vobs, vrew, vterm, vtrunc, vinfo = venv.step(act)
        assert not vtrunc.any(), f"[{t}] vector env truncated"
        for i, env in enumerate(envs):
            if was_done[i]:
                obs, info = env.reset()
                rew, term = 0.0, False
                resets += 1
            else:
                obs, rew, term, _, info = env.step(int(act[i]))
            assert np.array_equal(obs, vobs[i]), f"[{t}] table {i}: observation differs"
            assert np.array_equal(info["action_mask"], vinfo["action_mask"][i]), (
                f"[{t}] table {i}: mask differs"
            )
            assert (rew, term) == (vrew[i], vterm[i]), f"[{t}] table {i}: reward/termination differ"
            assert info["learner_seat"] == vinfo["learner_seat"][i], f"[{t}] table {i}: seat differs"
    assert resets > 0, "the run should include autoresets"


def test_next_step_autoreset_ignores_the_action_of_a_finished_table() -> None:
    """After termination, the next step resets the table: its action is ignored, reward 0, new episode."""
    venv = EuchreVectorEnv(6, "four_handed")
    _, info = venv.reset(seed=3)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP, "autoreset mode"
    for _ in range(40):
        _, _, term, _, info = venv.step(venv.action_space.sample())
        if term.any():
            break
    assert term.any(), "no table finished in 40 steps"
    assert not info["action_mask"][term].any(), "a finished table must have an all-False mask"
    act = venv.action_space.sample()
    act[term] = NUM_ACTIONS + 7  # nonsense: must be ignored at the resetting tables
    _, rew, term2, _, info = venv.step(act)
    assert (rew[term] == 0).all() and not term2[term].any(), "reset tables: reward 0, not terminated"
    assert info["action_mask"][term].any(axis=1).all(), "reset tables show their new episode's mask"


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_rewards_are_the_engine_points_and_masks_never_empty(variant: str) -> None:
    """Terminal rewards equal the learner's engine points; live tables always have a legal action."""
    venv = EuchreVectorEnv(64, variant)
    _, info = venv.reset(seed=9)
    finished = 0
    for t in range(60):
        was_done = venv.prev_done.copy()
        _, rew, term, _, info = venv.step(venv.action_space.sample())
        live = ~term
        assert info["action_mask"][live].any(axis=1).all(), f"[{t}] learner faces an empty mask"
        tables = venv.tables
        seats = tables.seat[term]
        expect = tables.state.last_points[term, seats]
        assert np.array_equal(rew[term], expect), f"[{t}] terminal rewards differ from the engine's points"
        assert (rew[live & ~was_done] == 0).all(), f"[{t}] reward before the hand ended"
        assert (tables.state.turn[live] == tables.seat[live]).all(), (
            f"[{t}] a live table waits on an opponent"
        )
        finished += int(term.sum())
    assert finished > 100, "too few finished hands to check"


def test_seed_list_equals_seed_offsets() -> None:
    """reset(seed=[s, s+1, ...]) equals reset(seed=s); reset() continues with new deals."""
    a, b = EuchreVectorEnv(5, "five_handed"), EuchreVectorEnv(5, "five_handed")
    oa, _ = a.reset(seed=20)
    ob, _ = b.reset(seed=[20, 21, 22, 23, 24])
    assert np.array_equal(oa, ob), "seed list and seed offsets disagree"
    assert not np.array_equal(a.reset()[0], oa), "an unseeded reset should deal new hands"


def test_opponents_act_in_one_batched_call_per_policy_and_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Per round each opponent policy is called once for all its tables; set_opponents swaps them."""
    left, partner = CountingPolicy(), CountingPolicy()
    venv = EuchreVectorEnv(64, "four_handed", opponents={1: left, 2: partner, 3: left})
    engine_steps = [0]
    real_step = engine.step_rows

    def counting_step(*args: object, **kwargs: object) -> object:
        engine_steps[0] += 1
        return real_step(*args, **kwargs)

    monkeypatch.setattr(engine, "step_rows", counting_step)
    venv.reset(seed=0)
    for _ in range(10):
        venv.step(venv.action_space.sample())
    rounds = engine_steps[0] - 10  # one engine step per round, plus one per learner step
    assert left.calls <= rounds and partner.calls <= rounds, "more than one call per policy and round"
    assert left.rows + partner.rows == venv.tables.opponent_decisions, "every opponent decision via a call"
    assert left.rows / left.calls > 4, "calls should be batched over tables"
    fresh = CountingPolicy()
    venv.set_opponents(fresh)
    venv.step(venv.action_space.sample())
    assert fresh.calls > 0, "set_opponents did not take effect"


def test_waiting_tables_are_untouched_by_a_partial_step() -> None:
    """Tables that do not move in a core step keep exactly their state (the engine's inert-row contract)."""
    tables = LearnerTables(32, make_rules("four_handed"), None, None, False)
    tables.seed(np.arange(32, dtype=np.uint64), 0)
    tables.start(np.arange(32))
    tables.advance()
    moving = np.arange(32) % 3 == 0
    before = tables.state.copy()
    acts = engine.sample_legal(tables.state, tables.rules, np.random.default_rng(0))
    tables.act(acts, moving)
    held = np.flatnonzero(~moving)
    assert tables.state.take(held) == before.take(held), "a waiting table changed"
    assert tables.state.take(np.flatnonzero(moving)) != before.take(np.flatnonzero(moving)), "no table moved"


def test_vector_bad_input_is_rejected() -> None:
    """Wrong action shape/dtype, illegal actions and bad arguments raise specific errors."""
    venv = EuchreVectorEnv(4, "four_handed", illegal_action="raise")
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(4, np.int64))
    _, info = venv.reset(seed=1)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        venv.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="integer"):
        venv.step(np.zeros(4, np.float32))
    act = np.argmax(info["action_mask"], axis=1)
    act[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    with pytest.raises(IllegalActionError, match="at table 2"):
        venv.step(act)
    for kwargs, message in [
        ({"num_envs": 0}, "num_envs"),
        ({"opponents": "random"}, "opponents"),
        ({"bogus": 1}, "unknown setting"),
        ({"seat": -1}, "seat"),
    ]:
        with pytest.raises(ValueError, match=message):
            EuchreVectorEnv(**{"num_envs": 2, **kwargs})
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=[1, 2])


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_sb3_vec_env_same_step_reset_matches_single_envs(variant: str) -> None:
    """EuchreSB3VecEnv: same-step reset with terminal_observation, equal to single envs seeded s + i."""
    n = 6
    venv = EuchreSB3VecEnv(n, variant, seed=70)
    envs = [EuchreEnv(variant) for _ in range(n)]
    vobs = venv.reset()
    singles = [env.reset(seed=70 + i)[0] for i, env in enumerate(envs)]
    assert np.array_equal(vobs, np.stack(singles)), "reset observations differ"
    rng = np.random.default_rng(2)
    dones_seen = 0
    for t in range(40):
        masks = get_action_masks(venv)
        assert masks.shape == (n, NUM_ACTIONS) and masks.any(axis=1).all(), f"[{t}] masks"
        act = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        vobs, vrew, vdone, vinfos = venv.step(act)
        for i, env in enumerate(envs):
            obs, rew, term, _, info = env.step(int(act[i]))
            assert rew == vrew[i] and term == vdone[i], f"[{t}] table {i}: reward/done differ"
            if term:
                dones_seen += 1
                assert np.array_equal(vinfos[i]["terminal_observation"], obs), f"[{t}] terminal obs"
                assert vinfos[i]["TimeLimit.truncated"] is False, "never truncated"
                assert vinfos[i]["hand"]["points"].tolist() == info["hand"]["points"], f"[{t}] hand summary"
                obs, _ = env.reset()
            assert np.array_equal(vobs[i], obs), f"[{t}] table {i}: observation differs"
    assert dones_seen > 0, "the run should include same-step resets"


def test_sb3_vec_env_attribute_api() -> None:
    """has_attr/get_attr/env_method/env_is_wrapped work as MaskablePPO and VecEnv users expect."""
    venv = EuchreSB3VecEnv(3, "four_handed", seed=0)
    venv.reset()
    assert is_masking_supported(venv), "MaskablePPO must see action_masks"
    assert venv.get_attr("render_mode") == [None, None, None], "render_mode per table"
    assert len(venv.env_method("action_masks", indices=[0, 2])) == 2, "env_method indices"
    assert venv.env_is_wrapped(object) == [False] * 3, "env_is_wrapped"
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    with pytest.raises(ValueError, match="seed"):
        EuchreSB3VecEnv(2, seed=-1)


def test_maskable_ppo_learns_on_the_sb3_vec_env() -> None:
    """MaskablePPO trains for 2000 steps on EuchreSB3VecEnv without error (smoke test)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: extra threads only contend on a shared machine
    try:
        venv = EuchreSB3VecEnv(8, "four_handed", seed=0)
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=128, n_epochs=1, seed=0, device="cpu")
        model.learn(2000)
        assert model.num_timesteps >= 2000, f"trained only {model.num_timesteps} steps"
        venv.set_opponents(RandomPolicy())  # swapping opponents between rollouts keeps working
        model.learn(512, reset_num_timesteps=False)
        assert model.num_timesteps >= 2512, "a second learn() after set_opponents did not run"
    finally:
        torch.set_num_threads(threads)


def test_action_space_sample_draws_every_legal_action_and_only_those() -> None:
    """action_space.sample(): a legal action at each live table, all of a table's legal actions
    over repeated draws, about uniformly, and 0 at a finished table."""
    venv = EuchreVectorEnv(64, "five_handed")
    assert not venv.action_space.sample().any(), "before reset there is nothing to draw"
    venv.reset(seed=8)
    for _ in range(3):
        _, _, _, _, info = venv.step(venv.action_space.sample())
    masks = info["action_mask"]
    venv.action_space.seed(0)
    draws = np.stack([venv.action_space.sample() for _ in range(600)])  # (600, B)
    for i in range(64):
        legal = np.flatnonzero(masks[i])
        if not legal.size:
            assert (draws[:, i] == 0).all(), f"table {i} is finished: action 0"
            continue
        values, counts = np.unique(draws[:, i], return_counts=True)
        assert np.array_equal(values, legal), f"table {i}: drawn {values}, legal {legal}"
        assert counts.min() > 600 / legal.size / 3, f"table {i}: far from uniform {counts}"

"""EuchreEnv: Gymnasium/SB3 API checks, seeding, masks, rewards, opponents, bad input."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from euchre_env import actions, cards, engine, make_rules
from euchre_env.encoding import encode, obs_layout
from euchre_env.engine import IllegalActionError
from euchre_env.envs.gym_env import EuchreEnv
from euchre_env.envs.vector_env import EuchreVectorEnv
from euchre_env.policies import RandomPolicy, normalize_opponents

VARIANTS = ["four_handed", "five_handed"]
IDS = {"four_handed": "euchre_env/Euchre-v0", "five_handed": "euchre_env/EuchreFiveHanded-v0"}


class ScriptedPolicy:
    """Takes its first preferred action that is legal, else the lowest legal action id."""

    def __init__(self, *prefer: int) -> None:
        self.prefer = prefer

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Batched scripted choice. Shape (B,)."""
        out = np.argmax(action_masks, axis=1)
        for a in reversed(self.prefer):
            out = np.where(action_masks[:, a], a, out)
        return out


class SpyPolicy(RandomPolicy):
    """A RandomPolicy without the fast path that checks and records every call."""

    act_bits = None  # type: ignore[assignment]

    def __init__(self) -> None:
        self.calls: list[int] = []

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Random legal actions; asserts the call is well formed."""
        assert observations.shape[0] == action_masks.shape[0], "observations and masks disagree on B"
        assert action_masks.any(axis=1).all(), "an opponent was asked to act with no legal action"
        chosen = super().act(observations, action_masks, rng)
        assert action_masks[np.arange(chosen.size), chosen].all(), "spy chose an illegal action"
        self.calls.append(int(chosen.size))
        return chosen


def random_episode(env: EuchreEnv, seed: int | None, rng: np.random.Generator) -> list[tuple]:
    """Play one episode with uniformly random legal actions; the (obs, reward, terminated, mask) trail."""
    obs, info = env.reset(seed=seed)
    trail = [(obs, 0.0, False, info["action_mask"])]
    terminated = False
    while not terminated:
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        assert not truncated, "EuchreEnv never truncates"
        trail.append((obs, reward, terminated, info["action_mask"]))
    return trail


def deal_with_dealer(variant: str, dealer: int) -> dict:
    """A fixed deal of ``variant`` with the given dealer (cards in deck order)."""
    rules = make_rules(variant)
    names = [cards.name(c) for c in rules.deck]
    p = rules.num_players
    hands = [names[5 * i : 5 * i + 5] for i in range(p)]
    return {"dealer": dealer, "hands": hands, "upcard": names[5 * p], "kitty": names[5 * p + 1 :]}


@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_check_env_passes(variant: str) -> None:
    """Gymnasium's check_env passes without warnings (illegal_action='terminate', see the docstring)."""
    env = gymnasium.make(IDS[variant], illegal_action="terminate").unwrapped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    assert not caught, f"check_env warned: {[str(w.message) for w in caught]}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_sb3_check_env_passes(variant: str) -> None:
    """SB3's check_env passes on the default env without warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(EuchreEnv(variant), warn=True)
    assert not caught, f"SB3 check_env warned: {[str(w.message) for w in caught]}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_trajectory(variant: str) -> None:
    """Two envs reset with the same seed and fed the same actions play identical episodes."""
    a, b = EuchreEnv(variant), EuchreEnv(variant)
    for episode in range(4):
        seed = 11 if episode == 0 else None  # later episodes continue the seeded stream
        ta = random_episode(a, seed, np.random.default_rng(episode))
        tb = random_episode(b, seed, np.random.default_rng(episode))
        assert len(ta) == len(tb), f"[episode {episode}] lengths differ"
        for t, (x, y) in enumerate(zip(ta, tb, strict=True)):
            assert np.array_equal(x[0], y[0]) and x[1:3] == y[1:3], f"[episode {episode}, step {t}] differ"
    first = [random_episode(EuchreEnv(variant), s, np.random.default_rng(0))[0][0] for s in range(6)]
    assert any(not np.array_equal(first[0], f) for f in first[1:]), "different seeds gave the same deals"


@pytest.mark.parametrize(
    ("variant", "settings"),
    [
        ("four_handed", {}),
        ("five_handed", {}),
        ("four_handed", {"stick_the_dealer": False, "defend_alone": True}),
        ("four_handed", {"zero_sum": True}),
        ("five_handed", {"zero_sum": True}),
    ],
)
def test_masks_observations_and_rewards_follow_the_engine(variant: str, settings: dict) -> None:
    """Every decision has a legal action; obs is the learner's encoding; the reward is the engine's."""
    zero_sum = settings.pop("zero_sum", False)
    env = EuchreEnv(variant, zero_sum=zero_sum, **settings)
    rng = np.random.default_rng(5)
    for episode in range(25):
        obs, info = env.reset(seed=episode)
        terminated = False
        while True:
            seat = env.learner_seat
            assert np.array_equal(obs, encode(env.state, seat, env.rules)[0]), (
                f"[{episode}] obs is not encode()"
            )
            mask = env.action_masks()
            assert np.array_equal(mask, info["action_mask"]), f"[{episode}] action_masks() != info mask"
            if terminated:
                break
            assert mask.any(), f"[{episode}] learner asked to act with an empty mask"
            assert int(env.state.turn[0]) == seat, f"[{episode}] not the learner's turn"
            obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            if terminated:
                expect = engine.rewards(env.state, env.rules, zero_sum)[0, seat]
                assert reward == expect, f"[{episode}] reward {reward} != engine's {expect}"
                assert info["hand"]["points"] == env.state.last_points[0].tolist(), f"[{episode}] summary"
            else:
                assert reward == 0.0, f"[{episode}] reward before the hand ended"
        assert not mask.any(), f"[{episode}] a finished episode still has legal actions"


def test_game_episode_rewards_add_up_to_the_final_score() -> None:
    """In game mode every hand is rewarded; the rewards sum to the learner's final score."""
    env = EuchreEnv("four_handed", episode="game", points_to_win=5)
    rng = np.random.default_rng(3)
    for episode in range(4):
        _, info = env.reset(seed=100 + episode)
        total, terminated, hands = 0.0, False, 0
        while not terminated:
            _, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            total += reward
            hands += "hand" in info
        seat = env.learner_seat
        assert total == env.state.scores[0, seat], (
            f"[{episode}] rewards {total} != score {env.state.scores[0, seat]}"
        )
        assert hands >= 2 and info["hand"]["winners"], f"[{episode}] expected several hands and a winner"


def test_learner_sitting_out_plays_the_hand_through() -> None:
    """When the partner goes alone after the learner acts, one step plays the hand to its end."""
    partner = ScriptedPolicy(actions.ORDER_UP, actions.ALONE)
    others = ScriptedPolicy(actions.PASS)
    env = EuchreEnv("four_handed", seat=0, opponents={1: others, 2: partner, 3: others})
    env.reset(seed=1, options={"deal": deal_with_dealer("four_handed", dealer=3)})
    assert int(env.state.phase[0]) == actions.Phase.BID_UPCARD, "the learner (left of the dealer) bids first"
    _, reward, terminated, _, info = env.step(actions.PASS)
    assert terminated, "the hand should be played out while the learner sits out"
    hand = info["hand"]
    assert hand["alone"] and hand["maker"] == 2, f"partner should have gone alone: {hand}"
    assert reward == hand["points"][0] == hand["points"][2], "learner scores with its lone partner"


def test_deal_without_a_learner_decision_is_skipped() -> None:
    """If the partner orders up alone before the learner's first turn, reset deals the next hand."""
    partner = ScriptedPolicy(actions.ORDER_UP, actions.ALONE)
    env = EuchreEnv("four_handed", seat=0, opponents={1: RandomPolicy(), 2: partner, 3: RandomPolicy()})
    _, info = env.reset(seed=2, options={"deal": deal_with_dealer("four_handed", dealer=1)})
    assert env.tables.episode >= 2, "the given deal (partner bids first) should be skipped"
    assert info["action_mask"].any() and int(env.state.turn[0]) == 0, "reset must end at a learner decision"


def test_illegal_action_raises_and_leaves_the_state() -> None:
    """illegal_action='raise': IllegalActionError (a ValueError) naming it; the state is unchanged."""
    env = EuchreEnv("four_handed", illegal_action="raise")
    _, info = env.reset(seed=4)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.state.copy()
    with pytest.raises(IllegalActionError, match=rf"illegal action {illegal} .*legal actions: "):
        env.step(illegal)
    assert env.state == before, "a rejected action changed the state"
    assert issubclass(IllegalActionError, ValueError), "IllegalActionError must be a ValueError"
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # the env is still usable


def test_terminate_mode_ends_the_episode_with_a_penalty() -> None:
    """illegal_action='terminate': reward -1, terminated, info flags it; step then needs a reset."""
    env = EuchreEnv("five_handed", illegal_action="terminate")
    _, info = env.reset(seed=4)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True), "penalty"
    assert not env.action_masks().any(), "no legal actions after termination"
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("bad", [1.5, "3", np.array([1, 2]), True, None])
def test_bad_action_type_or_shape_is_rejected(bad: object) -> None:
    """Non-integer or non-scalar actions raise ValueError saying what was expected."""
    env = EuchreEnv("four_handed")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(bad)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bogus_setting": 1}, "unknown setting"),
        ({"opponents": 3}, "opponents"),
        ({"opponents": [RandomPolicy()]}, "opponents sequence must have 3"),
        ({"opponents": {1: RandomPolicy(), 2: RandomPolicy()}}, "opponents mapping"),
        ({"opponents": [RandomPolicy(), object(), RandomPolicy()]}, r"opponents: entry 1"),
        ({"seat": 4}, "seat"),
        ({"zero_sum": "yes"}, "zero_sum"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
    ],
)
def test_bad_constructor_arguments_are_named(kwargs: dict, message: str) -> None:
    """Bad constructor arguments raise ValueError naming the argument."""
    with pytest.raises(ValueError, match=message):
        EuchreEnv("four_handed", **kwargs)


def test_bad_reset_arguments_are_named() -> None:
    """A bad seed, an unknown option or a malformed deal raise clear errors."""
    env = EuchreEnv("four_handed")
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"dealer": 1})
    with pytest.raises(ValueError, match="deal"):
        env.reset(options={"deal": {"dealer": 9}})
    with pytest.raises(RuntimeError, match="reset"):
        EuchreEnv("four_handed").step(0)


def test_opponents_receive_their_own_legal_decisions() -> None:
    """Opponent policies get batched, well-formed calls and only make legal moves."""
    spy = SpyPolicy()
    env = EuchreEnv("five_handed", opponents=spy)
    rng = np.random.default_rng(8)
    for episode in range(5):
        random_episode(env, episode, rng)
    assert spy.calls and all(n == 1 for n in spy.calls), "one table: every call has one row"
    late = SpyPolicy()
    env.set_opponents(late)
    random_episode(env, 9, rng)
    assert late.calls, "set_opponents did not take effect"


def test_an_opponent_taking_an_illegal_action_is_named() -> None:
    """A broken opponent policy raises IllegalActionError naming the policy and the table."""

    class Broken:
        def act(
            self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator
        ) -> np.ndarray:
            return np.zeros(len(action_masks), np.int64) + actions.DEFEND_ALONE

        def __repr__(self) -> str:
            return "Broken()"

    env = EuchreEnv("four_handed", seat=0, opponents=Broken())
    with pytest.raises(IllegalActionError, match=r"opponent policy Broken\(\).*illegal action 92"):
        for seed in range(5):  # seat 0 is not first to act in most deals
            env.reset(seed=seed)
            env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_action_space_samples_legal_actions_and_spaces_match_layout() -> None:
    """action_space.sample() is legal now; spaces come from obs_layout and NUM_ACTIONS."""
    env = EuchreEnv("four_handed")
    env.reset(seed=3)
    env.action_space.seed(0)
    assert all(env.action_masks()[env.action_space.sample()] for _ in range(50)), "sample() not legal"
    assert env.observation_space.shape == (obs_layout(env.rules).size,), "observation size"
    assert env.action_space == gymnasium.spaces.Discrete(actions.NUM_ACTIONS), "action space"


def test_registered_ids_make_both_envs() -> None:
    """gymnasium.make and make_vec(vector_entry_point) build the registered envs."""
    for variant, env_id in IDS.items():
        env = gymnasium.make(env_id, seat=1)
        obs, info = env.reset(seed=0)
        assert obs.shape == (obs_layout(make_rules(variant)).size,), f"{env_id}: observation size"
        assert info["learner_seat"] == 1, f"{env_id}: seat kwarg not passed"
        venv = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point")
        assert isinstance(venv.unwrapped, EuchreVectorEnv), f"{env_id}: not the native vector env"
        assert venv.reset(seed=0)[0].shape == (3, obs.shape[0]), f"{env_id}: batched observation"


def test_render_ansi_shows_the_learner_hand() -> None:
    """render_mode='ansi' returns the table as text from the learner's seat."""
    env = EuchreEnv("four_handed", render_mode="ansi", seat=2)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_2" in text, f"unexpected render: {text!r}"


def test_normalize_opponents_forms() -> None:
    """A single policy, a sequence and a mapping all give one policy per relative seat."""
    a, b = RandomPolicy(), RandomPolicy()
    assert normalize_opponents(a, 4) == (a, a, a), "single policy"
    assert normalize_opponents([a, b, a], 4) == (a, b, a), "sequence"
    assert normalize_opponents({1: a, 2: b, 3: a, 4: b}, 5) == (a, b, a, b), "mapping"
    assert len(normalize_opponents(None, 5)) == 4, "default"


@pytest.mark.parametrize("vector", [False, True])
def test_a_rejected_reset_leaves_the_env_exactly_as_it_was(vector):
    """A malformed deal (a card dealt twice) raises ValueError before anything changes: the env then plays
    on exactly as an env that never saw the bad call."""
    from euchre_env import EuchreEnv, EuchreVectorEnv

    def make():
        return EuchreVectorEnv(3, "four_handed") if vector else EuchreEnv("four_handed")

    good, tried = make(), make()
    _, info = good.reset(seed=5)
    tried.reset(seed=5)
    bad = {"dealer": 0, "hands": [["AS"] * 5] * 4, "upcard": "9H", "kitty": ["TH", "JH", "QH"]}
    with pytest.raises(ValueError):
        tried.reset(seed=9, options={"deals": {0: bad}} if vector else {"deal": bad})
    rng = np.random.default_rng(0)
    for _ in range(12):
        masks = np.asarray(info["action_mask"], bool)
        pick = lambda m: int(rng.choice(np.flatnonzero(m))) if m.any() else 0
        acts = np.array([pick(m) for m in masks]) if vector else pick(masks)
        a, b = good.step(acts), tried.step(acts)
        for x, y in zip(a[:4], b[:4], strict=True):
            assert np.array_equal(np.asarray(x), np.asarray(y))
        info = a[4]
        if not vector and a[2]:
            (_, info), _ = good.reset(), tried.reset()

"""Every convention where users expect it: the ecosystems' checkers on the registered ids at default
settings, one int8 mask convention, rgb_array frames that show only what a seat may see, the
PettingZoo versioned modules and state(), torch threads."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import euchre_env
from euchre_env import actions, engine, euchre_five_handed_v0, euchre_v0
from euchre_env.actions import NUM_ACTIONS, Phase
from euchre_env.envs.aec_env import raw_env
from euchre_env.envs.gym_env import EuchreEnv
from euchre_env.envs.vector_env import EuchreVectorEnv
from euchre_env.global_state import encode_state, state_size
from euchre_env.render_image import FRAME_SHAPE, to_rgb
from euchre_env.rules import make_rules

GYM_IDS = {"four_handed": "euchre_env/Euchre-v0", "five_handed": "euchre_env/EuchreFiveHanded-v0"}
PZ_IDS = {"four_handed": "euchre_env/euchre_v0", "five_handed": "euchre_env/euchre_five_handed_v0"}
VARIANTS = list(GYM_IDS)
DEALS = json.loads((Path(__file__).parent / "data" / "deals.json").read_text(encoding="utf-8"))


def _legal(mask: np.ndarray) -> set[int]:
    return set(np.flatnonzero(mask).tolist())


# --- the ecosystems' checkers, registered ids, default settings ------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_check_env_at_default_settings(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """check_env passes on gymnasium.make(id) as a user calls it, and without warnings on .unwrapped."""
    from gymnasium.utils.env_checker import check_env

    with pytest.warns(UserWarning, match="different from the unwrapped"):
        check_env(gymnasium.make(GYM_IDS[variant]))  # warns only that it is wrapped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(GYM_IDS[variant]).unwrapped)  # also renders every declared mode
    assert not caught, f"check_env warned: {[str(w.message) for w in caught]}"
    assert "Euchre (" in capsys.readouterr().out, "render_mode='human' printed no table"


@pytest.mark.parametrize("variant", VARIANTS)
def test_sb3_make_vec_env_and_check_env_at_default_settings(variant: str) -> None:
    """make_vec_env asks for render_mode='rgb_array' and gets pictures; SB3's check_env is silent."""
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.env_util import make_vec_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(GYM_IDS[variant]), warn=True)
    assert not caught, f"SB3 check_env warned: {[str(w.message) for w in caught]}"
    venv = make_vec_env(GYM_IDS[variant], n_envs=4, seed=0)
    venv.reset()
    assert venv.render_mode == "rgb_array", "make_vec_env asks every env for rgb_array"
    for _ in range(6):
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.dtype == np.int8 and masks.shape == (4, NUM_ACTIONS), "masks through SB3"
        venv.step(np.array([venv.action_space.sample(m) for m in masks]))
    images = venv.get_images()
    assert len(images) == 4 and all(i.shape == FRAME_SHAPE and i.dtype == np.uint8 for i in images)
    assert venv.render().shape == (2 * FRAME_SHAPE[0], 2 * FRAME_SHAPE[1], 3), "SB3 tiles 4 frames 2x2"


def _pz_fn(variant: str):
    def make(**kwargs):
        return pettingzoo.make("aec", PZ_IDS[variant], **kwargs)

    return make


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_checkers_on_registered_ids(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """api_test, seed_test and render_test (human, ansi and rgb_array) pass on pettingzoo.make(id)."""
    make = _pz_fn(variant)
    api_test(make(), num_cycles=100)
    seed_test(make, num_cycles=100)
    render_test(make)
    assert set(make().metadata["render_modes"]) == {"human", "ansi", "rgb_array"}, "render modes"
    capsys.readouterr()  # human mode printed tables


# --- one mask convention -------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_env_hands_out_int8_masks_that_sample_legal_actions(variant: str) -> None:
    """AEC observation, Gymnasium info and action_masks(), vector env and SB3 env: int8, and
    action_space.sample(mask) is legal."""
    aec = euchre_v0.env() if variant == "four_handed" else euchre_five_handed_v0.env()
    aec.reset(seed=3)
    for agent in aec.agent_iter(40):
        obs, _, term, trunc, _ = aec.last()
        if term or trunc:
            aec.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8, "AEC mask dtype"
        action = aec.action_space(agent).sample(mask)
        assert action in _legal(mask), "AEC sample(mask) illegal"
        aec.step(action)

    env = gymnasium.make(GYM_IDS[variant])
    _, info = env.reset(seed=4)
    for _ in range(30):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and np.array_equal(mask, env.unwrapped.action_masks()), "gym mask"
        action = env.action_space.sample(mask)
        assert action in _legal(mask), "gym sample(mask) illegal"
        _, _, terminated, _, info = env.step(action)
        assert "illegal_action" not in info, "a legal action was taken as illegal"
        if terminated:
            _, info = env.reset()

    venv = gymnasium.make_vec(GYM_IDS[variant], num_envs=8, vectorization_mode="vector_entry_point")
    _, info = venv.reset(seed=5)
    for _ in range(30):
        masks = info["action_mask"]
        assert masks.dtype == np.int8 and masks.shape == (8, NUM_ACTIONS), "vector mask"
        assert np.array_equal(masks, venv.unwrapped.action_masks()), "action_masks() != info mask"
        acts = venv.action_space.sample(masks)
        live = masks.any(axis=1)
        assert all(acts[i] in _legal(masks[i]) for i in np.flatnonzero(live)), "vector sample(mask)"
        assert venv.single_action_space.sample(masks[np.argmax(live)]) in _legal(masks[np.argmax(live)])
        _, _, _, _, info = venv.step(acts)
        assert not info["illegal_action"].any(), "a legal action was taken as illegal"

    from euchre_env.envs.sb3_vec_env import EuchreSB3VecEnv

    sb3 = EuchreSB3VecEnv(4, variant, seed=6)  # raises on an illegal action
    sb3.reset()
    for _ in range(30):
        masks = sb3.action_masks()
        assert masks.dtype == np.int8, "SB3 env mask dtype"
        assert all(np.array_equal(m, masks[i]) for i, m in enumerate(sb3.env_method("action_masks")))
        sb3.step(np.array([sb3.action_space.sample(m) for m in masks]))


def test_maskable_ppo_and_the_agents_take_int8_masks() -> None:
    """sb3-contrib's MaskablePPO trains and predicts on the int8 masks; the package's agents act on them."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from agents import make_agent
    from euchre_env.envs.sb3_vec_env import EuchreSB3VecEnv

    venv = EuchreSB3VecEnv(2, "five_handed", seed=0)  # raises if MaskablePPO took an illegal action
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [8]}, seed=0)
    model.learn(16)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert masks.dtype == np.int8, "get_action_masks"
    acts, _ = model.predict(obs, action_masks=masks)
    assert all(a in _legal(m) for a, m in zip(acts, masks, strict=True)), "MaskablePPO.predict illegal"

    env = EuchreEnv("five_handed")
    obs, info = env.reset(seed=1)
    for name in ("random", "heuristic"):
        a = make_agent(name, env.rules).act(obs[None], info["action_mask"][None], np.random.default_rng(0))
        assert int(a[0]) in _legal(info["action_mask"]), f"{name} agent on an int8 mask"


# --- illegal actions: PettingZoo's classic convention by default ---------------------------------------


def test_illegal_actions_terminate_with_a_penalty_by_default() -> None:
    """EuchreEnv and EuchreVectorEnv: -1 and the episode ends; the vector env's other tables play on."""
    env = gymnasium.make(GYM_IDS["four_handed"]).unwrapped
    _, info = env.reset(seed=2)
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True), "EuchreEnv default"

    venv = EuchreVectorEnv(3, "four_handed")
    _, info = venv.reset(seed=2)
    acts = np.argmax(info["action_mask"], axis=1)
    acts[1] = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    _, reward, terminated, _, info = venv.step(acts)
    assert reward[1] == -1.0 and terminated[1] and info["illegal_action"].tolist() == [False, True, False]
    assert not info["action_mask"][1].any() and info["action_mask"][[0, 2]].any(axis=1).all(), "masks"
    _, reward, terminated, _, info = venv.step(np.argmax(info["action_mask"], axis=1))
    assert reward[1] == 0 and not terminated[1] and info["action_mask"][1].any(), "table 1 is dealt again"
    with pytest.raises(ValueError, match="illegal_action"):
        EuchreVectorEnv(2, illegal_action="ignore")


# --- rgb_array -----------------------------------------------------------------------------------------

PHASES = {
    "four_handed": [
        ([], {}, Phase.BID_UPCARD),
        (["pass"] * 4, {}, Phase.BID_SUIT),
        (["pass", "order up"], {}, Phase.DISCARD),
        (["pass", "order up", "discard 9C"], {}, Phase.DECLARE),
        (["pass", "order up", "discard 9C", "alone"], {"defend_alone": True}, Phase.DEFEND),
        (["pass", "order up", "discard 9C", "with partner", "play AD"], {}, Phase.PLAY),
    ],
    "five_handed": [
        ([], {}, Phase.BID_UPCARD),
        (["pass"] * 5, {}, Phase.BID_SUIT),
        (["order up"], {}, Phase.DISCARD),
        (["order up", "discard 9S"], {}, Phase.CALL),
        (["order up", "discard 9S", "call AS", "play JS", "play 8C"], {}, Phase.PLAY),
    ],
}


def _scripted(variant: str, words: list[str], **settings: object) -> raw_env:
    e = raw_env(variant, render_mode="rgb_array", **settings)
    e.reset(seed=0, options={"deal": DEALS[variant]})
    for word in words:
        e.step(actions.parse(word))
    return e


def _played_out(e: raw_env) -> raw_env:
    while e.agents and not all(e.terminations.values()):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    return e


@pytest.mark.parametrize("variant", VARIANTS)
def test_rgb_array_frames_at_every_phase(variant: str) -> None:
    """Every phase, and the hand over: a (720, 960, 3) uint8 picture, different from the others."""
    frames = {}
    for words, settings, phase in PHASES[variant]:
        e = _scripted(variant, words, **settings)
        assert Phase(int(e.engine_state.phase[0])) == phase, f"script for {phase.name}"
        frames[phase.name] = e.render()
    e = _played_out(_scripted(variant, []))
    assert Phase(int(e.engine_state.phase[0])) == Phase.DONE, "played out"
    frames["DONE"] = e.render()
    for name, frame in frames.items():
        assert frame.shape == FRAME_SHAPE and frame.dtype == np.uint8, f"{name}: {frame.shape} {frame.dtype}"
        colours = (frame[::4, ::4].astype(np.int32) << np.array([16, 8, 0])).sum(axis=2)
        assert len(np.unique(colours)) > 50, f"{name}: the frame is nearly empty"
    names = list(frames)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not np.array_equal(frames[a], frames[b]), f"{a} and {b} draw the same picture"


def _swap(s: engine.State, seat: int, card: int, other: int) -> engine.State:
    """A copy of ``s`` where ``seat`` holds ``other`` (from the kitty) instead of ``card``."""
    t = s.copy()
    t.hands[0, seat] = (int(t.hands[0, seat]) & ~(1 << card)) | (1 << other)
    t.kitty[0] = (int(t.kitty[0]) & ~(1 << other)) | (1 << card)
    return t


@pytest.mark.parametrize("variant", VARIANTS)
def test_frames_draw_no_hidden_information(variant: str) -> None:
    """Changing a hidden card of another seat leaves seat 0's picture as it was; the owner's changes."""
    rules = make_rules(variant)
    words = PHASES[variant][-1][0]
    s = _scripted(variant, words).engine_state
    owner = 2
    card = int(np.flatnonzero([int(s.hands[0, owner]) >> c & 1 for c in range(28)])[0])
    hidden = [c for c in range(28) if int(s.kitty[0]) >> c & 1 and c != int(s.upcard[0])]
    t = _swap(s, owner, card, hidden[0])
    assert np.array_equal(to_rgb(s, rules, viewer=0), to_rgb(t, rules, viewer=0)), "seat 0 sees a hidden card"
    assert not np.array_equal(to_rgb(s, rules, viewer=owner), to_rgb(t, rules, viewer=owner)), "control"


def test_frames_hide_the_partner_until_it_is_public() -> None:
    """Five-handed: who holds the called card changes only the holder's picture, until it is played."""
    rules = make_rules("five_handed")
    s = _scripted("five_handed", PHASES["five_handed"][-1][0]).engine_state  # AS called, held by seat 2
    holder, other, called = int(s.partner[0]), 3, int(s.called[0])
    assert holder == 2 and int(s.revealed[0]) < 0, "the scripted deal: seat 2 holds AS, not yet played"
    swap = int(np.flatnonzero([int(s.hands[0, other]) >> c & 1 for c in range(28)])[0])
    t = s.copy()
    t.hands[0, holder] = (int(t.hands[0, holder]) & ~(1 << called)) | (1 << swap)
    t.hands[0, other] = (int(t.hands[0, other]) & ~(1 << swap)) | (1 << called)
    t.partner[0] = other
    for viewer in (0, 1, 4):
        assert np.array_equal(to_rgb(s, rules, viewer), to_rgb(t, rules, viewer)), f"seat {viewer} sees it"
    assert not np.array_equal(to_rgb(s, rules, holder), to_rgb(t, rules, holder)), "the holder knows"


def test_render_modes_of_the_gymnasium_envs() -> None:
    """EuchreEnv draws from the learner's seat; the vector env gives one frame per table; frames are
    produced at every step for a video (RenderCollection; RecordVideo needs moviepy)."""
    from gymnasium.wrappers import RenderCollection

    env = RenderCollection(gymnasium.make(GYM_IDS["five_handed"], render_mode="rgb_array"))
    _, info = env.reset(seed=8)
    steps, terminated = 0, False
    while not terminated:
        _, _, terminated, _, info = env.step(env.action_space.sample(info["action_mask"]))
        steps += 1
    inner = env.unwrapped
    frames = env.render()
    assert len(frames) == steps + 1 and all(f.shape == FRAME_SHAPE for f in frames), "a frame per step"
    assert np.array_equal(frames[-1], to_rgb(inner.state, inner.rules, viewer=inner.learner_seat)), "seat"

    venv = EuchreVectorEnv(3, "four_handed", render_mode="rgb_array")
    venv.reset(seed=1)
    frames = venv.render()
    seats = venv.tables.seat
    assert isinstance(frames, tuple) and len(frames) == 3, "a tuple of frames"
    for i, f in enumerate(frames):
        assert np.array_equal(f, to_rgb(venv.tables.state, venv.rules, viewer=int(seats[i]), row=i)), i
    with pytest.raises(ValueError, match="render_mode"):
        EuchreVectorEnv(2, render_mode="human")


# --- PettingZoo: versioned modules and state() -----------------------------------------------------------


def test_versioned_modules() -> None:
    """from euchre_env import euchre_v0: env and raw_env of the one game, named, picklable."""
    for module, variant in ((euchre_v0, "four_handed"), (euchre_five_handed_v0, "five_handed")):
        wrapped, raw = module.env(points_to_win=5), module.raw_env()
        assert wrapped.unwrapped.rules.variant == variant and raw.rules.variant == variant, module.__name__
        assert wrapped.unwrapped.rules.points_to_win == 5, "settings pass through"
        assert str(wrapped) == module.__name__.rsplit(".", 1)[1], "metadata name"
        assert isinstance(pickle.loads(pickle.dumps(raw)), module.raw_env), "pickles as its class"
        with pytest.raises(ValueError, match="variant"):
            module.raw_env(variant="four_handed")
        assert module.__name__.rsplit(".", 1)[1] in euchre_env.__all__, "exported"


@pytest.mark.parametrize("variant", VARIANTS)
def test_state_is_the_full_information_state(variant: str) -> None:
    """state(): in state_space at every step; every seat's observation then the kitty's cards."""
    e = pettingzoo.make("aec", PZ_IDS[variant])
    rules = e.unwrapped.rules
    d = e.unwrapped.observation_space("player_0")["observation"].shape[0]
    assert e.state_space.shape == (state_size(rules),) == (rules.num_players * d + 32,), "state_space"
    e.reset(seed=11)
    for _ in e.agent_iter():
        state = e.state()
        assert state.dtype == np.float32 and e.state_space.contains(state), "state() outside state_space"
        for k, name in enumerate(e.unwrapped.possible_agents):
            assert np.array_equal(state[k * d : (k + 1) * d], e.observe(name)["observation"]), name
        s = e.unwrapped.engine_state
        kitty = [c for c in range(32) if c < 28 and int(s.kitty[0]) >> c & 1]
        assert np.flatnonzero(state[-32:]).tolist() == kitty, "the kitty's cards"
        assert np.array_equal(state, encode_state(s, rules)[0]), "the batched encoder agrees"
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


# --- torch threads ---------------------------------------------------------------------------------------


def _threads_in_fresh_processes(envs: list[dict[str, str]], code: str) -> list[int]:
    """torch's thread count printed by ``code`` in a new Python process per environment (run together)."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for env in envs
    ]
    counts = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
        counts.append(int(out.decode().strip().splitlines()[-1]))
    return counts


def test_agents_choose_one_torch_thread_only_when_nobody_chose() -> None:
    """First to import torch, no OMP_NUM_THREADS: one thread. OMP_NUM_THREADS set, or torch's count
    set before: left alone."""
    from agents.neural import import_torch

    code = "from agents.neural import import_torch; print(import_torch().get_num_threads())"
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    fresh, chosen = _threads_in_fresh_processes([env, {**env, "OMP_NUM_THREADS": "2"}], code)
    assert fresh == 1, "agents first, nothing chosen: one thread"
    assert chosen == 2, "OMP_NUM_THREADS is kept"
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert import_torch().get_num_threads() == 2, "a count set before is kept"
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_record_video_writes_a_playable_video_of_whole_hands(variant: str, tmp_path: Path) -> None:
    """Gymnasium's RecordVideo (moviepy) records every episode of the rgb_array env as an mp4 whose frames are
    the env's pictures."""
    from gymnasium.wrappers import RecordVideo
    from moviepy import VideoFileClip

    env = RecordVideo(gymnasium.make(GYM_IDS[variant], render_mode="rgb_array"), str(tmp_path),
                      episode_trigger=lambda episode: True, disable_logger=True)  # fmt: skip
    for episode in range(2):
        _, info = env.reset(seed=episode)
        done, steps = False, 0
        while not done:
            _, _, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
            done, steps = terminated or truncated, steps + 1
    env.close()
    videos = sorted(tmp_path.glob("*.mp4"))
    assert len(videos) == 2, f"one video per episode, got {[v.name for v in videos]}"
    with VideoFileClip(str(videos[-1])) as clip:
        frame = clip.get_frame(0)
        assert frame.shape == FRAME_SHAPE and clip.duration > 0
        assert clip.n_frames == steps + 1 or abs(clip.duration * clip.fps - (steps + 1)) <= 1

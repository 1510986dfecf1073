"""The trained-model adapter: loading, rules checks, legal actions only, shipped models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from agents import make_agent
from agents.neural import NeuralAgent
from agents.sb3_policy import MODELS_DIR, SB3Policy, rules_metadata
from euchre_env import engine, make_rules
from euchre_env.encoding import encode, obs_layout
from euchre_env.envs.sb3_vec_env import EuchreSB3VecEnv
from training.sb3.files import export_model

VARIANTS = ["four_handed", "five_handed"]
torch.set_num_threads(1)  # small batches: extra threads only contend on a shared machine


@pytest.fixture(scope="module", params=VARIANTS)
def saved_model(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """An untrained small MaskablePPO model of each variant, saved as ``training.sb3.train`` saves it."""
    variant = str(request.param)
    venv = EuchreSB3VecEnv(4, variant, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, policy_kwargs={"net_arch": [16]}, seed=0)
    model.euchre_rules = rules_metadata(make_rules(variant))
    path = tmp_path_factory.mktemp(variant) / "model.zip"
    model.save(path)
    return variant, path


def play_checked(agent: SB3Policy | NeuralAgent, rules: object, seed: int, tables: int = 64) -> int:
    """Play hands where the agent takes every other decision (random the rest); returns decisions checked."""
    rng = np.random.default_rng(seed)
    s = engine.init_state(rules, tables, rng=rng)
    checked = 0
    for step in range(200):
        live = np.flatnonzero(~engine.is_done(s))
        if not live.size:
            return checked
        masks = engine.legal_action_mask(s, rules)
        acts = engine.sample_legal(s, rules, rng)
        if step % 2 == 0:
            obs = encode(s.take(live), s.turn[live], rules, np.float32)
            chosen = agent.act(obs, masks[live], rng)
            assert chosen.shape == (live.size,) and chosen.dtype == np.int64, (
                f"bad result {chosen.dtype} {chosen.shape}"
            )
            assert masks[live, chosen].all(), f"illegal actions {chosen[~masks[live, chosen]]} at step {step}"
            acts[live] = chosen
            checked += live.size
        s = engine.step(s, acts, rules)
    raise AssertionError("hands did not finish in 200 steps")


def test_model_prefix_loads_a_saved_model_with_its_rules(saved_model: tuple[str, Path]) -> None:
    """``model:<path>`` builds an SB3Policy for the rules stored in the zip."""
    variant, path = saved_model
    agent = make_agent(f"model:{path}", make_rules(variant))
    assert isinstance(agent, SB3Policy), f"make_agent returned {agent!r}"
    assert agent.rules.variant == variant and agent.metadata["variant"] == variant, (
        f"metadata {agent.metadata}"
    )
    assert SB3Policy(path).rules == make_rules(variant), "rules=None must use the rules stored in the model"


@pytest.mark.parametrize("deterministic", [True, False])
def test_adapter_only_takes_legal_actions(saved_model: tuple[str, Path], deterministic: bool) -> None:
    """Greedy and sampled actions are legal in every phase of many hands."""
    variant, path = saved_model
    rules = make_rules(variant)
    agent = SB3Policy(path, rules, deterministic=deterministic)
    assert play_checked(agent, rules, seed=1) > 500, "too few decisions were checked"


def test_adapter_is_a_legal_opponent_in_the_env(saved_model: tuple[str, Path]) -> None:
    """As an opponent in the SB3 vector env the adapter plays whole hands (the env raises on illegal actions)."""
    variant, path = saved_model
    venv = EuchreSB3VecEnv(16, variant, opponents=SB3Policy(path, deterministic=False), seed=3)
    venv.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(40):
        masks = venv.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, dones, _ = venv.step(acts)
        ended += int(dones.sum())
    assert ended > 16, f"only {ended} hands finished"


def test_greedy_is_deterministic_and_sampling_follows_rng(saved_model: tuple[str, Path]) -> None:
    """Greedy picks the best masked logit; sampling repeats with the same rng seed."""
    variant, path = saved_model
    rules = make_rules(variant)
    s = engine.init_state(rules, 256, rng=np.random.default_rng(5))
    obs, masks = encode(s, s.turn, rules, np.float32), engine.legal_action_mask(s, rules)
    greedy = SB3Policy(path, rules)
    logits = np.where(masks, greedy.logits(obs), -np.inf)
    assert (greedy.act(obs, masks, np.random.default_rng(0)) == logits.argmax(axis=1)).all(), (
        "greedy != argmax"
    )
    sampler = SB3Policy(path, rules, deterministic=False)
    a1 = sampler.act(obs, masks, np.random.default_rng(7))
    a2 = sampler.act(obs, masks, np.random.default_rng(7))
    assert (a1 == a2).all(), "the same rng seed must give the same samples"


def test_wrong_rules_are_rejected(saved_model: tuple[str, Path]) -> None:
    """A model loaded for another variant or observation size raises a ValueError saying so."""
    variant, path = saved_model
    other = "five_handed" if variant == "four_handed" else "four_handed"
    with pytest.raises(ValueError, match="trained for"):
        SB3Policy(path, make_rules(other))
    with pytest.raises(ValueError, match="observations of size"):
        SB3Policy(path, make_rules(variant, points_to_win=15))


def test_bad_model_names_are_clear_errors(tmp_path: Path) -> None:
    """A missing file or a non-model file gives a ValueError naming it."""
    rules = make_rules("four_handed")
    with pytest.raises(ValueError, match="no model file 'nowhere/none'"):
        make_agent("model:nowhere/none", rules)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(Exception, match="zip"):
        SB3Policy(junk, rules)


def test_exported_model_acts_like_the_original(saved_model: tuple[str, Path], tmp_path: Path) -> None:
    """``export_model`` drops the optimizer state and halves the weights; the policy acts the same."""
    variant, path = saved_model
    rules = make_rules(variant)
    small = export_model(path, tmp_path / "small.zip")
    assert small.stat().st_size < path.stat().st_size, "the export should be smaller"
    s = engine.init_state(rules, 64, rng=np.random.default_rng(2))
    obs = encode(s, s.turn, rules, np.float32)
    np.testing.assert_allclose(
        SB3Policy(small, rules).logits(obs), SB3Policy(path, rules).logits(obs), atol=2e-2
    )
    full = export_model(path, tmp_path / "full.zip", half=False)
    np.testing.assert_array_equal(SB3Policy(full, rules).logits(obs), SB3Policy(path, rules).logits(obs))


@pytest.mark.parametrize("variant", VARIANTS)
def test_shipped_models_load_by_name_and_play_legally(variant: str) -> None:
    """``model:<variant>`` and ``trained`` load the model shipped in agents/models and play legal actions."""
    rules = make_rules(variant)
    assert (MODELS_DIR / f"{variant}.safetensors").is_file(), (
        f"no shipped model agents/models/{variant}.safetensors"
    )
    by_name = make_agent(f"model:{variant}", rules)
    trained = make_agent("trained", rules)
    assert isinstance(by_name, NeuralAgent) and isinstance(trained, NeuralAgent), (
        "shipped models are safetensors files: they must load as NeuralAgent"
    )
    assert play_checked(trained, rules, seed=4, tables=32) > 100, "too few decisions were checked"


def test_hand_trained_model_ignores_running_scores(saved_model: tuple[str, Path]) -> None:
    """A model trained on one-hand episodes sees game scores as zeros, as it did in training."""
    variant, path = saved_model
    rules = make_rules(variant, episode="game")
    agent = SB3Policy(path, rules)
    s = engine.init_state(rules, 32, rng=np.random.default_rng(6))
    obs = encode(s, s.turn, rules, np.float32)
    scored = obs.copy()
    scored[:, obs_layout(rules).slice("scores")] = 1.0
    np.testing.assert_array_equal(agent.logits(scored), agent.logits(obs))

"""``euchre train --env``: the batched and the single-env training VecEnvs deal and play alike."""

from __future__ import annotations

import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks

from euchre_env.policies import RandomPolicy
from training.sb3.envs import make_train_env


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_single_and_batched_training_envs_agree(variant: str) -> None:
    """Same seed, same learner actions: the same observations, masks (as MaskablePPO reads them),
    rewards and episode ends from both kinds, also after set_opponents."""
    batched = make_train_env("batched", 6, variant, zero_sum=False, seed=9)
    single = make_train_env("single", 6, variant, zero_sum=False, seed=9)
    obs_b, obs_s = batched.reset(), single.reset()
    rng = np.random.default_rng(0)
    for t in range(40):
        assert np.array_equal(obs_b, obs_s), f"[{t}] observations differ"
        masks = get_action_masks(batched)
        assert np.array_equal(masks, get_action_masks(single)), f"[{t}] masks differ"
        if t == 20:
            for env in (batched, single):
                env.set_opponents(RandomPolicy())
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs_b, rew_b, done_b, _ = batched.step(acts)
        obs_s, rew_s, done_s, _ = single.step(acts)
        assert np.array_equal(rew_b, rew_s) and np.array_equal(done_b, done_s), f"[{t}] rewards/dones differ"


def test_unknown_env_kind_is_named() -> None:
    """A bad --env value names the choices."""
    with pytest.raises(ValueError, match="--env must be one of"):
        make_train_env("threads", 2, "four_handed", zero_sum=False, seed=0)

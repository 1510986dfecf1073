"""The training environments of ``euchre train --env``: one VecEnv interface, two cores.

* ``batched`` (default): :class:`~euchre_env.envs.sb3_vec_env.EuchreSB3VecEnv`,
  ``num_envs`` tables stepped together by the batched engine; opponents act
  in one batched call per policy and round. The fast choice.
* ``single``: stable-baselines3's ``DummyVecEnv`` of ``num_envs``
  :class:`~euchre_env.envs.gym_env.EuchreEnv` (the single-agent Gymnasium env, as
  sb3-contrib's MaskablePPO examples use it). Opponents act one decision at a
  time. For checking that a result does not depend on the batched core, and
  as the template for training on the Gymnasium env with other libraries.

Both take ``set_opponents(opponents)`` (the opponent pool redraws before
every rollout) and answer ``env_method("action_masks")`` as MaskablePPO expects;
table ``i`` is seeded ``seed + i`` in both, so they deal the same hands.
"""

from __future__ import annotations

from typing import Any

ENV_KINDS = ("batched", "single")


def single_envs(num_envs: int, variant: str, zero_sum: bool, seed: int) -> Any:
    """``DummyVecEnv`` of ``num_envs`` ``EuchreEnv`` (env ``i`` seeded ``seed + i``), with
    ``set_opponents(opponents)`` seating ``opponents`` at every env.

    (stable-baselines3 and torch are imported here, not when this module is.)
    """
    from stable_baselines3.common.vec_env import DummyVecEnv

    from euchre_env.envs.gym_env import EuchreEnv

    class SingleEnvs(DummyVecEnv):
        def set_opponents(self, opponents: Any) -> None:
            """Seat ``opponents`` (the ``opponents`` argument of ``EuchreEnv``) at every env."""
            self.env_method("set_opponents", opponents)

    venv = SingleEnvs([lambda: EuchreEnv(variant, zero_sum=zero_sum) for _ in range(num_envs)])
    venv.seed(seed)
    return venv


def make_train_env(kind: str, num_envs: int, variant: str, zero_sum: bool, seed: int) -> Any:
    """The stable-baselines3 ``VecEnv`` for ``euchre train --env kind``.

    Raises:
        ValueError: ``kind`` is not one of ``ENV_KINDS``.
    """
    if kind == "batched":
        from euchre_env.envs.sb3_vec_env import EuchreSB3VecEnv

        return EuchreSB3VecEnv(num_envs, variant, zero_sum=zero_sum, seed=seed)
    if kind == "single":
        return single_envs(num_envs, variant, zero_sum, seed)
    raise ValueError(f"--env must be one of {ENV_KINDS}, got {kind!r}")

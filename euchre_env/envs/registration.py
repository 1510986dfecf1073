"""Gymnasium ids of the single-agent and vector environments.

``register_envs()`` (run when ``euchre_env`` is imported) registers::

    euchre_env/Euchre-v0             four-handed partnership Euchre
    euchre_env/EuchreFiveHanded-v0   five-handed called-card Euchre

each with an ``entry_point`` (:class:`~euchre_env.envs.gym_env.EuchreEnv`) and a
``vector_entry_point`` (:class:`~euchre_env.envs.vector_env.EuchreVectorEnv`)::

    env = gymnasium.make("euchre_env/Euchre-v0", seat=0)
    envs = gymnasium.make_vec("euchre_env/Euchre-v0", num_envs=1024,
                              vectorization_mode="vector_entry_point")

Extra keyword arguments (``opponents``, ``seat``, ``zero_sum``, rules settings)
pass through to the constructors.
"""

from __future__ import annotations

import gymnasium

ENV_IDS: dict[str, str] = {
    "euchre_env/Euchre-v0": "four_handed",
    "euchre_env/EuchreFiveHanded-v0": "five_handed",
}


def register_envs() -> None:
    """Register the ids of ``ENV_IDS`` with Gymnasium (idempotent)."""
    for env_id, variant in ENV_IDS.items():
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point="euchre_env.envs.gym_env:EuchreEnv",
            vector_entry_point="euchre_env.envs.vector_env:EuchreVectorEnv",
            kwargs={"variant": variant},
        )

"""The environments: thin adapters over the one engine (``euchre_env.engine``); none re-implements a rule.

* :mod:`~euchre_env.envs.aec_env`: the PettingZoo AEC env (``env``, ``raw_env``), wrapped by
  :mod:`~euchre_env.envs.aec_wrappers`; versioned modules ``euchre_env.euchre_v0`` and
  ``euchre_env.euchre_five_handed_v0``; PettingZoo ids in :mod:`~euchre_env.envs.pz_registry`;
* :mod:`~euchre_env.envs.gym_env`: ``EuchreEnv``, the single-agent Gymnasium env (core:
  :mod:`~euchre_env.envs.learner_table`);
* :mod:`~euchre_env.envs.vector_env`: ``EuchreVectorEnv``, ``B`` tables as one Gymnasium
  ``VectorEnv``; :mod:`~euchre_env.envs.sb3_vec_env`: ``EuchreSB3VecEnv`` for stable-baselines3
  (both over the batched core :mod:`~euchre_env.envs.learner_tables`);
* :mod:`~euchre_env.envs.registration`: the Gymnasium ids.

Imports point one way: the envs use the core (rules, engine, encoding, render), never the reverse.
"""

"""Multi-agent PPO on Ray RLlib (``euchre train --backend rllib``; the ``rllib`` extra).

* :mod:`training.rllib.env`: ``EuchreMultiAgentEnv``, tables of the batched engine as an RLlib ``MultiAgentEnv``;
* :mod:`training.rllib.module`: ``MaskedMLPModule``, an action-masking PPO RL module whose actor is the
  project's policy network, so it exports to a model file (``agents.neural``);
* :mod:`training.rllib.train`: the trainer (local Ray or a cluster), checkpoints, snapshot self-play.
"""

"""Learners, one sub-package per route: the batched trainer (:mod:`training.batched`), stable-baselines3
(:mod:`training.sb3`), Ray RLlib (:mod:`training.rllib`) and imitation (:mod:`training.imitation`), with the
run files, options and opponent pools they share."""

from training import _moved

_moved.install()

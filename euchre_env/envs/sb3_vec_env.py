"""``EuchreSB3VecEnv``: the batched Euchre tables as a stable-baselines3 ``VecEnv``.

SB3 does not take a Gymnasium ``VectorEnv``, so this adapter drives the same
core (:class:`~euchre_env.envs.learner_tables.LearnerTables`) as
:class:`~euchre_env.envs.vector_env.EuchreVectorEnv` with SB3's conventions:
same-step reset, ``infos[i]["terminal_observation"]`` and
``env_method("action_masks")`` returning one mask per table, so
``sb3_contrib.MaskablePPO`` trains on it directly::

    from sb3_contrib import MaskablePPO
    venv = EuchreSB3VecEnv(64, "four_handed", seed=0)
    MaskablePPO("MlpPolicy", venv).learn(10_000)

Wrap it in ``VecMonitor`` for episode statistics. This module needs
``stable-baselines3`` (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.envs.learner_tables import LearnerTables, check_batch_actions, make_tables, seeds_to_array
from euchre_env.policies import Opponents
from euchre_env.render_image import blank_frame, to_rgb

__all__ = ["EuchreSB3VecEnv"]


class EuchreSB3VecEnv(VecEnv):
    """``num_envs`` Euchre tables, one learner seat each, as an SB3 ``VecEnv``.

    Spaces: ``Box(0, 1, (D,), float32)`` observations, ``Discrete(93)`` actions.
    A table whose episode ends is reset in the same step: ``dones[i]`` is
    True, the returned observation is the new episode's first one, and
    ``infos[i]`` holds ``"terminal_observation"``, ``"TimeLimit.truncated"``
    (always False) and ``"hand"``, a numpy record of the last hand's summary
    (fields as the ``EuchreVectorEnv`` infos: ``hand["points"]`` etc.).
    ``action_masks()`` gives the (B, 93) int8 0/1 masks for the observations
    just returned (the package's one mask convention). Illegal actions raise
    :class:`euchre_env.engine.IllegalActionError` (the trainer's env: a masked
    learner never takes one, so one is a bug to surface).

    ``render_mode="rgb_array"``: ``get_images()`` gives each table's picture
    from its learner's seat and SB3's ``render()`` tiles them (so
    ``VecVideoRecorder`` works; render a few tables, not thousands).

    Seeding: ``seed=s`` (or ``venv.seed(s)`` before ``reset``) gives table ``i``
    seed ``s + i``, exactly as ``EuchreEnv`` and ``EuchreVectorEnv``.
    ``reset`` options (``venv.set_options``) may hold a ``"deal"`` per table.

    ``get_attr``/``set_attr``/``env_method`` act on this one object, since all
    tables share it; ``env_method("action_masks")`` returns the per-table rows.

    Args:
        num_envs: number of tables ``B``.
        variant: as in :class:`~euchre_env.envs.gym_env.EuchreEnv`.
        opponents: as in ``EuchreEnv``.
        seat: as in ``EuchreEnv``.
        zero_sum: as in ``EuchreEnv``.
        seed: seed of table 0 at the first reset (None: random).
        render_mode: None or ``"rgb_array"``.
        **settings: table settings, as in ``EuchreEnv``.
    """

    def __init__(
        self,
        num_envs: int = 1,
        variant: str = "four_handed",
        *,
        opponents: Opponents = None,
        seat: int | None = None,
        zero_sum: bool = False,
        seed: int | None = None,
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self._tables = make_tables(num_envs, variant, opponents, seat, zero_sum, settings)
        self.rules = self._tables.rules
        self.render_mode = render_mode
        size = obs_layout(self.rules).size
        super().__init__(
            self._tables.num_tables, spaces.Box(0.0, 1.0, (size,), np.float32), spaces.Discrete(NUM_ACTIONS)
        )
        self.metadata["render_fps"] = 2
        self._actions: np.ndarray | None = None
        self._masks = np.zeros((self.num_envs, NUM_ACTIONS), np.int8)
        if seed is not None:
            seeds_to_array(seed, self.num_envs)  # validate now
            self.seed(seed)

    @property
    def tables(self) -> LearnerTables:
        """The batched core (engine state in ``tables.state``)."""
        return self._tables

    def set_opponents(self, opponents: Opponents) -> None:
        """Replace the opponent policies at every table (e.g. with a self-play snapshot)."""
        self._tables.set_opponents(opponents)

    def action_masks(self) -> np.ndarray:
        """Legal actions of every table's learner, int8 (B, 93) of 0/1."""
        return self._masks.copy()

    def reset(self) -> VecEnvObs:
        """Start an episode at every table (seeds/options from ``seed()``/``set_options()``)."""
        tables = self._tables
        given = [s is not None for s in self._seeds]
        if all(given):
            seeds = seeds_to_array(self._seeds, self.num_envs, "seeds")
            tables.seed(seeds, int(seeds[0]))
        elif any(given):
            raise ValueError("seed all tables or none: got seeds for only some of them")
        elif not tables.keyed:
            tables.draw_keys(np.random.default_rng())
        tables.start(np.arange(self.num_envs), deals=_deals(self._options))
        tables.advance()
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        """Store the learner actions (B,) for ``step_wait``."""
        self._actions = check_batch_actions(actions, self.num_envs).copy()  # the caller may reuse its array

    def step_wait(self) -> VecEnvStepReturn:
        """Play the stored actions; finished tables are reset in the same step."""
        tables = self._tables
        if self._actions is None or tables.state is None:
            raise RuntimeError("call reset() and step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        tables.act(actions, np.ones(self.num_envs, bool))
        tables.advance()
        rewards = tables.take_rewards(np.ones(self.num_envs, bool))
        dones = tables.done()
        obs = tables.observe()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            terminal = obs[ended]  # (n, D) copy: obs rows are overwritten below
            hands = _records(tables.summary(), ended)
            for k, i in enumerate(ended.tolist()):  # SB3's per-table info dicts
                infos[i] = {
                    "terminal_observation": terminal[k],
                    "TimeLimit.truncated": False,
                    "hand": hands[k],
                }
            tables.start(ended)
            tables.advance()
            obs[ended] = tables.observe(ended)
        self._masks = tables.action_masks().astype(np.int8)
        return obs, rewards, dones, infos

    def get_images(self) -> list[np.ndarray]:
        """Each table's picture from its learner's seat (uint8 (720, 960, 3)); SB3's ``render()`` tiles them."""
        s = self._tables.state
        if s is None:
            return [blank_frame("no hand yet: call reset()") for _ in range(self.num_envs)]
        seats = self._tables.seat
        return [to_rgb(s, self.rules, viewer=int(seats[i]), row=i) for i in range(self.num_envs)]

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``getattr(self, attr_name)`` once per requested table (raises AttributeError if missing)."""
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of this object (shared by all tables)."""
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks``: one (93,) mask per table; any other method: called once, result per table."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """No table is a wrapped ``gym.Env``."""
        return [False for _ in self._get_indices(indices)]

    def _observe(self) -> np.ndarray:
        self._masks = self._tables.action_masks().astype(np.int8)
        return self._tables.observe()


def _records(summary: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    """(n,) structured array: one record per table in ``rows`` with the fields of ``summary``."""
    cols = {k: v[rows] for k, v in summary.items()}
    dtype = [(k, v.dtype, v.shape[1:]) for k, v in cols.items()]
    out = np.empty(rows.size, dtype=dtype)
    for k, v in cols.items():
        out[k] = v
    return out


def _deals(options: Sequence[dict[str, Any]]) -> dict[int, Any] | None:
    """``{table: deal}`` from SB3's per-table reset options."""
    deals = {}
    for i, opt in enumerate(options):
        unknown = sorted(set(opt) - {"deal"})
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown} for table {i}; the only option is 'deal'")
        if opt.get("deal") is not None:
            deals[i] = opt["deal"]
    return deals or None

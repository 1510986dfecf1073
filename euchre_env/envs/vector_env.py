"""``EuchreVectorEnv``: ``B`` Euchre tables as one natively batched Gymnasium ``VectorEnv``.

The SB3 adapter over the same core is :class:`euchre_env.envs.sb3_vec_env.EuchreSB3VecEnv`
(it imports ``stable_baselines3``, the ``train`` extra).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import logger as gym_logger
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from euchre_env import engine
from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.engine import sample_bits
from euchre_env.envs.gym_env import ILLEGAL_ACTION_MODES, ILLEGAL_ACTION_REWARD
from euchre_env.envs.learner_tables import LearnerTables, check_batch_actions, make_tables, seeds_to_array
from euchre_env.policies import Opponents
from euchre_env.render_image import blank_frame, to_rgb

__all__ = ["EuchreVectorEnv", "LegalMultiDiscrete"]


class LegalMultiDiscrete(spaces.MultiDiscrete):
    """``MultiDiscrete([A] * B)`` whose ``sample()`` without a mask draws a uniformly random legal action per table.

    Rows whose episode is over (all-zero mask) get action 0 (ignored by the
    env). ``sample(mask)`` also takes the env's ``(B, A)`` int8 mask array
    (``info["action_mask"]``) as well as Gymnasium's tuple of ``B`` rows.
    Pickled or deep-copied spaces are plain ``MultiDiscrete``.
    """

    def __init__(self, num_envs: int, env: EuchreVectorEnv | None = None) -> None:
        super().__init__(np.full(num_envs, NUM_ACTIONS, np.int64))
        self._env = env

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        """Uniform legal actions, shape (B,), unless given a mask/probability.

        Drawn from the engine's compact legal sets (``engine.sample_bits``:
        the legal action of rank ``floor(u * count)``, ``u`` from ``np_random``).
        """
        if isinstance(mask, np.ndarray) and mask.ndim == 2:
            mask = tuple(mask)  # Gymnasium's MultiDiscrete takes one mask row per table
        if mask is not None or probability is not None or self._env is None:
            return super().sample(mask=mask, probability=probability)
        s = self._env.tables.state
        if s is None:  # before the first reset: no legal actions yet
            return np.zeros(self.shape, np.int64)
        return np.maximum(sample_bits(s.mask_base, s.mask_bits, self.np_random.random(s.batch_size)), 0)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_env"] = None
        return state


def info_arrays(tables: LearnerTables, masks: np.ndarray) -> dict[str, np.ndarray]:
    """The vector infos: ``action_mask`` (B, A) plus the hand summary arrays of :meth:`LearnerTables.summary`."""
    return {"action_mask": masks.copy(), **tables.summary()}


class EuchreVectorEnv(VectorEnv):
    """``B`` tables of :class:`~euchre_env.envs.gym_env.EuchreEnv`, batched natively.

    Every table has one learning seat; observations, rewards, masks and
    opponents' moves are computed for all tables at once (one batched
    ``Policy.act`` call per opponent policy and round).

    * ``observation_space``: ``Box(0, 1, (B, D), float32)``; ``action_space``:
      ``MultiDiscrete([93] * B)`` whose ``sample()`` draws legal actions.
    * Autoreset: ``AutoresetMode.NEXT_STEP`` (as ``CartPoleVectorEnv``). The
      step after a table terminates resets it: its action is ignored, it
      returns the new episode's first observation and mask, reward 0 and
      ``terminated=False``.
    * Infos: a dict of arrays: ``action_mask`` (B, 93) int8 0/1 (all 0 at a
      table whose episode just ended), ``hand_over`` (B,) bool (a hand ended
      this step), ``illegal_action`` (B,) bool and the summary of each table's
      last finished hand: ``points``/``tricks``/``scores`` (B, P), ``maker``,
      ``trump``, ``called``, ``partner``, ``alone``, ``defender_alone``,
      ``winners``, ``learner_seat`` (B,).
    * ``action_masks()``: the (B, 93) int8 masks, for masked policies;
      ``action_space.sample(info["action_mask"])`` draws a legal action per table.
    * Illegal actions (at a table that is not being reset), as ``EuchreEnv``:
      ``illegal_action="terminate"`` (default) ends that table's episode with
      reward -1 and ``info["illegal_action"]`` set there (the other tables
      play on); ``"raise"`` raises :class:`euchre_env.engine.IllegalActionError`
      naming the table, and nothing changes.
    * ``render_mode="rgb_array"``: ``render()`` returns a tuple of ``B``
      pictures, table ``i`` from its learner's seat (as ``EuchreEnv``; about
      15 ms per table, so render small batches).
    * Seeding: ``reset(seed=s)`` gives table ``i`` seed ``s + i``
      (``seed=[s_0, ..., s_{B-1}]`` sets each), so table ``i`` plays exactly as
      ``EuchreEnv`` reset with seed ``s + i`` given the same learner actions,
      whenever the opponents are :class:`RandomPolicy` or deterministic (see
      :mod:`euchre_env.envs.learner_tables`). ``reset()`` without a seed deals each
      table's next episode.

    Arguments are those of ``EuchreEnv`` (``variant``, ``opponents``, ``seat``,
    ``zero_sum``, ``illegal_action``, ``render_mode``, ``**settings``) plus ``num_envs``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["rgb_array"],
        "render_fps": 2,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int = 1,
        variant: str = "four_handed",
        *,
        opponents: Opponents = None,
        seat: int | None = None,
        zero_sum: bool = False,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self._tables = make_tables(num_envs, variant, opponents, seat, zero_sum, settings)
        self.rules = self._tables.rules
        self.num_envs = self._tables.num_tables
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        size = obs_layout(self.rules).size
        self.single_observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.action_space = LegalMultiDiscrete(self.num_envs, self)
        self.prev_done = np.zeros(self.num_envs, bool)
        self._masks = np.zeros((self.num_envs, NUM_ACTIONS), np.int8)

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

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode at every table and play up to each learner's turn.

        Args:
            seed: None, an int (table ``i`` gets ``seed + i``) or one int per table.
            options: ``{"deals": {table: deal}}`` (or a list of ``B`` deals/None)
                to start from given deals.
        """
        tables = self._tables
        deals = _deals_option(options)
        if deals is not None:  # checked before anything changes: a malformed deal leaves the env as it was
            engine.init_state(self.rules, seeds=np.zeros(self.num_envs, np.uint64), deals=deals)
        if seed is not None:
            seeds = seeds_to_array(seed, self.num_envs)
            super().reset(seed=int(seeds[0]))
            tables.seed(seeds, int(seeds[0]))
        else:
            super().reset()
            if not tables.keyed:
                tables.draw_keys(self.np_random)
        tables.start(np.arange(self.num_envs), deals=deals)
        tables.advance()
        self.prev_done[:] = False
        obs = self._observe()
        return obs, {**info_arrays(tables, self._masks), "illegal_action": np.zeros(self.num_envs, bool)}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Learner actions (B,) for every table; tables that ended last step are reset instead.

        Raises:
            ValueError: ``actions`` has the wrong shape or dtype.
            IllegalActionError: an action is illegal at a table that is not being reset
                (``illegal_action="raise"``).
            RuntimeError: before the first ``reset``.
        """
        tables = self._tables
        if tables.state is None:
            raise RuntimeError("call reset() before step()")
        a = check_batch_actions(actions, self.num_envs)
        resetting = self.prev_done
        acting = ~resetting
        illegal = np.zeros(self.num_envs, bool)
        if self.illegal_action == "terminate":
            ok = (a >= 0) & (a < NUM_ACTIONS)
            legal = np.zeros(self.num_envs, bool)
            legal[ok] = self._masks[np.flatnonzero(ok), a[ok]] == 1
            illegal = acting & ~legal
            acting = acting & legal
        tables.act(a, acting)
        if resetting.any():
            tables.start(np.flatnonzero(resetting))
        tables.advance()
        reward = tables.take_rewards(acting | illegal)
        terminated = tables.done()
        if illegal.any():  # PettingZoo's classic penalty; the table is dealt again at the next step
            reward[illegal] = ILLEGAL_ACTION_REWARD
            terminated |= illegal
            tables.hand_ended[illegal] = False  # a hand reported at the previous step is not reported again
        self.prev_done = terminated.copy()
        truncated = np.zeros(self.num_envs, bool)
        obs = self._observe()
        self._masks[illegal] = 0
        info = {**info_arrays(tables, self._masks), "illegal_action": illegal}
        return obs, reward, terminated, truncated, info

    def render(self) -> tuple[np.ndarray, ...] | None:
        """``render_mode="rgb_array"``: one picture per table, from its learner's seat (uint8 (720, 960, 3) each)."""
        if self.render_mode is None:
            gym_logger.warn("render() called with render_mode=None; pass render_mode='rgb_array'")
            return None
        s = self._tables.state
        if s is None:
            return tuple(blank_frame("no hand yet: call reset()") for _ in range(self.num_envs))
        seats = self._tables.seat
        return tuple(to_rgb(s, self.rules, viewer=int(seats[i]), row=i) for i in range(self.num_envs))

    def _observe(self) -> np.ndarray:
        self._masks = self._tables.action_masks().astype(np.int8)
        return self._tables.observe()


def _deals_option(options: dict[str, Any] | None) -> Any:
    if options is None:
        return None
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    unknown = sorted(set(options) - {"deals"})
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}; the only option is 'deals'")
    return options.get("deals")

"""``EuchreEnv``: one learning seat against opponent policies, as a Gymnasium environment."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from euchre_env import cards, engine
from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.engine.single import Table
from euchre_env.envs.learner_table import LearnerTable
from euchre_env.envs.learner_tables import seeds_to_array
from euchre_env.policies import Opponents
from euchre_env.render import to_ansi
from euchre_env.render_image import blank_frame, to_rgb
from euchre_env.rules import make_rules
from euchre_env.state import State

__all__ = ["ILLEGAL_ACTION_MODES", "RENDER_MODES", "EuchreEnv", "LegalDiscrete"]

ILLEGAL_ACTION_MODES = ("terminate", "raise")  # the first is the default
ILLEGAL_ACTION_REWARD = -1.0  # illegal_action="terminate": PettingZoo's classic penalty
RENDER_MODES = ["ansi", "human", "rgb_array"]


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a *legal* action.

    It asks its environment for the current legal-action mask, so random
    rollouts (and the Gymnasium and SB3 environment checkers) only take legal
    actions. With a ``mask`` or ``probability`` argument, or once the
    environment is gone (pickled or deep-copied spaces), it is a plain
    ``Discrete``. It compares equal to ``Discrete(n)``.
    """

    def __init__(self, n: int, masks: Callable[[], np.ndarray] | None = None) -> None:
        super().__init__(n)
        self._masks = weakref.WeakMethod(masks) if masks is not None else None

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        """A legal action of the environment's current state (uniform), unless given a mask."""
        get = self._masks() if self._masks is not None else None
        if mask is None and probability is None and get is not None:
            legal = get()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_masks"] = None
        return state


class EuchreEnv(gym.Env):
    """Euchre from one seat, with opponent policies playing every other seat.

    ## Description
    One hand (or, with ``episode="game"``, one game) of five-handed called-card
    Euchre or four-handed partnership Euchre (rules: docs/rules.md).
    The learner plays one seat; ``opponents`` (default :class:`RandomPolicy`)
    play the others. After each learner action the opponents act until it is
    the learner's turn again or the episode ends. If the learner sits out (its
    partner went alone) the hand is played through. A deal in which the
    learner would never act (its partner orders up and goes alone before the
    learner's first turn) is skipped at reset: the table deals its next hand.

    ## Action Space
    ``Discrete(93)``, the action table of :mod:`euchre_env.actions` (play,
    discard, call a card; pass, order up, name a suit, alone, with partner,
    defend alone). ``action_masks()`` (the sb3-contrib ``MaskablePPO``
    contract) and ``info["action_mask"]`` give the legal actions as an int8
    ``(93,)`` array of 0/1 (the mask of every env of this package), so
    ``action_space.sample(info["action_mask"])`` works;
    ``action_space.sample()`` alone also draws a legal action.

    **Illegal actions** follow PettingZoo's classic convention by default
    (``illegal_action="terminate"``, as the wrapped AEC ``env()``): reward
    ``-1``, the episode ends and ``info["illegal_action"]`` is True. That is
    what Gymnasium's ``check_env`` needs: its step-determinism check samples
    an action *before* a seeded reset, so that action may be illegal in the
    state it is applied to. ``illegal_action="raise"`` raises
    :class:`euchre_env.engine.IllegalActionError` (a ``ValueError``) naming
    the action, the phase and the legal actions, and leaves the state
    unchanged: the strict choice while debugging an agent.

    ## Observation Space
    ``Box(0, 1, (D,), float32)``: the learner's seat-relative view
    (:func:`euchre_env.encoding.encode`), everything that seat may know and
    nothing else. ``D`` and the index table come from
    ``encoding.obs_layout(rules)`` (tables below).

    ## Starting State
    A new deal; the learner's seat is ``seat`` or, when ``seat=None``, drawn
    per episode. Opponents seated before the learner have already acted.

    ## Rewards
    The learner's points for the hand, given on the step where the hand ends
    (rules.md#c13, #c17); zero otherwise. ``zero_sum=True``: four-handed, own
    side's points minus the other side's; five-handed, own points minus the
    mean of all five (rules.md#c21). In game mode every hand is rewarded
    when it ends (a hand finished before the learner's first decision is
    added to its first step's reward).

    ## Episode End
    Terminated when the hand (game) is over; never truncated.

    ## Information
    ``info["action_mask"]`` (int8 ``(93,)``), ``info["learner_seat"]`` and,
    on a step in which a hand ended, ``info["hand"]``: a dict with the
    hand's ``points`` and ``tricks`` per seat, ``maker``, ``trump`` (suit
    letter), ``alone``, ``called`` card and ``partner`` (five-handed),
    ``defender_alone``, the running ``scores`` and the game's ``winners``.

    ## Seeding
    ``reset(seed=s)`` keys the table from ``s``; later ``reset()`` calls deal
    the table's next episodes. Deals, drawn seats and :class:`RandomPolicy`
    opponents are counter-based hashes of the key, so this env with seed
    ``s + i`` plays exactly like table ``i`` of ``EuchreVectorEnv`` reset with
    seed ``s`` (see :mod:`euchre_env.envs.learner_tables`). Without any seed the
    key comes from ``self.np_random``. ``options={"deal": {...}}`` starts from
    a given deal (``engine.init_state`` deal format).

    ## Arguments
    * ``variant``: ``"four_handed"`` (default), ``"five_handed"`` or a preset of
      :data:`euchre_env.PRESETS`.
    * ``opponents``: ``None``, a Policy for every other seat, ``P - 1``
      policies for the seats to the learner's left in order, or a mapping
      ``{relative seat: policy}``.
    * ``seat``: the learner's fixed seat, or None to draw it per episode.
    * ``zero_sum``: reward convention (above).
    * ``illegal_action``: ``"terminate"`` (default) or ``"raise"`` (above).
    * ``render_mode``: None; ``"ansi"`` (``render()`` returns the table as
      text, :func:`euchre_env.render.to_ansi`); ``"human"`` (the text is
      printed at every reset and step, ``render()`` returns None: a terminal
      display, so it works on machines without a screen); ``"rgb_array"``
      (``render()`` returns the picture of the table from the learner's seat,
      uint8 ``(720, 960, 3)``, :func:`euchre_env.render_image.to_rgb`, for
      ``gymnasium.wrappers.RecordVideo`` and stable-baselines3's
      ``make_vec_env``). Every mode shows only what the learner may see.
    * ``**settings``: rules settings of :func:`euchre_env.make_rules`
      (``stick_the_dealer``, ``defend_alone``, ``points_to_win``, ``episode``).

    ## Example
        >>> env = EuchreEnv("four_handed", seat=0)
        >>> obs, info = env.reset(seed=7)
        >>> action = int(np.flatnonzero(info["action_mask"])[0])
        >>> obs, reward, terminated, truncated, info = env.step(action)

    ## Version History
    * v0: Initial release.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        variant: str = "four_handed",
        *,
        opponents: Opponents = None,
        seat: int | None = None,
        zero_sum: bool = False,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self.illegal_action = illegal_action
        self._over = True
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.rules = make_rules(variant, **settings)
        self.render_mode = render_mode
        self._tables = LearnerTable(self.rules, opponents, seat, zero_sum)
        size = obs_layout(self.rules).size
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = LegalDiscrete(NUM_ACTIONS, self.action_masks)
        self._mask = np.zeros(NUM_ACTIONS, np.int8)

    @property
    def state(self) -> State | None:
        """A copy of the engine state (one table), None before the first reset."""
        return self._tables.state

    @property
    def tables(self) -> LearnerTable:
        """The core the env runs on (one table on the engine's single-table path)."""
        return self._tables

    @property
    def learner_seat(self) -> int:
        """The learner's absolute seat in the current episode."""
        return self._tables.seat

    def set_opponents(self, opponents: Opponents) -> None:
        """Replace the opponent policies (e.g. with a self-play snapshot)."""
        self._tables.set_opponents(opponents)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, int8 ``(93,)`` of 0/1; all 0 once the episode is over."""
        return self._mask.copy()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        """Start an episode (a new table key if ``seed`` is given) and play up to the learner's turn.

        Everything is checked before anything changes: a bad ``seed`` or ``deal``
        raises ``ValueError`` and leaves the env exactly as it was.
        """
        deal = _deal_option(options)
        if seed is not None:  # the vector env's seed checks; gymnasium's reset takes a Python int
            seed = int(seeds_to_array(seed, 1)[0])
        if deal is not None:
            engine.init_state(self.rules, seeds=[0], deals=[deal])  # raises for a malformed deal
        super().reset(seed=seed)
        tables = self._tables
        if seed is not None:
            tables.seed(seed)
        elif not tables.keyed:
            tables.draw_keys(self.np_random)
        tables.start(deal)
        tables.advance()
        self._over = False
        obs, info = self._observe(), self._info()
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action``, then the opponents until the learner's turn or the end.

        Raises:
            ValueError: ``action`` is not an integer scalar.
            IllegalActionError: ``action`` is not legal now (``illegal_action="raise"``; state unchanged).
            RuntimeError: the episode is over (call ``reset``) or never began.
        """
        tables = self._tables
        if self._over:
            raise RuntimeError("the episode is over (or never started): call reset() before step()")
        a = _check_action(action)
        if self.illegal_action == "terminate" and not (0 <= a < NUM_ACTIONS and self._mask[a]):
            self._over = True
            obs = tables.observe()
            self._mask = np.zeros(NUM_ACTIONS, np.int8)
            tables.hand_ended = False  # reported at the learner's previous step: not again
            return obs, ILLEGAL_ACTION_REWARD, True, False, {**self._info(), "illegal_action": True}
        tables.act(a)
        tables.advance()
        reward = tables.take_reward()
        self._over = tables.done
        obs, info = self._observe(), self._info()
        if self.render_mode == "human":
            self.render()
        return obs, reward, self._over, False, info

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's seat: text (``"ansi"``), a picture (``"rgb_array"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gym.logger.warn(f"render() called with render_mode=None; pass one of {RENDER_MODES}")
            return None
        state = self.state
        if self.render_mode == "rgb_array":
            if state is None:
                return blank_frame("no hand yet: call reset()")
            return to_rgb(state, self.rules, viewer=self.learner_seat)
        text = (
            to_ansi(state, self.rules, self.learner_seat)
            if state is not None
            else "(no hand yet: call reset())"
        )
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def _observe(self) -> np.ndarray:
        self._mask = self._tables.action_mask().astype(np.int8)
        return self._tables.observe()

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "learner_seat": self.learner_seat}
        if self._tables.hand_ended:
            info["hand"] = hand_dict(self._tables.table)
        return info


def _check_action(action: Any) -> int:
    """The action as an int; ValueError for anything but an integer scalar."""
    arr = np.asarray(action)
    if arr.shape != ():
        raise ValueError(f"action must be a single integer action id, got an array of shape {arr.shape}")
    if isinstance(action, (bool, np.bool_)) or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"action must be an integer action id in 0..{NUM_ACTIONS - 1}, got {action!r}")
    return int(arr)


def _deal_option(options: dict[str, Any] | None) -> dict | None:
    if options is None:
        return None
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    unknown = sorted(set(options) - {"deal"})
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}; the only option is 'deal'")
    return options.get("deal")


def hand_dict(t: Table) -> dict[str, Any]:
    """``info["hand"]``: plain Python values describing table ``t``'s last finished hand."""
    trump, called = t.last_trump, t.last_called
    return {
        "points": list(t.last_points),
        "tricks": list(t.last_tricks),
        "maker": t.last_maker,
        "trump": cards.SUIT_CHARS[trump] if trump < cards.NUM_SUITS else None,
        "alone": bool(t.last_alone),
        "called": cards.name(called) if called >= 0 else None,
        "partner": t.last_partner,
        "defender_alone": t.last_defender_alone,
        "scores": list(t.scores),
        "winners": [s for s in range(len(t.scores)) if t.winners >> s & 1],
    }


def _layout_tables() -> str:
    parts = []
    for variant in ("four_handed", "five_handed"):
        lay = obs_layout(make_rules(variant))
        parts.append(f"\n    Observation layout, ``{variant}`` (D = {lay.size}):\n\n" + lay.table())
    return "\n".join(parts)


EuchreEnv.__doc__ = (EuchreEnv.__doc__ or "") + _layout_tables()

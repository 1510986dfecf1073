"""``LearnerTable``: one table, one learning seat, on the engine's single-table path.

The core of :class:`~euchre_env.envs.gym_env.EuchreEnv`. It is
:class:`~euchre_env.envs.learner_tables.LearnerTables` for ``B = 1`` on a
:class:`~euchre_env.engine.single.Table` (Python ints) instead of a batched
state, which makes a single-agent step several times cheaper. Everything
follows the batched core exactly (``tests/test_gym_env.py`` checks that a
``EuchreEnv`` with seed ``s + i`` plays as table ``i`` of a vector env):

* the table key is ``splitmix64(seed)`` (or drawn from a generator);
  episode ``e`` deals from the engine seed ``mix(key ^ mix(e))``; a drawn
  learner seat is ``mix(engine_seed ^ SEAT_SALT) % P``;
* the ``n``-th decision of an episode, made by a policy with ``act_bits``,
  uses ``u = mix((engine_seed ^ OPP_SALT) + n * GOLDEN) / 2**64``;
  :class:`~euchre_env.policies.RandomPolicy` itself is answered in Python
  (the same rank rule as ``engine.sample_bits``); other policies get the
  seat's observation ``(1, D)`` and mask ``(1, A)`` and ``opponent_rng``.
"""

from __future__ import annotations

import numpy as np

from euchre_env import engine
from euchre_env.actions import NUM_ACTIONS, Phase, describe
from euchre_env.engine import IllegalActionError
from euchre_env.engine.single import M64, Table, mix, observe
from euchre_env.envs.learner_tables import GOLDEN, OPP_SALT, SEAT_SALT, check_seat, legal_list
from euchre_env.policies import Opponents, RandomPolicy, normalize_opponents
from euchre_env.rules import RulesConfig
from euchre_env.state import State

_GOLDEN_I, _OPP_SALT_I, _SEAT_SALT_I = int(GOLDEN), int(OPP_SALT), int(SEAT_SALT)
_DONE = int(Phase.DONE)


def sample_rank(base: int, bits: int, u: float) -> int:
    """``engine.sample_bits`` for one table: the legal action of rank ``floor(u * count)``."""
    count = bits.bit_count()
    k = min(int(u * count), count - 1)
    for _ in range(k):
        bits &= bits - 1  # drop the lowest set bit
    return base + (bits & -bits).bit_length() - 1


class LearnerTable:
    """One table, a learning seat, opponent policies at the other seats.

    Attributes:
        rules: the game's rules.
        table: the engine table (None before ``start``).
        seat: the learner's seat in the current episode.
        reward: learner reward accrued since last taken.
        hand_ended: a hand ended since the last learner action.
        episode: episodes started since the table was keyed.
        learner_decisions, opponent_decisions: running totals of decisions played.
    """

    def __init__(self, rules: RulesConfig, opponents: Opponents, seat: int | None, zero_sum: bool) -> None:
        if not isinstance(zero_sum, (bool, np.bool_)):
            raise ValueError(f"zero_sum must be True or False, got {zero_sum!r}")
        self.rules = rules
        self.zero_sum = bool(zero_sum)
        self.fixed_seat = check_seat(seat, rules.num_players)
        self.set_opponents(opponents)
        self.table: Table | None = None
        self.key, self.keyed, self.episode = 0, False, 0
        self.seat, self.decisions, self.fresh = 0, 0, False
        self.reward, self.hand_ended = np.float32(0), False  # float32 sums, as the batched core
        self.opponent_rng = np.random.default_rng()
        self.learner_decisions = self.opponent_decisions = 0

    def set_opponents(self, opponents: Opponents) -> None:
        """Replace the opponent policies (as ``LearnerTables.set_opponents``)."""
        self.opponents = normalize_opponents(opponents, self.rules.num_players)

    def seed(self, seed: int) -> None:
        """Key the table from an integer seed; episodes restart at 0."""
        self.key, self.episode, self.keyed = mix(int(seed) & M64), 0, True
        self.opponent_rng = np.random.default_rng(seed)

    def draw_keys(self, rng: np.random.Generator) -> None:
        """Key the table from ``rng`` (the same draws as ``LearnerTables.draw_keys``)."""
        self.key = int(rng.integers(0, 2**64 - 1, size=1, dtype=np.uint64, endpoint=True)[0])
        self.episode, self.keyed = 0, True
        self.opponent_rng = np.random.default_rng(rng.integers(2**63))

    # --- episodes ---------------------------------------------------------
    def start(self, deal: dict | None = None) -> None:
        """Start the next episode (a given ``deal`` in the engine's format, else dealt from the key)."""
        ep_seed = mix(self.key ^ mix(self.episode))
        self.episode += 1
        p = self.rules.num_players
        self.seat = mix(ep_seed ^ _SEAT_SALT_I) % p if self.fixed_seat is None else self.fixed_seat
        self.decisions, self.fresh, self.reward, self.hand_ended = 0, True, np.float32(0), False
        if deal is None:
            self.table = Table.new(self.rules, ep_seed)
        else:
            self.table = Table(engine.init_state(self.rules, seeds=[ep_seed], deals=[deal]), self.rules)

    def act(self, action: int) -> None:
        """Apply the learner's action. Raises IllegalActionError (nothing changes) if it is illegal."""
        t = self.table
        if not (0 <= action < NUM_ACTIONS and t.is_legal(action)):
            what = describe(action) if 0 <= action < NUM_ACTIONS else "not an action id"
            raise IllegalActionError(
                f"illegal action {action} ({what}): phase {Phase(t.phase).name}, learner seat {self.seat} "
                f"to act; legal actions: {legal_list(t.mask_base, t.mask_bits)}"
            )
        self.hand_ended = False
        self._step(action)
        self.fresh = False
        self.learner_decisions += 1

    def advance(self) -> None:
        """Opponents act until the learner's turn or the end (see ``LearnerTables.advance``)."""
        t = self.table
        while True:
            if self.fresh and (t.phase == _DONE or (self.rules.episode == "hand" and t.out >> self.seat & 1)):
                self.start()  # the learner can no longer get a decision this episode
                t = self.table
            if t.turn < 0 or t.turn == self.seat:
                return
            self._step(self._opponent_action(t))
            self.opponent_decisions += 1

    def take_reward(self) -> float:
        """The reward accrued since last taken; clears it."""
        r, self.reward = self.reward, np.float32(0)
        return float(r)

    # --- views ------------------------------------------------------------
    @property
    def done(self) -> bool:
        """The episode is over."""
        return self.table.phase == _DONE

    @property
    def state(self) -> State | None:
        """The engine state as a one-row ``State`` (a copy; None before ``start``)."""
        return None if self.table is None else self.table.state()

    def observe(self) -> np.ndarray:
        """The learner's observation, float32 ``(D,)``."""
        return observe(self.table, self.seat, np.float32)

    def action_mask(self) -> np.ndarray:
        """The learner's legal actions, bool ``(A,)``; all False once the episode is over."""
        return self.table.legal_mask(bool)

    # --- internals --------------------------------------------------------
    def _step(self, action: int) -> None:
        t = self.table
        t.step(action)
        self.decisions += 1
        if t.hand_over:
            pts = engine.points_to_rewards(np.array([t.last_points]), self.rules, self.zero_sum)
            self.reward = self.reward + pts[0, self.seat]
            self.hand_ended = True

    def _opponent_action(self, t: Table) -> int:
        """The action of the opponent to act, checked for type and legality."""
        rel = (t.turn - self.seat) % self.rules.num_players
        policy = self.opponents[rel - 1]
        if getattr(policy, "act_bits", None) is not None:
            u = (mix(((t.seed ^ _OPP_SALT_I) + self.decisions * _GOLDEN_I) & M64) >> 11) * 2.0**-53
            if type(policy) is RandomPolicy:
                return sample_rank(t.mask_base, t.mask_bits, u)
            a = policy.act_bits(
                np.array([t.mask_base], np.int8), np.array([t.mask_bits], np.uint64), np.array([u])
            )
        else:
            obs = observe(t, t.turn, np.float32)[None]
            a = policy.act(obs, t.legal_mask(bool)[None], self.opponent_rng)
        arr = np.asarray(a)
        if arr.shape != (1,) or arr.dtype.kind not in "iu":
            raise ValueError(
                f"opponent policy {policy!r} must return one integer action (shape (1,)), got {arr.dtype} array of shape {arr.shape}"
            )
        action = int(arr[0])
        if not (0 <= action < NUM_ACTIONS and t.is_legal(action)):
            raise IllegalActionError(
                f"opponent policy {policy!r} (relative seat {rel}) chose illegal action {action} at table 0, "
                f"phase {Phase(t.phase).name}; legal actions: {legal_list(t.mask_base, t.mask_bits)}"
            )
        return action

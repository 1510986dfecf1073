"""``LearnerTables``: ``B`` tables in one engine state, one learning seat per table.

The batched core shared by :class:`~euchre_env.envs.vector_env.EuchreVectorEnv` and
:class:`~euchre_env.envs.sb3_vec_env.EuchreSB3VecEnv`
(:class:`~euchre_env.envs.gym_env.EuchreEnv` runs the same logic on one table on
the engine's single-table path: :mod:`euchre_env.envs.learner_table`). Between two learner
decisions the opponents move in *rounds*: each round makes one batched call
per distinct opponent policy (on the tables where that policy's seat is to act)
and one ``engine.step_rows`` on just the tables still waiting on an opponent;
tables already at a learner decision (or done) drop out of the remaining
rounds. Finished tables restart in place (``engine.reset_rows``). When every
opponent is a :class:`~euchre_env.policies.RandomPolicy`, a four-handed table
whose learner sits out a lone hand leaves the rounds when its card play begins;
such tables finish their hands together at the end, a whole trick per array
operation (``engine.play_out_random``, the same cards as one round per card).

Seeding is counter-based, so a table plays the same alone or in a batch:

* every table has a 64-bit ``key``: ``splitmix64(seed)`` for an integer seed,
  else drawn from a generator;
* episode ``e`` of a table uses the engine seed ``mix(key ^ mix(e))``
  (``mix`` is splitmix64); a drawn learner seat is ``mix(engine_seed ^ salt) % P``;
* the ``n``-th decision of an episode, when made by a policy with the
  ``act_bits`` fast path (such as :class:`~euchre_env.policies.RandomPolicy`),
  uses ``u = mix((engine_seed ^ salt) + n * GOLDEN) / 2**64`` (the splitmix64
  stream; ``stream`` holds each table's next position). Plain ``RandomPolicy``
  draws (``sample_bits`` on the legal sets) are legal by construction, so their
  engine steps skip the legality check.

Other stochastic policies get ``opponent_rng`` (one generator for the batch),
so their draws depend on which rows share a call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env import engine
from euchre_env.actions import NUM_ACTIONS, Phase, describe
from euchre_env.encoding import encode
from euchre_env.engine import IllegalActionError, expand, is_legal, legal_bits, sample_bits
from euchre_env.engine.deal import splitmix64 as mix
from euchre_env.engine.deal import splitmix_uniform
from euchre_env.engine.tables import SEAT_BIT
from euchre_env.policies import Opponents, RandomPolicy, normalize_opponents
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State

GOLDEN = engine.deal.GOLDEN  # splitmix64's increment
SEAT_SALT = np.uint64(0x5EA7_0F_1EA2_7E25)  # drawn learner seat: mix(engine_seed ^ SEAT_SALT) % P
OPP_SALT = np.uint64(0x0BB0_9E27_5A11_D3C7)  # act_bits draws: mix((engine_seed ^ OPP_SALT) + n * GOLDEN)
_DONE = np.int8(Phase.DONE)
_PLAY = np.int8(Phase.PLAY)


def check_seat(seat: object, num_players: int) -> int | None:
    """``seat`` as an int in ``0 .. P-1``, or None (drawn per episode).

    Raises:
        ValueError: naming ``seat`` if it is neither.
    """
    if seat is None:
        return None
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_players:
        raise ValueError(
            f"seat must be None (drawn per episode) or an int in 0..{num_players - 1}, got {seat!r}"
        )
    return int(seat)


def seeds_to_array(seeds: object, n: int, name: str = "seed") -> np.ndarray:
    """(n,) uint64 from one int (``seed + i`` for table ``i``) or ``n`` ints (a list: each below 2**63).

    Raises:
        ValueError: naming ``name`` for anything else.
    """
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        if not 0 <= seeds < 2**64:
            raise ValueError(f"{name} must be a non-negative integer below 2**64, got {seeds!r}")
        return np.arange(n, dtype=np.uint64) + np.uint64(seeds)
    arr = np.asarray(seeds)
    if arr.shape != (n,) or arr.dtype.kind not in "iu" or (arr < 0).any():
        raise ValueError(
            f"{name} must be None, an int, or {n} non-negative ints (one per table), got {seeds!r}"
        )
    return arr.astype(np.uint64)


class LearnerTables:
    """``B`` tables, a learning seat at each, opponent policies at the others.

    Attributes:
        rules: the game's rules.
        state: the engine state of the ``B`` tables (None before ``start``).
        seat: (B,) int8 learner seat of each table's current episode.
        reward: (B,) float32 learner reward accrued since last taken.
        hand_ended: (B,) bool: a hand ended since the last learner action.
        learner_decisions, opponent_decisions: running totals of decisions played.
    """

    def __init__(
        self, num_tables: int, rules: RulesConfig, opponents: Opponents, seat: int | None, zero_sum: bool
    ) -> None:
        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)) or num_tables < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_tables!r}")
        if not isinstance(zero_sum, (bool, np.bool_)):
            raise ValueError(f"zero_sum must be True or False, got {zero_sum!r}")
        b = int(num_tables)
        self.rules = rules
        self.num_tables = b
        self.zero_sum = bool(zero_sum)
        self.fixed_seat = check_seat(seat, rules.num_players)
        self._lone_hands = not rules.called_card  # four-handed: a lone hand's partner sits out
        self.set_opponents(opponents)
        self.state: State | None = None
        self.keys = np.zeros(b, np.uint64)
        self.keyed = False
        self.episode = np.zeros(b, np.uint64)  # episodes started per table
        self.seat = np.zeros(b, np.int8)
        self.seat_bit = np.ones(b, np.uint8)  # SEAT_BIT[seat]: the learner's bit in ``state.out``
        self.stream = np.zeros(b, np.uint64)  # (engine_seed ^ OPP_SALT) + decisions so far * GOLDEN
        self.fresh = np.zeros(b, bool)  # the learner has not acted yet this episode
        self.reward = np.zeros(b, np.float32)
        self.hand_ended = np.zeros(b, bool)
        self.opponent_rng = np.random.default_rng()
        self.learner_decisions = 0  # running totals, for throughput measurements
        self.opponent_decisions = 0

    # --- configuration ----------------------------------------------------
    def set_opponents(self, opponents: Opponents) -> None:
        """Replace the opponent policies (takes effect at their next decision).

        Args:
            opponents: as in :func:`~euchre_env.policies.normalize_opponents`.
        """
        per_rel = normalize_opponents(opponents, self.rules.num_players)
        groups: list = []
        for p in per_rel:
            if not any(p is g for g in groups):
                groups.append(p)
        self.opponents = per_rel
        self._groups = groups
        index = [next(i for i, g in enumerate(groups) if g is p) for p in per_rel]
        self._group_of_rel = np.array([-1, *index], dtype=np.int64)  # (P,) by relative seat
        self._all_random = all(type(g) is RandomPolicy for g in groups)  # actions legal by construction

    def seed(self, seeds: np.ndarray, opponent_seed: int | None) -> None:
        """Key every table from its integer seed; episodes restart at 0. ``seeds``: (B,) uint64."""
        self.keys[:] = mix(seeds)
        self.episode[:] = 0
        self.keyed = True
        self.opponent_rng = np.random.default_rng(opponent_seed)

    def draw_keys(self, rng: np.random.Generator) -> None:
        """Key every table from ``rng`` (unseeded use); episodes restart at 0."""
        self.keys[:] = rng.integers(0, 2**64 - 1, size=self.num_tables, dtype=np.uint64, endpoint=True)
        self.episode[:] = 0
        self.keyed = True
        self.opponent_rng = np.random.default_rng(rng.integers(2**63))

    # --- episodes ---------------------------------------------------------
    def start(self, rows: np.ndarray, deals: dict | list | None = None) -> None:
        """Start the next episode at tables ``rows`` (int array); opponents do not move yet."""
        rows = np.asarray(rows, dtype=np.int64)
        seeds = self._next_episodes(rows)
        if self.state is not None and deals is None:
            engine.reset_rows(self.state, rows, seeds, self.rules)
            return
        new = engine.init_state(self.rules, seeds=seeds, deals=deals)
        if rows.size == self.num_tables:
            self.state = new.take(np.argsort(rows))
        else:
            self.state.put(rows, new)

    def _next_episodes(self, rows: np.ndarray) -> np.ndarray:
        """Engine seeds (n,) uint64 of the next episode at tables ``rows``; resets their bookkeeping."""
        ep_seed = mix(self.keys[rows] ^ mix(self.episode[rows]))  # (n,)
        self.episode[rows] += np.uint64(1)
        if self.fixed_seat is None:
            self.seat[rows] = mix(ep_seed ^ SEAT_SALT) % np.uint64(self.rules.num_players)
        else:
            self.seat[rows] = self.fixed_seat
        self.seat_bit[rows] = SEAT_BIT[self.seat[rows]]
        self.stream[rows] = ep_seed ^ OPP_SALT
        self.fresh[rows] = True
        self.reward[rows] = 0.0
        self.hand_ended[rows] = False
        return ep_seed

    def act(self, actions: np.ndarray, moving: np.ndarray) -> None:
        """Apply the learner's actions at the tables where ``moving`` (B,) bool is set.

        Args:
            actions: (B,) int64 action ids (ignored where ``moving`` is False).
            moving: (B,) bool: tables at a learner decision taking their action.

        Raises:
            IllegalActionError: an action is not legal; nothing has changed.
        """
        s = self.state
        base, bits = legal_bits(s, self.rules)
        bad = moving > is_legal(actions, base, bits)
        if bad.any():
            raise self._illegal(actions, base, bits, int(np.flatnonzero(bad)[0]))
        rows = np.flatnonzero(moving)
        self.hand_ended[rows] = False
        self._step_rows(rows, actions[rows], check=False)  # checked above, with the learner's message
        self.stream[rows] += GOLDEN
        self.fresh[rows] = False
        self.learner_decisions += rows.size

    def advance(self) -> None:
        """Let opponents act until every table is at a learner decision or done.

        A table where the learner cannot get a decision this episode (its
        partner ordered up and went alone before the learner's first turn, or,
        in game mode, the game ended first) starts its next episode at once;
        in game mode a lone hand the learner sits out is still played out, as
        its points count.
        """
        self._play_opponents()

    def take_rewards(self, rows: np.ndarray) -> np.ndarray:
        """(B,) float32 rewards accrued at tables ``rows`` (bool mask, zero elsewhere); clears them."""
        out = np.where(rows, self.reward, np.float32(0))
        self.reward[rows] = 0.0
        return out

    # --- views ------------------------------------------------------------
    def done(self) -> np.ndarray:
        """(B,) bool: the table's episode is over."""
        return self.state.phase == _DONE

    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Learner observations, float32 ``(B, D)`` (or ``(n, D)`` for int array ``rows``)."""
        if rows is None:
            return encode(self.state, self.seat, self.rules, np.float32)
        return encode(self.state.take(rows), self.seat[rows], self.rules, np.float32)

    def action_masks(self) -> np.ndarray:
        """Learner legal-action masks, bool ``(B, A)``; all False at finished tables."""
        return expand(*legal_bits(self.state, self.rules))

    def summary(self) -> dict[str, np.ndarray]:
        """Arrays describing each table's last finished hand and its scores (valid once a hand ended)."""
        s = self.state
        return {
            "hand_over": self.hand_ended.copy(),
            "learner_seat": self.seat.copy(),
            "points": s.last_points.copy(),
            "tricks": s.last_tricks.copy(),
            "maker": s.last_maker.copy(),
            "trump": s.last_trump.copy(),
            "called": s.last_called.copy(),
            "partner": s.last_partner.copy(),
            "alone": s.last_alone.copy(),
            "defender_alone": s.last_defender_alone.copy(),
            "scores": s.scores.copy(),
            "winners": s.winners.copy(),
        }

    # --- internals --------------------------------------------------------
    def _step_rows(self, rows: np.ndarray, acts: np.ndarray, check: bool = True) -> np.ndarray:
        """One engine step at tables ``rows`` ((n,) int64, in place); credits the learners of hands that ended.

        Returns those of ``rows`` whose hand ended.
        """
        engine.step_rows(self.state, rows, acts, self.rules, check=check)
        return self._credit(rows)

    def _credit(self, rows: np.ndarray) -> np.ndarray:
        """Credit the learners at those of ``rows`` whose hand just ended; returns those tables."""
        s = self.state
        ended = rows[s.hand_over[rows]]
        if ended.size:
            pts = engine.points_to_rewards(s.last_points[ended], self.rules, self.zero_sum)  # (k, P)
            self.reward[ended] += pts[np.arange(ended.size), self.seat[ended]]
            self.hand_ended[ended] = True
        return ended

    def _play_opponents(self) -> None:
        """Opponent rounds until no table waits on an opponent, each on just the tables still waiting.

        A table where the learner can no longer get a decision restarts (see
        ``advance``): checked once for all tables, then where it can newly
        happen (a learner sitting out a lone hand, a hand that ended). With
        random opponents only, a table whose learner sits out the hand leaves
        the rounds when its card play begins, and all such tables finish their
        hands at the end in one random playout (``engine.play_out_random``).
        """
        s = self.state
        rows = np.arange(self.num_tables)
        self._restart_hopeless(rows)
        later: list[np.ndarray] = []  # tables left for the playout
        while True:
            turn = s.turn[rows]
            # A table that waits on no opponent now (learner to act, or done) drops out for the rest of the call.
            rows = rows[(turn >= 0) & (turn != self.seat[rows])]
            if self._lone_hands:
                sits_out = (s.out[rows] & self.seat_bit[rows]).astype(bool)
                if sits_out.any():
                    if self.rules.episode == "hand" and self._restart_hopeless(rows[sits_out]):
                        continue  # new hands at some of rows: look again at what they wait on
                    if self._all_random:
                        ready = sits_out & (s.phase[rows] == _PLAY) & (s.n_played[rows] == 0)
                        if ready.any():
                            later.append(rows[ready])
                            rows = rows[~ready]
            if not rows.size:
                if not later:
                    return
                rows = np.concatenate(later)
                later.clear()
                self._restart_hopeless(self._play_out(rows))
                continue  # in a game the next hand is dealt: its bidding goes on in these rounds
            stream = self.stream[rows]
            acts = self._opponent_actions(rows, stream)
            try:
                ended = self._step_rows(rows, acts, check=not self._all_random)  # sample_bits draws are legal
            except IllegalActionError:
                raise self._illegal_opponent(rows, acts) from None
            self.stream[rows] = stream + GOLDEN
            self.opponent_decisions += rows.size
            if ended.size:
                self._restart_hopeless(ended)

    def _play_out(self, rows: np.ndarray) -> np.ndarray:
        """Finish the hands at ``rows`` with random cards from their draw streams; credit the learners.

        Returns ``rows`` (whose hands all ended).
        """
        stream = self.stream[rows]
        played = engine.play_out_random(self.state, rows, stream, self.rules, check=False)
        self.stream[rows] = stream + played.astype(np.uint64) * GOLDEN
        self.opponent_decisions += int(played.sum())
        return self._credit(rows)

    def _restart_hopeless(self, rows: np.ndarray) -> bool:
        """Start the next episode, in place, at those of ``rows`` where the learner can no longer get a decision.

        That is, where the learner has not acted yet and the episode is over or,
        in hand episodes, the learner sits out the hand. Returns whether any restarted.
        """
        fresh = self.fresh[rows]
        if not fresh.any():
            return False
        rows = rows[fresh]
        s = self.state
        hopeless = s.phase[rows] == _DONE
        if self.rules.episode == "hand":
            hopeless |= (s.out[rows] & self.seat_bit[rows]).astype(bool)
        rows = rows[hopeless]
        if not rows.size:
            return False
        engine.reset_rows(s, rows, self._next_episodes(rows), self.rules)
        return True

    def _opponent_actions(self, rows: np.ndarray, stream: np.ndarray) -> np.ndarray:
        """(n,) int64 actions at tables ``rows`` (``stream``: their draw positions): one batched call per policy."""
        s = self.state
        if self._all_random:  # every opponent a RandomPolicy, whose act_bits is sample_bits: one call
            return sample_bits(s.mask_base[rows], s.mask_bits[rows], splitmix_uniform(stream))
        if len(self._groups) == 1:
            calls = [(self._groups[0], slice(None))]
        else:
            rel = (s.turn[rows].astype(np.int64) - self.seat[rows]) % self.rules.num_players
            group = self._group_of_rel[rel]
            calls = [(policy, np.flatnonzero(group == g)) for g, policy in enumerate(self._groups)]
        acts = np.empty(rows.size, np.int64)
        for policy, k in calls:
            r = rows[k]
            if not r.size:
                continue
            fast = getattr(policy, "act_bits", None)
            if fast is not None:
                a = fast(s.mask_base[r], s.mask_bits[r], splitmix_uniform(stream[k]))  # u: (n,) in [0, 1)
            else:
                obs = encode(s.take(r), s.turn[r], self.rules, np.float32)
                a = policy.act(obs, expand(s.mask_base[r], s.mask_bits[r]), self.opponent_rng)
            acts[k] = self._check_opponent(policy, a, r.size)
        return acts

    def _check_opponent(self, policy: object, a: object, n: int) -> np.ndarray:
        """(n,) int64 actions of ``policy``; legality is checked by the engine step."""
        arr = np.asarray(a)
        if arr.shape != (n,) or arr.dtype.kind not in "iu":
            raise ValueError(
                f"opponent policy {policy!r} must return {n} integer actions, got {arr.dtype} array of shape {arr.shape}"
            )
        return arr.astype(np.int64, copy=False)

    def _illegal_opponent(self, rows: np.ndarray, acts: np.ndarray) -> IllegalActionError:
        """The error for an opponent policy that chose an illegal action (slow path)."""
        s = self.state
        base, bits = s.mask_base[rows], s.mask_bits[rows]
        k = int(np.flatnonzero(~is_legal(acts, base, bits))[0])
        rel = (int(s.turn[rows[k]]) - int(self.seat[rows[k]])) % self.rules.num_players
        policy = self.opponents[rel - 1]
        return IllegalActionError(
            f"opponent policy {policy!r} (relative seat {rel}) chose illegal action {int(acts[k])} at table "
            f"{int(rows[k])}, phase {Phase(s.phase[rows[k]]).name}; legal actions: "
            f"{legal_list(int(base[k]), int(bits[k]))}"
        )

    def _illegal(
        self, actions: np.ndarray, base: np.ndarray, bits: np.ndarray, row: int
    ) -> IllegalActionError:
        a = int(actions[row])
        what = describe(a) if 0 <= a < NUM_ACTIONS else "not an action id"
        where = f" at table {row}" if self.num_tables > 1 else ""
        return IllegalActionError(
            f"illegal action {a} ({what}){where}: phase {Phase(self.state.phase[row]).name}, learner seat "
            f"{int(self.seat[row])} to act; legal actions: {legal_list(int(base[row]), int(bits[row]))}"
        )


def legal_list(base: int, bits: int) -> str:
    """The legal actions of a compact ``(base, bits)`` set as text, for error messages."""
    return ", ".join(f"{base + k} ({describe(base + k)})" for k in range(64) if bits >> k & 1)


def check_batch_actions(actions: Any, num_envs: int) -> np.ndarray:
    """(B,) int64 from a batch of action ids.

    Raises:
        ValueError: wrong shape, or not integers (saying which).
    """
    a = np.asarray(actions)
    if a.shape != (num_envs,):
        raise ValueError(
            f"actions must have shape ({num_envs},), one action id per table; got shape {a.shape}"
        )
    if a.dtype == bool or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"actions must be integer action ids, got dtype {a.dtype}")
    return a.astype(np.int64, copy=False)


def make_tables(
    num_envs: int, variant: str, opponents: Opponents, seat: int | None, zero_sum: bool, settings: dict
) -> LearnerTables:
    """The batched core for ``num_envs`` tables of ``make_rules(variant, **settings)``."""
    return LearnerTables(num_envs, make_rules(variant, **settings), opponents, seat, zero_sum)

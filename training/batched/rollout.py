"""Self-play rollouts on the batched engine: every learner decision at every table is data.

:func:`collect` deals ``B`` new hands and plays them to the end in lockstep
(one decision per unfinished table per engine step). Who acts at a seat is
fixed per table for the hand by ``controllers`` ``(B, P)``: ``-1`` is the
learner's shared policy, ``k >= 0`` is ``opponents[k]``. Every decision the
learner takes, at any seat, is recorded with what PPO needs, and its seat's
next learner decision in the same hand (``next_idx``), so that advantages can
be computed per seat (:func:`gae`) although seats take turns.

The critic may see more than the actor: ``hidden`` holds the other seats'
hands at each decision (relative seats ``1..P-1``, uint32 card masks), which
a full-information critic reads (training only; the actor, and so the saved
policy, sees only the seat's observation).

With a ``counterfactual`` policy, the learner's decisions outside trick play
(and with ``value_play`` its card play too) are also valued action by action
(:func:`branch`, :func:`action_values`): the position is copied once per
legal action, the action applied, and every copy played out to the end of
the hand in one batch by the table's own policies.
The values are the seat's rewards in those hands (``Rollout.q``), one sample
each of what the action is worth on this deal with these players; with a
``critic``, each copy is played only until its seat next has a choice and
valued there by the critic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from arena.partner_truth import tell
from euchre_env import engine
from euchre_env.actions import NUM_ACTIONS, Phase
from euchre_env.encoding import encode, obs_layout
from euchre_env.rules import RulesConfig
from euchre_env.state import State
from euchre_env.types import Policy

# act(obs uint8 (n, D), masks bool (n, A)) -> (actions int64 (n,), logp float32 (n,))
LearnerAct = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
# copies of positions, each with one legal action applied (branch): (state of m copies, then int64 (m,) each:
# rollout row, action, table, acting seat)
Branch = tuple[State, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
# value(obs uint8 (n, D), other hands uint32 (n, P-1)) -> float32 (n,): a critic's value of each seat's position
SeatValue = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass
class Rollout:
    """The learner's decisions of one rollout, ``N`` rows in the order they were taken.

    Attributes:
        obs: uint8 (N, D) observations of the acting seat.
        hidden: uint32 (N, P-1) the other seats' hands (relative seats 1..P-1).
        masks: bool (N, A) legal actions.
        actions: int64 (N,) the actions taken.
        table: int64 (N,) the table (row of the batch) of each decision.
        seat: int64 (N,) the absolute seat that took it.
        logp: float32 (N,) their log-probabilities under the acting policy.
        reward: float32 (N,) the seat's reward on its last decision of the hand, else 0.
        next_idx: int64 (N,) the row of the same seat's next decision in the hand, -1 for the last.
        steps: int64 (S + 1,) row offsets of each engine step (rows of step t: steps[t]:steps[t+1]).
        points: float32 (B, P) rewards of every seat of every table (for logging).
        decisions: every decision taken at the tables, the opponents' included.
        forced: the learner's forced decisions played but not recorded (``record_forced=False``).
        q: float32 (N, A) with ``collect(..., counterfactual=...)``: at each learner decision outside
            trick play (and with ``value_play`` in it) with a choice, the seat's value after each legal
            action (the hand played out once from a copy of the position: its reward, or with a ``critic`` the
            critic's value where the seat next has a choice); NaN elsewhere. ``None`` without.
        partner: float32 (N, P + 1) the partner belief the learner saw at each row (``--features partner``,
            ``agents.neural.partner_columns``), kept by the trainer so the update need not count it again;
            ``None`` otherwise.
    """

    obs: np.ndarray
    hidden: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    table: np.ndarray
    seat: np.ndarray
    logp: np.ndarray
    reward: np.ndarray
    next_idx: np.ndarray
    steps: np.ndarray
    points: np.ndarray
    decisions: int
    forced: int = 0
    q: np.ndarray | None = None
    partner: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.actions.size)


def others_hands(s, turn: np.ndarray) -> np.ndarray:
    """uint32 (n, P-1): hands of the seats 1..P-1 places to the left of ``turn`` (n,)."""
    p = s.hands.shape[1]
    seats = (turn[:, None] + np.arange(1, p)) % p
    return np.take_along_axis(s.hands, seats, axis=1)


def collect(
    rules: RulesConfig,
    seeds: np.ndarray,
    controllers: np.ndarray,
    learner: LearnerAct,
    opponents: Sequence[Policy],
    rng: np.random.Generator,
    zero_sum: bool = True,
    record_forced: bool = True,
    counterfactual: LearnerAct | None = None,
    value_play: bool = False,
    critic: SeatValue | None = None,
    told: bool = False,
) -> Rollout:
    """Play one hand at each of ``B`` tables and record the learner's decisions.

    Args:
        rules: one-hand episodes of either game.
        seeds: uint64 (B,) table seeds (the deals).
        controllers: int (B, P): -1 for the learner at that seat, else an index into ``opponents``.
        learner: the learner's sampling policy (see ``LearnerAct``).
        opponents: policies for the other seats (``act(obs, masks, rng)``).
        rng: the opponents' randomness.
        zero_sum: rewards as ``engine.points_to_rewards(..., zero_sum)``.
        record_forced: also record (and ask the learner for) the learner's
            decisions with a single legal action; when false the learner
            plays them without being asked and they are left out (no policy
            gradient flows through them; a seat's reward then sits on its last
            decision with a choice).
        counterfactual: when given, each learner decision outside trick play
            with more than one legal action (bids, the dealer's discard, the
            partner call, going alone) is also valued action by action: the
            position is copied once per legal action, the action applied and
            the hand played out with the table's policies (the learner's by
            ``counterfactual``, which records nothing) into ``Rollout.q``.
        value_play: with ``counterfactual``, value the learner's card play
            (trick play decisions with a choice) the same way.
        critic: with ``counterfactual``, play each copy only until its seat
            next has a choice and value it there with ``critic`` (see
            :func:`action_values`) instead of playing it to the end of the hand.
        told: the learner's observations (what it is asked on and what is recorded) mark the hidden partner's
            seat from the call on (``arena.partner_truth.tell``; five-handed): ``--told-partner``, a yardstick
            that cheats. The other seats see their plain observations.
    """
    s = engine.init_state(rules, seeds=seeds)
    b, p = s.batch_size, rules.num_players
    last = np.full((b, p), -1, np.int64)  # row of each seat's latest learner decision
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("obs", "hidden", "masks", "actions", "table", "seat", "logp")
    }
    links: list[tuple[np.ndarray, np.ndarray]] = []  # (earlier row, later row) of one seat
    branches: list[Branch] = []
    steps, rows_so_far, decisions, skipped = [0], 0, 0, 0
    while True:
        live = np.flatnonzero(~engine.is_done(s))
        if not live.size:
            break
        sub = s if live.size == b else s.take(live)
        turn = sub.turn.astype(np.intp)
        obs = encode(sub, turn, rules, dtype=np.uint8)
        base, bits = engine.legal_bits(sub, rules)
        masks = engine.expand(base, bits)
        ctrl = controllers[live, turn]
        acts = np.empty(live.size, np.int64)
        mine = np.flatnonzero(ctrl < 0)
        if not record_forced:
            forced = np.bitwise_count(bits) == 1
            acts[mine[forced[mine]]] = masks[mine[forced[mine]]].argmax(axis=1)
            skipped += int(forced[mine].sum())
            mine = mine[~forced[mine]]
        if mine.size:
            seen = tell(obs, sub, turn, rules)[mine] if told else obs[mine]
            a, logp = learner(seen, masks[mine])
            acts[mine] = a
            tables, seats = live[mine], turn[mine]
            new_rows = rows_so_far + np.arange(mine.size)
            prev = last[tables, seats]
            linked = prev >= 0
            links.append((prev[linked], new_rows[linked]))
            last[tables, seats] = new_rows
            rows_so_far += mine.size
            if counterfactual is not None:
                branches.append(branch(sub, mine, new_rows, live, turn, masks, bits, rules, value_play))
            for key, value in (("obs", seen), ("hidden", others_hands(sub, turn)[mine]),
                               ("masks", masks[mine]), ("actions", a), ("table", tables),
                               ("seat", seats.astype(np.int64)), ("logp", logp)):  # fmt: skip
                parts[key].append(value)
        play_opponents(acts, obs, masks, ctrl, opponents, rng)
        engine.step_rows(s, live, acts, rules)
        decisions += live.size
        steps.append(rows_so_far)
    points = engine.points_to_rewards(s.last_points, rules, zero_sum)  # (B, P)
    n = rows_so_far
    next_idx = np.full(n, -1, np.int64)
    for earlier, later in links:
        next_idx[earlier] = later
    reward = np.zeros(n, np.float32)
    seen = last >= 0
    reward[last[seen]] = points[seen]
    empty = {"obs": np.zeros((0, obs_layout(rules).size), np.uint8), "hidden": np.zeros((0, p - 1), np.uint32),
             "masks": np.zeros((0, NUM_ACTIONS), bool), "actions": np.zeros(0, np.int64),
             "table": np.zeros(0, np.int64), "seat": np.zeros(0, np.int64),
             "logp": np.zeros(0, np.float32)}  # fmt: skip
    cat = {k: np.concatenate(v) if v else empty[k] for k, v in parts.items()}
    q = None
    if counterfactual is not None:
        q = action_values(branches, n, controllers, counterfactual, opponents, rng, rules, zero_sum, critic, told)
    return Rollout(**cat, reward=reward, next_idx=next_idx, steps=np.asarray(steps, np.int64),
                   points=points, decisions=decisions, forced=skipped, q=q)  # fmt: skip


def play_opponents(acts: np.ndarray, obs: np.ndarray, masks: np.ndarray, ctrl: np.ndarray,
                   opponents: Sequence[Policy], rng: np.random.Generator) -> None:  # fmt: skip
    """Fill ``acts`` (n,) in place at the rows whose controller ``ctrl`` (n,) is ``k >= 0`` with ``opponents[k]``'s
    choices."""
    for k, policy in enumerate(opponents):
        sel = np.flatnonzero(ctrl == k)
        if sel.size:
            acts[sel] = policy.act(obs[sel].astype(np.float32), masks[sel], rng)


def branch(sub: State, mine: np.ndarray, rows: np.ndarray, live: np.ndarray, turn: np.ndarray,
           masks: np.ndarray, bits: np.ndarray, rules: RulesConfig, play: bool = False) -> Branch:  # fmt: skip
    """Copies of the learner's positions outside trick play (``play``: in it too), one per legal action, that
    action applied.

    Args:
        sub: the live tables' state before this step; ``mine`` (m,) the learner's rows of it, ``rows``
            (m,) their rollout rows; ``live`` (n,) each sub row's table; ``turn`` (n,) its seat to act;
            ``masks`` bool (n, A), ``bits`` (n,) its legal actions.

    Returns:
        ``(state, rollout row, action, table, seat)``, one entry per copy (the state has the copies).
    """
    keep = ((sub.phase[mine] != Phase.PLAY) | play) & (np.bitwise_count(bits[mine]) > 1)
    mine, rows = mine[keep], rows[keep]
    i, a = np.nonzero(masks[mine])
    copy = sub.take(mine[i])
    if i.size:
        engine.step_rows(copy, np.arange(i.size), a, rules)
    return copy, rows[i], a, live[mine[i]], turn[mine[i]].astype(np.int64)


def action_values(branches: list[Branch], n: int, controllers: np.ndarray, learner: LearnerAct,
                  opponents: Sequence[Policy], rng: np.random.Generator, rules: RulesConfig,
                  zero_sum: bool, critic: SeatValue | None = None, told: bool = False) -> np.ndarray:  # fmt: skip
    """float32 (n, A): each copy of :func:`branch` played on by its table's policies, the acting seat's value at
    its row and action; NaN where no copy was made.

    Without ``critic`` every copy is played to the end of the hand and valued by the seat's reward. With it a
    copy stops where its seat next has a choice (or at the end of the hand, valued by the reward) and is valued
    there by ``critic`` (the seat's observation and the other hands): fewer moves per copy, a learned estimate
    of the rest instead of one sample of it. ``told``: the learner and the critic see the hidden partner, as in
    :func:`collect`.
    """
    q = np.full((n, NUM_ACTIONS), np.nan, np.float32)
    if not branches or not sum(b[1].size for b in branches):
        return q
    s = State.concatenate([b[0] for b in branches])
    row, action, table, seat = (np.concatenate([b[k] for b in branches]) for k in range(1, 5))
    ctrl_of = controllers[table]  # (m, P)
    value = np.full(row.size, np.nan, np.float32)  # set where a copy stopped at its seat's next choice
    while True:
        live = np.flatnonzero(~engine.is_done(s) & np.isnan(value))
        if not live.size:
            break
        sub = s if live.size == s.batch_size else s.take(live)
        turn = sub.turn.astype(np.intp)
        base, bits = engine.legal_bits(sub, rules)
        if critic is not None:
            stop = (turn == seat[live]) & (np.bitwise_count(bits) > 1)
            if stop.any():
                at = sub.take(np.flatnonzero(stop))
                seen = encode(at, turn[stop], rules, dtype=np.uint8)
                seen = tell(seen, at, turn[stop], rules) if told else seen
                value[live[stop]] = critic(seen, others_hands(at, turn[stop]))
                go = np.flatnonzero(~stop)
                if not go.size:
                    continue
                live, sub, turn, base, bits = live[go], sub.take(go), turn[go], base[go], bits[go]
        masks = engine.expand(base, bits)
        acts = masks.argmax(axis=1)  # forced moves need no policy
        ask = np.flatnonzero(np.bitwise_count(bits) > 1)
        asked = sub.take(ask)
        obs, ask_masks = encode(asked, turn[ask], rules, dtype=np.uint8), masks[ask]
        ctrl = ctrl_of[live[ask], turn[ask]]
        chosen = acts[ask]
        mine = np.flatnonzero(ctrl < 0)
        if mine.size:
            seen = tell(obs, asked, turn[ask], rules)[mine] if told else obs[mine]
            chosen[mine] = learner(seen, ask_masks[mine])[0]
        play_opponents(chosen, obs, ask_masks, ctrl, opponents, rng)
        acts[ask] = chosen
        engine.step_rows(s, live, acts, rules)
    points = engine.points_to_rewards(s.last_points, rules, zero_sum)
    ended = np.isnan(value)
    value[ended] = points[np.flatnonzero(ended), seat[ended]]
    q[row, action] = value
    return q


def gae(r: Rollout, values: np.ndarray, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates along each seat's own decisions.

    A seat's next state is its own next decision (``r.next_idx``), or the end
    of the hand. Steps are walked backwards, all tables at once.

    Args:
        r: the rollout.
        values: float32 (N,) the critic's value of each decision.

    Returns:
        ``(advantages, returns)``, float32 (N,) each; returns = advantages + values.
    """
    adv = np.zeros(len(r), np.float32)
    for t in range(r.steps.size - 2, -1, -1):
        rows = np.arange(r.steps[t], r.steps[t + 1])
        if not rows.size:
            continue
        nxt = r.next_idx[rows]
        has = nxt >= 0
        safe = np.where(has, nxt, 0)
        next_value = np.where(has, values[safe], 0.0)
        next_adv = np.where(has, adv[safe], 0.0)
        delta = r.reward[rows] + gamma * next_value - values[rows]
        adv[rows] = delta + gamma * lam * next_adv
    return adv, adv + values

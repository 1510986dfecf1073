"""``euchre analyse open-cards``: what seeing every card is worth against an agent.

An *open-card* player is the search agent (:class:`agents.determinized.DeterminizedAgent`)
whose one searched world is the real deal: at each of its decisions it tries every
legal action on the real cards, plays the hand out with the heuristic at every seat
(the last ``--exact-tricks`` tricks solved exactly) and takes the best. It cheats, so
it is no agent to play with; it measures how much the hidden cards are worth in each
phase, which puts a trained model's margin over the same opponent in proportion. It
plays a duplicate match against ``--opponent`` on the same deals and seat rotations as
``euchre eval`` (:func:`arena.evaluate.seat_patterns`), searching in ``--phases``
(``all``, ``bidding``: every phase but trick play, or ``play``) and playing the
heuristic's choice elsewhere.

Example::

    euchre analyse open-cards --variant four_handed --phases play --deals 2000 --seed 500
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from agents import make_agent
from agents.determinized import DeterminizedAgent
from arena.evaluate import match_seeds, play_rotations, seat_patterns
from arena.report import Stat, mean_ci
from euchre_env.actions import Phase
from euchre_env.infoset import seat_frame
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.types import Policy

PHASES = {
    "all": [p for p in Phase if p != Phase.DONE],
    "bidding": [p for p in Phase if p not in (Phase.PLAY, Phase.DONE)],
    "play": [Phase.PLAY],
}


class OpenCardSearch(DeterminizedAgent):
    """The search agent with the real deal as its only world: before each ``act`` call, ``set_truth`` gives it the
    real tables of that call's rows, each in its acting seat's frame (:func:`euchre_env.infoset.seat_frame`)."""

    name = "open_cards"

    def __init__(self, rules: RulesConfig, phases: str = "all", exact_tricks: int = 2, seed: int = 0) -> None:
        super().__init__(rules, num_worlds=1, bid_worlds=1, deviation_z=0.0, exact_tricks=exact_tricks,
                         search_phases=PHASES[phases], prune_calls=False, worlds="uniform", seed=seed)  # fmt: skip
        self.truth: State | None = None
        self._rows: dict[bytes, int] = {}

    def set_truth(self, truth: State, observations: np.ndarray) -> None:
        """The real tables (acting seat = seat 0) of the observations (B, D) the next ``act`` is given."""
        rows = {row.tobytes(): i for i, row in enumerate(observations > 0.5)}  # act passes rows on by observation
        if len(rows) < len(observations):
            raise ValueError("the observations of one act call must differ (one real table each)")
        self.truth, self._rows = truth, rows

    def search_worlds(self, observations: np.ndarray, w: int, rng: np.random.Generator) -> State:
        rows = [self._rows[row.tobytes()] for row in np.atleast_2d(observations) > 0.5]
        return self.truth.take(np.repeat(np.asarray(rows, np.int64), w))


def distinct_batches(obs: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    """``rows`` (R,) split into batches whose observations ``obs[rows]`` differ: each row's first sighting of its
    observation in the first batch, the second in the second, and so on. Ascending int64 arrays."""
    if not rows.size:
        return []
    _, view = np.unique(np.packbits(obs[rows] > 0.5, axis=1), axis=0, return_inverse=True)
    order = np.argsort(view.reshape(-1), kind="stable")  # rows grouped by view, in row order within a group
    grouped = view.reshape(-1)[order]
    first = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])  # where each group begins in ``order``
    nth = np.empty(rows.size, np.int64)
    nth[order] = np.arange(rows.size) - np.repeat(first, np.diff(np.r_[first, rows.size]))
    return [rows[nth == k] for k in range(int(nth.max()) + 1)]


def open_card_match(rules: RulesConfig, phases: str, opponent: str, num_deals: int, seed: int,
                    exact_tricks: int = 2, batch_deals: int = 1024) -> tuple[Stat, Stat]:  # fmt: skip
    """The open-card player against ``opponent`` on the ``num_deals`` duplicate deals of ``euchre eval --seed seed``.

    Returns:
        ``(points, relative)``: the open-card player's points per hand minus the opponent's, and the same in points
        relative to the table's mean (what counts five-handed), each a mean with its 95% interval over deals.
    """
    slots, focal = seat_patterns(rules)
    cheat = OpenCardSearch(rules, phases, exact_tricks, seed)
    other = make_agent(opponent, rules)
    deal_seeds, _, (agent_ss,) = match_seeds(seed, num_deals, 0, 1)  # the deals of arena.evaluate's matches
    rng = np.random.default_rng(agent_ss)
    pts = np.concatenate([_play(rules, cheat, other, deal_seeds[i : i + batch_deals], slots, rng)
                          for i in range(0, num_deals, batch_deals)])  # fmt: skip
    rel = pts - pts.mean(axis=2, keepdims=True)
    weights = [(slots == k) & focal for k in (0, 1)]
    diff = lambda x: mean_ci(np.subtract(*[(x * w).sum(axis=(1, 2)) / w.sum() for w in weights]))
    return diff(pts), diff(rel)


def _play(rules: RulesConfig, cheat: OpenCardSearch, other: Policy, deal_seeds: np.ndarray, slots: np.ndarray,
          rng: np.random.Generator) -> np.ndarray:  # fmt: skip
    """Every rotation ``slots`` (R, P) of each deal played out (slot 0: ``cheat``). Points float64 (N, R, P)."""

    def first(tables: State, turn: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        acts = np.empty(turn.size, np.int64)
        for rows in distinct_batches(obs, np.arange(turn.size)):  # one view can hide two tables (a discard)
            cheat.set_truth(seat_frame(tables.take(rows), turn[rows]), obs[rows])
            acts[rows] = cheat.act(obs[rows], masks[rows], rng)
        return acts

    return play_rotations(rules, deal_seeds, slots, first, other, rng)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre analyse open-cards``."""
    parser.add_argument("--variant", default="four_handed", choices=sorted(PRESETS))
    parser.add_argument("--phases", default="all", choices=sorted(PHASES), help="where the open-card player searches")
    parser.add_argument("--opponent", default="heuristic", help="agent name of the other side")
    parser.add_argument("--deals", type=int, default=2000, help="duplicate deals (at least 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and of every random draw")
    parser.add_argument("--exact-tricks", type=int, default=2, help="last tricks solved exactly (0..5)")


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre analyse open-cards``)."""
    parser = argparse.ArgumentParser(prog="euchre analyse open-cards", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2, got {args.deals}")
    try:
        points, relative = open_card_match(make_rules(args.variant, episode="hand"), args.phases, args.opponent,
                                           args.deals, args.seed, args.exact_tricks)  # fmt: skip
    except ValueError as err:
        parser.error(str(err))
    print(f"open cards ({args.phases}) - {args.opponent}, {args.variant}, {args.deals} deals of seed {args.seed}: "
          f"{points.mean:+.3f} ± {points.ci95:.3f} points per hand, {relative.mean:+.3f} ± {relative.ci95:.3f} "
          f"relative")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

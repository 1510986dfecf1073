"""``euchre analyse partner-truth``: what knowing the hidden partner is worth to an agent (five-handed).

A yardstick like the open-card player (:mod:`arena.open_cards`): the agent is told who holds the
called card from the call on, and plays a duplicate match against itself untold (or against
``--against``, untold), on the same deals and seat rotations as ``euchre eval``
(:func:`arena.evaluate.seat_patterns`: one seat told, four untold, the told seat moved round the table,
then the other way about). It cheats, so it is no agent
to play with; the difference says how much of an agent's hidden information the partnership is, and
so how much a belief over the partner could give it at most (``euchre partner-bench`` scores the
beliefs).

How an agent is told:

* every agent: at each of its decisions after the call, while the partnership is still hidden, its
  observation's ``revealed_by`` piece marks the partner's seat, as if the called card had been played
  (what the agent learned to read once the partnership is public). The holder of the card and the
  maker's "no partner" (called card in the kitty) are told nothing: the holder knows, and the
  observation has no place for "none";
* the search agent (:class:`agents.determinized.DeterminizedAgent`) also searches only worlds in which
  the partner is the true one (:class:`ToldSearch`). Five-handed it searches the bidding by default and
  plays the cards with its rollout policy (which is not told), so the truth reaches it only in the
  decisions it searches after the call (going alone).

Example::

    euchre analyse partner-truth --agent model:five_handed --deals 10000 --seed 600

A policy trained told (``euchre train --variant five_handed --told-partner``) measures what the truth is
worth to a policy that learned to use it: ``--agent model:PATH --against model:five_handed``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Sequence

import numpy as np

from agents import make_agent
from agents.determinized import DeterminizedAgent
from arena.evaluate import match_seeds, play_rotations, seat_patterns
from arena.report import Stat, mean_ci, report_folder
from euchre_env.encoding import obs_layout
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.types import Policy

REPORT = "partner_truth.json"
"""What ``--out`` receives."""


def tell(obs: np.ndarray, s: State, turn: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """``obs`` (B, D) of the seats ``turn`` (B,) at tables ``s`` (B), with ``revealed_by`` set to the
    partner's relative seat where the partnership is decided, still hidden, and another seat's. A copy."""
    layout = obs_layout(rules)
    told = obs.copy()
    hidden = (s.called >= 0) & (s.partner >= 0) & (s.revealed < 0) & (s.partner != turn)
    rows = np.flatnonzero(hidden)
    rel = (s.partner[rows].astype(np.int64) - turn[rows]) % rules.num_players
    told[rows, layout.offsets["revealed_by"] + rel] = 1
    return told


class ToldSearch(DeterminizedAgent):
    """The search agent that keeps only worlds whose partner is the one its observation's ``revealed_by``
    names (:func:`tell`); build it from a search agent with :meth:`from_agent`."""

    name = "search-told"

    @classmethod
    def from_agent(cls, agent: DeterminizedAgent) -> ToldSearch:
        """The same search (settings, rollout policy, random stream) with the told filter."""
        told = cls.__new__(cls)
        told.__dict__.update(agent.__dict__)
        told._want = np.zeros(0, np.int64)
        return told

    def search_worlds(self, observations: np.ndarray, w: int, rng: np.random.Generator) -> State:
        obs = np.atleast_2d(observations)
        p = self.rules.num_players
        at = obs_layout(self.rules).offsets["revealed_by"]
        named = obs[:, at : at + p] > 0.5
        self._want = np.repeat(np.where(named.any(axis=1), named.argmax(axis=1), -1), w * self.oversample)
        return super().search_worlds(obs, w, rng)

    def world_log_weights(self, worlds: State, rng: np.random.Generator) -> np.ndarray:
        base = super().world_log_weights(worlds, rng)
        if self._want.size != worlds.batch_size:  # worlds drawn elsewhere than search_worlds: no filter
            return base
        return np.where((self._want < 0) | (worlds.partner == self._want), base, -np.inf)


def told_agent(name: str, rules: RulesConfig) -> Policy:
    """The agent ``name`` as the told seat plays it: a search agent becomes :class:`ToldSearch` (it needs
    world weights to filter: ``search-uniform`` is refused); any other agent is itself, told through the
    observation only (:func:`tell`)."""
    agent = make_agent(name, rules)
    if isinstance(agent, DeterminizedAgent):
        if agent.log_surprise is None and agent.world_model is None:
            raise ValueError(f"--agent {name!r} searches uniform worlds without weights: nothing to filter; "
                             "use search or search-policy")  # fmt: skip
        return ToldSearch.from_agent(agent)
    return agent


def partner_truth_match(rules: RulesConfig, agent: str, num_deals: int, seed: int, batch_deals: int = 1024,
                        against: str = "") -> tuple[Stat, Stat]:  # fmt: skip
    """``agent`` told the partnership against ``against`` (default: ``agent`` itself) untold on the
    ``num_deals`` duplicate deals of ``euchre eval --seed seed``.

    Returns:
        ``(points, relative)``: the told seat's points per hand minus the untold's, and the same in points
        relative to the table's mean (what counts five-handed), each a mean with its 95% interval over deals.
    """
    if not rules.called_card:
        raise ValueError(f"the hidden partner is five-handed, got rules of {rules.variant!r}")
    slots, focal = seat_patterns(rules)
    told, plain = told_agent(agent, rules), make_agent(against or agent, rules)
    deal_seeds, _, (told_ss, plain_ss) = match_seeds(seed, num_deals, 0, 2)
    rngs = (np.random.default_rng(told_ss), np.random.default_rng(plain_ss))
    first = lambda tables, turn, obs, masks: told.act(tell(obs, tables, turn, rules), masks, rngs[0])
    pts = np.concatenate([play_rotations(rules, deal_seeds[i : i + batch_deals], slots, first, plain, rngs[1])
                          for i in range(0, num_deals, batch_deals)])  # fmt: skip
    rel = pts - pts.mean(axis=2, keepdims=True)
    weights = [(slots == k) & focal for k in (0, 1)]
    diff = lambda x: mean_ci(np.subtract(*[(x * w).sum(axis=(1, 2)) / w.sum() for w in weights]))
    return diff(pts), diff(rel)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre analyse partner-truth``."""
    parser.add_argument("--agent", default="model:five_handed", help="agent name (told)")
    parser.add_argument("--against", default="", help="the untold agent (default: --agent itself)")
    parser.add_argument("--deals", type=int, default=10000, help="duplicate deals (at least 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and of every random draw")
    parser.add_argument("--out", default="", help="a folder to write partner_truth.json into (optional)")
    parser.add_argument("--overwrite", action="store_true", help="replace a partner_truth.json already in --out")


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre analyse partner-truth``)."""
    parser = argparse.ArgumentParser(prog="euchre analyse partner-truth", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2, got {args.deals}")
    out = report_folder(parser, args.out, REPORT, args.overwrite) if args.out else None
    start = time.perf_counter()
    try:
        points, relative = partner_truth_match(make_rules("five_handed", episode="hand"), args.agent, args.deals,
                                               args.seed, against=args.against)  # fmt: skip
    except ValueError as err:
        parser.error(str(err))
    print(f"{args.agent} told the partner - {args.against or 'itself'} untold, five_handed, {args.deals} deals "
          f"of seed {args.seed}: "
          f"{relative.mean:+.3f} ± {relative.ci95:.3f} relative points per hand ({points.mean:+.3f} ± "
          f"{points.ci95:.3f} points)")  # fmt: skip
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        report = {"command": "euchre analyse partner-truth " + shlex.join(argv if argv is not None else sys.argv[1:]),
                  "agent": args.agent, "against": args.against or args.agent, "deals": args.deals, "seed": args.seed,
                  "seconds": time.perf_counter() - start,
                  "relative": {"mean": relative.mean, "ci95": relative.ci95},
                  "points": {"mean": points.mean, "ci95": points.ci95}}  # fmt: skip
        tmp = out / (REPORT + ".tmp")
        tmp.write_text(json.dumps(report, indent=2))
        tmp.replace(out / REPORT)
        print(f"wrote {out / REPORT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Who sits at the other seats of a training table: ``--opponents`` and :class:`OpponentPool`.

Both trainers read the same pool spec (``"heuristic=3,self=1"``, kinds
:data:`POOL_KINDS`); the SB3 route (``training.sb3.train``) draws its opponents
from an ``OpponentPool`` before every rollout.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents import make_agent
from agents.sb3_policy import SB3Policy
from euchre_env.rules import RulesConfig
from euchre_env.types import Policy

POOL_KINDS = ("self", "snapshots", "heuristic", "random", "search")


def parse_pool(spec: str) -> dict[str, float]:
    """``"self=2,heuristic=1"`` -> ``{"self": 2.0, "heuristic": 1.0}`` (a bare name weighs 1).

    Raises:
        ValueError: an unknown kind, a negative weight, or no positive weight.
    """
    weights: dict[str, float] = {}
    for part in (p.strip() for p in str(spec).split(",")):
        if not part:
            continue
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in POOL_KINDS:
            raise ValueError(f"--opponents: unknown pool entry {name!r}; known: {list(POOL_KINDS)}")
        try:
            weights[name] = float(value) if value else 1.0
        except ValueError:
            raise ValueError(f"--opponents: weight of {name!r} must be a number, got {value!r}") from None
        if weights[name] < 0:
            raise ValueError(f"--opponents: weight of {name!r} must be >= 0, got {weights[name]}")
    if sum(w for k, w in weights.items() if k != "snapshots") <= 0:
        raise ValueError(
            f"--opponents needs a positive weight on self, heuristic, random or search, got {spec!r}"
        )
    return weights


class OpponentPool:
    """Opponents for the learner, drawn per rollout.

    The learner's own current policy (sampling) always plays its side: the
    partner in the four-handed game. Each draw picks one entry of the pool by
    weight: ``self`` (the current policy everywhere: pure self-play), a
    frozen ``snapshots`` entry (added with :meth:`add_snapshot`, e.g. each
    time the evaluation improves), or a fixed agent (``heuristic``,
    ``random``, ``search``). With ``seats="mixed"`` the drawn entry takes
    both opponent seats (four-handed) or a random non-empty subset of the
    four other seats (five-handed), the rest being the current policy; with
    ``seats="all"`` it takes every other seat (partner included).

    Args:
        weights: from :func:`parse_pool`.
        rules: the game.
        live: the learner's current policy as an agent.
        max_snapshots: the oldest snapshot is dropped beyond this many.
        rng: the draws.
        seats: ``"mixed"`` or ``"all"``, as above.
    """

    def __init__(
        self,
        weights: dict[str, float],
        rules: RulesConfig,
        live: Policy,
        max_snapshots: int,
        rng: np.random.Generator,
        seats: str = "mixed",
    ) -> None:
        if seats not in ("mixed", "all"):
            raise ValueError(f"seats must be 'mixed' or 'all', got {seats!r}")
        self.weights, self.rules, self.live, self.rng, self.seats = dict(weights), rules, live, rng, seats
        self.max_snapshots = max_snapshots
        self.snapshots: list[Policy] = []
        self.fixed = {
            k: make_agent(k, rules) for k in ("heuristic", "random", "search") if weights.get(k, 0) > 0
        }

    def add_snapshot(self, policy_module: Any) -> None:
        """Freeze a copy of an SB3 policy module into the pool."""
        frozen = SB3Policy(policy_module, self.rules).frozen(deterministic=False, name="snapshot")
        self.snapshots = [*self.snapshots, frozen][-self.max_snapshots :]

    def draw(self) -> tuple[str, dict[int, Policy]]:
        """``(label, {relative seat: policy})`` for the next rollout."""
        kinds = [k for k, w in self.weights.items() if w > 0 and (k != "snapshots" or self.snapshots)]
        p = np.array([self.weights[k] for k in kinds])
        kind = kinds[int(self.rng.choice(len(kinds), p=p / p.sum()))]
        if kind == "self":
            opponent = self.live
        elif kind == "snapshots":
            opponent = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
        else:
            opponent = self.fixed[kind]
        n = self.rules.num_players
        if self.seats == "all":
            taken = set(range(1, n))
        elif self.rules.called_card:  # hidden partner: the drawn entry at a random subset of the seats
            chosen = self.rng.permutation(np.arange(1, n))[: int(self.rng.integers(1, n))]
            taken = set(chosen.tolist())
        else:  # fixed partners: the partner (relative seat 2) is the learner's own policy
            taken = {r for r in range(1, n) if r % 2 == 1}
        return kind, {r: opponent if r in taken else self.live for r in range(1, n)}

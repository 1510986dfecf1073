"""``EuchreMultiAgentEnv``: ``B`` Euchre tables as one RLlib ``MultiAgentEnv`` on the batched engine.

RLlib's multi-agent API is not PettingZoo's AEC API: ``step`` takes a dict of
actions, one per agent that received an observation, and returns dicts of
observations, rewards, terminations and truncations. This adapter plays
``tables`` hands at once on one engine state, turn-based at every table:

* an agent is one seat at one table, named ``"t{table}_p{position}"`` where the
  position counts from the dealer's left (``p0`` bids and leads first; the
  dealer is ``p{P-1}``), so a policy mapping may give each position its own
  policy (:func:`agent_position`);
* each step, exactly the seat to act at each live table receives an
  observation; the actions of all those seats move the engine once
  (``engine.step_rows``);
* when a table's hand ends, every seat of that table that made a decision
  receives its final observation, its reward and ``terminated=True``; a seat
  that never acted (a partner sitting out a lone hand from the first bid) is
  left out: it has no decision to credit;
* the episode (``"__all__"``) ends when the last table's hand ends: an
  episode is one hand at each of the ``tables`` tables.

Observation space of every agent: ``Dict({"observations": Box(0, 1, (D,),
float32), "action_mask": Box(0, 1, (93,), float32)})`` (the seat-relative
encoding of :mod:`euchre_env.encoding` and the legal actions); action space
``Discrete(93)``. Rewards: the hand's points of each seat
(``engine.points_to_rewards``; ``zero_sum`` makes them own points minus the
other side's, five-handed minus the mean).

Seeds: ``reset(seed=s)`` deals table ``i`` exactly as
``engine.init_state(rules, seeds=[s + i])`` (and so as the PettingZoo env's
``reset(seed=s + i)``); later resets without a seed draw table seeds from a
generator seeded by ``s`` (or by ``config["seed"]`` and the env runner's
worker and vector index, so each env of a run deals its own hands).

Config (the ``env_config`` dict RLlib passes in): ``variant`` (default
``"four_handed"``), ``tables`` (default 32), ``zero_sum`` (default True),
``seed`` (default None), ``rules`` (a dict of rule settings, e.g.
``{"stick_the_dealer": False}``), ``illegal_action``: ``"terminate"`` (default,
as the project's other envs and PettingZoo's classic games: the offender gets
-1, the other seats of that table 0, and the table's hand ends, so RLlib's
env checker, which steps random actions, passes) or ``"raise"``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from euchre_env import engine
from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import encode, obs_layout
from euchre_env.envs.gym_env import ILLEGAL_ACTION_MODES, ILLEGAL_ACTION_REWARD
from euchre_env.envs.learner_tables import seeds_to_array
from euchre_env.rules import PRESETS, make_rules

__all__ = ["EuchreMultiAgentEnv", "agent_id", "agent_position", "agent_table"]

CONFIG_KEYS = ("variant", "tables", "zero_sum", "seed", "rules", "illegal_action")


def agent_id(table: int, position: int) -> str:
    """The agent name of the seat ``position`` places left of the dealer's left at ``table``."""
    return f"t{table}_p{position}"


def agent_table(agent: str) -> int:
    """The table of an agent name (``"t3_p1"`` -> 3)."""
    return int(agent[1:].split("_p")[0])


def agent_position(agent: str) -> int:
    """The position from the dealer's left of an agent name (``"t3_p1"`` -> 1; the dealer is P-1)."""
    return int(agent.rsplit("_p", 1)[1])


class EuchreMultiAgentEnv(MultiAgentEnv):
    """``tables`` Euchre hands played at once, turn-based, for RLlib (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise ValueError(
                f"EuchreMultiAgentEnv config: unknown keys {unknown}; expected some of {CONFIG_KEYS}"
            )
        variant = config.get("variant", "four_handed")
        if variant not in PRESETS:
            raise ValueError(
                f"EuchreMultiAgentEnv config 'variant' must be one of {sorted(PRESETS)}, got {variant!r}"
            )
        tables = config.get("tables", 32)
        if isinstance(tables, bool) or not isinstance(tables, int) or tables < 1:
            raise ValueError(
                f"EuchreMultiAgentEnv config 'tables' must be a positive integer, got {tables!r}"
            )
        settings = config.get("rules") or {}
        if not isinstance(settings, dict):
            raise ValueError(
                f"EuchreMultiAgentEnv config 'rules' must be a dict of settings, got {settings!r}"
            )
        self.rules = make_rules(variant, **settings)
        if self.rules.episode != "hand":
            raise ValueError("EuchreMultiAgentEnv plays single hands: rules 'episode' must be 'hand'")
        self.num_tables, self.zero_sum = tables, bool(config.get("zero_sum", True))
        p = self.num_players = self.rules.num_players
        self.agents = self.possible_agents = [agent_id(t, q) for t in range(tables) for q in range(p)]
        size = obs_layout(self.rules).size
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })  # fmt: skip
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, gym.spaces.Discrete(NUM_ACTIONS))
        # One generator per env: RLlib's env context (worker, vector index) keeps a run's envs apart.
        base = config.get("seed")
        spread = [getattr(config, "worker_index", 0), getattr(config, "vector_index", 0)]
        self._seeds = np.random.default_rng(None if base is None else [int(base), *spread])
        self.state: Any = None
        self._acted = np.zeros((tables, p), bool)
        self._over = np.zeros(tables, bool)
        self._actions: Counter[str] = Counter()  # actions taken by each agent since take_actions() read them
        self.illegal_action = config.get("illegal_action", ILLEGAL_ACTION_MODES[0])
        if self.illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"EuchreMultiAgentEnv config 'illegal_action' must be one of {ILLEGAL_ACTION_MODES}, "
                f"got {self.illegal_action!r}"
            )

    # -- seats and names ---------------------------------------------------------------
    def _names(self, rows: np.ndarray, seats: np.ndarray) -> list[str]:
        pos = (seats - self.state.dealer[rows].astype(np.int64) - 1) % self.num_players
        return [agent_id(int(t), int(q)) for t, q in zip(rows, pos, strict=True)]

    def seat_of(self, agent: str) -> int:
        """The absolute seat (0 .. P-1) of ``agent`` in the current hand."""
        t = agent_table(agent)
        return int((int(self.state.dealer[t]) + 1 + agent_position(agent)) % self.num_players)

    def _observe(self, rows: np.ndarray, seats: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        sub = self.state.take(rows)
        obs = encode(sub, seats, self.rules, dtype=np.float32)
        live = ~engine.is_done(sub) & ~self._over[rows]
        masks = np.zeros((rows.size, NUM_ACTIONS), np.float32)
        if live.any():
            masks[live] = engine.legal_action_mask(sub.take(np.flatnonzero(live)), self.rules)
        return {
            name: {"observations": obs[i], "action_mask": masks[i]}
            for i, name in enumerate(self._names(rows, seats))
        }

    def _live(self) -> np.ndarray:
        """Rows whose hand goes on: not done, not ended by an illegal action."""
        return np.flatnonzero(~engine.is_done(self.state) & ~self._over)

    def _to_act(self) -> dict[str, dict[str, np.ndarray]]:
        live = self._live()
        return self._observe(live, self.state.turn[live].astype(np.int64)) if live.size else {}

    def _pay(self, rows: np.ndarray, rewards: np.ndarray, obs: dict, out: dict, terms: dict) -> None:
        """Final observation, reward (``rewards`` (n, P)) and termination for the seats of ``rows`` that acted."""
        p = self.num_players
        row, seat = np.repeat(rows, p), np.tile(np.arange(p), rows.size)
        paid = self._acted[row, seat]
        obs.update(self._observe(row[paid], seat[paid]))
        for name, r in zip(self._names(row[paid], seat[paid]), rewards.reshape(-1)[paid], strict=True):
            out[name], terms[name] = float(r), True

    def take_actions(self) -> Counter[str]:
        """The actions (legal or not) each agent took since the last call (or ``take_decisions``); resets them.

        RLlib's agent-step count also counts an observation per seat and hand beyond its decisions;
        this is the decisions alone, by agent, so a callback can tell apart the agents of the modules that learn.
        """
        taken, self._actions = self._actions, Counter()
        return taken

    def take_decisions(self) -> int:
        """Actions taken (legal or not) since the last call; resets the count (as ``take_actions``)."""
        return sum(self.take_actions().values())

    # -- the MultiAgentEnv API ---------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Deal one hand at every table; observations for the seat to act at each.

        Args:
            seed: table ``i`` is dealt from engine seed ``seed + i``; later
                resets without a seed draw from a generator seeded by it.
            options: ignored (RLlib passes None).
        """
        if seed is not None:
            table_seeds = seeds_to_array(seed, self.num_tables)
            self._seeds = np.random.default_rng(int(seed))
        else:
            table_seeds = self._seeds.integers(0, 2**63, size=self.num_tables, dtype=np.uint64)
        self.state = engine.init_state(self.rules, seeds=table_seeds)
        self._acted[:] = False
        self._over[:] = False
        return self._to_act(), {}

    def step(self, action_dict: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """Move every live table by its acting seat's action; pay and end the tables whose hand ends.

        Raises:
            ValueError: ``action_dict`` lacks an action for a seat to act or
                names an agent not to act; with ``illegal_action="raise"``, an
                illegal action (saying whose).
        """
        s = self.state
        if s is None:
            raise RuntimeError("EuchreMultiAgentEnv.step called before reset")
        live = self._live()
        seats = s.turn[live].astype(np.int64)
        expected = self._names(live, seats)
        extra = sorted(set(action_dict) - set(expected))
        missing = [a for a in expected if a not in action_dict]
        if extra or missing:
            raise ValueError(
                f"EuchreMultiAgentEnv.step: actions are for the agents to act {expected[:8]}"
                f"{'...' if len(expected) > 8 else ''}; missing {missing[:8]}, not to act {extra[:8]}"
            )
        acts = np.array([int(action_dict[a]) for a in expected], np.int64)
        base, bits = engine.legal_bits(s.take(live), self.rules)
        legal = engine.is_legal(acts, base, bits)
        if not legal.all() and self.illegal_action == "raise":
            bad = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"EuchreMultiAgentEnv.step: action {acts[bad]} of {expected[bad]!r} is not legal"
            )
        self._acted[live, seats] = True
        self._actions.update(expected)
        self._over[live[~legal]] = True
        engine.step_rows(s, live[legal], acts[legal], self.rules)
        moved = live[legal]
        ended = moved[engine.is_done(s.take(moved))]
        obs, terms = self._to_act(), {"__all__": not self._live().size}
        rewards = dict.fromkeys(obs, 0.0)  # RLlib wants a reward with every observation
        if ended.size:
            points = engine.points_to_rewards(s.last_points[ended], self.rules, self.zero_sum)  # (E, P)
            self._pay(ended, points, obs, rewards, terms)
        if not legal.all():  # illegal_action="terminate": the offender gets -1, the table's hand ends
            bad = live[~legal]
            penalty = np.zeros((bad.size, self.num_players), np.float32)
            penalty[np.arange(bad.size), seats[~legal]] = ILLEGAL_ACTION_REWARD
            self._pay(bad, penalty, obs, rewards, terms)
        return obs, rewards, terms, {"__all__": False}, {}

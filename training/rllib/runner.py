"""RLlib pieces the trainer plugs in: an env runner that works around an RLlib bug, and a decision counter.

* ``EuchreEnvRunner``: RLlib 2.60's ``MultiAgentEnvRunner`` reports ``NaN``
  steps for an agent that sampled before but not in this round, and PPO's
  sampling loop then fails on ``int(NaN)`` (ray-project/ray#62635, open). With
  one agent per seat and table, a short round (the loop tops up a batch with a
  few steps) leaves most agents out. This runner drops those ``NaN`` entries:
  an absent agent sampled no steps.
* ``CountDecisions``: counts the actions taken in every env step (RLlib's
  agent-step count also counts each seat's first observation of a hand),
  as the env counted them (``EuchreMultiAgentEnv.take_decisions``).
"""

from __future__ import annotations

import math
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.utils.metrics import NUM_AGENT_STEPS_SAMPLED

__all__ = ["DECISIONS", "CountDecisions", "EuchreEnvRunner"]

DECISIONS = "euchre_decisions"  # lifetime count of actions taken by the agents (a sampling metric)


class EuchreEnvRunner(MultiAgentEnvRunner):
    """``MultiAgentEnvRunner`` whose metrics hold no ``NaN`` per-agent step counts."""

    def get_metrics(self) -> Any:
        metrics = super().get_metrics()
        steps = metrics.get(NUM_AGENT_STEPS_SAMPLED)
        if isinstance(steps, dict):
            metrics[NUM_AGENT_STEPS_SAMPLED] = {k: v for k, v in steps.items() if not math.isnan(float(v))}
        return metrics


class CountDecisions(RLlibCallback):
    """Logs the number of agents that acted in each env step as ``DECISIONS`` (a lifetime sum)."""

    def on_episode_step(self, *, metrics_logger: Any = None, env: Any = None, env_index: int = 0,
                        **kwargs: Any) -> None:  # fmt: skip
        table = env.envs[env_index].unwrapped  # the EuchreMultiAgentEnv that just stepped
        metrics_logger.log_value(DECISIONS, table.take_decisions(), reduce="lifetime_sum")

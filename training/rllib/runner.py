"""RLlib pieces the trainer plugs in: an env runner that works around an RLlib bug, and a decision counter.

* ``EuchreEnvRunner``: RLlib 2.60's ``MultiAgentEnvRunner`` reports ``NaN``
  steps for an agent that sampled before but not in this round, and PPO's
  sampling loop then fails on ``int(NaN)`` (ray-project/ray#62635, open). With
  one agent per seat and table, a short round (the loop tops up a batch with a
  few steps) leaves most agents out. This runner drops those ``NaN`` entries:
  an absent agent sampled no steps.
* ``CountDecisions``: counts the actions taken in every env step (RLlib's
  agent-step count also counts an observation per seat and hand beyond its decisions), as
  the env counted them by agent (``EuchreMultiAgentEnv.take_actions``): all of
  them (``DECISIONS``: every decision played at the tables, a frozen
  snapshot's included) and those of the agents the episode maps to a module
  that learns (``LEARNER_DECISIONS``: the decisions PPO learns from). The
  trainer reports them as ``decisions`` and ``learner_decisions`` in
  ``progress.json``, with the meaning the local trainer gives them
  (:class:`training.runs.Progress`).
"""

from __future__ import annotations

import math
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.utils.metrics import NUM_AGENT_STEPS_SAMPLED

__all__ = ["DECISIONS", "LEARNER_DECISIONS", "CountDecisions", "EuchreEnvRunner"]

DECISIONS = "euchre_decisions"  # lifetime count of actions taken by the agents (a sampling metric)
LEARNER_DECISIONS = "euchre_learner_decisions"  # ... by the agents of modules in policies_to_train


class EuchreEnvRunner(MultiAgentEnvRunner):
    """``MultiAgentEnvRunner`` whose metrics hold no ``NaN`` per-agent step counts."""

    def get_metrics(self) -> Any:
        metrics = super().get_metrics()
        steps = metrics.get(NUM_AGENT_STEPS_SAMPLED)
        if isinstance(steps, dict):
            metrics[NUM_AGENT_STEPS_SAMPLED] = {k: v for k, v in steps.items() if not math.isnan(float(v))}
        return metrics


def _learns(config: Any, module_id: str) -> bool:
    """Whether ``module_id`` is trained under ``config.policies_to_train`` (None: every module is)."""
    trained = getattr(config, "policies_to_train", None)
    if trained is None:
        return True
    if callable(trained):
        return bool(trained(module_id, None))
    return module_id in trained


class CountDecisions(RLlibCallback):
    """Logs the actions taken in each env step as ``DECISIONS`` and those of learning modules' agents as
    ``LEARNER_DECISIONS`` (lifetime sums)."""

    def on_episode_step(self, *, episode: Any = None, env_runner: Any = None, metrics_logger: Any = None,
                        env: Any = None, env_index: int = 0, **kwargs: Any) -> None:  # fmt: skip
        table = env.envs[env_index].unwrapped  # the EuchreMultiAgentEnv that just stepped
        taken = table.take_actions()
        config = getattr(env_runner, "config", None)
        learner = sum(n for agent, n in taken.items() if _learns(config, episode.module_for(agent)))
        metrics_logger.log_value(DECISIONS, sum(taken.values()), reduce="lifetime_sum")
        metrics_logger.log_value(LEARNER_DECISIONS, learner, reduce="lifetime_sum")
